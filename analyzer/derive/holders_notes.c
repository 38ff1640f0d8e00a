/*
 * holders_notes.c -- the rest of a snapshot's derivation (holders.h): its
 * pools (the default one and the private ones of CUDA graphs and
 * torch.cuda.MemPool) with their figures and largest holder, and
 * snapshot.recording: what the recorder kept, the replay's figures per
 * device, and for what is missing the _record_memory_history option that
 * would have recorded it.
 */
#include "analyzer/derive/holders.h"
#include "analyzer/store/timeline_parts.h"
#include "lib/strbuf.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_POOLS 256

struct pool_acc {
	struct tl_pool_row r;
	const char *pool;      /* the segments' text, "" when none */
};

/* The pool of segment g among pools[0..*n), added when new; NULL when
 * MAX_POOLS are taken. */
static struct pool_acc *pool_of(struct pool_acc *pools, size_t *n, const struct hd_segment *g,
				int64_t snapshot_id)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (pools[i].r.device == g->device && !strcmp(pools[i].pool, g->pool))
			return &pools[i];
	if (*n == MAX_POOLS)
		return NULL;
	memset(&pools[*n], 0, sizeof(pools[*n]));
	pools[*n].pool = g->pool;
	pools[*n].r.snapshot_id = snapshot_id;
	pools[*n].r.device = g->device;
	pools[*n].r.pool_id = g->pool[0] ? g->pool : NULL;
	pools[*n].r.private_pool = g->pool[0] && strcmp(g->pool, "0,0") != 0;
	pools[*n].r.largest_free_bytes = 0;
	pools[*n].r.top_stack_id = OL_NULL;
	return &pools[(*n)++];
}

/* The largest holder of pool p (seg_pool: each segment's pool, or -1):
 * its active blocks by stack. 0 or -1. */
static int pool_top(struct hd_write *w, const long *seg_pool, long p, struct tl_pool_row *r,
		    struct strbuf *label)
{
	struct tl_holders *h = w->h;
	struct hd_groups gs;
	size_t i, best = 0;

	memset(&gs, 0, sizeof(gs));
	for (i = 0; i < h->nblk; i++) {
		const struct hd_block *b = &h->blk[i];
		struct hd_group *g;
		if (b->state != HB_ALLOCATED || seg_pool[b->seg] != p)
			continue;
		if (!(g = hg_get(&gs, b->eff == OL_NULL ? HK_NO_STACK : HK_STACK, b->eff))) {
			hg_free(&gs);
			return tl_fail(w->tl, "out of memory");
		}
		g->bytes += b->size;
		g->count++;
	}
	for (i = 1; i < gs.n; i++)
		if (gs.g[i].bytes > gs.g[best].bytes)
			best = i;
	if (gs.n) {
		const struct hd_stackinfo *si = gs.g[best].kind == HK_STACK
			? hs_get(&w->stacks, w->tl, gs.g[best].stack) : NULL;
		r->top_stack_id = gs.g[best].stack;
		r->top_bytes = gs.g[best].bytes;
		r->top_allocations = gs.g[best].count;
		hd_label(&gs.g[best], si, 0, label);
		r->top_label = strbuf_failed(label) ? NULL : label->buf;
	}
	hg_free(&gs);
	return 0;
}

/* Each segment's pool (pools[] filled, *n of them), -1 past MAX_POOLS. */
static void segment_pools(const struct tl_holders *h, struct pool_acc *pools, size_t *n,
			  long *seg_pool)
{
	size_t i;

	for (i = 0; i < h->nseg; i++) {
		struct pool_acc *p = pool_of(pools, n, &h->seg[i], h->snapshot_id);
		seg_pool[i] = p ? (long)(p - pools) : -1;
		if (!p)
			continue;
		p->r.segments++;
		p->r.expandable_segments += h->seg[i].expandable;
		p->r.reserved_bytes += h->seg[i].total;
	}
}

