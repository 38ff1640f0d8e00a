/*
 * samples.c -- the samples' blocks per series: kept open while a parser
 * gives samples, written when full or flushed, and rewritten for a
 * series' shift or the boot clock's alignment (see samples.h).
 *
 * An open block is three growing arrays (time_ns, boot_ns, value) of one
 * series, found by the series id in an open-addressing table. The blocks
 * are encoded here, on the caller's thread (a few nanoseconds a sample),
 * and appended to sample_block with the connection taken from the bulk
 * writer (tl_bulk_sync). What is open at once is bounded: past
 * SAMPLES_OPEN_MAX samples waiting in all series, every block is written.
 * A value is encoded as an integer when it is one (most are bytes or
 * counts), as SQLite stores an integral REAL; the virtual table gives it
 * back as a REAL (packed.c, the column's affinity).
 */
#include "analyzer/store/samples.h"
#include "analyzer/store/packed_block.h"
#include "analyzer/store/timeline_parts.h"
#include "lib/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES_OPEN_MAX (1 << 20)   /* samples waiting in open blocks, at most */
#define SAMPLES_COLS 4               /* series_id, time_ns, boot_ns, value */

/* One series' open block. */
struct stage {
	int64_t sid;                 /* 0: a free slot */
	int n, cap;
	int64_t *t, *boot;
	double *v;
	unsigned order;              /* when it was opened: blocks are written in that order */
};

struct tl_samples {
	struct stage *slot;          /* nslots, a power of two, at most half used */
	size_t nslots, used;
	size_t waiting;              /* samples in all open blocks */
	unsigned next_order;
	struct packed_enc enc;
	struct packed_val *vals;     /* SAMPLES_BLOCK_ROWS */
	struct strbuf blk;
	sqlite3_stmt *ins;           /* packed_append's */
};

static struct tl_samples *samples_of(struct timeline *tl)
{
	struct tl_samples *s = tl->samples;

	if (s)
		return s;
	if (!(s = calloc(1, sizeof(*s))))
		return NULL;
	s->nslots = 64;
	s->slot = calloc(s->nslots, sizeof(*s->slot));
	s->vals = malloc(SAMPLES_BLOCK_ROWS * sizeof(*s->vals));
	if (!s->slot || !s->vals) {
		free(s->slot);
		free(s->vals);
		free(s);
		return NULL;
	}
	strbuf_init(&s->blk);
	return tl->samples = s;
}

static size_t slot_of(const struct tl_samples *s, int64_t sid)
{
	uint64_t h = (uint64_t)sid * 0x9E3779B97F4A7C15ull;
	size_t i = (size_t)(h >> 32) & (s->nslots - 1);

	while (s->slot[i].sid && s->slot[i].sid != sid)
		i = (i + 1) & (s->nslots - 1);
	return i;
}

/* Double the table; -1 out of memory. */
static int grow_slots(struct tl_samples *s)
{
	struct stage *old = s->slot;
	size_t i, n = s->nslots;

	if (!(s->slot = calloc(n * 2, sizeof(*s->slot)))) {
		s->slot = old;
		return -1;
	}
	s->nslots = n * 2;
	for (i = 0; i < n; i++)
		if (old[i].sid)
			s->slot[slot_of(s, old[i].sid)] = old[i];
	free(old);
	return 0;
}

/* The value v as the encoder takes it: NULL for NaN, an integer when it
 * is one (SQLite's own storage of an integral REAL), else a real. */
static void value_of(double v, struct packed_val *p)
{
	p->type = PV_REAL;
	p->d = v;
	if (isnan(v))
		p->type = PV_NULL;
	else if (v >= -9.2e18 && v <= 9.2e18 && v == (double)(int64_t)v) {
		p->type = PV_INT;
		p->i = (int64_t)v;
	}
}

