/*
 * report.c -- pick the report form and write it: the forms live in
 * html.c, markdown.c, json.c and text.c, their sections in the table of
 * sections.c.
 */
#include "reports/report.h"
#include "reports/section.h"
#include "analyzer/store/query.h"

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

/* Put back the temp_store the caller had (0 default, 1 file, 2 memory). */
static void temp_store_set(sqlite3 *db, int64_t v)
{
	sqlite3_exec(db, v == 2 ? "PRAGMA temp_store=MEMORY" : v == 1 ? "PRAGMA temp_store=FILE"
		     : "PRAGMA temp_store=DEFAULT", NULL, NULL, NULL);
}

int report_write(sqlite3 *db, enum report_format f, FILE *out, struct strbuf *err)
{
	struct report_ctx c;
	int r;
	int64_t temp = q_int_err(db, "PRAGMA temp_store", 0, NULL);

	/* SQLite's sorts (events by time, tasks by RSS, the series' sums)
	 * spill to a temporary file, so that their memory stays that of the
	 * cache whatever the rows: in memory they would pass the run's budget */
	sqlite3_exec(db, "PRAGMA temp_store=FILE", NULL, NULL, NULL);
	q_rows_bound(1);        /* the models draw on the budget (partial.c) */
	if (report_ctx_open(&c, db, f != REPORT_JSON, err) < 0) {
		report_ctx_close(&c);
		q_rows_bound(0);
		temp_store_set(db, temp);
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
	if (r == 0)
		report_cut_say(err, &c);
	report_ctx_close(&c);
	q_rows_bound(0);
	temp_store_set(db, temp);
	return r;
}
