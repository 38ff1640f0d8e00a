/*
 * whatif_impl.h -- the inside of the trace replay (whatif_replay.h),
 * shared by whatif_trace.c (compiling the trace, the state before it, the
 * capacity) and whatif_replay.c (running the scenarios, comparing).
 */
#ifndef OOMLENS_WHATIF_IMPL_H
#define OOMLENS_WHATIF_IMPL_H

#include "analyzer/derive/whatif_replay.h"

/* What a step asks the model. */
enum { ST_MALLOC, ST_FREE, ST_OOM, ST_EMPTY };
/* Step flags. */
#define ST_CANDIDATE 1   /* ST_EMPTY: a release run just before a request that may explain it */
#define ST_PRESSURE  2   /* ST_EMPTY: the recorded replay found the request explains it */
#define ST_LOGGED    4   /* ST_OOM: the failed request of a log, not of the trace */

struct wr_step {
	uint64_t size;                /* requested bytes (ST_MALLOC, ST_OOM) */
	uint32_t id;                  /* handle of the block (ST_MALLOC, ST_FREE, ST_OOM) */
	uint16_t stream;
	uint8_t op, flag;
};

/* A recorded segment event, kept for the state before the trace and for
 * the comparison. */
struct wr_rseg {
	uint64_t addr, size;
	uint32_t step;                /* the step it is compared at */
	uint16_t stream;
	uint8_t kind;                 /* enum am_seg_kind */
};

/* A block alive before the trace. */
struct wr_pre {
	uint64_t addr, size, requested;
	uint32_t id;
	uint16_t stream;
	uint8_t exact;                /* size read from the snapshot (else inferred) */
};

/* A segment (or a mapped range of an expandable one) of a state. */
struct wr_seg {
	uint64_t addr, size;
	uint16_t stream;
	uint8_t small, expandable;
};

/* Open-addressing map of addresses (never 0 after the +1 shift). */
struct wr_map {
	uint64_t *key;                /* addr + 1; 0 empty */
	uint32_t *val;
	size_t cap, n;
};

struct wr_trace {
	struct am_settings rec;
	int nomem;
	struct wr_step *st;
	uint32_t *seq;                /* trace seq of each step */
	size_t n, cap;
	struct wr_rseg *rs;           /* recorded segment events */
	size_t n_rs, cap_rs, pending; /* rs[pending..] wait for their step */
	struct wr_pre *pre;
	size_t n_pre, cap_pre;
	struct wr_seg *end;           /* the snapshot's segments */
	size_t n_end, cap_end;
	struct wr_map live;           /* addr -> handle alive in the trace, UINT32_MAX: seen, freed */
	int64_t *streams;             /* stream values by index */
	size_t n_streams, cap_streams;
	uint32_t next_id;
	int use_requested;            /* frees are free_requested (no free_completed seen) */
	int saw_completed;
	uint64_t first_oom_free;      /* device_free of the first oom; 0: none */
	int64_t first_oom_rs;         /* recorded segment events before it; -1: no oom */
	uint64_t recorded_ooms, unmatched_frees;
	/* filled by wr_run before the scenarios */
	struct wr_seg *start;         /* segments before the trace */
	size_t n_start;
	uint64_t max_request;         /* largest rounded request */
};

/* ---- whatif_trace.c ---- */
/* Grow *v (elements of size sz) to hold one more at index *n; -1 no memory. */
int wr_grow(void **v, size_t *cap, size_t n, size_t sz);
/* Give the recorded segment events since the last step the step they are
 * compared at, before a step of kind next (ST_MALLOC, ST_OOM, ST_FREE;
 * -1 another entry; -2 the end of the trace). 0 or -1. */
int wr_flush(struct wr_trace *t, int next, int64_t seq);
/* Append the failed request a log reports (the trace has no oom): 0 or -1. */
int wr_add_logged_oom(struct wr_trace *t, uint64_t size);
/* The segments before the trace into t->start, the inferred sizes of
 * pre-trace blocks; the agreement's pre_* figures. 0 or -1. */
int wr_start_state(struct wr_trace *t, struct wr_agreement *ag);
/* Capacity of the device for the replays, with its source; the recorded
 * peak reserved into ag. */
uint64_t wr_capacity(const struct wr_trace *t, const struct wr_options *opt,
		     struct wr_agreement *ag, const char **source);

#endif
