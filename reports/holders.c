/*
 * holders.c -- what held the memory (HTML and Markdown): the latest
 * snapshot's holders per device at the snapshot, at the peak of the trace
 * and at the OOM, each with its user's frame and its full stack one click
 * away; what the recorder did not keep and the option that would have; the
 * Active Memory Timeline (holders_chart.c) and the pools. Read from the
 * holder, holder_timeline and pool tables the store derives
 * (docs/schema.md "What held the memory"). A database without them (an
 * older oomlens, a hand-made one) gets the live allocations of the trace
 * instead (live_memory.c).
 */
#include "reports/holders.h"
#include "reports/html_util.h"
#include "reports/md_util.h"
#include "reports/summary.h"
#include "analyzer/store/query.h"
#include "lib/common.h"
#include "lib/userframe.h"

#include <stdio.h>
#include <string.h>

#define HOLDERS_SHOWN 10     /* rows per scope and device */
#define DEVICES_SHOWN 8
#define STACK_FRAMES 60      /* frames of a stack read for its details */
#define MD_HOLDERS 5

static const char *const scopes[] = { "snapshot", "peak", "oom" };

/* The rows of one scope of one device: {"rows": [...], "total": N,
 * "bytes": B}, each row with its "frames" (innermost first). */
static json_t *scope_rows(struct report_ctx *c, sqlite3_stmt *rows, sqlite3_stmt *count,
			  sqlite3_stmt *frames, int64_t snap, int64_t device, const char *scope)
{
	json_t *rs, *r, *m;
	size_t i;
	int64_t n = 0;
	double bytes = 0;

	sqlite3_bind_int64(rows, 1, snap);
	sqlite3_bind_int64(rows, 2, device);
	sqlite3_bind_text(rows, 3, scope, -1, SQLITE_STATIC);
	rs = q_rows_next(rows, -1);
	sqlite3_bind_int64(count, 1, snap);
	sqlite3_bind_int64(count, 2, device);
	sqlite3_bind_text(count, 3, scope, -1, SQLITE_STATIC);
	if (sqlite3_step(count) == SQLITE_ROW) {
		n = sqlite3_column_int64(count, 0);
		bytes = sqlite3_column_double(count, 1);
	}
	sqlite3_reset(count);
	json_array_foreach(rs, i, r) {
		if (!frames || jv_null(r, "stack_id"))
			continue;
		sqlite3_bind_int64(frames, 1, jv_int(json_object_get(r, "stack_id")));
		json_object_set_new(r, "frames", q_rows_next(frames, -1));
	}
	(void)c;
	m = json_pack("{s:o, s:I, s:f}", "rows", rs, "total", (json_int_t)n, "bytes", bytes);
	return m;
}

/* Each device's scopes and timeline into m["devices"]. */
static void load_devices(struct report_ctx *c, json_t *m, int64_t snap)
{
	sqlite3_stmt *dv = r_prepare(c, "SELECT DISTINCT device FROM holder WHERE snapshot_id = ?"
				     " AND tool = 'torch_snapshot' ORDER BY device LIMIT 8");
	sqlite3_stmt *rows = r_prepare(c, "SELECT rank, bytes, allocations, largest_bytes,"
		" requested_bytes, share, kind, label, frame_file, frame_line, frame_name, stack_id,"
		" seq, time_ns, data AS info_json FROM holder WHERE snapshot_id = ?1 AND device = ?2"
		" AND scope = ?3 AND tool = 'torch_snapshot' ORDER BY rank LIMIT 10");
	sqlite3_stmt *count = r_prepare(c, "SELECT count(*), sum(bytes) FROM holder"
		" WHERE snapshot_id = ?1 AND device = ?2 AND scope = ?3 AND tool = 'torch_snapshot'");
	sqlite3_stmt *frames = r_has_table(c, "frame") ? r_prepare(c, "SELECT name, file, line"
		" FROM frame WHERE stack_id = ? ORDER BY idx LIMIT 60") : NULL;
	json_t *devs = json_array();

	if (dv)
		sqlite3_bind_int64(dv, 1, snap);
	while (dv && rows && count && sqlite3_step(dv) == SQLITE_ROW) {
		int64_t d = sqlite3_column_int64(dv, 0);
		json_t *o = json_pack("{s:I}", "device", (json_int_t)d);
		size_t k;
		for (k = 0; k < sizeof(scopes) / sizeof(scopes[0]); k++)
			json_object_set_new(o, scopes[k],
					    scope_rows(c, rows, count, frames, snap, d, scopes[k]));
		json_object_set_new(o, "timeline", holders_timeline_load(c, snap, d));
		json_array_append_new(devs, o);
	}
	sqlite3_finalize(dv);
	sqlite3_finalize(rows);
	sqlite3_finalize(count);
	sqlite3_finalize(frames);
	json_object_set_new(m, "devices", devs);
}

