/*
 * spike.c -- the concurrency-spike rule: a sharp rise over a stable
 * baseline shortly before the OOM.
 *
 * The rise is the change point rl_trend finds on the residuals of the
 * series' trend (so a slow leak under it does not hide it). Kept when it
 * ends within SPIKE_NEAR of the end of the series (the OOM), stands out of
 * the baseline's noise (rl_trend: > 6 sigma and > 3% of the level) and
 * took at least SPIKE_MIN_ROOM of the room left over the baseline (the
 * capacity: GPU total for gpu/torch series, cgroup.max_bytes for host
 * ones) when the baseline is at least half the capacity, or else
 * (capacity unknown, or a series that sees only part of the memory) is at
 * least SPIKE_MIN_FRAC of the baseline (judge_burst; the best-scoring
 * series is picked by rl_pick_memory_series). Its score grows with its size
 * and when server.running / waiting / KV usage rose with it; a rise worth
 * fewer than two requests is rather a headroom problem (headroom rule).
 * With an allocator snapshot: the stack that allocated most in the rise.
 * History decides the class (judge_history): load beyond what the
 * service carried before is a spike; load it carried before that now does
 * not fit is the configuration's (misconfig / admitted_load); too little
 * history names a spike as likely, with a lower score and what would
 * settle it.
 *
 * A cgroup's rise can be faster than its sampling: flat usage, then the
 * kernel kills at the limit between two samples (burst_at_kill). The
 * memcg OOM itself is then the rise's top: the limit, reached within
 * the last interval from a baseline far below it.
 */
#include "analyzer/rules/rulelib.h"
#include "analyzer/rules/loadrow.h"
#include "analyzer/derive/servwhatif.h"
#include "analyzer/store/samples.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SPIKE_MIN_FRAC 0.10      /* rise / baseline, capacity unknown */
#define SPIKE_MIN_ROOM 0.5       /* rise / (capacity - baseline) */
#define SPIKE_VISIBLE 0.5        /* baseline / capacity for the room form */
#define SPIKE_NEAR_FRAC 0.25     /* rise starts in the last quarter of the series */
#define SPIKE_NEAR_S 1800.0      /* or in its last half hour */
#define SPIKE_LEAK_SCORE 0.5     /* a leak that makes the verdict a leak (verdict.c) */
#define SPIKE_SHORT_MAX RL_LONE_MAX_SCORE /* too little history: likely, not proven */

/* Value of a server series just before the rise and its max after it. */
static int server_rise(struct rule_ctx *c, const char *name, int64_t t0, int64_t t1,
		       double *before, double *after)
{
	/* the baseline window: four rise-lengths and a minute before the rise */
	double from = (double)t0 - ((double)t1 - (double)t0) * 4 - 60e9;

	if (from < -9e18)
		from = -9e18;
	/* a ratio series (Prometheus' KV usage) in percent, as engine lines give it */
	if (rl_num(c, before, "SELECT avg(p.value * CASE s.unit WHEN 'ratio' THEN 100 ELSE 1 END)"
		   " FROM series s JOIN sample p ON p.series_id = s.id WHERE s.name = '%s'"
		   " AND p.time_ns BETWEEN %lld AND %lld", name, (long long)from, (long long)t0) < 0)
		return -1;
	return rl_num(c, after, "SELECT max(sample_max(s.id, %lld, %lld)"
		      " * CASE s.unit WHEN 'ratio' THEN 100 ELSE 1 END)"
		      " FROM series s WHERE s.name = '%s'", (long long)t0, (long long)t1, name);
}

/* The trend a rise stands on: its slope (units a second) through the
 * baseline at at_ns. */
struct rise_line {
	double slope;
	int64_t at_ns;
};

/* 10%-90% rise time of a series between t0 and t1 (ns): from the last
 * sample at or under 10% of the rise to the first at or over 90% after it.
 * One indexed range read. 0, or -1 when the samples do not show it. */
