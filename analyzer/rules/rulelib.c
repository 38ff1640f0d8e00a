/*
 * rulelib.c -- shared reading and writing helpers of the rule modules
 * (see rulelib.h). Every query here is indexed: sample(series_id,
 * time_ns), meta(key), event(kind).
 */
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const rl_memory_series[] = {
	"torch.allocated_bytes", "gpu.used_bytes", "proc.rss_bytes", "proc.anon_bytes",
	"cgroup.anon_bytes", "cgroup.current_bytes", "torch.reserved_bytes", NULL
};

static sqlite3_stmt *prep(struct rule_ctx *c, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(c->tl->db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "oomlens: sqlite: %s\n", sqlite3_errmsg(c->tl->db));
		return NULL;
	}
	return st;
}

int rl_table_exists(struct rule_ctx *c, const char *name)
{
	sqlite3_stmt *st = prep(c, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
	int r = 0;

	if (!st)
		return 0;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	r = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return r;
}

int rl_alloc_indexes(struct rule_ctx *c)
{
	return timeline_exec(c->tl,
		"CREATE INDEX IF NOT EXISTS alloc_state_stack ON alloc(state, stack_id, alloc_ns, size);"
		"CREATE INDEX IF NOT EXISTS alloc_time ON alloc(alloc_ns)");
}

int rl_meta_text(struct rule_ctx *c, const char *key, char *buf, size_t n)
{
	sqlite3_stmt *st = prep(c, "SELECT value FROM meta WHERE key = ? AND value IS NOT NULL"
				" ORDER BY artifact_id IS NULL, rowid LIMIT 1");
	int r = -1;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
		r = 0;
	}
	sqlite3_finalize(st);
	return r;
}

int rl_meta_num(struct rule_ctx *c, const char *key, double *out)
{
	char buf[64], *end;
	double v;

	if (rl_meta_text(c, key, buf, sizeof(buf)) < 0)
		return -1;
	v = strtod(buf, &end);
	if (end == buf || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int rl_query_num(struct rule_ctx *c, const char *sql, double *out)
{
	sqlite3_stmt *st = prep(c, sql);
	int r = -1;

	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*out = sqlite3_column_double(st, 0);
		r = 0;
	}
	sqlite3_finalize(st);
	return r;
}

int64_t rl_oom_time(struct rule_ctx *c)
{
	sqlite3_stmt *st = prep(c,
		"SELECT id, time_ns FROM event WHERE time_ns IS NOT NULL AND (kind IN"
		" ('torch_oom', 'oom_kill', 'oom_invoked', 'userspace_kill')"
		" OR (kind = 'cuda_exception' AND lower(summary) LIKE '%out of memory%'))"
		" ORDER BY time_ns LIMIT 1");
	int64_t t = OL_NULL;

	if (!st)
		return OL_NULL;
	if (sqlite3_step(st) == SQLITE_ROW)
		t = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	return t;
}

int rl_series_load_grid(struct rule_ctx *c, int64_t id, int64_t t0, int64_t t1,
			int64_t width, struct rl_series *s)
{
	sqlite3_stmt *st;
	struct rl_cached *k;
	int64_t cur = INT64_MIN;
	double n = 0, st_sum = 0, v_sum = 0;
	unsigned i;

	if (width < 1)
		width = 1;
	for (i = 0; i < RL_CACHE; i++) {
		const struct rl_cached *k = &c->cache[i];
		if (k->used && k->id == id && k->t0 == t0 && k->t1 == t1 && k->width == width) {
			memcpy(s, &k->s, sizeof(*s));
			return s->n ? 0 : -1;
		}
	}
	s->n = 0;
	s->id = id;
	s->t0_ns = t0;
	s->width_ns = width;
	s->last_t = 0;
	/* one pass in index order (series_id, time_ns): buckets close as the
	 * time moves on; no GROUP BY sort */
	st = prep(c, "SELECT time_ns, value FROM sample WHERE series_id = ?1 AND time_ns"
		      " BETWEEN ?2 AND ?3 AND value IS NOT NULL ORDER BY time_ns");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, t0);
	sqlite3_bind_int64(st, 3, t1);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0) - t0;
		double v = sqlite3_column_double(st, 1);
		int64_t b = t / width;
		if (b != cur) {
			if (n > 0 && s->n < RL_MAX_POINTS) {
				s->t[s->n] = st_sum / n / 1e9;
				s->avg[s->n] = v_sum / n;
				s->n++;
			}
			if (s->n >= RL_MAX_POINTS)
				break;
			cur = b;
			n = st_sum = v_sum = 0;
			s->b[s->n] = b;
			s->max[s->n] = v;
		}
		n++;
		st_sum += (double)t;
		v_sum += v;
		if (v > s->max[s->n])
			s->max[s->n] = v;
		s->last_t = (double)t / 1e9;
	}
	if (n > 0 && s->n < RL_MAX_POINTS) {
		s->t[s->n] = st_sum / n / 1e9;
		s->avg[s->n] = v_sum / n;
		s->n++;
	}
	sqlite3_finalize(st);
	k = &c->cache[c->cache_next];
	k->used = 1;
	k->id = id;
	k->t0 = t0;
	k->t1 = t1;
	k->width = width;
	memcpy(&k->s, s, sizeof(*s));
	c->cache_next = (c->cache_next + 1) % RL_CACHE;
	return s->n ? 0 : -1;
}

