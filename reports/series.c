/*
 * series.c -- the JSON report's "series": one row per time series with
 * its size, value range, last value, time span and clock (docs/json.md),
 * written row by row (stream_series: only the sums are held, drawn from
 * the run's memory budget) or as a model (load_series, report_json()).
 *
 * The figures come from one pass over each series' samples through the
 * store's iterator (analyzer/store/samples.h: its blocks, in time order),
 * summed per series here, instead of SQLite's GROUP BY, which sorts every
 * sample (hundreds of thousands for a kernel log or a serving engine's
 * metrics). Each series' row is then made by SQLite
 * from those figures, so that its columns, types and keys are those of
 * the one query it replaces (SERIES_SQL, still used where this pass
 * cannot be sure to give the same values).
 */
#include "reports/section.h"
#include "analyzer/store/query.h"
#include "analyzer/store/samples.h"
#include "lib/budget.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every series' row in one query: the reference for series_fast. */
#define SERIES_SQL \
	"SELECT s.name, s.unit, s.entity, count(p.value) AS points," \
	" min(p.value) AS min, max(p.value) AS max," \
	" (SELECT q.value FROM sample q WHERE q.series_id = s.id" \
	"  ORDER BY q.time_ns DESC, q.rowid DESC LIMIT 1) AS last," \
	" min(p.time_ns) AS first_time, max(p.time_ns) AS last_time," \
	" CASE WHEN count(p.time_ns) = 0 AND count(p.boot_ns) > 0 THEN 'boot'" \
	"  WHEN count(p.time_ns) = 0 THEN NULL" \
	"  WHEN EXISTS (SELECT 1 FROM meta m WHERE m.artifact_id = s.artifact_id" \
	"   AND m.key = 'time.clock' AND m.value = 'local') THEN 'local'" \
	"  ELSE 'utc' END AS clock," \
	" count(p.value) - count(p.time_ns) AS unplaced_points," \
	" a.path AS artifact" \
	" FROM series s LEFT JOIN sample p ON p.series_id = s.id" \
	" LEFT JOIN artifact a ON a.id = s.artifact_id" \
	" GROUP BY s.id ORDER BY s.name, s.entity"

/* One series' row from its figures: ?1 the series, ?2 points, ?3 min,
 * ?4 max, ?5 last, ?6 first time, ?7 last time, ?8 samples with a time,
 * ?9 samples with a boot time. The columns of SERIES_SQL. */
#define SERIES_ROW_SQL \
	"SELECT s.name, s.unit, s.entity, ?2 AS points, ?3 AS min, ?4 AS max, ?5 AS last," \
	" ?6 AS first_time, ?7 AS last_time," \
	" CASE WHEN ?8 = 0 AND ?9 > 0 THEN 'boot' WHEN ?8 = 0 THEN NULL" \
	"  WHEN EXISTS (SELECT 1 FROM meta m WHERE m.artifact_id = s.artifact_id" \
	"   AND m.key = 'time.clock' AND m.value = 'local') THEN 'local'" \
	"  ELSE 'utc' END AS clock," \
	" ?2 - ?8 AS unplaced_points, a.path AS artifact" \
	" FROM series s LEFT JOIN artifact a ON a.id = s.artifact_id WHERE s.id = ?1"

/* What SQL's aggregates of one series come to. */
struct series_sum {
	int64_t id;
	int64_t points, timed, booted;  /* non-NULL values, times, boot times */
	double min, max;                /* of the values, when points > 0 */
	int64_t first, last;            /* of the times, when timed > 0 */
	int has_latest;                 /* latest: the sample of the greatest time */
	int latest_timed;               /* (NULL below every time), then rowid */
	int64_t latest_time;
	int latest_null;                /* its value is NULL */
	double latest_value;
};

