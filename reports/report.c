/*
 * report.c -- pick the report form; the forms live in json.c, html.c and
 * markdown.c.
 */
#include "reports/report.h"

#include <string.h>

int report_format_parse(const char *s, enum report_format *f)
{
	if (!strcmp(s, "html"))
		*f = REPORT_HTML;
	else if (!strcmp(s, "md") || !strcmp(s, "markdown"))
		*f = REPORT_MD;
	else if (!strcmp(s, "json"))
		*f = REPORT_JSON;
	else
		return -1;
	return 0;
}

int report_write(sqlite3 *db, enum report_format f, FILE *out)
{
	switch (f) {
	case REPORT_JSON:
		return report_json_write(db, out);
	case REPORT_MD:
		return report_markdown(db, out);
	default:
		return report_html(db, out);
	}
}
