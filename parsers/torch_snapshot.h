/*
 * torch_snapshot.h -- PyTorch CUDA caching-allocator memory snapshots
 * (torch.cuda.memory._dump_snapshot pickles, every schema generation, and
 * the flat JSON Lines form of `oomlens convert`).
 *
 * Two layers, so that the pickle and the flat form give the same timeline:
 *
 *   reader (torch_snapshot.c: pickle; torch_flat.c: JSON Lines)
 *     -> normalized records through struct ts_ops
 *   model (torch_model.c): implements ts_ops over a sink: snapshot,
 *     segments, blocks, trace rows, allocation lifetimes (alloc paired
 *     with free_completed per device and address), torch_oom events,
 *     torch.allocated_bytes / torch.reserved_bytes series, stacks,
 *     torch.allocator.<key> meta.
 *   writer (torch_flat.c): implements ts_ops as JSON Lines (convert).
 *
 * Every integer that is unknown is OL_NULL; strings NULL.
 */
#ifndef OOMLENS_TORCH_SNAPSHOT_H
#define OOMLENS_TORCH_SNAPSHOT_H

#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "parsers/sink.h"
#include "lib/input.h"

/* Caps applied by the readers (identically, so both forms agree). */
#define TS_MAX_FRAMES 256      /* frames kept per stack (innermost first) */
#define TS_MAX_DEVICES 1024    /* device ordinals given series and pairing */

/* A stack, innermost frame first. key identifies it within one input
 * (same key = same stack); frames are produced on demand by get. */
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

/* ---- the pickle reader ---- */
int torch_snapshot_sniff(const unsigned char *head, size_t n);
/* Read a snapshot pickle into s. Returns records (>= 0) or -1. */
int torch_snapshot_parse(struct input *in, struct sink *s);
/* Decode the pickle in `in` into ops (diagnostics on s). Returns the
 * records produced, or -1 if ops failed. */
int torch_snapshot_decode(struct input *in, struct sink *s, const struct ts_ops *ops);

/* The same, with the decoding in a second thread; ops run in the caller's
 * thread (torch_pipe.c). Falls back to one thread if none can start. */
int ts_pipe_run(struct input *in, struct sink *s, const struct ts_ops *ops);

/* ---- the model ---- */
struct ts_model;
struct ts_model *ts_model_new(struct sink *s, struct ts_ops *ops);
/* Records produced; frees the model. */
int64_t ts_model_free(struct ts_model *m);

/* ---- the flat form ---- */
#define TS_FLAT_MAGIC "oomlens-torch-snapshot"
#define TS_FLAT_VERSION 1
int torch_flat_sniff(const unsigned char *head, size_t n);
int torch_flat_parse(struct input *in, struct sink *s);
struct ts_writer;
/* A writer of the flat form to f; diagnostics about the output on s. */
struct ts_writer *ts_writer_new(FILE *f, struct sink *s, struct ts_ops *ops);
/* Lines written, or -1 if a write failed; frees the writer. */
int64_t ts_writer_free(struct ts_writer *w);

#endif
