/*
 * sink.c -- the pieces of the sink interface that are code: formatted
 * diagnostics and the note of an inferred year. Everything else is in
 * sink.h.
 */
#include "parsers/common/sink.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/strbuf.h"
#include "lib/timeutil.h"
#include "lib/vocab.h"

int64_t sink_diagf(struct sink *s, uint64_t line, uint64_t offset,
		   enum ol_severity sev, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (sev == OL_ERROR && !s->n_errors++) {
		memcpy(s->first_error, msg, sizeof(msg));
		s->first_error_line = line;
		s->first_error_offset = offset;
	} else if (sev == OL_WARN) {
		s->n_warnings++;
	}
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

int64_t sink_year_basis(struct sink *s, int64_t mtime_ns)
{
	char basis[96], when[40];

	format_iso8601(mtime_ns, when, sizeof(when));
	snprintf(basis, sizeof(basis), "inferred from the file's mtime (%.10s)", when);
	return sink_meta(s, vocab_meta_key(VM_TIME_YEAR_BASIS), basis);
}
