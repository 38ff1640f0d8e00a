/*
 * packed_block.c -- the encoding of a packed table's block of rows, and
 * its decoding (see packed.h; the virtual table that reads blocks back as
 * rows is packed.c).
 *
 * A block (NAME_block.data) is:
 *     'O' 'P' 1                       magic and version
 *     varint nrows, varint ncols
 *     ncols x varint                  the bytes of each column's encoding
 *     the columns, one after another
 * and a column is one kind byte, then:
 *     0 all NULL                      nothing
 *     1 integers                      a byte, 1 when some are NULL, then a
 *                                     bitmap of them (bit r of byte r/8 set:
 *                                     row r is NULL); then each other row's
 *                                     value minus the one before it (0
 *                                     before the first), zigzag, as a varint
 *     2 text                          varint ndict, ndict x (varint len,
 *                                     bytes), then per row a varint index
 *                                     into them, 0 for NULL, k for the k-th
 *     3 any                           per row a tag (0 NULL, 1 integer as a
 *                                     zigzag varint, 2 real as 8 bytes
 *                                     little-endian, 3 text, 4 blob: varint
 *                                     len and bytes)
 * Varints are LEB128 (7 bits a byte, low first, at most 10 bytes). A trace
 * row of 13 columns takes ~12 bytes: sequence numbers and times climb by
 * little, the snapshot and the device repeat, the actions are a handful.
 *
 * Reading trusts nothing in a block: a length that runs past its end, a
 * count over the limits or an index outside the dictionary is
 * SQLITE_CORRUPT with the block named, never a read out of bounds.
 */
#include "analyzer/store/packed_block.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* ---- varints ---- */

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static int64_t unzigzag(uint64_t u) { return (int64_t)(u >> 1) ^ -(int64_t)(u & 1); }

/* Room for n more bytes in e->col; -1 out of memory. */
static int col_room(struct packed_enc *e, size_t n)
{
	size_t cap;
	unsigned char *p;

	if (e->col_len + n <= e->col_cap)
		return 0;
	cap = e->col_cap ? e->col_cap : 4096;
	while (cap < e->col_len + n)
		cap *= 2;
	if (!(p = realloc(e->col, cap)))
		return -1;
	e->col = p;
	e->col_cap = cap;
	return 0;
}

/* Append u as a varint (the caller made room for 10 bytes). */
static void put_varint(struct packed_enc *e, uint64_t u)
{
	while (u >= 0x80) {
		e->col[e->col_len++] = (unsigned char)(u | 0x80);
		u >>= 7;
	}
	e->col[e->col_len++] = (unsigned char)u;
}

static int put_bytes(struct packed_enc *e, const void *p, size_t n)
{
	if (col_room(e, n + 10) < 0)
		return -1;
	put_varint(e, n);
	if (n)
		memcpy(e->col + e->col_len, p, n);
	e->col_len += n;
	return 0;
}

/* A reading position in a block: p runs to end. */
struct rd {
	const unsigned char *p, *end;
	int bad;
};

static uint64_t get_varint(struct rd *r)
{
	uint64_t u = 0;
	int shift;

	for (shift = 0; shift < 70; shift += 7) {
		unsigned char b;
		if (r->p >= r->end) {
			r->bad = 1;
			return 0;
		}
		b = *r->p++;
		u |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return u;
	}
	r->bad = 1;
	return 0;
}

/* The next n bytes, or NULL (r->bad set) when fewer are left. */
static const unsigned char *get_bytes(struct rd *r, uint64_t n)
{
	const unsigned char *p = r->p;

	if (n > (uint64_t)(r->end - r->p)) {
		r->bad = 1;
		return NULL;
	}
	r->p += n;
	return p;
}

/* ---- encoding ---- */

/* The kind a column of nrows values v takes: 0 all NULL, 1 integers,
 * 2 text, 3 any. */
static int col_kind(const struct packed_val *v, int nrows)
{
	int r, ints = 0, texts = 0, others = 0;

	for (r = 0; r < nrows; r++) {
		int t = v[r].type;
		ints += t == PV_INT;
		texts += t == PV_TEXT;
		others += t == PV_REAL || t == PV_BLOB;
	}
	if (others || (ints && texts))
		return 3;
	return ints ? 1 : texts ? 2 : 0;
}

