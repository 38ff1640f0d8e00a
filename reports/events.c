/*
 * events.c -- the events section. The JSON report has every event, in
 * UTC time order then the events not on UTC by boot time, written row by
 * row (stream_events: millions of events in bounded memory). People see
 * the key events: the OOM, kill, crash and error events (at most
 * KEY_EVENTS_CAP) and the last SERVER_ERRORS_SHOWN server errors before
 * the OOM (row 1 of the derived table oom); the HTML with the count of events by kind in a fold, the
 * Markdown only the processes killed or failed.
 */
#include "reports/section.h"
#include "reports/html_util.h"
#include "reports/md_util.h"
#include "reports/summary.h"
#include "analyzer/store/query.h"
#include "lib/common.h"

#include <string.h>

#define KEY_KINDS "('oom_invoked', 'oom_kill', 'oom_reaper', 'oom_no_kill', 'userspace_kill'," \
		  " 'alloc_failure', 'torch_oom', 'cuda_exception', 'process_crash', 'gpu_xid')"
#define KEY_EVENTS_CAP HTML_TABLE_CAP
/* Server errors can be millions: people see the last 20 before the first
 * OOM event (or the last 20 when no OOM is on UTC). */
#define SERVER_ERRORS_SHOWN 20
#define KINDS_SHOWN 100
#define MD_KILLS 10

/* Events: the common columns, then the kind's own fields from data; in
 * time order, then those not on UTC by boot time. Two queries, so that
 * the first walks the time index instead of sorting millions of rows. */
#define EVENT_COLUMNS \
	"SELECT e.id, e.kind, e.time_ns AS time, e.clock," \
	" CASE WHEN e.boot_ns IS NULL THEN NULL ELSE e.boot_ns / 1e9 END AS boot_s," \
	" e.pid, e.comm, e.bytes, e.summary, a.path AS artifact, e.line, e.data" \
	" FROM event e LEFT JOIN artifact a ON a.id = e.artifact_id"
static const char *const events_sql[] = {
	EVENT_COLUMNS " WHERE e.time_ns IS NOT NULL ORDER BY e.time_ns, e.id",
	EVENT_COLUMNS " WHERE e.time_ns IS NULL ORDER BY e.boot_ns, e.id",
};

/* The key events, in time order (?1 = KEY_EVENTS_CAP of the OOM kinds,
 * ?2 = SERVER_ERRORS_SHOWN): time_ns, boot_ns, kind, pid, comm, bytes,
 * summary, artifact, line, and same_as_artifact, the path of the artifact
 * that saw the same OOM first. */
static const char key_events_sql[] =
	"WITH the_oom AS (SELECT time_ns AS t FROM oom WHERE id = 1),"
	" picked AS ("
	"  SELECT * FROM (SELECT id FROM event WHERE kind IN " KEY_KINDS
	"   ORDER BY time_ns IS NULL, time_ns, boot_ns, id LIMIT ?1)"
	/* +kind: walk the time index backwards, not every server error */
	"  UNION ALL SELECT * FROM (SELECT id FROM event WHERE +kind = 'server_error'"
	"   AND time_ns IS NOT NULL"
	"   AND time_ns <= COALESCE((SELECT t FROM the_oom) + 60000000000, time_ns)"
	"   ORDER BY time_ns DESC LIMIT ?2))"
	" SELECT e.time_ns, e.boot_ns, e.kind, e.pid, e.comm, e.bytes, e.summary,"
	" a.path AS artifact, e.line,"
	" (SELECT a2.path FROM event o JOIN artifact a2 ON a2.id = o.artifact_id"
	"  WHERE json_valid(e.data) AND o.id = json_extract(e.data, '$.same_as_event'))"
	"  AS same_as_artifact"
	" FROM picked p JOIN event e ON e.id = p.id"
	" LEFT JOIN artifact a ON a.id = e.artifact_id"
	" ORDER BY e.time_ns IS NULL, e.time_ns, e.boot_ns, e.id";

/* Capped: the key events (a list of every row read). Full: every event
 * in one array, for report_json(); the JSON report streams them instead. */