static int rise_time(struct rule_ctx *c, int64_t id, int64_t t0, int64_t t1, double base,
		     double peak, const struct rise_line *line, double *secs)
{
	struct samples_iter it;
	const struct sample_rec *row;
	int64_t t_lo = OL_NULL, t_hi = OL_NULL;
	double unit;
	int r = -1;

	if (rl_samples(c, id, t0, t1, &it, &unit) < 0)
		return -1;
	while ((row = samples_iter_next(&it))) {
		int64_t t = row->time_ns;
		double v = row->value * unit;
		/* measured over the trend the rise stands on (a leak under it
		 * would otherwise cross the 10% mark long before the rise) */
		double under = line->slope > 0 ? line->slope * ((double)t - (double)line->at_ns) / 1e9 : 0;
		double lo = base + under + 0.1 * (peak - base), hi = base + under + 0.9 * (peak - base);
		if (v <= lo) {
			t_lo = t;
			t_hi = OL_NULL;
		} else if (v >= hi && t_lo != OL_NULL && t_hi == OL_NULL) {
			t_hi = t;
		}
	}
	samples_iter_close(&it);
	if (t_lo != OL_NULL && t_hi != OL_NULL && t_hi >= t_lo) {
		*secs = (double)(t_hi - t_lo) / 1e9;
		r = 0;
	}
	return r;
}

/* Score of a memory series as a burst (rl_judge): a final rise near the
 * OOM that takes the room left, or a good part of the level; 0 when not. */
static double judge_burst(struct rule_ctx *c, const char *name, const struct rl_series *s,
			  const struct rl_trend *tr)
{
	double frac, span = s->last_t, cap;

	if (!tr->rise || tr->baseline <= 0)
		return 0;
	if (span - tr->rise_start_t > SPIKE_NEAR_FRAC * span && span - tr->rise_start_t > SPIKE_NEAR_S)
		return 0;
	/* against the room below capacity when the series carries most of
	 * it; a series that sees only part of the memory (a snapshot trace
	 * without the weights) is judged by its own level */
	(void)name;
	if (rl_capacity_scope(c, s->scope, &cap) == 0 && cap > tr->baseline &&
	    tr->baseline >= SPIKE_VISIBLE * cap) {
		frac = (tr->peak - tr->baseline) / (cap - tr->baseline);
		if (frac < SPIKE_MIN_ROOM)
			return 0;
		return 0.5 + 0.3 * rl_clamp01((frac - SPIKE_MIN_ROOM) / 0.4);
	}
	frac = (tr->peak - tr->baseline) / tr->baseline;
	if (frac < SPIKE_MIN_FRAC)
		return 0;
	return 0.5 + 0.3 * rl_clamp01((frac - SPIKE_MIN_FRAC) / 0.3);
}

/* A burst being described: the picked series and the rise's window. */
struct burst {
	struct rl_pick p;
	int64_t t_start, t_peak;    /* UTC ns: the rise's start and peak */
	double score;
};

/* The rise's size and 10%-90% time, from the raw samples around it (the
 * buckets are minutes wide on long series); sets b->t_start. */
static void rise_figures(struct rule_ctx *c, struct burst *b, struct rl_finding *f)
{
	struct rl_trend *bt = &b->p.tr;
	int64_t w = b->p.s->width_ns;
	double rs = bt->rise_peak_t - bt->rise_start_t;
	struct rise_line line = { bt->fit.slope, b->p.s->t0_ns + (int64_t)(bt->rise_start_t * 1e9) };

	rl_fig(f, "baseline_bytes", floor(bt->baseline));
	rl_fig(f, "rise_top_bytes", floor(bt->peak));   /* not "the peak": table peak is */
	rl_fig(f, "rise_bytes", floor(bt->peak - bt->baseline));
	if (rise_time(c, b->p.s->id, b->t_start - w, b->t_peak + w, bt->baseline, bt->peak, &line,
		      &rs) == 0)
		b->t_start = b->t_peak - (int64_t)(rs * 1e9);
	rl_fig(f, "rise_seconds", round(rs * 10) / 10);
	bt->rise_start_t = bt->rise_peak_t - rs;
	rl_fig(f, "noise_bytes", floor(bt->noise));
	/* the window the report shades */
	rl_fig(f, "spike_start_ns", (double)b->t_start);
	rl_fig(f, "spike_end_ns", (double)(b->t_peak + w));
}

