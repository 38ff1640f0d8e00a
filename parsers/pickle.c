/*
 * pickle.c -- the streaming, non-executing pickle decoder; see pickle.h.
 *
 * Structure (after CPython's Modules/_pickle.c load loop, minus everything
 * that calls into Python): a byte reader over struct input, a value stack
 * with a separate mark stack, a memo (hash table keyed by memo index) and
 * one switch over the opcode byte. Containers are reference counted; a
 * container that was placed inside another may not be filled any more,
 * which rules out cycles and keeps each object's depth exact.
 *
 * Memo policy: recent entries live in a ring of PK_MEMO_WINDOW slots
 * indexed by memo index (CPython's indices are sequential, so a put and a
 * fetch are one array access). When a slot is reused, its entry moves to
 * the pinned table (a hash) if it was fetched at least once (keys, action
 * names, frame dicts and lists), and is dropped if it never was; a
 * container the consumer takes is dropped at once. A later fetch of a
 * dropped entry is an error diagnostic and yields None. Real snapshots
 * fetch shared objects within a few entries of their creation.
 */
#include "parsers/pickle.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- opcode names ---- */

static const char *const opnames[256] = {
	['('] = "MARK", ['.'] = "STOP", ['0'] = "POP", ['1'] = "POP_MARK",
	['2'] = "DUP", ['F'] = "FLOAT", ['I'] = "INT", ['J'] = "BININT",
	['K'] = "BININT1", ['L'] = "LONG", ['M'] = "BININT2", ['N'] = "NONE",
	['P'] = "PERSID", ['Q'] = "BINPERSID", ['R'] = "REDUCE", ['S'] = "STRING",
	['T'] = "BINSTRING", ['U'] = "SHORT_BINSTRING", ['V'] = "UNICODE",
	['X'] = "BINUNICODE", ['a'] = "APPEND", ['b'] = "BUILD", ['c'] = "GLOBAL",
	['d'] = "DICT", ['}'] = "EMPTY_DICT", ['e'] = "APPENDS", ['g'] = "GET",
	['h'] = "BINGET", ['i'] = "INST", ['j'] = "LONG_BINGET", ['l'] = "LIST",
	[']'] = "EMPTY_LIST", ['o'] = "OBJ", ['p'] = "PUT", ['q'] = "BINPUT",
	['r'] = "LONG_BINPUT", ['s'] = "SETITEM", ['t'] = "TUPLE", [')'] = "EMPTY_TUPLE",
	['u'] = "SETITEMS", ['G'] = "BINFLOAT", ['B'] = "BINBYTES", ['C'] = "SHORT_BINBYTES",
	[0x80] = "PROTO", [0x81] = "NEWOBJ", [0x82] = "EXT1", [0x83] = "EXT2",
	[0x84] = "EXT4", [0x85] = "TUPLE1", [0x86] = "TUPLE2", [0x87] = "TUPLE3",
	[0x88] = "NEWTRUE", [0x89] = "NEWFALSE", [0x8a] = "LONG1", [0x8b] = "LONG4",
	[0x8c] = "SHORT_BINUNICODE", [0x8d] = "BINUNICODE8", [0x8e] = "BINBYTES8",
	[0x8f] = "EMPTY_SET", [0x90] = "ADDITEMS", [0x91] = "FROZENSET",
	[0x92] = "NEWOBJ_EX", [0x93] = "STACK_GLOBAL", [0x94] = "MEMOIZE",
	[0x95] = "FRAME", [0x96] = "BYTEARRAY8", [0x97] = "NEXT_BUFFER",
	[0x98] = "READONLY_BUFFER",
};

const char *pk_opname(unsigned char op)
{
	return opnames[op];
}

/* Why an opcode is refused (NULL: not refused). */
static const char *refusal(unsigned char op)
{
	switch (op) {
	case 'c': case 0x93: return "it imports a module attribute";
	case 'R': return "it calls an object";
	case 'b': return "it calls __setstate__ or sets attributes";
	case 'i': case 'o': case 0x81: case 0x92: return "it instantiates a class";
	case 0x82: case 0x83: case 0x84: return "it looks up the copyreg extension registry";
	case 'P': case 'Q': return "it needs a persistent-id hook (torch.save data)";
	case 0x97: case 0x98: return "it needs out-of-band buffers";
	default: return NULL;
	}
}

/* ---- values ---- */

static uint64_t next_serial = 1;

/* Allocation pools: trace entries are made and freed millions of times, so
 * freed containers (with their item arrays) and small strings are kept for
 * reuse, up to POOL_MAX each. Strings live inline after their object. */
#define POOL_MAX 4096
#define SMALL_STR 48
#define KEEP_ITEMS 64
static struct pk_obj *cpool[POOL_MAX], *spool[POOL_MAX];
static size_t ncpool, nspool;

static void obj_init(struct pk_obj *o, enum pk_type t)
{
	o->refs = 1;
	o->type = t;
	o->tag = 0;
	o->depth = 1;
	o->parents = 0;
	o->shared = 0;
	o->memo = -1;
	o->serial = next_serial++;
}

/* A container object (list, tuple, dict, set), empty. */
static struct pk_obj *obj_new(enum pk_type t)
{
	struct pk_obj *o;

	if (ncpool) {
		o = cpool[--ncpool];
		o->u.c.n = 0;
		o->u.c.count = 0;
	} else {
		o = calloc(1, sizeof(*o));
		if (!o)
			return NULL;
	}
	obj_init(o, t);
	return o;
}

/* A str/bytes object with room for n bytes + NUL inline. */
static struct pk_obj *obj_new_str(enum pk_type t, size_t n)
{
	struct pk_obj *o;

	if (n < SMALL_STR && nspool)
		o = spool[--nspool];
	else
		o = malloc(sizeof(*o) + (n < SMALL_STR ? SMALL_STR : n + 1));
	if (!o)
		return NULL;
	obj_init(o, t);
	o->u.str.s = (char *)(o + 1);
	o->u.str.n = n;
	return o;
}

