/*
 * memray_bin.c -- a memray capture file: its header, then every record
 * to the end (docs/formats.md "memray capture files").
 *
 * Header versions 12 (memray 1.19) and 13 (1.20) are read; they differ
 * only by the module search paths 13 appends. Integers are the writer's
 * native little-endian sizes of a 64-bit build (int 4, size_t and long
 * 8): "memray\0", version i32, python version i32 (PY_VERSION_HEX),
 * native traces u8, file format u8 (0 all allocations, 1 aggregated),
 * stats {allocations, frames u64; start, end ms since the epoch i64},
 * command line (NUL-ended), pid i32, main thread id u64, skipped frames
 * u64, Python allocator u8, trace Python allocators u8, track object
 * lifetimes u8; v13: libdest, then site-packages and sys.path, each a
 * list of strings ended by an empty one.
 *
 * Each record starts with a type byte; its high bits carry flags for the
 * frequent ones (ALLOCATION 0b1ppppaaa, FRAME_PUSH 0b01uuuuue,
 * OBJECT_RECORD 0b001ppppc, FRAME_POP 0b0001nnnn). Addresses are kept in
 * a 15-entry recently-used cache (pppp 15: a delta-coded address >> 3
 * follows); thread, native frame and code first-line fields are deltas
 * from the previous record's. The walk follows every type to the TRAILER
 * (or the zero padding of a capture that was never closed) and keeps
 * only bounded state (memray_bin_agg.c).
 */
#include "parsers/tools/memray_bin.h"
#include "parsers/tools/memray_bin_internal.h"
#include "parsers/tools/memray_stats.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MB_CMD_MAX 4096
#define MB_NAME_MAX 1024

struct mb_header {
	int32_t version;
	uint32_t python_version;
	int native_traces, file_format;
	uint64_t n_allocations, n_frames;
	int64_t start_ms, end_ms;
	char cmd[MB_CMD_MAX];
	uint64_t cmd_len;
	int64_t pid;
	uint64_t main_tid, skipped_frames;
	int py_allocator, trace_python_allocators, track_object_lifetimes;
	char libdest[MB_NAME_MAX];
	uint64_t n_site_packages, n_sys_path;
};

struct mb_st {
	struct sink *s;
	struct mb_src src;
	struct mb_header h;
	struct mb_agg agg;
	/* delta-coded fields */
	uint64_t last_tid, last_ip, last_ptr, last_native;
	int64_t last_firstline;
	uint64_t recent[15];
	/* what the walk saw */
	const char *end;          /* "trailer", "padding", "end_of_content", "cut", "corrupt" */
	uint64_t end_off, records, rss_samples, objects, native_frames, mappings;
	uint64_t rss_max, last_rss_ms;
	int64_t rss_series, heap_series;
	char entity[32];
	char why[240];            /* what was wrong where the walk stopped */
	/* scratch for strings */
	char name[MB_NAME_MAX], file[MB_NAME_MAX];
	unsigned char *table;
	size_t table_cap;
};

static const char *const PY_ALLOCATORS[] = {
	NULL, "pymalloc", "pymalloc_debug", "malloc", "other", "mimalloc", "mimalloc_debug",
};

/* ---- the header ---- */

static int int_field(struct mb_src *src, size_t n, uint64_t *v)
{
	return mb_uint(src, n, v);
}