/* Encode rows [0, n) of sid into s->blk. 0 or -1 out of memory. */
static int encode(struct tl_samples *s, int64_t sid, int n, const int64_t *t,
		  const int64_t *boot, const double *v)
{
	int r;

	strbuf_reset(&s->blk);
	for (r = 0; r < n; r++)
		value_of(v[r], &s->vals[r]);
	if (packed_start(&s->enc, n, SAMPLES_COLS) < 0 ||
	    packed_put_ints(&s->enc, &sid, 0, OL_NULL) < 0 ||
	    packed_put_ints(&s->enc, t, sizeof(*t), OL_NULL) < 0 ||
	    packed_put_ints(&s->enc, boot, sizeof(*boot), OL_NULL) < 0 ||
	    packed_put_vals(&s->enc, s->vals) < 0 || packed_finish(&s->enc, &s->blk) < 0)
		return -1;
	return 0;
}

/* Write g's open block (if any rows) and empty it. 0 or -1. */
static int write_stage(struct timeline *tl, struct tl_samples *s, struct stage *g)
{
	int rc;

	if (!g->n)
		return 0;
	if (tl_bulk_sync(tl) < 0)
		return -1;
	if (encode(s, g->sid, g->n, g->t, g->boot, g->v) < 0)
		return tl_fail(tl, "out of memory");
	rc = packed_append_from(tl->db, "sample_block", &s->ins, g->sid,
				tl->artifact_id > 0 ? tl->artifact_id : INT64_MIN, g->n, s->blk.buf,
				s->blk.len);
	if (rc != SQLITE_OK)
		return tl_fail(tl, rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(tl->db));
	s->waiting -= (size_t)g->n;
	g->n = 0;
	return 0;
}

static int by_order(const void *a, const void *b)
{
	const struct stage *x = *(const struct stage *const *)a, *y = *(const struct stage *const *)b;

	return x->order < y->order ? -1 : x->order > y->order;
}

int samples_flush(struct timeline *tl)
{
	struct tl_samples *s = tl->samples;
	struct stage **open;
	size_t i, n = 0;
	int r = 0;

	if (!s || !s->waiting)
		return 0;
	/* in the order the series were opened: the same input, the same file */
	if (!(open = malloc(s->used * sizeof(*open))))
		return tl_fail(tl, "out of memory");
	for (i = 0; i < s->nslots; i++)
		if (s->slot[i].sid && s->slot[i].n)
			open[n++] = &s->slot[i];
	qsort(open, n, sizeof(*open), by_order);
	for (i = 0; r == 0 && i < n; i++)
		r = write_stage(tl, s, open[i]);
	free(open);
	return r;
}

int64_t samples_add(struct timeline *tl, int64_t series_id, const struct ol_time *t,
		    double value)
{
	struct tl_samples *s = samples_of(tl);
	struct stage *g;

	if (!s)
		return tl_fail(tl, "out of memory");
	if (series_id <= 0)
		return tl_fail(tl, "a sample of no series");
	if (s->used * 2 >= s->nslots && grow_slots(s) < 0)
		return tl_fail(tl, "out of memory");
	g = &s->slot[slot_of(s, series_id)];
	if (!g->sid) {
		g->sid = series_id;
		s->used++;
	}
	if (!g->n)
		g->order = s->next_order++;
	if (g->n == g->cap) {
		int cap = g->cap ? g->cap * 2 : 16;
		int64_t *nt = realloc(g->t, (size_t)cap * sizeof(*nt));
		int64_t *nb = nt ? realloc(g->boot, (size_t)cap * sizeof(*nb)) : NULL;
		double *nv = nb ? realloc(g->v, (size_t)cap * sizeof(*nv)) : NULL;
		if (nt)
			g->t = nt;
		if (nb)
			g->boot = nb;
		if (!nv)
			return tl_fail(tl, "out of memory");
		g->v = nv;
		g->cap = cap;
	}
	g->t[g->n] = t->clock == OL_CLOCK_UTC || t->clock == OL_CLOCK_LOCAL ? t->utc_ns : OL_NULL;
	g->boot[g->n] = t->boot_ns;
	g->v[g->n] = value;
	g->n++;
	s->waiting++;
	if (g->n == SAMPLES_BLOCK_ROWS && write_stage(tl, s, g) < 0)
		return -1;
	if (s->waiting >= SAMPLES_OPEN_MAX && samples_flush(tl) < 0)
		return -1;
	return 1;
}

