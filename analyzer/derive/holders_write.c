/*
 * holders_write.c -- a snapshot's holders derived and written when it
 * ends (see holders.h): per device, the holders at the snapshot, at the
 * peak and at the OOM, the timeline of the top holders at the peak, each
 * block's holder; then the pools and the recording (holders_notes.c).
 */
#include "analyzer/derive/holders.h"
#include "analyzer/store/timeline_parts.h"
#include "lib/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HOLDERS_MAX 500      /* rows per snapshot, scope and device; the rest is one row */
#define ANNOTS_PER_HOLDER 5

/* One scope's holders of one device. */
struct hd_scope {
	const char *name;      /* "snapshot", "peak", "oom" */
	int64_t device, seq, ns, total;
};

static const char *const kind_names[HK_NKINDS] = { "stack", "no_stack", "not_in_trace", "other" };

/* The data of a holder row: its stack's depth and Python frames, blocks
 * whose stack came from the trace, annotations. Caller decrefs. */
static json_t *row_data(const struct hd_group *g, const struct hd_stackinfo *si, int64_t others)
{
	json_t *o = json_object();

	if (si) {
		json_object_set_new(o, "frames", json_integer(si->depth));
		json_object_set_new(o, "python_frames", json_integer(si->python));
	}
	if (g->from_trace)
		json_object_set_new(o, "stacks_from_trace", json_integer(g->from_trace));
	if (g->annots)
		json_object_set(o, "annotations", g->annots);
	if (g->kind == HK_OTHER)
		json_object_set_new(o, "stacks", json_integer(others));
	return o;
}

/* Insert group g as rank of scope s; its id goes to g->holder. */
static int write_group(struct hd_write *w, const struct hd_scope *s, struct hd_group *g,
		       int64_t rank, int64_t others)
{
	const struct hd_stackinfo *si = g->kind == HK_STACK ? hs_get(&w->stacks, w->tl, g->stack)
							    : NULL;
	struct strbuf label = STRBUF_INIT;
	struct tl_holder_row r;
	int64_t id;

	if (g->kind == HK_STACK && !si)
		return w->tl->errmsg[0] ? -1 : tl_fail(w->tl, "out of memory");
	hd_label(g, si, others, &label);
	memset(&r, 0, sizeof(r));
	r.tool = "torch_snapshot";
	r.scope = s->name;
	r.space = "device";
	r.device = s->device;
	r.bytes = g->bytes;
	r.allocations = g->count;
	r.rank = rank;
	r.stack_id = g->stack;
	r.label = strbuf_failed(&label) ? NULL : label.buf;
	r.line = OL_NULL;
	r.data = row_data(g, si, others);
	r.snapshot_id = w->h->snapshot_id;
	r.kind = kind_names[g->kind];
	r.requested_bytes = g->requested;
	r.largest_bytes = g->largest;
	r.share = s->total > 0 ? (double)g->bytes / (double)s->total : NAN;
	r.frame_file = si && si->user >= 0 ? si->file : NULL;
	r.frame_line = si && si->user >= 0 ? si->line : OL_NULL;
	r.frame_name = si && si->user >= 0 ? si->name : NULL;
	r.seq = s->seq;
	r.time_ns = s->ns;
	id = tl_insert(w->tl, &timeline_holder_table, 0, &r);
	json_decref(r.data);
	strbuf_release(&label);
	g->holder = id;
	return id < 0 ? -1 : 0;
}

/* The user's frame of g as the oracle writes it ("file:line name", or
 * "None"), into out. */
static void frame_text(struct hd_write *w, const struct hd_group *g, struct strbuf *out)
{
	const struct hd_stackinfo *si = g->kind == HK_STACK ? hs_get(&w->stacks, w->tl, g->stack)
							    : NULL;

	strbuf_reset(out);
	if (si && si->user >= 0)
		hd_label(g, si, 0, out);
	else
		strbuf_addstr(out, "None");
}

/* Holders of equal bytes and allocations among the first HOLDERS_MAX + 1
 * ranks are ordered by their user's frame, as the oracle orders them. */
static void order_ties(struct hd_write *w, const struct hd_groups *gs, size_t *rank)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	size_t i, j, n = gs->n < HOLDERS_MAX + 1 ? gs->n : HOLDERS_MAX + 1;

	for (i = 1; i < n; i++) {      /* insertion sort inside each run of ties */
		for (j = i; j > 0; j--) {
			const struct hd_group *x = &gs->g[rank[j - 1]], *y = &gs->g[rank[j]];
			size_t t;
			if (x->bytes != y->bytes || x->count != y->count)
				break;
			frame_text(w, x, &a);
			frame_text(w, y, &b);
			if (strcmp(a.buf, b.buf) <= 0)
				break;
			t = rank[j - 1];
			rank[j - 1] = rank[j];
			rank[j] = t;
		}
	}
	strbuf_release(&a);
	strbuf_release(&b);
}