/* The fields after the version. 0, or -1 (cut) */
static int read_header_rest(struct mb_st *st)
{
	struct mb_header *h = &st->h;
	uint64_t v[4], x, len;
	int i;

	if (int_field(&st->src, 4, &x) < 0)
		return -1;
	h->python_version = (uint32_t)x;
	if (int_field(&st->src, 1, &x) < 0)
		return -1;
	h->native_traces = x != 0;
	if (int_field(&st->src, 1, &x) < 0)
		return -1;
	h->file_format = (int)x;
	for (i = 0; i < 4; i++)
		if (int_field(&st->src, 8, &v[i]) < 0)
			return -1;
	h->n_allocations = v[0];
	h->n_frames = v[1];
	h->start_ms = (int64_t)v[2];
	h->end_ms = (int64_t)v[3];
	if (mb_string(&st->src, h->cmd, sizeof(h->cmd), &h->cmd_len) < 0 ||
	    int_field(&st->src, 4, &x) < 0)
		return -1;
	h->pid = (int32_t)(uint32_t)x;
	if (int_field(&st->src, 8, &h->main_tid) < 0 ||
	    int_field(&st->src, 8, &h->skipped_frames) < 0 || int_field(&st->src, 1, &x) < 0)
		return -1;
	h->py_allocator = (int)x;
	if (int_field(&st->src, 1, &x) < 0)
		return -1;
	h->trace_python_allocators = x != 0;
	if (int_field(&st->src, 1, &x) < 0)
		return -1;
	h->track_object_lifetimes = x != 0;
	if (h->version < 13)
		return 0;
	if (mb_string(&st->src, h->libdest, sizeof(h->libdest), NULL) < 0)
		return -1;
	for (i = 0; i < 2; i++)
		for (;;) {
			if (mb_string(&st->src, NULL, 0, &len) < 0)
				return -1;
			if (!len)
				break;
			if (i)
				h->n_sys_path++;
			else
				h->n_site_packages++;
		}
	return 0;
}

/* Magic and version, then the rest. 1 read, 0 not readable (diagnosed),
 * -1 the sink failed. */
static int read_header(struct mb_st *st)
{
	char magic[7];
	uint64_t v;

	if (mb_read(&st->src, magic, 7) < 0 || memcmp(magic, "memray", 7)) {
		if (st->src.err[0])
			return sink_diagf(st->s, 0, st->src.off, OL_ERROR, "not a memray capture:"
					  " %s", st->src.err) < 0 ? -1 : 0;
		return sink_diagf(st->s, 0, 0, OL_ERROR, "not a memray capture: the content does"
				  " not start with \"memray\\0\"%s", st->src.lz4 ? " (an lz4 frame"
				  " of something else)" : "") < 0 ? -1 : 0;
	}
	if (mb_uint(&st->src, 4, &v) < 0)
		goto cut;
	st->h.version = (int32_t)(uint32_t)v;
	if (st->h.version != 12 && st->h.version != 13)
		return sink_diagf(st->s, 0, 7, OL_ERROR, "memray capture header version %d is not"
				  " one oomlens reads (12: memray 1.19, 13: memray 1.20); read it with"
				  " the memray that wrote it (memray stats --json)",
				  (int)st->h.version) < 0 ? -1 : 0;
	if (read_header_rest(st) < 0)
		goto cut;
	return 1;
cut:
	return sink_diagf(st->s, 0, st->src.off, OL_ERROR, "memray capture header cut at byte"
			  " %llu%s%s", (unsigned long long)st->src.off, st->src.err[0] ? ": " : "",
			  st->src.err) < 0 ? -1 : 0;
}

/* ---- records ---- */

/* Milliseconds since the epoch as a time: UTC, or no time at all when a
 * damaged capture's value is outside the years a ns clock holds. */
static struct ol_time ms_time(int64_t ms)
{
	struct ol_time t = ol_time_none();

	if (ms > 0 && ms < INT64_MAX / 1000000) {
		t.clock = OL_CLOCK_UTC;
		t.utc_ns = ms * 1000000;
	}
	return t;
}

/* An RSS sample (rss bytes, ms since the epoch) and the heap memray had
 * tracked then (OL_NULL: not known). 0, or -1 the sink failed. */