void samples_discard(struct timeline *tl)
{
	struct tl_samples *s = tl->samples;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nslots; i++)
		s->slot[i].n = 0;
	s->waiting = 0;
}

void samples_release(struct timeline *tl)
{
	struct tl_samples *s = tl->samples;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nslots; i++) {
		free(s->slot[i].t);
		free(s->slot[i].boot);
		free(s->slot[i].v);
	}
	free(s->slot);
	free(s->vals);
	sqlite3_finalize(s->ins);
	packed_enc_release(&s->enc);
	strbuf_release(&s->blk);
	free(s);
	tl->samples = NULL;
}

int64_t samples_last_block(struct timeline *tl)
{
	static const char sql[] = "SELECT coalesce(max(id), 0) FROM sample_block";
	sqlite3_stmt *q;
	int64_t id = -1;

	if (samples_flush(tl) < 0 || !(q = timeline_stmt(tl, sql)))
		return -1;
	if (sqlite3_step(q) == SQLITE_ROW)
		id = sqlite3_column_int64(q, 0);
	sqlite3_reset(q);
	return id;
}

/* ---- rewriting blocks ---- */

/* What a rewrite does to one block's rows: returns 1 when it changed
 * them, 0 when not. */
typedef int (*block_edit)(int n, int64_t *t, const int64_t *boot, double *v, const void *arg);

/* Decoded cells of one column as int64s (NULL -> OL_NULL); -1 when a
 * cell is not an integer or NULL. */
static int cells_ints(const struct pk_cell *c, int n, int64_t *out)
{
	int r;

	for (r = 0; r < n; r++) {
		if (c[r].type == PV_INT)
			out[r] = c[r].u.i;
		else if (c[r].type == PV_NULL)
			out[r] = OL_NULL;
		else
			return -1;
	}
	return 0;
}

/* Rewrite, with edit, the blocks the query sel lists (id, parent, data),
 * bound by the caller. 0 or -1. */
