/*
 * cmd_report.c -- `oomlens report DB`: regenerate a report from an
 * incident database alone.
 */
#include "cli/cli.h"
#include "analyzer/rules/rules.h"
#include "analyzer/store/timeline.h"
#include "lib/fileset.h"
#include "lib/strbuf.h"
#include "reports/report.h"

#include <string.h>

static const char report_usage[] =
	"usage: oomlens report [-o FILE] [--format html|md|json|text] DB\n"
	"  Writes the report of an incident database (default: html to stdout).\n"
	"  A database that holds no verdict yet (oomlens ingest) is classified first.\n"
	MEMORY_OPTION_HELP
	"exit: 0 written, 1 the database could not be read (or classified, or the\n"
	"  report written), 2 usage\n";

static const struct cli_opt report_opts[] = {
	{ "--output", 'o', 1, OPT_OUTPUT }, { "--format", 0, 1, OPT_FORMAT },
	{ "--json", 0, 0, OPT_JSON }, CLI_MEMORY_OPT, { NULL, 0, 0, 0 }
};

/* Whether the database holds a verdict: 1, 0, or -1 when it cannot say. */
static int has_verdict(sqlite3 *db)
{
	sqlite3_stmt *st;
	int r = -1;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM verdict", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			r = sqlite3_column_int64(st, 0) > 0;
		sqlite3_finalize(st);
	}
	return r;
}

/* A database ingested but never classified: classify it now (the verdict
 * is stored, as `oomlens classify` would). tl is open for reading on
 * path, and stays open after. One that cannot be written (read-only, or
 * another oomlens writing it) is reported as it is, without a verdict.
 * 0, or -1 after saying why. */
static int classify_first(struct timeline *tl, const char *path)
{
	struct strbuf err = STRBUF_INIT;
	int r = 0;

	close_db(tl);
	if (open_db(tl, path, TL_WRITE) < 0) {
		cli_error("%s: not classified: the report has no verdict", path);
		return open_db(tl, path, TL_READ);
	}
	if (analyze_timeline(tl, &err) < 0)
		r = cli_error("%s: classifying: %s", path, strbuf_failed(&err) ? "out of memory"
			  : err.buf);
	strbuf_release(&err);
	return r;
}

int cmd_report(int argc, char **argv)
{
	struct cli_args a = CLI_ARGS_INIT(argc, argv, report_opts);
	enum report_format fmt = REPORT_HTML;
	struct fileset inputs = FILESET_INIT;
	const char *out = NULL;
	struct timeline tl;
	int o, r;

	while ((o = cli_next(&a)) != CLI_DONE) {
		switch (o) {
		case CLI_HELP:
			return cli_help(report_usage);
		case OPT_OUTPUT:
			out = a.value;
			break;
		case OPT_FORMAT:
		case OPT_JSON:
			if (cli_format_option(o, a.value, &fmt) < 0)
				return cli_usage(report_usage);
			break;
		default:
			return cli_usage(report_usage);
		}
	}
	if (a.nargs != 1)
		return cli_usage(report_usage);
	r = note_inputs(&inputs, a.args, 1) < 0 || check_output(out, &inputs, "report") < 0;
	fileset_release(&inputs);
	if (r || open_db(&tl, a.args[0], TL_READ) < 0)
		return EXIT_ERROR;
	if (has_verdict(tl.db) == 0 && classify_first(&tl, a.args[0]) < 0) {
		close_db(&tl);
		return EXIT_ERROR;
	}
	r = write_report(tl.db, fmt, out) < 0 ? EXIT_ERROR : EXIT_OK;
	close_db(&tl);
	return r;
}
