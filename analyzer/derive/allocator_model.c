/*
 * allocator_model.c -- the caching allocator model (allocator_model.h):
 * the block pools, malloc and free, and what the allocator does on a
 * cache miss (garbage collection, a new segment, releasing cached
 * segments and retrying). Settings and rounding are in allocator_conf.c,
 * expandable segments and seeding in allocator_expand.c.
 *
 * The pools' free sets are treaps keyed (stream, size, addr), with parent
 * links: the lower bound of (stream, size, 0) is the allocator's best fit
 * (O(log b) for b cached blocks), taking a block out and stepping to the
 * next are O(1) expected.
 */
#include "analyzer/derive/allocator_impl.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define AM_SLAB 1024

struct am_slab {
	struct am_slab *next;
	struct am_block b[AM_SLAB];
};

/* ---- blocks and the sets ---- */

/* (stream, size) in one word: sizes stay below 2^48 (256 TiB). */
static uint64_t key_hi(uint32_t stream, uint64_t size)
{
	return (uint64_t)stream << 48 | (size < (1ULL << 48) ? size : (1ULL << 48) - 1);
}

/* 1 when block b sorts before key k. Written without branches: a tree
 * descent's turns cannot be predicted, its loads can. */
static int key_lt(const struct am_block *b, const struct am_key *k)
{
	uint64_t hb = b->hkey, hk = key_hi(k->stream, k->size);

	return (hb < hk) | ((hb == hk) & ((b->addr < k->addr) |
		((b->addr == k->addr) & ((uintptr_t)b < (uintptr_t)k->self))));
}

static void key_of(const struct am_block *b, struct am_key *k)
{
	k->stream = b->stream;
	k->size = b->hkey & ((1ULL << 48) - 1);
	k->addr = b->addr;
	k->self = b;
}

/* Lift x above its parent (a rotation), keeping key order. */
static void tp_rotate_up(struct am_block **root, struct am_block *x)
{
	struct am_block *p = x->tp, *g = p->tp;
	int side = p->ch[1] == x;       /* x is p's right child */

	p->ch[side] = x->ch[!side];
	if (x->ch[!side])
		x->ch[!side]->tp = p;
	x->ch[!side] = p;
	p->tp = x;
	x->tp = g;
	if (!g)
		*root = x;
	else
		g->ch[g->ch[1] == p] = x;
}

/* Insert at the leaf its key leads to, then lift it to heap order by
 * priority (expected fewer than two rotations). */
static void tp_insert(struct am_block **root, struct am_block *b)
{
	struct am_key k;
	struct am_block **link = root, *parent = NULL;

	key_of(b, &k);
	while (*link) {
		parent = *link;
		link = &parent->ch[key_lt(parent, &k)];
	}
	*link = b;
	b->tp = parent;
	b->ch[0] = b->ch[1] = NULL;
	while (b->tp && b->tp->prio < b->prio)
		tp_rotate_up(root, b);
}

/* Rotate b down to a leaf and cut it off: no search (expected O(1)). */
static void tp_erase(struct am_block **root, struct am_block *b)
{
	struct am_block *p;

	while (b->ch[0] || b->ch[1])
		tp_rotate_up(root, !b->ch[0] ? b->ch[1] : !b->ch[1] ? b->ch[0]
			     : b->ch[0]->prio > b->ch[1]->prio ? b->ch[0] : b->ch[1]);
	p = b->tp;
	if (!p)
		*root = NULL;
	else
		p->ch[p->ch[1] == b] = NULL;
	b->tp = NULL;
}

struct am_block *am__lower(struct am_block *t, const struct am_key *k)
{
	struct am_block *best = NULL;

	while (t) {
		int lt = key_lt(t, k);

		best = lt ? best : t;
		t = t->ch[lt];
	}
	return best;
}

struct am_block *am__after(struct am_block *t, const struct am_block *b)
{
	(void)t;
	if (b->ch[1]) {
		for (b = b->ch[1]; b->ch[0]; b = b->ch[0])
			;
		return (struct am_block *)b;
	}
	while (b->tp && b->tp->ch[1] == b)
		b = b->tp;
	return b->tp;
}

