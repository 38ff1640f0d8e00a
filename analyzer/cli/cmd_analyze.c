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
	"  -o, --output FILE  report file ('-' = stdout; default: stdout for json/md,\n"
	"                     <first PATH's name>.html for html)\n"
	"  --db DB            incident database (default: <first PATH's name>.db)\n"
	"  --format FMT       html (default), md or json\n"
	"  --json             same as --format json\n"
	"  -q, --quiet        no messages about individual artifacts\n"
	INGEST_OPTIONS_HELP
	"exit: 0 done, 1 nothing usable in the artifacts, 2 usage\n";

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


int cmd_analyze(int argc, char **argv)
{
	struct ingest_opts opts = { OL_NULL, 0, 0, 0 };
	struct ingest_cfg cfg = { .progress = -1 };
	struct strbuf dbpath = STRBUF_INIT, outpath = STRBUF_INIT, err = STRBUF_INIT;
	enum report_format fmt = REPORT_HTML;
	const char *db = NULL, *out = NULL;
	struct timeline *tl = NULL;
	char **paths;
	int i, np = 0, r;

	paths = calloc((size_t)argc + 1, sizeof(*paths));
	if (!paths)
		return EXIT_ERROR;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(analyze_usage, stdout);
			free(paths);
			return EXIT_OK;
		} else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(a, "--db") && i + 1 < argc) {
			db = argv[++i];
		} else if (!strcmp(a, "--format") && i + 1 < argc) {
			if (report_format_parse(argv[++i], &fmt) < 0) {
				error("--format: expected html, md or json, got '%s'", argv[i]);
				free(paths);
				return EXIT_USAGE;
			}
		} else if (!strcmp(a, "--json")) {
			fmt = REPORT_JSON;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			cfg.quiet = 1;
		} else if ((r = parse_ingest_option(argc, argv, &i, &opts)) != 0) {
			if (r < 0) {
				free(paths);
				return EXIT_USAGE;
			}
		} else if (a[0] == '-' && a[1]) {
			error("unknown option '%s'", a);
			free(paths);
			return usage(analyze_usage);
		} else {
			paths[np++] = argv[i];
		}
	}
	if (!np) {
		free(paths);
		return usage(analyze_usage);
	}
	if (!db) {
		base_name(paths[0], &dbpath);
		strbuf_addstr(&dbpath, ".db");
		db = dbpath.buf;
	}
	if (!out && fmt == REPORT_HTML) {
		base_name(paths[0], &outpath);
		strbuf_addstr(&outpath, ".html");
		out = outpath.buf;
	}
	tl = calloc(1, sizeof(*tl));
	if (!tl) {
		r = EXIT_ERROR;
		goto done;
	}
	r = run_ingest(db, 0, paths, np, &opts, &cfg, tl);
	if (r == EXIT_OK && analyze_timeline(tl, &err) < 0) {
		error("%s", strbuf_failed(&err) ? "out of memory" : err.buf);
		r = EXIT_ERROR;
	}
	if (r == EXIT_OK) {
		if (write_report(tl->db, fmt, out) < 0)
			r = EXIT_ERROR;
		else if (out && strcmp(out, "-") && !cfg.quiet)
			fprintf(stderr, "oomlens: report written to %s (database %s)\n", out, db);
	}
done:
	if (tl)
		timeline_close(tl);
	free(tl);
	free(paths);
	strbuf_release(&dbpath);
	strbuf_release(&outpath);
	strbuf_release(&err);
	return r;
}
