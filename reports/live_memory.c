/*
 * live_memory.c -- live memory at the OOM by allocation stack (HTML only):
 * the allocations of the latest snapshot's trace still alive at its end,
 * grouped by device and stack, largest first, with their frames
 * (innermost first; the deeper ones folded).
 */
#include "reports/section.h"
#include "reports/html_util.h"
#include "reports/summary.h"
#include "analyzer/store/query.h"
#include "lib/common.h"

#define STACKS_CAP 25
#define FRAMES_SHOWN 4
#define FRAMES_CAP 40

/* The allocations of the latest snapshot (one incident may hold several). */
#define LATEST " AND snapshot_id IS (SELECT max(snapshot_id) FROM alloc)"

/* Each stack's frames ("frames", "frames_total" when capped) when the
 * stack and the frame table are known; stacks without keep no "frames". */
static void stack_frames(struct report_ctx *c, json_t *stacks)
{
	sqlite3_stmt *fr = NULL, *depth = NULL;
	size_t i;
	json_t *s;

	if (r_has_table(c, "frame")) {
		fr = q_try(c->db, "SELECT name, file, line FROM frame WHERE stack_id = ?"
			   " ORDER BY idx LIMIT 40");  /* FRAMES_CAP */
		if (fr)
			depth = r_prepare(c, "SELECT count(*) FROM frame WHERE stack_id = ?");
	}
	json_array_foreach(stacks, i, s) {
		json_t *frames;
		if (!fr || jv_null(s, "stack_id"))
			continue;
		sqlite3_bind_int64(fr, 1, jv_int_or_null(s, "stack_id"));
		frames = q_rows_next(fr, -1);
		if (depth && json_array_size(frames) == FRAMES_CAP) {
			sqlite3_bind_int64(depth, 1, jv_int_or_null(s, "stack_id"));
			json_object_set_new(s, "frames_total", json_integer(q_int_next(depth, 0)));
		}
		json_object_set_new(s, "frames", frames);
	}
	sqlite3_finalize(fr);
	sqlite3_finalize(depth);
}

/* {"na": why} when there is nothing to show, else {"allocations",
 * "bytes", "stacks": N, "top": [{device, stack_id, allocations, bytes,
 * largest, frames?}], "na": why the top could not be read (or absent)}. */
json_t *load_live_memory(struct report_ctx *c)
{
	sqlite3_stmt *st;
	json_t *m;
	int64_t count = 0;
	double total = 0;

	if (!r_has_table(c, "alloc") || !r_has_table(c, "snapshot") || !r_snapshots(c))
		return json_pack("{s:s}", "na", "Not available: no PyTorch memory snapshot with an"
				 " allocation trace was ingested.");
	st = r_prepare(c, "SELECT count(*), sum(size) FROM alloc WHERE state = 'live'" LATEST);
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		count = sqlite3_column_int64(st, 0);
		total = sqlite3_column_type(st, 1) == SQLITE_NULL ? 0 : sqlite3_column_double(st, 1);
	}
	sqlite3_finalize(st);
	if (!count)
		return json_pack("{s:s}", "na", "The snapshot's trace holds no allocation alive at"
				 " its end.");
	m = json_pack("{s:I, s:f, s:I}", "allocations", (json_int_t)count, "bytes", total,
		      "stacks", (json_int_t)r_int(c, "SELECT count(*) FROM (SELECT 1 FROM alloc"
						  " WHERE state = 'live'" LATEST
						  " GROUP BY device, stack_id)", 0));
	st = q_try(c->db, "SELECT device, stack_id, count(*) AS allocations, sum(size) AS bytes,"
		   " max(size) AS largest FROM alloc WHERE state = 'live'" LATEST
		   " GROUP BY device, stack_id ORDER BY sum(size) DESC LIMIT 25");  /* STACKS_CAP */
	if (!st) {
		json_object_set_new(m, "na", json_string("The <code>alloc</code> table lacks the"
							 " expected columns."));
		return m;
	}
	json_object_set_new(m, "top", q_rows_next(st, -1));
	sqlite3_finalize(st);
	stack_frames(c, json_object_get(m, "top"));
	return m;
}

