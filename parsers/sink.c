/*
 * sink.c -- the one piece of the sink interface that is code: formatted
 * diagnostics. Everything else is in sink.h.
 */
#include "parsers/sink.h"

#include <stdarg.h>
#include <stdio.h>

#include "lib/strbuf.h"

int64_t sink_diagf(struct sink *s, uint64_t line, uint64_t offset,
		   enum ol_severity sev, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (sev == OL_ERROR)
		s->n_errors++;
	else if (sev == OL_WARN)
		s->n_warnings++;
	return s->diag ? s->diag(s, line, offset, sev, msg) : 1;
}

json_t *ol_json_strn(const char *s, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *j;

	if (strbuf_add_utf8(&sb, s, n) < 0)
		return NULL;
	j = json_stringn(sb.buf, sb.len);
	strbuf_release(&sb);
	return j;
}
