/*
 * allocator_impl.h -- the inside of the allocator model, shared by
 * allocator_model.c (pools, blocks, malloc and free, releasing cached
 * segments) and allocator_expand.c (expandable segments, seeding). Not a
 * public interface: everything else uses allocator_model.h.
 *
 * A block covers [addr, addr + size) of one segment; prev/next are its
 * neighbours in that segment (NULL at the ends). A free block that is
 * mapped sits in its pool's `blocks` set, ordered by (stream, size, addr)
 * as the allocator's BlockPool is, so the lower bound of (stream, size, 0)
 * is the best fit. An unmapped range of an expandable segment sits in the
 * pool's `unmapped` set, ordered by (stream, addr). Both sets are treaps
 * over the same links (a block is in at most one set).
 */
#ifndef OOMLENS_ALLOCATOR_IMPL_H
#define OOMLENS_ALLOCATOR_IMPL_H

#include "analyzer/derive/allocator_model.h"

/* An expandable segment: a virtual range of span bytes from base, mapped
 * in pages of page bytes. */
struct am_es {
	uint64_t base, span, page;
	uint32_t stream;
	int small;
	struct am_es *next;          /* the model's list */
};

struct am_block {
	/* first, in one cache line: what a tree descent reads */
	uint64_t hkey;                 /* (stream << 48) | size in the set's key (0 in `unmapped`) */
	uint64_t addr;
	struct am_block *ch[2], *tp;   /* treap children (left, right) and parent */
	uint32_t prio, stream;
	uint64_t size, requested;
	struct am_block *prev, *next;  /* neighbours in the segment */
	struct am_es *es;              /* NULL: a segment of its own (cudaMalloc) */
	int64_t gc_base;               /* pool's gc_calls when it became free */
	uint8_t allocated, mapped, small, inset;
} __attribute__((aligned(64)));

struct am_pool {
	struct am_block *blocks;       /* free mapped blocks */
	struct am_block *unmapped;     /* unmapped ranges of expandable segments */
	int64_t gc_calls;              /* get_free_blocks_call_count */
	int small;
};

struct am_slab;

struct am_model {
	struct am_settings s;
	am_seg_fn *fn;
	void *arg;
	am_place_fn *place;
	void *place_arg;
	struct am_pool pools[2];       /* [0] small, [1] large */
	struct am_stats st;
	struct am_es *es_list;
	uint64_t next_va;              /* where the next new segment goes */
	uint32_t rng;                  /* treap priorities */
	int nomem;
	struct am_block *spare;        /* free block structs */
	struct am_slab *slabs;
};

/* Search key of the sets; the block itself breaks ties (a placer may give
 * a segment the address of another one). NULL sorts first. */
struct am_key {
	uint32_t stream;
	uint64_t size, addr;
	const struct am_block *self;
};

/* ---- blocks and sets (allocator_model.c) ---- */
struct am_block *am__block_new(struct am_model *m, uint64_t addr, uint64_t size,
			       uint32_t stream, int small, struct am_es *es);
void am__block_del(struct am_model *m, struct am_block *b);
/* Put b in the free set of its pool (mapped) or its unmapped set. */
void am__set_insert(struct am_model *m, struct am_block *b);
void am__set_erase(struct am_model *m, struct am_block *b);
/* Smallest block of root >= k (NULL: none). */
struct am_block *am__lower(struct am_block *root, const struct am_key *k);
/* Smallest block > b's key (b in the set root); largest block < k. */
struct am_block *am__after(struct am_block *root, const struct am_block *b);
struct am_block *am__before(struct am_block *root, const struct am_key *k);
static inline struct am_pool *am__pool(struct am_model *m, const struct am_block *b)
{
	return &m->pools[b->small ? 0 : 1];
}
/* Merge src into dst when src is free and mapped like dst (try_merge_blocks);
 * the size taken over, or 0. */
uint64_t am__merge(struct am_model *m, struct am_block *dst, struct am_block *src);
void am__emit(struct am_model *m, enum am_seg_kind kind, uint64_t addr, uint64_t size,
	      uint32_t stream);
void am__reserve(struct am_model *m, uint64_t bytes);     /* reserved += bytes, peak */
void am__unreserve(struct am_model *m, uint64_t bytes);

/* ---- expandable segments (allocator_expand.c) ---- */
/* Grow an expandable segment of pool on stream until a free block of at
 * least size exists there (try_allocate_expandable_block); that block,
 * taken out of the free set, or NULL (capacity, or out of memory). */
struct am_block *am__expand(struct am_model *m, struct am_pool *pool, uint32_t stream,
			    uint64_t size);
/* Unmap the whole free pages of free block b (unmap_block); may free b's
 * expandable segment when nothing of it stays mapped. */
void am__unmap(struct am_model *m, struct am_block *b);

#endif