static int rewrite(struct timeline *tl, sqlite3_stmt *sel, block_edit edit, const void *arg)
{
	static const char upd_sql[] = "UPDATE sample_block SET data = ?1 WHERE id = ?2";
	struct tl_samples *s = samples_of(tl);
	struct pk_cell *cells = NULL, *dict = NULL;
	int64_t *t = NULL, *boot = NULL;
	double *v = NULL;
	int r = 0, rc;

	if (!s)
		return tl_fail(tl, "out of memory");
	cells = malloc(PACKED_MAX_ROWS * sizeof(*cells));
	dict = malloc(PACKED_MAX_ROWS * sizeof(*dict));
	t = malloc(PACKED_MAX_ROWS * sizeof(*t));
	boot = malloc(PACKED_MAX_ROWS * sizeof(*boot));
	v = malloc(PACKED_MAX_ROWS * sizeof(*v));
	if (!cells || !dict || !t || !boot || !v)
		r = tl_fail(tl, "out of memory");
	while (r == 0 && (rc = sqlite3_step(sel)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(sel, 0), sid = sqlite3_column_int64(sel, 1);
		struct pk_block b;
		sqlite3_stmt *upd;
		int i, n;
		if (packed_block_open(&b, sqlite3_column_blob(sel, 2),
				      (size_t)sqlite3_column_bytes(sel, 2)) < 0 ||
		    b.ncols != SAMPLES_COLS || packed_block_column(&b, 1, cells, dict) < 0 ||
		    cells_ints(cells, b.nrows, t) < 0 || packed_block_column(&b, 2, cells, dict) < 0 ||
		    cells_ints(cells, b.nrows, boot) < 0 || packed_block_column(&b, 3, cells, dict) < 0) {
			r = tl_fail(tl, "sample_block: a block that is not one of samples");
			break;
		}
		n = b.nrows;
		for (i = 0; i < n; i++)
			v[i] = cells[i].type == PV_INT ? (double)cells[i].u.i
			       : cells[i].type == PV_REAL ? cells[i].u.d : NAN;
		if (!edit(n, t, boot, v, arg))
			continue;
		if (encode(s, sid, n, t, boot, v) < 0) {
			r = tl_fail(tl, "out of memory");
			break;
		}
		/* the UPDATE changes a column no query here reads by: the
		 * stepping SELECT goes on over the same ids */
		if (!(upd = timeline_stmt(tl, upd_sql))) {
			r = -1;
			break;
		}
		sqlite3_bind_blob64(upd, 1, s->blk.buf, s->blk.len, SQLITE_STATIC);
		sqlite3_bind_int64(upd, 2, id);
		if (tl_step(tl, upd) < 0)
			r = -1;
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = tl_fail(tl, sqlite3_errmsg(tl->db));
	sqlite3_reset(sel);
	free(cells);
	free(dict);
	free(t);
	free(boot);
	free(v);
	return r;
}

static int edit_shift(int n, int64_t *t, const int64_t *boot, double *v, const void *arg)
{
	double delta = *(const double *)arg;
	int i;

	(void)t;
	(void)boot;
	for (i = 0; i < n; i++)
		v[i] += delta;   /* NaN (NULL) stays NaN */
	return 1;
}

int samples_shift(struct timeline *tl, int64_t series_id, double delta, int64_t after_block)
{
	static const char sql[] = "SELECT id, parent, data FROM sample_block"
				  " WHERE parent = ?1 AND id > ?2 ORDER BY id";
	sqlite3_stmt *sel;

	if (samples_flush(tl) < 0 || !(sel = timeline_stmt(tl, sql)))
		return -1;
	sqlite3_bind_int64(sel, 1, series_id);
	sqlite3_bind_int64(sel, 2, after_block);
	return rewrite(tl, sel, edit_shift, &delta);
}

static int edit_scale(int n, int64_t *t, const int64_t *boot, double *v, const void *arg)
{
	double f = *(const double *)arg;
	int i;

	(void)t;
	(void)boot;
	for (i = 0; i < n; i++)
		v[i] *= f;   /* NaN (NULL) stays NaN */
	return 1;
}

int samples_scale(struct timeline *tl, int64_t series_id, int64_t artifact_id, double factor)
{
	static const char sql[] = "SELECT id, parent, data FROM sample_block"
				  " WHERE parent = ?1 AND artifact_id = ?2 ORDER BY id";
	sqlite3_stmt *sel;

	if (samples_flush(tl) < 0 || !(sel = timeline_stmt(tl, sql)))
		return -1;
	sqlite3_bind_int64(sel, 1, series_id);
	sqlite3_bind_int64(sel, 2, artifact_id);
	return rewrite(tl, sel, edit_scale, &factor);
}

static int edit_align(int n, int64_t *t, const int64_t *boot, double *v, const void *arg)
{
	int64_t off = *(const int64_t *)arg;
	int i, changed = 0;

	(void)v;
	for (i = 0; i < n; i++)
		if (t[i] == OL_NULL && boot[i] != OL_NULL) {
			t[i] = (int64_t)((uint64_t)boot[i] + (uint64_t)off);
			changed = 1;
		}
	return changed;
}

int samples_align_boot(struct timeline *tl, int64_t off)
{
	static const char sql[] = "SELECT id, parent, data FROM sample_block ORDER BY id";
	sqlite3_stmt *sel;

	if (samples_flush(tl) < 0 || !(sel = timeline_stmt(tl, sql)))
		return -1;
	return rewrite(tl, sel, edit_align, &off);
}
