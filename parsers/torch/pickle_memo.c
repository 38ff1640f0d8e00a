/*
 * pickle_memo.c -- the memo of the pickle decoder, bounded by what the data
 * references again.
 *
 * Recent entries live in a ring of PK_MEMO_WINDOW slots indexed by memo
 * index (CPython's indices are sequential, so a put and a fetch are one
 * array access). When a slot is reused, its entry moves to the pinned
 * table (a hash) if it was fetched at least once (keys, action names,
 * frame dicts and lists), and is dropped if it never was; a container the
 * consumer takes is dropped at once. A later fetch of a dropped entry is
 * an error diagnostic and yields None. Real snapshots fetch shared objects
 * within a few entries of their creation.
 *
 * The pinned entries of the lowest indices (the dict keys and action
 * names, which every trace entry fetches again) are kept in an array by
 * index instead of the hash: a fetch of one is a single, cache-warm
 * access, and never touches the ring slot a newer entry took long ago.
 * An index is held in one place at a time: the ring, or the pinned
 * entries (array or hash).
 */
#include "parsers/torch/pickle_internal.h"
#include "parsers/common/hashtab.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pinned table's slot of idx: where it is, or the free slot where it
 * would go (linear probing; mcap is a power of 2). */
static size_t memo_slot(struct dec *d, uint32_t idx)
{
	size_t m = d->mcap - 1, i = (idx * 2654435761u) & m;

	while (d->memo[i].used && d->memo[i].idx != idx)
		i = (i + 1) & m;
	return i;
}

static size_t memo_home(const void *slot)
{
	return ((const struct memo_ent *)slot)->idx * 2654435761u;
}

/* The pinned table as hashtab.h sees it. */
static struct probe_table memo_table(const struct dec *d)
{
	struct probe_table t = { d->memo, d->mcap, sizeof(*d->memo),
				 offsetof(struct memo_ent, used), memo_home };
	return t;
}

/* Double the pinned table. 0, or -1 (unchanged). */
static int memo_grow(struct dec *d)
{
	struct probe_table t = memo_table(d);

	if (probe_resize(&t, d->mcap ? d->mcap * 2 : 1024) < 0)
		return -1;
	d->memo = t.slots;
	d->mcap = t.cap;
	return 0;
}

/* Release an entry's value; the object no longer says it is in the memo. */
static void drop_value(struct memo_ent *e)
{
	if (pd_is_obj(e->v.type) && e->v.u.o->memo == (int64_t)e->idx)
		e->v.u.o->memo = -1;
	pk_release(&e->v);
}

/* Remove the entry at slot i of the pinned table. */
static void memo_del_slot(struct dec *d, size_t i)
{
	struct probe_table t = memo_table(d);

	drop_value(&d->memo[i]);
	probe_delete(&t, i);
	d->mn--;
}

/* Remove the pinned entry of a low index. */
static void low_del(struct dec *d, struct memo_ent *e)
{
	drop_value(e);
	e->used = 0;
	d->nlow--;
}

/* Store v at idx in the pinned entries (taking a reference). */
static int pin_put(struct dec *d, uint32_t idx, struct pk_val v, int fetched)
{
	struct memo_ent *e;

	if (idx < PD_MEMO_LOW) {
		if (!d->low && !(d->low = calloc(PD_MEMO_LOW, sizeof(*d->low)))) {
			pd_oom(d);
			return -1;
		}
		e = &d->low[idx];
	} else {
		if ((d->mn + 1) * 4 >= d->mcap * 3) {
			if (pd_over_budget(d, (d->mcap ? d->mcap : 1024) * sizeof(*d->memo)))
				return -1;
			if (memo_grow(d) < 0) {
				pd_oom(d);
				return -1;
			}
		}
		e = &d->memo[memo_slot(d, idx)];
	}
	if (e->used) {
		pk_release(&e->v);
	} else {
		if (d->mn + d->nlow >= PK_MAX_MEMO) {
			pd_fail(d, PK_CORRUPT, "memo larger than the limit (%s entries)", "33554432");
			return -1;
		}
		e->used = 1;
		e->idx = idx;
		if (idx < PD_MEMO_LOW)
			d->nlow++;
		else
			d->mn++;
	}
	e->fetched = fetched;
	e->v = v;
	if (idx > d->pin_max)
		d->pin_max = idx;
	return 0;
}

/* Empty a ring slot: a fetched entry moves to the pinned table, one never
 * fetched is dropped. */
static int ring_evict(struct dec *d, struct memo_ent *s)
{
	s->used = 0;
	if (s->fetched)
		return pin_put(d, s->idx, s->v, 1);
	drop_value(s);
	return 0;
}

/* Double the ring (up to PK_MEMO_WINDOW slots, by the caller). 0, or -1. */
static int ring_grow(struct dec *d)
{
	size_t nc = d->rcap ? d->rcap * 2 : 1024, i;
	struct memo_ent *nr = calloc(nc, sizeof(*nr));

	if (!nr)
		return -1;
	for (i = 0; i < d->rcap; i++)
		if (d->ring[i].used)
			nr[d->ring[i].idx & (nc - 1)] = d->ring[i];
	free(d->ring);
	d->ring = nr;
	d->rcap = nc;
	return 0;
}