/* The model: {"fallback": live_memory's model} when no holder was
 * derived, else {"snapshot": {id, artifact, form, recording}, "snapshots":
 * N, "devices": [{device, snapshot, peak, oom, timeline}], "pools": [...]};
 * both with "tools": the diagnostic tools' lists (holders_tools.c). */
json_t *load_holders(struct report_ctx *c)
{
	sqlite3_stmt *st;
	json_t *m, *snapshot = NULL;
	int64_t snap;

	if (!r_has_table(c, "holder") || !r_has_table(c, "snapshot") ||
	    (snap = r_int(c, "SELECT max(snapshot_id) FROM holder WHERE tool = 'torch_snapshot'",
			  OL_NULL)) == OL_NULL)
		return json_pack("{s:o, s:o}", "fallback", load_live_memory(c), "tools",
				 holders_tools_load(c));
	st = r_prepare(c, "SELECT s.id, a.path AS artifact, s.form, s.recording AS recording_json,"
		       " (SELECT count(DISTINCT snapshot_id) FROM holder) AS snapshots"
		       " FROM snapshot s LEFT JOIN artifact a ON a.id = s.artifact_id WHERE s.id = ?");
	if (st) {
		sqlite3_bind_int64(st, 1, snap);
		if (sqlite3_step(st) == SQLITE_ROW)
			snapshot = q_row(st);
		sqlite3_finalize(st);
	}
	m = json_pack("{s:o, s:o}", "snapshot", snapshot ? snapshot : json_object(), "tools",
		      holders_tools_load(c));
	load_devices(c, m, snap);
	st = r_has_table(c, "pool") ? r_prepare(c, "SELECT device, pool_id, private_pool, segments,"
		" expandable_segments, reserved_bytes, allocated_bytes, pending_free_bytes,"
		" inactive_bytes, largest_free_bytes, top_bytes, top_allocations, top_label"
		" FROM pool WHERE snapshot_id = ? ORDER BY device, private_pool, pool_id LIMIT 64")
		: NULL;
	if (st) {
		sqlite3_bind_int64(st, 1, snap);
		json_object_set_new(m, "pools", q_rows_next(st, -1));
		sqlite3_finalize(st);
	}
	return m;
}

/* ---- HTML ---- */

/* A stack for people: innermost first; runs of C++ frames folded into one
 * line, unless the stack has no Python frame at all. */
static void html_stack(struct strbuf *sb, const json_t *row)
{
	const json_t *frames = json_object_get(row, "frames"), *f;
	int64_t depth = jv_int(json_object_get(json_object_get(row, "info"), "frames"));
	int python = (int)jv_int(json_object_get(json_object_get(row, "info"), "python_frames"));
	size_t i, n = json_array_size(frames), cpp = 0;

	if (!n)
		return;
	strbuf_addf(sb, "<details><summary>full stack (%lld frames)</summary><div class=frames>",
		    (long long)(depth > (int64_t)n ? depth : (int64_t)n));
	for (i = 0; i <= n; i++) {
		const char *file = NULL;
		f = i < n ? json_array_get(frames, i) : NULL;
		if (f)
			file = json_string_value(json_object_get(f, "file"));
		if (f && python && !frame_is_python(file)) {
			cpp++;
			continue;
		}
		if (cpp)
			strbuf_addf(sb, "<span class=muted>&#8230; %zu C++ frame%s</span><br>", cpp,
				    cpp > 1 ? "s" : "");
		cpp = 0;
		if (!f)
			break;
		strbuf_addstr(sb, "<code>");
		h_key(sb, f, "name");
		strbuf_addstr(sb, "</code> <span class=muted>");
		if (file)
			h_key(sb, f, "file");
		if (!jv_null(f, "line"))
			strbuf_addf(sb, ":%lld", (long long)jv_int_or_null(f, "line"));
		strbuf_addstr(sb, "</span><br>");
	}
	if (depth > (int64_t)n)
		strbuf_addf(sb, "<span class=more>%lld more frames</span>", (long long)(depth - (int64_t)n));
	strbuf_addstr(sb, "</div></details>");
}