static int is_container(enum pk_type t);

/* Free an object whose references are all gone (children released). */
static void obj_free(struct pk_obj *o);

static int is_obj(enum pk_type t)
{
	return t >= PK_STR;
}

static int is_container(enum pk_type t)
{
	return t >= PK_LIST;
}

void pk_incref(const struct pk_val *v)
{
	if (is_obj(v->type))
		v->u.o->refs++;
}

static void obj_free(struct pk_obj *o)
{
	size_t i;

	if (is_container(o->type)) {
		for (i = 0; i < o->u.c.n; i++)
			pk_release(&o->u.c.v[i]);
		if (o->u.c.cap <= KEEP_ITEMS && ncpool < POOL_MAX) {
			cpool[ncpool++] = o;
			return;
		}
		free(o->u.c.v);
		o->u.c.v = NULL;
		o->u.c.cap = 0;
	} else if (o->u.str.n < SMALL_STR && nspool < POOL_MAX) {
		spool[nspool++] = o;
		return;
	}
	free(o);
}

void pk_release(struct pk_val *v)
{
	if (is_obj(v->type) && --v->u.o->refs == 0)
		obj_free(v->u.o);
	v->type = PK_NONE;
}

int64_t pk_int(const struct pk_val *v)
{
	return v->type == PK_INT || v->type == PK_BOOL ? v->u.i : OL_NULL;
}

const struct pk_val *pk_dict_get(const struct pk_obj *d, const char *key)
{
	size_t i;

	if (!d || d->type != PK_DICT)
		return NULL;
	for (i = d->u.c.n; i >= 2; i -= 2) {
		const struct pk_val *k = &d->u.c.v[i - 2];
		if (k->type == PK_STR && !strcmp(k->u.o->u.str.s, key))
			return &d->u.c.v[i - 1];
	}
	return NULL;
}

/* ---- the decoder state ---- */

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
	struct memo_ent *ring;  /* recent entries, slot = idx & (rcap - 1) */
	size_t rcap;
	unsigned lost_fetches;
	enum pk_status status;
	int protocol;
	uint64_t opcodes;
};

/* Record an error at the current opcode and set the final status. */
static void fail(struct dec *d, enum pk_status st, const char *fmt, const char *a)
{
	char msg[400];

	snprintf(msg, sizeof(msg), fmt, a ? a : "");
	sink_diagf(d->s, 0, d->op_off, OL_ERROR, "pickle offset %llu: %s",
		   (unsigned long long)d->op_off, msg);
	d->status = st;
}

/* Make n bytes available at buf[pos]. 0, or -1 at end of input. */
static int need(struct dec *d, size_t n)
{
	if (d->end - d->pos >= n)
		return 0;
	if (d->pos) {
		memmove(d->buf, d->buf + d->pos, d->end - d->pos);
		d->end -= d->pos;
		d->base += d->pos;
		d->pos = 0;
	}
	if (n > d->cap) {
		size_t nc = d->cap;
		unsigned char *nb;
		while (nc < n)
			nc *= 2;
		nb = realloc(d->buf, nc);
		if (!nb)
			return -1;
		d->buf = nb;
		d->cap = nc;
	}
	while (d->end < n && !d->eof) {
		ssize_t r = input_read(d->in, d->buf + d->end, d->cap - d->end);
		if (r <= 0) {
			d->eof = 1;
			break;
		}
		d->end += (size_t)r;
	}
	return d->end - d->pos >= n ? 0 : -1;
}

static uint64_t rd_le(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;
	while (n--)
		v = (v << 8) | p[n];
	return v;
}

/* Is a length read from the file possible at all? */
static int len_ok(struct dec *d, uint64_t n)
{
	if (n > PK_MAX_STRING)
		return 0;
	if (!d->in->compressed && d->in->size &&
	    n > d->in->size - (d->base + d->pos < d->in->size ? d->base + d->pos : d->in->size))
		return 0;
	return 1;
}

static int push(struct dec *d, struct pk_val v)
{
	if (d->sp == d->scap) {
		size_t nc = d->scap ? d->scap * 2 : 1024;
		struct pk_val *ns;
		if (nc > PK_MAX_STACK) {
			pk_release(&v);
			fail(d, PK_CORRUPT, "more than %s values on the stack", "4194304");
			return -1;
		}
		ns = realloc(d->stk, nc * sizeof(*ns));
		if (!ns) {
			pk_release(&v);
			fail(d, PK_CORRUPT, "out of memory%s", NULL);
			return -1;
		}
		d->stk = ns;
		d->scap = nc;
	}
	d->stk[d->sp++] = v;
	return 0;
}

static int push_int(struct dec *d, enum pk_type t, int64_t i)
{
	struct pk_val v;
	v.type = t;
	v.u.i = i;
	return push(d, v);
}

/* Lowest stack index usable by the current opcode (above the last mark). */
static size_t floor_sp(struct dec *d)
{
	return d->nmarks ? d->marks[d->nmarks - 1] : 0;
}

static int underflow(struct dec *d, size_t n)
{
	if (d->sp - floor_sp(d) < n || d->sp < n) {
		fail(d, PK_CORRUPT, "%s needs more values on the stack than there are",
		     pk_opname(d->op));
		return 1;
	}
	return 0;
}

/* Pop to the last mark; returns the index the items start at, or -1. */
static long pop_mark(struct dec *d)
{
	if (!d->nmarks) {
		fail(d, PK_CORRUPT, "%s without a MARK", pk_opname(d->op));
		return -1;
	}
	return (long)d->marks[--d->nmarks];
}

