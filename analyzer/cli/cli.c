/*
 * cli.c -- what the commands share: messages on stderr and help on
 * stdout (this is the only layer that prints), the option walk over each
 * command's table and the options of every command that ingests, opening
 * a database, the ingest run with its summary, and writing a report to a
 * file or stdout.
 */
#include "analyzer/cli/cli.h"
#include "analyzer/ingest/ingest.h"
#include "analyzer/store/timeline.h"
#include "lib/strbuf.h"
#include "lib/timeutil.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int error(const char *fmt, ...)
{
	va_list ap;

	fputs("oomlens: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

int usage(const char *text)
{
	fputs(text, stderr);
	return EXIT_USAGE;
}

static void store_error(void *arg, const char *msg)
{
	(void)arg;
	error("sqlite: %s", msg);
}

void watch_store_errors(struct timeline *tl)
{
	tl->on_error = store_error;
	tl->on_error_arg = NULL;
}

int help(const char *text)
{
	fputs(text, stdout);
	return EXIT_OK;
}

/* The row of a's table for argument arg ("--db", "--db=X", "-o"), with
 * the length of its name in *len; NULL when none matches. */
static const struct cli_opt *find_opt(const struct cli_args *a, const char *arg, size_t *len)
{
	const struct cli_opt *o;

	for (o = a->opts; o->name; o++) {
		size_t n = strlen(o->name);
		if (!strncmp(arg, o->name, n) && (arg[n] == 0 || (arg[n] == '=' && o->takes_value))) {
			*len = n;
			return o;
		}
		if (o->alias && arg[0] == '-' && arg[1] == o->alias && arg[2] == 0) {
			*len = 2;
			return o;
		}
	}
	return NULL;
}

int cli_next(struct cli_args *a)
{
	const struct cli_opt *o;
	const char *arg;
	size_t len;

	for (;;) {
		if (a->i >= a->argc)
			return CLI_DONE;
		arg = a->argv[a->i++];
		if (!strcmp(arg, "--") && !a->only_args)
			a->only_args = 1;
		else if (a->only_args || arg[0] != '-' || arg[1] == 0)
			a->args[a->nargs++] = (char *)arg;  /* nargs < i: nothing unread is lost */
		else
			break;
	}
	if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
		return CLI_HELP;
	o = find_opt(a, arg, &len);
	if (!o) {
		error("unknown option '%s'", arg);
		return CLI_BAD;
	}
	a->value = NULL;
	if (!o->takes_value)
		return (int)o->id;
	if (arg[len] == '=') {
		a->value = arg + len + 1;
	} else if (a->i < a->argc) {
		a->value = a->argv[a->i++];
	} else {
		error("%s needs a value", o->name);
		return CLI_BAD;
	}
	return (int)o->id;
}

int cli_ingest_option(enum cli_opt_id id, const char *v, struct ingest_opts *o)
{
	int off;

	if (id == OPT_BOOT_TIME) {
		int64_t ns;
		if (parse_iso8601(v, strlen(v), &ns, &off) < 0)
			return error("--boot-time: expected an ISO 8601 time, got '%s'", v);
		o->boot_time_ns = ns;
	} else if (id == OPT_TZ) {
		if (parse_tz_offset(v, strlen(v), &off) < 0)
			return error("--tz: expected +HH:MM or -HH:MM, got '%s'", v);
		o->tz_known = 1;
		o->tz_offset_s = off;
	} else if (id == OPT_YEAR) {
		char *end;
		long y = strtol(v, &end, 10);
		if (end == v || *end || y < 1970 || y > 9999)
			return error("--year: expected a year, got '%s'", v);
		o->year = (int)y;
	} else {
		return error("internal: option %d is not an ingest option", (int)id);
	}
	return 0;
}

int open_db(struct timeline *tl, const char *path)
{
	struct strbuf err = STRBUF_INIT;

	if (timeline_open(tl, path, 0, &err) < 0) {
		error("%s", err.len ? err.buf : "out of memory");
		strbuf_release(&err);
		return -1;
	}
	watch_store_errors(tl);
	return 0;
}

/* Say which artifacts gave wall-clock times without a zone: they were read
 * as UTC, which misplaces them against the UTC sources unless the host ran
 * on UTC. Nothing is guessed; the user can give --tz. */
static void warn_local_clock(struct timeline *tl)
{
	sqlite3_stmt *st;
	int n = 0;

	if (sqlite3_prepare_v2(tl->db, "SELECT path FROM artifact WHERE id IN"
			       " (SELECT artifact_id FROM meta WHERE key = 'time.clock' AND"
			       " value = 'local' UNION SELECT artifact_id FROM event WHERE"
			       " clock = 'local') ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (n++ < 5)
			fprintf(stderr, "%s%s", n == 1 ? "oomlens: local times without a zone,"
				" read as UTC (give --tz if the host was not on UTC): " : ", ",
				(const char *)sqlite3_column_text(st, 0));
	}
	if (n > 5)
		fprintf(stderr, " and %d more", n - 5);
	if (n)
		fputc('\n', stderr);
	sqlite3_finalize(st);
}

/* Ingest's messages: one "oomlens: ..." line each. */
static void ingest_message(void *arg, const char *line)
{
	(void)arg;
	error("%s", line);
}

/* Ingest's progress: one line rewritten in place, ended when done. */
static void ingest_progress(void *arg, const struct ingest_progress *p)
{
	(void)arg;
	if (p->done) {
		fputc('\n', stderr);
		return;
	}
	if (p->compressed)
		fprintf(stderr, "\r%s: %llu MB read", p->path,
			(unsigned long long)(p->offset >> 20));
	else
		fprintf(stderr, "\r%s: %llu of %llu MB (%.0f%%)", p->path,
			(unsigned long long)(p->offset >> 20),
			(unsigned long long)(p->size >> 20),
			p->size ? 100.0 * (double)p->offset / (double)p->size : 0.0);
	if (p->seconds > 0.5)
		fprintf(stderr, ", %.0f MB/s   ", (double)p->offset / 1e6 / p->seconds);
}

/* Shared by ingest and analyze: open db, ingest paths, print a summary. */
int run_ingest(const char *db, int append, char **paths, int npaths,
	       const struct ingest_opts *opts, struct ingest_cfg *cfg,
	       struct timeline *tl)
{
	struct strbuf err = STRBUF_INIT;
	struct ingest_stats st;
	int r;

	if (timeline_open(tl, db, !append, &err) < 0) {
		error("%s", err.buf);
		strbuf_release(&err);
		return EXIT_ERROR;
	}
	watch_store_errors(tl);
	tl->opts = *opts;
	if (cfg->progress < 0)
		cfg->progress = isatty(2);
	cfg->message = ingest_message;
	cfg->on_progress = ingest_progress;
	r = ingest_paths(tl, paths, npaths, cfg, &st);
	if (r < 0) {
		error("%s: the database failed while ingesting", db);
		return EXIT_ERROR;
	}
	if (!cfg->quiet)
		fprintf(stderr,
			"oomlens: %u artifacts: %u read, %u with errors, %u failed, %u skipped;"
			" %llu records into %s\n",
			st.files, st.ok, st.partial, st.failed, st.skipped,
			(unsigned long long)st.records, db);
	if (r == 1) {
		error("nothing usable in the artifacts given");
		return EXIT_ERROR;
	}
	if (!cfg->quiet && !opts->tz_known)
		warn_local_clock(tl);
	return EXIT_OK;
}

int write_report(sqlite3 *db, enum report_format format, const char *path)
{
	struct strbuf err = STRBUF_INIT;
	FILE *out = stdout;
	int r;

	if (path && strcmp(path, "-")) {
		out = fopen(path, "w");
		if (!out)
			return error("%s: cannot write the report", path);
	}
	r = report_write(db, format, out, &err);
	if (err.len)     /* the reason it failed, or a query whose part is missing */
		error("%s", err.buf);
	strbuf_release(&err);
	if (out != stdout) {
		if (fclose(out) != 0)
			r = error("%s: write failed", path);
	} else {
		fflush(stdout);
	}
	return r;
}