/* The load at the peak (or the OOM) over the load before it, to one
 * decimal: running requests against at least one (a service idle before
 * the burst carried "one"), the figure a spike verdict states. */
static double load_ratio(double at, double before)
{
	return round(at / (before > 1 ? before : 1) * 10) / 10;
}

/* What the server did in the rise: running and waiting requests and KV
 * usage before and at the peak (a rise that follows the load scores
 * higher). */
static void load_figures(struct rule_ctx *c, struct burst *b, struct rl_finding *f)
{
	double rb, ra;
	int64_t run;

	if (server_rise(c, "server.running", b->t_start, b->t_peak, &rb, &ra) == 0) {
		rl_fig(f, "running_before", round(rb * 10) / 10);
		rl_fig(f, "running_peak", ra);
		rl_fig(f, "load_ratio", load_ratio(ra, rb));
		if (ra >= 1.5 * rb + 1)
			b->score += 0.1;
	}
	if ((run = rl_series_id(c, "server.running", 0)) && rl_correlation(c, b->p.s, run, &ra) == 0)
		rl_fig(f, "running_correlation", round(ra * 1000) / 1000);
	if (server_rise(c, "server.waiting", b->t_start, b->t_peak, &rb, &ra) == 0) {
		rl_fig(f, "waiting_peak", ra);
		if (ra > rb + 1)
			b->score += 0.05;
	}
	if (server_rise(c, "server.gpu_kv_usage", b->t_start, b->t_peak, &rb, &ra) == 0) {
		rl_fig(f, "kv_usage_before", round(rb * 1000) / 1000);
		rl_fig(f, "kv_usage_peak", ra);
	}
}

/* "12 running requests" / "KV cache 85% used": a value of load series l. */
static const char *load_text(const struct rl_load *l, double v, char *buf, size_t n)
{
	if (!strcmp(l->name, "server.gpu_kv_usage"))
		snprintf(buf, n, "KV cache %.0f%% used", v);   /* percent (history.c) */
	else
		snprintf(buf, n, "%.0f running requests", v);
	return buf;
}

/* A leak the leak rule (which runs first) found: 1, 0 none, -1 failed. */
static int leak_found(struct rule_ctx *c)
{
	double v;

	if (rl_num(c, &v, "SELECT max(score) FROM finding WHERE class = 'leak'") < 0)
		return c->failed ? -1 : 0;
	return v >= SPIKE_LEAK_SCORE;
}

/* What the history says of the rise starting at t_start, seen before_s
 * seconds before: new load (beyond what the service carried before, or
 * no load series: a rise beyond the memory's level is new by itself)
 * stays a spike; load carried before that now did not fit, memory that
 * did not grow (no leak found), is what the configuration admits and
 * cannot hold (misconfig / admitted_load); with a leak it stays a spike
 * (the leak took the room the same load used to fit in);
 * under RL_HISTORY_MIN_S of history a spike is the likely class, scored
 * at most SPIKE_SHORT_MAX, and the advice says what would settle it.
 * Sets f's class, cause and score (f->score: the burst's before). 0 or -1. */
static int judge_history(struct rule_ctx *c, int64_t t_start, double before_s,
			 struct rl_finding *f)
{
	struct rl_load l;
	char t1[48], t2[48];
	size_t len;
	int leak = 0;

