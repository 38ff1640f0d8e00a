/*
 * cmd_diff.c -- `oomlens diff A B`: two PyTorch memory snapshots compared
 * by what held their memory (grown, shrunk, new, gone) and by pool. A and
 * B are each an incident database (its latest snapshot) or a snapshot file
 * (pickle or flat form, maybe .gz), read into a database in memory and
 * never written anywhere.
 */
#include "cli/cli.h"
#include "analyzer/ingest/ingest.h"
#include "analyzer/store/timeline.h"
#include "lib/fileset.h"
#include "lib/strbuf.h"
#include "reports/report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char diff_usage[] =
	"usage: oomlens diff [-o FILE] [--format text|md|html|json] A B\n"
	"  Compares two PyTorch memory snapshots by holder (allocation stack):\n"
	"  grown, shrunk, new, gone, and by pool. A and B are snapshot files\n"
	"  (pickle or flat form, .gz too) or incident databases (their latest\n"
	"  snapshot). Default: text on standard output; html with -o FILE.\n"
	"  HTML is written only to a file, never to a terminal.\n"
	MEMORY_OPTION_HELP
	"exit: 0 written, 1 an input could not be read or has no snapshot, 2 usage\n";

static const struct cli_opt diff_opts[] = {
	{ "--output", 'o', 1, OPT_OUTPUT }, { "--format", 0, 1, OPT_FORMAT },
	{ "--json", 0, 0, OPT_JSON }, CLI_MEMORY_OPT, { NULL, 0, 0, 0 }
};

/* 1 when path is an SQLite database (its 16-byte header), 0 when not, -1
 * when it cannot be read (said). */
static int is_database(const char *path)
{
	char head[16];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		cli_error("%s: %s", path, strerror(errno));
		return -1;
	}
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	return n == sizeof(head) && !memcmp(head, "SQLite format 3", 16);
}

/* Open input path into tl: a database as it is, a snapshot file read
 * into a fresh database in memory. 0, or -1 after saying why. */
static int open_input(struct timeline *tl, const char *path)
{
	struct ingest_cfg cfg = { .quiet = 1 };
	struct ingest_stats st;
	struct strbuf err = STRBUF_INIT;
	char *p = (char *)path;
	int db = is_database(path), r;

	if (db < 0)
		return -1;
	if (db)
		return open_db(tl, path, TL_READ);
	if (timeline_open(tl, ":memory:", TL_CREATE, &err) < 0) {
		cli_error("%s", err.len ? err.buf : "out of memory");
		strbuf_release(&err);
		return -1;
	}
	watch_store_errors(tl);
	r = ingest_paths(tl, &p, 1, &cfg, &st);
	if (r != 0 || st.ok + st.partial == 0) {
		cli_error("%s: %s", path, r < 0 ? "the database failed"
					     : "nothing usable (no memory snapshot could be read)");
		timeline_close(tl);
		return -1;
	}
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct cli_args a = CLI_ARGS_INIT(argc, argv, diff_opts);
	enum report_format fmt = REPORT_TEXT;
	int fmt_given = 0;
	struct timeline ta, tb;
	struct strbuf err = STRBUF_INIT;
	const char *out = NULL;
	struct outfile of;
	int o, r;

	while ((o = cli_next(&a)) != CLI_DONE) {
		switch (o) {
		case CLI_HELP:
			return cli_help(diff_usage);
		case OPT_OUTPUT:
			out = a.value;
			break;
		case OPT_FORMAT:
		case OPT_JSON:
			if (cli_format_option(o, a.value, &fmt) < 0)
				return cli_usage(diff_usage);
			fmt_given = 1;
			break;
		default:
			return cli_usage(diff_usage);
		}
	}
	if (a.nargs != 2)
		return cli_usage(diff_usage);
	if (!fmt_given && out && strcmp(out, "-"))
		fmt = REPORT_HTML;   /* a file: the page to attach */
	if (fmt == REPORT_HTML && (!out || !strcmp(out, "-")) && isatty(STDOUT_FILENO)) {
		cli_error("HTML is a page to open, not to read on a terminal: give -o FILE.html"
			  " (or --format text)");
		return EXIT_USAGE;
	}
	{
		/* the diff is never written over or beside its evidence */
		struct fileset inputs = FILESET_INIT;
		r = note_inputs(&inputs, a.args, 2) < 0 || check_output(out, &inputs, "diff") < 0;
		fileset_release(&inputs);
		if (r)
			return EXIT_ERROR;
	}
	if (open_input(&ta, a.args[0]) < 0)
		return EXIT_ERROR;
	if (open_input(&tb, a.args[1]) < 0) {
		timeline_close(&ta);
		return EXIT_ERROR;
	}
	if (outfile_open(&of, out) < 0) {
		r = -1;
	} else {
		r = report_diff_write(ta.db, a.args[0], tb.db, a.args[1], fmt, of.f, &err);
		if (r < 0) {
			cli_error("%s", err.len ? err.buf : "the diff could not be written");
			outfile_abort(&of);
		} else if (outfile_commit(&of) < 0) {
			r = -1;
		}
	}
	timeline_close(&ta);
	timeline_close(&tb);
	strbuf_release(&err);
	return r < 0 ? EXIT_ERROR : EXIT_OK;
}
