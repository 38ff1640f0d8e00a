/*
 * cmd_report.c -- `oomlens report DB`: regenerate a report from an
 * incident database alone.
 */
#include "analyzer/cli/cli.h"
#include "analyzer/store/timeline.h"
#include "lib/strbuf.h"
#include "reports/report.h"

#include <string.h>

static const char report_usage[] =
	"usage: oomlens report [-o FILE] [--format html|md|json] DB\n"
	"  Writes the report of an incident database (default: html to stdout).\n"
	"exit: 0 written, 1 the database could not be read, 2 usage\n";

int cmd_report(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	enum report_format fmt = REPORT_HTML;
	const char *db = NULL, *out = NULL;
	struct timeline tl;
	int i, r;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(report_usage, stdout);
			return EXIT_OK;
		} else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(a, "--format") && i + 1 < argc) {
			if (report_format_parse(argv[++i], &fmt) < 0)
				return usage(report_usage);
		} else if (!strcmp(a, "--json")) {
			fmt = REPORT_JSON;
		} else if (a[0] == '-' && a[1]) {
			error("unknown option '%s'", a);
			return usage(report_usage);
		} else if (!db) {
			db = a;
		} else {
			return usage(report_usage);
		}
	}
	if (!db)
		return usage(report_usage);
	if (timeline_open(&tl, db, 0, &err) < 0) {
		error("%s", err.buf);
		strbuf_release(&err);
		return EXIT_ERROR;
	}
	watch_store_errors(&tl);
	r = write_report(tl.db, fmt, out) < 0 ? EXIT_ERROR : EXIT_OK;
	timeline_close(&tl);
	return r;
}