	rl_fig(f, "history_s", round(before_s));
	if (rl_load_history(c, t_start, &l) < 0)
		return -1;
	if (l.have) {
		rl_fig(f, "load_carried_before", l.carried);
		rl_fig(f, "load_history_s", round(l.span_s));
		if (l.novel >= 0)
			rl_fig(f, "load_novel", l.novel);
	}
	if (l.novel == 1) {
		rl_advice(f, "%s at the OOM, beyond the %s the service had carried in the %.0f min"
			  " before: new load.", load_text(&l, l.peak, t1, sizeof(t1)),
			  load_text(&l, l.carried, t2, sizeof(t2)), l.span_s / 60);
	} else if (l.novel == 0 && (leak = leak_found(c)) < 0) {
		return -1;
	} else if (l.novel == 0 && leak) {
		rl_advice(f, "The service had carried %s before (%s at the OOM): the load was not"
			  " new; the leak took the room it used to fit in.",
			  load_text(&l, l.carried, t1, sizeof(t1)), load_text(&l, l.peak, t2, sizeof(t2)));
	} else if (l.novel == 0) {
		f->class_ = "misconfig";
		f->cause = "admitted_load";
		len = strlen(f->title);
		snprintf(f->title + len, sizeof(f->title) - len, ", at a load carried before (%s)",
			 load_text(&l, l.carried, t1, sizeof(t1)));
		rl_advice(f, "The service had carried %s in the %.0f min before (%s at the OOM)"
			  " and its memory did not grow: this load is within what it admits, so"
			  " what failed is the configuration, not the traffic.",
			  load_text(&l, l.carried, t1, sizeof(t1)), l.span_s / 60,
			  load_text(&l, l.peak, t2, sizeof(t2)));
	} else if (before_s < RL_HISTORY_MIN_S || l.have) {
		if (f->score > SPIKE_SHORT_MAX)
			f->score = SPIKE_SHORT_MAX;
		rl_advice(f, "Only %.0f s of history before the rise: a spike is the likely reading,"
			  " but too little to tell new load from load the service admits and"
			  " cannot hold; its memory and running requests over the hours before"
			  " (nvidia-smi, the engine's statistics) would settle it.",
			  l.have && l.span_s < before_s ? l.span_s : before_s);
	}
	return 0;
}

/* Requests the rise is worth, and the concurrency that would have fit. */
static void concurrency_advice(struct rule_ctx *c, struct burst *b, struct rl_finding *f)
{
	const struct rl_trend *bt = &b->p.tr;
	double per_req, total, req_in_rise, failed, rb, ra;
	const char *how = NULL;
	char b1[32], b2[32], b3[32];

	if (rl_per_request(c, b->t_start, &per_req, &how) == 0 && per_req > 0) {
		req_in_rise = (bt->peak - bt->baseline) / per_req;
		rl_fig(f, "per_request_bytes", floor(per_req));
		rl_fig(f, "requests_in_rise", round(req_in_rise * 10) / 10);
		if (req_in_rise < 2)   /* one request does not make a burst */
			b->score -= 0.25;
		/* one request needs at least the allocation that failed */
		if (rl_oom_request(c, &failed) == 0 && failed > per_req)
			per_req = failed;
		/* and what the rise took per request it added, when the requests
		 * grew (the same load, larger prompts or images) */
		if (server_rise(c, "server.running", b->t_start, b->t_peak, &rb, &ra) == 0 &&
		    ra - rb >= 2 && (bt->peak - bt->baseline) / (ra - rb) > per_req) {
			per_req = (bt->peak - bt->baseline) / (ra - rb);
			rl_fig(f, "rise_per_request_bytes", floor(per_req));
		}
		/* the capacity of the series' scope: the card, or the cgroup's limit */
		if (rl_capacity_scope(c, b->p.s->scope, &total) == 0 && total > bt->baseline) {
			double safe = floor((total - bt->baseline) / per_req * 0.7), chosen;
			if (b->p.s->scope == RL_SCOPE_GPU &&
			    rl_serving_choice(c, "max_num_seqs", &chosen) == 0) {
				/* the serving what-if's cap: one value per knob */
				rl_fig(f, "safe_concurrency", chosen);
				rl_knob(f, "max_num_seqs", rl_flag(c, KR_MAX_SEQS), chosen,
					"Cap concurrent requests at %.0f (the serving what-if: the"
					" recorded load fits under it with a 0.7 margin), e.g. %s"
					" %s %.0f, and let the rest queue.", chosen, rl_engine_title(c),
					rl_flag(c, KR_MAX_SEQS), chosen);
			} else {
				rl_fig(f, "safe_concurrency", safe);
				rl_knob(f, "max_num_seqs", rl_flag(c, KR_MAX_SEQS), safe > 1 ? safe : 1,
					"Cap concurrent requests at %.0f ((%s total - %s baseline) / %s"
					" per request x 0.7), e.g. %s %s %.0f, and let"
					" the rest queue.", safe, rl_bytes(total, b1, sizeof(b1)),
					rl_bytes(bt->baseline, b2, sizeof(b2)),
					rl_bytes(per_req, b3, sizeof(b3)), rl_engine_title(c),
					rl_flag(c, KR_MAX_SEQS), safe > 1 ? safe : 1);
			}
		}
	}
	if (!f->advice[0] && !f->knob[0])
		rl_advice(f, "Bound concurrency (max concurrent requests / batch tokens) so a burst"
			  " queues instead of allocating; size it from the per-request memory.");
}

