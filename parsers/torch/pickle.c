/*
 * pickle.c -- the opcode loop of the streaming, non-executing pickle
 * decoder; see pickle.h for what it does and pickle_internal.h for how its
 * files divide the work.
 *
 * Structure (after CPython's Modules/_pickle.c load loop, minus everything
 * that calls into Python): step() reads one opcode and dispatches it in
 * one switch that reads as the opcode table; each family of opcodes has a
 * helper below (op_*). The byte stream, the stack and containers, the memo
 * and the values live in pickle_read.c, pickle_stack.c, pickle_memo.c and
 * pickle_values.c.
 */
#include "parsers/torch/pickle_internal.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <stdio.h>
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

void pd_fail(struct dec *d, enum pk_status st, const char *fmt, const char *a)
{
	char msg[400];

	snprintf(msg, sizeof(msg), fmt, a ? a : "");
	sink_diagf(d->s, 0, d->op_off, OL_ERROR, "pickle offset %llu: %s",
		   (unsigned long long)d->op_off, msg);
	d->status = st;
}

/* ---- one helper per opcode family ----
 * Each returns what step() returns: 0 go on, 1 at STOP, -1 on error
 * (status set), -2 at end of input. */

static int op_refused(struct dec *d, const char *why)
{
	char msg[300];

	snprintf(msg, sizeof(msg), "opcode %s (0x%02x) refused: %s; a memory snapshot"
		 " is plain data and never contains it", pk_opname(d->op), d->op, why);
	pd_fail(d, PK_REFUSED, "%s", msg);
	return -1;
}

static int op_unknown(struct dec *d)
{
	char msg[64];

	snprintf(msg, sizeof(msg), "0x%02x", d->op);
	pd_fail(d, PK_CORRUPT, "unknown opcode %s: not a pickle, or corrupt", msg);
	return -1;
}

/* PROTO */
static int op_proto(struct dec *d)
{
	const unsigned char *p = pd_take(d, 1);

	if (!p)
		return -2;
	d->protocol = p[0];
	if (p[0] > 5) {
		pd_fail(d, PK_CORRUPT, "unsupported pickle protocol %s", p[0] == 6 ? "6" : ">5");
		return -1;
	}
	return 0;
}

/* FRAME: its length is advisory, the opcodes follow inline. */
static int op_skip(struct dec *d, size_t n)
{
	return pd_take(d, n) ? 0 : -2;
}

/* STOP: exactly the result on the stack. */
static int op_stop(struct dec *d)
{
	if (d->sp != 1 || d->nmarks) {
		pd_fail(d, PK_CORRUPT, "STOP with %s values left on the stack",
			d->sp ? "several" : "no");
		return -1;
	}
	return 1;
}

static int op_mark(struct dec *d)
{
	if (d->nmarks == PK_MAX_MARKS) {
		pd_fail(d, PK_CORRUPT, "more than %s open MARKs", "4096");
		return -1;
	}
	d->marks[d->nmarks++] = d->sp;
	return 0;
}

/* POP: the top value, or an empty MARK group. */
static int op_pop(struct dec *d)
{
	if (d->sp > pd_floor(d)) {
		pk_release(&d->stk[--d->sp]);
	} else if (d->nmarks) {
		d->nmarks--;
	} else {
		pd_fail(d, PK_CORRUPT, "POP on an empty stack%s", NULL);
		return -1;
	}
	return 0;
}

static int op_pop_mark(struct dec *d)
{
	long m = pd_pop_mark(d);

	if (m < 0)
		return -1;
	while (d->sp > (size_t)m)
		pk_release(&d->stk[--d->sp]);
	return 0;
}

static int op_dup(struct dec *d)
{
	if (pd_underflow(d, 1))
		return -1;
	pk_incref(&d->stk[d->sp - 1]);
	return pd_push(d, d->stk[d->sp - 1]);
}

/* BININT1, BININT2 (unsigned), BININT (signed 32 bits). */
static int op_binint(struct dec *d, unsigned n)
{
	const unsigned char *p = pd_take(d, n);

	if (!p)
		return -2;
	if (n == 4)
		return pd_push_int(d, PK_INT, (int32_t)(uint32_t)pd_le(p, 4));
	return pd_push_int(d, PK_INT, (int64_t)pd_le(p, n));
}