/* First and last sample time of a series up to until_ns (both index seeks). */
static int series_span(struct rule_ctx *c, int64_t id, int64_t until_ns, int64_t *t0,
		       int64_t *t1)
{
	sqlite3_stmt *st;
	int r = -1;

	st = prep(c, "SELECT (SELECT min(time_ns) FROM sample WHERE series_id = ?1"
		      " AND time_ns IS NOT NULL), (SELECT max(time_ns) FROM sample"
		      " WHERE series_id = ?1 AND time_ns <= ?2)");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, until_ns == OL_NULL ? INT64_MAX : until_ns);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL &&
	    sqlite3_column_type(st, 1) != SQLITE_NULL) {
		int64_t d;
		*t0 = sqlite3_column_int64(st, 0);
		*t1 = sqlite3_column_int64(st, 1);
		/* hostile times: a span that does not fit is no series */
		r = *t1 >= *t0 && !__builtin_sub_overflow(*t1, *t0, &d) ? 0 : -1;
	}
	sqlite3_finalize(st);
	return r;
}

int rl_series_load(struct rule_ctx *c, int64_t id, int64_t until_ns, struct rl_series *s)
{
	int64_t t0, t1;

	s->n = 0;
	if (series_span(c, id, until_ns, &t0, &t1) < 0)
		return -1;
	return rl_series_load_grid(c, id, t0, t1, (t1 - t0) / (RL_MAX_POINTS - 1) + 1, s);
}

int rl_trend(const struct rl_series *s, struct rl_trend *tr)
{
	return rl_trend_ex(s, 64 * MIB, tr);
}

int rl_trend_ex(const struct rl_series *s, double min_rise, struct rl_trend *tr)
{
	double res[RL_MAX_POINTS];
	struct fit f;
	struct change c;
	size_t i, n = s->n, head = n * 4 / 5, cut = n;

	memset(tr, 0, sizeof(*tr));
	if (n < 8)
		return -1;
	/* 1. trend of the first 80%, 2. residuals, 3. change point in the
	 * last half of the residuals: the final rise, if it stands out. */
	if (stats_theil_sen(s->t, s->avg, head, &f) < 0)
		return -1;
	for (i = 0; i < n; i++)
		res[i] = s->max[i] - (f.intercept + f.slope * s->t[i]);
	if (stats_change_point(res, n, n / 2, &c) == 0) {
		double level = f.intercept + f.slope * s->t[c.at];
		double rise = c.after - c.before;
		double floor_ = level * 0.03 > min_rise ? level * 0.03 : min_rise;
		if (rise > 6 * c.noise && rise > floor_) {
			size_t pk = c.at;
			for (i = c.at; i < n; i++)
				if (s->max[i] > s->max[pk])
					pk = i;
			tr->rise = 1;
			tr->rise_at = c.at;
			tr->rise_start_t = s->t[c.at > 0 ? c.at - 1 : 0];
			tr->rise_peak_t = s->t[pk];
			tr->baseline = level;
			tr->peak = s->max[pk];
			tr->noise = c.noise;
			cut = c.at;
		}
	}
	if (cut < 3 || stats_theil_sen(s->t, s->avg, cut, &tr->fit) < 0)
		tr->fit = f;
	tr->duration_s = s->t[(cut < n ? cut : n) - 1] - s->t[0];
	tr->level_start = tr->fit.intercept + tr->fit.slope * s->t[0];
	tr->level_end = tr->fit.intercept + tr->fit.slope * s->t[(cut < n ? cut : n) - 1];
	tr->growth = tr->fit.slope * tr->duration_s;
	return 0;
}