/* A string object from n raw bytes (UTF-8 cleaned when str). */
static int push_string(struct dec *d, enum pk_type t, const unsigned char *p, size_t n)
{
	struct strbuf sb = STRBUF_INIT, raw = STRBUF_INIT;
	struct pk_obj *o;
	struct pk_val v;
	size_t i, k;

	if (t == PK_STR) {
		/* fast path: plain ASCII without NUL */
		for (i = 0; i < n; i++)
			if (p[i] >= 0x80 || p[i] == 0)
				break;
		if (i < n) {
			/* CPython writes lone surrogates (surrogatepass) as
			 * ED A0..BF 80..BF: one character, one U+FFFD */
			if (strbuf_add(&raw, p, n) < 0)
				goto oom;
			for (k = i; k + 2 < n; k++)
				if (p[k] == 0xed && p[k + 1] >= 0xa0 && p[k + 1] <= 0xbf &&
				    p[k + 2] >= 0x80 && p[k + 2] <= 0xbf) {
					memcpy(raw.buf + k, "\xef\xbf\xbd", 3);
					k += 2;
				}
			if (strbuf_add_utf8(&sb, raw.buf, raw.len) < 0)
				goto oom;
			p = (const unsigned char *)sb.buf;
			n = sb.len;
		}
	}
	o = obj_new_str(t, n);
	if (!o)
		goto oom;
	memcpy(o->u.str.s, p, n);
	o->u.str.s[n] = 0;
	strbuf_release(&sb);
	strbuf_release(&raw);
	v.type = t;
	v.u.o = o;
	return push(d, v);
oom:
	strbuf_release(&sb);
	strbuf_release(&raw);
	fail(d, PK_CORRUPT, "out of memory%s", NULL);
	return -1;
}

/* Read a length-prefixed string: lb = bytes of the little-endian length. */
static int op_string(struct dec *d, unsigned lb, enum pk_type t)
{
	uint64_t n;

	if (need(d, lb) < 0)
		return -2;
	n = rd_le(d->buf + d->pos, lb);
	if (!len_ok(d, n)) {
		fail(d, PK_CORRUPT, "%s length larger than the rest of the file or the limit",
		     pk_opname(d->op));
		return -1;
	}
	d->pos += lb;
	if (need(d, (size_t)n) < 0)
		return -2;
	d->pos += (size_t)n;
	return push_string(d, t, d->buf + d->pos - n, (size_t)n);
}

/* Read a text line (protocol 0 arguments) into a small buffer. */
static int read_line(struct dec *d, char *out, size_t outsz)
{
	size_t n = 1;
	unsigned char *nl;

	for (;;) {
		if (need(d, n) < 0)
			return -2;
		nl = memchr(d->buf + d->pos, '\n', d->end - d->pos);
		if (nl)
			break;
		if (d->end - d->pos >= outsz) {
			fail(d, PK_CORRUPT, "%s argument line too long", pk_opname(d->op));
			return -1;
		}
		n = d->end - d->pos + 1;
	}
	n = (size_t)(nl - (d->buf + d->pos));
	if (n >= outsz) {
		fail(d, PK_CORRUPT, "%s argument line too long", pk_opname(d->op));
		return -1;
	}
	memcpy(out, d->buf + d->pos, n);
	out[n] = 0;
	d->pos += n + 1;
	return (int)n;
}

/* ---- the memo ---- */

static size_t memo_slot(struct dec *d, uint32_t idx)
{
	size_t m = d->mcap - 1, i = (idx * 2654435761u) & m;

	while (d->memo[i].used && d->memo[i].idx != idx)
		i = (i + 1) & m;
	return i;
}

static int memo_grow(struct dec *d)
{
	struct memo_ent *old = d->memo;
	size_t oc = d->mcap, i;

	d->mcap = oc ? oc * 2 : 1024;
	d->memo = calloc(d->mcap, sizeof(*d->memo));
	if (!d->memo) {
		d->memo = old;
		d->mcap = oc;
		return -1;
	}
	for (i = 0; i < oc; i++)
		if (old[i].used)
			d->memo[memo_slot(d, old[i].idx)] = old[i];
	free(old);
	return 0;
}

/* Remove the entry at slot i (backward-shift deletion). */
static void memo_del_slot(struct dec *d, size_t i)
{
	size_t m = d->mcap - 1, j = i, k;

	if (is_obj(d->memo[i].v.type) && d->memo[i].v.u.o->memo == (int64_t)d->memo[i].idx)
		d->memo[i].v.u.o->memo = -1;
	pk_release(&d->memo[i].v);
	d->memo[i].used = 0;
	d->mn--;
	for (;;) {
		j = (j + 1) & m;
		if (!d->memo[j].used)
			return;
		k = (d->memo[j].idx * 2654435761u) & m;
		/* can entry j move to the hole at i? */
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			d->memo[i] = d->memo[j];
			d->memo[j].used = 0;
			i = j;
		}
	}
}

/* Store v at idx in the pinned table (taking a reference). */
static int pin_put(struct dec *d, uint32_t idx, struct pk_val v, int fetched)
{
	struct memo_ent *e;

	if ((d->mn + 1) * 4 >= d->mcap * 3 && memo_grow(d) < 0) {
		fail(d, PK_CORRUPT, "out of memory%s", NULL);
		return -1;
	}
	e = &d->memo[memo_slot(d, idx)];
	if (e->used) {
		pk_release(&e->v);
	} else {
		if (d->mn >= PK_MAX_MEMO) {
			fail(d, PK_CORRUPT, "memo larger than the limit (%s entries)", "33554432");
			return -1;
		}
		e->used = 1;
		e->idx = idx;
		d->mn++;
	}
	e->fetched = fetched;
	e->v = v;
	if (idx > d->pin_max)
		d->pin_max = idx;
	return 0;
}

/* Empty a ring slot: a fetched entry moves to the pinned table, one never
 * fetched is dropped. */
static int ring_evict(struct dec *d, struct memo_ent *s)
{
	s->used = 0;
	if (s->fetched)
		return pin_put(d, s->idx, s->v, 1);
	if (is_obj(s->v.type) && s->v.u.o->memo == (int64_t)s->idx)
		s->v.u.o->memo = -1;
	pk_release(&s->v);
	return 0;
}