/* Write the groups of scope s, largest first: HOLDERS_MAX rows, then one
 * for the rest (its groups take its id). 0 or -1. */
static int write_scope(struct hd_write *w, const struct hd_scope *s, struct hd_groups *gs)
{
	size_t *rank = hg_ranked(gs), i;
	struct hd_group rest;
	int r = 0;

	if (!rank)
		return tl_fail(w->tl, "out of memory");
	order_ties(w, gs, rank);
	memset(&rest, 0, sizeof(rest));
	rest.kind = HK_OTHER;
	rest.stack = OL_NULL;
	for (i = 0; r == 0 && i < gs->n; i++) {
		struct hd_group *g = &gs->g[rank[i]];
		if (i < HOLDERS_MAX) {
			r = write_group(w, s, g, (int64_t)i + 1, 0);
			continue;
		}
		rest.bytes += g->bytes;
		rest.requested += g->requested;
		rest.count += g->count;
		if (g->largest > rest.largest)
			rest.largest = g->largest;
	}
	if (r == 0 && gs->n > HOLDERS_MAX) {
		r = write_group(w, s, &rest, HOLDERS_MAX + 1, (int64_t)gs->n - HOLDERS_MAX);
		for (i = HOLDERS_MAX; i < gs->n; i++)
			gs->g[rank[i]].holder = rest.holder;
	}
	free(rank);
	return r;
}

/* Add size bytes of one allocation (requested req, from the trace or
 * not) to the group of (kind, stack). 0 or -1. */
static int add_to(struct hd_groups *gs, int kind, int64_t stack, int64_t size, int64_t req,
		  int from_trace, struct hd_group **out)
{
	struct hd_group *g = hg_get(gs, stack == OL_NULL && kind == HK_STACK ? HK_NO_STACK : kind,
				    stack);

	if (!g)
		return -1;
	g->bytes += size;
	g->requested += req == OL_NULL ? 0 : req;
	g->count++;
	if (size > g->largest)
		g->largest = size;
	g->from_trace += from_trace;
	if (out)
		*out = g;
	return 0;
}