static int rss_sample(struct mb_st *st, uint64_t rss, int64_t ms, int64_t heap)
{
	struct ol_time t = ms_time(ms);

	if (!st->rss_series &&
	    (st->rss_series = sink_series(st->s, vocab_series_name(VS_PROC_RSS_BYTES), "bytes",
			st->entity)) < 0)
		return -1;
	if (sink_sample(st->s, st->rss_series, &t, (double)rss) < 0)
		return -1;
	if (heap != OL_NULL) {
		if (!st->heap_series && (st->heap_series = sink_series(st->s,
				vocab_series_name(VS_MEMRAY_HEAP_BYTES),
						"bytes", st->entity)) < 0)
			return -1;
		if (sink_sample(st->s, st->heap_series, &t, (double)heap) < 0)
			return -1;
	}
	st->rss_samples++;
	if (rss > st->rss_max)
		st->rss_max = rss;
	st->last_rss_ms = (uint64_t)ms;
	return 0;
}

/* A cached or delta-coded address (pppp of the type byte). 0 or -1. */
static int read_address(struct mb_st *st, unsigned idx, uint64_t *addr)
{
	int64_t d;

	if (idx != 15) {
		*addr = st->recent[idx];
		return 0;
	}
	if (mb_svarint(&st->src, &d) < 0)
		return -1;
	st->last_ptr += (uint64_t)d;
	*addr = st->last_ptr << 3;
	memmove(st->recent + 1, st->recent, 14 * sizeof(st->recent[0]));
	st->recent[0] = *addr;
	return 0;
}

/* ALLOCATION 0b1ppppaaa. 0, -1 cut, -2 corrupt (why set), -3 out of memory. */
static int rec_allocation(struct mb_st *st, unsigned flags)
{
	uint64_t addr, size = 0, x;
	unsigned allocator = flags & 7;
	int64_t d;

	if (read_address(st, (flags >> 3) & 15, &addr) < 0)
		return -1;
	if (!allocator) {
		if (mb_uint(&st->src, 1, &x) < 0)
			return -1;
		allocator = (unsigned)x;
		if (!allocator || allocator >= MB_ALLOCATORS) {
			snprintf(st->why, sizeof(st->why), "allocator %u unknown", allocator);
			return -2;
		}
	}
	if (st->h.native_traces && !mb_allocator_simple_free(allocator)) {
		if (mb_svarint(&st->src, &d) < 0)
			return -1;
		st->last_native += (uint64_t)d;
	}
	if (!mb_allocator_simple_free(allocator) && mb_varint(&st->src, &size) < 0)
		return -1;
	return mb_agg_alloc(&st->agg, allocator, addr, size) < 0 ? -3 : 0;
}

/* CODE_OBJECT: id, function, file, first line (delta), line table. */
static int rec_code(struct mb_st *st)
{
	uint64_t id, len;
	int64_t d;

	if (mb_varint(&st->src, &id) < 0 ||
	    mb_string(&st->src, st->name, sizeof(st->name), NULL) < 0 ||
	    mb_string(&st->src, st->file, sizeof(st->file), NULL) < 0 ||
	    mb_svarint(&st->src, &d) < 0 || mb_varint(&st->src, &len) < 0)
		return -1;
	st->last_firstline = mb_sat_add(st->last_firstline, d);
	if (len > (1u << 24)) {
		snprintf(st->why, sizeof(st->why), "a code object's line table of %llu bytes",
			 (unsigned long long)len);
		return -2;
	}
	if (len > st->table_cap) {
		unsigned char *p = realloc(st->table, len);
		if (!p)
			return -3;
		st->table = p;
		st->table_cap = len;
	}
	if (mb_read(&st->src, st->table, len) < 0)
		return -1;
	return mb_agg_code(&st->agg, id, st->name, st->file, st->last_firstline, st->table,
			   len) < 0 ? -3 : 0;
}