/* The block just before b in key order (b in a set), or NULL. */
static struct am_block *before_of(const struct am_block *b)
{
	if (b->ch[0]) {
		for (b = b->ch[0]; b->ch[1]; b = b->ch[1])
			;
		return (struct am_block *)b;
	}
	while (b->tp && b->tp->ch[0] == b)
		b = b->tp;
	return b->tp;
}

/* Make b, a free block in its pool's set, cover [addr, addr + size): in
 * place when its neighbours in key order stay below and above the new key,
 * else out of the set and back in. Either way it counts as freed now (gc). */
static void set_rekey(struct am_model *m, struct am_block *b, uint64_t addr, uint64_t size)
{
	struct am_key k = { b->stream, size, addr, b };
	struct am_block *lo = before_of(b), *hi = am__after(NULL, b);

	if ((!lo || key_lt(lo, &k)) && (!hi || !key_lt(hi, &k))) {
		b->addr = addr;
		b->size = size;
		b->hkey = key_hi(b->stream, size);
		b->gc_base = am__pool(m, b)->gc_calls;
		return;
	}
	am__set_erase(m, b);
	b->addr = addr;
	b->size = size;
	am__set_insert(m, b);
}

struct am_block *am__before(struct am_block *t, const struct am_key *k)
{
	struct am_block *best = NULL;

	while (t) {
		int lt = key_lt(t, k);

		best = lt ? t : best;
		t = t->ch[lt];
	}
	return best;
}

struct am_block *am__block_new(struct am_model *m, uint64_t addr, uint64_t size,
			       uint32_t stream, int small, struct am_es *es)
{
	struct am_block *b = m->spare;

	if (!b) {
		struct am_slab *sl = malloc(sizeof(*sl));
		size_t i;

		if (!sl) {
			m->nomem = 1;
			return NULL;
		}
		sl->next = m->slabs;
		m->slabs = sl;
		for (i = 0; i + 1 < AM_SLAB; i++)
			sl->b[i].next = &sl->b[i + 1];
		sl->b[AM_SLAB - 1].next = NULL;
		b = &sl->b[0];
	}
	m->spare = b->next;
	memset(b, 0, sizeof(*b));
	m->rng ^= m->rng << 13;
	m->rng ^= m->rng >> 17;
	m->rng ^= m->rng << 5;
	b->prio = m->rng;
	b->addr = addr;
	b->size = size;
	b->stream = stream;
	b->small = (uint8_t)small;
	b->es = es;
	b->mapped = 1;
	return b;
}

void am__block_del(struct am_model *m, struct am_block *b)
{
	b->next = m->spare;
	m->spare = b;
}

void am__set_insert(struct am_model *m, struct am_block *b)
{
	struct am_pool *pool = am__pool(m, b);

	assert(!b->inset && !b->allocated);
	b->hkey = key_hi(b->stream, b->mapped ? b->size : 0);
	b->ch[0] = b->ch[1] = NULL;
	if (b->mapped) {
		b->gc_base = pool->gc_calls;
		tp_insert(&pool->blocks, b);
	} else {
		tp_insert(&pool->unmapped, b);
	}
	b->inset = 1;
}

void am__set_erase(struct am_model *m, struct am_block *b)
{
	struct am_pool *pool = am__pool(m, b);

	assert(b->inset);
	tp_erase(b->mapped ? &pool->blocks : &pool->unmapped, b);
	b->inset = 0;
}

uint64_t am__merge(struct am_model *m, struct am_block *dst, struct am_block *src)
{
	uint64_t took;

	if (!src || src->allocated || src->mapped != dst->mapped || !src->inset)
		return 0;
	am__set_erase(m, src);
	if (dst->prev == src) {
		dst->addr = src->addr;
		dst->prev = src->prev;
		if (dst->prev)
			dst->prev->next = dst;
	} else {
		dst->next = src->next;
		if (dst->next)
			dst->next->prev = dst;
	}
	took = src->size;
	dst->size += took;
	am__block_del(m, src);
	return took;
}

