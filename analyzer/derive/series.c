/*
 * series.c -- memory series as the rules see them (see rulelib.h): loads
 * bucketed in one pass over a series' samples (its blocks) and kept
 * in the context's cache, the shape of a series before the OOM (trend and
 * final rise), the pick of the memory series a trend rule reports, and
 * the figures read from pairs of series on one grid (per-request need,
 * correlation) or from one series' start (baseline).
 */
#include "analyzer/derive/dctx.h"
#include "analyzer/store/samples.h"
#include "lib/strci.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const struct rl_memory_kind rl_memory_series[] = {
	{ "torch.allocated_bytes", RL_SCOPE_GPU, 1, 0 },
	{ "gpu.used_bytes", RL_SCOPE_GPU, 1, 0 },
	{ "proc.rss_bytes", RL_SCOPE_HOST, 1, 0 },
	{ "proc.anon_bytes", RL_SCOPE_HOST, 1, 0 },
	{ "cgroup.anon_bytes", RL_SCOPE_HOST, 1, 0 },
	{ "cgroup.current_bytes", RL_SCOPE_HOST, 1, 0 },
	{ "torch.reserved_bytes", RL_SCOPE_GPU, 1, 0 },
	{ "cuda.allocated_bytes", RL_SCOPE_GPU, 1, 0 },   /* Nsight Systems */
	/* metrics exports keep the exporter's names (docs/schema.md) */
	{ "container_memory_working_set_bytes", RL_SCOPE_HOST, 1, 0 },
	{ "container_memory_rss", RL_SCOPE_HOST, 1, 0 },
	{ "process_resident_memory_bytes", RL_SCOPE_HOST, 1, 0 },
	{ "DCGM_FI_DEV_FB_USED", RL_SCOPE_GPU, MIB, 0 },   /* DCGM's unit: MiB */
	{ "grafana.series", RL_SCOPE_HOST, 1, 1 },
	{ NULL, RL_SCOPE_HOST, 0, 0 }
};

/* A Grafana panel's series named for memory in use: its scope, and its
 * unit (DCGM's framebuffer fields are MiB); -1 when the name says
 * something else (a share, a limit, what is free). */
static int named_scope(const char *entity, double *unit)
{
	static const char *const not_in_use[] = { "percent", "%", "util", "ratio", "limit",
		"request", "free", "avail", "total", "capacity", NULL };
	static const char *const gpu[] = { "gpu", "fb_used", "vram", "dcgm", "cuda", NULL };
	static const char *const mem[] = { "rss", "working_set", "memory", "mem_used", "resident",
		"fb_used", NULL };
	int i, m = 0;

	if (!entity)
		return -1;
	for (i = 0; not_in_use[i]; i++)
		if (str_has_ci(entity, not_in_use[i]))
			return -1;
	for (i = 0; mem[i] && !m; i++)
		m = str_has_ci(entity, mem[i]);
	if (!m)
		return -1;
	if (unit)
		*unit = str_has_ci(entity, "DCGM_FI_DEV_FB") ? MIB : 1;
	for (i = 0; gpu[i]; i++)
		if (str_has_ci(entity, gpu[i]))
			return RL_SCOPE_GPU;
	return RL_SCOPE_HOST;
}

int rl_series_scope(const char *name, const char *entity, double *unit)
{
	const struct rl_memory_kind *k;

	for (k = rl_memory_series; k->name; k++) {
		if (strcmp(name, k->name))
			continue;
		if (k->entity_named)
			return named_scope(entity, unit);
		if (unit)
			*unit = k->unit;
		return (int)k->scope;
	}
	return -1;
}

int rl_has_memory_series(struct rule_ctx *c)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT s.name, s.entity FROM series s WHERE"
				      " (SELECT count(*) FROM (SELECT 1 FROM sample p WHERE p.series_id = s.id"
				      " AND p.time_ns IS NOT NULL LIMIT 8)) >= 8");
	int found = 0;

	if (!st)
		return 0;
	while (!found && sqlite3_step(st) == SQLITE_ROW)
		found = rl_series_scope(q_text(st, 0), sqlite3_column_type(st, 1) == SQLITE_TEXT ?
					q_text(st, 1) : NULL, NULL) >= 0;
	sqlite3_finalize(st);
	return found;
}