static int ring_grow(struct dec *d)
{
	size_t nc = d->rcap ? d->rcap * 2 : 1024, i;
	struct memo_ent *nr = calloc(nc, sizeof(*nr));

	if (!nr)
		return -1;
	for (i = 0; i < d->rcap; i++)
		if (d->ring[i].used)
			nr[d->ring[i].idx & (nc - 1)] = d->ring[i];
	free(d->ring);
	d->ring = nr;
	d->rcap = nc;
	return 0;
}

/* MEMOIZE/PUT: the top of the stack at idx. Recent entries live in a ring
 * indexed by idx (CPython's indices are sequential): slot reuse drops the
 * entries never fetched and moves the fetched ones to the pinned table. */
static int memo_put(struct dec *d, uint32_t idx)
{
	struct memo_ent *s;
	struct pk_val v;

	if (!d->sp || d->sp == floor_sp(d)) {
		fail(d, PK_CORRUPT, "%s with nothing to store", pk_opname(d->op));
		return -1;
	}
	v = d->stk[d->sp - 1];
	pk_incref(&v);
	if ((uint64_t)idx + 1 > d->mlen)
		d->mlen = (uint64_t)idx + 1;
	for (;;) {
		if (!d->rcap && ring_grow(d) < 0)
			goto oom;
		s = &d->ring[idx & (d->rcap - 1)];
		if (!s->used || s->idx == idx || d->rcap >= PK_MEMO_WINDOW)
			break;
		if (ring_grow(d) < 0)
			goto oom;
	}
	if (s->used && s->idx != idx) {
		if (s->idx > idx)   /* older than the window: straight to the table */
			return pin_put(d, idx, v, 0) < 0 ? (pk_release(&v), -1) : 0;
		if (ring_evict(d, s) < 0)
			goto fail;
	}
	if (s->used) {
		pk_release(&s->v);
	} else if (d->mn && idx <= d->pin_max) {
		/* a re-put of an index in the table: the ring copy wins */
		size_t i = memo_slot(d, idx);
		if (d->memo[i].used)
			memo_del_slot(d, i);
	}
	s->used = 1;
	s->idx = idx;
	s->fetched = 0;
	s->v = v;
	if (is_obj(v.type))
		v.u.o->memo = idx;
	return 0;
oom:
	fail(d, PK_CORRUPT, "out of memory%s", NULL);
fail:
	pk_release(&v);
	return -1;
}

static struct memo_ent *memo_find(struct dec *d, uint32_t idx)
{
	if (d->rcap) {
		struct memo_ent *s = &d->ring[idx & (d->rcap - 1)];
		if (s->used && s->idx == idx)
			return s;
	}
	if (d->mcap) {
		struct memo_ent *e = &d->memo[memo_slot(d, idx)];
		if (e->used)
			return e;
	}
	return NULL;
}

static int memo_get(struct dec *d, uint32_t idx)
{
	struct memo_ent *e = memo_find(d, idx);
	struct pk_val v;

	if (!e) {
		if (d->lost_fetches++ < 20) {
			char msg[160];
			snprintf(msg, sizeof(msg), "memo index %u is not held (never stored, or"
				 " dropped after being streamed or leaving the memo window);"
				 " using None", idx);
			sink_diagf(d->s, 0, d->op_off, OL_ERROR, "pickle offset %llu: %s",
				   (unsigned long long)d->op_off, msg);
		}
		v.type = PK_NONE;
		return push(d, v);
	}
	e->fetched = 1;
	if (is_obj(e->v.type))
		e->v.u.o->shared = 1;
	v = e->v;
	pk_incref(&v);
	return push(d, v);
}

/* Drop the memo's hold on a container the consumer took (if never fetched). */
static void memo_forget(struct dec *d, const struct pk_val *v)
{
	struct pk_obj *o = v->u.o;
	struct memo_ent *e;

	if (!is_container(v->type) || o->memo < 0 || o->shared)
		return;
	e = memo_find(d, (uint32_t)o->memo);
	if (!e || e->fetched || !is_obj(e->v.type) || e->v.u.o != o)
		return;
	if (d->rcap && e >= d->ring && e < d->ring + d->rcap)
		ring_evict(d, e);
	else
		memo_del_slot(d, (size_t)(e - d->memo));
}

/* ---- containers ---- */

static const char *type_name(enum pk_type t)
{
	static const char *const n[] = { "None", "bool", "int", "int", "float", "str",
					  "bytes", "list", "tuple", "dict", "set" };
	return n[t];
}

/* Add val (and key, for dicts) to container cv, taking over the
 * references. Returns 0, or -1 (status set). */
static int add_item(struct dec *d, struct pk_val *cv, struct pk_val *key, struct pk_val *val)
{
	struct pk_obj *c = cv->u.o;
	size_t want = key ? 2 : 1;
	uint32_t vd = 0;

	if (!is_container(cv->type) || cv->type == PK_TUPLE ||
	    (key != NULL) != (cv->type == PK_DICT)) {
		char msg[80];
		snprintf(msg, sizeof(msg), "%s onto a %s", pk_opname(d->op), type_name(cv->type));
		fail(d, PK_CORRUPT, "%s: wrong type", msg);
		goto bad;
	}
	if (c->parents) {
		fail(d, PK_CORRUPT, "%s into a container already placed in another"
		     " (recursive structures are not supported)", pk_opname(d->op));
		goto bad;
	}
	if ((is_obj(val->type) && val->u.o == c) || (key && is_obj(key->type) && key->u.o == c)) {
		fail(d, PK_CORRUPT, "%s of a container into itself", pk_opname(d->op));
		goto bad;
	}
	if (is_container(val->type))
		vd = val->u.o->depth;
	if (key && is_container(key->type) && key->u.o->depth > vd)
		vd = key->u.o->depth;
	if (vd + 1 > PK_MAX_DEPTH) {
		fail(d, PK_CORRUPT, "containers nested deeper than %s", "64");
		goto bad;
	}
	if (c->tag && d->h && d->h->item) {
		int r = d->h->item(d->h->ud, c->tag, c, key, val, c->u.c.count, d->op_off);
		if (r < 0) {
			d->status = PK_ABORTED;
			goto bad;
		}
		if (r == 1) {
			c->u.c.count++;
			memo_forget(d, val);
			if (key)
				pk_release(key);
			pk_release(val);
			return 0;
		}
	}
	if (c->u.c.n + want > c->u.c.cap) {
		size_t nc = c->u.c.cap ? c->u.c.cap * 2 : cv->type == PK_DICT ? 24 : 8;
		struct pk_val *nv;
		if (nc > 2 * (size_t)PK_MAX_ITEMS) {
			fail(d, PK_CORRUPT, "a container holds more items than the limit%s", NULL);
			goto bad;
		}
		nv = realloc(c->u.c.v, nc * sizeof(*nv));
		if (!nv) {
			fail(d, PK_CORRUPT, "out of memory%s", NULL);
			goto bad;
		}
		c->u.c.v = nv;
		c->u.c.cap = nc;
	}
	if (key) {
		if (is_container(key->type))
			key->u.o->parents++;
		c->u.c.v[c->u.c.n++] = *key;
	}
	if (is_container(val->type))
		val->u.o->parents++;
	c->u.c.v[c->u.c.n++] = *val;
	c->u.c.count++;
	if (vd + 1 > c->depth)
		c->depth = vd + 1;
	return 0;
bad:
	if (key)
		pk_release(key);
	pk_release(val);
	return -1;
}