void am__emit(struct am_model *m, enum am_seg_kind kind, uint64_t addr, uint64_t size,
	      uint32_t stream)
{
	struct am_seg_event ev;

	if (kind == AM_SEG_ALLOC || kind == AM_SEG_MAP)
		m->st.segment_allocs++;
	else
		m->st.segment_frees++;
	if (!m->fn)
		return;
	ev.kind = kind;
	ev.addr = addr;
	ev.size = size;
	ev.stream = stream;
	m->fn(m->arg, &ev);
}

void am__reserve(struct am_model *m, uint64_t bytes)
{
	m->st.reserved += bytes;
	if (m->st.reserved > m->st.peak_reserved)
		m->st.peak_reserved = m->st.reserved;
}

void am__unreserve(struct am_model *m, uint64_t bytes)
{
	m->st.reserved = m->st.reserved > bytes ? m->st.reserved - bytes : 0;
}

/* Whether bytes more can be reserved: the memory fraction, the device. */
static int room_for(const struct am_model *m, uint64_t fraction_bytes, uint64_t device_bytes)
{
	uint64_t r = m->st.reserved;

	if (m->s.allowed && (fraction_bytes > m->s.allowed || r > m->s.allowed - fraction_bytes))
		return 0;
	return m->s.capacity == AM_UNLIMITED ||
	       (device_bytes <= m->s.capacity && r <= m->s.capacity - device_bytes);
}

/* Address for a new segment of size bytes: above every real address. */
static uint64_t new_address(struct am_model *m, uint64_t size)
{
	uint64_t a = m->next_va;

	m->next_va += (size + AM_ROUND_LARGE - 1) / AM_ROUND_LARGE * AM_ROUND_LARGE;
	return a;
}

/* ---- the model ---- */

struct am_model *am_new(const struct am_settings *s, am_seg_fn *fn, void *arg)
{
	struct am_model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->s = *s;
	m->fn = fn;
	m->arg = arg;
	m->pools[0].small = 1;
	m->next_va = 1ULL << 48;
	m->rng = 0x9e3779b9u;
	return m;
}

void am_destroy(struct am_model *m)
{
	struct am_slab *sl;
	struct am_es *es;

	if (!m)
		return;
	while ((sl = m->slabs)) {
		m->slabs = sl->next;
		free(sl);
	}
	while ((es = m->es_list)) {
		m->es_list = es->next;
		free(es);
	}
	free(m);
}

void am_set_placer(struct am_model *m, am_place_fn *fn, void *arg)
{
	m->place = fn;
	m->place_arg = arg;
}

int am_nomem(const struct am_model *m)
{
	return m->nomem;
}

const struct am_stats *am_stats(const struct am_model *m)
{
	return &m->st;
}

uint64_t am_block_addr(const struct am_block *b)
{
	return b->addr;
}

uint64_t am_block_size(const struct am_block *b)
{
	return b->size;
}

/* Bytes a free block can grow to: itself and the unmapped range after it. */
static uint64_t expandable_size(const struct am_block *b)
{
	return b->size + (b->next && !b->next->mapped ? b->next->size : 0);
}

/* The cached block a request of size on stream gets (get_free_block),
 * still in the free set (alloc_found takes it out); NULL when none may
 * serve it. take: a real request (counted for garbage collection). */
