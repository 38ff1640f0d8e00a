/*
 * cmd_analyze.c -- `oomlens analyze PATH...`: ingest, classify, report.
 * What an SRE runs first after an incident.
 */
#include "cli/cli.h"
#include "analyzer/ingest/ingest.h"
#include "analyzer/rules/rules.h"
#include "lib/fileset.h"
#include "lib/strbuf.h"
#include "reports/report.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char analyze_usage[] =
	"usage: oomlens analyze [options] PATH...\n"
	"  Ingests the artifacts (files, directories, archives, compressed files),\n"
	"  classifies the incident and writes a report. The database is kept for\n"
	"  later questions.\n"
	"  -o, --output FILE  report file ('-' = stdout; default: stdout for md/json/text,\n"
	"                     <first PATH's name>.html for html)\n"
	"  --db DB            incident database (default: <first PATH's name>.db);\n"
	"                     never inside an input folder: when the current directory\n"
	"                     is one, the defaults go to ~/.local/state/oomlens/\n"
	"  --format FMT       html (default), md, json, or text (plain, for trackers)\n"
	"  --json             same as --format json\n"
	"  --kind KIND        skip detection, read every file as KIND (see ingest --kind)\n"
	"  -q, --quiet        no messages about individual artifacts\n"
	INGEST_OPTIONS_HELP
	"exit: 0 done, 1 nothing usable in the artifacts (or an output refused or\n"
	"  not written), 2 usage\n";

static const struct cli_opt analyze_opts[] = {
	{ "--output", 'o', 1, OPT_OUTPUT }, { "--db", 0, 1, OPT_DB },
	{ "--format", 0, 1, OPT_FORMAT }, { "--json", 0, 0, OPT_JSON },
	{ "--kind", 0, 1, OPT_KIND }, { "--quiet", 'q', 0, OPT_QUIET }, CLI_INGEST_OPTS,
	{ NULL, 0, 0, 0 }
};

/* Append path's last name to out: "incident/" -> "incident",
 * "/x/kern.log.gz" -> "kern.log.gz", "." or "/" -> "incident". */
static void base_name(const char *path, struct strbuf *out)
{
	const char *end = path + strlen(path), *start;

	while (end > path + 1 && end[-1] == '/')
		end--;
	start = end;
	while (start > path && start[-1] != '/')
		start--;
	if (end == start || (end - start == 1 && (*start == '.' || *start == '/')) ||
	    (end - start == 2 && start[0] == '.' && start[1] == '.'))
		strbuf_addstr(out, "incident");
	else
		strbuf_add(out, start, (size_t)(end - start));
}

/* The verdict in one line on stderr, and where the outputs went. */
static void say_verdict(sqlite3 *db, const char *out, const char *dbpath)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT class, cause, confidence FROM verdict ORDER BY id"
			       " LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *cause = (const char *)sqlite3_column_text(st, 1);
		cli_printf(stderr, "oomlens: verdict: %s%s%s%s, confidence %.0f %%; report %s%s;"
			   " database %s\n", (const char *)sqlite3_column_text(st, 0),
			   cause ? " (" : "", cause ? cause : "", cause ? ")" : "",
			   100.0 * sqlite3_column_double(st, 2),
			   out && strcmp(out, "-") ? "in " : "on ",
			   out && strcmp(out, "-") ? out : "standard output", dbpath);
	}
	sqlite3_finalize(st);
}

/* Ingest paths into db, classify, write the report, and only then put
 * the database in place: an exit code. A failure anywhere leaves neither
 * the report nor the database behind (a report to stdout or a stream,
 * which cannot be taken back, comes after the database instead). inputs: what the command line
 * named, for the checks of the outputs. */
static int analyze(const char *db, const char *out, enum report_format fmt, char **paths,
		   int npaths, const struct ingest_opts *opts, struct ingest_cfg *cfg)
{
	struct fileset seen = FILESET_INIT;
	struct strbuf err = STRBUF_INIT;
	struct timeline *tl = calloc(1, sizeof(*tl));
	struct outfile report;
	int r;

	if (!tl) {
		cli_error("out of memory");
		return EXIT_ERROR;
	}
	if (outfile_open(&report, out) < 0) {   /* a report that cannot be written: say so now */
		free(tl);
		return EXIT_ERROR;
	}
	cfg->seen = &seen;
	r = run_ingest(db, 0, 0, paths, npaths, opts, cfg, tl);
	if (r == EXIT_OK && analyze_timeline(tl, &err) < 0) {
		cli_error("%s", strbuf_failed(&err) ? "out of memory" : err.buf);
		r = EXIT_ERROR;
	}
	/* the walk may have met folders the command line did not name */
	if (r == EXIT_OK && (check_output(db, &seen, "database") < 0 ||
			     check_output(out, &seen, "report") < 0))
		r = EXIT_ERROR;
	/* a report to stdout or a stream has no temporary to hold back: the
	 * database goes in place first, so that a reader that stops early
	 * (`| head`, a pager quit: SIGPIPE) leaves the whole database */
	if (r == EXIT_OK && !report.tmp && commit_db(tl) < 0) {
		outfile_abort(&report);
		r = EXIT_ERROR;
	}
	/* else the report is written and synced aside, the database put in
	 * place, then the report: a failure before leaves the old report
	 * untouched */
	if (r == EXIT_OK && report_render(tl->db, fmt, &report) < 0)
		r = EXIT_ERROR;
	else if (r != EXIT_OK)
		outfile_abort(&report);
	if (r == EXIT_OK && report.tmp && commit_db(tl) < 0) {
		outfile_abort(&report);   /* no report of a database that is not there */
		r = EXIT_ERROR;
	}
	if (r == EXIT_OK && outfile_place(&report) < 0) {
		unlink(db);   /* nor a database without its report */
		r = EXIT_ERROR;
	}
	if (r == EXIT_OK)
		say_verdict(tl->db, out, db);
	close_db(tl);
	free(tl);
	fileset_release(&seen);
	strbuf_release(&err);
	return r;
}