/* Work out the slot a new container of type t is created in, and ask the
 * handler for its tag. See pickle.h (open) and DESIGN in docs/formats.md. */
static uint32_t tag_new(struct dec *d, enum pk_type t)
{
	size_t p = d->sp, m = floor_sp(d);
	const struct pk_val *key = NULL;
	struct pk_obj *parent = NULL;
	uint64_t index = 0;

	if (!d->h || !d->h->open)
		return 0;
	if (p == 0 && d->nmarks == 0)
		return d->h->open(d->h->ud, PK_TAG_TOP, t, NULL, 0);
	/* `dict key <new> SETITEM` (a one-item dict being filled) */
	if (p >= 2 && m <= p - 2 && d->stk[p - 2].type == PK_DICT &&
	    d->stk[p - 2].u.o->u.c.count == 0 && d->stk[p - 1].type == PK_STR) {
		parent = d->stk[p - 2].u.o;
		key = &d->stk[p - 1];
	/* `list <new> APPEND` (a one-item list being filled) */
	} else if (p >= 1 && m <= p - 1 && (d->stk[p - 1].type == PK_LIST) &&
		   d->stk[p - 1].u.o->u.c.count == 0) {
		parent = d->stk[p - 1].u.o;
	/* inside a MARK group of a dict or list */
	} else if (d->nmarks && m >= 1 && d->stk[m - 1].type == PK_DICT && (p - m) % 2 == 1) {
		parent = d->stk[m - 1].u.o;
		key = &d->stk[p - 1];
	} else if (d->nmarks && m >= 1 && d->stk[m - 1].type == PK_LIST) {
		parent = d->stk[m - 1].u.o;
		index = parent->u.c.count + (p - m);
	}
	if (!parent || !parent->tag || parent->parents)
		return 0;
	if (!key)
		index = index ? index : parent->u.c.count;
	return d->h->open(d->h->ud, parent->tag, t, key, index);
}

static int push_container(struct dec *d, enum pk_type t)
{
	struct pk_obj *o = obj_new(t);
	struct pk_val v;

	if (!o) {
		fail(d, PK_CORRUPT, "out of memory%s", NULL);
		return -1;
	}
	if (t != PK_TUPLE)
		o->tag = tag_new(d, t);
	v.type = t;
	v.u.o = o;
	return push(d, v);
}

/* Build a tuple (or list/set/dict for LIST/FROZENSET/DICT) of the items
 * stk[from..sp) and push it. */
static int build_from(struct dec *d, size_t from, enum pk_type t)
{
	size_t n = d->sp - from, i;
	struct pk_val *items;

	if (t == PK_TUPLE) {
		struct pk_obj *o = obj_new(PK_TUPLE);
		struct pk_val v;
		uint32_t depth = 1;
		if (!o)
			goto oom;
		if (n) {
			if (o->u.c.cap < n) {
				struct pk_val *nv = realloc(o->u.c.v, n * sizeof(*nv));
				if (!nv) {
					struct pk_val t0 = { PK_TUPLE, { 0 } };
					t0.u.o = o;
					pk_release(&t0);
					goto oom;
				}
				o->u.c.v = nv;
				o->u.c.cap = n;
			}
		}
		for (i = 0; i < n; i++) {
			o->u.c.v[i] = d->stk[from + i];
			if (is_container(o->u.c.v[i].type)) {
				o->u.c.v[i].u.o->parents++;
				if (o->u.c.v[i].u.o->depth + 1 > depth)
					depth = o->u.c.v[i].u.o->depth + 1;
			}
		}
		o->u.c.n = n;
		o->u.c.count = n;
		o->depth = depth;
		d->sp = from;
		if (depth > PK_MAX_DEPTH) {
			v.type = PK_TUPLE;
			v.u.o = o;
			pk_release(&v);
			fail(d, PK_CORRUPT, "containers nested deeper than %s", "64");
			return -1;
		}
		v.type = PK_TUPLE;
		v.u.o = o;
		return push(d, v);
	}
	if (t == PK_DICT && n % 2) {
		fail(d, PK_CORRUPT, "%s with an odd number of items", pk_opname(d->op));
		return -1;
	}
	/* take the items off the stack, make the container, add them */
	items = malloc((n ? n : 1) * sizeof(*items));
	if (!items)
		goto oom;
	if (n)
		memcpy(items, d->stk + from, n * sizeof(*items));
	d->sp = from;
	if (push_container(d, t) < 0) {
		for (i = 0; i < n; i++)
			pk_release(&items[i]);
		free(items);
		return -1;
	}
	for (i = 0; i < n; i += t == PK_DICT ? 2 : 1) {
		int r = t == PK_DICT ? add_item(d, &d->stk[d->sp - 1], &items[i], &items[i + 1])
				     : add_item(d, &d->stk[d->sp - 1], NULL, &items[i]);
		if (r < 0) {
			size_t j;
			for (j = i + (t == PK_DICT ? 2 : 1); j < n; j++)
				pk_release(&items[j]);
			free(items);
			return -1;
		}
	}
	free(items);
	return 0;
oom:
	fail(d, PK_CORRUPT, "out of memory%s", NULL);
	return -1;
}