/* The stack that allocated most during the rise (allocator snapshot):
 * 1 finding written, 0 none, -1 failed. */
static int short_lived_allocs(struct rule_ctx *c, const struct burst *b)
{
	sqlite3_stmt *st;
	struct rl_finding f;
	char b1[32], label[300];
	int r = 0;

	if (!q_has_table(c->db, "alloc"))
		return 0;
	st = rl_prepare(c,
		"SELECT stack_id, count(*), sum(size), sum(free_ns IS NOT NULL)"
		" FROM alloc a WHERE alloc_ns >= (SELECT max(alloc_ns) FROM alloc) - ?1"
		" AND stack_id IS NOT NULL GROUP BY stack_id ORDER BY sum(size) DESC LIMIT 1");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, b->t_peak - b->t_start + 10000000000LL);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 1) >= 16) {
		int64_t fid;
		rl_finding_init(&f, "spike", "spike", "short_lived_allocs");
		f.score = 0.6;
		rl_fig(&f, "allocations", sqlite3_column_double(st, 1));
		rl_fig(&f, "bytes", sqlite3_column_double(st, 2));
		rl_fig(&f, "freed", sqlite3_column_double(st, 3));
		snprintf(f.title, sizeof(f.title), "%lld allocations (%s) from one stack at the"
			 " peak: %s", (long long)sqlite3_column_int64(st, 1),
			 rl_bytes(sqlite3_column_double(st, 2), b1, sizeof(b1)),
			 rl_stack_label(c, sqlite3_column_int64(st, 0), label, sizeof(label)));
		rl_advice(&f, "These per-request allocations piled up together: bound the"
			  " batch (tokens per step) or the concurrency that drives them.");
		fid = rl_finding_write(c, &f);
		r = fid < 0 || rl_evidence(c, fid, "stack", sqlite3_column_int64(st, 0),
					   "allocating stack at the peak") < 0 ? -1 : 1;
	}
	sqlite3_finalize(st);
	return r;
}

/* Without a memory rise (allocator caches hide it from nvidia-smi): the
 * concurrency itself, server.running rising to at least RUN_MIN_FACTOR
 * times its baseline (and by RUN_MIN_RISE requests) just before the OOM. */
#define RUN_MIN_FACTOR 2.0
#define RUN_MIN_RISE 8.0

