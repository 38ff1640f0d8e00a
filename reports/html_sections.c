/*
 * html_sections.c -- the HTML report's sections below the chart: the
 * findings, key events, the kernel OOM task table, live memory by
 * allocation stack, allocator segments, the GPU core summary, the
 * artifacts read and what the report could not determine.
 *
 * Each section reads only the database; domain tables (alloc, segment,
 * gpu_device...) may be missing from a database, and a section says so
 * instead of failing. Tables are capped (HTML_TABLE_CAP or less) with a
 * note of how many more rows the database holds.
 */
#include "reports/html_util.h"
#include "analyzer/store/query.h"
#include "reports/summary.h"
#include "lib/common.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define FINDINGS_CAP 50
#define EVIDENCE_CAP 20
#define TASK_EVENTS_CAP 5
#define TASK_ROWS_CAP 40
#define STACKS_CAP 25
#define FRAMES_SHOWN 4
#define FRAMES_CAP 40
#define SEGMENTS_CAP 40
#define DIAG_CAP 20
#define SEG_BAR_W 560

/* --- findings ----------------------------------------------------------- */

static void finding_evidence(struct strbuf *sb, sqlite3 *db, int64_t fid)
{
	sqlite3_stmt *st = q_prepare(db,
		"SELECT v.ref_table, v.ref_id, v.note, e.kind, e.time_ns, e.boot_ns, e.summary"
		" FROM evidence v LEFT JOIN event e ON v.ref_table = 'event' AND e.id = v.ref_id"
		" WHERE v.finding_id = ? ORDER BY v.rowid LIMIT " "20");
	char sql[120];
	int n = 0;
	int64_t total;

	if (!st)
		return;
	sqlite3_bind_int64(st, 1, fid);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (!n++)
			strbuf_addstr(sb, "<p class=sub>Evidence</p><ul class=ev>");
		strbuf_addstr(sb, "<li>");
		if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
			h_col(sb, st, 2);
			strbuf_addstr(sb, " ");
		}
		strbuf_addstr(sb, "<span class=muted>(");
		h_col(sb, st, 0);
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			strbuf_addf(sb, " #%lld", (long long)sqlite3_column_int64(st, 1));
		if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
			strbuf_addstr(sb, ": ");
			h_col(sb, st, 3);
			strbuf_addstr(sb, " at ");
			h_time(sb, st, 4, 5);
			if (sqlite3_column_type(st, 6) != SQLITE_NULL) {
				strbuf_addstr(sb, ", ");
				h_col(sb, st, 6);
			}
		}
		strbuf_addstr(sb, ")</span></li>");
	}
	sqlite3_finalize(st);
	if (n)
		strbuf_addstr(sb, "</ul>\n");
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM evidence WHERE finding_id = %lld",
		 (long long)fid);
	total = q_int(db, sql, n);
	if (total > n)
		strbuf_addf(sb, "<p class=more>%lld more evidence rows in the database.</p>\n",
			    (long long)(total - n));
}

static void finding_figures(struct strbuf *sb, const char *text)
{
	json_t *f = text ? json_loads(text, 0, NULL) : NULL;
	const char *key;
	json_t *v;

	if (!json_is_object(f) || !json_object_size(f)) {
		json_decref(f);
		return;
	}
	strbuf_addstr(sb, "<table class=figs>");
	json_object_foreach(f, key, v) {
		struct strbuf val = STRBUF_INIT;
		char *raw = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		fmt_figure(&val, key, v);
		strbuf_addstr(sb, "<tr><th>");
		h_text(sb, key, (size_t)-1);
		strbuf_addstr(sb, "</th><td class=n title=\"");
		if (raw)
			h_text(sb, raw, (size_t)-1);
		strbuf_addstr(sb, "\">");
		h_text(sb, val.buf, val.len);
		strbuf_addstr(sb, "</td></tr>");
		strbuf_release(&val);
		free(raw);
	}
	strbuf_addstr(sb, "</table>\n");
	json_decref(f);
}

void html_findings(struct strbuf *sb, sqlite3 *db)
{
	sqlite3_stmt *st = q_prepare(db, "SELECT id, rule, class, cause, score, title, advice,"
					 " figures FROM finding ORDER BY score DESC, id LIMIT 50");
	int n = 0;
	int64_t total;

	strbuf_addstr(sb, "<section id=findings><h2>Findings</h2>\n");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		n++;
		strbuf_addstr(sb, "<article class=finding><h3>");
		if (sqlite3_column_type(st, 5) != SQLITE_NULL)
			h_col(sb, st, 5);
		else
			h_col(sb, st, 1);
		strbuf_addstr(sb, "</h3><p class=tags><span class=tag>");
		h_col(sb, st, 2);
		strbuf_addstr(sb, "</span>");
		if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
			strbuf_addstr(sb, " <span class=tag>");
			h_col(sb, st, 3);
			strbuf_addstr(sb, "</span>");
		}
		strbuf_addstr(sb, " rule <code>");
		h_col(sb, st, 1);
		strbuf_addstr(sb, "</code>");
		if (sqlite3_column_type(st, 4) != SQLITE_NULL)
			strbuf_addf(sb, " &middot; score %.2f", sqlite3_column_double(st, 4));
		strbuf_addstr(sb, "</p>\n");
		finding_figures(sb, (const char *)sqlite3_column_text(st, 7));
		finding_evidence(sb, db, sqlite3_column_int64(st, 0));
		if (sqlite3_column_type(st, 6) != SQLITE_NULL) {
			strbuf_addstr(sb, "<p class=advice><b>Advice:</b> ");
			h_col(sb, st, 6);
			strbuf_addstr(sb, "</p>\n");
		}
		strbuf_addstr(sb, "</article>\n");
	}
	sqlite3_finalize(st);
	total = q_int(db, "SELECT count(*) FROM finding", n);
	if (!n)
		h_na(sb, "No rule produced a finding: the evidence in the artifacts was not"
			 " enough to classify the incident (see <a href=\"#unknowns\">what the"
			 " report could not determine</a>).");
	else if (total > n)
		strbuf_addf(sb, "<p class=more>%lld more findings in the database.</p>\n",
			    (long long)(total - n));
	strbuf_addstr(sb, "</section>\n");
}