int rl_pick_memory_series(struct rule_ctx *c, rl_judge *judge, struct rl_pick *pick)
{
	sqlite3_stmt *st = prep(c, "SELECT id, entity FROM series WHERE name = ?");
	struct rl_trend tr;
	int i;

	memset(pick, 0, sizeof(*pick));
	pick->s = &c->best;
	if (!st)
		return -1;
	for (i = 0; rl_memory_series[i]; i++) {
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, rl_memory_series[i], -1, SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW) {
			double score;
			if (rl_series_load(c, sqlite3_column_int64(st, 0), c->oom_ns, &c->cur) < 0 ||
			    rl_trend(&c->cur, &tr) < 0)
				continue;
			score = judge(c, rl_memory_series[i], &c->cur, &tr);
			if (score > pick->score) {
				pick->score = score;
				pick->name = rl_memory_series[i];
				pick->tr = tr;
				snprintf(pick->entity, sizeof(pick->entity), "%s", rl_col_text(st, 1));
				memcpy(&c->best, &c->cur, sizeof(c->best));
			}
		}
	}
	sqlite3_finalize(st);
	return pick->name != NULL;
}

/* id of series (name, entity) or the first of that name; 0 if none. */
static int64_t series_id(struct rule_ctx *c, const char *name)
{
	double v;
	char sql[200];

	snprintf(sql, sizeof(sql), "SELECT s.id FROM series s WHERE s.name = '%s' AND EXISTS"
		 " (SELECT 1 FROM sample p WHERE p.series_id = s.id) ORDER BY s.id LIMIT 1", name);
	return rl_query_num(c, sql, &v) == 0 ? (int64_t)v : 0;
}

int rl_per_request(struct rule_ctx *c, int64_t until_ns, double *bytes, const char **how)
{
	static const char *const mem[] = { "torch.allocated_bytes", "gpu.used_bytes",
					   "proc.rss_bytes", "cgroup.current_bytes", NULL };
	struct rl_series *a = &c->x, *b = &c->y;
	double *x = c->v1, *y = c->v2, v;
	int64_t run = series_id(c, "server.running"), t0, t1, m = 0;
	struct fit f;
	size_t i, j, n;

	for (i = 0; run && mem[i] && !m; i++)
		m = series_id(c, mem[i]);
	if (run && m && series_span(c, run, until_ns, &t0, &t1) == 0) {
		int64_t w = (t1 - t0) / (RL_MAX_POINTS - 1) + 1;
		if (rl_series_load_grid(c, run, t0, t1, w, a) == 0 &&
		    rl_series_load_grid(c, m, t0, t1, w, b) == 0) {
			for (i = j = n = 0; i < a->n && j < b->n;) {
				if (a->b[i] < b->b[j]) {
					i++;
				} else if (a->b[i] > b->b[j]) {
					j++;
				} else {
					x[n] = a->avg[i];
					y[n++] = b->avg[j];
					i++, j++;
				}
			}
			if (n >= 10 && stats_theil_sen(x, y, n, &f) == 0 && f.slope > 0) {
				*bytes = f.slope;
				*how = "slope of memory in use against running requests";
				return 0;
			}
		}
	}
	if (rl_oom_request(c, &v) == 0) {
		*bytes = v;
		*how = "size of the allocation that failed";
		return 0;
	}
	return -1;
}