/* Recent entries live in a ring indexed by idx (CPython's indices are
 * sequential): slot reuse drops the entries never fetched and moves the
 * fetched ones to the pinned table. */
int pd_memo_put(struct dec *d, uint32_t idx)
{
	struct memo_ent *s;
	struct pk_val v;

	if (!d->sp || d->sp == pd_floor(d)) {
		pd_fail(d, PK_CORRUPT, "%s with nothing to store", pk_opname(d->op));
		return -1;
	}
	v = d->stk[d->sp - 1];
	pk_incref(&v);
	if ((uint64_t)idx + 1 > d->mlen)
		d->mlen = (uint64_t)idx + 1;
	for (;;) {
		if (!d->rcap && ring_grow(d) < 0)
			goto oom;
		s = &d->ring[idx & (d->rcap - 1)];
		if (!s->used || s->idx == idx || d->rcap >= PK_MEMO_WINDOW)
			break;
		if (ring_grow(d) < 0)
			goto oom;
	}
	if (s->used && s->idx != idx) {
		if (s->idx > idx)   /* older than the window: straight to the table */
			return pin_put(d, idx, v, 0) < 0 ? (pk_release(&v), -1) : 0;
		if (ring_evict(d, s) < 0)
			goto failed;
	}
	if (s->used) {
		pk_release(&s->v);
	} else if (idx < PD_MEMO_LOW) {
		/* a re-put of a pinned index: the ring copy wins */
		if (d->low && d->low[idx].used)
			low_del(d, &d->low[idx]);
	} else if (d->mn && idx <= d->pin_max) {
		size_t i = memo_slot(d, idx);
		if (d->memo[i].used)
			memo_del_slot(d, i);
	}
	s->used = 1;
	s->idx = idx;
	s->fetched = 0;
	s->v = v;
	if (pd_is_obj(v.type))
		v.u.o->memo = idx;
	return 0;
oom:
	pd_oom(d);
failed:
	pk_release(&v);
	return -1;
}

/* The entry at idx in the ring or the pinned entries, or NULL. */
static struct memo_ent *memo_find(struct dec *d, uint32_t idx)
{
	if (idx < PD_MEMO_LOW && d->low && d->low[idx].used)
		return &d->low[idx];
	if (d->rcap) {
		struct memo_ent *s = &d->ring[idx & (d->rcap - 1)];
		if (s->used && s->idx == idx)
			return s;
	}
	if (d->mcap && idx >= PD_MEMO_LOW) {
		struct memo_ent *e = &d->memo[memo_slot(d, idx)];
		if (e->used)
			return e;
	}
	return NULL;
}

int pd_memo_get(struct dec *d, uint32_t idx)
{
	struct memo_ent *e = memo_find(d, idx);
	struct pk_val v;

	if (!e) {
		if (d->lost_fetches++ < 20) {
			char msg[160];
			snprintf(msg, sizeof(msg), "memo index %u is not held (never stored, or"
				 " dropped after being streamed or leaving the memo window);"
				 " using None", idx);
			sink_diagf(d->s, 0, d->op_off, OL_ERROR, "pickle offset %llu: %s",
				   (unsigned long long)d->op_off, msg);
		}
		v.type = PK_NONE;
		return pd_push(d, v);
	}
	e->fetched = 1;
	if (pd_is_obj(e->v.type))
		e->v.u.o->shared = 1;
	v = e->v;
	pk_incref(&v);
	return pd_push(d, v);
}

void pd_memo_forget(struct dec *d, const struct pk_val *v)
{
	struct pk_obj *o = v->u.o;
	struct memo_ent *e;

	if (!pd_is_container(v->type) || o->memo < 0 || o->shared)
		return;
	e = memo_find(d, (uint32_t)o->memo);
	if (!e || e->fetched || !pd_is_obj(e->v.type) || e->v.u.o != o)
		return;
	if (d->rcap && e >= d->ring && e < d->ring + d->rcap)
		ring_evict(d, e);
	else if (d->low && e >= d->low && e < d->low + PD_MEMO_LOW)
		low_del(d, e);
	else
		memo_del_slot(d, (size_t)(e - d->memo));
}

/* Release the used entries of a table of n slots, then the table. */
static void free_entries(struct memo_ent *t, size_t n)
{
	size_t i;

	for (i = 0; t && i < n; i++)
		if (t[i].used)
			pk_release(&t[i].v);
	free(t);
}

void pd_memo_free(struct dec *d)
{
	free_entries(d->memo, d->mcap);
	free_entries(d->ring, d->rcap);
	free_entries(d->low, d->low ? PD_MEMO_LOW : 0);
	d->memo = d->ring = d->low = NULL;
	d->mcap = d->rcap = 0;
	d->nlow = 0;
}
