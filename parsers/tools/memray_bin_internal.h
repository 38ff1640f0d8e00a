/*
 * memray_bin_internal.h -- what the three files of the memray capture
 * reader share: the byte source (memray_bin_src.c: the lz4 frame or the
 * plain stream, memray's varints and strings), and the bounded tables of
 * the allocation walk (memray_bin_agg.c: live allocations, code objects,
 * per-thread Python stacks, locations). memray_bin.c reads the header and
 * the records with them.
 */
#ifndef OOMLENS_MEMRAY_BIN_INTERNAL_H
#define OOMLENS_MEMRAY_BIN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

#define MB_CHUNK (64 * 1024)

/* The capture's content as bytes, whether lz4-framed or plain. */
struct mb_src {
	struct input *in;
	int lz4;                  /* 1: an lz4 frame on disk */
	void *dctx;               /* LZ4F_dctx */
	unsigned char *ibuf;      /* compressed bytes read, [ipos, ilen) unused */
	size_t ipos, ilen;
	uint64_t ioff;            /* file offset of ibuf[0] */
	unsigned char *obuf;      /* content bytes, [opos, olen) unread */
	size_t opos, olen;
	uint64_t off;             /* content offset of the next byte */
	int eof;                  /* no byte left */
	int frame_done;           /* the lz4 frame ended */
	char err[200];            /* why the bytes ended early, or "" */
};

/* Open in as a capture: an lz4 frame when it starts with its magic.
 * 0, or -1 out of memory. mb_src_close frees. */
int mb_src_open(struct mb_src *s, struct input *in);
void mb_src_close(struct mb_src *s);
/* Refill: the next byte (0..255), or -1 at the end (err set when the end
 * came early: a read error, a cut or corrupt lz4 frame). */
int mb_src_fill(struct mb_src *s);

static inline int mb_byte(struct mb_src *s)
{
	if (s->opos < s->olen) {
		s->off++;
		return s->obuf[s->opos++];
	}
	return mb_src_fill(s);
}

/* n bytes into dst (NULL: skipped). 0, or -1 when the content ended. */
int mb_read(struct mb_src *s, void *dst, size_t n);
/* A little-endian integer of n (1..8) bytes. 0 or -1. */
int mb_uint(struct mb_src *s, size_t n, uint64_t *v);
/* memray's varint (7 bits a byte, low first) and its zig-zag signed form.
 * 0, or -1 at the end or on a varint over 64 bits. */
int mb_varint(struct mb_src *s, uint64_t *v);
int mb_svarint(struct mb_src *s, int64_t *v);
/* A NUL-terminated string: its first cap - 1 bytes into dst (NUL-ended),
 * the rest skipped; *len its full length. 0, or -1 when it ran off the end. */
int mb_string(struct mb_src *s, char *dst, size_t cap, uint64_t *len);

/* ---- the bounded tables of the allocation walk (memray_bin_agg.c) ---- */

#define MB_LIVE_MAX (1u << 20)     /* live allocations kept (slots) */
#define MB_CODE_MAX 65536          /* code objects kept */
#define MB_CODE_BYTES (32u << 20)  /* their names, files and line tables */
#define MB_THREADS 64              /* threads whose stacks are followed */
#define MB_DEPTH 1024              /* frames kept per stack */
#define MB_LOC_MAX 65536           /* (code object, offset) locations */
#define MB_TOP 5                   /* locations named, as memray stats */
#define MB_ALLOCATORS 16

struct mb_frame { uint64_t code; int64_t ioff; };

struct mb_thread {
	uint64_t tid;
	uint64_t depth;            /* the real depth; frames[] holds the first MB_DEPTH */
	struct mb_frame *frames;
};

struct mb_code {
	uint64_t id;
	char *func, *file;
	unsigned char *table;      /* the line table */
	size_t table_len;
	int64_t firstlineno;
};

struct mb_loc { uint64_t code; int64_t ioff; int used; uint64_t bytes, count; };

struct mb_agg {
	/* live allocations: address -> size, open addressing */
	uint64_t *live_addr, *live_size;
	size_t live_cap, live_n;
	uint64_t untracked;        /* allocations not kept: the table was full */
	uint64_t unmatched_munmap;
	/* code objects */
	struct mb_code *code;
	size_t ncode, code_cap, code_bytes;
	uint32_t *code_hash;       /* index + 1 by id, 2 * MB_CODE_MAX slots */
	uint64_t code_dropped;
	/* threads */
	struct mb_thread threads[MB_THREADS];
	int nthreads;
	struct mb_thread *cur;     /* after a CONTEXT_SWITCH; NULL if untracked */
	uint64_t threads_dropped, pops_past_top;
	/* locations */
	struct mb_loc *locs;       /* MB_LOC_MAX * 2 slots */
	size_t nlocs;
	uint64_t other_bytes, other_count;     /* past the table */
	uint64_t nostack_bytes, nostack_count; /* no Python frame */
	/* totals, as memray stats counts them */
	uint64_t n_alloc, n_dealloc, bytes_alloc;
	uint64_t heap, peak;
	uint64_t by_allocator[MB_ALLOCATORS];
};

/* 0, or -1 out of memory. mb_agg_free frees what it holds. */
int mb_agg_init(struct mb_agg *a);
void mb_agg_free(struct mb_agg *a);
/* A CONTEXT_SWITCH to tid. 0 or -1 (out of memory). */
int mb_agg_switch(struct mb_agg *a, uint64_t tid);
void mb_agg_push(struct mb_agg *a, uint64_t code, int64_t ioff);
void mb_agg_pop(struct mb_agg *a, unsigned n);
/* A CODE_OBJECT; strings and table copied. 0, or -1 out of memory. */
int mb_agg_code(struct mb_agg *a, uint64_t id, const char *func, const char *file,
		int64_t firstlineno, const unsigned char *table, size_t table_len);
/* An ALLOCATION record of allocator (memray's hooks::Allocator) at addr.
 * 0, or -1 out of memory. */
int mb_agg_alloc(struct mb_agg *a, unsigned allocator, uint64_t addr, uint64_t size);
/* 1 for memray's deallocators (free, pymalloc_free, munmap). */
int mb_allocator_frees(unsigned allocator);
/* 1 if the allocator's record carries no size (free, pymalloc_free). */
int mb_allocator_simple_free(unsigned allocator);
/* memray's AllocatorType name ("MALLOC"), or NULL. */
const char *mb_allocator_name(unsigned allocator);
/* The top MB_TOP locations by size, then by count, as memray holders
 * (line 0: a binary input). python_version picks the line table's form.
 * Sets top_location(_bytes) and top_python_location(_bytes) in stats (the
 * memray_stats event's data, borrowed). 0, or -1 when the sink failed or
 * memory ran out. */
int mb_agg_holders(struct mb_agg *a, struct sink *s, uint32_t python_version,
		   json_t *stats);

/* a + b, held at the ends of int64_t: a damaged capture's deltas must
 * not overflow (undefined in C), and a line or time that far off is
 * nonsense either way. */
static inline int64_t mb_sat_add(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

#endif