/* The scope and unit of series id (rl_series_scope): -1 and 1 when it is
 * not a memory series or cannot be read. */
static int series_kind(struct rule_ctx *c, int64_t id, double *unit)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT name, entity FROM series WHERE id = ?1");
	int scope = -1;

	*unit = 1;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT)
		scope = rl_series_scope(q_text(st, 0), sqlite3_column_type(st, 1) == SQLITE_TEXT ?
					q_text(st, 1) : NULL, unit);
	sqlite3_finalize(st);
	return scope;
}

/* The cached load of (id, t0, t1, width) into s: 1, or 0 when not kept. */
static int cache_get(const struct rule_ctx *c, int64_t id, int64_t t0, int64_t t1,
		     int64_t width, struct rl_series *s)
{
	unsigned i;

	for (i = 0; i < RL_CACHE; i++) {
		const struct rl_cached *k = &c->cache[i];
		if (k->used && k->id == id && k->t0 == t0 && k->t1 == t1 && k->width == width) {
			memcpy(s, &k->s, sizeof(*s));
			return 1;
		}
	}
	return 0;
}

/* Keep a load in the ring, over the oldest. */
static void cache_put(struct rule_ctx *c, int64_t t1, const struct rl_series *s)
{
	struct rl_cached *k = &c->cache[c->cache_next];

	k->used = 1;
	k->id = s->id;
	k->t0 = s->t0_ns;
	k->t1 = t1;
	k->width = s->width_ns;
	memcpy(&k->s, s, sizeof(*s));
	c->cache_next = (c->cache_next + 1) % RL_CACHE;
}

/* Close the bucket being filled (n samples, sums of their times since t0
 * and values) and move to the next slot. */
static void bucket_close(struct rl_series *s, double n, double t_sum, double v_sum)
{
	if (n > 0 && s->n < RL_MAX_POINTS) {
		s->t[s->n] = t_sum / n / 1e9;
		s->avg[s->n] = v_sum / n;
		s->n++;
	}
}

/* Fill s (id, t0_ns and width_ns set) from the series' samples in time
 * order (values times unit): one pass, buckets close as the time moves
 * on, so no GROUP BY sort. */
static void bucket_rows(struct samples_iter *it, double unit, struct rl_series *s)
{
	const struct sample_rec *r;
	int64_t cur = INT64_MIN;
	double n = 0, t_sum = 0, v_sum = 0;

	while ((r = samples_iter_next(it))) {
		int64_t t = r->time_ns - s->t0_ns;
		double v = r->value * unit;
		int64_t b = t / s->width_ns;
		if (b != cur) {
			bucket_close(s, n, t_sum, v_sum);
			if (s->n >= RL_MAX_POINTS)
				return;
			cur = b;
			n = t_sum = v_sum = 0;
			s->b[s->n] = b;
			s->max[s->n] = v;
		}
		n++;
		t_sum += (double)t;
		v_sum += v;
		if (v > s->max[s->n])
			s->max[s->n] = v;
		s->last_t = (double)t / 1e9;
	}
	bucket_close(s, n, t_sum, v_sum);
}

int rl_samples(struct rule_ctx *c, int64_t id, int64_t t0, int64_t t1, struct samples_iter *it,
	       double *unit)
{
	series_kind(c, id, unit);
	if (samples_iter_open(it, c->db, id, SI_VALUED | SI_BOUNDED, t0, t1) < 0)
		return rl_fail(c, it->err);
	return 0;
}

int rl_series_load_grid(struct rule_ctx *c, int64_t id, int64_t t0, int64_t t1,
			int64_t width, struct rl_series *s)
{
	struct samples_iter it;
	double unit;

	if (width < 1)
		width = 1;
	if (cache_get(c, id, t0, t1, width, s))
		return s->n ? 0 : -1;
	s->n = 0;
	s->id = id;
	s->t0_ns = t0;
	s->width_ns = width;
	s->last_t = 0;
	s->scope = series_kind(c, id, &unit);
	if (samples_iter_open(&it, c->db, id, SI_VALUED | SI_BOUNDED, t0, t1) < 0) {
		rl_fail(c, it.err);
		return -1;
	}
	bucket_rows(&it, unit, s);
	samples_iter_close(&it);
	cache_put(c, t1, s);
	return s->n ? 0 : -1;
}

