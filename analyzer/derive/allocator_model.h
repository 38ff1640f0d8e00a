/*
 * allocator_model.h -- a model of PyTorch's CUDA caching allocator
 * (c10/cuda/CUDACachingAllocator.cpp, the "native" backend), for replaying
 * a recorded trace under other settings. Pure: no SQL, no I/O, no output.
 *
 * What it models, as the allocator documents and does it (one device):
 *  - sizes rounded to 512 bytes, or to power-of-two divisions with
 *    roundup_power2_divisions (per 1 MiB .. 32 GiB interval);
 *  - a small pool (requests <= 1 MiB, 2 MiB segments) and a large pool
 *    (20 MiB segments for requests under 10 MiB, else the request rounded
 *    to 2 MiB); free blocks kept per stream, best fit (smallest block that
 *    holds the request, lowest address among equals);
 *  - splitting: small-pool blocks (and every block with expandable
 *    segments) split when >= 512 bytes remain; large blocks only when more
 *    than 1 MiB remains and the request is under max_split_size; blocks of
 *    max_split_size or more ("oversize") serve only requests of at least
 *    max_split_size that they exceed by less than max_non_split_rounding;
 *  - coalescing with free neighbours on free;
 *  - on a cache miss: garbage collection (garbage_collection_threshold,
 *    only with a per-process memory fraction), a new segment, then freeing
 *    oversize cached blocks (max_split_size set) and retrying, then
 *    freeing every unsplit cached segment and retrying, then failing;
 *  - expandable_segments: one growing virtual range per stream and pool,
 *    mapped in 2 MiB (small) or 20 MiB (large) pages at the lowest address
 *    with room, free pages unmapped when the cache is released;
 *  - the capacity: what the device lets the process reserve (a new segment
 *    or page map that would pass it fails).
 * What it does not model: events and streams' synchronisation (a block is
 * returned to the cache when the trace says free_completed), CUDA graph
 * and MemPool private pools, IPC, other processes taking memory as the run
 * goes, free-memory callbacks.
 *
 * Addresses: segments seeded from a snapshot keep their addresses; new
 * ones get the placer's address (am_set_placer), else addresses above
 * 2^48 in increasing order, never reused, so they cannot meet real ones. Each segment the model allocates, frees, maps or unmaps is passed
 * to the caller's callback as it happens.
 *
 * Ownership: am_new() returns a model the caller frees with am_destroy();
 * blocks belong to the model (valid until freed with am_free() or the
 * model is destroyed). Out of host memory: the model sets a sticky flag
 * (am_nomem()), the operation that hit it fails, and the results must not
 * be used.
 */
#ifndef OOMLENS_ALLOCATOR_MODEL_H
#define OOMLENS_ALLOCATOR_MODEL_H

#include <stddef.h>
#include <stdint.h>

#define AM_MIN_BLOCK      512ULL              /* kMinBlockSize */
#define AM_SMALL_SIZE     (1ULL << 20)        /* kSmallSize: largest small request */
#define AM_SMALL_BUFFER   (2ULL << 20)        /* kSmallBuffer: small segment */
#define AM_LARGE_BUFFER   (20ULL << 20)       /* kLargeBuffer */
#define AM_MIN_LARGE      (10ULL << 20)       /* kMinLargeAlloc */
#define AM_ROUND_LARGE    (2ULL << 20)        /* kRoundLarge */
#define AM_UNLIMITED      UINT64_MAX
#define AM_INTERVALS      16                  /* roundup_power2_divisions: 1 MiB .. 32 GiB and up */

/* The allocator's settings (PYTORCH_CUDA_ALLOC_CONF) and the device. */
struct am_settings {
	uint64_t max_split_size;          /* bytes; AM_UNLIMITED when not set */
	uint64_t max_non_split_rounding;  /* bytes; 20 MiB unless set */
	double gc_threshold;              /* garbage_collection_threshold; 0: off */
	int expandable;                   /* expandable_segments:True */
	unsigned divisions[AM_INTERVALS]; /* roundup_power2_divisions per interval; < 2: off */
	uint64_t capacity;                /* bytes the device lets the allocator reserve */
	uint64_t allowed;                 /* set_per_process_memory_fraction x total; 0: not set */
	int no_cache;                     /* bound: reserved = allocated, nothing cached */
};

