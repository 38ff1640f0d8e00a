/*
 * samples_iter.c -- one series' samples row by row in time order, read
 * from its blocks (samples.h) without SQLite's VDBE or sorter.
 *
 * The readers that walk a series (the rules' buckets, the chart's points)
 * asked `SELECT ... FROM sample WHERE series_id = ? ... ORDER BY time_ns`:
 * the virtual table decoded the series' blocks cell by cell into SQLite
 * values and SQLite sorted them, though a series almost always comes in
 * time order already. The iterator first reads the clock's column of
 * each block to see whether the rows asked come in order; when they do
 * (nearly always) it then decodes one block at a time as the reader asks,
 * so it holds a block's rows, not the series'. When they do not, it
 * reads the rows asked (a clock's bounds, a value present) of every
 * block and sorts them -- a stable sort, so rows of the same time keep
 * the order they came (their rowid order), and rows without that clock
 * come first, as an ascending ORDER BY puts NULLs; such a series is held
 * whole, as SQLite's sorter held it. Rules, derive and reports use this
 * and the SQL functions of samples_read.c; none of them decodes a block.
 */
#include "analyzer/store/packed_block.h"
#include "analyzer/store/samples.h"

#include <stdlib.h>
#include <string.h>

/* Room for n more rows in it; -1 out of memory. */
static int rows_room(struct samples_iter *it, size_t n)
{
	size_t cap = it->cap ? it->cap : 256;
	struct sample_rec *r;

	if (it->n + n <= it->cap)
		return 0;
	while (cap < it->n + n)
		cap *= 2;
	if (!(r = realloc(it->row, cap * sizeof(*r))))
		return -1;
	it->row = r;
	it->cap = cap;
	return 0;
}

/* The clock the iterator orders and bounds by: 1 and *k set, or 0 when
 * the row has none. */
static int clock_of(const struct samples_iter *it, const struct sample_rec *r, int64_t *k)
{
	if (it->flags & SI_BOOT) {
		*k = r->boot_ns;
		return r->has_boot;
	}
	*k = r->time_ns;
	return r->has_time;
}

/* Does row a come after row b in the clock's order (NULLs first)? */
static int after(const struct samples_iter *it, const struct sample_rec *a,
		 const struct sample_rec *b)
{
	int64_t ka, kb;
	int ha = clock_of(it, a, &ka), hb = clock_of(it, b, &kb);

	if (!ha || !hb)
		return ha && !hb;
	return ka > kb;
}

/* Stable merge sort of it->row by the clock; -1 out of memory. */
static int sort_rows(struct samples_iter *it)
{
	struct sample_rec *tmp, *src = it->row, *dst;
	size_t w, i, n = it->n;

	if (!(tmp = malloc(n * sizeof(*tmp))))
		return -1;
	dst = tmp;
	for (w = 1; w < n; w *= 2) {
		for (i = 0; i < n; i += 2 * w) {
			size_t a = i, am = i + w < n ? i + w : n, b = am,
			       bm = i + 2 * w < n ? i + 2 * w : n, o = i;
			while (a < am && b < bm)
				dst[o++] = after(it, &src[a], &src[b]) ? src[b++] : src[a++];
			while (a < am)
				dst[o++] = src[a++];
			while (b < bm)
				dst[o++] = src[b++];
		}
		struct sample_rec *t = src;
		src = dst;
		dst = t;
	}
	if (src != it->row)
		memcpy(it->row, src, n * sizeof(*src));
	free(tmp);
	return 0;
}

/* Keep the rows of one block that the iterator asks, after it->row[0,
 * it->n). 0, or -1 with it->err set. */
static int take_block(struct samples_iter *it, const void *data, size_t len, int64_t first_rowid)
{
	struct pk_block b;
	struct pk_cell *t, *boot, *v, *dict;
	int i;

	if (packed_block_open(&b, data, len) < 0 || b.ncols < 4 || b.nrows < 0) {
		it->err = "sample_block: a block that is not one of samples";
		return -1;
	}
	if ((size_t)b.nrows > it->scratch_rows) {
		free(it->scratch);
		it->scratch_rows = 0;
		if (!(it->scratch = malloc((size_t)b.nrows * 4 * sizeof(*t)))) {
			it->err = "out of memory";
			return -1;
		}
		it->scratch_rows = (size_t)b.nrows;
	}
	if (rows_room(it, (size_t)b.nrows) < 0) {
		it->err = "out of memory";
		return -1;
	}
	t = it->scratch;
	boot = t + b.nrows;
	v = boot + b.nrows;
	dict = v + b.nrows;
	if (packed_block_column(&b, 1, t, dict) < 0 || packed_block_column(&b, 2, boot, dict) < 0 ||
	    packed_block_column(&b, 3, v, dict) < 0) {
		it->err = "sample_block: a block that is not one of samples";
		return -1;
	}
	for (i = 0; i < b.nrows; i++) {
		struct sample_rec *s = &it->row[it->n];
		int64_t k;
		s->rowid = first_rowid + i;
		s->has_time = t[i].type == PV_INT;
		s->time_ns = s->has_time ? t[i].u.i : 0;
		s->has_boot = boot[i].type == PV_INT;
		s->boot_ns = s->has_boot ? boot[i].u.i : 0;
		s->has_value = v[i].type == PV_INT || v[i].type == PV_REAL;
		s->value = v[i].type == PV_INT ? (double)v[i].u.i : v[i].type == PV_REAL ? v[i].u.d : 0;
		if ((t[i].type != PV_INT && t[i].type != PV_NULL) ||
		    (boot[i].type != PV_INT && boot[i].type != PV_NULL) ||
		    (v[i].type != PV_NULL && !s->has_value))
			it->odd = 1;
		if ((it->flags & SI_VALUED) && !s->has_value)
			continue;
		if ((it->flags & SI_BOUNDED) &&
		    (!clock_of(it, s, &k) || k < it->from || k > it->to))
			continue;
		it->n++;
	}
	return 0;
}