static int cmp_live(const void *a, const void *b)
{
	const struct hd_live *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The live alloc row of d at addr, or NULL (d->live sorted by addr). */
static const struct hd_elem *live_at(const struct hd_device *d, int64_t addr)
{
	struct hd_live key = { addr, 0 };
	const struct hd_live *l;

	if (!d || !d->nlive)
		return NULL;
	l = bsearch(&key, d->live, d->nlive, sizeof(*d->live), cmp_live);
	return l ? &d->e[l->elem] : NULL;
}

/* The annotate entries at block b's address attached to its group. */
static void annotate(const struct tl_holders *h, int64_t device, const struct hd_block *b,
		     struct hd_group *g)
{
	size_t i;

	for (i = 0; i < h->nann; i++) {
		const struct hd_annot *a = &h->ann[i];
		json_t *t;
		size_t j;
		int dup = 0;
		if (a->device != device || a->addr != b->address || !a->text)
			continue;
		if (!g->annots)
			g->annots = json_array();
		json_array_foreach(g->annots, j, t)
			dup |= !strcmp(json_string_value(t), a->text);
		if (!dup && json_array_size(g->annots) < ANNOTS_PER_HOLDER)
			json_array_append_new(g->annots, ol_json_strn(a->text, strlen(a->text)));
	}
}

/* The holders at the snapshot: device's active blocks by stack, a block
 * without one taking its open alloc's. b->holder gets the group index. */
static int snapshot_groups(struct hd_write *w, int64_t device, struct hd_device *d,
			   struct hd_groups *gs, int64_t *total)
{
	struct tl_holders *h = w->h;
	size_t i;

	for (i = 0; i < h->nblk; i++) {
		struct hd_block *b = &h->blk[i];
		const struct hd_elem *e;
		struct hd_group *g;
		if (h->seg[b->seg].device != device || b->state != HB_ALLOCATED)
			continue;
		e = live_at(d, b->address);
		b->in_trace = e != NULL;
		if (b->stack == OL_NULL && e && e->stack != OL_NULL) {
			b->eff = e->stack;
			b->from_trace = 1;
		}
		if (add_to(gs, HK_STACK, b->eff, b->size, b->requested, b->from_trace, &g) < 0)
			return tl_fail(w->tl, "out of memory");
		if (h->nann)
			annotate(h, device, b, g);
		b->holder = (int64_t)(g - gs->g);
		*total += b->size;
	}
	return 0;
}

/* Each of device's active blocks points at its holder row. */
static int block_holders(struct hd_write *w, int64_t device, const struct hd_groups *gs)
{
	static const char sql[] = "UPDATE block SET holder_id = ? WHERE id = ?";
	struct tl_holders *h = w->h;
	size_t i;

	for (i = 0; i < h->nblk; i++) {
		struct hd_block *b = &h->blk[i];
		sqlite3_stmt *st;
		if (h->seg[b->seg].device != device || b->state != HB_ALLOCATED ||
		    b->holder == OL_NULL)
			continue;
		b->holder = gs->g[b->holder].holder;
		if (b->id <= 0 || b->holder <= 0)
			continue;
		if (!(st = timeline_stmt(w->tl, sql)))
			return -1;
		sqlite3_bind_int64(st, 1, b->holder);
		sqlite3_bind_int64(st, 2, b->id);
		if (tl_step(w->tl, st) < 0)
			return -1;
	}
	return 0;
}

/* The live blocks of device whose alloc the trace does not hold: alive
 * from before its first entry, at their requested size. */
static int add_initial_blocks(struct tl_holders *h, int64_t device, struct hd_device *d)
{
	size_t i;

	for (i = 0; i < h->nblk; i++) {
		const struct hd_block *b = &h->blk[i];
		struct hd_elem *e;
		if (h->seg[b->seg].device != device || b->state != HB_ALLOCATED ||
		    live_at(d, b->address))
			continue;
		if (d->n == d->cap) {
			size_t nc = d->cap ? d->cap * 2 : 256;
			struct hd_elem *ne = realloc(d->e, nc * sizeof(*ne));
			if (!ne)
				return -1;
			d->e = ne;
			d->cap = nc;
		}
		e = &d->e[d->n++];
		e->size = b->requested != OL_NULL ? b->requested : b->size;
		e->stack = b->stack;
		e->kind = b->stack == OL_NULL ? HK_NO_STACK : HK_STACK;
		e->start = -1;
		e->end = HD_NEVER;
		e->t0 = e->t1 = OL_NULL;
		e->band = 0;
	}
	return 0;
}

/* The holders of d alive at trace index x: just after it (the peak) or
 * just before it (the OOM). */
static int alive_groups(const struct hd_device *d, int64_t x, int after, struct hd_groups *gs)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		const struct hd_elem *e = &d->e[i];
		if (after ? !hd_alive_after(e, x) : !hd_alive_before(e, x))
			continue;
		if (add_to(gs, e->kind, e->stack, e->size, e->size, 0, NULL) < 0)
			return -1;
	}
	return 0;
}

/* The timeline of d's top holders at the peak (their groups in peak). */
static int write_timeline(struct hd_write *w, int64_t device, struct hd_device *d,
			  struct hd_groups *peak, struct hd_replay *r)
{
	int64_t band_holder[HD_BANDS + 1];
	size_t *rank = hg_ranked(peak), i;
	int c, k, nb = 0;

	if (!rank)
		return tl_fail(w->tl, "out of memory");
	for (i = 0; i < peak->n && nb < HD_BANDS; i++, nb++) {
		peak->g[rank[i]].band = nb;
		band_holder[nb] = peak->g[rank[i]].holder;
	}
	free(rank);
	band_holder[HD_BANDS] = OL_NULL;
	for (i = 0; i < d->n; i++) {
		struct hd_elem *e = &d->e[i];
		struct hd_group *g = hg_get(peak, e->stack == OL_NULL && e->kind == HK_STACK
						  ? HK_NO_STACK : e->kind, e->stack);
		if (!g)
			return tl_fail(w->tl, "out of memory");
		e->band = g->band;
	}
	hd_timeline(d, r);
	for (c = 0; c < HD_COLS; c++)
		for (k = 0; k <= HD_BANDS; k++) {
			struct tl_holder_point p = { w->h->snapshot_id, device, c, r->col_seq[c],
						     r->col_ns[c], band_holder[k], r->col_bytes[c][k] };
			if (k < HD_BANDS && k >= nb)
				continue;
			if (tl_insert_bulk(w->tl, &timeline_holder_timeline_table, sizeof(p), 0, &p) < 0)
				return -1;
		}
	return 0;
}

