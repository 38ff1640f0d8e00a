/*
 * history.c -- what the memory did before the OOM, for the rules that
 * name a cause from one moment (a PyTorch message, a kernel report) and
 * must say whether history confirms it: memory that grew and was not
 * returned points at a leak, a final surge at a spike, a level that held
 * steady until it failed at a configuration that never fitted. The leak
 * and spike rules judge the same series with stricter tests and name
 * those classes; this only tells the other rules which story the series
 * supports (see struct rl_history in rulelib.h). And the load the
 * service carried before (struct rl_load): a spike is load beyond it.
 */
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MIN_CHANGE_BYTES (64 * MIB)
#define NEAR_OOM_S 300.0    /* the series must reach this close to the OOM */

/* Longest span among the series of a scope (rl_judge). */
static double judge_gpu(struct rule_ctx *c, const char *name, const struct rl_series *s,
			const struct rl_trend *tr)
{
	(void)c, (void)name, (void)tr;
	return s->scope == RL_SCOPE_GPU ? s->last_t + 1 : 0;
}

static double judge_host(struct rule_ctx *c, const char *name, const struct rl_series *s,
			 const struct rl_trend *tr)
{
	(void)c, (void)name, (void)tr;
	return s->scope == RL_SCOPE_HOST ? s->last_t + 1 : 0;
}

/* The smallest change that counts: RL_HISTORY_MIN_CHANGE of the capacity
 * (of the level when unknown), but at most half the room that was left
 * above start, and at least MIN_CHANGE_BYTES. */
static double min_change(const struct rl_history *h, double start)
{
	double ref = h->capacity > 0 ? h->capacity : h->level, m = RL_HISTORY_MIN_CHANGE * ref;

	if (h->capacity > start && 0.5 * (h->capacity - start) < m)
		m = 0.5 * (h->capacity - start);
	return m > MIN_CHANGE_BYTES ? m : MIN_CHANGE_BYTES;
}

int rl_history(struct rule_ctx *c, enum rl_scope scope, double capacity, struct rl_history *h)
{
	struct rl_pick p;
	const struct rl_trend *tr = &p.tr;
	int r;

	memset(h, 0, sizeof(*h));
	h->capacity = -1;
	h->oom = c->has_oom;
	r = rl_pick_memory_series(c, scope == RL_SCOPE_GPU ? judge_gpu : judge_host, &p);
	if (r <= 0)
		return r;
	h->name = p.name;
	h->series_id = p.s->id;
	h->span_s = p.s->last_t;
	if (h->span_s < RL_HISTORY_MIN_S)
		return 0;
	if (c->oom_ns != OL_NULL) {
		double gap = ((double)c->oom_ns - (double)p.s->t0_ns) / 1e9 - p.s->last_t;
		if (gap > NEAR_OOM_S && gap > 0.1 * h->span_s)
			return 0;   /* it ended long before the OOM: it says little of it */
	}
	if (capacity > 0 || rl_capacity_scope(c, p.s->scope, &capacity) == 0)
		h->capacity = capacity;
	h->have = 1;
	h->level = tr->level_end;
	h->growth = tr->growth;
	h->rise = tr->rise ? tr->peak - tr->baseline : 0;
	h->grew = tr->fit.slope > 0 && tr->fit.r2 >= 0.5 &&
		  h->growth >= min_change(h, tr->level_start);
	h->surged = !h->grew && tr->rise && h->rise >= min_change(h, tr->baseline);
	h->steady = !h->grew && !h->surged;
	return 0;
}

/* Where a history ends, as its text says it: the OOM only when there
 * was one (no text says "before the OOM" in a no_oom verdict). */
static const char *until(const struct rl_history *h)
{
	return h->oom ? " before the OOM" : " up to the last sample";
}

