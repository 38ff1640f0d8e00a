/*
 * cmd_timeline.c -- `oomlens timeline DB`: every event in time order, one
 * line each, for reading on a terminal (or --json, one object per line).
 */
#include "analyzer/cli/cli.h"
#include "analyzer/store/timeline.h"
#include "lib/strbuf.h"
#include "lib/timeutil.h"

#include <stdlib.h>
#include <string.h>

static const char timeline_usage[] =
	"usage: oomlens timeline [--kind KIND] [--json] DB\n"
	"  Prints the incident's events in time order: UTC time (or boot seconds\n"
	"  when a log could not be placed on UTC), kind, pid, comm, summary.\n"
	"exit: 0, 1 the database could not be read, 2 usage\n";

int cmd_timeline(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT, line = STRBUF_INIT;
	const char *db = NULL, *kind = NULL;
	struct timeline tl;
	sqlite3_stmt *st;
	int i, as_json = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(timeline_usage, stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "--json")) {
			as_json = 1;
		} else if (!strcmp(a, "--kind") && i + 1 < argc) {
			kind = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			error("unknown option '%s'", a);
			return usage(timeline_usage);
		} else if (!db) {
			db = a;
		} else {
			return usage(timeline_usage);
		}
	}
	if (!db)
		return usage(timeline_usage);
	if (timeline_open(&tl, db, 0, &err) < 0) {
		error("%s", err.buf);
		strbuf_release(&err);
		return EXIT_ERROR;
	}
	watch_store_errors(&tl);
	if (sqlite3_prepare_v2(tl.db,
		"SELECT e.time_ns, e.clock, e.boot_ns, e.kind, e.pid, e.comm, e.summary,"
		" a.path, e.line, e.data FROM event e LEFT JOIN artifact a ON a.id = e.artifact_id"
		" WHERE ?1 IS NULL OR e.kind = ?1"
		" ORDER BY e.time_ns IS NULL, e.time_ns, e.boot_ns, e.id", -1, &st, NULL) != SQLITE_OK) {
		error("%s: %s", db, sqlite3_errmsg(tl.db));
		timeline_close(&tl);
		return EXIT_ERROR;
	}
	if (kind)
		sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		char when[40];
		const char *summary = (const char *)sqlite3_column_text(st, 6);
		const char *comm = (const char *)sqlite3_column_text(st, 5);

		strbuf_reset(&line);
		if (sqlite3_column_type(st, 0) != SQLITE_NULL)
			format_iso8601(sqlite3_column_int64(st, 0), when, sizeof(when));
		else if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			snprintf(when, sizeof(when), "boot+%.6fs",
				 (double)sqlite3_column_int64(st, 2) / 1e9);
		else
			snprintf(when, sizeof(when), "(no time)");
		if (as_json) {
			json_t *o = json_pack("{s:s, s:s?, s:s, s:o, s:s?, s:s?, s:s?, s:I}",
				"time", when, "clock", (const char *)sqlite3_column_text(st, 1),
				"kind", (const char *)sqlite3_column_text(st, 3),
				"pid", sqlite3_column_type(st, 4) == SQLITE_NULL ? json_null()
					: json_integer(sqlite3_column_int64(st, 4)),
				"comm", comm, "summary", summary,
				"artifact", (const char *)sqlite3_column_text(st, 7),
				"line", (json_int_t)sqlite3_column_int64(st, 8));
			char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
			if (s)
				printf("%s\n", s);
			free(s);
			json_decref(o);
			continue;
		}
		strbuf_addf(&line, "%-27s %-14s", when, (const char *)sqlite3_column_text(st, 3));
		if (sqlite3_column_type(st, 4) != SQLITE_NULL)
			strbuf_addf(&line, " pid=%lld", (long long)sqlite3_column_int64(st, 4));
		if (comm) {
			strbuf_addstr(&line, " comm=");
			strbuf_add_utf8(&line, comm, strlen(comm));
		}
		if (summary) {
			strbuf_addstr(&line, "  ");
			strbuf_add_utf8(&line, summary, strlen(summary));
		}
		/* Control characters from artifacts must not drive the terminal. */
		for (size_t k = 0; k < line.len; k++)
			if ((unsigned char)line.buf[k] < 0x20 || line.buf[k] == 0x7f)
				line.buf[k] = '?';
		puts(line.buf);
	}
	sqlite3_finalize(st);
	strbuf_release(&line);
	timeline_close(&tl);
	return EXIT_OK;
}