/* A stack's frames, innermost first, those past FRAMES_SHOWN folded. */
static void html_frames(struct strbuf *sb, const json_t *s)
{
	const json_t *frames = json_object_get(s, "frames"), *f;
	size_t i, n = json_array_size(frames);

	strbuf_addstr(sb, "<div class=frames>");
	json_array_foreach(frames, i, f) {
		if (i == FRAMES_SHOWN)
			strbuf_addstr(sb, "<details><summary>more frames</summary>");
		strbuf_addstr(sb, "<code>");
		h_key(sb, f, "name");
		strbuf_addstr(sb, "</code> <span class=muted>");
		if (!jv_null(f, "file"))
			h_key(sb, f, "file");
		if (!jv_null(f, "line"))
			strbuf_addf(sb, ":%lld", (long long)jv_int_or_null(f, "line"));
		strbuf_addstr(sb, "</span><br>");
	}
	if (n > FRAMES_SHOWN)
		strbuf_addstr(sb, "</details>");
	if (jv_int_or_null(s, "frames_total") > (int64_t)n)
		strbuf_addf(sb, "<span class=more>%lld more frames</span>",
			    (long long)(jv_int_or_null(s, "frames_total") - (int64_t)n));
	if (!n)
		strbuf_addstr(sb, "<span class=muted>no stack recorded</span>");
	strbuf_addstr(sb, "</div>");
}

/* The stacks holding the most live memory, with their share. */
static void html_stacks(struct strbuf *sb, const json_t *top, double total)
{
	const json_t *s;
	double first = 0;
	size_t i;
	char buf[32];

	strbuf_addstr(sb, "<table class=stacks><tr><th class=n>#</th><th>device</th>"
			  "<th class=n>live bytes</th><th class=n>allocations</th>"
			  "<th class=n>largest</th><th>share</th><th>stack (innermost first)</th></tr>\n");
	json_array_foreach(top, i, s) {
		double sum = jv_real(json_object_get(s, "bytes"));
		if (!i)
			first = sum > 0 ? sum : 1;
		strbuf_addf(sb, "<tr><td class=n>%d</td><td>", (int)i + 1);
		h_key(sb, s, "device");
		strbuf_addstr(sb, "</td>");
		h_bytes_td(sb, json_object_get(s, "bytes"));
		h_num_td(sb, json_object_get(s, "allocations"));
		h_bytes_td(sb, json_object_get(s, "largest"));
		fmt_bytes(buf, sizeof(buf), sum);
		strbuf_addf(sb, "<td><div class=bar><span style=\"width:%.1f%%\"></span></div>"
			    "<span class=muted>%.1f %%</span></td><td>",
			    100.0 * sum / first, total > 0 ? 100.0 * sum / total : 0);
		if (!json_object_get(s, "frames"))
			strbuf_addstr(sb, "<span class=muted>no stack recorded</span>");
		else
			html_frames(sb, s);
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
}

/* The live memory in figures, then by stack, or why it is not known. */
void html_live_memory(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const json_t *top = json_object_get(m, "top");
	double total = jv_real(json_object_get(m, "bytes"));
	char buf[32];

	(void)c;
	if (json_object_get(m, "allocations")) {
		fmt_bytes(buf, sizeof(buf), total);
		strbuf_addf(sb, "<p>%s live in %lld allocations from %lld stacks (allocation trace"
			    " of the snapshot; the trace is a ring buffer, so older allocations may"
			    " be missing).</p>\n", buf, (long long)jv_int_or_null(m, "allocations"),
			    (long long)jv_int_or_null(m, "stacks"));
	}
	if (!jv_null(m, "na")) {
		h_na(sb, json_string_value(json_object_get(m, "na")));
		return;
	}
	html_stacks(sb, top, total);
	h_more(sb, jv_int_or_null(m, "stacks"), (int64_t)json_array_size(top), "stacks");
}