int holders_pools(struct hd_write *w)
{
	struct tl_holders *h = w->h;
	struct pool_acc *pools = calloc(MAX_POOLS, sizeof(*pools));
	size_t n = 0, i, *nblocks = calloc(h->nseg ? h->nseg : 1, sizeof(*nblocks));
	long *seg_pool = calloc(h->nseg ? h->nseg : 1, sizeof(*seg_pool));
	int r = 0;

	if (!pools || !nblocks || !seg_pool) {
		r = tl_fail(w->tl, "out of memory");
		goto out;
	}
	segment_pools(h, pools, &n, seg_pool);
	for (i = 0; i < h->nblk; i++) {
		const struct hd_block *b = &h->blk[i];
		struct tl_pool_row *p;
		nblocks[b->seg]++;
		if (seg_pool[b->seg] < 0)
			continue;
		p = &pools[seg_pool[b->seg]].r;
		p->blocks++;
		if (b->state == HB_ALLOCATED) {
			p->allocated_bytes += b->size;
			p->requested_bytes += b->requested == OL_NULL ? 0 : b->requested;
		} else if (b->state == HB_PENDING) {
			p->pending_free_bytes += b->size;
		} else if (b->state == HB_INACTIVE) {
			p->inactive_bytes += b->size;
			if (b->size > p->largest_free_bytes)
				p->largest_free_bytes = b->size;
		}
	}
	for (i = 0; i < h->nseg; i++)   /* a segment without its blocks: its own figure */
		if (!nblocks[i] && seg_pool[i] >= 0)
			pools[seg_pool[i]].r.allocated_bytes += h->seg[i].allocated;
	for (i = 0; r == 0 && i < n; i++) {
		struct strbuf label = STRBUF_INIT;
		r = pool_top(w, seg_pool, (long)i, &pools[i].r, &label);
		if (r == 0 && tl_insert(w->tl, &timeline_pool_table, 0, &pools[i].r) < 0)
			r = -1;
		strbuf_release(&label);
	}
out:
	free(pools);
	free(nblocks);
	free(seg_pool);
	return r;
}

/* ---- the recording ---- */

/* What the live blocks say: counts and bytes. */
struct live_figures {
	int64_t blocks, bytes, no_stack, no_stack_bytes, from_trace, not_in_trace;
	int64_t pending, pending_bytes;
	int64_t events_stack, events_timed, traced_devices;
};

static void live_figures(const struct tl_holders *h, struct live_figures *f)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < h->nblk; i++) {
		const struct hd_block *b = &h->blk[i];
		if (b->state == HB_PENDING) {
			f->pending++;
			f->pending_bytes += b->size;
		}
		if (b->state != HB_ALLOCATED)
			continue;
		f->blocks++;
		f->bytes += b->size;
		f->from_trace += b->from_trace;
		f->not_in_trace += !b->in_trace;
		if (b->eff == OL_NULL) {
			f->no_stack++;
			f->no_stack_bytes += b->size;
		}
	}
	for (i = 0; h->dev && i < HD_MAX_DEVICES; i++) {
		f->events_stack += h->dev[i].events_stack;
		f->events_timed += h->dev[i].events_timed;
		f->traced_devices += h->dev[i].traced;
	}
}

