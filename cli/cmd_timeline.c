/*
 * cmd_timeline.c -- `oomlens timeline DB`: every event in time order, one
 * line each, for reading on a terminal (or --json, one object per line).
 */
#include "cli/cli.h"
#include "analyzer/store/timeline.h"
#include "lib/strbuf.h"
#include "lib/timeutil.h"

#include <stdlib.h>
#include <string.h>

static const char timeline_usage[] =
	"usage: oomlens timeline [--kind KIND] [--json] DB\n"
	"  Prints the incident's events in time order: UTC time (or boot seconds\n"
	"  when a log could not be placed on UTC), kind, pid, comm, summary.\n"
	"exit: 0, 1 the database could not be read, 2 usage (or no event of KIND)\n";

static const struct cli_opt timeline_opts[] = {
	{ "--kind", 0, 1, OPT_KIND }, { "--json", 0, 0, OPT_JSON }, { NULL, 0, 0, 0 }
};

static const char sql_events[] =
	"SELECT e.time_ns, e.clock, e.boot_ns, e.kind, e.pid, e.comm, e.summary,"
	" a.path, e.line FROM event e LEFT JOIN artifact a ON a.id = e.artifact_id"
	" WHERE ?1 IS NULL OR e.kind = ?1"
	" ORDER BY e.time_ns IS NULL, e.time_ns, e.boot_ns, e.id";

/* The event's time as the timeline shows it. */
static void event_time(sqlite3_stmt *st, char *when, size_t n)
{
	if (sqlite3_column_type(st, 0) != SQLITE_NULL)
		format_iso8601(sqlite3_column_int64(st, 0), when, n);
	else if (sqlite3_column_type(st, 2) != SQLITE_NULL)
		snprintf(when, n, "boot+%.6fs", (double)sqlite3_column_int64(st, 2) / 1e9);
	else
		snprintf(when, n, "(no time)");
}

/* One event of sql_events as a JSON object on one line. */
static void print_json(sqlite3_stmt *st, const char *when)
{
	json_t *o = json_pack("{s:s, s:s?, s:s, s:o, s:s?, s:s?, s:s?, s:I}",
		"time", when, "clock", (const char *)sqlite3_column_text(st, 1),
		"kind", (const char *)sqlite3_column_text(st, 3),
		"pid", sqlite3_column_type(st, 4) == SQLITE_NULL ? json_null()
			: json_integer(sqlite3_column_int64(st, 4)),
		"comm", (const char *)sqlite3_column_text(st, 5),
		"summary", (const char *)sqlite3_column_text(st, 6),
		"artifact", (const char *)sqlite3_column_text(st, 7),
		"line", (json_int_t)sqlite3_column_int64(st, 8));
	char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	if (s)
		printf("%s\n", s);
	free(s);
	json_decref(o);
}

/* One event of sql_events as a line for a terminal, built in line. */
static void print_text(sqlite3_stmt *st, const char *when, struct strbuf *line)
{
	const char *summary = (const char *)sqlite3_column_text(st, 6);
	const char *comm = (const char *)sqlite3_column_text(st, 5);
	size_t k;

	strbuf_reset(line);
	strbuf_addf(line, "%-27s %-14s", when, (const char *)sqlite3_column_text(st, 3));
	if (sqlite3_column_type(st, 4) != SQLITE_NULL)
		strbuf_addf(line, " pid=%lld", (long long)sqlite3_column_int64(st, 4));
	if (comm) {
		strbuf_addstr(line, " comm=");
		strbuf_add_utf8(line, comm, strlen(comm));
	}
	if (summary) {
		strbuf_addstr(line, "  ");
		strbuf_add_utf8(line, summary, strlen(summary));
	}
	/* Control characters from artifacts must not drive the terminal. */
	for (k = 0; k < line->len; k++)
		if ((unsigned char)line->buf[k] < 0x20 || line->buf[k] == 0x7f)
			line->buf[k] = '?';
	puts(strbuf_failed(line) ? "(out of memory)" : line->buf);
}

/* --kind names a kind the database holds: 0, or -1 after saying which
 * kinds it holds. */
static int check_kind(sqlite3 *db, const char *kind)
{
	struct strbuf kinds = STRBUF_INIT;
	sqlite3_stmt *st;
	int found = 0;

	if (sqlite3_prepare_v2(db, "SELECT DISTINCT kind FROM event ORDER BY kind", -1, &st,
			       NULL) != SQLITE_OK)
		return 0;   /* the listing itself will say why */
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		if (k && !strcmp(k, kind))
			found = 1;
		strbuf_addf(&kinds, "%s%s", kinds.len ? ", " : "", k ? k : "?");
	}
	sqlite3_finalize(st);
	if (!found)
		cli_error("--kind: no event of kind '%s' in the database; its kinds: %s", kind,
		      strbuf_failed(&kinds) ? "(out of memory)" : kinds.len ? kinds.buf
		      : "none (it holds no events)");
	strbuf_release(&kinds);
	return found ? 0 : -1;
}

int cmd_timeline(int argc, char **argv)
{
	struct cli_args a = CLI_ARGS_INIT(argc, argv, timeline_opts);
	struct strbuf line = STRBUF_INIT;
	const char *kind = NULL;
	struct timeline tl;
	sqlite3_stmt *st;
	int o, as_json = 0;
	char when[40];

	while ((o = cli_next(&a)) != CLI_DONE) {
		if (o == CLI_HELP)
			return cli_help(timeline_usage);
		if (o == OPT_JSON)
			as_json = 1;
		else if (o == OPT_KIND)
			kind = a.value;
		else
			return cli_usage(timeline_usage);
	}
	if (a.nargs != 1)
		return cli_usage(timeline_usage);
	if (open_db(&tl, a.args[0], TL_READ) < 0)
		return EXIT_ERROR;
	if (kind && check_kind(tl.db, kind) < 0) {
		close_db(&tl);
		return EXIT_USAGE;
	}
	if (sqlite3_prepare_v2(tl.db, sql_events, -1, &st, NULL) != SQLITE_OK) {
		cli_error("%s: %s", a.args[0], sqlite3_errmsg(tl.db));
		close_db(&tl);
		return EXIT_ERROR;
	}
	if (kind)
		sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		event_time(st, when, sizeof(when));
		if (as_json)
			print_json(st, when);
		else
			print_text(st, when, &line);
	}
	sqlite3_finalize(st);
	strbuf_release(&line);
	close_db(&tl);
	return EXIT_OK;
}