/* The record types without flags. 0, 1 the end, -1 cut, -2 corrupt, -3 memory. */
static int rec_plain(struct mb_st *st, unsigned type)
{
	uint64_t u, v;
	int64_t d;
	int c;

	switch (type) {
	case 0:  /* FILLER: the zero padding of a plain capture never closed */
		while ((c = mb_byte(&st->src)) == 0)
			;
		if (c < 0 && !st->src.err[0]) {
			st->end = "padding";
			return 1;
		}
		if (c < 0)
			return -1;
		snprintf(st->why, sizeof(st->why), "byte 0x%02x after zero padding", (unsigned)c);
		return -2;
	case 1:  /* TRAILER */
		st->end = "trailer";
		return 1;
	case 2:  /* MEMORY_RECORD: rss, ms since the header's start */
		if (mb_varint(&st->src, &u) < 0 || mb_varint(&st->src, &v) < 0)
			return -1;
		return rss_sample(st, u, mb_sat_add(st->h.start_ms, v > INT64_MAX ? INT64_MAX :
				 (int64_t)v), (int64_t)st->agg.heap) < 0 ?
		       -4 : 0;
	case 5:  /* NATIVE_TRACE_INDEX: ip, index (deltas) */
		st->native_frames++;
		if (mb_svarint(&st->src, &d) < 0)
			return -1;
		st->last_ip += (uint64_t)d;
		return mb_svarint(&st->src, &d) < 0 ? -1 : 0;
	case 6:  /* MEMORY_MAP_START */
		st->mappings++;
		return 0;
	case 7:  /* SEGMENT_HEADER: file, segment count, address; SEGMENTs follow */
		return mb_string(&st->src, NULL, 0, NULL) < 0 || mb_varint(&st->src, &u) < 0 ||
		       mb_read(&st->src, NULL, 8) < 0 ? -1 : 0;
	case 8:  /* SEGMENT: vaddr, memsz */
		return mb_read(&st->src, NULL, 8) < 0 || mb_varint(&st->src, &u) < 0 ? -1 : 0;
	case 10: /* THREAD_RECORD: the thread's name */
		return mb_string(&st->src, NULL, 0, NULL) < 0 ? -1 : 0;
	case 12: /* CONTEXT_SWITCH: thread id */
		if (mb_uint(&st->src, 8, &st->last_tid) < 0)
			return -1;
		return mb_agg_switch(&st->agg, st->last_tid) < 0 ? -3 : 0;
	case 14:
		return rec_code(st);
	}
	snprintf(st->why, sizeof(st->why), "record type %u unknown", type);
	return -2;
}

/* One record of an all-allocations capture; the codes of rec_plain, and
 * -4 when the sink failed. */
static int record(struct mb_st *st, unsigned t)
{
	uint64_t u, addr;
	int64_t d;

	if (t & 0x80)
		return rec_allocation(st, t & 0x7f);
	if (t & 0x40) {  /* FRAME_PUSH: code object id, instruction offset */
		if (mb_varint(&st->src, &u) < 0 || mb_svarint(&st->src, &d) < 0)
			return -1;
		mb_agg_push(&st->agg, u, d);
		return 0;
	}
	if (t & 0x20) {  /* OBJECT_RECORD */
		st->objects++;
		if (read_address(st, (t >> 1) & 15, &addr) < 0)
			return -1;
		if (st->h.native_traces && (t & 1)) {
			if (mb_svarint(&st->src, &d) < 0)
				return -1;
			st->last_native += (uint64_t)d;
		}
		return 0;
	}
	if (t & 0x10) {  /* FRAME_POP of (t & 15) + 1 frames */
		mb_agg_pop(&st->agg, (t & 15) + 1);
		return 0;
	}
	return rec_plain(st, t);
}

/* Aggregated captures (`memray run --aggregate`): the sums of the
 * high-water mark and of what was never freed. */
struct mb_aggr { uint64_t hwm_bytes, hwm_count, leaked_bytes, leaked_count, records; };

static uint64_t le64(const unsigned char *p)
{
	uint64_t x = 0;
	int i;

	for (i = 7; i >= 0; i--)
		x = x << 8 | p[i];
	return x;
}

