/*
 * segments.c -- the allocator's segments (HTML only): the latest
 * snapshot's segments as bars (length = size) with their allocated blocks,
 * each naming its holder on hover (the block's holder row, holders.c),
 * reserved against allocated, the largest free block and the
 * fragmentation it implies.
 */
#include "reports/section.h"
#include "reports/html_util.h"
#include "reports/summary.h"
#include "analyzer/store/query.h"
#include "lib/common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SEGMENTS_CAP 40
#define SEG_BAR_W 560

/* A run of allocated blocks being drawn: where, and who holds it. */
struct run {
	double x, w;
	int64_t blocks;
	double bytes, largest;
	struct strbuf holder;        /* the largest block's holder, raw */
};

/* The run's rect and what its <title> says: its blocks and the holder of
 * the largest one. */
static void run_end(json_t *runs, struct run *r)
{
	struct strbuf t = STRBUF_INIT;
	char b[32];

	if (r->x < 0)
		return;
	fmt_bytes(b, sizeof(b), r->bytes);
	if (r->blocks == 1)
		strbuf_addf(&t, "1 block, %s", b);
	else
		strbuf_addf(&t, "%lld blocks, %s", (long long)r->blocks, b);
	if (r->holder.len)
		strbuf_addf(&t, "; %s: %s", r->blocks == 1 ? "holder" : "largest block's holder",
			    r->holder.buf);
	json_array_append_new(runs, json_pack("[f, f, s]", r->x, r->w,
					      strbuf_failed(&t) ? "" : t.buf));
	strbuf_release(&t);
	strbuf_reset(&r->holder);
}

/* The used runs of one segment's bar of width pixels: an allocated block
 * closer than half a pixel to the run before merges into it while the run
 * is under 2 px (or it is under half a pixel itself), so a segment keeps
 * at most about SEG_BAR_W runs [x, w, title] whatever its block count; the title names
 * the holder (bl's third column, when it has one). Sets "used" and, when
 * the segment has blocks, "blocks": true. */
static void bar_runs(sqlite3_stmt *bl, json_t *seg, double width)
{
	double total = jv_real(json_object_get(seg, "total_size"));
	double scale = total > 0 ? width / total : 0, x = 0;
	struct run r = { -1, 0, 0, 0, 0, STRBUF_INIT };
	json_t *runs = json_array();
	int any = 0, labels = sqlite3_column_count(bl) > 2;

	sqlite3_bind_int64(bl, 1, jv_int(json_object_get(seg, "id")));
	while (sqlite3_step(bl) == SQLITE_ROW) {
		double size = sqlite3_column_double(bl, 0), w = size * scale;
		const char *state = (const char *)sqlite3_column_text(bl, 1);
		const char *holder = labels ? (const char *)sqlite3_column_text(bl, 2) : NULL;
		any = 1;
		if (state && !strncmp(state, "active", 6)) {
			/* tiny neighbours merge; a block of 2 px or more is its own */
			if (r.x >= 0 && x - (r.x + r.w) < 0.5 && (r.w < 2 || w < 0.5)) {
				r.w = x + w - r.x;
			} else {
				run_end(runs, &r);
				r.x = x;
				r.w = w;
				r.blocks = 0;
				r.bytes = r.largest = 0;
			}
			r.blocks++;
			r.bytes += size;
			if (size > r.largest) {
				r.largest = size;
				strbuf_reset(&r.holder);
				if (holder)
					strbuf_add_utf8(&r.holder, holder, strlen(holder));
				else if (strcmp(state, "active_allocated"))
					strbuf_addstr(&r.holder, "(pending free)");
			}
		}
		x += w;
	}
	sqlite3_reset(bl);
	run_end(runs, &r);
	strbuf_release(&r.holder);
	json_object_set_new(seg, "used", runs);
	if (any)
		json_object_set_new(seg, "blocks", json_true());
}

/* The first SEGMENTS_CAP segments of snapshot snap, largest first, each
 * with its bar's width and runs; NULL when the table lacks the columns. */