int rl_oom_request(struct rule_ctx *c, double *bytes)
{
	return rl_query_num(c, "SELECT coalesce(json_extract(data, '$.requested_bytes'), bytes)"
			    " FROM event WHERE kind = 'torch_oom' AND coalesce(json_extract(data,"
			    " '$.requested_bytes'), bytes) > 0 ORDER BY time_ns LIMIT 1", bytes);
}

int rl_gpu_total(struct rule_ctx *c, double *bytes)
{
	if (rl_query_num(c, "SELECT max(p.value) FROM series s JOIN sample p ON p.series_id = s.id"
			 " WHERE s.name = 'gpu.total_bytes' AND p.value > 0", bytes) == 0)
		return 0;
	if (rl_query_num(c, "SELECT max(CAST(value AS REAL)) FROM meta WHERE key LIKE"
			 " 'gpu.total\\_bytes.%' ESCAPE '\\' AND CAST(value AS REAL) > 0", bytes) == 0)
		return 0;
	return rl_query_num(c, "SELECT max(json_extract(data, '$.total_bytes')) FROM event"
			    " WHERE kind = 'torch_oom' AND json_extract(data, '$.total_bytes') > 0", bytes);
}

int rl_value_at(struct rule_ctx *c, const char *name, const char *entity,
		int64_t t_ns, double *out)
{
	sqlite3_stmt *st = prep(c,
		"SELECT p.value FROM series s JOIN sample p ON p.series_id = s.id"
		" WHERE s.name = ?1 AND (?2 IS NULL OR s.entity = ?2) AND p.value IS NOT NULL"
		" AND p.time_ns <= ?3 ORDER BY p.time_ns DESC LIMIT 1");
	int r = -1;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (entity)
		sqlite3_bind_text(st, 2, entity, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 2);
	sqlite3_bind_int64(st, 3, t_ns == OL_NULL ? INT64_MAX : t_ns);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*out = sqlite3_column_double(st, 0);
		r = 0;
	}
	sqlite3_finalize(st);
	return r;
}

void rl_finding_init(struct rl_finding *f, const char *rule, const char *class_,
		     const char *cause)
{
	memset(f, 0, sizeof(*f));
	f->rule = rule;
	f->class_ = class_;
	f->cause = cause;
	f->figures = json_object();
}

void rl_fig(struct rl_finding *f, const char *key, double v)
{
	if (!f->figures || !isfinite(v))
		return;
	/* integers stay integers in the JSON (bytes, counts) */
	if (fabs(v) < 9.2e18 && v == floor(v))
		json_object_set_new(f->figures, key, json_integer((json_int_t)v));
	else
		json_object_set_new(f->figures, key, json_real(round(v * 1e4) / 1e4));
}

void rl_advice(struct rl_finding *f, const char *fmt, ...)
{
	size_t len = strlen(f->advice);
	va_list ap;

	if (len && len + 2 < sizeof(f->advice)) {
		strcat(f->advice, " ");
		len++;
	}
	va_start(ap, fmt);
	vsnprintf(f->advice + len, sizeof(f->advice) - len, fmt, ap);
	va_end(ap);
}

void rl_finding_drop(struct rl_finding *f)
{
	json_decref(f->figures);
	f->figures = NULL;
}