/* 1 finding, 0 none, -1 failed. */
static int running_spike(struct rule_ctx *c)
{
	struct rl_trend tr;
	struct rl_finding f;
	double span;
	int64_t id, fid;

	if (c->oom_ns == OL_NULL || !(id = rl_series_id(c, "server.running", 0)) ||
	    rl_series_load(c, id, c->oom_ns, &c->cur) < 0 ||
	    rl_trend_ex(&c->cur, RUN_MIN_RISE, &tr) < 0 || !tr.rise)
		return 0;
	span = c->cur.last_t;
	if ((span - tr.rise_start_t > SPIKE_NEAR_FRAC * span && span - tr.rise_start_t > SPIKE_NEAR_S) ||
	    tr.peak < RUN_MIN_FACTOR * (tr.baseline > 1 ? tr.baseline : 1))
		return 0;
	rl_finding_init(&f, "spike", "spike", "concurrency");
	f.score = 0.5 + 0.2 * rl_clamp01((tr.peak / (tr.baseline > 1 ? tr.baseline : 1) - 2) / 3);
	rl_fig(&f, "running_before", round(tr.baseline * 10) / 10);
	rl_fig(&f, "running_peak", tr.peak);
	rl_fig(&f, "load_ratio", load_ratio(tr.peak, tr.baseline));
	rl_fig(&f, "rise_seconds", tr.rise_peak_t - tr.rise_start_t);
	snprintf(f.title, sizeof(f.title), "Running requests rose from %.0f to %.0f in %.0f s %s",
		 tr.baseline, tr.peak, tr.rise_peak_t - tr.rise_start_t,
		 c->has_oom ? "just before the OOM" : "at the end of the record");
	if (rl_engine_kind(c) == ENGINE_NONE)
		rl_advice(&f, "Cap concurrency (vLLM --max-num-seqs, TGI --max-concurrent-requests) at"
			  " what the memory left over the baseline holds, and let bursts queue.");
	else
		rl_advice(&f, "Cap concurrency (%s %s) at what the memory left over the baseline"
			  " holds, and let bursts queue.", rl_engine_title(c), rl_flag(c, KR_MAX_SEQS));
	if (judge_history(c, c->cur.t0_ns + (int64_t)(tr.rise_start_t * 1e9), tr.rise_start_t,
			  &f) < 0) {
		rl_finding_drop(&f);
		return -1;
	}
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "series", id, "server.running") < 0)
		return -1;
	return 1;
}

/* The load the engine's own lines give at the OOM against the load
 * before it (derived row oom_load: a V1 SchedulerStats or SchedulerOutput
 * dump, V0's batch info, a TGI batch span, the last statistics line at
 * the failure; the median of the statistics lines of the LOAD_WINDOW_S
 * before it): running requests at
 * least LOAD_JUMP times the typical count and LOAD_MIN_RISE more, with
 * at least two lines before the failure's to say what was typical. A
 * series too short for running_spike's change point still shows this. */
#define LOAD_JUMP RUN_MIN_FACTOR
#define LOAD_MIN_RISE RUN_MIN_RISE

/* 1 finding, 0 none, -1 failed. */
static int load_spike(struct rule_ctx *c)
{
	struct load_row r;
	struct rl_finding f;
	char w[48] = "";
	double base;
	int64_t id, fid;
	int rc = load_row_read(c, &r);

	if (rc <= 0)
		return rc;
	if (strcmp(r.doing, "serving") || isnan(r.running) || isnan(r.running_typical) ||
	    isnan(r.samples_before) || r.samples_before < 2 || isnan(r.window_s))
		return 0;
	base = r.running_typical > 1 ? r.running_typical : 1;
	if (r.running < LOAD_JUMP * base || r.running - r.running_typical < LOAD_MIN_RISE)
		return 0;
	rl_finding_init(&f, "spike", "spike", "concurrency");
	f.phase = "serving";
	f.score = r.samples_before >= 3 ? 0.55 : 0.45;
	if (!isnan(r.waiting))
		snprintf(w, sizeof(w), " (%.0f waiting)", r.waiting);
	snprintf(f.title, sizeof(f.title), "%.0f requests running at the OOM%s against a typical"
		 " %.0f over the %.0f statistics lines of the %.0f s before it: a load beyond what"
		 " the service carried", r.running, w, r.running_typical, r.samples_before,
		 r.window_s);
	rl_fig(&f, "running", r.running);
	rl_fig(&f, "running_typical", r.running_typical);
	rl_fig(&f, "load_ratio", load_ratio(r.running, r.running_typical));
	rl_fig(&f, "samples_before", r.samples_before);
	rl_fig(&f, "window_s", r.window_s);
	if (!isnan(r.waiting))
		rl_fig(&f, "waiting", r.waiting);
	if (rl_engine_kind(c) == ENGINE_NONE)
		rl_advice(&f, "Cap concurrency (vLLM --max-num-seqs, TGI --max-concurrent-requests)"
			  " near the %.0f requests the service carried, and let bursts queue.",
			  r.running_typical);
	else
		rl_advice(&f, "Cap concurrency (%s %s) near the %.0f requests the service carried,"
			  " and let bursts queue.", rl_engine_title(c), rl_flag(c, KR_MAX_SEQS),
			  r.running_typical);
	fid = rl_finding_write(c, &f);
	if (fid < 0)
		return -1;
	if ((id = rl_series_id(c, "server.running", 0)) &&
	    rl_evidence(c, fid, "series", id, "running requests, at the OOM and before") < 0)
		return -1;
	return 1;
}

