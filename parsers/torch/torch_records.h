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

#include "parsers/common/sink.h"

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
	/* Optional (NULL: none): told of an entry that a producer holding
	 * several in memory will pass to entry() soon, so that the consumer
	 * can start fetching what it will look up (the pipe calls it a few
	 * entries ahead). Changes nothing that is stored. */
	void (*ahead)(void *ctx, const struct ts_entry *);
};

/* ---- one description per record ----
 * The fields of each record kind, named as the flat form names them
 * (docs/flat-format.md) and in the order it writes them. The flat writer
 * and reader and the pipe's copies walk these tables rather than spell
 * the fields out again. */

enum ts_ftype {
	TS_F_INT,      /* int64_t */
	TS_F_FLAG,     /* int64_t 0/1 (written as a JSON boolean) or other/OL_NULL */
	TS_F_STR,      /* const char * */
	TS_F_POOL,     /* two int64_t, pool_a then pool_b, written [a, b] */
};

struct ts_field {
	const char *name;
	enum ts_ftype type;
	size_t off;               /* in the record struct */
};

struct ts_kind {
	const char *name;         /* the flat record type: "segment", "block", "trace" */
	size_t size;              /* of the record struct */
	size_t frames_off;        /* of its `const struct ts_frames *frames` */
	const struct ts_field *fields;
	size_t nfields;
};

extern const struct ts_kind ts_segment_kind, ts_block_kind, ts_entry_kind;

/* Field f of record rec, as what its type says it is (writable only
 * where rec is, as with strchr). */
static inline int64_t *ts_int(const void *rec, const struct ts_field *f)
{
	return (int64_t *)((char *)rec + f->off);
}

static inline const char **ts_str(const void *rec, const struct ts_field *f)
{
	return (const char **)((char *)rec + f->off);
}

/* The frames pointer of record rec of kind k. */
static inline const struct ts_frames **ts_frames_of(const void *rec, const struct ts_kind *k)
{
	return (const struct ts_frames **)((char *)rec + k->frames_off);
}

/* ---- stack ids ---- */

struct keymap;

/* The id a consumer gives stack fr, made once per key: by make(ctx, f, n)
 * the first time (frames f[0..n), n > 0), from ids after (the pipe sends
 * a stack's frames only with its first use, so a key is never forgotten;
 * out of memory, later uses have no stack). OL_NULL for no stack (fr
 * NULL or no frames), -1 when make failed. */
int64_t ts_stack_id(struct keymap *ids, const struct ts_frames *fr,
		    int64_t (*make)(void *ctx, const struct ol_frame *f, size_t n), void *ctx);

#endif
