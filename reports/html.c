/*
 * html.c -- the self-contained HTML report: one file, inline CSS, no
 * script, no external request. Every string from an artifact goes through
 * strbuf_add_html.
 */
#include "report.h"
#include "query.h"
#include "../analyzer/cli.h"
#include "../lib/strbuf.h"
#include "../lib/timeutil.h"

#include <string.h>

static const char css[] =
	"body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}"
	"h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.15em;margin-top:1.8em;"
	"border-bottom:1px solid #ddd}table{border-collapse:collapse;width:100%;font-size:13px}"
	"th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}"
	"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
	".verdict{font-size:1.2em;padding:.6em 1em;background:#f4f6fa;border-left:5px solid #4a6fa5}"
	".muted{color:#777}.err{color:#b00}.warn{color:#a60}"
	"code{font:12px ui-monospace,monospace}@media print{body{margin:0}}";

static void add_text(struct strbuf *sb, sqlite3_stmt *st, int col)
{
	const char *s = (const char *)sqlite3_column_text(st, col);
	struct strbuf u = STRBUF_INIT;

	if (!s) {
		strbuf_addstr(sb, "<span class=muted>-</span>");
		return;
	}
	strbuf_add_utf8(&u, s, (size_t)sqlite3_column_bytes(st, col));
	strbuf_add_html(sb, u.buf, u.len);
	strbuf_release(&u);
}

static void add_num(struct strbuf *sb, sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		strbuf_addstr(sb, "<td class=n><span class=muted>-</span></td>");
	else
		strbuf_addf(sb, "<td class=n>%lld</td>", (long long)sqlite3_column_int64(st, col));
}

static void add_time(struct strbuf *sb, sqlite3_stmt *st, int tcol, int bcol)
{
	char buf[40];

	if (sqlite3_column_type(st, tcol) != SQLITE_NULL) {
		format_iso8601(sqlite3_column_int64(st, tcol), buf, sizeof(buf));
		strbuf_addstr(sb, buf);
	} else if (sqlite3_column_type(st, bcol) != SQLITE_NULL) {
		strbuf_addf(sb, "boot+%.3fs <span class=muted>(not on UTC)</span>",
			    (double)sqlite3_column_int64(st, bcol) / 1e9);
	} else {
		strbuf_addstr(sb, "<span class=muted>unknown</span>");
	}
}

static void section_verdict(sqlite3 *db, struct strbuf *sb)
{
	sqlite3_stmt *st = q_prepare(db, "SELECT class, cause, confidence, summary, missing"
					 " FROM verdict ORDER BY id LIMIT 1");
	if (!st)
		return;
	if (sqlite3_step(st) == SQLITE_ROW) {
		strbuf_addstr(sb, "<div class=verdict><b>Verdict: ");
		add_text(sb, st, 0);
		if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
			strbuf_addstr(sb, " (");
			add_text(sb, st, 1);
			strbuf_addstr(sb, ")");
		}
		strbuf_addf(sb, "</b> &middot; confidence %.2f<br>", sqlite3_column_double(st, 2));
		add_text(sb, st, 3);
		if (sqlite3_column_type(st, 4) != SQLITE_NULL) {
			strbuf_addstr(sb, "<br><span class=muted>Missing evidence: ");
			add_text(sb, st, 4);
			strbuf_addstr(sb, "</span>");
		}
		strbuf_addstr(sb, "</div>\n");
	}
	sqlite3_finalize(st);
}

static void section_events(sqlite3 *db, struct strbuf *sb)
{
	sqlite3_stmt *st = q_prepare(db,
		"SELECT e.time_ns, e.boot_ns, e.kind, e.pid, e.comm, e.summary, a.path, e.line"
		" FROM event e LEFT JOIN artifact a ON a.id = e.artifact_id"
		" ORDER BY e.time_ns IS NULL, e.time_ns, e.boot_ns, e.id LIMIT 2000");
	int n = 0;

	if (!st)
		return;
	strbuf_addstr(sb, "<h2>Events</h2>\n<table><tr><th>time (UTC)</th><th>kind</th>"
			  "<th class=n>pid</th><th>process</th><th>what</th><th>source</th></tr>\n");
	while (sqlite3_step(st) == SQLITE_ROW) {
		strbuf_addstr(sb, "<tr><td>");
		add_time(sb, st, 0, 1);
		strbuf_addstr(sb, "</td><td>");
		add_text(sb, st, 2);
		strbuf_addstr(sb, "</td>");
		add_num(sb, st, 3);
		strbuf_addstr(sb, "<td>");
		add_text(sb, st, 4);
		strbuf_addstr(sb, "</td><td>");
		add_text(sb, st, 5);
		strbuf_addstr(sb, "</td><td><code>");
		add_text(sb, st, 6);
		strbuf_addf(sb, ":%lld</code></td></tr>\n", (long long)sqlite3_column_int64(st, 7));
		n++;
	}
	if (!n)
		strbuf_addstr(sb, "<tr><td colspan=6 class=muted>No events were found in the"
				  " artifacts.</td></tr>\n");
	strbuf_addstr(sb, "</table>\n");
	sqlite3_finalize(st);
}

