/*
 * cmd_classify.c -- `oomlens classify [--json] DB`: run only the rules
 * on an incident database that was already ingested (replacing its
 * findings and verdict) and print the verdict. For re-running new rules
 * on old incidents, and for timing the rules alone (bench/bench_rules.sh).
 */
#include "cli/cli.h"
#include "analyzer/rules/rules.h"
#include "analyzer/store/query.h"
#include "lib/strbuf.h"
#include "reports/report.h"

#include <string.h>

static const char classify_usage[] =
	"usage: oomlens classify [--json] DB\n"
	"  Runs the rules on an ingested incident database (findings and verdict are\n"
	"  replaced) and prints the verdict and findings; --json prints the JSON report.\n"
	"exit: 0 done, 1 database or rules failed, 2 usage\n";

static void print_text(sqlite3 *db)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT class, cause, confidence, summary, missing FROM verdict"
			       " ORDER BY id LIMIT 1", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			cli_printf(stdout, "verdict: %s", q_text(st, 0));
			if (sqlite3_column_type(st, 1) != SQLITE_NULL)
				cli_printf(stdout, " (%s)", q_text(st, 1));
			cli_printf(stdout, ", confidence %.2f\n  %s\n", sqlite3_column_double(st, 2),
				   q_text(st, 3));
			if (sqlite3_column_type(st, 4) != SQLITE_NULL)
				cli_printf(stdout, "  missing: %s\n", q_text(st, 4));
		}
		sqlite3_finalize(st);
	}
	if (sqlite3_prepare_v2(db, "SELECT score, class, cause, title, figures, advice FROM finding"
			       " ORDER BY score DESC, id", -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW)
			cli_printf(stdout, "finding %.2f %s/%s: %s\n  figures: %s\n  advice: %s\n",
				   sqlite3_column_double(st, 0), q_text(st, 1),
				   q_text(st, 2), q_text(st, 3),
				   q_text(st, 4), q_text(st, 5));
		sqlite3_finalize(st);
	}
}

static const struct cli_opt classify_opts[] = {
	{ "--json", 0, 0, OPT_JSON }, { NULL, 0, 0, 0 }
};

int cmd_classify(int argc, char **argv)
{
	struct cli_args a = CLI_ARGS_INIT(argc, argv, classify_opts);
	struct strbuf err = STRBUF_INIT;
	struct timeline tl;
	int o, json = 0, r = EXIT_OK;

	while ((o = cli_next(&a)) != CLI_DONE) {
		if (o == CLI_HELP)
			return cli_help(classify_usage);
		if (o != OPT_JSON)
			return cli_usage(classify_usage);
		json = 1;
	}
	if (a.nargs != 1)
		return cli_usage(classify_usage);
	if (open_db(&tl, a.args[0], TL_WRITE) < 0)
		return EXIT_ERROR;
	if (analyze_timeline(&tl, &err) < 0) {
		cli_error("%s", strbuf_failed(&err) ? "out of memory" : err.buf);
		r = EXIT_ERROR;
	} else if (json) {
		r = write_report(tl.db, REPORT_JSON, NULL) < 0 ? EXIT_ERROR : EXIT_OK;
	} else {
		print_text(tl.db);
	}
	close_db(&tl);
	strbuf_release(&err);
	return r;
}