/* The replay's figures of device for snapshot.recording. */
static json_t *replay_figures(int64_t device, const struct hd_device *d,
			      const struct hd_replay *r)
{
	json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:o, s:s, s:I, s:I}",
		"device", (json_int_t)device, "events", (json_int_t)d->events,
		"initial_bytes", (json_int_t)r->initial, "peak_bytes", (json_int_t)r->peak,
		"peak_seq", (json_int_t)r->peak_seq, "peak_time_ns", ol_json_int(r->peak_ns),
		"axis", r->time_axis ? "time" : "index", "axis_from", (json_int_t)r->x0,
		"axis_to", (json_int_t)r->x1);

	if (o && d->oom_seq >= 0)
		json_object_set_new(o, "oom", json_pack("{s:I, s:o, s:o, s:I, s:o}",
			"seq", (json_int_t)d->oom_seq, "requested_bytes", ol_json_int(d->oom_size),
			"device_free_bytes", ol_json_int(d->oom_free),
			"live_bytes", (json_int_t)r->oom_live, "time_ns", ol_json_int(d->oom_ns)));
	return o;
}

/* Device's peak and OOM scopes and its timeline. 0 or -1. */
static int write_replay(struct hd_write *w, int64_t device, struct hd_device *d)
{
	struct hd_groups peak, oom;
	struct hd_replay *r = calloc(1, sizeof(*r));
	struct hd_scope s = { "peak", device, 0, 0, 0 };
	int rc = -1;

	memset(&peak, 0, sizeof(peak));
	memset(&oom, 0, sizeof(oom));
	if (!r || add_initial_blocks(w->h, device, d) < 0 || hd_replay(d, r) < 0 ||
	    alive_groups(d, r->peak_seq, 1, &peak) < 0 ||
	    (d->oom_seq >= 0 && alive_groups(d, d->oom_seq, 0, &oom) < 0)) {
		/* out of memory: the snapshot's other holders stand, the recording says so */
		json_array_append_new(w->devices, json_pack("{s:I, s:s}", "device",
			(json_int_t)device, "error", "out of memory while replaying the trace"));
		rc = 0;
		goto out;
	}
	s.seq = r->peak_seq;
	s.ns = r->peak_ns;
	s.total = r->peak;
	if (write_scope(w, &s, &peak) < 0)
		goto out;
	if (d->oom_seq >= 0) {
		struct hd_scope so = { "oom", device, d->oom_seq, d->oom_ns, r->oom_live };
		if (write_scope(w, &so, &oom) < 0)
			goto out;
	}
	if (write_timeline(w, device, d, &peak, r) < 0)
		goto out;
	json_array_append_new(w->devices, replay_figures(device, d, r));
	rc = 0;
out:
	if (r)
		hd_replay_free(r);
	free(r);
	hg_free(&peak);
	hg_free(&oom);
	return rc;
}

/* Every scope of one device. 0 or -1. */
static int write_device(struct hd_write *w, int64_t device)
{
	struct hd_device *d = w->h->dev && w->h->dev[device].used ? &w->h->dev[device] : NULL;
	struct hd_groups snap;
	struct hd_scope s = { "snapshot", device, OL_NULL, OL_NULL, 0 };
	int r;

	if (d && d->nlive)
		qsort(d->live, d->nlive, sizeof(*d->live), cmp_live);
	memset(&snap, 0, sizeof(snap));
	r = snapshot_groups(w, device, d, &snap, &s.total);
	if (r == 0 && snap.n)
		r = write_scope(w, &s, &snap);
	if (r == 0)
		r = block_holders(w, device, &snap);
	hg_free(&snap);
	if (r == 0 && d && d->traced)
		r = write_replay(w, device, d);
	return r;
}

int holders_end(struct timeline *tl, struct tl_holders *h, int64_t snapshot_id)
{
	struct hd_write w;
	char *seen;
	int64_t dv;
	size_t i;
	int r = 0;

	if (!h || h->snapshot_id != snapshot_id)
		return 0;
	memset(&w, 0, sizeof(w));
	w.tl = tl;
	w.h = h;
	w.devices = json_array();
	seen = calloc(HD_MAX_DEVICES, 1);
	if (!seen || !w.devices || h->failed) {
		r = holders_recording(&w, 1);
		goto out;
	}
	for (i = 0; i < h->nseg; i++)
		if (h->seg[i].device >= 0 && h->seg[i].device < HD_MAX_DEVICES)
			seen[h->seg[i].device] = 1;
	for (dv = 0; r == 0 && dv < HD_MAX_DEVICES; dv++)
		if (seen[dv] || (h->dev && h->dev[dv].used))
			r = write_device(&w, dv);
	if (r == 0)
		r = holders_pools(&w);
	if (r == 0)
		r = holders_recording(&w, 0);
out:
	free(seen);
	json_decref(w.devices);
	hs_free(&w.stacks);
	holders_discard(h);
	return r;
}