/* One record of an aggregated capture; the codes of record(). */
static int record_aggregated(struct mb_st *st, unsigned t, struct mb_aggr *g)
{
	unsigned char b[72];
	uint64_t u, v, w;
	int64_t d;

	switch (t) {
	case 1:  /* MEMORY_SNAPSHOT: ms since the epoch, rss, heap (u64 each) */
		if (mb_uint(&st->src, 8, &u) < 0 || mb_uint(&st->src, 8, &v) < 0 ||
		    mb_uint(&st->src, 8, &w) < 0)
			return -1;
		if (w > st->agg.peak)
			st->agg.peak = w;
		return rss_sample(st, v, (int64_t)u, (int64_t)w) < 0 ? -4 : 0;
	case 2:  /* AGGREGATED_ALLOCATION: a 72-byte struct, its four u64 sums
		  * last: allocations and bytes at the high-water mark, leaked */
		if (mb_read(&st->src, b, sizeof(b)) < 0)
			return -1;
		g->records++;
		g->hwm_count += le64(b + 40);
		g->leaked_count += le64(b + 48);
		g->hwm_bytes += le64(b + 56);
		g->leaked_bytes += le64(b + 64);
		return 0;
	case 3:  /* PYTHON_TRACE_INDEX: frame id, parent index */
		return mb_varint(&st->src, &u) < 0 || mb_varint(&st->src, &v) < 0 ? -1 : 0;
	case 4:  /* PYTHON_FRAME_INDEX: id, code object, offset, entry flag */
		return mb_varint(&st->src, &u) < 0 || mb_varint(&st->src, &v) < 0 ||
		       mb_svarint(&st->src, &d) < 0 || mb_read(&st->src, NULL, 1) < 0 ? -1 : 0;
	case 13: /* SURVIVING_OBJECT: address >> 3, native frame when traced */
		st->objects++;
		if (mb_varint(&st->src, &u) < 0)
			return -1;
		return st->h.native_traces && mb_varint(&st->src, &u) < 0 ? -1 : 0;
	case 15: /* AGGREGATED_TRAILER */
		st->end = "trailer";
		return 1;
	}
	if (t == 0 || (t >= 5 && t <= 14 && t != 9 && t != 11))
		return rec_plain(st, t);
	snprintf(st->why, sizeof(st->why), "record type %u unknown", t);
	return -2;
}

/* Every record to the end; st->end and st->why say how it ended. 0, or
 * -1 when the sink failed or memory ran out. */
static int walk(struct mb_st *st, struct mb_aggr *g)
{
	uint64_t at;
	int c, r;

	for (;;) {
		at = st->src.off;
		if ((c = mb_byte(&st->src)) < 0) {
			st->end = st->src.err[0] ? "cut" : "end_of_content";
			st->end_off = at;
			return 0;
		}
		r = st->h.file_format == 1 ? record_aggregated(st, (unsigned)c, g)
					   : record(st, (unsigned)c);
		if (r == 0) {
			st->records++;
			continue;
		}
		st->end_off = at;
		if (r == 1)
			return 0;
		if (r == -1) {
			st->end = "cut";
			snprintf(st->why, sizeof(st->why), "record type 0x%02x cut%s%s", (unsigned)c,
				 st->src.err[0] ? ": " : "", st->src.err);
			return 0;
		}
		if (r == -2) {
			st->end = "corrupt";
			return 0;
		}
		return -1;
	}
}

static const char *py_allocator(int a)
{
	return a > 0 && a <= 6 ? PY_ALLOCATORS[a] : NULL;
}