/* --- events --------------------------------------------------------------- */

#define KEY_KINDS "('oom_invoked', 'oom_kill', 'oom_reaper', 'oom_no_kill', 'userspace_kill'," \
		  " 'alloc_failure', 'torch_oom', 'cuda_exception', 'process_crash')"
/* Server errors can be millions: the table shows the last 20 before the
 * first OOM event (or the last 20 when no OOM is on UTC). */
#define SERVER_ERRORS_SHOWN 20

void html_events(struct strbuf *sb, sqlite3 *db)
{
	sqlite3_stmt *st;
	int n = 0;

	strbuf_addstr(sb, "<section id=events><h2>What happened</h2>\n");
	if (!q_int(db, "SELECT count(*) FROM (SELECT 1 FROM event LIMIT 1)", 0)) {
		h_na(sb, "No events were found in the artifacts.");
		strbuf_addstr(sb, "</section>\n");
		return;
	}
	st = q_prepare(db,
		"WITH oom AS (SELECT min(time_ns) AS t FROM event WHERE kind IN " KEY_KINDS "),"
		" picked AS ("
		"  SELECT * FROM (SELECT id FROM event WHERE kind IN " KEY_KINDS
		"   ORDER BY time_ns IS NULL, time_ns, boot_ns, id LIMIT 200)"
		/* +kind: walk the time index backwards, not every server error */
		"  UNION ALL SELECT * FROM (SELECT id FROM event WHERE +kind = 'server_error'"
		"   AND time_ns IS NOT NULL"
		"   AND time_ns <= COALESCE((SELECT t FROM oom) + 60000000000, time_ns)"
		"   ORDER BY time_ns DESC LIMIT 20))" /* SERVER_ERRORS_SHOWN */
		" SELECT e.time_ns, e.boot_ns, e.kind, e.pid, e.comm, e.bytes, e.summary, a.path, e.line,"
		" (SELECT a2.path FROM event o JOIN artifact a2 ON a2.id = o.artifact_id"
		"  WHERE json_valid(e.data) AND o.id = json_extract(e.data, '$.same_as_event'))"
		" FROM picked p JOIN event e ON e.id = p.id"
		" LEFT JOIN artifact a ON a.id = e.artifact_id"
		" ORDER BY e.time_ns IS NULL, e.time_ns, e.boot_ns, e.id");
	strbuf_addstr(sb, "<table><tr><th>time (UTC)</th><th>kind</th><th class=n>pid</th>"
			  "<th>process</th><th class=n>bytes</th><th>what</th><th>source</th></tr>\n");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(st, 2);
		int hot = kind && (!strcmp(kind, "oom_kill") || !strcmp(kind, "userspace_kill"));
		strbuf_addstr(sb, hot ? "<tr class=victim><td class=t>" : "<tr><td class=t>");
		h_time(sb, st, 0, 1);
		strbuf_addstr(sb, "</td><td class=t>");
		h_col(sb, st, 2);
		strbuf_addstr(sb, "</td>");
		h_num(sb, st, 3);
		strbuf_addstr(sb, "<td>");
		h_col(sb, st, 4);
		strbuf_addstr(sb, "</td>");
		h_bytes_td(sb, st, 5);
		strbuf_addstr(sb, "<td>");
		h_col(sb, st, 6);
		if (sqlite3_column_type(st, 9) != SQLITE_NULL) {
			strbuf_addstr(sb, " <span class=muted>(the same OOM as in <code>");
			h_col(sb, st, 9);
			strbuf_addstr(sb, "</code>)</span>");
		}
		strbuf_addstr(sb, "</td><td><code>");
		h_col(sb, st, 7);
		if (sqlite3_column_type(st, 8) != SQLITE_NULL)
			strbuf_addf(sb, ":%lld", (long long)sqlite3_column_int64(st, 8));
		strbuf_addstr(sb, "</code></td></tr>\n");
		n++;
	}
	sqlite3_finalize(st);
	if (!n)
		strbuf_addstr(sb, "<tr><td colspan=7 class=muted>No OOM, kill, crash or error"
				  " event.</td></tr>\n");
	strbuf_addstr(sb, "</table>\n");
	/* one pass over the kind index: the counts by kind, and how many of
	 * the listed kinds the table left out */
	st = q_prepare(db, "SELECT kind, count(*) FROM event GROUP BY kind ORDER BY 2 DESC, 1");
	{
		static const char *const listed[] = {
			"oom_invoked", "oom_kill", "oom_reaper", "oom_no_kill", "userspace_kill",
			"alloc_failure", "torch_oom", "cuda_exception", "process_crash",
			"server_error", NULL
		};
		struct strbuf kinds = STRBUF_INIT;
		int64_t total = 0;
		int rows = 0, i;

		while (st && sqlite3_step(st) == SQLITE_ROW) {
			const char *kind = (const char *)sqlite3_column_text(st, 0);
			for (i = 0; kind && listed[i]; i++)
				if (!strcmp(kind, listed[i]))
					total += sqlite3_column_int64(st, 1);
			if (rows++ < 100) {
				strbuf_addstr(&kinds, "<tr><td>");
				h_col(&kinds, st, 0);
				strbuf_addstr(&kinds, "</td>");
				h_num(&kinds, st, 1);
				strbuf_addstr(&kinds, "</tr>\n");
			}
		}
		sqlite3_finalize(st);
		if (total > n)
			strbuf_addf(sb, "<p class=more>%lld more OOM, kill and error events in the"
				    " database (<code>oomlens timeline</code>); server errors shown: the"
				    " last %d before the OOM.</p>\n", (long long)(total - n),
				    SERVER_ERRORS_SHOWN);
		strbuf_addf(sb, "<details><summary>Events by kind</summary>\n<table><tr><th>kind"
			    "</th><th class=n>events</th></tr>\n%s</table>\n", kinds.buf);
		strbuf_release(&kinds);
	}
	strbuf_addstr(sb, "</details></section>\n");
}