json_t *load_events(struct report_ctx *c)
{
	sqlite3_stmt *st;
	json_t *a, *b;

	if (c->capped) {
		st = r_prepare(c, key_events_sql);
		if (st) {
			sqlite3_bind_int(st, 1, KEY_EVENTS_CAP);
			sqlite3_bind_int(st, 2, SERVER_ERRORS_SHOWN);
		}
		a = st ? q_rows_next(st, -1) : json_array();
		sqlite3_finalize(st);
		return r_list(c, a, (int64_t)json_array_size(a));
	}
	a = r_rows(c, events_sql[0], -1);
	b = r_rows(c, events_sql[1], -1);
	json_array_extend(a, b);
	json_decref(b);
	return a;
}

/* The JSON's events array written row by row: memory stays bounded with
 * millions of events. One event per line, each the q_row() object of
 * the query dumped compact (q_jw writes those bytes without it). */
int stream_events(struct report_ctx *c, FILE *out)
{
	struct q_jw w;
	int n = 0, r = 0, q;

	q_jw_init(&w, out, 0, 0);
	q_jw_raw(&w, "[", 1);
	for (q = 0; q < 2 && r == 0; q++) {
		sqlite3_stmt *st = r_prepare(c, events_sql[q]);
		struct q_jw_cols cols;
		if (!st || q_jw_cols_init(&cols, st, NULL, NULL) < 0)
			r = -1;
		while (st && r == 0 && sqlite3_step(st) == SQLITE_ROW) {
			q_jw_raw(&w, n ? ",\n  " : "\n  ", n ? 4 : 3);
			n++;
			q_jw_open(&w, '{');
			r = q_jw_row(&w, &cols);
			q_jw_close(&w, '}');
			q_jw_flush(&w);
		}
		if (st)
			q_jw_cols_release(&cols);
		sqlite3_finalize(st);
	}
	q_jw_raw(&w, n ? "\n]" : "]", n ? 2 : 1);
	return q_jw_finish(&w) < 0 ? -1 : r;
}

static int kind_in(const char *kind, const char *const *kinds)
{
	int i;

	for (i = 0; kind && kinds[i]; i++)
		if (!strcmp(kind, kinds[i]))
			return 1;
	return 0;
}

/* The counts over the whole event table that only the HTML shows (each
 * a pass over millions of rows, so the Markdown does not pay for them):
 * {"kinds": [{kind, events}] (the first KINDS_SHOWN, most first), "any":
 * true when there is any event, "listed": the events of the kinds people
 * are shown, "oom_or_kill": the events that say when and what an OOM
 * killed, "local": the events with a wall-clock time of unknown zone}. */
json_t *load_event_counts(struct report_ctx *c)
{
	static const char *const listed[] = {
		"oom_invoked", "oom_kill", "oom_reaper", "oom_no_kill", "userspace_kill",
		"alloc_failure", "torch_oom", "cuda_exception", "process_crash",
		"server_error", NULL
	};
	static const char *const oom_or_kill[] = {
		"oom_kill", "oom_invoked", "torch_oom", "cuda_exception", "userspace_kill", NULL
	};
	sqlite3_stmt *st = r_prepare(c, "SELECT kind, count(*) FROM event GROUP BY kind"
				     " ORDER BY 2 DESC, 1");
	json_t *kinds = json_array();
	int64_t in_listed = 0, in_oom = 0, rows = 0;

	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(st, 0);
		int64_t n = sqlite3_column_int64(st, 1);
		if (kind_in(kind, listed))
			in_listed += n;
		if (kind_in(kind, oom_or_kill))
			in_oom += n;
		if (rows++ < KINDS_SHOWN)
			json_array_append_new(kinds, json_pack("{s:o, s:I}", "kind", q_json(st, 0),
							       "events", (json_int_t)n));
	}
	sqlite3_finalize(st);
	return json_pack("{s:o, s:b, s:I, s:I, s:I}", "kinds", kinds, "any", rows > 0,
			 "listed", (json_int_t)in_listed, "oom_or_kill", (json_int_t)in_oom,
			 "local", (json_int_t)r_int(c, EVENTS_LOCAL_TIME, 0));
}

/* --- HTML ------------------------------------------------------------------- */