/* LONG1 (1-byte length), LONG4 (4-byte signed length). */
static int op_long(struct dec *d, unsigned lb)
{
	const unsigned char *p = pd_take(d, lb);
	int64_t n;

	if (!p)
		return -2;
	n = lb == 1 ? p[0] : (int32_t)(uint32_t)pd_le(p, 4);
	if (lb == 4 && (n < 0 || !pd_len_ok(d, (uint64_t)n))) {
		pd_fail(d, PK_CORRUPT, "LONG4 with a bad length%s", NULL);
		return -1;
	}
	if (!(p = pd_take(d, (size_t)n)))
		return -2;
	return pd_push(d, pd_long_value(p, (uint64_t)n));
}

/* BINFLOAT: an IEEE double, big-endian. */
static int op_binfloat(struct dec *d)
{
	const unsigned char *p = pd_take(d, 8);
	uint64_t u = 0;
	struct pk_val v;
	int i;

	if (!p)
		return -2;
	for (i = 0; i < 8; i++)
		u = (u << 8) | p[i];
	v.type = PK_FLOAT;
	memcpy(&v.u.f, &u, sizeof(u));
	return pd_push(d, v);
}

/* INT, LONG, FLOAT: protocol 0 numbers as text lines. */
static int op_text_number(struct dec *d)
{
	char line[256], *end;
	struct pk_val v;
	int r = pd_read_line(d, line, sizeof(line));

	if (r < 0)
		return r;
	if (d->op == 'I' && (!strcmp(line, "00") || !strcmp(line, "01")))
		return pd_push_int(d, PK_BOOL, line[1] == '1');
	if (d->op == 'F') {
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
		pd_fail(d, PK_CORRUPT, "%s argument is not a number", pk_opname(d->op));
		return -1;
	}
	return pd_push(d, v);
}

/* STRING (quoted, escaped), UNICODE (raw-unicode-escape): protocol 0. */
static int op_text_string(struct dec *d)
{
	char big[4096];
	struct strbuf sb = STRBUF_INIT;
	size_t n;
	int r = pd_read_line(d, big, sizeof(big));

	if (r < 0)
		return r;
	n = (size_t)r;
	if (d->op == 'S') {
		if (n < 2 || (big[0] != '\'' && big[0] != '"') || big[n - 1] != big[0]) {
			pd_fail(d, PK_CORRUPT, "STRING argument is not quoted%s", NULL);
			return -1;
		}
		r = pd_unescape_string(&sb, big + 1, n - 2);
	} else {
		r = pd_unescape_raw_unicode(&sb, big, n);
	}
	if (r < 0) {
		strbuf_release(&sb);
		pd_oom(d);
		return -1;
	}
	r = pd_push_string(d, PK_STR, (unsigned char *)sb.buf, sb.len);
	strbuf_release(&sb);
	return r;
}

/* A length-prefixed string: lb = bytes of the little-endian length. */
static int op_string(struct dec *d, unsigned lb, enum pk_type t)
{
	const unsigned char *p;
	uint64_t n;

	if (pd_need(d, lb) < 0)
		return -2;
	n = pd_le(d->buf + d->pos, lb);
	if (!pd_len_ok(d, n)) {
		pd_fail(d, PK_CORRUPT, "%s length larger than the rest of the file or the limit",
			pk_opname(d->op));
		return -1;
	}
	d->pos += lb;
	if (!(p = pd_take(d, (size_t)n)))
		return -2;
	return pd_push_string(d, t, p, (size_t)n);
}

/* TUPLE1..3: the top n values. */
static int op_tuple_n(struct dec *d, size_t n)
{
	if (pd_underflow(d, n))
		return -1;
	return pd_build_from(d, d->sp - n, PK_TUPLE);
}

/* TUPLE, LIST, DICT, FROZENSET: the values above the mark. */
static int op_from_mark(struct dec *d, enum pk_type t)
{
	long m = pd_pop_mark(d);

	if (m < 0)
		return -1;
	return pd_build_from(d, (size_t)m, t);
}

static int op_append(struct dec *d)
{
	if (pd_underflow(d, 2))
		return -1;
	d->sp--;
	return pd_add_item(d, &d->stk[d->sp - 1], NULL, &d->stk[d->sp]);
}