/* --- kernel OOM task table ---------------------------------------------- */

void html_tasks(struct strbuf *sb, sqlite3 *db)
{
	int64_t page = q_int(db, "SELECT CAST(value AS INTEGER) FROM meta WHERE key ="
			     " 'kernel.page_size' AND value GLOB '[0-9]*' LIMIT 1", 4096);
	sqlite3_stmt *ev = q_prepare(db,
		"SELECT e.id, e.time_ns, e.boot_ns, e.comm, e.pid,"
		" COALESCE((SELECT k.pid FROM event k WHERE k.kind = 'oom_kill'"
		"   AND json_valid(k.data) AND json_extract(k.data, '$.invoker_event') = e.id LIMIT 1),"
		"  (SELECT k.pid FROM event k WHERE k.kind = 'oom_kill'"
		"   AND k.artifact_id IS e.artifact_id AND k.id > e.id"
		"   AND NOT EXISTS (SELECT 1 FROM event o WHERE o.kind = 'oom_invoked'"
		"     AND o.artifact_id IS e.artifact_id AND o.id > e.id AND o.id < k.id)"
		"   ORDER BY k.id LIMIT 1)),"
		" (SELECT count(*) FROM task t WHERE t.event_id = e.id)"
		" FROM event e WHERE e.kind = 'oom_invoked'"
		" AND EXISTS (SELECT 1 FROM task t WHERE t.event_id = e.id)"
		" ORDER BY e.time_ns, e.boot_ns, e.id LIMIT 5");
	int shown = 0;
	int64_t total;

	strbuf_addstr(sb, "<section id=tasks><h2>Processes at the kernel OOM</h2>\n");
	while (ev && sqlite3_step(ev) == SQLITE_ROW) {
		int64_t victim = sqlite3_column_type(ev, 5) == SQLITE_NULL ? OL_NULL
				 : sqlite3_column_int64(ev, 5);
		int64_t ntask = sqlite3_column_int64(ev, 6);
		sqlite3_stmt *st;
		int rows = 0;

		shown++;
		strbuf_addstr(sb, "<h3>OOM at ");
		h_time(sb, ev, 1, 2);
		strbuf_addstr(sb, ", invoked by ");
		h_col(sb, ev, 3);
		if (sqlite3_column_type(ev, 4) != SQLITE_NULL)
			strbuf_addf(sb, " (pid %lld)", (long long)sqlite3_column_int64(ev, 4));
		strbuf_addf(sb, "</h3>\n<p class=muted>Largest RSS first; sizes from pages of %lld"
			    " bytes.</p>\n", (long long)page);
		strbuf_addstr(sb, "<table><tr><th class=n>pid</th><th class=n>uid</th><th>name</th>"
				  "<th class=n>RSS</th><th class=n>anon</th><th class=n>file</th>"
				  "<th class=n>shmem</th><th class=n>virtual</th><th class=n>swap</th>"
				  "<th class=n>oom_score_adj</th></tr>\n");
		st = q_prepare(db, "SELECT pid, uid, name, rss_pages * ?2, rss_anon_pages * ?2,"
				   " rss_file_pages * ?2, rss_shmem_pages * ?2, total_vm_pages * ?2,"
				   " swapents * ?2, oom_score_adj FROM task WHERE event_id = ?1"
				   " ORDER BY rss_pages DESC, pid LIMIT 40");
		if (!st)
			break;
		sqlite3_bind_int64(st, 1, sqlite3_column_int64(ev, 0));
		sqlite3_bind_int64(st, 2, page);
		while (sqlite3_step(st) == SQLITE_ROW) {
			int is_victim = victim != OL_NULL &&
					sqlite3_column_type(st, 0) != SQLITE_NULL &&
					sqlite3_column_int64(st, 0) == victim;
			strbuf_addstr(sb, is_victim ? "<tr class=victim>" : "<tr>");
			h_num(sb, st, 0);
			h_num(sb, st, 1);
			strbuf_addstr(sb, "<td>");
			h_col(sb, st, 2);
			strbuf_addstr(sb, is_victim ? " <b class=killed>killed</b></td>" : "</td>");
			h_bytes_td(sb, st, 3);
			h_bytes_td(sb, st, 4);
			h_bytes_td(sb, st, 5);
			h_bytes_td(sb, st, 6);
			h_bytes_td(sb, st, 7);
			h_bytes_td(sb, st, 8);
			h_num(sb, st, 9);
			strbuf_addstr(sb, "</tr>\n");
			rows++;
		}
		sqlite3_finalize(st);
		strbuf_addstr(sb, "</table>\n");
		if (ntask > rows)
			strbuf_addf(sb, "<p class=more>%lld more processes in this dump in the"
				    " database.</p>\n", (long long)(ntask - rows));
	}
	sqlite3_finalize(ev);
	total = q_int(db, "SELECT count(DISTINCT event_id) FROM task", 0);
	if (!shown)
		h_na(sb, "No kernel OOM task dump in the artifacts (a kernel log with the"
			 " oom-killer's task list would show every process and its memory).");
	else if (total > shown)
		strbuf_addf(sb, "<p class=more>%lld more OOM task dumps in the database.</p>\n",
			    (long long)(total - shown));
	strbuf_addstr(sb, "</section>\n");
}