static int enc_ints(struct packed_enc *e, const struct packed_val *v, int nrows)
{
	size_t bitmap = ((size_t)nrows + 7) / 8;
	int64_t prev = 0;
	int r, nulls = 0;

	for (r = 0; r < nrows; r++)
		nulls |= v[r].type == PV_NULL;
	if (col_room(e, 2 + bitmap + (size_t)nrows * 10) < 0)
		return -1;
	e->col[e->col_len++] = (unsigned char)nulls;
	if (nulls) {
		memset(e->col + e->col_len, 0, bitmap);
		for (r = 0; r < nrows; r++)
			if (v[r].type == PV_NULL)
				e->col[e->col_len + r / 8] |= (unsigned char)(1u << (r % 8));
		e->col_len += bitmap;
	}
	for (r = 0; r < nrows; r++) {
		const struct packed_val *x = &v[r];
		if (x->type == PV_NULL)
			continue;
		put_varint(e, zigzag((int64_t)((uint64_t)x->i - (uint64_t)prev)));
		prev = x->i;
	}
	return 0;
}

/* Whether a and b are the same text. */
static int same_text(const struct packed_val *a, const struct packed_val *b)
{
	return a->n == b->n && (a->p == b->p || !memcmp(a->p, b->p, a->n));
}

#define DICT_SEARCH 32   /* entries compared before a text is added again */

static int enc_texts(struct packed_enc *e, const struct packed_val *v, int nrows)
{
	size_t nd = 0, k;
	int r;

	if ((size_t)nrows > e->dict_cap) {
		void *d = realloc(e->dict, (size_t)nrows * sizeof(*e->dict));
		void *i = d ? realloc(e->idx, (size_t)nrows * sizeof(*e->idx)) : NULL;
		if (d)
			e->dict = d;
		if (!d || !i)
			return -1;
		e->idx = i;
		e->dict_cap = (size_t)nrows;
	}
	/* a row repeats the one before it, or one of the last entries */
	for (r = 0; r < nrows; r++) {
		const struct packed_val *x = &v[r];
		if (x->type == PV_NULL) {
			e->idx[r] = 0;
			continue;
		}
		if (r && e->idx[r - 1] && same_text(x, e->dict[e->idx[r - 1] - 1])) {
			e->idx[r] = e->idx[r - 1];
			continue;
		}
		for (k = nd; k > 0 && nd - k < DICT_SEARCH; k--)
			if (same_text(x, e->dict[k - 1]))
				break;
		if (k == 0 || nd - k >= DICT_SEARCH) {
			e->dict[nd++] = x;
			k = nd;
		}
		e->idx[r] = (uint32_t)k;
	}
	if (col_room(e, 10) < 0)
		return -1;
	put_varint(e, nd);
	for (k = 0; k < nd; k++)
		if (put_bytes(e, e->dict[k]->p, e->dict[k]->n) < 0)
			return -1;
	if (col_room(e, (size_t)nrows * 10) < 0)
		return -1;
	for (r = 0; r < nrows; r++)
		put_varint(e, e->idx[r]);
	return 0;
}

static int enc_any(struct packed_enc *e, const struct packed_val *v, int nrows)
{
	int r;

	for (r = 0; r < nrows; r++) {
		const struct packed_val *x = &v[r];
		if (col_room(e, 11) < 0)
			return -1;
		switch (x->type) {
		case PV_NULL:
			e->col[e->col_len++] = 0;
			break;
		case PV_INT:
			e->col[e->col_len++] = 1;
			put_varint(e, zigzag(x->i));
			break;
		case PV_REAL: {
			uint64_t u;
			int b;
			memcpy(&u, &x->d, 8);
			e->col[e->col_len++] = 2;
			for (b = 0; b < 8; b++)
				e->col[e->col_len++] = (unsigned char)(u >> (8 * b));
			break;
		}
		default:
			e->col[e->col_len++] = x->type == PV_TEXT ? 3 : 4;
			if (put_bytes(e, x->p, x->n) < 0)
				return -1;
			break;
		}
	}
	return 0;
}

int packed_start(struct packed_enc *e, int nrows, int ncols)
{
	if (nrows < 1 || nrows > PACKED_MAX_ROWS || ncols < 1 || ncols > PACKED_MAX_COLS)
		return -1;
	e->nrows = nrows;
	e->ncols = ncols;
	e->cols_done = 0;
	e->col_len = 0;   /* the columns go first into e->col, the header at the end */
	return 0;
}