static void html_event_row(struct strbuf *sb, const json_t *e)
{
	const char *kind = json_string_value(json_object_get(e, "kind"));
	int hot = kind && (!strcmp(kind, "oom_kill") || !strcmp(kind, "userspace_kill"));

	strbuf_addstr(sb, hot ? "<tr class=victim><td class=t>" : "<tr><td class=t>");
	h_time(sb, jv_int_or_null(e, "time_ns"), jv_int_or_null(e, "boot_ns"));
	h_in(sb, "</td><td class=t>", e, "kind", "</td>");
	h_num_td(sb, json_object_get(e, "pid"));
	h_in(sb, "<td>", e, "comm", "</td>");
	h_bytes_td(sb, json_object_get(e, "bytes"));
	h_in(sb, "<td>", e, "summary", "");
	if (!jv_null(e, "same_as_artifact"))
		h_in(sb, " <span class=muted>(the same OOM as in <code>", e, "same_as_artifact",
		     "</code>)</span>");
	h_in(sb, "</td><td><code>", e, "artifact", "");
	if (!jv_null(e, "line"))
		strbuf_addf(sb, ":%lld", (long long)jv_int_or_null(e, "line"));
	strbuf_addstr(sb, "</code></td></tr>\n");
}

/* The events by kind, folded. */
static void html_kinds(struct strbuf *sb, const json_t *k)
{
	const json_t *r;
	size_t i;

	strbuf_addstr(sb, "<details><summary>Events by kind</summary>\n<table><tr><th>kind"
			  "</th><th class=n>events</th></tr>\n");
	json_array_foreach(json_object_get(k, "kinds"), i, r) {
		strbuf_addstr(sb, "<tr><td>");
		h_key(sb, r, "kind");
		strbuf_addstr(sb, "</td>");
		h_num_td(sb, json_object_get(r, "events"));
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n</details>");
}

/* The key events, how many more there are, the events by kind. */
void html_events(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const json_t *k = report_model(c, "event_counts"), *rows = model_rows(m), *e;
	int64_t listed = jv_int_or_null(k, "listed"), n = (int64_t)json_array_size(rows);
	size_t i;

	if (!json_is_true(json_object_get(k, "any"))) {
		h_na(sb, "No events were found in the artifacts.");
		return;
	}
	strbuf_addstr(sb, "<table><tr><th>time (UTC)</th><th>kind</th><th class=n>pid</th>"
			  "<th>process</th><th class=n>bytes</th><th>what</th><th>source</th></tr>\n");
	json_array_foreach(rows, i, e)
		html_event_row(sb, e);
	if (!n)
		strbuf_addstr(sb, "<tr><td colspan=7 class=muted>No OOM, kill, crash or error"
				  " event.</td></tr>\n");
	strbuf_addstr(sb, "</table>\n");
	if (listed > n)
		strbuf_addf(sb, "<p class=more>%lld more OOM, kill and error events in the"
			    " database (<code>oomlens timeline</code>); server errors shown: the"
			    " last %d%s.</p>\n", (long long)(listed - n),
			    SERVER_ERRORS_SHOWN, c->sum.has_oom ? " before the OOM" : "");
	html_kinds(sb, k);
}

/* --- Markdown ----------------------------------------------------------------- */

/* The processes killed or failed: the first MD_KILLS of the key events
 * that killed a process or failed an allocation. */
void md_events(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	static const char *const kills[] = { "oom_kill", "userspace_kill", "torch_oom", NULL };
	static const char *const cells[] = { "kind", "pid", "comm", NULL };
	const json_t *e;
	size_t i;
	int n = 0;

	(void)c;
	json_array_foreach(model_rows(m), i, e) {
		char buf[64], b[32];
		if (n == MD_KILLS)
			break;
		if (!kind_in(json_string_value(json_object_get(e, "kind")), kills))
			continue;
		if (!n++)
			strbuf_addstr(sb, "### Processes killed or failed\n\n| time (UTC) | event | pid |"
					  " process | bytes |\n|---|---|---:|---|---:|\n");
		fmt_time(buf, sizeof(buf), jv_int_or_null(e, "time_ns"), jv_int_or_null(e, "boot_ns"));
		strbuf_addf(sb, "| %s ", buf);
		md_cells(sb, e, cells);
		if (!jv_null(e, "bytes")) {
			fmt_bytes(b, sizeof(b), jv_real(json_object_get(e, "bytes")));
			strbuf_addf(sb, " | %s |\n", b);
		} else {
			strbuf_addstr(sb, " | - |\n");
		}
	}
	if (n)
		strbuf_addstr(sb, "\n");
}