/* --- live memory by allocation stack -------------------------------------- */

static void stack_frames(struct strbuf *sb, sqlite3 *db, sqlite3_stmt *fr, int64_t stack_id)
{
	int n = 0;
	int64_t depth;
	char sql[100];

	(void)db;
	sqlite3_reset(fr);
	sqlite3_bind_int64(fr, 1, stack_id);
	strbuf_addstr(sb, "<div class=frames>");
	while (sqlite3_step(fr) == SQLITE_ROW) {
		if (n == FRAMES_SHOWN)
			strbuf_addstr(sb, "<details><summary>more frames</summary>");
		strbuf_addstr(sb, "<code>");
		h_col(sb, fr, 0);
		strbuf_addstr(sb, "</code> <span class=muted>");
		if (sqlite3_column_type(fr, 1) != SQLITE_NULL)
			h_col(sb, fr, 1);
		if (sqlite3_column_type(fr, 2) != SQLITE_NULL)
			strbuf_addf(sb, ":%lld", (long long)sqlite3_column_int64(fr, 2));
		strbuf_addstr(sb, "</span><br>");
		n++;
	}
	if (n > FRAMES_SHOWN)
		strbuf_addstr(sb, "</details>");
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM frame WHERE stack_id = %lld",
		 (long long)stack_id);
	depth = q_int(db, sql, n);
	if (depth > n)
		strbuf_addf(sb, "<span class=more>%lld more frames</span>", (long long)(depth - n));
	if (!n)
		strbuf_addstr(sb, "<span class=muted>no stack recorded</span>");
	strbuf_addstr(sb, "</div>");
}

/* The allocations of the latest snapshot (one incident may hold several). */
#define LATEST " AND snapshot_id IS (SELECT max(snapshot_id) FROM alloc)"

