/*
 * markdown.c -- the short summary to paste into a ticket: verdict, the
 * victims, and the artifacts read. Strings from artifacts are escaped
 * with strbuf_add_md.
 */
#include "report.h"
#include "query.h"
#include "../lib/strbuf.h"
#include "../lib/timeutil.h"

static void md_text(struct strbuf *sb, sqlite3_stmt *st, int col)
{
	const char *s = (const char *)sqlite3_column_text(st, col);
	struct strbuf u = STRBUF_INIT;

	if (!s) {
		strbuf_addstr(sb, "-");
		return;
	}
	strbuf_add_utf8(&u, s, (size_t)sqlite3_column_bytes(st, col));
	strbuf_add_md(sb, u.buf, u.len);
	strbuf_release(&u);
}

int report_markdown(sqlite3 *db, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	sqlite3_stmt *st;
	int r;

	strbuf_addstr(&sb, "## OOM incident\n\n");
	st = q_prepare(db, "SELECT class, cause, confidence, summary FROM verdict LIMIT 1");
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		strbuf_addstr(&sb, "**Verdict:** ");
		md_text(&sb, st, 0);
		strbuf_addf(&sb, " (confidence %.2f) — ", sqlite3_column_double(st, 2));
		md_text(&sb, st, 3);
		strbuf_addstr(&sb, "\n\n");
	}
	sqlite3_finalize(st);
	strbuf_addstr(&sb, "### Processes killed\n\n| time (UTC) | pid | process | anon-rss kB |"
			   " constraint |\n|---|---:|---|---:|---|\n");
	st = q_prepare(db, "SELECT time_ns, boot_ns, pid, comm,"
			   " json_extract(data, '$.anon_rss_kb'), json_extract(data, '$.constraint')"
			   " FROM event WHERE kind = 'oom_kill' ORDER BY time_ns, boot_ns, id LIMIT 50");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		char buf[40];
		if (sqlite3_column_type(st, 0) != SQLITE_NULL)
			format_iso8601(sqlite3_column_int64(st, 0), buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "boot+%.3fs",
				 (double)sqlite3_column_int64(st, 1) / 1e9);
		strbuf_addf(&sb, "| %s | %lld | ", buf, (long long)sqlite3_column_int64(st, 2));
		md_text(&sb, st, 3);
		strbuf_addstr(&sb, " | ");
		md_text(&sb, st, 4);
		strbuf_addstr(&sb, " | ");
		md_text(&sb, st, 5);
		strbuf_addstr(&sb, " |\n");
	}
	sqlite3_finalize(st);
	strbuf_addstr(&sb, "\n### Artifacts\n\n| file | kind | status | errors |\n|---|---|---|---:|\n");
	st = q_prepare(db, "SELECT path, kind, status, errors FROM artifact ORDER BY id");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		strbuf_addstr(&sb, "| ");
		md_text(&sb, st, 0);
		strbuf_addstr(&sb, " | ");
		md_text(&sb, st, 1);
		strbuf_addstr(&sb, " | ");
		md_text(&sb, st, 2);
		strbuf_addf(&sb, " | %lld |\n", (long long)sqlite3_column_int64(st, 3));
	}
	sqlite3_finalize(st);
	r = fwrite(sb.buf, 1, sb.len, out) == sb.len ? 0 : -1;
	strbuf_release(&sb);
	return r;
}