/* The default outputs: <dir>/<first PATH's name><-N><ext> into *path
 * (dir: "" for the current directory; n 1: no -N). */
static void default_path(struct strbuf *path, const struct strbuf *dir, const char *first,
			 unsigned n, const char *ext)
{
	strbuf_reset(path);
	if (dir->len)
		strbuf_addf(path, "%s/", dir->buf);
	base_name(first, path);
	if (n > 1)
		strbuf_addf(path, "-%u", n);
	strbuf_addstr(path, ext);
}

/* The first N (1, 2, ...) whose default database and report (each only
 * where it is a default) are both free: an earlier run's outputs are never
 * replaced by a default, only by a path the user gave. 0 when 999 are
 * taken. */
static unsigned free_default(const struct strbuf *dir, const char *first, int want_db,
			     int want_html, struct strbuf *tmp)
{
	unsigned n;

	for (n = 1; n < 1000; n++) {
		int taken = 0;
		if (want_db) {
			default_path(tmp, dir, first, n, ".db");
			taken |= access(tmp->buf, F_OK) == 0;
		}
		if (want_html) {
			default_path(tmp, dir, first, n, ".html");
			taken |= access(tmp->buf, F_OK) == 0;
		}
		if (!taken)
			return n;
	}
	return 0;
}

/* Choose the outputs not given and refuse any that would harm the
 * inputs. 0, or -1 after saying why. */
static int choose_outputs(char **paths, int n, enum report_format fmt, const char **db,
			  const char **out, struct strbuf *dbpath, struct strbuf *outpath)
{
	struct fileset inputs = FILESET_INIT;
	struct strbuf dir = STRBUF_INIT;
	int r = note_inputs(&inputs, paths, n);

	if (r == 0 && (!*db || (!*out && fmt == REPORT_HTML)))
		r = default_output_dir(&inputs, &dir) < 0 ? -1 : 0;
	if (r == 0 && (!*db || (!*out && fmt == REPORT_HTML))) {
		int want_db = !*db, want_html = !*out && fmt == REPORT_HTML;
		unsigned n = free_default(&dir, paths[0], want_db, want_html, dbpath);

		if (!n)
			r = cli_error("%s: 999 earlier runs' outputs are there: give --db%s",
				      dir.len ? dir.buf : "the current directory",
				      want_html ? " and -o" : "");
		if (r == 0 && want_db) {
			default_path(dbpath, &dir, paths[0], n, ".db");
			*db = dbpath->buf;
		}
		if (r == 0 && want_html) {
			default_path(outpath, &dir, paths[0], n, ".html");
			*out = outpath->buf;
		}
		if (r == 0 && n > 1) {
			struct strbuf first = STRBUF_INIT;
			default_path(&first, &dir, paths[0], 1, want_db ? ".db" : ".html");
			cli_error("%s is an earlier run's: this one writes %s%s%s (give --db%s to"
				  " choose)", first.buf, want_db ? *db : "", want_db && want_html ?
				  " and " : "", want_html ? *out : "", want_html ? " and -o" : "");
			strbuf_release(&first);
		}
	}
	if (r == 0 && (strbuf_failed(dbpath) || strbuf_failed(outpath)))
		r = cli_error("out of memory");
	if (r == 0 && *out && !strcmp(*out, *db))
		r = cli_error("%s: the report and the database cannot be one file", *db);
	if (r == 0 && (check_output(*db, &inputs, "database") < 0 ||
		       check_output(*out, &inputs, "report") < 0))
		r = -1;
	fileset_release(&inputs);
	strbuf_release(&dir);
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
			return cli_help(analyze_usage);
		case CLI_BAD:
			return cli_usage(analyze_usage);
		case OPT_OUTPUT:
			out = a.value;
			break;
		case OPT_DB:
			db = a.value;
			break;
		case OPT_FORMAT:
		case OPT_JSON:
			if (cli_format_option(o, a.value, &fmt) < 0)
				return EXIT_USAGE;
			break;
		case OPT_KIND:
			cfg.force_kind = a.value;
			break;
		case OPT_QUIET:
			cfg.quiet = 1;
			break;
		default:
			if (cli_ingest_option(o, a.value, &opts, &cfg) < 0)
				return EXIT_USAGE;
		}
	}
	if (!a.nargs)
		return cli_usage(analyze_usage);
	if (cli_check_format(cfg.force_kind) < 0)
		return EXIT_USAGE;
	r = choose_outputs(a.args, a.nargs, fmt, &db, &out, &dbpath, &outpath) < 0 ? EXIT_ERROR
	    : analyze(db, out, fmt, a.args, a.nargs, &opts, &cfg);
	strbuf_release(&dbpath);
	strbuf_release(&outpath);
	return r;
}