int64_t rl_finding_write(struct rule_ctx *c, struct rl_finding *f)
{
	sqlite3_stmt *st = prep(c, "INSERT INTO finding(rule, class, cause, score, title,"
				" advice, figures) VALUES(?,?,?,?,?,?,?)");
	char *fig = f->figures ? json_dumps(f->figures, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(10)) : NULL;
	int64_t id = -1;

	if (!st)
		goto done;
	sqlite3_bind_text(st, 1, f->rule, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, f->class_, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, f->cause, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 4, round(rl_clamp01(f->score) * 1000) / 1000);
	sqlite3_bind_text(st, 5, f->title, -1, SQLITE_STATIC);
	if (f->advice[0])
		sqlite3_bind_text(st, 6, f->advice, -1, SQLITE_STATIC);
	if (fig)
		sqlite3_bind_text(st, 7, fig, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE)
		id = sqlite3_last_insert_rowid(c->tl->db);
	else
		fprintf(stderr, "oomlens: sqlite: %s\n", sqlite3_errmsg(c->tl->db));
	sqlite3_finalize(st);
done:
	free(fig);
	rl_finding_drop(f);
	return id;
}

int rl_evidence(struct rule_ctx *c, int64_t finding_id, const char *table, int64_t id,
		const char *note)
{
	sqlite3_stmt *st = prep(c, "INSERT INTO evidence(finding_id, ref_table, ref_id, note)"
				" VALUES(?,?,?,?)");
	int r = -1;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, finding_id);
	sqlite3_bind_text(st, 2, table, -1, SQLITE_STATIC);
	if (id == OL_NULL || id <= 0)
		sqlite3_bind_null(st, 3);
	else
		sqlite3_bind_int64(st, 3, id);
	if (note)
		sqlite3_bind_text(st, 4, note, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_DONE)
		r = 0;
	sqlite3_finalize(st);
	return r;
}

const char *rl_col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : "?";
}

const char *rl_bytes(double b, char *buf, size_t n)
{
	if (fabs(b) >= GIB)
		snprintf(buf, n, "%.2f GiB", b / GIB);
	else
		snprintf(buf, n, "%.1f MiB", b / MIB);
	return buf;
}

double rl_clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

int rl_baseline(struct rule_ctx *c, const char *name, int64_t until_ns, double *bytes,
		int64_t *id)
{
	struct rl_series *s = &c->cur;
	double mid, v[10], *tmp = c->v1;
	size_t i, k = 0;
	int64_t sid = series_id(c, name);

	if (!sid || rl_series_load(c, sid, until_ns, s) < 0)
		return -1;
	/* start-up ends when the series first reaches 90% of the median of
	 * its first third (a spike at the end or a leak's late level do not
	 * move that median) */
	memcpy(tmp, s->avg, s->n * sizeof(*tmp));
	mid = stats_median(tmp, s->n / 3 ? s->n / 3 : s->n);
	for (i = 0; i < s->n && s->avg[i] < 0.9 * mid; i++)
		;
	for (; i < s->n && k < 10; i++)
		v[k++] = s->avg[i];
	if (!k)
		return -1;
	*bytes = stats_median(v, k);
	if (id)
		*id = sid;
	return 0;
}

int rl_capacity_of(struct rule_ctx *c, const char *series, double *cap)
{
	if (!strncmp(series, "gpu.", 4) || !strncmp(series, "torch.", 6))
		return rl_gpu_total(c, cap);
	if (rl_meta_num(c, "cgroup.max_bytes", cap) == 0 && *cap > 0 && *cap < 1e18)
		return 0;
	return -1;
}

int rl_correlation(struct rule_ctx *c, const struct rl_series *a, int64_t b_id, double *r)
{
	struct rl_series *b = &c->y;
	double *x = c->v1, *y = c->v2;
	size_t i = 0, j = 0, n = 0;
	int64_t end;

	if (__builtin_mul_overflow((int64_t)RL_MAX_POINTS, a->width_ns, &end) ||
	    __builtin_add_overflow(end, a->t0_ns, &end))
		end = INT64_MAX;
	if (rl_series_load_grid(c, b_id, a->t0_ns, end, a->width_ns, b) < 0)
		return -1;
	while (i < a->n && j < b->n) {
		if (a->b[i] < b->b[j]) {
			i++;
		} else if (a->b[i] > b->b[j]) {
			j++;
		} else {
			x[n] = a->max[i];
			y[n++] = b->max[j];
			i++, j++;
		}
	}
	if (n < 8)
		return -1;
	*r = stats_pearson(x, y, n);
	return 0;
}