/* Defaults: what an empty PYTORCH_CUDA_ALLOC_CONF gives, no capacity limit. */
void am_settings_default(struct am_settings *s);
/* Apply a PYTORCH_CUDA_ALLOC_CONF string ("expandable_segments:True,
 * max_split_size_mb:128,roundup_power2_divisions:[256:1,>:4],...") on top
 * of s. Keys the model has no use for (backend, pinned_*, release_lock_*)
 * are accepted and ignored. 0, or -1 with why in err (n bytes). */
int am_settings_parse(struct am_settings *s, const char *conf, char *err, size_t n);

/* Size of a request after rounding (round_size). */
uint64_t am_round_size(const struct am_settings *s, uint64_t size);
/* Size of the segment a rounded request makes (get_allocation_size). */
uint64_t am_allocation_size(uint64_t rounded);

enum am_seg_kind { AM_SEG_ALLOC, AM_SEG_FREE, AM_SEG_MAP, AM_SEG_UNMAP };

/* A segment the model allocated, freed, mapped or unmapped. */
struct am_seg_event {
	enum am_seg_kind kind;
	uint64_t addr, size;
	uint32_t stream;
};
typedef void am_seg_fn(void *arg, const struct am_seg_event *ev);

struct am_stats {
	uint64_t reserved, allocated;          /* now: segments (mapped pages), allocated blocks */
	uint64_t peak_reserved, peak_allocated;
	uint64_t segment_allocs, segment_frees;/* device allocations (segments, page maps) and releases */
	uint64_t mallocs, ooms;                /* requests, requests that failed */
	uint64_t first_failed_bytes;           /* rounded size of the first failure; 0: none */
};

struct am_model;
struct am_block;

/* A model with settings s (copied). fn (may be NULL) hears every segment
 * event with arg. NULL when out of memory. */
struct am_model *am_new(const struct am_settings *s, am_seg_fn *fn, void *arg);
void am_destroy(struct am_model *m);
/* Where the device puts a new segment of size bytes on stream: an
 * address, or 0 to let the model choose. A replay that follows a recorded
 * run gives the recorded addresses: the driver's choice decides which of
 * equal cached blocks is the best fit (the lowest address). */
typedef uint64_t am_place_fn(void *arg, uint64_t size, uint32_t stream);
void am_set_placer(struct am_model *m, am_place_fn *fn, void *arg);
/* 1 once the model ran out of host memory (its results are not usable). */
int am_nomem(const struct am_model *m);
const struct am_stats *am_stats(const struct am_model *m);

/* Allocate size bytes on stream (malloc): the block, or NULL when the
 * allocation fails (counted in ooms) or host memory ran out. */
struct am_block *am_malloc(struct am_model *m, uint64_t size, uint32_t stream);
/* Return b to the cache, merging it with free neighbours. */
void am_free(struct am_model *m, struct am_block *b);
/* torch.cuda.empty_cache(): free every unsplit cached segment, unmap every
 * free page of expandable segments. */
void am_empty_cache(struct am_model *m);
/* 1 when a request of size on stream would be served from the cache. */
int am_would_reuse(struct am_model *m, uint64_t size, uint32_t stream);
/* 1 when the device allocation a cache miss of size would make fits
 * under the capacity (and the memory fraction) now. */
int am_can_reserve(const struct am_model *m, uint64_t size);

uint64_t am_block_addr(const struct am_block *b);
uint64_t am_block_size(const struct am_block *b);

/* A block of a seeded segment: live (allocated) at the start. */
struct am_range {
	uint64_t addr, size, requested;
};

/* Add a segment that existed before the replay: [addr, addr + size) on
 * stream, small or large pool, with its live blocks (sorted by address,
 * inside the segment, not overlapping); the rest is cached free space.
 * An expandable range joins the expandable segment of its stream and pool
 * when one holds its address (add them in address order), else starts
 * one at addr. Counts as reserved; emits no event. out (n_live, may be
 * NULL) gets each live block. 0, or -1 (bad range, or out of memory). */
int am_seed_segment(struct am_model *m, uint64_t addr, uint64_t size, uint32_t stream,
		    int small, int expandable, const struct am_range *live, size_t n_live,
		    struct am_block **out);

#endif