static json_t *bars(struct report_ctx *c, int64_t snap, double largest_seg)
{
	sqlite3_stmt *st = q_try(c->db, "SELECT id, device, total_size, allocated_size,"
				 " segment_type, stream FROM segment WHERE snapshot_id = ?"
				 " ORDER BY total_size DESC, id LIMIT 40");  /* SEGMENTS_CAP */
	sqlite3_stmt *bl = NULL;
	json_t *segs, *s;
	size_t i;

	if (!st)
		return NULL;
	sqlite3_bind_int64(st, 1, snap);
	segs = q_rows_next(st, -1);
	sqlite3_finalize(st);
	if (r_has_table(c, "block") && r_has_table(c, "holder"))
		bl = q_try(c->db, "SELECT b.size, b.state, h.label FROM block b LEFT JOIN holder h"
			   " ON h.id = b.holder_id WHERE b.segment_id = ? ORDER BY b.address, b.rowid");
	if (!bl && r_has_table(c, "block"))   /* a database without the holders */
		bl = q_try(c->db, "SELECT size, state FROM block WHERE segment_id = ?"
			   " ORDER BY address, rowid");
	json_array_foreach(segs, i, s) {
		double total = jv_real(json_object_get(s, "total_size"));
		double w = largest_seg > 0 ? SEG_BAR_W * total / largest_seg : 0;
		json_object_set_new(s, "width", json_real(w < 1 ? 1 : w));
		if (bl)
			bar_runs(bl, s, w < 1 ? 1 : w);
	}
	sqlite3_finalize(bl);
	return segs;
}

/* {"na": why}, or {"segments": N, "reserved", "allocated",
 * "largest_free" (when the blocks are known), "bars": [...] or "na"
 * (after the figures) when the segments cannot be listed}. */
json_t *load_segments(struct report_ctx *c)
{
	sqlite3_stmt *st;
	json_t *m, *b;
	int64_t snap, nseg = 0;
	double reserved = 0, allocated = 0, largest_seg = 0;

	if (!r_has_table(c, "segment") || !r_has_table(c, "snapshot") || !r_snapshots(c))
		return json_pack("{s:s}", "na", "Not available: no PyTorch memory snapshot was"
				 " ingested.");
	snap = r_int(c, "SELECT max(snapshot_id) FROM segment", OL_NULL);
	if (snap == OL_NULL)
		return json_pack("{s:s}", "na", "The snapshot holds no allocator segment.");
	st = r_prepare(c, "SELECT count(*), sum(total_size), sum(allocated_size), max(total_size)"
		       " FROM segment WHERE snapshot_id = ?");
	if (st) {
		sqlite3_bind_int64(st, 1, snap);
		if (sqlite3_step(st) == SQLITE_ROW) {
			nseg = sqlite3_column_int64(st, 0);
			reserved = sqlite3_column_double(st, 1);
			allocated = sqlite3_column_double(st, 2);
			largest_seg = sqlite3_column_double(st, 3);
		}
		sqlite3_finalize(st);
	}
	m = json_pack("{s:I, s:f, s:f}", "segments", (json_int_t)nseg, "reserved", reserved,
		      "allocated", allocated);
	if (r_has_table(c, "block")) {
		char sql[200];
		double free_max;
		snprintf(sql, sizeof(sql), "SELECT max(b.size) FROM block b JOIN segment s"
			 " ON s.id = b.segment_id WHERE s.snapshot_id = %lld"
			 " AND b.state = 'inactive'", (long long)snap);
		free_max = r_real(c, sql, NAN);
		if (isfinite(free_max))
			json_object_set_new(m, "largest_free", json_real(free_max));
	}
	b = bars(c, snap, largest_seg);
	if (b)
		json_object_set_new(m, "bars", b);
	else
		json_object_set_new(m, "na", json_string("The <code>segment</code> table lacks the"
							 " expected columns."));
	return m;
}