static int op_setitem(struct dec *d)
{
	if (pd_underflow(d, 3))
		return -1;
	d->sp -= 2;
	return pd_add_item(d, &d->stk[d->sp - 1], &d->stk[d->sp], &d->stk[d->sp + 1]);
}

/* MEMOIZE: index = len(memo) as the unpickler counts it; entries this
 * decoder dropped still count. */
static int op_memoize(struct dec *d)
{
	if (d->mlen > UINT32_MAX) {
		pd_fail(d, PK_CORRUPT, "memo index past 2^32%s", NULL);
		return -1;
	}
	return pd_memo_put(d, (uint32_t)d->mlen);
}

/* BINPUT, LONG_BINPUT, BINGET, LONG_BINGET: an n-byte index. */
static int op_memo(struct dec *d, unsigned n, int put)
{
	const unsigned char *p = pd_take(d, n);
	uint32_t idx;

	if (!p)
		return -2;
	idx = (uint32_t)pd_le(p, n);
	return put ? pd_memo_put(d, idx) : pd_memo_get(d, idx);
}

/* PUT, GET: the index as a text line. */
static int op_text_memo(struct dec *d)
{
	char line[256], *end;
	unsigned long long x;
	int r = pd_read_line(d, line, sizeof(line));

	if (r < 0)
		return r;
	x = strtoull(line, &end, 10);
	if (end == line || *end || x > UINT32_MAX) {
		pd_fail(d, PK_CORRUPT, "%s index is not a number", pk_opname(d->op));
		return -1;
	}
	return d->op == 'p' ? pd_memo_put(d, (uint32_t)x) : pd_memo_get(d, (uint32_t)x);
}

/* ---- the loop ---- */

/* One opcode. Returns 0 to go on, 1 at STOP, -1 on error (status set),
 * -2 at end of input. */
static int step(struct dec *d)
{
	const char *why;

	if (pd_need(d, 1) < 0)
		return -2;
	d->op_off = d->base + d->pos;
	d->op = d->buf[d->pos++];
	d->opcodes++;
	if ((why = refusal(d->op)))
		return op_refused(d, why);
	switch (d->op) {
	case 0x80: return op_proto(d);                        /* PROTO */
	case 0x95: return op_skip(d, 8);                      /* FRAME */
	case '.':  return op_stop(d);                         /* STOP */
	case '(':  return op_mark(d);                         /* MARK */
	case '0':  return op_pop(d);                          /* POP */
	case '1':  return op_pop_mark(d);                     /* POP_MARK */
	case '2':  return op_dup(d);                          /* DUP */
	case 'N':  return pd_push_int(d, PK_NONE, 0);         /* NONE */
	case 0x88: return pd_push_int(d, PK_BOOL, 1);         /* NEWTRUE */
	case 0x89: return pd_push_int(d, PK_BOOL, 0);         /* NEWFALSE */
	case 'K':  return op_binint(d, 1);                    /* BININT1 */
	case 'M':  return op_binint(d, 2);                    /* BININT2 */
	case 'J':  return op_binint(d, 4);                    /* BININT */
	case 0x8a: return op_long(d, 1);                      /* LONG1 */
	case 0x8b: return op_long(d, 4);                      /* LONG4 */
	case 'G':  return op_binfloat(d);                     /* BINFLOAT */
	case 'I': case 'L': case 'F':                         /* INT, LONG, FLOAT */
		return op_text_number(d);
	case 'S': case 'V':                                   /* STRING, UNICODE */
		return op_text_string(d);
	case 'T':  return op_string(d, 4, PK_STR);            /* BINSTRING */
	case 'U':  return op_string(d, 1, PK_STR);            /* SHORT_BINSTRING */
	case 'X':  return op_string(d, 4, PK_STR);            /* BINUNICODE */
	case 0x8c: return op_string(d, 1, PK_STR);            /* SHORT_BINUNICODE */
	case 0x8d: return op_string(d, 8, PK_STR);            /* BINUNICODE8 */
	case 'C':  return op_string(d, 1, PK_BYTES);          /* SHORT_BINBYTES */
	case 'B':  return op_string(d, 4, PK_BYTES);          /* BINBYTES */
	case 0x8e: return op_string(d, 8, PK_BYTES);          /* BINBYTES8 */
	case 0x96: return op_string(d, 8, PK_BYTES);          /* BYTEARRAY8 */
	case '}':  return pd_push_container(d, PK_DICT);      /* EMPTY_DICT */
	case ']':  return pd_push_container(d, PK_LIST);      /* EMPTY_LIST */
	case 0x8f: return pd_push_container(d, PK_SET);       /* EMPTY_SET */
	case ')':  return pd_build_from(d, d->sp, PK_TUPLE);  /* EMPTY_TUPLE */
	case 0x85: return op_tuple_n(d, 1);                   /* TUPLE1 */
	case 0x86: return op_tuple_n(d, 2);                   /* TUPLE2 */
	case 0x87: return op_tuple_n(d, 3);                   /* TUPLE3 */
	case 't':  return op_from_mark(d, PK_TUPLE);          /* TUPLE */
	case 'l':  return op_from_mark(d, PK_LIST);           /* LIST */
	case 'd':  return op_from_mark(d, PK_DICT);           /* DICT */
	case 0x91: return op_from_mark(d, PK_SET);            /* FROZENSET */
	case 'a':  return op_append(d);                       /* APPEND */
	case 's':  return op_setitem(d);                      /* SETITEM */
	case 'e':  return pd_fill_from_mark(d, 0);            /* APPENDS */
	case 0x90: return pd_fill_from_mark(d, 0);            /* ADDITEMS */
	case 'u':  return pd_fill_from_mark(d, 1);            /* SETITEMS */
	case 0x94: return op_memoize(d);                      /* MEMOIZE */
	case 'q':  return op_memo(d, 1, 1);                   /* BINPUT */
	case 'r':  return op_memo(d, 4, 1);                   /* LONG_BINPUT */
	case 'h':  return op_memo(d, 1, 0);                   /* BINGET */
	case 'j':  return op_memo(d, 4, 0);                   /* LONG_BINGET */
	case 'p': case 'g':                                   /* PUT, GET */
		return op_text_memo(d);
	default:   return op_unknown(d);
	}
}