/* First and last sample time of a series up to until_ns (from its blocks). */
static int series_span(struct rule_ctx *c, int64_t id, int64_t until_ns, int64_t *t0,
		       int64_t *t1)
{
	sqlite3_stmt *st;
	int r = -1;

	st = rl_prepare(c, "SELECT sample_first_ns(?1), sample_last_ns(?1, ?2)");
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

/* The bucket width that spreads [t0, t1] over RL_MAX_POINTS buckets. */
static int64_t grid_width(int64_t t0, int64_t t1)
{
	return (t1 - t0) / (RL_MAX_POINTS - 1) + 1;
}

int rl_series_load(struct rule_ctx *c, int64_t id, int64_t until_ns, struct rl_series *s)
{
	int64_t t0, t1;

	s->n = 0;
	if (series_span(c, id, until_ns, &t0, &t1) < 0)
		return -1;
	return rl_series_load_grid(c, id, t0, t1, grid_width(t0, t1), s);
}

int rl_trend(const struct rl_series *s, struct rl_trend *tr)
{
	return rl_trend_ex(s, 64 * MIB, tr);
}

/* The final rise of s, if it stands out: a change point in the last half
 * of the residuals res of the trend f. Sets tr's rise fields and returns
 * the rise's first point, or s->n when there is none. */
static size_t final_rise(const struct rl_series *s, const double *res, const struct fit *f,
			 double min_rise, struct rl_trend *tr)
{
	size_t i, n = s->n, pk;
	struct change ch;
	double level, rise, floor_;

	if (stats_change_point(res, n, n / 2, &ch) < 0)
		return n;
	level = f->intercept + f->slope * s->t[ch.at];
	rise = ch.after - ch.before;
	floor_ = level * 0.03 > min_rise ? level * 0.03 : min_rise;
	if (!(rise > 6 * ch.noise && rise > floor_))
		return n;
	for (pk = ch.at, i = ch.at; i < n; i++)
		if (s->max[i] > s->max[pk])
			pk = i;
	tr->rise = 1;
	tr->rise_at = ch.at;
	tr->rise_start_t = s->t[ch.at > 0 ? ch.at - 1 : 0];
	tr->rise_peak_t = s->t[pk];
	tr->baseline = level;
	tr->peak = s->max[pk];
	tr->noise = ch.noise;
	return ch.at;
}

int rl_trend_ex(const struct rl_series *s, double min_rise, struct rl_trend *tr)
{
	double res[RL_MAX_POINTS];
	struct fit f;
	size_t i, n = s->n, cut;

	memset(tr, 0, sizeof(*tr));
	if (n < 8)
		return -1;
	/* 1. trend of the first 80%, 2. residuals, 3. change point in the
	 * last half of the residuals: the final rise, if it stands out;
	 * 4. the trend again over what precedes the rise. */
	if (stats_theil_sen(s->t, s->avg, n * 4 / 5, &f) < 0)
		return -1;
	for (i = 0; i < n; i++)
		res[i] = s->max[i] - (f.intercept + f.slope * s->t[i]);
	cut = final_rise(s, res, &f, min_rise, tr);
	if (cut < 3 || stats_theil_sen(s->t, s->avg, cut, &tr->fit) < 0)
		tr->fit = f;
	tr->duration_s = s->t[cut - 1] - s->t[0];
	tr->level_start = tr->fit.intercept + tr->fit.slope * s->t[0];
	tr->level_end = tr->fit.intercept + tr->fit.slope * s->t[cut - 1];
	tr->growth = tr->fit.slope * tr->duration_s;
	return 0;
}

int rl_pick_memory_series(struct rule_ctx *c, rl_judge *judge, struct rl_pick *pick)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT id, entity FROM series WHERE name = ?");
	struct rl_trend tr;
	int i;

	memset(pick, 0, sizeof(*pick));
	pick->s = &c->best;
	if (!st)
		return -1;
	for (i = 0; rl_memory_series[i].name; i++) {
		const char *name = rl_memory_series[i].name;
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW) {
			double score;
			if (rl_memory_series[i].entity_named &&
			    rl_series_scope(name, sqlite3_column_type(st, 1) == SQLITE_TEXT ?
					    q_text(st, 1) : NULL, NULL) < 0)
				continue;   /* a panel's series that is not memory in use */
			if (rl_series_load(c, sqlite3_column_int64(st, 0), c->oom_ns, &c->cur) < 0 ||
			    rl_trend(&c->cur, &tr) < 0)
				continue;
			score = judge(c, name, &c->cur, &tr);
			if (score > pick->score) {
				pick->score = score;
				pick->name = name;
				pick->tr = tr;
				snprintf(pick->entity, sizeof(pick->entity), "%s", q_text(st, 1));
				memcpy(&c->best, &c->cur, sizeof(c->best));
			}
		}
	}
	sqlite3_finalize(st);
	return pick->name != NULL;
}