#define KILL_MIN_FLAT 10         /* flat samples before the rise */
#define KILL_FLAT_BAND 0.05      /* of the limit: how flat */
#define KILL_MAX_TAIL 2          /* samples caught in the rise itself */
#define KILL_MIN_ROOM 0.3        /* of the limit left over the baseline */

/* The burst a memcg OOM proves (see the head): cgroup.current_bytes up to
 * the OOM has at least KILL_MIN_FLAT samples within KILL_FLAT_BAND of the
 * limit around their median, then at most KILL_MAX_TAIL above it, the
 * OOM (a memcg OOM, at the limit) within three sampling intervals of the
 * last one and within SPIKE_NEAR_FRAC of the span after the flat part,
 * and the baseline left at least KILL_MIN_ROOM of the limit. Fills b
 * (b->p.s, the trend's baseline, peak and rise times) and returns 1; 0
 * when the series does not show it, -1 failed. */
static int burst_at_kill(struct rule_ctx *c, struct burst *b)
{
	struct rl_series *s = &c->best;
	struct rl_trend *tr = &b->p.tr;
	double cap, kind, base, v[RL_MAX_POINTS], gap, dt, kill_t;
	size_t i, first = 0, last, flat = 0;
	int64_t id;

	if (c->oom_ns == OL_NULL || rl_capacity_scope(c, RL_SCOPE_HOST, &cap) < 0 ||
	    rl_num(c, &kind, "SELECT 1 FROM oom WHERE id = 1 AND kind = 'memcg_oom'") < 0 ||
	    !(id = rl_series_id(c, "cgroup.current_bytes", 1)) ||
	    rl_series_load(c, id, c->oom_ns, s) < 0 || s->n < KILL_MIN_FLAT + 1)
		return c->failed ? -1 : 0;
	memcpy(v, s->avg, s->n * sizeof(*v));
	base = stats_median(v, s->n);
	/* the flat part: from the first sample in the band to the last one */
	for (i = 0; i < s->n && fabs(s->avg[i] - base) > KILL_FLAT_BAND * cap; i++)
		;
	first = i;
	for (last = first; i < s->n; i++) {
		if (fabs(s->avg[i] - base) <= KILL_FLAT_BAND * cap) {
			if (i != last + 1 && i != first)
				return 0;   /* left the band and came back: not flat */
			last = i;
			flat++;
		}
	}
	kill_t = ((double)c->oom_ns - (double)s->t0_ns) / 1e9;
	dt = (s->t[last] - s->t[first]) / (flat > 1 ? flat - 1 : 1);
	gap = kill_t - s->t[last];
	if (flat < KILL_MIN_FLAT || s->n - 1 - last > KILL_MAX_TAIL || base > (1 - KILL_MIN_ROOM) * cap ||
	    gap > 3 * dt || gap > SPIKE_NEAR_FRAC * (kill_t - s->t[first]))
		return 0;
	for (i = last + 1; i < s->n; i++)
		if (s->max[i] < base)
			return 0;   /* the tail must rise */
	memset(b, 0, sizeof(*b));
	b->p.s = s;
	b->p.name = "cgroup.current_bytes";
	tr->rise = 1;
	tr->baseline = base;
	tr->peak = cap;
	tr->rise_start_t = s->t[last];
	tr->rise_peak_t = kill_t;
	b->t_start = s->t0_ns + (int64_t)(s->t[last] * 1e9);
	b->t_peak = c->oom_ns;
	b->score = 0.5 + 0.3 * rl_clamp01(((cap - base) / cap - KILL_MIN_ROOM) / 0.4);
	return 1;
}