const char *rl_history_text(const struct rl_history *h, char *buf, size_t n)
{
	char b1[32];

	if (!h->have)
		snprintf(buf, n, "no memory series of ten minutes or more%s", until(h));
	else if (h->grew)
		snprintf(buf, n, "%s grew by %s over %.1f h%s", h->name,
			 rl_bytes(h->growth, b1, sizeof(b1)), h->span_s / 3600, until(h));
	else if (h->surged)
		snprintf(buf, n, "%s rose by %s at the end of %.0f min of history", h->name,
			 rl_bytes(h->rise, b1, sizeof(b1)), h->span_s / 60);
	else
		snprintf(buf, n, "%s held steady at about %s for %.0f min%s", h->name,
			 rl_bytes(h->level, b1, sizeof(b1)), h->span_s / 60, until(h));
	return buf;
}

/* The series that measure the load a service carries, in preference
 * order, with what makes a peak new: RL_LOAD_NEW_FRAC above what was
 * carried and at least min_rise in the series' own units (requests; a
 * KV cache's usage in percentage points). */
static const struct { const char *name; double min_rise; } load_series[] = {
	{ "server.running", RL_LOAD_NEW_MIN },
	{ "server.gpu_kv_usage", RL_LOAD_NEW_MIN_KV },
	{ NULL, 0 }
};

/* Fill l from series id: 1 when it has samples before and after
 * until_ns, 0 when not, -1 failed. */
static int load_of(struct rule_ctx *c, int64_t id, int64_t until_ns, double min_rise,
		   struct rl_load *l)
{
	sqlite3_stmt *st;
	int64_t end = c->oom_ns == OL_NULL ? INT64_MAX : c->oom_ns;
	int r = 0;

	/* a KV cache's usage in percent: engine lines store percent,
	 * Prometheus' *_usage_perc a ratio (unit 'ratio') */
	st = rl_prepare(c, "SELECT sample_first_ns(?1), sample_max(?1, NULL, ?2 - 1),"
			" sample_max(?1, ?2, ?3),"
			" (SELECT CASE unit WHEN 'ratio' THEN 100.0 ELSE 1.0 END FROM series WHERE id = ?1)");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, until_ns);
	sqlite3_bind_int64(st, 3, end);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL &&
	    sqlite3_column_type(st, 1) != SQLITE_NULL && sqlite3_column_type(st, 2) != SQLITE_NULL) {
		l->have = 1;
		l->series_id = id;
		l->span_s = ((double)until_ns - (double)sqlite3_column_int64(st, 0)) / 1e9;
		l->carried = sqlite3_column_double(st, 1) * sqlite3_column_double(st, 3);
		l->peak = sqlite3_column_double(st, 2) * sqlite3_column_double(st, 3);
		if (l->span_s >= RL_HISTORY_MIN_S)
			l->novel = l->peak > l->carried * (1 + RL_LOAD_NEW_FRAC) + min_rise;
		r = 1;
	}
	sqlite3_finalize(st);
	return r;
}

int rl_load_history(struct rule_ctx *c, int64_t until_ns, struct rl_load *l)
{
	int64_t id;
	int i, r;

	memset(l, 0, sizeof(*l));
	l->novel = -1;
	if (until_ns == OL_NULL)
		return 0;
	for (i = 0; load_series[i].name; i++) {
		if (!(id = rl_series_id(c, load_series[i].name, 1)))
			continue;
		if ((r = load_of(c, id, until_ns, load_series[i].min_rise, l)) < 0)
			return -1;
		if (r) {
			l->name = load_series[i].name;
			return 0;
		}
	}
	return c->failed ? -1 : 0;
}

double rl_history_say(struct rl_finding *f, double score, const struct rl_history *h,
		      double steady_score, const char *alone, const char *what)
{
	char buf[200];

	if (!h->have) {
		rl_advice(f, "From %s alone this is the likeliest reading, not a proof: a memory"
			  " series%s (cgroup memory.current, smaps_rollup, a metrics"
			  " export) would tell %s from a leak or a surge.", alone,
			  h->oom ? " before the OOM" : " over time", what);
		return score;
	}
	rl_advice(f, "History: %s.", rl_history_text(h, buf, sizeof(buf)));
	return h->steady ? steady_score : 0.35;
}
