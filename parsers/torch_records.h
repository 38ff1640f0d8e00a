/*
 * torch_records.h -- the normalized records of a PyTorch memory snapshot,
 * and struct ts_ops, the interface by which a reader hands them over.
 *
 * This is the contract between the two layers of the snapshot readers, so
 * that the pickle and the flat form give the same timeline:
 *
 *   producers: the pickle reader (torch_snapshot.c), the flat reader
 *              (torch_flat.c), and the pipe (torch_pipe.c), which replays
 *              in the caller's thread what a producer made in another;
 *   consumers: the model (torch_model.c: records -> sink rows), the flat
 *              writer (torch_flat.c), and the pipe's decoder side.
 *
 * Every integer that is unknown is OL_NULL; strings NULL. Strings and
 * frames are borrowed: valid only during the call.
 */
#ifndef OOMLENS_TORCH_RECORDS_H
#define OOMLENS_TORCH_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "parsers/sink.h"

/* Caps applied by the readers (identically, so both forms agree). */
#define TS_MAX_FRAMES 256      /* frames kept per stack (innermost first) */
#define TS_MAX_DEVICES 1024    /* device ordinals given series and pairing */

/* A stack, innermost frame first. key identifies it within one input
 * (same key = same stack; 0 = no identity); frames are produced on demand
 * by get. */
struct ts_frames {
	uint64_t key;
	int (*get)(const struct ts_frames *, const struct ol_frame **f, size_t *n);
	const void *priv;
};

struct ts_header {
	const char *form;       /* "dict" (segments + traces) or "list" (segments only) */
	int64_t protocol;       /* pickle protocol of the original */
};

struct ts_segment {
	int64_t device, address, total_size, allocated_size, active_size, requested_size;
	int64_t stream;
	const char *segment_type;
	int64_t pool_a, pool_b;        /* segment_pool_id, OL_NULL if absent */
	int64_t is_expandable;         /* 0/1 or OL_NULL */
	const struct ts_frames *frames; /* NULL: none */
};

struct ts_block {
	int64_t address, size, requested_size;
	const char *state;
	const struct ts_frames *frames;
};

struct ts_entry {
	int64_t device, seq;
	const char *action;
	int64_t addr, size, stream, time_us, device_free;
	const char *compile_context, *user_metadata;
	int64_t pool_a, pool_b;
	const struct ts_frames *frames;
};

/* Each returns 0, or -1 when the sink/store failed. settings: a JSON
 * object (borrowed). end: devices = number of device traces (or
 * OL_NULL). */
struct ts_ops {
	void *ctx;
	int (*begin)(void *ctx, const struct ts_header *);
	int (*segment)(void *ctx, const struct ts_segment *);  /* its blocks follow */
	int (*block)(void *ctx, const struct ts_block *);
	int (*entry)(void *ctx, const struct ts_entry *);
	int (*settings)(void *ctx, json_t *settings);
	int (*end)(void *ctx, int64_t devices);
};

#endif