static struct am_block *get_free_block(struct am_model *m, struct am_pool *pool,
				       uint32_t stream, uint64_t size, int take)
{
	struct am_key k = { stream, size, 0, NULL };
	struct am_block *b, *nx;
	uint64_t ms = m->s.max_split_size;

	if (take && m->s.allowed && m->s.gc_threshold > 0)
		pool->gc_calls++;
	b = am__lower(pool->blocks, &k);
	if (!b || b->stream != stream)
		return NULL;
	if (b->es && m->s.expandable) {
		/* best fit counts what a block at the end of a segment can grow to */
		while (b->es && (nx = am__after(pool->blocks, b)) && nx->stream == stream &&
		       expandable_size(nx) < expandable_size(b))
			b = nx;
	} else if (b->es) {
		/* expandable segments turned off: only ordinary segments */
		do
			b = am__after(pool->blocks, b);
		while (b && b->es && b->stream == stream);
		if (!b || b->stream != stream)
			return NULL;
	}
	if (size < ms && b->size >= ms)
		return NULL;          /* an oversize block for a small request */
	if (size >= ms && b->size - size >= m->s.max_non_split_rounding)
		return NULL;          /* oversize, but too much larger */
	return b;
}

static int should_split(const struct am_model *m, const struct am_block *b, uint64_t size)
{
	uint64_t remaining = b->size - size;

	if (b->small || m->s.expandable)
		return remaining >= AM_MIN_BLOCK;
	return size < m->s.max_split_size && remaining > AM_SMALL_SIZE;
}

/* Hand out b (a cached block, still in the free set, or a new one) for a
 * rounded request of size, splitting the rest off when the rules allow
 * (alloc_found_block): the rest stays in the set. */
static struct am_block *alloc_found(struct am_model *m, struct am_block *b, uint32_t stream,
				    uint64_t size, uint64_t requested)
{
	if (should_split(m, b, size)) {
		struct am_block *nb = am__block_new(m, b->addr, size, stream, b->small, b->es);

		if (!nb) {
			if (!b->inset)
				am__set_insert(m, b);
			return NULL;
		}
		nb->prev = b->prev;
		if (nb->prev)
			nb->prev->next = nb;
		nb->next = b;
		b->prev = nb;
		if (b->inset) {
			set_rekey(m, b, b->addr + size, b->size - size);
		} else {
			b->addr += size;
			b->size -= size;
			am__set_insert(m, b);
		}
		b = nb;
	} else if (b->inset) {
		am__set_erase(m, b);
	}
	b->allocated = 1;
	b->requested = requested;
	m->st.allocated += b->size;
	if (m->st.allocated > m->st.peak_allocated)
		m->st.peak_allocated = m->st.allocated;
	return b;
}

/* A new segment for a cache miss of size (alloc_block): cudaMalloc of
 * alloc bytes, or growing an expandable segment. NULL when it fails. */
static struct am_block *alloc_block(struct am_model *m, struct am_pool *pool, uint32_t stream,
				    uint64_t size, uint64_t alloc)
{
	struct am_block *b;
	uint64_t at;

	if (m->s.allowed && !room_for(m, alloc, 0))
		return NULL;
	if (m->s.expandable)
		return am__expand(m, pool, stream, size);
	if (!room_for(m, 0, alloc))
		return NULL;
	at = m->place ? m->place(m->place_arg, alloc, stream) : 0;
	b = am__block_new(m, at ? at : new_address(m, alloc), alloc, stream, pool->small, NULL);
	if (!b)
		return NULL;
	am__reserve(m, alloc);
	am__emit(m, AM_SEG_ALLOC, b->addr, alloc, stream);
	return b;
}

/* cudaFree a cached segment that is one free block (release_block). */
static void release_block(struct am_model *m, struct am_block *b)
{
	am__set_erase(m, b);
	am__unreserve(m, b->size);
	am__emit(m, AM_SEG_FREE, b->addr, b->size, b->stream);
	am__block_del(m, b);
}

static int releasable(const struct am_block *b)
{
	return !b->es && !b->prev && !b->next;
}

/* With max_split_size set: free the smallest cached oversize block that
 * covers the request, else the largest ones until as much is freed
 * (release_available_cached_blocks). 1 when enough was freed. */
