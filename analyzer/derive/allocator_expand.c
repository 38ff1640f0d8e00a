/*
 * allocator_expand.c -- expandable segments in the allocator model
 * (expandable_segments:True), and seeding the model with the segments
 * that existed before a replay. See allocator_model.h.
 *
 * An expandable segment is a virtual range reserved once per stream and
 * pool and mapped page by page (2 MiB pages for the small pool, 20 MiB
 * for the large one). Its blocks cover the whole range: mapped ones (free
 * or allocated) and unmapped ones. A cache miss maps pages at the lowest
 * address where free and unmapped space together hold the request, so a
 * freed tail is grown into instead of left behind; releasing the cache
 * unmaps every whole free page.
 */
#include "analyzer/derive/allocator_impl.h"

#include <stdlib.h>

/* Virtual range of a new expandable segment: 1 1/8 of what the device
 * lets the process have (the allocator reserves 1 1/8 of the GPU). */
static uint64_t es_span(const struct am_model *m, uint64_t page, uint64_t at_least)
{
	uint64_t span = m->s.capacity == AM_UNLIMITED || m->s.capacity > (1ULL << 50)
		? 1ULL << 44 : m->s.capacity + m->s.capacity / 8;

	if (span < at_least)
		span = at_least;
	return (span + page - 1) / page * page;
}

/* A new expandable segment of pool on stream, its range one unmapped
 * block at base (0: a new address). That block, or NULL. */
static struct am_block *es_new(struct am_model *m, int small, uint32_t stream, uint64_t base,
			       uint64_t at_least)
{
	struct am_es *es = calloc(1, sizeof(*es));
	struct am_block *b;

	if (!es) {
		m->nomem = 1;
		return NULL;
	}
	es->page = small ? AM_SMALL_BUFFER : AM_LARGE_BUFFER;
	es->span = es_span(m, es->page, at_least);
	es->small = small;
	es->stream = stream;
	if (!base) {
		base = m->next_va;
		m->next_va += es->span;
	}
	es->base = base;
	b = am__block_new(m, base, es->span, stream, small, es);
	if (!b) {
		free(es);
		return NULL;
	}
	es->next = m->es_list;
	m->es_list = es;
	b->mapped = 0;
	am__set_insert(m, b);
	return b;
}

static void es_release(struct am_model *m, struct am_block *b)
{
	struct am_es **p = &m->es_list;

	while (*p && *p != b->es)
		p = &(*p)->next;
	if (*p)
		*p = b->es->next;
	am__set_erase(m, b);
	free(b->es);
	am__block_del(m, b);
}

/* Whether free or unmapped blocks from b on hold size contiguous bytes. */
static int has_room(const struct am_block *b, uint64_t size)
{
	uint64_t bytes = 0;

	while (bytes < size && b && !b->allocated) {
		bytes += b->size;
		b = b->next;
	}
	return bytes >= size;
}

/* The lowest place in the expandable segments of pool on stream with room
 * for size: an unmapped block or the free block before it; a new
 * segment's range when none has room (find_expandable_block). */
static struct am_block *find_expandable(struct am_model *m, struct am_pool *pool,
					uint32_t stream, uint64_t size)
{
	struct am_key k = { stream, 0, 0, NULL };
	struct am_block *u, *c;

	for (u = am__lower(pool->unmapped, &k); u && u->stream == stream;
	     u = am__after(pool->unmapped, u)) {
		c = u->prev && !u->prev->allocated ? u->prev : u;
		if (has_room(c, size))
			return c;
	}
	return es_new(m, pool->small, stream, 0, size);
}

/* Map the first size bytes (whole pages) of unmapped block b (map_block).
 * 1 done, 0 the capacity does not allow it (nothing mapped). */
static int map_block(struct am_model *m, struct am_block *b, uint64_t size)
{
	uint64_t page = b->es->page, bytes = (size + page - 1) / page * page, at;
	struct am_block *rest;

	if (bytes > b->size)
		bytes = b->size;
	if (m->s.capacity != AM_UNLIMITED &&
	    (bytes > m->s.capacity || m->st.reserved > m->s.capacity - bytes))
		return 0;
	am__set_erase(m, b);
	if (bytes < b->size) {
		rest = am__block_new(m, b->addr + bytes, b->size - bytes, b->stream, b->small, b->es);
		if (!rest) {
			am__set_insert(m, b);
			return 0;
		}
		rest->mapped = 0;
		rest->prev = b;
		rest->next = b->next;
		if (rest->next)
			rest->next->prev = rest;
		b->next = rest;
		b->size = bytes;
		am__set_insert(m, rest);
	}
	b->mapped = 1;
	at = b->addr;
	am__merge(m, b, b->prev);
	am__merge(m, b, b->next);
	am__set_insert(m, b);
	am__reserve(m, bytes);
	am__emit(m, AM_SEG_MAP, at, bytes, b->stream);
	return 1;
}

struct am_block *am__expand(struct am_model *m, struct am_pool *pool, uint32_t stream,
			    uint64_t size)
{
	struct am_block *c = find_expandable(m, pool, stream, size), *nc;

	if (!c)
		return NULL;
	if (!c->mapped && !map_block(m, c, c->size < size ? c->size : size))
		return NULL;
	while (c->size < size) {
		nc = c->next;
		if (!nc || nc->mapped || nc->allocated)
			return NULL;
		if (!map_block(m, nc, size - c->size < nc->size ? size - c->size : nc->size))
			return NULL;
		c = nc;   /* nc took c over */
	}
	am__set_erase(m, c);
	return c;
}

/* A new block [addr, addr + size) spliced between prev and next. */
static struct am_block *splice_new(struct am_model *m, const struct am_block *like,
				   uint64_t addr, uint64_t size, struct am_block *prev,
				   struct am_block *next)
{
	struct am_block *b = am__block_new(m, addr, size, like->stream, like->small, like->es);