void html_live_allocs(struct strbuf *sb, sqlite3 *db)
{
	sqlite3_stmt *st = NULL, *fr = NULL;
	double total, top = 0;
	int64_t count, stacks;
	char buf[32], buf2[32];
	int rank = 0;

	strbuf_addstr(sb, "<section id=live><h2>Live memory at the OOM, by allocation stack</h2>\n");
	if (!q_has_table(db, "alloc") || !q_has_table(db, "snapshot") ||
	    q_int(db, "SELECT count(*) FROM snapshot", 0) == 0) {
		h_na(sb, "Not available: no PyTorch memory snapshot with an allocation trace was"
			 " ingested.");
		goto out;
	}
	count = q_int(db, "SELECT count(*) FROM alloc WHERE state = 'live'" LATEST, 0);
	total = q_real(db, "SELECT sum(size) FROM alloc WHERE state = 'live'" LATEST, 0);
	stacks = q_int(db, "SELECT count(*) FROM (SELECT 1 FROM alloc WHERE state = 'live'"
		       LATEST " GROUP BY device, stack_id)", 0);
	if (!count) {
		h_na(sb, "The snapshot's trace holds no allocation alive at its end.");
		goto out;
	}
	fmt_bytes(buf, sizeof(buf), total);
	strbuf_addf(sb, "<p>%s live in %lld allocations from %lld stacks (allocation trace of the"
		    " snapshot; the trace is a ring buffer, so older allocations may be"
		    " missing).</p>\n", buf, (long long)count, (long long)stacks);
	st = q_try(db, "SELECT device, stack_id, count(*), sum(size), max(size) FROM alloc"
		       " WHERE state = 'live'" LATEST " GROUP BY device, stack_id"
		       " ORDER BY sum(size) DESC LIMIT 25");
	if (q_has_table(db, "frame"))
		fr = q_try(db, "SELECT name, file, line FROM frame WHERE stack_id = ?"
			       " ORDER BY idx LIMIT 40");
	if (!st) {
		h_na(sb, "The <code>alloc</code> table lacks the expected columns.");
		goto out;
	}
	strbuf_addstr(sb, "<table class=stacks><tr><th class=n>#</th><th>device</th>"
			  "<th class=n>live bytes</th><th class=n>allocations</th>"
			  "<th class=n>largest</th><th>share</th><th>stack (innermost first)</th></tr>\n");
	while (sqlite3_step(st) == SQLITE_ROW) {
		double sum = sqlite3_column_double(st, 3);
		if (!rank)
			top = sum > 0 ? sum : 1;
		rank++;
		strbuf_addf(sb, "<tr><td class=n>%d</td><td>", rank);
		h_col(sb, st, 0);
		strbuf_addstr(sb, "</td>");
		h_bytes_td(sb, st, 3);
		h_num(sb, st, 2);
		h_bytes_td(sb, st, 4);
		fmt_bytes(buf2, sizeof(buf2), sum);
		strbuf_addf(sb, "<td><div class=bar><span style=\"width:%.1f%%\"></span></div>"
			    "<span class=muted>%.1f %%</span></td><td>",
			    100.0 * sum / top, total > 0 ? 100.0 * sum / total : 0);
		if (sqlite3_column_type(st, 1) == SQLITE_NULL || !fr)
			strbuf_addstr(sb, "<span class=muted>no stack recorded</span>");
		else
			stack_frames(sb, db, fr, sqlite3_column_int64(st, 1));
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
	if (stacks > rank)
		strbuf_addf(sb, "<p class=more>%lld more stacks in the database.</p>\n",
			    (long long)(stacks - rank));
out:
	sqlite3_finalize(st);
	sqlite3_finalize(fr);
	strbuf_addstr(sb, "</section>\n");
}

/* --- allocator segments --------------------------------------------------- */

/* One segment as a bar: allocated blocks dark over a light (free) bar;
 * adjacent allocated blocks closer than half a pixel merge into one rect,
 * so a segment costs at most SEG_BAR_W rects whatever its block count. */
static void segment_bar(struct strbuf *sb, sqlite3_stmt *bl, int64_t seg_id, double seg_size,
			double alloc_size, double width, int y)
{
	double scale = seg_size > 0 ? width / seg_size : 0, x = 0, run_x = -1, run_w = 0;
	int any = 0;

	strbuf_addf(sb, "<rect x=0 y=%d width=%.1f height=14 class=free />", y, width);
	if (bl) {
		sqlite3_reset(bl);
		sqlite3_bind_int64(bl, 1, seg_id);
		while (sqlite3_step(bl) == SQLITE_ROW) {
			double w = sqlite3_column_double(bl, 0) * scale;
			const char *state = (const char *)sqlite3_column_text(bl, 1);
			int used = state && !strncmp(state, "active", 6);
			any = 1;
			if (used) {
				if (run_x >= 0 && x - (run_x + run_w) < 0.5) {
					run_w = x + w - run_x;
				} else {
					if (run_x >= 0)
						strbuf_addf(sb, "<rect x=%.1f y=%d width=%.2f height=14"
							    " class=used />", run_x, y, run_w);
					run_x = x;
					run_w = w;
				}
			}
			x += w;
		}
		if (run_x >= 0)
			strbuf_addf(sb, "<rect x=%.1f y=%d width=%.2f height=14 class=used />",
				    run_x, y, run_w);
	}
	if (!any && alloc_size > 0)   /* no blocks: the allocated share as one rect */
		strbuf_addf(sb, "<rect x=0 y=%d width=%.1f height=14 class=used />", y,
			    alloc_size * scale);
}

void html_segments(struct strbuf *sb, sqlite3 *db)
{
	sqlite3_stmt *st = NULL, *bl = NULL;
	int64_t snap, nseg;
	double reserved, allocated, largest_seg, largest_free = NAN;
	char b1[32], b2[32], b3[32], b4[32];
	int n = 0, y;

	strbuf_addstr(sb, "<section id=segments><h2>Allocator segments</h2>\n");
	if (!q_has_table(db, "segment") || !q_has_table(db, "snapshot") ||
	    q_int(db, "SELECT count(*) FROM snapshot", 0) == 0) {
		h_na(sb, "Not available: no PyTorch memory snapshot was ingested.");
		goto out;
	}
	snap = q_int(db, "SELECT max(snapshot_id) FROM segment", OL_NULL);
	if (snap == OL_NULL) {
		h_na(sb, "The snapshot holds no allocator segment.");
		goto out;
	}
	{
		char sql[300];
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM segment WHERE snapshot_id = %lld",
			 (long long)snap);
		nseg = q_int(db, sql, 0);
		snprintf(sql, sizeof(sql), "SELECT sum(total_size) FROM segment WHERE snapshot_id = %lld",
			 (long long)snap);
		reserved = q_real(db, sql, 0);
		snprintf(sql, sizeof(sql), "SELECT sum(allocated_size) FROM segment"
			 " WHERE snapshot_id = %lld", (long long)snap);
		allocated = q_real(db, sql, 0);
		snprintf(sql, sizeof(sql), "SELECT max(total_size) FROM segment WHERE snapshot_id = %lld",
			 (long long)snap);
		largest_seg = q_real(db, sql, 0);
		if (q_has_table(db, "block")) {
			snprintf(sql, sizeof(sql), "SELECT max(b.size) FROM block b JOIN segment s"
				 " ON s.id = b.segment_id WHERE s.snapshot_id = %lld"
				 " AND b.state = 'inactive'", (long long)snap);
			largest_free = q_real(db, sql, NAN);
		}
	}
	fmt_bytes(b1, sizeof(b1), reserved);
	fmt_bytes(b2, sizeof(b2), allocated);
	fmt_bytes(b3, sizeof(b3), reserved - allocated);
	strbuf_addf(sb, "<p>%lld segments reserve %s; %s allocated, <b>%s free inside"
		    " segments</b>", (long long)nseg, b1, b2, b3);
	if (isfinite(largest_free)) {
		fmt_bytes(b4, sizeof(b4), largest_free);
		strbuf_addf(sb, "; the largest free block is %s", b4);
		if (reserved - allocated > 0)
			strbuf_addf(sb, " (fragmentation %.0f %%: share of the free memory not in"
				    " the largest block)",
				    100.0 * (1 - largest_free / (reserved - allocated)));
	}
	strbuf_addstr(sb, ".</p>\n");
	st = q_try(db, "SELECT id, device, total_size, allocated_size, segment_type, stream"
		       " FROM segment WHERE snapshot_id = ? ORDER BY total_size DESC, id LIMIT 40");
	if (q_has_table(db, "block"))
		bl = q_try(db, "SELECT size, state FROM block WHERE segment_id = ?"
			       " ORDER BY address, rowid");
	if (!st) {
		h_na(sb, "The <code>segment</code> table lacks the expected columns.");
		goto out;
	}
	sqlite3_bind_int64(st, 1, snap);
	strbuf_addf(sb, "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" class=segs viewBox=\"0 0"
		    " %d %d\" role=img aria-label=\"allocator segments\">\n", 300 + SEG_BAR_W,
		    (int)(nseg < SEGMENTS_CAP ? nseg : SEGMENTS_CAP) * 20 + 4);
	y = 2;
	while (sqlite3_step(st) == SQLITE_ROW) {
		double total = sqlite3_column_double(st, 2), alloc = sqlite3_column_double(st, 3);
		double w = largest_seg > 0 ? SEG_BAR_W * total / largest_seg : 0;
		fmt_bytes(b1, sizeof(b1), total);
		fmt_bytes(b2, sizeof(b2), alloc);
		strbuf_addf(sb, "<text x=0 y=%d class=sl>", y + 11);
		if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
			strbuf_addstr(sb, "dev ");
			h_col(sb, st, 1);
			strbuf_addstr(sb, " ");
		}
		if (sqlite3_column_type(st, 4) != SQLITE_NULL) {
			h_col(sb, st, 4);
			strbuf_addstr(sb, " ");
		}
		strbuf_addf(sb, "%s, %s used</text><g transform=\"translate(290 0)\"><title>segment"
			    " #%lld: %s, %s allocated</title>", b1, total > 0 ?
			    (snprintf(b3, sizeof(b3), "%.0f%%", 100 * alloc / total), b3) : "?",
			    (long long)sqlite3_column_int64(st, 0), b1, b2);
		segment_bar(sb, bl, sqlite3_column_int64(st, 0), total, alloc, w < 1 ? 1 : w, y);
		strbuf_addstr(sb, "</g>\n");
		y += 20;
		n++;
	}
	strbuf_addstr(sb, "</svg><figcaption><span class=sw-used></span> allocated blocks"
			  " <span class=sw-free></span> free (inactive) blocks; bar length is the"
			  " segment's size</figcaption></figure>\n");
	if (nseg > n)
		strbuf_addf(sb, "<p class=more>%lld more segments in the database.</p>\n",
			    (long long)(nseg - n));