/* Whether the rows of the series that the bounds keep come in the
 * clock's order: 1 yes, 0 no, -1 with it->err. Decodes the clock only. */
static int in_order(struct samples_iter *it)
{
	struct pk_cell *k = NULL, *dict = NULL;
	size_t cap = 0;
	int64_t prev = 0;
	int seen = 0, timed_seen = 0, rc, r = 1;

	while (r == 1 && (rc = sqlite3_step(it->blocks)) == SQLITE_ROW) {
		struct pk_block b;
		int i;
		if (packed_block_open(&b, sqlite3_column_blob(it->blocks, 1),
				      (size_t)sqlite3_column_bytes(it->blocks, 1)) < 0 || b.ncols < 4) {
			it->err = "sample_block: a block that is not one of samples";
			r = -1;
			break;
		}
		if ((size_t)b.nrows > cap) {
			free(k);
			cap = (size_t)b.nrows;
			if (!(k = malloc(2 * cap * sizeof(*k)))) {
				it->err = "out of memory";
				r = -1;
				break;
			}
			dict = k + cap;
		}
		if (packed_block_column(&b, it->flags & SI_BOOT ? 2 : 1, k, dict) < 0) {
			it->err = "sample_block: a block that is not one of samples";
			r = -1;
			break;
		}
		for (i = 0; i < b.nrows && r == 1; i++) {
			if (k[i].type != PV_INT) {
				/* no clock: first in the order, or out of bounds */
				if (!(it->flags & SI_BOUNDED) && timed_seen)
					r = 0;
				continue;
			}
			timed_seen = 1;
			if ((it->flags & SI_BOUNDED) && (k[i].u.i < it->from || k[i].u.i > it->to))
				continue;
			if (seen && k[i].u.i < prev)
				r = 0;
			prev = k[i].u.i;
			seen = 1;
		}
	}
	free(k);
	if (r == 1 && rc != SQLITE_DONE) {
		it->err = "sample_block: the blocks could not be read";
		r = -1;
	}
	sqlite3_reset(it->blocks);
	return r;
}

/* The next block's rows into it->row (from it->at = 0): 1, 0 after the
 * last block, -1 with it->err. */
static int next_block(struct samples_iter *it)
{
	int rc;

	it->n = it->at = 0;
	while ((rc = sqlite3_step(it->blocks)) == SQLITE_ROW) {
		if (take_block(it, sqlite3_column_blob(it->blocks, 1),
			       (size_t)sqlite3_column_bytes(it->blocks, 1),
			       sqlite3_column_int64(it->blocks, 0)) < 0)
			return -1;
		if (it->n)
			return 1;
	}
	if (rc != SQLITE_DONE) {
		it->err = "sample_block: the blocks could not be read";
		return -1;
	}
	return 0;
}

int samples_iter_open(struct samples_iter *it, sqlite3 *db, int64_t sid, int flags,
		      int64_t from, int64_t to)
{
	int order;

	memset(it, 0, sizeof(*it));
	it->flags = flags;
	it->from = from;
	it->to = to;
	if (sqlite3_prepare_v2(db, "SELECT first_rowid, data FROM sample_block WHERE parent = ?1"
			       " ORDER BY id", -1, &it->blocks, NULL) != SQLITE_OK) {
		it->err = sqlite3_errmsg(db);
		return -1;
	}
	sqlite3_bind_int64(it->blocks, 1, sid);
	if ((order = in_order(it)) == 1) {
		it->streaming = 1;      /* next_block at the first samples_iter_next */
		return 0;
	}
	if (order == 0) {       /* out of order: every row asked, sorted */
		int rc;
		while ((rc = sqlite3_step(it->blocks)) == SQLITE_ROW)
			if (take_block(it, sqlite3_column_blob(it->blocks, 1),
				       (size_t)sqlite3_column_bytes(it->blocks, 1),
				       sqlite3_column_int64(it->blocks, 0)) < 0)
				break;
		if (!it->err && rc != SQLITE_DONE && rc != SQLITE_ROW)
			it->err = "sample_block: the blocks could not be read";
		if (!it->err && it->n > 1 && sort_rows(it) < 0)
			it->err = "out of memory";
	}
	if (it->err) {
		const char *why = it->err;
		samples_iter_close(it);
		it->err = why;
		return -1;
	}
	return 0;
}

const struct sample_rec *samples_iter_next(struct samples_iter *it)
{
	if (it->at >= it->n && (!it->streaming || it->done || next_block(it) <= 0)) {
		it->done = 1;
		return NULL;
	}
	return &it->row[it->at++];
}

void samples_iter_close(struct samples_iter *it)
{
	sqlite3_finalize(it->blocks);
	free(it->row);
	free(it->scratch);
	memset(it, 0, sizeof(*it));
}
