/*
 * holders_collect.c -- what the holders of a snapshot are derived from,
 * kept in memory while its records are written (see holders.h): the
 * segments and blocks, each alloc row as an allocation on the timeline,
 * the trace's counts, first oom and annotate entries. About 56 bytes per
 * allocation lifetime; nothing is read back from the database.
 *
 * Out of memory while collecting is not an error of the artifact: the
 * holders are then not derived, and snapshot.recording says so.
 */
#include "analyzer/derive/holders.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for one more item of size bytes in *v (n used of *cap); 0 or -1. */
static int grow(void **v, size_t n, size_t *cap, size_t size)
{
	void *nv;
	size_t nc;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 256;
	nv = realloc(*v, nc * size);
	if (!nv)
		return -1;
	*v = nv;
	*cap = nc;
	return 0;
}

/* h when a snapshot is open and it did not run out of memory, else NULL. */
static struct tl_holders *open_holders(struct tl_holders *h)
{
	return h && h->snapshot_id && !h->failed ? h : NULL;
}

struct hd_device *holders_device(struct tl_holders *h, int64_t device)
{
	struct hd_device *d;

	if (device < 0 || device >= HD_MAX_DEVICES)
		return NULL;
	if (!h->dev && !(h->dev = calloc(HD_MAX_DEVICES, sizeof(*h->dev)))) {
		h->failed = 1;
		return NULL;
	}
	d = &h->dev[device];
	if (!d->used) {
		d->used = 1;
		d->oom_seq = -1;
		d->oom_size = d->oom_free = d->oom_ns = OL_NULL;
		d->t_first = d->t_last = OL_NULL;
		d->max_seq = -1;
	}
	return d;
}

void holders_discard(struct tl_holders *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; h->dev && i < HD_MAX_DEVICES; i++) {
		free(h->dev[i].e);
		free(h->dev[i].live);
	}
	for (i = 0; i < h->nann; i++)
		free(h->ann[i].text);
	free(h->dev);
	free(h->seg);
	free(h->blk);
	free(h->ann);
	memset(h, 0, sizeof(*h));
}

void holders_begin(struct tl_holders *h, int64_t snapshot_id, const char *form)
{
	holders_discard(h);
	h->snapshot_id = snapshot_id;
	h->list_form = form && !strcmp(form, "list");
}

void holders_segment(struct tl_holders *holders, const struct ol_segment *s)
{
	struct tl_holders *h = open_holders(holders);
	struct hd_segment *g;

	if (!h)
		return;
	if (grow((void **)&h->seg, h->nseg, &h->segcap, sizeof(*h->seg)) < 0) {
		h->failed = 1;
		return;
	}
	g = &h->seg[h->nseg++];
	g->device = s->device;
	g->total = s->total_size == OL_NULL ? 0 : s->total_size;
	g->allocated = s->allocated_size == OL_NULL ? 0 : s->allocated_size;
	g->expandable = s->is_expandable == 1;
	snprintf(g->pool, sizeof(g->pool), "%s", s->pool_id ? s->pool_id : "");
}

static int block_state(const char *s)
{
	if (!s)
		return HB_OTHER;
	if (!strcmp(s, "active_allocated"))
		return HB_ALLOCATED;
	if (!strcmp(s, "inactive"))
		return HB_INACTIVE;
	/* the docstring's name for the writer's active_pending_free */
	if (!strcmp(s, "active_pending_free") || !strcmp(s, "active_awaiting_free"))
		return HB_PENDING;
	return HB_OTHER;
}

void holders_block(struct tl_holders *holders, int64_t block_id, const struct ol_block *b)
{
	struct tl_holders *h = open_holders(holders);
	struct hd_block *k;

	if (!h || !h->nseg)
		return;
	if (grow((void **)&h->blk, h->nblk, &h->blkcap, sizeof(*h->blk)) < 0) {
		h->failed = 1;
		return;
	}
	k = &h->blk[h->nblk++];
	k->id = block_id;
	k->address = b->address;
	k->size = b->size == OL_NULL ? 0 : b->size;
	k->requested = b->requested_size;
	k->stack = b->stack_id;
	k->seg = h->nseg - 1;
	k->state = block_state(b->state);
	k->eff = b->stack_id;
	k->from_trace = 0;
	k->holder = OL_NULL;
}