/* Append {what, record_with} to missing. */
static void missing(json_t *m, const char *record_with, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void missing(json_t *m, const char *record_with, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (!strbuf_failed(&sb))
		json_array_append_new(m, json_pack("{s:s, s:s}", "what", sb.buf,
						   "record_with", record_with));
	strbuf_release(&sb);
}

#define RECORD_EARLY "torch.cuda.memory._record_memory_history(max_entries=100000)" \
	" before the model is loaded"

/* What the recorder did not keep, and the option that would have. */
static json_t *missing_data(const struct tl_holders *h, const struct live_figures *f)
{
	json_t *m = json_array();

	if (h->list_form)
		missing(m, "torch.cuda.memory._dump_snapshot(path) after "
			"torch.cuda.memory._record_memory_history(max_entries=100000)",
			"a segment list (torch.cuda.memory_snapshot()) holds no trace: no peak,"
			" no OOM and no timeline");
	else if (!h->trace_events)
		missing(m, "torch.cuda.memory._record_memory_history(enabled='all',"
			" max_entries=100000), then _dump_snapshot without include_traces=False",
			"the snapshot holds no trace events (recorded with enabled='state', or"
			" dumped with include_traces=False): holders at the snapshot only, no peak,"
			" no timeline");
	else if (h->trace_events == 1)
		missing(m, "torch.cuda.memory._record_memory_history(max_entries=100000)",
			"the trace holds a single event: max_entries was 1 (the legacy"
			" _record_memory_history(True) default)");
	if (f->no_stack)
		missing(m, RECORD_EARLY "; context='all' (the default) or 'alloc' keeps stacks",
			"%lld of %lld live blocks (%lld bytes) carry no allocation stack: allocated"
			" before history recording started%s", (long long)f->no_stack,
			(long long)f->blocks, (long long)f->no_stack_bytes,
			h->alloc_events_stack < h->alloc_events ? ", or recorded without stacks" : "");
	if (h->trace_events > 1 && (h->orphan_frees || (f->traced_devices && f->not_in_trace)))
		missing(m, "start recording before the model is loaded, and raise max_entries above"
			" the trace's events",
			"%lld frees and %lld live blocks are of allocations the trace does not hold"
			" (%lld events): made before recording started, or dropped by the ring buffer",
			(long long)h->orphan_frees, (long long)f->not_in_trace,
			(long long)h->trace_events);
	if (h->alloc_events && h->alloc_events_stack < h->alloc_events)
		missing(m, "torch.cuda.memory._record_memory_history(context='all') (or 'alloc')",
			"%lld of %lld alloc events carry no stack",
			(long long)(h->alloc_events - h->alloc_events_stack),
			(long long)h->alloc_events);
	if (h->trace_events > 1 && !f->events_timed)
		missing(m, "PyTorch 2.2 or later records time_us",
			"the trace has no times (PyTorch before 2.2): the timeline is drawn over the"
			" trace's order");
	return m;
}

int holders_recording(struct hd_write *w, int failed)
{
	static const char sql[] = "UPDATE snapshot SET recording = ? WHERE id = ?";
	struct tl_holders *h = w->h;
	struct live_figures f;
	sqlite3_stmt *st;
	json_t *o;
	char *text;
	int r;

	if (failed) {
		o = json_pack("{s:s}", "error", "out of memory while collecting the holders:"
			      " none were derived");
	} else {
		live_figures(h, &f);
		o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I,"
			      " s:I, s:O, s:o}",
			"live_blocks", (json_int_t)f.blocks, "live_bytes", (json_int_t)f.bytes,
			"live_blocks_without_stack", (json_int_t)f.no_stack,
			"bytes_without_stack", (json_int_t)f.no_stack_bytes,
			"stacks_from_trace", (json_int_t)f.from_trace,
			"live_blocks_not_in_trace", (json_int_t)f.not_in_trace,
			"pending_free_blocks", (json_int_t)f.pending,
			"pending_free_bytes", (json_int_t)f.pending_bytes,
			"trace_events", (json_int_t)h->trace_events,
			"events_with_stack", (json_int_t)f.events_stack,
			"events_with_time", (json_int_t)f.events_timed,
			"orphan_frees", (json_int_t)h->orphan_frees,
			"annotations", (json_int_t)h->nann,
			"alloc_events", (json_int_t)h->alloc_events,
			"devices", w->devices, "missing", missing_data(h, &f));
	}
	text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	if (!text)
		return tl_fail(w->tl, "out of memory");
	if (!(st = timeline_stmt(w->tl, sql))) {
		free(text);
		return -1;
	}
	sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, h->snapshot_id);
	r = tl_step(w->tl, st) < 0 ? -1 : 0;
	free(text);
	return r;
}
