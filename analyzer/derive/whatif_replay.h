/*
 * whatif_replay.h -- replay one device's recorded allocator trace through
 * the allocator model (allocator_model.h): first with the recorded
 * settings, to prove the model on that trace (its segment events against
 * the recorded ones), then under other settings to answer what would have
 * happened. Pure: no SQL, no I/O; the rule (whatif.c) feeds it rows.
 *
 * Feeding: wr_add() each trace entry of the device in order, then
 * wr_add_segment() each segment of the snapshot (the state at its end),
 * then wr_run(). The trace is compiled as it comes (a few bytes per
 * event): allocations and frees become model requests on handles, runs
 * of recorded segment_free/unmap that no request explains become
 * empty_cache() calls, recorded segment events are kept for the
 * comparison.
 *
 * The state before the trace: the segments of the snapshot minus what the
 * trace made, plus what it released; the blocks alive before it (freed in
 * the trace without an alloc in it, or alive at the end and never
 * allocated in it). The `recorded` replay starts from that state exactly;
 * the what-ifs start from its live blocks only, allocated afresh under
 * the scenario's settings in address order (what came before the trace is
 * not known, so its cached memory is not carried over); `baseline` does
 * the same with the recorded settings, so a what-if is compared with
 * like.
 *
 * Capacity (what the device let the allocator reserve): the recorded
 * reserved bytes at the trace's first oom plus its device_free; else the
 * caller's (a torch_oom message's reserved + free); else, when the trace
 * shows the allocator releasing its cache under pressure, the highest
 * reserved the trace reached (a release run just before a request that
 * needed a new segment is read as pressure when, with that capacity, the
 * request found no cached block and no room; else as empty_cache());
 * else the GPU total when known; else none.
 */
#ifndef OOMLENS_WHATIF_REPLAY_H
#define OOMLENS_WHATIF_REPLAY_H

#include "analyzer/derive/allocator_model.h"

#include <stddef.h>
#include <stdint.h>

enum wr_action {
	WR_ALLOC, WR_FREE_REQUESTED, WR_FREE_COMPLETED, WR_SEG_ALLOC, WR_SEG_FREE,
	WR_SEG_MAP, WR_SEG_UNMAP, WR_OOM, WR_OTHER
};

/* One trace entry. addr is unused for oom, device_free only for oom. */
struct wr_entry {
	enum wr_action action;
	uint64_t addr, size, device_free;
	int64_t stream, seq;
};

/* A segment of the snapshot and one of its blocks. */
struct wr_segment {
	uint64_t addr, size;
	int64_t stream;
	int small, expandable;
};
struct wr_block {
	uint64_t addr, size, requested;
	int active;                   /* allocated or pending free */
};

struct wr_trace;

/* A trace for a replay under recorded (copied; its capacity is ignored).
 * Frees are taken at free_completed (the block is back in the cache then),
 * or at free_requested when frees_at_requested is 1 (a trace recorded
 * without free_completed). NULL when out of memory. */
struct wr_trace *wr_new(const struct am_settings *recorded, int frees_at_requested);
void wr_free(struct wr_trace *t);
/* The next entry of the trace (seq order). 0, or -1 out of memory. */
int wr_add(struct wr_trace *t, const struct wr_entry *e);
/* A segment of the snapshot with its n blocks (address order). 0 or -1. */
int wr_add_segment(struct wr_trace *t, const struct wr_segment *s, const struct wr_block *b,
		   size_t n);

/* An event of one side that the other lacks (the comparison): recorded 1
 * for a trace event the model did not make, 0 for a model event the trace
 * lacks; seq of the trace entry its step stands for (-1: none). */
typedef void wr_mismatch_fn(void *arg, int recorded, int64_t seq, enum am_seg_kind kind,
			    uint64_t size);

/* What the caller knows beyond the trace. */
struct wr_options {
	uint64_t oom_size;            /* a failed request the trace lacks (torch_oom); 0: none */
	uint64_t oom_capacity;        /* what came with it: reserved + free; 0: unknown */
	uint64_t gpu_total;           /* 0: unknown */
	size_t max_candidates;        /* max_split_size_mb values tried; 0: 8 (3 past 2 M events) */
	wr_mismatch_fn *mismatch;     /* may be NULL: hears each event left unmatched */
	void *arg;
};

#define WR_SCENARIOS 5

/* One scenario's answer. */
struct wr_result {
	char scenario[24];            /* recorded, baseline, expandable_segments, max_split_size_mb, empty_cache */
	char setting[96];             /* PYTORCH_CUDA_ALLOC_CONF form, or a phrase */
	int fits;                     /* 1 nothing failed, 0 a request failed, -1 no capacity known */
	uint64_t failed_bytes;        /* rounded size of the first failure; 0 none */
	int64_t failed_seq;           /* its trace seq; -1 none */
	uint64_t peak_reserved, peak_allocated;
	int64_t segments;             /* device allocations made (segments, page maps); -1: not meaningful */
};

/* How the recorded replay compares with the trace. */
struct wr_agreement {
	uint64_t recorded_events, model_events, matched_events; /* segment events */
	uint64_t recorded_bytes, matched_bytes;
	uint64_t recorded_by_kind[4], model_by_kind[4];  /* alloc, free, map, unmap */
	uint64_t recorded_ooms, model_ooms, matched_ooms;
	uint64_t recorded_peak_reserved;                 /* from the trace and the segments */
	uint64_t pre_segments, pre_blocks, uncovered_blocks; /* the state before the trace */
	uint64_t empty_cache_calls, pressure_releases;   /* how its release runs were read */
	uint64_t unmatched_frees;                        /* frees of nothing known */
};

struct wr_report {
	uint64_t events;              /* requests replayed (allocs, frees, ooms, empty_cache) */
	uint64_t capacity;            /* AM_UNLIMITED: none known */
	const char *capacity_source;  /* oom, torch_oom, peak_reserved, gpu_total, NULL */
	struct wr_agreement agree;
	struct wr_result res[WR_SCENARIOS];
	size_t n_res;
	uint64_t candidates_tried;    /* max_split_size_mb values replayed */
};

/* Replay t (once): the recorded settings first, then each what-if. A
 * failed request of opt (a log's) is appended to a trace without an oom,
 * on the first stream. 0, or -1 with why in err (n bytes): out of memory,
 * or t already run. */
int wr_run(struct wr_trace *t, const struct wr_options *opt, struct wr_report *out, char *err,
	   size_t n);

#endif