/* An annotate entry: kept with its text to name the block it annotates. */
static void annotation(struct tl_holders *h, const struct ol_trace *t)
{
	struct hd_annot *a;

	if (h->nann == HD_MAX_ANNOTS || t->addr == OL_NULL)
		return;
	if (grow((void **)&h->ann, h->nann, &h->anncap, sizeof(*h->ann)) < 0) {
		h->failed = 1;
		return;
	}
	a = &h->ann[h->nann];
	a->device = t->device;
	a->addr = t->addr;
	a->seq = t->seq;
	a->text = t->user_metadata && *t->user_metadata ? strdup(t->user_metadata) : NULL;
	h->nann++;
}

void holders_trace(struct tl_holders *holders, const struct ol_trace *t)
{
	struct tl_holders *h = open_holders(holders);
	struct hd_device *d;
	const char *a = t->action;

	if (!h || !(d = holders_device(h, t->device)))
		return;
	h->trace_events++;
	d->events++;
	if (t->seq != OL_NULL && t->seq > d->max_seq)
		d->max_seq = t->seq;
	if (t->stack_id != OL_NULL)
		d->events_stack++;
	if (t->time_ns != OL_NULL) {
		d->events_timed++;
		if (d->t_first == OL_NULL || t->time_ns < d->t_first)
			d->t_first = t->time_ns;
		if (d->t_last == OL_NULL || t->time_ns > d->t_last)
			d->t_last = t->time_ns;
	}
	if (!a || !strchr("afo", a[0]))    /* alloc, free*, oom, annotate: the rest is counted */
		return;
	if (!strcmp(a, "alloc")) {
		d->traced = 1;
		h->alloc_events++;
		h->alloc_events_stack += t->stack_id != OL_NULL;
	} else if (!strcmp(a, "free_completed") || !strcmp(a, "free")) {
		d->traced = 1;
	} else if (!strcmp(a, "oom") && d->oom_seq < 0 && t->seq != OL_NULL) {
		d->oom_seq = t->seq;
		d->oom_size = t->size;
		d->oom_free = t->device_free;
		d->oom_ns = t->time_ns;
	} else if (!strcmp(a, "annotate")) {
		annotation(h, t);
	}
}

void holders_alloc(struct tl_holders *holders, const struct ol_alloc *a)
{
	struct tl_holders *h = open_holders(holders);
	struct hd_device *d;
	struct hd_elem *e;

	if (!h || !a->state || !(d = holders_device(h, a->device)))
		return;
	if (grow((void **)&d->e, d->n, &d->cap, sizeof(*d->e)) < 0) {
		h->failed = 1;
		return;
	}
	e = &d->e[d->n];
	e->size = a->size == OL_NULL ? 0 : a->size;
	e->stack = a->stack_id;
	e->kind = a->stack_id == OL_NULL ? HK_NO_STACK : HK_STACK;
	e->band = 0;
	/* indexes from the file (the flat form) may be anything: no event
	 * before the trace, none at a negative index */
	e->start = a->alloc_seq == OL_NULL || a->alloc_seq < 0 ? -1 : a->alloc_seq;
	e->end = a->free_seq == OL_NULL ? HD_NEVER : a->free_seq < 0 ? 0 : a->free_seq;
	e->t0 = a->alloc_ns;
	e->t1 = a->free_ns;
	if (!strcmp(a->state, "orphan_free")) {
		/* alive since before the trace; the stack is the free's, not an
		 * allocation's */
		e->start = -1;
		e->t0 = OL_NULL;
		e->stack = OL_NULL;
		e->kind = HK_NOT_IN_TRACE;
		h->orphan_frees++;
	} else if (!strcmp(a->state, "live") && a->addr != OL_NULL) {
		if (grow((void **)&d->live, d->nlive, &d->livecap, sizeof(*d->live)) < 0) {
			h->failed = 1;
			return;
		}
		d->live[d->nlive].addr = a->addr;
		d->live[d->nlive].elem = d->n;
		d->nlive++;
	}
	d->n++;
}