/* Reserved against allocated, the largest free block, fragmentation. */
static void html_figures(struct strbuf *sb, const json_t *m)
{
	double reserved = jv_real(json_object_get(m, "reserved"));
	double allocated = jv_real(json_object_get(m, "allocated"));
	char b1[32], b2[32], b3[32], b4[32];

	fmt_bytes(b1, sizeof(b1), reserved);
	fmt_bytes(b2, sizeof(b2), allocated);
	fmt_bytes(b3, sizeof(b3), reserved - allocated);
	strbuf_addf(sb, "<p>%lld segments reserve %s; %s allocated, <b>%s free inside"
		    " segments</b>", (long long)jv_int_or_null(m, "segments"), b1, b2, b3);
	if (json_object_get(m, "largest_free")) {
		double largest_free = jv_real(json_object_get(m, "largest_free"));
		fmt_bytes(b4, sizeof(b4), largest_free);
		strbuf_addf(sb, "; the largest free block is %s", b4);
		if (reserved - allocated > 0)
			strbuf_addf(sb, " (fragmentation %.0f %%: share of the free memory not in"
				    " the largest block)",
				    100.0 * (1 - largest_free / (reserved - allocated)));
	}
	strbuf_addstr(sb, ".</p>\n");
}

/* One segment: its label, and its bar at row y with its used runs. */
static void html_bar(struct strbuf *sb, const json_t *s, int y)
{
	double total = jv_real(json_object_get(s, "total_size"));
	double alloc = jv_real(json_object_get(s, "allocated_size"));
	double width = jv_real(json_object_get(s, "width"));
	const json_t *r;
	char b1[32], b2[32], b3[32];
	size_t i;

	fmt_bytes(b1, sizeof(b1), total);
	fmt_bytes(b2, sizeof(b2), alloc);
	strbuf_addf(sb, "<text x=0 y=%d class=sl>", y + 11);
	if (!jv_null(s, "device")) {
		strbuf_addstr(sb, "dev ");
		h_key(sb, s, "device");
		strbuf_addstr(sb, " ");
	}
	if (!jv_null(s, "segment_type")) {
		h_key(sb, s, "segment_type");
		strbuf_addstr(sb, " ");
	}
	if (total > 0)
		snprintf(b3, sizeof(b3), "%.0f%%", 100 * alloc / total);
	strbuf_addf(sb, "%s, %s used</text><g transform=\"translate(290 0)\"><title>segment"
		    " #%lld: %s, %s allocated</title>", b1, total > 0 ? b3 : "?",
		    (long long)jv_int(json_object_get(s, "id")), b1, b2);
	strbuf_addf(sb, "<rect x=0 y=%d width=%.1f height=14 class=free />", y, width);
	json_array_foreach(json_object_get(s, "used"), i, r) {
		strbuf_addf(sb, "<rect x=%.1f y=%d width=%.2f height=14 class=used><title>",
			    json_real_value(json_array_get(r, 0)), y,
			    json_real_value(json_array_get(r, 1)));
		h_val(sb, json_array_get(r, 2));
		strbuf_addstr(sb, "</title></rect>");
	}
	if (!json_object_get(s, "blocks") && alloc > 0)   /* no blocks: the allocated share */
		strbuf_addf(sb, "<rect x=0 y=%d width=%.1f height=14 class=used />", y,
			    alloc * (total > 0 ? width / total : 0));
	strbuf_addstr(sb, "</g>\n");
}

/* The figures, then the segments' bars, or why they cannot be shown. */
void html_segments(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const json_t *bars = json_object_get(m, "bars"), *s;
	int64_t nseg = jv_int_or_null(m, "segments");
	size_t i;

	(void)c;
	if (json_object_get(m, "segments"))
		html_figures(sb, m);
	if (!jv_null(m, "na")) {
		h_na(sb, json_string_value(json_object_get(m, "na")));
		return;
	}
	strbuf_addf(sb, "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" class=segs viewBox=\"0 0"
		    " %d %d\" role=img aria-label=\"allocator segments\">\n", 300 + SEG_BAR_W,
		    (int)(nseg < SEGMENTS_CAP ? nseg : SEGMENTS_CAP) * 20 + 4);
	json_array_foreach(bars, i, s)
		html_bar(sb, s, 2 + 20 * (int)i);
	strbuf_addstr(sb, "</svg><figcaption><span class=sw-used></span> allocated blocks"
			  " <span class=sw-free></span> free (inactive) blocks; bar length is the"
			  " segment's size</figcaption></figure>\n");
	h_more(sb, nseg, (int64_t)json_array_size(bars), "segments");
}
