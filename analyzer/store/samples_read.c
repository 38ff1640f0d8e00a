/*
 * samples_read.c -- the store's reads of a series' samples as SQL
 * functions, answered from the series' blocks (samples.h) without a row
 * of `sample` going through SQLite's VDBE:
 *
 *     sample_count(series_id)      the samples (of any clock)
 *     sample_first_ns(series_id [, to_ns [, min_value]])
 *                                  the earliest time_ns (at most to_ns,
 *                                  of a value at least min_value)
 *     sample_last_ns(series_id [, to_ns])
 *                                  the latest time_ns (at most to_ns)
 *     sample_max(series_id [, from_ns, to_ns])
 *                                  the highest value: of every sample, or
 *                                  of the timed ones from_ns..to_ns
 *     sample_min(series_id)        the lowest value of every sample
 *     sample_first_boot(series_id), sample_last_boot(series_id)
 *                                  the earliest and latest boot_ns
 *     sample_untimed(series_id, clock, what)
 *                                  of the samples whose clock ('time_ns'
 *                                  or 'boot_ns') is NULL: what = 'count'
 *                                  of them, 'valued' of those with a
 *                                  value, 'other' of those with a value
 *                                  and the other clock, 'max' their
 *                                  highest value
 *
 * each NULL when no sample qualifies (the counts 0); a NULL bound is no
 * bound. They are min(time_ns), max(time_ns), max(value) and count(*)
 * over `sample` with those conditions, as SQL gives them (a NULL time or
 * value never qualifies where it is compared). A reader that asks a series' span,
 * size or highest value (the ingest's correlation of artifacts by time,
 * the rules' start-up and history checks) calls these: they decode only
 * the columns asked (the count not even those) of the series' blocks,
 * where the virtual table would hand every row of the series to SQLite.
 * Registered on every connection the store opens, and by the extension
 * for the sqlite3 shell (packed_ext.c).
 */
#include "analyzer/store/packed_block.h"
#include "analyzer/store/samples.h"

#include <string.h>

/* One connection's state: two columns' cells, reused. (The blocks'
 * query is prepared at each call: a statement kept would hold
 * sqlite3_close.) */
struct sread {
	sqlite3 *db;
	struct pk_cell *t, *o, *v, *dict;   /* the clock, the other clock, the value */
	size_t cap;
};

/* Room for n cells a column; -1 out of memory. */
static int room(struct sread *r, size_t n)
{
	struct pk_cell *t, *o, *v, *d;

	if (n <= r->cap)
		return 0;
	if (!(t = sqlite3_realloc64(r->t, n * sizeof(*t))))
		return -1;
	r->t = t;
	if (!(o = sqlite3_realloc64(r->o, n * sizeof(*o))))
		return -1;
	r->o = o;
	if (!(v = sqlite3_realloc64(r->v, n * sizeof(*v))))
		return -1;
	r->v = v;
	if (!(d = sqlite3_realloc64(r->dict, n * sizeof(*d))))
		return -1;
	r->dict = d;
	r->cap = n;
	return 0;
}

enum { SR_FIRST, SR_LAST, SR_COUNT, SR_MAX, SR_MIN, SR_VALUED, SR_OTHER };

/* A question: what, over which samples. */
struct sq {
	int what;
	int tcol;              /* the clock's column: 1 time_ns, 2 boot_ns */
	int untimed;           /* only samples without that clock (what COUNT, MAX,
				* VALUED, OTHER) */
	int timed;             /* only samples with a time (a bound was given) */
	int has_from, has_to, has_min;
	int64_t from, to;
	double min;
};

/* The value of a decoded cell as a double; 0 and *null set for NULL. */
static double cell_num(const struct pk_cell *c, int *null)
{
	*null = c->type != PV_INT && c->type != PV_REAL;
	return c->type == PV_INT ? (double)c->u.i : c->type == PV_REAL ? c->u.d : 0;
}

