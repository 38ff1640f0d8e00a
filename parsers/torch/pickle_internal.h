/*
 * pickle_internal.h -- the decoder state shared by the files of the pickle
 * decoder (see pickle.h for what it does), in the order data flows:
 *
 *   pickle_read.c    the byte stream: buffered reads from struct input,
 *                    lengths, text lines, protocol 0 text, LONG integers
 *   pickle.c         the opcode loop: one dispatch switch, one helper per
 *                    opcode family, pk_decode
 *   pickle_stack.c   the value stack and MARKs, containers and their items
 *                    (where the handler streams them out)
 *   pickle_memo.c    the memo: a ring of recent entries, a pinned table
 *   pickle_values.c  values: reference-counted objects, pooled for reuse
 *
 * Not for use outside those files. Internal functions are named pd_*.
 * Functions that can fail return -1 after pd_fail (status and diagnostic
 * set); readers return -2 at the end of the input.
 */
#ifndef OOMLENS_PICKLE_INTERNAL_H
#define OOMLENS_PICKLE_INTERNAL_H

#include "parsers/torch/pickle.h"

struct strbuf;

/* A memo entry (in the ring or the pinned table). */
struct memo_ent {
	uint32_t idx;
	int used;
	int fetched;
	struct pk_val v;
};

struct dec {
	struct input *in;
	struct sink *s;
	const struct pk_handler *h;
	/* reader */
	unsigned char *buf;
	size_t pos, end, cap;
	uint64_t base;          /* input offset of buf[0] */
	int eof;
	uint64_t op_off;        /* offset of the current opcode */
	unsigned char op;
	/* stack */
	struct pk_val *stk;
	size_t sp, scap;
	size_t marks[PK_MAX_MARKS];
	size_t nmarks;
	/* memo */
	struct memo_ent *memo;
	size_t mcap, mn;
	uint64_t mlen;          /* 1 + the largest index stored */
	uint32_t pin_max;       /* largest index in the pinned table */
	struct memo_ent *low;   /* pinned entries of index < PD_MEMO_LOW, by index */
	size_t nlow;
	struct memo_ent *ring;  /* recent entries, slot = idx & (rcap - 1) */
	size_t rcap;
	unsigned lost_fetches;
	enum pk_status status;
	int protocol;
	uint64_t opcodes;
	int64_t live_at_start;  /* pd_live_bytes() when the decode began */
};

/* Pinned entries below this index (the keys, the action names: the
 * objects a pickle makes first and fetches most) live in a plain array. */
#define PD_MEMO_LOW 4096u

/* Record an error at the current opcode ("pickle offset N: " + fmt with a
 * as its one %s) and set the final status. */
void pd_fail(struct dec *d, enum pk_status st, const char *fmt, const char *a);
/* pd_fail for an allocation that failed. */
#define pd_oom(d) pd_fail((d), PK_CORRUPT, "out of memory%s", NULL)

/* ---- values (pickle_values.c) ---- */

static inline int pd_is_obj(enum pk_type t) { return t >= PK_STR; }
static inline int pd_is_container(enum pk_type t) { return t >= PK_LIST; }
/* Bytes held now by every live value (objects, their item arrays and
 * strings, pooled ones included), process-wide like the pools. */
int64_t pd_live_bytes(void);
/* Count n more (or fewer, n < 0) bytes of item arrays as held. */
void pd_account(int64_t n);
/* Would holding `more` bytes beyond what the decode holds now pass
 * pk_budget? 1 (failed: said, status set), else 0. */
int pd_over_budget(struct dec *d, uint64_t more);
/* An empty container (list, tuple, dict, set) with one reference; NULL
 * when out of memory. */
struct pk_obj *pd_obj_new(enum pk_type t);
/* A str/bytes object with room for n bytes + NUL inline. */
struct pk_obj *pd_obj_new_str(enum pk_type t, size_t n);

/* ---- the byte stream (pickle_read.c) ---- */

int pd_need_more(struct dec *d, size_t n);
/* Make n bytes available at buf[pos]. 0, or -1 at end of input. */
static inline int pd_need(struct dec *d, size_t n)
{
	return d->end - d->pos >= n ? 0 : pd_need_more(d, n);
}