/* The buckets two series on one grid both have, as pairs: x from a, y
 * from b (bucket means, or maxima when use_max). Returns the pairs. */
static size_t pair_buckets(const struct rl_series *a, const struct rl_series *b, int use_max,
			   double *x, double *y)
{
	size_t i = 0, j = 0, n = 0;

	while (i < a->n && j < b->n) {
		if (a->b[i] < b->b[j]) {
			i++;
		} else if (a->b[i] > b->b[j]) {
			j++;
		} else {
			x[n] = use_max ? a->max[i] : a->avg[i];
			y[n++] = use_max ? b->max[j] : b->avg[j];
			i++, j++;
		}
	}
	return n;
}

int rl_correlation(struct rule_ctx *c, const struct rl_series *a, int64_t b_id, double *r)
{
	struct rl_series *b = &c->y;
	size_t n;
	int64_t end;

	if (__builtin_mul_overflow((int64_t)RL_MAX_POINTS, a->width_ns, &end) ||
	    __builtin_add_overflow(end, a->t0_ns, &end))
		end = INT64_MAX;
	if (rl_series_load_grid(c, b_id, a->t0_ns, end, a->width_ns, b) < 0)
		return -1;
	n = pair_buckets(a, b, 1, c->v1, c->v2);
	if (n < 8)
		return -1;
	*r = stats_pearson(c->v1, c->v2, n);
	return 0;
}

/* The slope of memory in use against server.running on one grid, up to
 * until_ns: 0, or -1 when either series or ten pairs are missing. */
static int slope_per_running(struct rule_ctx *c, int64_t until_ns, double *bytes)
{
	static const char *const mem[] = { "torch.allocated_bytes", "gpu.used_bytes",
					   "proc.rss_bytes", "cgroup.current_bytes", NULL };
	int64_t run = rl_series_id(c, "server.running", 1), m = 0, t0, t1, w;
	struct fit f;
	size_t i, n;

	for (i = 0; run && mem[i] && !m; i++)
		m = rl_series_id(c, mem[i], 1);
	if (!run || !m || series_span(c, run, until_ns, &t0, &t1) < 0)
		return -1;
	w = grid_width(t0, t1);
	if (rl_series_load_grid(c, run, t0, t1, w, &c->x) < 0 ||
	    rl_series_load_grid(c, m, t0, t1, w, &c->y) < 0)
		return -1;
	n = pair_buckets(&c->x, &c->y, 0, c->v1, c->v2);
	if (n < 10 || stats_theil_sen(c->v1, c->v2, n, &f) < 0 || f.slope <= 0)
		return -1;
	*bytes = f.slope;
	return 0;
}

int rl_per_request(struct rule_ctx *c, int64_t until_ns, double *bytes, const char **how)
{
	double v;

	if (slope_per_running(c, until_ns, bytes) == 0) {
		*how = "slope of memory in use against running requests";
		return 0;
	}
	if (rl_oom_request(c, &v) == 0) {
		*bytes = v;
		*how = "size of the allocation that failed";
		return 0;
	}
	return -1;
}

int rl_baseline(struct rule_ctx *c, const char *name, int64_t until_ns, double *bytes,
		int64_t *id)
{
	struct rl_series *s = &c->cur;
	double mid, v[10], *tmp = c->v1;
	size_t i, k = 0;
	int64_t sid = rl_series_id(c, name, 1);

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