static int release_available(struct am_model *m, struct am_pool *pool, uint32_t stream,
			     uint64_t size)
{
	uint64_t ms = m->s.max_split_size, want = size < ms ? ms : size, total = 0;
	struct am_key k = { stream, want, 0, NULL };
	struct am_block *b, *prev;

	if (ms == AM_UNLIMITED)
		return 0;
	b = am__lower(pool->blocks, &k);
	if (b && b->stream == stream) {
		if (!releasable(b))
			return 0;
		release_block(m, b);
		return 1;
	}
	b = am__before(pool->blocks, &k);
	while (b && total < want && b->size >= ms && b->stream == stream) {
		struct am_key kb = { b->stream, b->hkey & ((1ULL << 48) - 1), b->addr, b };

		prev = am__before(pool->blocks, &kb);
		if (releasable(b)) {
			total += b->size;
			release_block(m, b);
		}
		b = prev;
	}
	return total >= want;
}

/* Every block of treap t in key order into a growing array (*v, *n, *cap).
 * -1 when out of memory. */
static int collect(struct am_model *m, struct am_block *t, struct am_block ***v, size_t *n,
		   size_t *cap)
{
	while (t) {
		if (collect(m, t->ch[0], v, n, cap) < 0)
			return -1;
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 64;
			struct am_block **nv = realloc(*v, nc * sizeof(**v));

			if (!nv) {
				m->nomem = 1;
				return -1;
			}
			*v = nv;
			*cap = nc;
		}
		(*v)[(*n)++] = t;
		t = t->ch[1];
	}
	return 0;
}

/* Free every unsplit cached segment of pool, unmap every free page of its
 * expandable segments (release_blocks). */
static void release_pool(struct am_model *m, struct am_pool *pool)
{
	struct am_block **v = NULL;
	size_t n = 0, cap = 0, i, keep = 0;

	if (collect(m, pool->blocks, &v, &n, &cap) < 0) {
		free(v);
		return;
	}
	for (i = 0; i < n; i++) {
		if (v[i]->es)
			v[keep++] = v[i];          /* unmapped after the plain ones */
		else if (!v[i]->prev && !v[i]->next)
			release_block(m, v[i]);
	}
	for (i = 0; i < keep; i++)
		am__unmap(m, v[i]);
	free(v);
}

static void release_cached(struct am_model *m)
{
	release_pool(m, &m->pools[1]);
	release_pool(m, &m->pools[0]);
}

/* With garbage_collection_threshold and a memory fraction: once reserved
 * passes the threshold, free unsplit large cached segments that went
 * unused for longer than the average, until enough is back
 * (garbage_collect_cached_blocks). */
static void garbage_collect(struct am_model *m)
{
	struct am_pool *pool = &m->pools[1];
	uint64_t thr = (uint64_t)(m->s.gc_threshold * (double)m->s.allowed), target, got = 0;
	struct am_block **v = NULL;
	size_t n, cap = 0, i;
	double total_age = 0;
	int count = 0, freed = 1;

	if (m->st.reserved <= thr)
		return;
	target = m->st.reserved - thr;
	n = 0;
	if (collect(m, pool->blocks, &v, &n, &cap) < 0)
		goto done;
	for (i = 0; i < n; i++)
		if (releasable(v[i])) {
			total_age += (double)(pool->gc_calls - v[i]->gc_base);
			count++;
		}
	while (got < target && freed && count > 0) {
		double age = total_age / count;

		freed = 0;
		for (i = 0; i < n; i++) {
			struct am_block *b = v[i];
			double b_age;

			if (!b || !releasable(b))
				continue;
			b_age = (double)(pool->gc_calls - b->gc_base);
			if (b_age >= age) {
				freed = 1;
				got += b->size;
				total_age -= b_age;
				count--;
				v[i] = NULL;
				release_block(m, b);
			}
		}
	}
done:
	free(v);
}