	if (!b)
		return NULL;
	b->prev = prev;
	b->next = next;
	if (prev)
		prev->next = b;
	if (next)
		next->prev = b;
	return b;
}

void am__unmap(struct am_model *m, struct am_block *b)
{
	struct am_es *es = b->es;
	uint64_t start = b->addr - es->base, end = start + b->size;
	uint64_t ub = (start + es->page - 1) / es->page * es->page, ue = end / es->page * es->page;
	uint64_t at, bytes;
	struct am_block *x;

	if (ub >= ue)
		return;
	am__set_erase(m, b);
	if (ub > start) {
		if (!(x = splice_new(m, b, b->addr, ub - start, b->prev, b))) {
			am__set_insert(m, b);
			return;
		}
		am__set_insert(m, x);
	}
	if (end > ue) {
		if (!(x = splice_new(m, b, es->base + ue, end - ue, b, b->next))) {
			am__set_insert(m, b);
			return;
		}
		am__set_insert(m, x);
	}
	b->addr = at = es->base + ub;
	b->size = bytes = ue - ub;
	b->mapped = 0;
	am__merge(m, b, b->prev);
	am__merge(m, b, b->next);
	am__set_insert(m, b);
	am__unreserve(m, bytes);
	am__emit(m, AM_SEG_UNMAP, at, bytes, b->stream);
	if (!b->prev && !b->next)
		es_release(m, b);
}

/* ---- seeding ---- */

/* The blocks of [addr, addr + size): live ranges allocated, the gaps free
 * (not yet in a set). *first, *last get the ends. 0 or -1. */
static int seed_run(struct am_model *m, uint64_t addr, uint64_t size, uint32_t stream, int small,
		    struct am_es *es, const struct am_range *live, size_t n, struct am_block **out,
		    struct am_block **first, struct am_block **last)
{
	uint64_t at = addr, end = addr + size;
	struct am_block *prev = NULL, *b;
	size_t i = 0;

	*first = NULL;
	while (at < end) {
		int is_live = i < n && live[i].addr == at;
		uint64_t len = is_live ? live[i].size : (i < n ? live[i].addr : end) - at;

		b = am__block_new(m, at, len, stream, small, es);
		if (!b)
			return -1;
		b->prev = prev;
		if (prev)
			prev->next = b;
		else
			*first = b;
		if (is_live) {
			b->allocated = 1;
			b->requested = live[i].requested;
			m->st.allocated += len;
			if (out)
				out[i] = b;
			i++;
		}
		prev = b;
		at += len;
	}
	*last = prev;
	if (m->st.allocated > m->st.peak_allocated)
		m->st.peak_allocated = m->st.allocated;
	return 0;
}

/* The unmapped block of an expandable segment of pool on stream that
 * holds [addr, addr + size), making a segment at addr when none holds
 * addr. NULL when the range cannot go there. */
static struct am_block *seed_hole(struct am_model *m, struct am_pool *pool, uint32_t stream,
				  uint64_t addr, uint64_t size)
{
	struct am_key k = { stream, 0, addr + 1, NULL };
	struct am_block *u = am__before(pool->unmapped, &k);
	struct am_es *es;

	for (es = m->es_list; es; es = es->next)
		if (es->stream == stream && es->small == pool->small && addr >= es->base &&
		    addr - es->base < es->span)
			break;
	if (!es)
		return es_new(m, pool->small, stream, addr, size);
	if ((addr - es->base) % es->page || size % es->page || !u || u->es != es ||
	    u->stream != stream || addr + size > u->addr + u->size)
		return NULL;
	return u;
}

int am_seed_segment(struct am_model *m, uint64_t addr, uint64_t size, uint32_t stream,
		    int small, int expandable, const struct am_range *live, size_t n_live,
		    struct am_block **out)
{
	struct am_pool *pool = &m->pools[small ? 0 : 1];
	struct am_block *first, *last, *u = NULL, *b, *nx, *stop;
	size_t i;

	if (!size || addr + size < addr || m->nomem)
		return -1;
	for (i = 0; i < n_live; i++)
		if (!live[i].size || live[i].addr < (i ? live[i - 1].addr + live[i - 1].size : addr) ||
		    live[i].addr + live[i].size > addr + size)
			return -1;
	if (expandable && !(u = seed_hole(m, pool, stream, addr, size)))
		return -1;
	if (seed_run(m, addr, size, stream, small, u ? u->es : NULL, live, n_live, out, &first,
		     &last) < 0)
		return -1;
	if (u) {
		/* cut [addr, addr + size) out of the unmapped block u */
		struct am_block *before = u->prev, *after = u->next, *rest;
		uint64_t u_end = u->addr + u->size;

		am__set_erase(m, u);
		if (u_end > addr + size) {
			rest = am__block_new(m, addr + size, u_end - addr - size, stream, small, u->es);
			if (!rest)
				return -1;
			rest->mapped = 0;
			rest->next = after;
			if (after)
				after->prev = rest;
			after = rest;
			am__set_insert(m, rest);
		}
		if (u->addr < addr) {
			u->size = addr - u->addr;
			before = u;
			am__set_insert(m, u);
		} else {
			am__block_del(m, u);
		}
		first->prev = before;
		if (before)
			before->next = first;
		last->next = after;
		if (after)
			after->prev = last;
	}
	stop = last->next;
	for (b = first; b != stop; b = nx) {
		nx = b->next;
		if (!b->allocated) {
			/* a free end next to free mapped space of the segment joins it */
			am__merge(m, b, b->prev);
			am__merge(m, b, b->next);
			am__set_insert(m, b);
		}
	}
	am__reserve(m, size);
	return 0;
}