/* The finding of a burst that burst_at_kill found: 1, or -1 failed. */
static int kill_finding(struct rule_ctx *c, struct burst *b)
{
	const struct rl_trend *bt = &b->p.tr;
	struct rl_finding f;
	char b1[32], b2[32], b3[32];
	int64_t fid;

	rl_finding_init(&f, "spike", "spike", "burst");
	rl_fig(&f, "baseline_bytes", floor(bt->baseline));
	rl_fig(&f, "rise_top_bytes", floor(bt->peak));
	rl_fig(&f, "rise_bytes", floor(bt->peak - bt->baseline));
	rl_fig(&f, "rise_seconds", round((bt->rise_peak_t - bt->rise_start_t) * 10) / 10);
	rl_fig(&f, "spike_start_ns", (double)b->t_start);
	rl_fig(&f, "spike_end_ns", (double)b->t_peak);
	snprintf(f.title, sizeof(f.title), "cgroup.current_bytes rose %s within %.1f s over a"
		 " flat baseline of %s, to the %s limit where the kernel killed (faster than"
		 " the sampling)", rl_bytes(bt->peak - bt->baseline, b1, sizeof(b1)),
		 bt->rise_peak_t - bt->rise_start_t, rl_bytes(bt->baseline, b2, sizeof(b2)),
		 rl_bytes(bt->peak, b3, sizeof(b3)));
	load_figures(c, b, &f);
	concurrency_advice(c, b, &f);
	f.score = b->score;
	if (judge_history(c, b->t_start, bt->rise_start_t, &f) < 0) {
		rl_finding_drop(&f);
		return -1;
	}
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "series", b->p.s->id, "flat usage before the kill") < 0)
		return -1;
	return 1;
}

int rule_spike(struct rule_ctx *c)
{
	struct burst b;
	const struct rl_trend *bt = &b.p.tr;
	struct rl_finding f;
	char b1[32], b2[32], took[32];
	int64_t fid;
	int r = rl_pick_memory_series(c, judge_burst, &b.p);

	if (r < 0)
		return -1;
	if (r == 0 && (r = burst_at_kill(c, &b)) != 0)
		return r < 0 ? -1 : kill_finding(c, &b);
	if (r == 0 && (r = running_spike(c)) != 0)
		return r;
	if (r == 0)
		return load_spike(c);
	b.score = b.p.score;
	b.t_start = b.p.s->t0_ns + (int64_t)(bt->rise_start_t * 1e9);
	b.t_peak = b.p.s->t0_ns + (int64_t)(bt->rise_peak_t * 1e9);
	rl_finding_init(&f, "spike", "spike", "burst");
	rise_figures(c, &b, &f);
	/* a trace's rise can be one step: "within a second", not "in 0 s" */
	if (bt->rise_peak_t - bt->rise_start_t < 1)
		snprintf(took, sizeof(took), "within a second");
	else
		snprintf(took, sizeof(took), "in %.0f s", bt->rise_peak_t - bt->rise_start_t);
	snprintf(f.title, sizeof(f.title), "%s%s%s rose %s %s over a baseline of %s, %s",
		 b.p.name, b.p.entity[0] ? " " : "", b.p.entity,
		 rl_bytes(bt->peak - bt->baseline, b1, sizeof(b1)), took,
		 rl_bytes(bt->baseline, b2, sizeof(b2)),
		 c->has_oom ? "just before the OOM" : "at the end of the record (no OOM recorded)");
	load_figures(c, &b, &f);
	concurrency_advice(c, &b, &f);
	f.score = b.score;
	if (judge_history(c, b.t_start, bt->rise_start_t, &f) < 0) {
		rl_finding_drop(&f);
		return -1;
	}
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "series", b.p.s->id, "memory in use, change point") < 0)
		return -1;
	r = short_lived_allocs(c, &b);
	return r < 0 ? -1 : 1 + r;
}
