/*
 * cmd_analyze.c -- `oomlens analyze PATH...`: ingest, classify, report.
 * What an SRE runs first after an incident.
 */
#include "analyzer/cli/cli.h"
#include "analyzer/ingest/ingest.h"
#include "analyzer/rules/rules.h"
#include "lib/strbuf.h"
#include "reports/report.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>

static const char analyze_usage[] =
	"usage: oomlens analyze [options] PATH...\n"
	"  Ingests the artifacts (files, directories, .gz), classifies the incident\n"
	"  and writes a report. The database is kept for later questions.\n"
	"  -o, --output FILE  report file ('-' = stdout; default: stdout for md/json/text,\n"
	"                     <first PATH's name>.html for html)\n"
	"  --db DB            incident database (default: <first PATH's name>.db)\n"
	"  --format FMT       html (default), md, json, or text (plain, for trackers)\n"
	"  --json             same as --format json\n"
	"  --kind KIND        skip detection, read every file as KIND (see ingest --kind)\n"
	"  -q, --quiet        no messages about individual artifacts\n"
	INGEST_OPTIONS_HELP
	"exit: 0 done, 1 nothing usable in the artifacts, 2 usage\n";

static const struct cli_opt analyze_opts[] = {
	{ "--output", 'o', 1, OPT_OUTPUT }, { "--db", 0, 1, OPT_DB },
	{ "--format", 0, 1, OPT_FORMAT }, { "--json", 0, 0, OPT_JSON },
	{ "--kind", 0, 1, OPT_KIND }, { "--quiet", 'q', 0, OPT_QUIET }, CLI_INGEST_OPTS,
	{ NULL, 0, 0, 0 }
};

/* "incident/" -> "incident", "/x/kern.log.gz" -> "kern.log.gz" */
static void base_name(const char *path, struct strbuf *out)
{
	struct strbuf tmp = STRBUF_INIT;

	strbuf_addstr(&tmp, path);
	while (tmp.len > 1 && tmp.buf[tmp.len - 1] == '/')
		strbuf_setlen(&tmp, tmp.len - 1);
	strbuf_addstr(out, basename(tmp.buf));
	strbuf_release(&tmp);
	if (!strcmp(out->buf, ".") || !strcmp(out->buf, "/") || !out->len) {
		strbuf_reset(out);
		strbuf_addstr(out, "incident");
	}
}

/* Ingest paths into db, classify, write the report: an exit code. */
static int analyze(const char *db, const char *out, enum report_format fmt, char **paths,
		   int npaths, const struct ingest_opts *opts, struct ingest_cfg *cfg)
{
	struct strbuf err = STRBUF_INIT;
	struct timeline *tl = calloc(1, sizeof(*tl));
	int r;

	if (!tl) {
		error("out of memory");
		return EXIT_ERROR;
	}
	r = run_ingest(db, 0, paths, npaths, opts, cfg, tl);
	if (r == EXIT_OK && analyze_timeline(tl, &err) < 0) {
		error("%s", strbuf_failed(&err) ? "out of memory" : err.buf);
		r = EXIT_ERROR;
	}
	if (r == EXIT_OK) {
		if (write_report(tl->db, fmt, out) < 0)
			r = EXIT_ERROR;
		else if (out && strcmp(out, "-") && !cfg->quiet)
			fprintf(stderr, "oomlens: report written to %s (database %s)\n", out, db);
	}
	timeline_close(tl);
	free(tl);
	strbuf_release(&err);
	return r;
}

int cmd_analyze(int argc, char **argv)
{
	struct ingest_opts opts = { OL_NULL, 0, 0, 0 };
	struct ingest_cfg cfg = { .progress = -1 };
	struct strbuf dbpath = STRBUF_INIT, outpath = STRBUF_INIT;
	enum report_format fmt = REPORT_HTML;
	const char *db = NULL, *out = NULL;
	struct cli_args a = CLI_ARGS_INIT(argc, argv, analyze_opts);
	int o, r;

	while ((o = cli_next(&a)) != CLI_DONE) {
		switch (o) {
		case CLI_HELP:
			return help(analyze_usage);
		case CLI_BAD:
			return usage(analyze_usage);
		case OPT_OUTPUT:
			out = a.value;
			break;
		case OPT_DB:
			db = a.value;
			break;
		case OPT_FORMAT:
			if (report_format_parse(a.value, &fmt) < 0) {
				error("--format: expected html, md, json or text, got '%s'", a.value);
				return EXIT_USAGE;
			}
			break;
		case OPT_JSON:
			fmt = REPORT_JSON;
			break;
		case OPT_KIND:
			cfg.force_kind = a.value;
			break;
		case OPT_QUIET:
			cfg.quiet = 1;
			break;
		default:
			if (cli_ingest_option(o, a.value, &opts) < 0)
				return EXIT_USAGE;
		}
	}
	if (!a.nargs)
		return usage(analyze_usage);
	if (cli_check_format(cfg.force_kind) < 0)
		return EXIT_USAGE;
	if (!db) {
		base_name(a.args[0], &dbpath);
		strbuf_addstr(&dbpath, ".db");
		db = dbpath.buf;
	}
	if (!out && fmt == REPORT_HTML) {
		base_name(a.args[0], &outpath);
		strbuf_addstr(&outpath, ".html");
		out = outpath.buf;
	}
	r = analyze(db, out, fmt, a.args, a.nargs, &opts, &cfg);
	strbuf_release(&dbpath);
	strbuf_release(&outpath);
	return r;
}