static int by_id(const void *a, const void *b)
{
	const struct series_sum *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* The sum of series id in s[0, n) (sorted by id), or NULL. */
static struct series_sum *find(struct series_sum *s, size_t n, int64_t id)
{
	struct series_sum key = { .id = id };

	return n ? bsearch(&key, s, n, sizeof(*s), by_id) : NULL;
}

/* Whether a replaces the running min (want < 0) or max (want > 0) b as
 * SQLite's min()/max() would: 1 replace, 0 keep, -1 when the two compare
 * equal but print differently (0.0 and -0.0: then the scan's order, not
 * SQLite's, would choose). */
static int better(double a, double b, int want)
{
	if (a == b)
		return signbit(a) != signbit(b) ? -1 : 0;
	return want < 0 ? a < b : a > b;
}

/* One sample into its series' sum: 0, or -1 when the scan's order, not
 * SQLite's, would choose between two values (0.0 and -0.0). */
static int add_sample(struct series_sum *s, const struct sample_rec *r)
{
	int64_t t = r->time_ns;
	double v = r->value;

	if (r->has_value) {
		int lo = s->points ? better(v, s->min, -1) : 1;
		int hi = s->points ? better(v, s->max, 1) : 1;
		if (lo < 0 || hi < 0)
			return -1;
		if (lo)
			s->min = v;
		if (hi)
			s->max = v;
		s->points++;
	}
	if (r->has_time) {
		if (!s->timed || t < s->first)
			s->first = t;
		if (!s->timed || t > s->last)
			s->last = t;
		s->timed++;
	}
	s->booted += r->has_boot;
	/* rows come in time order (untimed first), ties in rowid order: the
	 * last timed one is the latest, else the last untimed */
	if (!s->has_latest || (r->has_time ? !s->latest_timed || t >= s->latest_time
					   : !s->latest_timed)) {
		s->has_latest = 1;
		s->latest_timed = r->has_time;
		s->latest_time = t;
		s->latest_null = !r->has_value;
		s->latest_value = v;
	}
	return 0;
}

/* Every series' sum from its samples, series by series, into s[0, n).
 * 0, or -1 when the rows must be left to SERIES_SQL. */
static int sum_samples(struct report_ctx *c, struct series_sum *s, size_t n)
{
	size_t i;
	int r = 0;

	for (i = 0; r == 0 && i < n; i++) {
		struct samples_iter it;
		const struct sample_rec *row;
		if (samples_iter_open(&it, c->db, s[i].id, 0, 0, 0) < 0)
			return -1;
		while (r == 0 && (row = samples_iter_next(&it)))
			r = add_sample(&s[i], row);
		if (it.err || it.odd)
			r = -1;
		samples_iter_close(&it);
	}
	return r;
}

/* Bind the figures of series sum s to SERIES_ROW_SQL's statement st and
 * step it: 1 (st holds the series' row; reset it after), or 0. */
static int series_bind(sqlite3_stmt *st, const struct series_sum *s)
{
	sqlite3_bind_int64(st, 1, s->id);
	sqlite3_bind_int64(st, 2, s->points);
	if (s->points) {
		sqlite3_bind_double(st, 3, s->min);
		sqlite3_bind_double(st, 4, s->max);
	} else {
		sqlite3_bind_null(st, 3);
		sqlite3_bind_null(st, 4);
	}
	if (s->has_latest && !s->latest_null)
		sqlite3_bind_double(st, 5, s->latest_value);
	else
		sqlite3_bind_null(st, 5);
	if (s->timed) {
		sqlite3_bind_int64(st, 6, s->first);
		sqlite3_bind_int64(st, 7, s->last);
	} else {
		sqlite3_bind_null(st, 6);
		sqlite3_bind_null(st, 7);
	}
	sqlite3_bind_int64(st, 8, s->timed);
	sqlite3_bind_int64(st, 9, s->booted);
	return sqlite3_step(st) == SQLITE_ROW;
}

/* Every series' sum, in u: s sorted by id, order the ids in SERIES_SQL's
 * order (name, entity: unique), their memory drawn from the run's budget
 * (drawn). */
struct sums {
	struct series_sum *s;
	int64_t *order;
	size_t n;
	uint64_t drawn;
};

static void sums_release(struct sums *u)
{
	free(u->s);
	free(u->order);
	ol_budget_give(u->drawn);
	memset(u, 0, sizeof(*u));
}

/* Read every series' sum into u (release it in every case). 0, or -1 when
 * the one query must make the rows (also when the sums would not fit the
 * memory budget). */
static int sums_load(struct report_ctx *c, struct sums *u)
{
	sqlite3_stmt *ids = r_prepare(c, "SELECT id FROM series ORDER BY name, entity");
	size_t cap = 0;
	int ok = ids != NULL;

	memset(u, 0, sizeof(*u));
	while (ok && sqlite3_step(ids) == SQLITE_ROW) {
		if (u->n == cap) {
			void *ns, *no;
			size_t more = (cap ? cap : 64) * (sizeof(*u->s) + sizeof(*u->order));
			/* drawn from the budget; past it, the one query */
			if (ol_budget_low() || ol_budget_take(more) < 0) {
				ok = 0;
				break;
			}
			u->drawn += more;
			cap = cap ? 2 * cap : 64;
			ns = realloc(u->s, cap * sizeof(*u->s));
			no = ns ? realloc(u->order, cap * sizeof(*u->order)) : NULL;
			if (ns)
				u->s = ns;
			if (no)
				u->order = no;
			if (!ns || !no) {
				ok = 0;
				break;
			}
		}
		memset(&u->s[u->n], 0, sizeof(u->s[u->n]));
		u->s[u->n].id = u->order[u->n] = sqlite3_column_int64(ids, 0);
		u->n++;
	}
	sqlite3_finalize(ids);
	if (ok && u->n) {               /* no series: no rows, no samples to read */
		qsort(u->s, u->n, sizeof(*u->s), by_id);
		ok = sum_samples(c, u->s, u->n) == 0;
	}
	return ok ? 0 : -1;
}

/* The rows from the sums, in SERIES_SQL's order, or NULL when the one
 * query must make them. Rows past the budget are counted, not kept. */
static json_t *series_fast(struct report_ctx *c)
{
	sqlite3_stmt *row = r_prepare(c, SERIES_ROW_SQL);
	struct series_sum *p;
	struct sums u;
	json_t *rows = NULL;
	size_t i;
	int ok = sums_load(c, &u) == 0 && row;

	ok = ok && (rows = json_array()) != NULL;
	for (i = 0; ok && i < u.n; i++) {
		if (ol_budget_low()) {  /* the rest are counted, not kept */
			q_rows_cut_add(u.n - i);
			break;
		}
		ok = (p = find(u.s, u.n, u.order[i])) && series_bind(row, p) &&
		     json_array_append_new(rows, q_row(row)) == 0;
		sqlite3_reset(row);
	}
	if (!ok) {
		json_decref(rows);
		rows = NULL;
	}
	sqlite3_finalize(row);
	sums_release(&u);
	return rows;
}

/* The series written row by row (the rows of load_series, as its model
 * would be dumped): from the sums, or SERIES_SQL's rows when they cannot
 * be made; nothing held but the sums. 0, or -1 when a query or a write
 * failed. */
int stream_series(struct report_ctx *c, FILE *out)
{
	struct sums u;
	int fast = sums_load(c, &u) == 0;
	sqlite3_stmt *st = r_prepare(c, fast ? SERIES_ROW_SQL : SERIES_SQL);
	struct q_jw_cols cols;
	struct q_jw w;
	struct series_sum *p;
	size_t i, n = 0;
	int have = st && q_jw_cols_init(&cols, st, NULL, NULL) == 0;
	int r = have ? 0 : -1, more;

	q_jw_init(&w, out, 2, 1);
	q_jw_raw(&w, "[", 1);
	for (i = 0; r == 0; i++) {
		if (fast)
			more = i < u.n && (p = find(u.s, u.n, u.order[i])) && series_bind(st, p);
		else
			more = sqlite3_step(st) == SQLITE_ROW;
		if (!more) {
			if (fast && i < u.n)
				r = -1;
			break;
		}
		q_jw_raw(&w, n ? ",\n  " : "\n  ", n ? 4 : 3);
		n++;
		q_jw_open(&w, '{');
		r = q_jw_row(&w, &cols);
		q_jw_close(&w, '}');
		q_jw_flush(&w);
		if (fast)
			sqlite3_reset(st);
	}
	if (have)
		q_jw_cols_release(&cols);
	sqlite3_finalize(st);
	sums_release(&u);
	q_jw_raw(&w, n ? "\n]" : "]", n ? 2 : 1);
	return q_jw_finish(&w) < 0 ? -1 : r;
}

/* One row per series: its size, time span and last value (the latest
 * sample; the last written when times tie or are unknown). clock: "local" when the
 * writing artifact stored wall-clock times of unknown zone (meta
 * time.clock), "boot" when no point could be placed on UTC, null when no
 * point has any time, else "utc". */
json_t *load_series(struct report_ctx *c)
{
	json_t *rows = series_fast(c);

	return rows ? rows : r_rows(c, SERIES_SQL, -1);
}