/* APPENDS / SETITEMS / ADDITEMS: items above the mark into the container
 * just below it. */
static int fill_from_mark(struct dec *d, int pairs)
{
	long m = pop_mark(d);
	size_t i, n;

	if (m < 0)
		return -1;
	if (m == 0) {
		fail(d, PK_CORRUPT, "%s with no container below its MARK", pk_opname(d->op));
		return -1;
	}
	n = d->sp - (size_t)m;
	if (pairs && n % 2) {
		fail(d, PK_CORRUPT, "%s with an odd number of items", pk_opname(d->op));
		return -1;
	}
	for (i = 0; i < n; i += pairs ? 2 : 1) {
		int r = pairs ? add_item(d, &d->stk[m - 1], &d->stk[m + i], &d->stk[m + i + 1])
			      : add_item(d, &d->stk[m - 1], NULL, &d->stk[m + i]);
		if (r < 0) {
			size_t j;
			for (j = i + (pairs ? 2 : 1); j < n; j++)
				pk_release(&d->stk[m + j]);
			d->sp = (size_t)m;
			return -1;
		}
	}
	d->sp = (size_t)m;
	return 0;
}

/* After an abnormal end: close the open MARK groups from the innermost
 * out, so that the items read are handed over. */
static void flush_pending(struct dec *d)
{
	enum pk_status saved = d->status;

	while (d->nmarks) {
		size_t m = d->marks[d->nmarks - 1];
		if (m >= 1 && (d->stk[m - 1].type == PK_LIST || d->stk[m - 1].type == PK_DICT ||
			       d->stk[m - 1].type == PK_SET) && !d->stk[m - 1].u.o->parents) {
			if (d->stk[m - 1].type == PK_DICT && (d->sp - m) % 2)
				pk_release(&d->stk[--d->sp]);   /* a key without value */
			d->op = d->stk[m - 1].type == PK_DICT ? 'u' : 'e';
			if (fill_from_mark(d, d->stk[m - 1].type == PK_DICT) < 0) {
				if (d->status == PK_ABORTED)
					return;
				break;
			}
		} else {
			while (d->sp > m)
				pk_release(&d->stk[--d->sp]);
			d->nmarks--;
		}
	}
	d->status = saved;
}

/* Decode a little-endian two's-complement integer of n bytes at p. */
static struct pk_val long_value(const unsigned char *p, uint64_t n)
{
	struct pk_val v;
	uint64_t u = 0;
	int neg = n && (p[n - 1] & 0x80);
	uint64_t i, sig = n;

	/* drop redundant sign-extension bytes */
	while (sig > 1 && p[sig - 1] == (neg ? 0xff : 0x00) &&
	       ((p[sig - 2] & 0x80) != 0) == neg)
		sig--;
	if (sig > 8) {
		v.type = PK_BIGINT;
		v.u.i = (int64_t)n;
		return v;
	}
	for (i = 0; i < 8; i++)
		u |= (uint64_t)(i < sig ? p[i] : (neg ? 0xff : 0)) << (8 * i);
	v.type = PK_INT;
	memcpy(&v.u.i, &u, sizeof(u));
	return v;
}

/* ---- protocol 0 text strings ---- */

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Append code point cp as UTF-8 (surrogates and out-of-range: U+FFFD). */
static int add_cp(struct strbuf *sb, uint32_t cp)
{
	char u[4];

	if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		cp = 0xfffd;
	if (cp < 0x80)
		return strbuf_addch(sb, (int)cp);
	if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		return strbuf_add(sb, u, 2);
	}
	if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		return strbuf_add(sb, u, 3);
	}
	u[0] = (char)(0xf0 | (cp >> 18));
	u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	u[3] = (char)(0x80 | (cp & 0x3f));
	return strbuf_add(sb, u, 4);
}

/* UNICODE: raw-unicode-escape (\uXXXX, \UXXXXXXXX; other bytes latin-1). */
static int unescape_raw_unicode(struct strbuf *sb, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\\' && i + 1 < n && (s[i + 1] == 'u' || s[i + 1] == 'U')) {
			size_t k = s[i + 1] == 'u' ? 4 : 8, j;
			uint32_t cp = 0;
			if (i + 2 + k <= n) {
				for (j = 0; j < k && hexval(s[i + 2 + j]) >= 0; j++)
					cp = cp * 16 + (uint32_t)hexval(s[i + 2 + j]);
				if (j == k) {
					if (add_cp(sb, cp) < 0)
						return -1;
					i += 2 + k;
					continue;
				}
			}
		}
		if (add_cp(sb, c) < 0)
			return -1;
		i++;
	}
	return 0;
}

/* STRING: a Python 2 str repr body (\\, \', \n, \xHH ...), bytes kept. */
static int unescape_string(struct strbuf *sb, const char *s, size_t n)
{
	struct strbuf raw = STRBUF_INIT;
	size_t i = 0;
	int r;

	while (i < n) {
		int c = (unsigned char)s[i++];
		if (c == '\\' && i < n) {
			int e = s[i++];
			switch (e) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case '0': c = 0; break;
			case 'x':
				if (i + 2 <= n && hexval(s[i]) >= 0 && hexval(s[i + 1]) >= 0) {
					c = hexval(s[i]) * 16 + hexval(s[i + 1]);
					i += 2;
				}
				break;
			default: c = e; break;
			}
		}
		if (strbuf_addch(&raw, c) < 0) {
			strbuf_release(&raw);
			return -1;
		}
	}
	r = strbuf_add(sb, raw.buf, raw.len);
	strbuf_release(&raw);
	return r;
}