/* The answer to q for the series sid into ctx. */
static void answer(sqlite3_context *ctx, struct sread *r, int64_t sid, const struct sq *q)
{
	sqlite3_stmt *blocks;
	int64_t lo = 0, hi = 0, count = 0;
	double best = 0;
	int any = 0, rc, by_value = q->what == SR_MAX || q->what == SR_MIN,
	    plain_count = q->what == SR_COUNT && !q->untimed,
	    need_t = q->untimed || q->timed || q->what == SR_FIRST || q->what == SR_LAST,
	    need_o = q->what == SR_OTHER,
	    need_v = by_value || q->has_min || q->what == SR_VALUED || q->what == SR_OTHER;

	rc = sqlite3_prepare_v2(r->db, "SELECT rows, data FROM sample_block WHERE parent = ?1",
				-1, &blocks, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_result_error(ctx, sqlite3_errmsg(r->db), -1);
		return;
	}
	sqlite3_bind_int64(blocks, 1, sid);
	while ((rc = sqlite3_step(blocks)) == SQLITE_ROW) {
		struct pk_block b;
		int i;
		if (plain_count) {
			count += sqlite3_column_int64(blocks, 0);
			continue;
		}
		if (packed_block_open(&b, sqlite3_column_blob(blocks, 1),
				      (size_t)sqlite3_column_bytes(blocks, 1)) < 0 || b.ncols < 4 ||
		    room(r, (size_t)b.nrows) < 0 ||
		    (need_t && packed_block_column(&b, q->tcol, r->t, r->dict) < 0) ||
		    (need_o && packed_block_column(&b, 3 - q->tcol, r->o, r->dict) < 0) ||
		    (need_v && packed_block_column(&b, 3, r->v, r->dict) < 0)) {
			sqlite3_finalize(blocks);
			sqlite3_result_error(ctx, "sample_block: a block that is not one of samples", -1);
			return;
		}
		for (i = 0; i < b.nrows; i++) {
			int64_t t = 0;
			double v = 0;
			int vnull = 1;
			if (need_t) {
				if (r->t[i].type != PV_INT) {
					if (!q->untimed)
						continue;
				} else {
					t = r->t[i].u.i;
					if (q->untimed || (q->has_from && t < q->from) ||
					    (q->has_to && t > q->to))
						continue;
				}
			}
			if (need_v) {
				v = cell_num(&r->v[i], &vnull);
				if (vnull || (q->has_min && v < q->min))
					continue;
			}
			if (need_o && r->o[i].type != PV_INT)
				continue;
			if (q->what == SR_MAX || q->what == SR_MIN) {
				if (!any || (q->what == SR_MAX ? v > best : v < best))
					best = v;
			} else if (q->what == SR_FIRST || q->what == SR_LAST) {
				if (!any || t < lo)
					lo = t;
				if (!any || t > hi)
					hi = t;
			} else {
				count++;
			}
			any = 1;
		}
	}
	if (rc != SQLITE_DONE) {
		sqlite3_result_error(ctx, sqlite3_errmsg(r->db), -1);
		sqlite3_finalize(blocks);
		return;
	}
	sqlite3_finalize(blocks);
	if (q->what == SR_COUNT || q->what == SR_VALUED || q->what == SR_OTHER)
		sqlite3_result_int64(ctx, count);
	else if (!any)
		sqlite3_result_null(ctx);
	else if (by_value)
		sqlite3_result_double(ctx, best);
	else
		sqlite3_result_int64(ctx, q->what == SR_FIRST ? lo : hi);
}

/* The bound of argument x into *v, *has; a NULL is no bound. */
static void bound_of(sqlite3_value *x, int64_t *v, int *has)
{
	*has = sqlite3_value_type(x) != SQLITE_NULL;
	*v = *has ? sqlite3_value_int64(x) : 0;
}

/* Every function: argv[0] the series; the others as its kind says. */
static void fn_sample(sqlite3_context *ctx, int argc, sqlite3_value **argv, int what)
{
	struct sq q;

	memset(&q, 0, sizeof(q));
	q.what = what;
	q.tcol = 1;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		if (what == SR_COUNT)
			sqlite3_result_int64(ctx, 0);
		else
			sqlite3_result_null(ctx);
		return;
	}
	if (what == SR_MAX && argc == 3) {
		q.timed = 1;
		bound_of(argv[1], &q.from, &q.has_from);
		bound_of(argv[2], &q.to, &q.has_to);
	} else if ((what == SR_FIRST || what == SR_LAST) && argc >= 2) {
		bound_of(argv[1], &q.to, &q.has_to);
		if (argc == 3 && what == SR_FIRST) {
			q.has_min = sqlite3_value_type(argv[2]) != SQLITE_NULL;
			q.min = sqlite3_value_double(argv[2]);
		}
	}
	answer(ctx, sqlite3_user_data(ctx), sqlite3_value_int64(argv[0]), &q);
}