out:
	sqlite3_finalize(st);
	sqlite3_finalize(bl);
	strbuf_addstr(sb, "</section>\n");
}

/* --- GPU core ------------------------------------------------------------- */

void html_gpu(struct strbuf *sb, sqlite3 *db)
{
	int any = 0;

	strbuf_addstr(sb, "<section id=gpu><h2>GPU core dump</h2>\n");
	if (q_has_table(db, "gpu_device") &&
	    q_int(db, "SELECT count(*) FROM gpu_device", 0) > 0) {
		any = 1;
		strbuf_addstr(sb, "<h3>Devices</h3>\n");
		h_table(sb, db, "SELECT device, name, sm_type, num_sms, warps_per_sm, lanes_per_warp,"
			" contexts FROM gpu_device ORDER BY artifact_id, device LIMIT 16",
			"SELECT count(*) FROM gpu_device", 16);
	}
	if (q_has_table(db, "gpu_context") &&
	    q_int(db, "SELECT count(*) FROM gpu_context", 0) > 0) {
		any = 1;
		strbuf_addstr(sb, "<h3>Contexts per device</h3>\n");
		h_table(sb, db, "SELECT device, count(*) AS contexts, count(DISTINCT tid) AS"
			" threads FROM gpu_context GROUP BY device ORDER BY device LIMIT 64",
			NULL, 64);
	}
	if (q_has_table(db, "gpu_grid") && q_int(db, "SELECT count(*) FROM gpu_grid", 0) > 0) {
		any = 1;
		strbuf_addstr(sb, "<h3>Kernels running</h3>\n");
		h_table(sb, db, "SELECT device, grid_id, function,"
			" grid_x || 'x' || grid_y || 'x' || grid_z AS grid,"
			" block_x || 'x' || block_y || 'x' || block_z AS block, status, exception"
			" FROM gpu_grid ORDER BY exception IS NULL, device, grid_id LIMIT 50",
			"SELECT count(*) FROM gpu_grid", 50);
	}
	if (q_has_table(db, "gpu_region") &&
	    q_int(db, "SELECT count(*) FROM gpu_region", 0) > 0) {
		any = 1;
		strbuf_addstr(sb, "<h3>Device memory recorded</h3>\n");
		h_table(sb, db, "SELECT device, kind, count(*) AS regions, sum(size) AS total_size"
			" FROM gpu_region GROUP BY device, kind ORDER BY device, total_size DESC"
			" LIMIT 64", NULL, 64);
	}
	if (q_int(db, "SELECT count(*) FROM event WHERE kind = 'cuda_exception'", 0) > 0) {
		any = 1;
		strbuf_addstr(sb, "<h3>Exceptions</h3>\n");
		h_table(sb, db, "SELECT time_ns, pid, comm, summary FROM event WHERE kind ="
			" 'cuda_exception' ORDER BY time_ns, id LIMIT 20",
			"SELECT count(*) FROM event WHERE kind = 'cuda_exception'", 20);
	}
	if (q_has_table(db, "thread") && q_int(db, "SELECT count(*) FROM thread", 0) > 0) {
		any = 1;
		strbuf_addstr(sb, "<h3>Host core threads</h3>\n");
		h_table(sb, db, "SELECT t.tid, t.crashed, t.signal,"
			" (SELECT group_concat(coalesce(f.name, f.file || '+' || f.line), ' < ')"
			"  FROM (SELECT * FROM frame WHERE stack_id = t.stack_id ORDER BY idx LIMIT 6) f)"
			" AS top_frames FROM thread t ORDER BY t.crashed DESC, t.tid LIMIT 30",
			"SELECT count(*) FROM thread", 30);
	}
	if (!any)
		h_na(sb, "Not available: no CUDA or host core dump was ingested.");
	strbuf_addstr(sb, "</section>\n");
}