/* Open the next column with its kind byte; its start, or -1. */
static long col_open(struct packed_enc *e, int kind)
{
	size_t start = e->col_len;

	if (e->cols_done >= e->ncols || col_room(e, 1) < 0)
		return -1;
	e->col[e->col_len++] = (unsigned char)kind;
	return (long)start;
}

static int col_close(struct packed_enc *e, long start, int r)
{
	if (start < 0 || r < 0)
		return -1;
	e->lens[e->cols_done++] = e->col_len - (size_t)start;
	return 0;
}

int packed_put_vals(struct packed_enc *e, const struct packed_val *v)
{
	int kind = col_kind(v, e->nrows), r = 0;
	long start = col_open(e, kind);

	if (start < 0)
		return -1;
	if (kind == 1)
		r = enc_ints(e, v, e->nrows);
	else if (kind == 2)
		r = enc_texts(e, v, e->nrows);
	else if (kind == 3)
		r = enc_any(e, v, e->nrows);
	return col_close(e, start, r);
}

int packed_put_ints(struct packed_enc *e, const void *base, size_t stride, int64_t null)
{
	const unsigned char *p = base;
	size_t bitmap = ((size_t)e->nrows + 7) / 8;
	int64_t prev = 0;
	int r, nulls = 0;
	long start;

	for (r = 0; r < e->nrows; r++) {
		int64_t x;
		memcpy(&x, p + (size_t)r * stride, sizeof(x));
		nulls += x == null;
	}
	if (nulls == e->nrows)
		return col_close(e, col_open(e, 0), 0);
	if ((start = col_open(e, 1)) < 0 || col_room(e, 1 + bitmap + (size_t)e->nrows * 10) < 0)
		return -1;
	e->col[e->col_len++] = (unsigned char)!!nulls;
	if (nulls) {
		memset(e->col + e->col_len, 0, bitmap);
		for (r = 0; r < e->nrows; r++) {
			int64_t x;
			memcpy(&x, p + (size_t)r * stride, sizeof(x));
			if (x == null)
				e->col[e->col_len + r / 8] |= (unsigned char)(1u << (r % 8));
		}
		e->col_len += bitmap;
	}
	for (r = 0; r < e->nrows; r++) {
		int64_t x;
		memcpy(&x, p + (size_t)r * stride, sizeof(x));
		if (x == null)
			continue;
		put_varint(e, zigzag((int64_t)((uint64_t)x - (uint64_t)prev)));
		prev = x;
	}
	return col_close(e, start, 0);
}

int packed_finish(struct packed_enc *e, struct strbuf *out)
{
	unsigned char h[3 + 10 * (2 + PACKED_MAX_COLS)];
	size_t n = 3;
	int i;

	if (e->cols_done != e->ncols)
		return -1;
	memcpy(h, "OP\1", 3);
	for (i = -2; i < e->ncols; i++) {
		uint64_t u = i == -2 ? (uint64_t)e->nrows : i == -1 ? (uint64_t)e->ncols : e->lens[i];
		while (u >= 0x80) {
			h[n++] = (unsigned char)(u | 0x80);
			u >>= 7;
		}
		h[n++] = (unsigned char)u;
	}
	strbuf_add(out, h, n);
	strbuf_add(out, e->col, e->col_len);
	return strbuf_failed(out) ? -1 : 0;
}

int packed_encode(struct packed_enc *e, struct strbuf *out, const struct packed_val *vals,
		  int nrows, int ncols)
{
	int c;

	if (packed_start(e, nrows, ncols) < 0)
		return -1;
	for (c = 0; c < ncols; c++)
		if (packed_put_vals(e, vals + (size_t)c * nrows) < 0)
			return -1;
	return packed_finish(e, out);
}

void packed_enc_release(struct packed_enc *e)
{
	free(e->col);
	free(e->dict);
	free(e->idx);
	memset(e, 0, sizeof(*e));
}
/* ---- decoding ---- */

/* Open the block of n bytes at p (NULL for an empty blob). 0, or -1 when
 * its header is not one. */