/* The task table of each OOM event that has one, largest RSS first. */
static void section_tasks(sqlite3 *db, struct strbuf *sb)
{
	sqlite3_stmt *ev = q_prepare(db,
		"SELECT e.id, e.time_ns, e.boot_ns, e.comm, e.pid,"
		" (SELECT k.pid FROM event k WHERE k.kind = 'oom_kill'"
		"   AND json_extract(k.data, '$.invoker_event') = e.id LIMIT 1)"
		" FROM event e WHERE EXISTS (SELECT 1 FROM task t WHERE t.event_id = e.id)"
		" ORDER BY e.time_ns, e.boot_ns, e.id LIMIT 50");
	sqlite3_stmt *st;

	if (!ev)
		return;
	while (sqlite3_step(ev) == SQLITE_ROW) {
		int64_t victim = sqlite3_column_type(ev, 5) == SQLITE_NULL ? -1
				 : sqlite3_column_int64(ev, 5);
		strbuf_addstr(sb, "<h2>Processes at the OOM of ");
		add_time(sb, ev, 1, 2);
		strbuf_addstr(sb, " (invoked by ");
		add_text(sb, ev, 3);
		strbuf_addstr(sb, "), by RSS</h2>\n<table><tr><th class=n>pid</th><th class=n>uid</th>"
				  "<th>name</th><th class=n>total_vm (pages)</th>"
				  "<th class=n>rss (pages)</th><th class=n>swap (pages)</th>"
				  "<th class=n>oom_score_adj</th></tr>\n");
		st = q_prepare(db, "SELECT pid, uid, name, total_vm_pages, rss_pages, swapents,"
				   " oom_score_adj FROM task WHERE event_id = ?"
				   " ORDER BY rss_pages DESC LIMIT 200");
		if (!st)
			break;
		sqlite3_bind_int64(st, 1, sqlite3_column_int64(ev, 0));
		while (sqlite3_step(st) == SQLITE_ROW) {
			int is_victim = sqlite3_column_int64(st, 0) == victim;
			strbuf_addstr(sb, is_victim ? "<tr style='background:#fde8e8'>" : "<tr>");
			add_num(sb, st, 0);
			add_num(sb, st, 1);
			strbuf_addstr(sb, "<td>");
			add_text(sb, st, 2);
			strbuf_addstr(sb, is_victim ? " <b>(killed)</b></td>" : "</td>");
			add_num(sb, st, 3);
			add_num(sb, st, 4);
			add_num(sb, st, 5);
			add_num(sb, st, 6);
			strbuf_addstr(sb, "</tr>\n");
		}
		sqlite3_finalize(st);
		strbuf_addstr(sb, "</table>\n");
	}
	sqlite3_finalize(ev);
}

static void section_artifacts(sqlite3 *db, struct strbuf *sb)
{
	sqlite3_stmt *st = q_prepare(db,
		"SELECT a.path, a.kind, a.size, a.status, d.line, d.offset, d.severity, d.message"
		" FROM artifact a LEFT JOIN diagnostic d ON d.artifact_id = a.id"
		" ORDER BY a.id, d.id");
	if (!st)
		return;
	strbuf_addstr(sb, "<h2>Artifacts read</h2>\n<table><tr><th>file</th><th>kind</th>"
			  "<th class=n>bytes</th><th>status</th><th>diagnostic</th></tr>\n");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *sev = (const char *)sqlite3_column_text(st, 6);
		strbuf_addstr(sb, "<tr><td><code>");
		add_text(sb, st, 0);
		strbuf_addstr(sb, "</code></td><td>");
		add_text(sb, st, 1);
		strbuf_addstr(sb, "</td>");
		add_num(sb, st, 2);
		strbuf_addstr(sb, "<td>");
		add_text(sb, st, 3);
		strbuf_addstr(sb, "</td><td>");
		if (sev) {
			strbuf_addf(sb, "<span class=%s>", !strcmp(sev, "error") ? "err" : "warn");
			if (sqlite3_column_type(st, 4) != SQLITE_NULL)
				strbuf_addf(sb, "line %lld: ", (long long)sqlite3_column_int64(st, 4));
			else if (sqlite3_column_type(st, 5) != SQLITE_NULL)
				strbuf_addf(sb, "byte %lld: ", (long long)sqlite3_column_int64(st, 5));
			add_text(sb, st, 7);
			strbuf_addstr(sb, "</span>");
		}
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
	sqlite3_finalize(st);
}

int report_html(sqlite3 *db, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	int r;

	strbuf_addf(&sb, "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"
		    " style-src 'unsafe-inline'; img-src data:\">"
		    "<title>oomlens incident report</title><style>%s</style></head><body>\n"
		    "<h1>OOM incident report</h1>\n<p class=muted>oomlens %s</p>\n",
		    css, OOMLENS_VERSION);
	section_verdict(db, &sb);
	section_events(db, &sb);
	section_tasks(db, &sb);
	section_artifacts(db, &sb);
	strbuf_addstr(&sb, "</body></html>\n");
	r = fwrite(sb.buf, 1, sb.len, out) == sb.len ? 0 : -1;
	strbuf_release(&sb);
	return r;
}