/* The memray_capture event (docs/json.md). 0, or -1 the sink failed. */
static int capture_event(struct mb_st *st)
{
	const struct mb_header *h = &st->h;
	struct ol_event e;
	char pyver[32], summary[600];
	json_t *d;
	int64_t id;
	int complete = !strcmp(st->end, "trailer");

	snprintf(pyver, sizeof(pyver), "%u.%u.%u", h->python_version >> 24,
		 (h->python_version >> 16) & 255, (h->python_version >> 8) & 255);
	d = json_pack("{s:i, s:s, s:I, s:b, s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:b, s:I, s:I,"
		      " s:I, s:o, s:b, s:b, s:b, s:b, s:s, s:I, s:I, s:I, s:I, s:I, s:I}",
		      "version", (int)h->version, "python_version", pyver,
		      "python_version_hex", (json_int_t)h->python_version,
		      "native_traces", h->native_traces,
		      "file_format", h->file_format ? "aggregated" : "all_allocations",
		      "header_allocations", (json_int_t)h->n_allocations,
		      "header_frames", (json_int_t)h->n_frames,
		      "start_time_ms", (json_int_t)h->start_ms,
		      "end_time_ms", complete ? json_integer(h->end_ms) : json_null(),
		      "duration_s", complete ? json_real(((double)h->end_ms - (double)h->start_ms) /
							 1000.0)
					     : json_null(),
		      "command_line", ol_json_strn(h->cmd, strlen(h->cmd)),
		      "command_line_cut", h->cmd_len >= sizeof(h->cmd),
		      "pid", (json_int_t)h->pid, "main_tid", (json_int_t)h->main_tid,
		      "skipped_frames_on_main_tid", (json_int_t)h->skipped_frames,
		      "python_allocator", ol_json_str(py_allocator(h->py_allocator)),
		      "trace_python_allocators", h->trace_python_allocators,
		      "track_object_lifetimes", h->track_object_lifetimes,
		      "compressed", st->src.lz4, "complete", complete, "end", st->end,
		      "end_offset", (json_int_t)st->end_off,
		      "records", (json_int_t)st->records,
		      "rss_samples", (json_int_t)st->rss_samples,
		      "rss_max_bytes", (json_int_t)st->rss_max,
		      "threads", (json_int_t)st->agg.nthreads,
		      "code_objects", (json_int_t)st->agg.ncode);
	if (!d)
		return -1;
	if (h->version >= 13)
		json_object_set_new(d, "libdest", ol_json_strn(h->libdest, strlen(h->libdest)));
	if (st->why[0])
		json_object_set_new(d, "problem", json_string(st->why));
	memset(&e, 0, sizeof(e));
	e.kind = vocab_event_kind(VE_MEMRAY_CAPTURE);
	e.t = ms_time(h->start_ms);
	e.pid = h->pid;
	e.bytes = st->rss_samples ? (int64_t)st->rss_max : OL_NULL;
	e.line = 0;
	snprintf(summary, sizeof(summary), "memray capture (header v%d, Python %s) of pid %lld:"
		 " %.300s%s", (int)h->version, pyver, (long long)h->pid, h->cmd,
		 complete ? "" : " -- not closed: the process did not finish tracking");
	e.summary = summary;
	e.data = d;
	id = sink_event(st->s, &e);
	json_decref(d);
	return id < 0 ? -1 : 0;
}

/* The memray_stats event of what the records add up to, and the top
 * locations as holders. 0, or -1 the sink failed. */