/* How the loop ended, said and settled: the top value at STOP, a
 * truncation diagnostic at the end of input; the open MARK groups handed
 * over on anything but a clean STOP or an abort. */
static void finish(struct dec *d, int r, struct pk_result *res)
{
	if (r == 1) {
		d->status = PK_DONE;
		res->top = d->stk[--d->sp];
	} else if (r == -2) {
		d->op_off = d->base + d->end;
		sink_diagf(d->s, 0, d->op_off, OL_ERROR,
			   "pickle offset %llu: the pickle ends before its STOP opcode"
			   " (truncated file?); keeping what was read",
			   (unsigned long long)d->op_off);
		d->status = PK_TRUNCATED;
	}
	if (d->status != PK_DONE && d->status != PK_ABORTED)
		pd_flush_pending(d);
	if (d->lost_fetches > 20)
		sink_diagf(d->s, 0, d->op_off, OL_ERROR, "%u more memo fetches of values not held",
			   d->lost_fetches - 20);
	res->status = d->status;
}

int pk_decode(struct input *in, const struct pk_handler *h, struct sink *s,
	      struct pk_result *res)
{
	struct dec d;
	int r;

	memset(&d, 0, sizeof(d));
	memset(res, 0, sizeof(*res));
	d.live_at_start = pd_live_bytes();
	d.in = in;
	d.s = s;
	d.h = h;
	d.protocol = -1;
	d.base = in->offset;
	d.cap = 1u << 16;
	d.buf = malloc(d.cap);
	if (d.buf) {
		while ((r = step(&d)) == 0)
			;
		finish(&d, r, res);
	} else {
		sink_diagf(s, 0, 0, OL_ERROR, "out of memory");
		res->status = PK_CORRUPT;
	}
	res->protocol = d.protocol;
	res->offset = d.base + d.pos;
	res->opcodes = d.opcodes;
	while (d.sp)
		pk_release(&d.stk[--d.sp]);
	pd_memo_free(&d);
	free(d.stk);
	free(d.buf);
	return res->status == PK_ABORTED ? -1 : 0;
}