/* --- artifacts ------------------------------------------------------------ */

void html_artifacts(struct strbuf *sb, sqlite3 *db)
{
	sqlite3_stmt *st = q_prepare(db, "SELECT id, path, kind, size, status, bytes_read, seconds,"
					 " errors, warnings, compressed FROM artifact ORDER BY id"
					 " LIMIT 500");
	sqlite3_stmt *dg = q_prepare(db, "SELECT line, offset, severity, message FROM diagnostic"
					 " WHERE artifact_id = ? ORDER BY id LIMIT 20");
	int n = 0;
	int64_t total;

	strbuf_addstr(sb, "<section id=artifacts><h2>Artifacts read</h2>\n<table><tr><th>file</th>"
			  "<th>kind</th><th class=n>size</th><th>status</th><th class=n>seconds</th>"
			  "<th class=n>errors</th><th class=n>warnings</th></tr>\n");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *status = (const char *)sqlite3_column_text(st, 4);
		const char *cls = !status ? "" : !strcmp(status, "failed") ? " class=err"
				  : !strcmp(status, "partial") ? " class=warn"
				  : !strcmp(status, "skipped") ? " class=muted" : "";
		int nd = 0;
		int64_t errs = sqlite3_column_int64(st, 7) + sqlite3_column_int64(st, 8);

		n++;
		strbuf_addstr(sb, "<tr><td><code>");
		h_col(sb, st, 1);
		strbuf_addstr(sb, "</code>");
		if (sqlite3_column_int64(st, 9))
			strbuf_addstr(sb, " <span class=muted>(compressed)</span>");
		strbuf_addstr(sb, "</td><td>");
		h_col(sb, st, 2);
		strbuf_addstr(sb, "</td>");
		h_bytes_td(sb, st, 3);
		strbuf_addf(sb, "<td%s>", cls);
		h_col(sb, st, 4);
		strbuf_addstr(sb, "</td>");
		if (sqlite3_column_type(st, 6) == SQLITE_NULL)
			strbuf_addstr(sb, "<td class=n><span class=muted>-</span></td>");
		else
			strbuf_addf(sb, "<td class=n>%.2f</td>", sqlite3_column_double(st, 6));
		h_num(sb, st, 7);
		h_num(sb, st, 8);
		strbuf_addstr(sb, "</tr>\n");
		if (!dg)
			continue;
		sqlite3_reset(dg);
		sqlite3_bind_int64(dg, 1, sqlite3_column_int64(st, 0));
		while (sqlite3_step(dg) == SQLITE_ROW) {
			const char *sev = (const char *)sqlite3_column_text(dg, 2);
			if (!nd++)
				strbuf_addstr(sb, "<tr class=diag><td colspan=7><ul>");
			strbuf_addf(sb, "<li class=%s>", sev && !strcmp(sev, "error") ? "err"
				    : sev && !strcmp(sev, "warning") ? "warn" : "muted");
			h_col(sb, dg, 2);
			if (sqlite3_column_type(dg, 0) != SQLITE_NULL)
				strbuf_addf(sb, " at line %lld", (long long)sqlite3_column_int64(dg, 0));
			else if (sqlite3_column_type(dg, 1) != SQLITE_NULL)
				strbuf_addf(sb, " at byte %lld", (long long)sqlite3_column_int64(dg, 1));
			strbuf_addstr(sb, ": ");
			h_col(sb, dg, 3);
			strbuf_addstr(sb, "</li>");
		}
		if (nd) {
			char sql[120];
			int64_t all;
			snprintf(sql, sizeof(sql), "SELECT count(*) FROM diagnostic WHERE"
				 " artifact_id = %lld", (long long)sqlite3_column_int64(st, 0));
			all = q_int(db, sql, nd);
			if (all > nd)
				strbuf_addf(sb, "<li class=more>%lld more diagnostics in the"
					    " database</li>", (long long)(all - nd));
			strbuf_addstr(sb, "</ul></td></tr>\n");
		}
		(void)errs;
	}
	sqlite3_finalize(st);
	sqlite3_finalize(dg);
	strbuf_addstr(sb, "</table>\n");
	total = q_int(db, "SELECT count(*) FROM artifact", n);
	if (!n)
		h_na(sb, "No artifact was read.");
	else if (total > n)
		strbuf_addf(sb, "<p class=more>%lld more artifacts in the database.</p>\n",
			    (long long)(total - n));
	html_clocks(sb, db);
	strbuf_addstr(sb, "</section>\n");
}

/* How the sources were put on one UTC clock: the anchors that placed
 * boot-relative times (an artifact that saw both clocks, or --boot-time),
 * and the sources whose wall-clock times have no zone. */