static int stats_event(struct mb_st *st, const struct mb_aggr *g)
{
	const struct mb_agg *a = &st->agg;
	json_t *d, *al;
	unsigned i;
	int r;

	al = json_object();
	for (i = 1; i < MB_ALLOCATORS && al; i++)
		if (a->by_allocator[i])
			json_object_set_new(al, mb_allocator_name(i),
					    json_integer((json_int_t)a->by_allocator[i]));
	if (st->h.file_format == 1)
		d = json_pack("{s:s, s:o, s:o, s:I, s:o, s:I, s:I, s:I, s:I, s:I}",
			      "form", "capture_aggregated",
			      "total_allocations", json_null(), "total_allocated_bytes", json_null(),
			      "peak_bytes", (json_int_t)g->hwm_bytes, "allocators", json_null(),
			      "peak_allocations", (json_int_t)g->hwm_count,
			      "leaked_bytes", (json_int_t)g->leaked_bytes,
			      "leaked_allocations", (json_int_t)g->leaked_count,
			      "aggregated_records", (json_int_t)g->records,
			      "surviving_objects", (json_int_t)st->objects);
	else
		d = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:I, s:I,"
			      " s:I, s:I}",
			      "form", "capture",
			      "total_allocations", (json_int_t)a->n_alloc,
			      "total_allocated_bytes", (json_int_t)a->bytes_alloc,
			      "peak_bytes", (json_int_t)a->peak,
			      "deallocations", (json_int_t)a->n_dealloc,
			      "heap_at_end_bytes", (json_int_t)a->heap,
			      "allocators", al ? json_incref(al) : json_null(),
			      "untracked_allocations", (json_int_t)a->untracked,
			      "unmatched_munmaps", (json_int_t)a->unmatched_munmap,
			      "other_locations_bytes", (json_int_t)a->other_bytes,
			      "other_locations_allocations", (json_int_t)a->other_count,
			      "code_objects_dropped", (json_int_t)a->code_dropped,
			      "threads_dropped", (json_int_t)a->threads_dropped,
			      "object_records", (json_int_t)st->objects,
			      "native_frames", (json_int_t)st->native_frames);
	json_decref(al);
	if (!d)
		return -1;
	json_object_set_new(d, "top_location", json_null());
	json_object_set_new(d, "top_location_bytes", json_null());
	json_object_set_new(d, "top_python_location", json_null());
	json_object_set_new(d, "top_python_location_bytes", json_null());
	/* the holders first: they fill the top location fields */
	r = st->h.file_format == 1 ? 0 : mb_agg_holders(&st->agg, st->s, st->h.python_version, d);
	if (r == 0)
		r = memray_event(st->s, d, 0);
	json_decref(d);
	return r;
}

int memray_bin_parse(struct input *in, struct sink *s)
{
	struct mb_st *st = calloc(1, sizeof(*st));
	struct mb_aggr g;
	int r = -1, h;

	memset(&g, 0, sizeof(g));
	if (!st)
		return -1;
	st->s = s;
	st->end = "end_of_content";
	if (mb_src_open(&st->src, in) < 0 || mb_agg_init(&st->agg) < 0)
		goto out;
	if ((h = read_header(st)) <= 0) {
		r = h;
		goto out;
	}
	snprintf(st->entity, sizeof(st->entity), "pid:%lld", (long long)st->h.pid);
	if (st->h.file_format > 1) {
		r = sink_diagf(s, 0, 16, OL_ERROR, "memray capture file format %d unknown (0: all"
			       " allocations, 1: aggregated)", st->h.file_format) < 0 ? -1 : 0;
		goto out;
	}
	if (walk(st, &g) < 0)
		goto out;
	if (capture_event(st) < 0 || stats_event(st, &g) < 0)
		goto out;
	r = 2 + (int)(st->rss_samples > 0);
	if (!strcmp(st->end, "cut") || !strcmp(st->end, "corrupt")) {
		if (sink_diagf(s, 0, st->end_off, OL_ERROR, "memray capture %s at content byte %llu"
			       " (%s); the %llu records before it are kept", st->end,
			       (unsigned long long)st->end_off, st->why[0] ? st->why : st->end,
			       (unsigned long long)st->records) < 0)
			r = -1;
	} else if (strcmp(st->end, "trailer")) {
		if (sink_diagf(s, 0, st->end_off, OL_WARN, "memray capture ends at content byte %llu"
			       " without memray's trailer (%s): the process did not finish"
			       " tracking (killed?); the header's totals are from the start",
			       (unsigned long long)st->end_off, st->end) < 0)
			r = -1;
	}
out:
	mb_src_close(&st->src);
	mb_agg_free(&st->agg);
	free(st->table);
	free(st);
	return r;
}
