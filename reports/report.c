/*
 * report.c -- pick the report form and write it: the forms live in
 * html.c, markdown.c, json.c and text.c, their sections in the table of
 * sections.c.
 */
#include "reports/report.h"
#include "reports/section.h"

#include <errno.h>
#include <string.h>

int report_format_parse(const char *s, enum report_format *f)
{
	if (!strcmp(s, "html"))
		*f = REPORT_HTML;
	else if (!strcmp(s, "md") || !strcmp(s, "markdown"))
		*f = REPORT_MD;
	else if (!strcmp(s, "json"))
		*f = REPORT_JSON;
	else if (!strcmp(s, "text") || !strcmp(s, "txt"))
		*f = REPORT_TEXT;
	else
		return -1;
	return 0;
}

int report_write(sqlite3 *db, enum report_format f, FILE *out, struct strbuf *err)
{
	struct report_ctx c;
	int r;

	if (report_ctx_open(&c, db, f != REPORT_JSON, err) < 0) {
		report_ctx_close(&c);
		return -1;
	}
	errno = 0;
	switch (f) {
	case REPORT_JSON:
		r = report_json_write(&c, out);
		break;
	case REPORT_MD:
		r = report_md_write(&c, out);
		break;
	case REPORT_TEXT:
		r = report_text_write(&c, out);
		break;
	default:
		r = report_html_write(&c, out);
		break;
	}
	if (c.qerr.len)
		strbuf_addf(err, "report query failed: %s", c.qerr.buf);
	else if (r < 0)
		strbuf_addf(err, "cannot write the report: %s", errno ? strerror(errno)
								 : "out of memory");
	report_ctx_close(&c);
	return r;
}