/* The next n bytes (consumed), or NULL at end of input. Valid until the
 * next read. */
static inline const unsigned char *pd_take(struct dec *d, size_t n)
{
	if (pd_need(d, n) < 0)
		return NULL;
	d->pos += n;
	return d->buf + d->pos - n;
}

static inline uint64_t pd_le(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;
	while (n--)
		v = (v << 8) | p[n];
	return v;
}

/* Is a length read from the file possible at all (the limit, the rest of
 * an uncompressed file)? */
int pd_len_ok(struct dec *d, uint64_t n);
/* Read a text line (protocol 0 arguments) into out (outsz bytes, NUL
 * added). Its length, -1 (too long: failed), -2 at end of input. */
int pd_read_line(struct dec *d, char *out, size_t outsz);
/* A little-endian two's-complement integer of n bytes at p (PK_BIGINT
 * with the byte count when it does not fit 64 bits). */
struct pk_val pd_long_value(const unsigned char *p, uint64_t n);
/* STRING: a Python 2 str repr body (\\, \', \n, \xHH ...), bytes kept. */
int pd_unescape_string(struct strbuf *sb, const char *s, size_t n);
/* UNICODE: raw-unicode-escape (\uXXXX, \UXXXXXXXX; other bytes latin-1). */
int pd_unescape_raw_unicode(struct strbuf *sb, const char *s, size_t n);

/* ---- the stack and containers (pickle_stack.c) ---- */

int pd_push_grow(struct dec *d, struct pk_val v);
/* Push v (taking its reference). 0, or -1 (failed; v released). */
static inline int pd_push(struct dec *d, struct pk_val v)
{
	if (d->sp == d->scap)
		return pd_push_grow(d, v);
	d->stk[d->sp++] = v;
	return 0;
}

static inline int pd_push_int(struct dec *d, enum pk_type t, int64_t i)
{
	struct pk_val v;
	v.type = t;
	v.u.i = i;
	return pd_push(d, v);
}

/* Lowest stack index usable by the current opcode (above the last mark). */
static inline size_t pd_floor(const struct dec *d)
{
	return d->nmarks ? d->marks[d->nmarks - 1] : 0;
}

/* Fewer than n values above the mark? 1 (failed), else 0. */
int pd_underflow(struct dec *d, size_t n);
/* Pop to the last mark; the index the items start at, or -1 (failed). */
long pd_pop_mark(struct dec *d);
/* Push a str (UTF-8 cleaned) or bytes object of n raw bytes. */
int pd_push_string(struct dec *d, enum pk_type t, const unsigned char *p, size_t n);
/* Push a new empty list, dict or set, tagged by the handler. */
int pd_push_container(struct dec *d, enum pk_type t);
/* Add val (and key, for dicts) to container cv, taking over the
 * references; the handler may take the item. 0, or -1. */
int pd_add_item(struct dec *d, struct pk_val *cv, struct pk_val *key, struct pk_val *val);
/* Build a tuple (or list/set/dict) of stk[from..sp) and push it. */
int pd_build_from(struct dec *d, size_t from, enum pk_type t);
/* APPENDS / SETITEMS / ADDITEMS: the items above the mark into the
 * container just below it (pairs: key, value). */
int pd_fill_from_mark(struct dec *d, int pairs);
/* After an abnormal end: close the open MARK groups, innermost first, so
 * that the items read are handed over. */
void pd_flush_pending(struct dec *d);

/* ---- the memo (pickle_memo.c) ---- */

/* MEMOIZE/PUT: the top of the stack at idx. 0, or -1. */
int pd_memo_put(struct dec *d, uint32_t idx);
/* GET: push the entry at idx (None, said, if not held). 0, or -1. */
int pd_memo_get(struct dec *d, uint32_t idx);
/* Drop the memo's hold on a container the handler took, unless fetched. */
void pd_memo_forget(struct dec *d, const struct pk_val *v);
/* Release every entry and the tables. */
void pd_memo_free(struct dec *d);

#endif