/* The bound with nothing cached: a request takes exactly its rounded size. */
static struct am_block *nocache_malloc(struct am_model *m, uint64_t size, uint32_t stream,
				       uint64_t requested)
{
	struct am_block *b;

	if (!room_for(m, size, size)) {
		m->st.ooms++;
		if (!m->st.first_failed_bytes)
			m->st.first_failed_bytes = size;
		return NULL;
	}
	b = am__block_new(m, new_address(m, size), size, stream, size <= AM_SMALL_SIZE, NULL);
	if (!b)
		return NULL;
	b->allocated = 1;
	b->requested = requested;
	am__reserve(m, size);
	m->st.allocated += size;
	if (m->st.allocated > m->st.peak_allocated)
		m->st.peak_allocated = m->st.allocated;
	return b;
}

struct am_block *am_malloc(struct am_model *m, uint64_t requested, uint32_t stream)
{
	uint64_t size, alloc;
	struct am_pool *pool;
	struct am_block *b;

	if (m->nomem)
		return NULL;
	m->st.mallocs++;
	size = am_round_size(&m->s, requested);
	if (m->s.no_cache)
		return nocache_malloc(m, size, stream, requested);
	pool = &m->pools[size <= AM_SMALL_SIZE ? 0 : 1];
	alloc = am_allocation_size(size);
	b = get_free_block(m, pool, stream, size, 1);
	if (!b) {
		if (m->s.allowed && m->s.gc_threshold > 0)
			garbage_collect(m);
		b = alloc_block(m, pool, stream, size, alloc);
		if (!b && !m->nomem && release_available(m, pool, stream, size))
			b = alloc_block(m, pool, stream, size, alloc);
		if (!b && !m->nomem) {
			release_cached(m);
			b = alloc_block(m, pool, stream, size, alloc);
		}
	}
	if (!b) {
		if (!m->nomem) {
			m->st.ooms++;
			if (!m->st.first_failed_bytes)
				m->st.first_failed_bytes = size;
		}
		return NULL;
	}
	return alloc_found(m, b, stream, size, requested);
}

/* A free neighbour b may merge with (try_merge_blocks' conditions). */
static int merges(const struct am_block *x, const struct am_block *b)
{
	return x && !x->allocated && x->inset && x->mapped == b->mapped;
}

void am_free(struct am_model *m, struct am_block *b)
{
	struct am_block *p, *n;
	uint64_t size;

	if (!b || !b->allocated)
		return;
	b->allocated = 0;
	m->st.allocated -= b->size;
	if (m->s.no_cache) {
		am__unreserve(m, b->size);
		am__block_del(m, b);
		return;
	}
	/* merged with free neighbours: one of them takes b over in place */
	p = merges(b->prev, b) ? b->prev : NULL;
	n = merges(b->next, b) ? b->next : NULL;
	if (!p && !n) {
		am__set_insert(m, b);
		return;
	}
	if (p) {
		size = p->size + b->size;
		if (n) {
			size += n->size;
			am__set_erase(m, n);
			p->next = n->next;
			am__block_del(m, n);
		} else {
			p->next = b->next;
		}
		if (p->next)
			p->next->prev = p;
		set_rekey(m, p, p->addr, size);
	} else {
		n->prev = b->prev;
		if (n->prev)
			n->prev->next = n;
		set_rekey(m, n, b->addr, n->size + b->size);
	}
	am__block_del(m, b);
}

void am_empty_cache(struct am_model *m)
{
	if (!m->s.no_cache && !m->nomem)
		release_cached(m);
}

int am_would_reuse(struct am_model *m, uint64_t requested, uint32_t stream)
{
	uint64_t size = am_round_size(&m->s, requested);

	if (m->s.no_cache)
		return 0;
	return get_free_block(m, &m->pools[size <= AM_SMALL_SIZE ? 0 : 1], stream, size, 0) != NULL;
}

int am_can_reserve(const struct am_model *m, uint64_t requested)
{
	uint64_t size = am_round_size(&m->s, requested), alloc = am_allocation_size(size);
	uint64_t page = size <= AM_SMALL_SIZE ? AM_SMALL_BUFFER : AM_LARGE_BUFFER;

	if (m->s.no_cache)
		return room_for(m, size, size);
	if (m->s.expandable)
		return room_for(m, alloc, (size + page - 1) / page * page);
	return room_for(m, alloc, alloc);
}