static void fn_count(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	fn_sample(ctx, argc, argv, SR_COUNT);
}

static void fn_first(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	fn_sample(ctx, argc, argv, SR_FIRST);
}

static void fn_last(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	fn_sample(ctx, argc, argv, SR_LAST);
}

static void fn_max(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	fn_sample(ctx, argc, argv, SR_MAX);
}

static void fn_min(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	fn_sample(ctx, argc, argv, SR_MIN);
}

/* sample_first_boot, sample_last_boot: the span on the boot clock. */
static void fn_boot(sqlite3_context *ctx, sqlite3_value *sid, int what)
{
	struct sq q;

	memset(&q, 0, sizeof(q));
	q.what = what;
	q.tcol = 2;
	if (sqlite3_value_type(sid) == SQLITE_NULL)
		sqlite3_result_null(ctx);
	else
		answer(ctx, sqlite3_user_data(ctx), sqlite3_value_int64(sid), &q);
}

static void fn_first_boot(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	fn_boot(ctx, argv[0], SR_FIRST);
}

static void fn_last_boot(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	fn_boot(ctx, argv[0], SR_LAST);
}

/* sample_untimed(series_id, clock, what): see the file's comment. */
static void fn_untimed(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	static const struct { const char *name; int what; } whats[] = {
		{ "count", SR_COUNT }, { "valued", SR_VALUED }, { "other", SR_OTHER },
		{ "max", SR_MAX },
	};
	const char *clock = (const char *)sqlite3_value_text(argv[1]);
	const char *what = (const char *)sqlite3_value_text(argv[2]);
	struct sq q;
	size_t i;

	(void)argc;
	memset(&q, 0, sizeof(q));
	q.untimed = 1;
	q.what = -1;
	for (i = 0; what && i < sizeof(whats) / sizeof(whats[0]); i++)
		if (!strcmp(what, whats[i].name))
			q.what = whats[i].what;
	q.tcol = clock && !strcmp(clock, "time_ns") ? 1 : clock && !strcmp(clock, "boot_ns") ? 2 : 0;
	if (q.what < 0 || !q.tcol) {
		sqlite3_result_error(ctx, "sample_untimed: a clock is 'time_ns' or 'boot_ns',"
				     " what 'count', 'valued', 'other' or 'max'", -1);
		return;
	}
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		if (q.what == SR_MAX)
			sqlite3_result_null(ctx);
		else
			sqlite3_result_int64(ctx, 0);
		return;
	}
	answer(ctx, sqlite3_user_data(ctx), sqlite3_value_int64(argv[0]), &q);
}

/* The connection's state goes with its last function. */
static void sread_free(void *p)
{
	struct sread *r = p;

	sqlite3_free(r->t);
	sqlite3_free(r->o);
	sqlite3_free(r->v);
	sqlite3_free(r->dict);
	sqlite3_free(r);
}

int samples_register(sqlite3 *db)
{
	static const struct { const char *name; int nargs;
			      void (*fn)(sqlite3_context *, int, sqlite3_value **); } fns[] = {
		{ "sample_first_ns", 1, fn_first }, { "sample_first_ns", 2, fn_first },
		{ "sample_first_ns", 3, fn_first }, { "sample_last_ns", 1, fn_last },
		{ "sample_last_ns", 2, fn_last }, { "sample_max", 1, fn_max },
		{ "sample_max", 3, fn_max }, { "sample_min", 1, fn_min },
		{ "sample_first_boot", 1, fn_first_boot }, { "sample_last_boot", 1, fn_last_boot },
		{ "sample_untimed", 3, fn_untimed },
	};
	struct sread *r = sqlite3_malloc(sizeof(*r));
	size_t i;
	int rc;

	if (!r)
		return SQLITE_NOMEM;
	memset(r, 0, sizeof(*r));
	r->db = db;
	/* one state for all, freed with sample_count (by SQLite when its
	 * registration fails, too) */
	rc = sqlite3_create_function_v2(db, "sample_count", 1, SQLITE_UTF8, r, fn_count, NULL,
					NULL, sread_free);
	for (i = 0; rc == SQLITE_OK && i < sizeof(fns) / sizeof(fns[0]); i++)
		rc = sqlite3_create_function_v2(db, fns[i].name, fns[i].nargs, SQLITE_UTF8, r,
						fns[i].fn, NULL, NULL, NULL);
	return rc;
}