/* ---- the loop ---- */

/* One opcode. Returns 0 to go on, 1 at STOP, -1 on error (status set),
 * -2 at end of input. */
static int step(struct dec *d)
{
	unsigned char op, *p;
	char line[256];
	int r;
	const char *why;

	if (need(d, 1) < 0)
		return -2;
	d->op_off = d->base + d->pos;
	op = d->op = d->buf[d->pos++];
	d->opcodes++;
	if ((why = refusal(op))) {
		char msg[300];
		snprintf(msg, sizeof(msg), "opcode %s (0x%02x) refused: %s; a memory snapshot"
			 " is plain data and never contains it", pk_opname(op), op, why);
		fail(d, PK_REFUSED, "%s", msg);
		return -1;
	}
#define NEED(n) do { if (need(d, (n)) < 0) return -2; p = d->buf + d->pos; d->pos += (n); } while (0)
	switch (op) {
	case 0x80: /* PROTO */
		NEED(1);
		d->protocol = p[0];
		if (p[0] > 5) {
			fail(d, PK_CORRUPT, "unsupported pickle protocol %s", p[0] == 6 ? "6" : ">5");
			return -1;
		}
		return 0;
	case 0x95: /* FRAME: advisory */
		NEED(8);
		return 0;
	case '.':
		if (d->sp != 1 || d->nmarks) {
			fail(d, PK_CORRUPT, "STOP with %s values left on the stack",
			     d->sp ? "several" : "no");
			return -1;
		}
		return 1;
	case '(':
		if (d->nmarks == PK_MAX_MARKS) {
			fail(d, PK_CORRUPT, "more than %s open MARKs", "4096");
			return -1;
		}
		d->marks[d->nmarks++] = d->sp;
		return 0;
	case '0': /* POP */
		if (d->sp > floor_sp(d)) {
			pk_release(&d->stk[--d->sp]);
		} else if (d->nmarks) {
			d->nmarks--;
		} else {
			fail(d, PK_CORRUPT, "POP on an empty stack%s", NULL);
			return -1;
		}
		return 0;
	case '1': { /* POP_MARK */
		long m = pop_mark(d);
		if (m < 0)
			return -1;
		while (d->sp > (size_t)m)
			pk_release(&d->stk[--d->sp]);
		return 0;
	}
	case '2': /* DUP */
		if (underflow(d, 1))
			return -1;
		pk_incref(&d->stk[d->sp - 1]);
		return push(d, d->stk[d->sp - 1]);
	case 'N':
		return push_int(d, PK_NONE, 0);
	case 0x88:
		return push_int(d, PK_BOOL, 1);
	case 0x89:
		return push_int(d, PK_BOOL, 0);
	case 'K':
		NEED(1);
		return push_int(d, PK_INT, p[0]);
	case 'M':
		NEED(2);
		return push_int(d, PK_INT, (int64_t)rd_le(p, 2));
	case 'J':
		NEED(4);
		return push_int(d, PK_INT, (int32_t)(uint32_t)rd_le(p, 4));
	case 0x8a: /* LONG1 */
		NEED(1);
		r = p[0];
		if (need(d, (size_t)r) < 0)
			return -2;
		d->pos += (size_t)r;
		return push(d, long_value(d->buf + d->pos - r, (uint64_t)r));
	case 0x8b: { /* LONG4 */
		int32_t n;
		NEED(4);
		n = (int32_t)(uint32_t)rd_le(p, 4);
		if (n < 0 || !len_ok(d, (uint64_t)n)) {
			fail(d, PK_CORRUPT, "LONG4 with a bad length%s", NULL);
			return -1;
		}
		if (need(d, (size_t)n) < 0)
			return -2;
		d->pos += (size_t)n;
		return push(d, long_value(d->buf + d->pos - n, (uint64_t)n));
	}
	case 'G': { /* BINFLOAT, big-endian */
		uint64_t u = 0;
		struct pk_val v;
		int i;
		NEED(8);
		for (i = 0; i < 8; i++)
			u = (u << 8) | p[i];
		v.type = PK_FLOAT;
		memcpy(&v.u.f, &u, sizeof(u));
		return push(d, v);
	}
	case 'I': case 'L': case 'F': { /* text numbers (protocol 0) */
		char *end;
		struct pk_val v;
		if ((r = read_line(d, line, sizeof(line))) < 0)
			return r;
		if (op == 'I' && (!strcmp(line, "00") || !strcmp(line, "01")))
			return push_int(d, PK_BOOL, line[1] == '1');
		if (op == 'F') {
			v.type = PK_FLOAT;
			v.u.f = strtod(line, &end);
		} else {
			long long x;
			if (r && line[r - 1] == 'L')
				line[--r] = 0;
			errno = 0;
			x = strtoll(line, &end, 10);
			v.type = errno ? PK_BIGINT : PK_INT;
			v.u.i = errno ? r : x;
		}
		if (end == line || *end) {
			fail(d, PK_CORRUPT, "%s argument is not a number", pk_opname(op));
			return -1;
		}
		return push(d, v);
	}
	case 'S': case 'V': { /* text strings (protocol 0) */
		char big[4096];
		struct strbuf sb = STRBUF_INIT;
		size_t n;
		if ((r = read_line(d, big, sizeof(big))) < 0)
			return r;
		n = (size_t)r;
		if (op == 'S') {
			if (n < 2 || (big[0] != '\'' && big[0] != '"') || big[n - 1] != big[0]) {
				fail(d, PK_CORRUPT, "STRING argument is not quoted%s", NULL);
				return -1;
			}
			r = unescape_string(&sb, big + 1, n - 2);
		} else {
			r = unescape_raw_unicode(&sb, big, n);
		}
		if (r < 0) {
			strbuf_release(&sb);
			fail(d, PK_CORRUPT, "out of memory%s", NULL);
			return -1;
		}
		r = push_string(d, PK_STR, (unsigned char *)sb.buf, sb.len);
		strbuf_release(&sb);
		return r;
	}
	case 'T': return op_string(d, 4, PK_STR);          /* BINSTRING */
	case 'U': return op_string(d, 1, PK_STR);          /* SHORT_BINSTRING */
	case 'X': return op_string(d, 4, PK_STR);          /* BINUNICODE */
	case 0x8c: return op_string(d, 1, PK_STR);         /* SHORT_BINUNICODE */
	case 0x8d: return op_string(d, 8, PK_STR);         /* BINUNICODE8 */
	case 'C': return op_string(d, 1, PK_BYTES);        /* SHORT_BINBYTES */
	case 'B': return op_string(d, 4, PK_BYTES);        /* BINBYTES */
	case 0x8e: return op_string(d, 8, PK_BYTES);       /* BINBYTES8 */
	case 0x96: return op_string(d, 8, PK_BYTES);       /* BYTEARRAY8 */
	case '}': return push_container(d, PK_DICT);
	case ']': return push_container(d, PK_LIST);
	case 0x8f: return push_container(d, PK_SET);
	case ')': return build_from(d, d->sp, PK_TUPLE);
	case 0x85: case 0x86: case 0x87: { /* TUPLE1..3 */
		size_t n = (size_t)(op - 0x84);
		if (underflow(d, n))
			return -1;
		return build_from(d, d->sp - n, PK_TUPLE);
	}
	case 't': case 'l': case 'd': case 0x91: { /* TUPLE, LIST, DICT, FROZENSET */
		long m = pop_mark(d);
		if (m < 0)
			return -1;
		return build_from(d, (size_t)m, op == 't' ? PK_TUPLE : op == 'l' ? PK_LIST
					   : op == 'd' ? PK_DICT : PK_SET);
	}
	case 'a': /* APPEND */
		if (underflow(d, 2))
			return -1;
		d->sp--;
		return add_item(d, &d->stk[d->sp - 1], NULL, &d->stk[d->sp]);
	case 's': /* SETITEM */
		if (underflow(d, 3))
			return -1;
		d->sp -= 2;
		return add_item(d, &d->stk[d->sp - 1], &d->stk[d->sp], &d->stk[d->sp + 1]);
	case 'e': case 0x90: /* APPENDS, ADDITEMS */
		return fill_from_mark(d, 0);
	case 'u': /* SETITEMS */
		return fill_from_mark(d, 1);
	case 0x94: /* MEMOIZE */
		/* index = len(memo) as the unpickler counts it; entries this
		 * decoder dropped still count */
		if (d->mlen > UINT32_MAX) {
			fail(d, PK_CORRUPT, "memo index past 2^32%s", NULL);
			return -1;
		}
		return memo_put(d, (uint32_t)d->mlen);
	case 'q':
		NEED(1);
		return memo_put(d, p[0]);
	case 'r':
		NEED(4);
		return memo_put(d, (uint32_t)rd_le(p, 4));
	case 'h':
		NEED(1);
		return memo_get(d, p[0]);
	case 'j':
		NEED(4);
		return memo_get(d, (uint32_t)rd_le(p, 4));
	case 'p': case 'g': { /* PUT, GET (text index) */
		char *end;
		unsigned long long x;
		if ((r = read_line(d, line, sizeof(line))) < 0)
			return r;
		x = strtoull(line, &end, 10);
		if (end == line || *end || x > UINT32_MAX) {
			fail(d, PK_CORRUPT, "%s index is not a number", pk_opname(op));
			return -1;
		}
		return op == 'p' ? memo_put(d, (uint32_t)x) : memo_get(d, (uint32_t)x);
	}
	default: {
		char msg[64];
		snprintf(msg, sizeof(msg), "0x%02x", op);
		fail(d, PK_CORRUPT, "unknown opcode %s: not a pickle, or corrupt", msg);
		return -1;
	}
	}
#undef NEED
}