void html_clocks(struct strbuf *sb, sqlite3 *db)
{
	int64_t anchors = q_int(db, "SELECT count(*) FROM anchor", 0);
	int64_t local = q_int(db, "SELECT count(*) FROM (SELECT artifact_id FROM meta WHERE"
			      " key = 'time.clock' AND value = 'local' UNION SELECT artifact_id"
			      " FROM event WHERE clock = 'local')", 0);

	strbuf_addstr(sb, "<h3>Clocks</h3>\n");
	if (!anchors && !local) {
		strbuf_addstr(sb, "<p class=muted>Every time was read on UTC (or on no clock):"
				  " no alignment was needed.</p>\n");
		return;
	}
	if (anchors) {
		strbuf_addstr(sb, "<p>Boot-relative times (dmesg stamps) were placed on UTC with"
				  " these anchors; the median offset per boot is used.</p>\n");
		h_table(sb, db, "SELECT coalesce(a.path, '--boot-time') AS source, n.how,"
			" n.boot_id, round(n.boot_ns / 1e9, 6) AS boot_seconds,"
			" n.utc_ns AS utc_time_ns FROM anchor n"
			" LEFT JOIN artifact a ON a.id = n.artifact_id ORDER BY n.id LIMIT 20",
			"SELECT count(*) FROM anchor", 20);
	}
	if (local) {
		strbuf_addstr(sb, "<p>These sources give wall-clock times without a zone; they"
				  " are read as if UTC (give <code>--tz</code> to place them):</p>\n");
		h_table(sb, db, "SELECT a.path AS source, a.kind FROM artifact a WHERE a.id IN"
			" (SELECT artifact_id FROM meta WHERE key = 'time.clock' AND value = 'local'"
			" UNION SELECT artifact_id FROM event WHERE clock = 'local')"
			" ORDER BY a.id LIMIT 20", NULL, 20);
	}
}

/* --- what the report could not determine ---------------------------------- */

void html_unknowns(struct strbuf *sb, sqlite3 *db)
{
	sqlite3_stmt *st;
	int64_t n;
	int items = 0;

	strbuf_addstr(sb, "<section id=unknowns><h2>What this report could not determine</h2>\n<ul>");
	st = q_prepare(db, "SELECT missing FROM verdict WHERE missing IS NOT NULL AND missing != ''"
			   " ORDER BY id LIMIT 1");
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		strbuf_addstr(sb, "<li><b>Evidence that would have decided the verdict:</b> ");
		h_col(sb, st, 0);
		strbuf_addstr(sb, "</li>");
		items++;
	}
	sqlite3_finalize(st);
	if (!q_int(db, "SELECT count(*) FROM verdict", 0)) {
		strbuf_addstr(sb, "<li>No verdict is recorded: the rules were not run on this"
				  " database (<code>oomlens analyze</code> runs them).</li>");
		items++;
	}
	if (!q_int(db, "SELECT count(*) FROM event WHERE kind IN ('oom_kill', 'oom_invoked',"
		   " 'torch_oom', 'cuda_exception', 'userspace_kill')", 0)) {
		strbuf_addstr(sb, "<li>No OOM or kill event was found: when and what the OOM killed"
				  " is unknown.</li>");
		items++;
	}
	n = q_int(db, "SELECT count(*) FROM event WHERE time_ns IS NULL", 0);
	if (n > 0) {
		strbuf_addf(sb, "<li>%lld events are only on the boot clock (no anchor placed them on"
			    " UTC; give <code>--boot-time</code>): they are listed as boot+seconds and"
			    " not drawn on the chart.</li>", (long long)n);
		items++;
	}
	n = q_int(db, "SELECT count(*) FROM event WHERE clock = 'local'", 0);
	if (n > 0) {
		strbuf_addf(sb, "<li>%lld events carry a wall-clock time of unknown zone, read as"
			    " if UTC (give <code>--tz</code>).</li>", (long long)n);
		items++;
	}
	n = q_int(db, Q_UNTIMED_SAMPLES, 0);
	if (n > 0) {
		strbuf_addf(sb, "<li>%lld samples have no UTC time and are not drawn.</li>",
			    (long long)n);
		items++;
	}
	st = q_prepare(db, "SELECT path, status, errors FROM artifact WHERE status IN"
			   " ('failed', 'partial', 'empty') ORDER BY id LIMIT 50");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		strbuf_addstr(sb, "<li><code>");
		h_col(sb, st, 0);
		strbuf_addstr(sb, "</code> was ");
		h_col(sb, st, 1);
		strbuf_addf(sb, " (%lld errors, see <a href=\"#artifacts\">artifacts</a>).</li>",
			    (long long)sqlite3_column_int64(st, 2));
		items++;
	}
	sqlite3_finalize(st);
	if (!q_int(db, "SELECT count(*) FROM series", 0)) {
		strbuf_addstr(sb, "<li>No memory time series (nvidia-smi/DCGM log, cgroup or smaps"
				  " captures, snapshot trace): how memory grew before the OOM is"
				  " unknown.</li>");
		items++;
	}
	if (!q_has_table(db, "snapshot") || !q_int(db, "SELECT count(*) FROM snapshot", 0)) {
		strbuf_addstr(sb, "<li>No PyTorch memory snapshot: which code held the GPU memory is"
				  " unknown.</li>");
		items++;
	}
	if (!items)
		strbuf_addstr(sb, "<li>Nothing: every artifact was read and every time placed on"
				  " UTC.</li>");
	strbuf_addstr(sb, "</ul></section>\n");
}