/* One holder's user's frame (or what it is) and its stack. */
static void html_frame(struct strbuf *sb, const json_t *row)
{
	const json_t *ann = json_object_get(json_object_get(row, "info"), "annotations"), *a;
	size_t i;

	const char *kind = json_string_value(json_object_get(row, "kind"));

	if (!jv_null(row, "frame_file")) {
		strbuf_addstr(sb, "<code>");
		h_key(sb, row, "frame_name");
		strbuf_addstr(sb, "</code> <span class=muted>");
		h_key(sb, row, "frame_file");
		strbuf_addf(sb, ":%lld</span>", (long long)jv_int(json_object_get(row, "frame_line")));
	} else {
		strbuf_addstr(sb, "<span class=muted>");
		h_key(sb, row, "label");
		if (kind && !strcmp(kind, "no_stack"))
			strbuf_addstr(sb, " (allocated before history recording started)");
		strbuf_addstr(sb, "</span>");
	}
	json_array_foreach(ann, i, a) {
		strbuf_addstr(sb, " <span class=tag>");
		h_val(sb, a);
		strbuf_addstr(sb, "</span>");
	}
	html_stack(sb, row);
}

/* One scope's table of holders. */
static void html_scope(struct strbuf *sb, const json_t *s)
{
	const json_t *r, *rows = json_object_get(s, "rows");
	double first = 0;
	size_t i;

	if (!json_array_size(rows))
		return;
	strbuf_addstr(sb, "<table class=stacks><tr><th class=n>#</th><th class=n>live bytes</th>"
			  "<th class=n>allocations</th><th>share</th><th class=n>largest</th>"
			  "<th>user's frame (full stack one click away)</th></tr>\n");
	json_array_foreach(rows, i, r) {
		double b = jv_real(json_object_get(r, "bytes"));
		double share = jv_real(json_object_get(r, "share"));
		if (!i)
			first = b > 0 ? b : 1;
		strbuf_addf(sb, "<tr><td class=n>%lld</td>", (long long)jv_int(json_object_get(r, "rank")));
		h_bytes_td(sb, json_object_get(r, "bytes"));
		h_num_td(sb, json_object_get(r, "allocations"));
		strbuf_addf(sb, "<td><div class=bar><span style=\"width:%.1f%%\"></span></div>"
			    "<span class=muted>%.1f %%</span></td>", 100.0 * b / first, 100.0 * share);
		h_bytes_td(sb, json_object_get(r, "largest_bytes"));
		strbuf_addstr(sb, "<td>");
		html_frame(sb, r);
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
	h_more(sb, jv_int(json_object_get(s, "total")), (int64_t)json_array_size(rows), "holders");
}

/* The recording of device d from snapshot.recording (NULL when none). */
const json_t *holders_replay_of(const json_t *m, int64_t d)
{
	const json_t *devs = json_object_get(json_object_get(json_object_get(m, "snapshot"),
							     "recording"), "devices"), *x;
	size_t i;

	json_array_foreach(devs, i, x)
		if (jv_int(json_object_get(x, "device")) == d)
			return x;
	return NULL;
}

/* The heading of one scope: what it is and its total. */
static void html_scope_head(struct strbuf *sb, const json_t *m, int64_t d, int k,
			    const json_t *s)
{
	const json_t *rp = holders_replay_of(m, d), *oom = json_object_get(rp, "oom");
	char b[32], b2[32];

	fmt_bytes(b, sizeof(b), jv_real(json_object_get(s, "bytes")));
	if (k == 0) {
		strbuf_addf(sb, "<h3>cuda:%lld at the snapshot: %s live</h3>\n", (long long)d, b);
		return;
	}
	if (k == 1) {
		int64_t seq = jv_int_or_null(rp, "peak_seq");
		strbuf_addf(sb, "<h3>cuda:%lld at the peak of the trace: %s live", (long long)d, b);
		if (seq < 0)
			strbuf_addstr(sb, ", before its first event");
		else if (seq != OL_NULL)
			strbuf_addf(sb, " after event %lld", (long long)seq);
		if (!jv_null(rp, "peak_time_ns")) {
			strbuf_addstr(sb, " (");
			h_time(sb, jv_int(json_object_get(rp, "peak_time_ns")), OL_NULL);
			strbuf_addstr(sb, ")");
		}
		strbuf_addstr(sb, "</h3>\n");
		return;
	}
	fmt_bytes(b2, sizeof(b2), jv_real(json_object_get(oom, "requested_bytes")));
	strbuf_addf(sb, "<h3>cuda:%lld at the OOM (event %lld): %s live when %s could not be"
		    " allocated", (long long)d, (long long)jv_int(json_object_get(oom, "seq")), b, b2);
	if (!jv_null(oom, "device_free_bytes")) {
		fmt_bytes(b2, sizeof(b2), jv_real(json_object_get(oom, "device_free_bytes")));
		strbuf_addf(sb, ", %s free on the device", b2);
	}
	strbuf_addstr(sb, "</h3>\n");
}

/* What the recorder did not keep, and how to record it. */
static void html_missing(struct strbuf *sb, const json_t *rec)
{
	const json_t *miss = json_object_get(rec, "missing"), *x;
	size_t i;

	if (json_object_get(rec, "error")) {
		h_na(sb, json_string_value(json_object_get(rec, "error")));
		return;
	}
	if (!json_array_size(miss))
		return;
	strbuf_addstr(sb, "<p class=sub>What the recorder did not keep</p><ul class=ev>");
	json_array_foreach(miss, i, x) {
		strbuf_addstr(sb, "<li>");
		h_key(sb, x, "what");
		strbuf_addstr(sb, ". <span class=muted>To record it:</span> <code>");
		h_key(sb, x, "record_with");
		strbuf_addstr(sb, "</code>.</li>");
	}
	strbuf_addstr(sb, "</ul>\n");
}

/* The pools: default and private, their figures and largest holder. */
static void html_pools(struct strbuf *sb, const json_t *pools)
{
	const json_t *p;
	size_t i;

	if (!json_array_size(pools))
		return;
	strbuf_addstr(sb, "<h3>Memory pools</h3>\n<table><tr><th>device</th><th>pool</th>"
			  "<th class=n>segments</th><th class=n>reserved</th><th class=n>allocated</th>"
			  "<th class=n>pending free</th><th class=n>cached free</th>"
			  "<th class=n>largest free</th><th>largest holder</th></tr>\n");
	json_array_foreach(pools, i, p) {
		strbuf_addstr(sb, "<tr><td>cuda:");
		h_key(sb, p, "device");
		strbuf_addstr(sb, "</td><td>");
		if (jv_null(p, "pool_id"))
			strbuf_addstr(sb, "<span class=muted>not recorded</span>");
		else
			h_key(sb, p, "pool_id");
		strbuf_addstr(sb, jv_int(json_object_get(p, "private_pool"))
			      ? " <span class=tag>private: CUDA graph or MemPool</span>"
			      : jv_null(p, "pool_id") ? "" : " <span class=muted>default</span>");
		strbuf_addstr(sb, "</td>");
		h_num_td(sb, json_object_get(p, "segments"));
		h_bytes_td(sb, json_object_get(p, "reserved_bytes"));
		h_bytes_td(sb, json_object_get(p, "allocated_bytes"));
		h_bytes_td(sb, json_object_get(p, "pending_free_bytes"));
		h_bytes_td(sb, json_object_get(p, "inactive_bytes"));
		h_bytes_td(sb, json_object_get(p, "largest_free_bytes"));
		strbuf_addstr(sb, "<td>");
		if (!jv_null(p, "top_label")) {
			char b[32];
			fmt_bytes(b, sizeof(b), jv_real(json_object_get(p, "top_bytes")));
			strbuf_addf(sb, "%s: ", b);
			h_key(sb, p, "top_label");
		}
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
}

void html_holders(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const json_t *snap = json_object_get(m, "snapshot"), *d;
	const json_t *rec = json_object_get(snap, "recording");
	size_t i, k;
	char b[32];

	if (json_object_get(m, "fallback")) {
		html_live_memory(sb, c, json_object_get(m, "fallback"));
		html_holders_tools(sb, json_object_get(m, "tools"));
		return;
	}
	fmt_bytes(b, sizeof(b), jv_real(json_object_get(rec, "live_bytes")));
	strbuf_addstr(sb, "<p>Snapshot <code>");
	h_key(sb, snap, "artifact");
	strbuf_addf(sb, "</code>: %lld live blocks hold %s. A holder is the live memory of one"
		    " allocation stack; its user's frame is the first Python frame outside torch"
		    " and the Python runtime.", (long long)jv_int(json_object_get(rec, "live_blocks")),
		    b);
	if (jv_int(json_object_get(snap, "snapshots")) > 1)
		strbuf_addf(sb, " %lld other snapshots are in the database (JSON report;"
			    " <code>oomlens diff</code> compares two).",
			    (long long)jv_int(json_object_get(snap, "snapshots")) - 1);
	strbuf_addstr(sb, "</p>\n");
	html_missing(sb, rec);
	json_array_foreach(json_object_get(m, "devices"), i, d) {
		int64_t dev = jv_int(json_object_get(d, "device"));
		for (k = 0; k < sizeof(scopes) / sizeof(scopes[0]); k++) {
			const json_t *s = json_object_get(d, scopes[k]);
			if (!json_array_size(json_object_get(s, "rows")))
				continue;
			html_scope_head(sb, m, dev, (int)k, s);
			html_scope(sb, s);
			if (k == 1)
				html_holders_timeline(sb, m, d);
		}
	}
	html_pools(sb, json_object_get(m, "pools"));
	html_holders_tools(sb, json_object_get(m, "tools"));
}

/* ---- Markdown ---- */

/* Up to MD_HOLDERS holders of one scope as a list. */
static void md_scope(struct strbuf *sb, const json_t *s)
{
	const json_t *r;
	size_t i;

	json_array_foreach(json_object_get(s, "rows"), i, r) {
		char b[32];
		if (i == MD_HOLDERS)
			break;
		fmt_bytes(b, sizeof(b), jv_real(json_object_get(r, "bytes")));
		strbuf_addf(sb, "  %zu. %s in %lld allocation%s (%.0f %%): ", i + 1, b,
			    (long long)jv_int(json_object_get(r, "allocations")),
			    jv_int(json_object_get(r, "allocations")) == 1 ? "" : "s",
			    100.0 * jv_real(json_object_get(r, "share")));
		if (!jv_null(r, "frame_file")) {
			md_key(sb, r, "frame_file");
			strbuf_addf(sb, ":%lld ", (long long)jv_int(json_object_get(r, "frame_line")));
			md_key(sb, r, "frame_name");
		} else {
			md_key(sb, r, "label");
		}
		strbuf_addstr(sb, "\n");
	}
}

void md_holders(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	static const char *const heads[] = { "at the snapshot", "at the peak of the trace",
					     "at the OOM" };
	const json_t *d, *x, *rec = json_object_get(json_object_get(m, "snapshot"), "recording");
	size_t i, k;

	(void)c;
	if (!json_object_get(m, "devices")) {
		md_holders_tools(sb, json_object_get(m, "tools"));
		return;
	}
	strbuf_addstr(sb, "### What held the memory\n\n");
	json_array_foreach(json_object_get(m, "devices"), i, d) {
		for (k = 0; k < sizeof(scopes) / sizeof(scopes[0]); k++) {
			const json_t *s = json_object_get(d, scopes[k]);
			char b[32];
			if (!json_array_size(json_object_get(s, "rows")))
				continue;
			fmt_bytes(b, sizeof(b), jv_real(json_object_get(s, "bytes")));
			strbuf_addf(sb, "- **cuda:%lld %s** (%s live):\n",
				    (long long)jv_int(json_object_get(d, "device")), heads[k], b);
			md_scope(sb, s);
		}
	}
	json_array_foreach(json_object_get(rec, "missing"), i, x) {
		strbuf_addstr(sb, i ? "\n- " : "\nNot recorded:\n- ");
		md_key(sb, x, "what");
		strbuf_addstr(sb, ". To record it: ");
		md_key(sb, x, "record_with");
	}
	strbuf_addstr(sb, "\n\n");
	md_holders_tools(sb, json_object_get(m, "tools"));
}