int packed_block_open(struct pk_block *b, const unsigned char *p, size_t n)
{
	struct rd r;
	uint64_t nrows, ncols, len[PACKED_MAX_COLS];
	const unsigned char *magic;
	uint64_t i;

	if (!p || n < 3)
		return -1;
	r.p = p;
	r.end = p + n;
	r.bad = 0;
	magic = get_bytes(&r, 3);
	if (!magic || memcmp(magic, "OP\1", 3))
		return -1;
	nrows = get_varint(&r);
	ncols = get_varint(&r);
	if (r.bad || nrows < 1 || nrows > PACKED_MAX_ROWS || ncols < 1 || ncols > PACKED_MAX_COLS)
		return -1;
	for (i = 0; i < ncols; i++)
		len[i] = get_varint(&r);
	for (i = 0; i < ncols && !r.bad; i++) {
		b->col[i] = get_bytes(&r, len[i]);
		b->col_end[i] = r.p;
	}
	if (r.bad)
		return -1;
	b->nrows = (int)nrows;
	b->ncols = (int)ncols;
	return 0;
}

static void dec_ints(struct rd *r, struct pk_cell *out, int nrows)
{
	const unsigned char *nulls = NULL;
	const unsigned char *flag = get_bytes(r, 1);
	int64_t prev = 0;
	int i;

	if (flag && *flag)
		nulls = get_bytes(r, ((uint64_t)nrows + 7) / 8);
	for (i = 0; i < nrows && !r->bad; i++) {
		if (nulls && (nulls[i / 8] >> (i % 8)) & 1) {
			out[i].type = PV_NULL;
			continue;
		}
		prev = (int64_t)((uint64_t)prev + (uint64_t)unzigzag(get_varint(r)));
		out[i].type = PV_INT;
		out[i].u.i = prev;
	}
}

/* The texts of a column; dict has room for nrows entries (the
 * dictionary is never longer than the block). */
static void dec_texts(struct rd *r, struct pk_cell *out, int nrows, struct pk_cell *dict)
{
	uint64_t nd = get_varint(r), k;
	int i;

	if (nd > (uint64_t)nrows) {
		r->bad = 1;
		return;
	}
	for (k = 0; k < nd && !r->bad; k++) {
		uint64_t len = get_varint(r);
		dict[k].type = PV_TEXT;
		dict[k].n = (uint32_t)len;
		dict[k].u.p = get_bytes(r, len);
	}
	for (i = 0; i < nrows && !r->bad; i++) {
		uint64_t idx = get_varint(r);
		if (idx > nd)
			r->bad = 1;
		else if (!idx)
			out[i].type = PV_NULL;
		else
			out[i] = dict[idx - 1];
	}
}

static void dec_any(struct rd *r, struct pk_cell *out, int nrows)
{
	int i, b;

	for (i = 0; i < nrows && !r->bad; i++) {
		const unsigned char *t = get_bytes(r, 1), *p;
		uint64_t u = 0, len;
		if (!t)
			return;
		out[i].type = PV_NULL;
		switch (*t) {
		case 0:
			break;
		case 1:
			out[i].type = PV_INT;
			out[i].u.i = unzigzag(get_varint(r));
			break;
		case 2:
			if (!(p = get_bytes(r, 8)))
				return;
			for (b = 0; b < 8; b++)
				u |= (uint64_t)p[b] << (8 * b);
			out[i].type = PV_REAL;
			memcpy(&out[i].u.d, &u, 8);
			break;
		case 3:
		case 4:
			len = get_varint(r);
			out[i].type = *t == 3 ? PV_TEXT : PV_BLOB;
			out[i].n = (uint32_t)len;
			out[i].u.p = get_bytes(r, len);
			break;
		default:
			r->bad = 1;
		}
	}
}

/* Decode column c of b into out (b->nrows cells), dict scratch of as
 * many. 0, or -1 when the column's encoding is corrupt. */
int packed_block_column(const struct pk_block *b, int c, struct pk_cell *out, struct pk_cell *dict)
{
	struct rd r = { b->col[c], b->col_end[c], 0 };
	const unsigned char *kind = get_bytes(&r, 1);
	int i;

	if (!kind)
		return -1;
	switch (*kind) {
	case 0:
		for (i = 0; i < b->nrows; i++)
			out[i].type = PV_NULL;
		break;
	case 1:
		dec_ints(&r, out, b->nrows);
		break;
	case 2:
		dec_texts(&r, out, b->nrows, dict);
		break;
	case 3:
		dec_any(&r, out, b->nrows);
		break;
	default:
		return -1;
	}
	return r.bad ? -1 : 0;
}
