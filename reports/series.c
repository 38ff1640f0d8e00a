/*
 * series.c -- the JSON report's "series": one row per time series with
 * its size, value range, last value, time span and clock (docs/json.md).
 *
 * The figures come from one pass over the sample table in its stored
 * order (the blocks of each series in turn, analyzer/store/samples.h),
 * summed per series here, instead of SQLite's GROUP BY, which sorts every
 * sample (hundreds of thousands for a kernel log or a serving engine's
 * metrics). Each series' row is then made by SQLite
 * from those figures, so that its columns, types and keys are those of
 * the one query it replaces (SERIES_SQL, still used where this pass
 * cannot be sure to give the same values).
 */
#include "reports/section.h"
#include "analyzer/store/query.h"

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

/* One sample into its series' sum: 0, or -1 for a value of a type that
 * SQLite's aggregates would order otherwise (text in a number column). */
static int add_sample(struct series_sum *s, sqlite3_stmt *st)
{
	/* each column fetched once (unprotected values, read before the next step) */
	sqlite3_value *tv = sqlite3_column_value(st, 1), *vv = sqlite3_column_value(st, 3);
	int tt = sqlite3_value_type(tv), bt = sqlite3_column_type(st, 2);
	int vt = sqlite3_value_type(vv);
	int64_t t = tt == SQLITE_INTEGER ? sqlite3_value_int64(tv) : 0;
	double v = vt == SQLITE_FLOAT ? sqlite3_value_double(vv) : 0;

	if ((tt != SQLITE_INTEGER && tt != SQLITE_NULL) ||
	    (bt != SQLITE_INTEGER && bt != SQLITE_NULL) || (vt != SQLITE_FLOAT && vt != SQLITE_NULL))
		return -1;
	if (vt == SQLITE_FLOAT) {
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
	if (tt == SQLITE_INTEGER) {
		if (!s->timed || t < s->first)
			s->first = t;
		if (!s->timed || t > s->last)
			s->last = t;
		s->timed++;
	}
	s->booted += bt != SQLITE_NULL;
	/* rows come in rowid order: a later row at the same time is the later */
	if (!s->has_latest || (tt == SQLITE_INTEGER ? !s->latest_timed || t >= s->latest_time
						    : !s->latest_timed)) {
		s->has_latest = 1;
		s->latest_timed = tt == SQLITE_INTEGER;
		s->latest_time = t;
		s->latest_null = vt == SQLITE_NULL;
		s->latest_value = v;
	}
	return 0;
}

/* Every series' sum from one pass over the samples, into s[0, n) (sorted
 * by id). 0, or -1 when the rows must be left to SERIES_SQL. */
static int sum_samples(struct report_ctx *c, struct series_sum *s, size_t n)
{
	sqlite3_stmt *st = r_prepare(c, "SELECT series_id, time_ns, boot_ns, value FROM sample"
				     " ORDER BY rowid");
	struct series_sum *cur = NULL;
	int r = st ? 0 : -1, rc = SQLITE_DONE;

	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id;
		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER)
			continue;       /* joins no series */
		id = sqlite3_column_int64(st, 0);
		if (!cur || cur->id != id)
			cur = find(s, n, id);
		if (cur && add_sample(cur, st) < 0)
			r = -1;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		r = -1;
	sqlite3_finalize(st);
	return r;
}

/* The row of series sum s, appended to rows: 0 or -1. */
static int series_row(sqlite3_stmt *st, const struct series_sum *s, json_t *rows)
{
	int r = -1;

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
	if (sqlite3_step(st) == SQLITE_ROW)
		r = json_array_append_new(rows, q_row(st));
	sqlite3_reset(st);
	return r;
}

/* The rows from the sums, in SERIES_SQL's order (name, entity: unique),
 * or NULL when the one query must make them. */
static json_t *series_fast(struct report_ctx *c)
{
	sqlite3_stmt *ids = r_prepare(c, "SELECT id FROM series ORDER BY name, entity");
	sqlite3_stmt *row = r_prepare(c, SERIES_ROW_SQL);
	struct series_sum *s = NULL, *p;
	size_t n = 0, cap = 0, i;
	int64_t *order = NULL;
	json_t *rows = NULL;
	int ok = ids && row;

	while (ok && sqlite3_step(ids) == SQLITE_ROW) {
		if (n == cap) {
			void *ns, *no;
			cap = cap ? 2 * cap : 64;
			ns = realloc(s, cap * sizeof(*s));
			no = ns ? realloc(order, cap * sizeof(*order)) : NULL;
			if (ns)
				s = ns;
			if (no)
				order = no;
			if (!ns || !no) {
				ok = 0;
				break;
			}
		}
		memset(&s[n], 0, sizeof(s[n]));
		s[n].id = order[n] = sqlite3_column_int64(ids, 0);
		n++;
	}
	if (ok && n) {                  /* no series: no rows, no samples to read */
		qsort(s, n, sizeof(*s), by_id);
		ok = sum_samples(c, s, n) == 0;
	}
	ok = ok && (rows = json_array()) != NULL;
	for (i = 0; ok && i < n; i++)
		ok = (p = find(s, n, order[i])) && series_row(row, p, rows) == 0;
	if (!ok) {
		json_decref(rows);
		rows = NULL;
	}
	sqlite3_finalize(ids);
	sqlite3_finalize(row);
	free(s);
	free(order);
	return rows;
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