int pk_decode(struct input *in, const struct pk_handler *h, struct sink *s,
	      struct pk_result *res)
{
	struct dec d;
	int r = 0;

	memset(&d, 0, sizeof(d));
	memset(res, 0, sizeof(*res));
	d.in = in;
	d.s = s;
	d.h = h;
	d.protocol = -1;
	d.base = in->offset;
	d.cap = 1u << 16;
	d.buf = malloc(d.cap);
	if (!d.buf) {
		sink_diagf(s, 0, 0, OL_ERROR, "out of memory");
		res->status = PK_CORRUPT;
		goto out;
	}
	for (;;) {
		r = step(&d);
		if (r == 0)
			continue;
		break;
	}
	if (r == 1) {
		d.status = PK_DONE;
		res->top = d.stk[--d.sp];
	} else if (r == -2) {
		d.op_off = d.base + d.end;
		sink_diagf(s, 0, d.op_off, OL_ERROR,
			   "pickle offset %llu: the pickle ends before its STOP opcode"
			   " (truncated file?); keeping what was read",
			   (unsigned long long)d.op_off);
		d.status = PK_TRUNCATED;
	}
	if (d.status != PK_DONE && d.status != PK_ABORTED)
		flush_pending(&d);
	if (d.lost_fetches > 20)
		sink_diagf(s, 0, d.op_off, OL_ERROR, "%u more memo fetches of values not held",
			   d.lost_fetches - 20);
	res->status = d.status;
out:
	res->protocol = d.protocol;
	res->offset = d.base + d.pos;
	res->opcodes = d.opcodes;
	while (d.sp)
		pk_release(&d.stk[--d.sp]);
	if (d.memo) {
		size_t i;
		for (i = 0; i < d.mcap; i++)
			if (d.memo[i].used)
				pk_release(&d.memo[i].v);
	}
	free(d.memo);
	if (d.ring) {
		size_t i;
		for (i = 0; i < d.rcap; i++)
			if (d.ring[i].used)
				pk_release(&d.ring[i].v);
	}
	free(d.ring);
	free(d.stk);
	free(d.buf);
	return res->status == PK_ABORTED ? -1 : 0;
}
