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
	"usage: oomlens report [-o FILE] [--format html|md|json|text] DB\n"
	"  Writes the report of an incident database (default: html to stdout).\n"
	"exit: 0 written, 1 the database could not be read, 2 usage\n";

static const struct cli_opt report_opts[] = {
	{ "--output", 'o', 1, OPT_OUTPUT }, { "--format", 0, 1, OPT_FORMAT },
	{ "--json", 0, 0, OPT_JSON }, { NULL, 0, 0, 0 }
};

int cmd_report(int argc, char **argv)
{
	struct cli_args a = CLI_ARGS_INIT(argc, argv, report_opts);
	enum report_format fmt = REPORT_HTML;
	const char *out = NULL;
	struct timeline tl;
	int o, r;

	while ((o = cli_next(&a)) != CLI_DONE) {
		switch (o) {
		case CLI_HELP:
			return help(report_usage);
		case OPT_OUTPUT:
			out = a.value;
			break;
		case OPT_FORMAT:
			if (report_format_parse(a.value, &fmt) == 0)
				break;
			error("--format: expected html, md, json or text, got '%s'", a.value);
			return usage(report_usage);
		case OPT_JSON:
			fmt = REPORT_JSON;
			break;
		default:
			return usage(report_usage);
		}
	}
	if (a.nargs != 1)
		return usage(report_usage);
	if (open_db(&tl, a.args[0]) < 0)
		return EXIT_ERROR;
	r = write_report(tl.db, fmt, out) < 0 ? EXIT_ERROR : EXIT_OK;
	timeline_close(&tl);
	return r;
}
