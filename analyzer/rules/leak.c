/*
 * leak.c -- the leak rule: memory in use that keeps growing.
 *
 * For every memory-in-use series, up to the OOM: a Theil-Sen trend over
 * what precedes the final rise (rl_trend), kept when it grows steadily
 * (R^2 >= LEAK_MIN_R2), by a visible amount (>= 256 MiB and either
 * LEAK_MIN_ROOM_FRAC of the room the series had at its start below its
 * capacity, when it started at half the capacity or more, or else
 * LEAK_MIN_GROWTH_FRAC of its level) over at least 10 minutes;
 * torch.reserved_bytes only where there is no torch.allocated_bytes (the
 * cache ratchets up with every new peak: the live bytes decide). The
 * strongest series (rl_pick_memory_series with judge_growth) makes the
 * finding; growth per request served comes from server.requests_total
 * when it was logged; "not returned" is memory that stays up after the
 * load (server.running) falls. With an allocator trace: stacks whose
 * live allocations were born all along it (alloc_stacks). A host-side
 * growth finding names memray's top allocating location (the first of
 * its top locations by size with a frame; a larger one without a stack
 * is named in the advice) and quotes memray's totals and peak.
 * A serving OOM whose engine lines show the KV cache usage climbing
 * steadily over the window before it while the running requests stayed
 * at their typical count (derived row oom_load) leans leak: blocks held
 * at a steady load (load_leak).
 */
#include "analyzer/rules/rulelib.h"
#include "analyzer/rules/loadrow.h"
#include "lib/series_words.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LEAK_MIN_R2 0.7
#define LEAK_MIN_GROWTH_FRAC 0.05
#define LEAK_MIN_ROOM_FRAC 0.25
#define LEAK_VISIBLE 0.5
#define LEAK_MIN_GROWTH_BYTES (256 * MIB)
#define LEAK_MIN_SPAN_S 600.0
#define LEAK_SCALE_ROOM 0.8       /* growth / room below the capacity: by scale */
#define LEAK_SCALE_R2 0.9         /* a fit that good */
#define LEAK_SCALE_POINTS 16      /* over that many points of the series */
#define ALLOC_MIN_LIVE 8          /* live allocations of one stack */
#define ALLOC_MIN_SPREAD 0.5      /* their births span half the trace */
#define ALLOC_MIN_FRACTION 0.02   /* of the live bytes in the trace */
#define ALLOC_MIN_WINDOW_S 300.0

/* Requests served between two times from server.requests_total. */
static int requests_served(struct rule_ctx *c, int64_t t0, int64_t t1, double *n)
{
	double a, b;

	if (rl_value_at(c, "server.requests_total", NULL, t0, &a) < 0 &&
	    rl_num(c, &a, "SELECT min(sample_min(id)) FROM series"
		   " WHERE name = 'server.requests_total'") < 0)
		return -1;
	if (rl_value_at(c, "server.requests_total", NULL, t1, &b) < 0 || b <= a)
		return -1;
	*n = b - a;
	return 0;
}

/* Memory that stays after the load falls: server.running drops to a
 * quarter of its peak after the peak, yet memory in use (the series of
 * the finding, on the same grid) stays at 90% of its level at the peak. */
static void not_returned(struct rule_ctx *c, int64_t mem_id, struct rl_finding *f)
{
	struct rl_series *run = &c->x, *mem = &c->cur;
	int64_t id = rl_series_id(c, "server.running", 0), t0, t1;
	double mem_peak = -1, mem_low = -1, low_run;
	size_t i, j, pk = 0, lo;

	if (!id || rl_series_load(c, id, c->oom_ns, run) < 0)
		return;
	for (i = 1; i < run->n; i++)
		if (run->max[i] > run->max[pk])
			pk = i;
	if (run->max[pk] < 4)
		return;
	for (lo = pk, i = pk; i < run->n; i++)
		if (run->avg[i] < run->avg[lo])
			lo = i;
	low_run = run->avg[lo];
	if (lo == pk || low_run > run->max[pk] / 4)
		return;
	/* memory on the same grid as running */
	t0 = run->t0_ns;
	t1 = run->t0_ns + (int64_t)(run->last_t * 1e9);
	if (rl_series_load_grid(c, mem_id, t0, t1, (t1 - t0) / (RL_MAX_POINTS - 1) + 1, mem) < 0)
		return;
	for (j = 0; j < mem->n; j++) {
		if (mem->b[j] == run->b[pk])
			mem_peak = mem->avg[j];
		if (mem->b[j] == run->b[lo])
			mem_low = mem->avg[j];
	}
	if (mem_peak > 0 && mem_low >= 0.9 * mem_peak) {
		rl_fig(f, "running_peak", run->max[pk]);
		rl_fig(f, "running_low", round(low_run * 10) / 10);
		rl_fig(f, "retained_fraction", mem_low / mem_peak);
		rl_advice(f, "Memory stayed at %.0f%% of its peak after the load fell from %.0f to"
			  " %.1f running requests: it is not given back.", 100 * mem_low / mem_peak,
			  run->max[pk], low_run);
		f->score = rl_clamp01(f->score + 0.05);
	}
}

/* A leak judged by its scale, not by absolute amounts: the trend of s
 * fits well (R^2 >= LEAK_SCALE_R2) over at least LEAK_SCALE_POINTS points
 * with no final jump after them (that is a spike's), and its growth took
 * at least LEAK_SCALE_ROOM of the room between its start and the
 * capacity of its scope (card or cgroup limit). The strength (0..1) of
 * that growth, or 0 when the series is not one. */
static double leak_by_scale(struct rule_ctx *c, const struct rl_series *s,
			    const struct rl_trend *tr)
{
	double cap, frac;
	size_t points = tr->rise ? tr->rise_at : s->n;

	if (tr->rise || points < LEAK_SCALE_POINTS || tr->fit.r2 < LEAK_SCALE_R2 ||
	    rl_capacity_scope(c, s->scope, &cap) < 0 || cap <= tr->level_start)
		return 0;
	frac = tr->growth / (cap - (tr->level_start > 0 ? tr->level_start : 0));
	return frac < LEAK_SCALE_ROOM ? 0 : rl_clamp01(frac / 0.95);
}

/* Score of a memory series as a leak (rl_judge): its trend grows steadily,
 * by a visible amount, for long enough, or by scale (leak_by_scale); 0
 * when it does not. */
static double judge_growth(struct rule_ctx *c, const char *name, const struct rl_series *s,
			   const struct rl_trend *tr)
{
	double frac, cap, strength;

	/* what the caching allocator reserved only ratchets up with each new
	 * high-water mark (nothing returns it without empty_cache): beside the
	 * allocated series, which says what is live, it proves no leak */
	if (!strcmp(name, "torch.reserved_bytes") && rl_series_id(c, "torch.allocated_bytes", 0))
		return 0;
	if (tr->fit.slope <= 0 || tr->fit.r2 < LEAK_MIN_R2)
		return 0;
	if (tr->duration_s < LEAK_MIN_SPAN_S || tr->growth < LEAK_MIN_GROWTH_BYTES) {
		strength = leak_by_scale(c, s, tr);
		if (strength <= 0)
			return 0;
		return (0.5 + 0.5 * (tr->fit.r2 - LEAK_MIN_R2) / (1 - LEAK_MIN_R2)) *
		       (0.6 + 0.4 * strength);
	}
	/* room form only for a series that carries most of the capacity
	 * (see spike.c) */
	if (rl_capacity_scope(c, s->scope, &cap) == 0 && cap > tr->level_start &&
	    tr->level_start >= LEAK_VISIBLE * cap) {
		frac = tr->growth / (cap - tr->level_start);
		if (frac < LEAK_MIN_ROOM_FRAC)
			return 0;
		strength = rl_clamp01(frac / 0.75);
	} else {
		frac = tr->growth / (tr->level_end > 0 ? tr->level_end : 1);
		if (frac < LEAK_MIN_GROWTH_FRAC)
			return 0;
		strength = rl_clamp01(frac / 0.25);
	}
	return (0.5 + 0.5 * (tr->fit.r2 - LEAK_MIN_R2) / (1 - LEAK_MIN_R2)) * (0.6 + 0.4 * strength);
}

/* The fitted line the report draws, and the growth per request served
 * over it when server.requests_total was logged. */
static void fit_and_requests(struct rule_ctx *c, const struct rl_pick *p, struct rl_finding *f)
{
	const struct rl_trend *tr = &p->tr;
	int64_t t0 = p->s->t0_ns;   /* the picked series' first sample */
	double served;

	rl_fig(f, "fit_start_time_ns", (double)t0);
	rl_fig(f, "fit_end_time_ns", (double)(t0 + (int64_t)(tr->duration_s * 1e9)));
	rl_fig(f, "intercept_bytes", floor(tr->level_start));
	if (requests_served(c, t0, t0 + (int64_t)(tr->duration_s * 1e9), &served) == 0 &&
	    served > 0) {
		rl_fig(f, "requests_served", served);
		rl_fig(f, "per_request_bytes", floor(tr->growth / served));
		rl_advice(f, "Memory grows by about %.0f bytes per request served (%.0f requests):"
			  " look for per-request state kept alive (caches, lists, tensors"
			  " held by a reference).", tr->growth / served, served);
	}
}

/* How long a restarted process lasts at this rate. */
static void restart_advice(struct rule_ctx *c, const struct rl_pick *p, struct rl_finding *f)
{
	const struct rl_trend *tr = &p->tr;
	double cap, room = tr->growth, hours;
	char b1[32];

	if (rl_capacity_scope(c, p->s->scope, &cap) == 0 && cap > tr->level_start)
		room = cap - tr->level_start;
	hours = room / tr->fit.slope / 3600;
	rl_fig(f, "hours_to_oom_after_restart", round(hours * 10) / 10);
	rl_advice(f, "At %.0f MiB/h the %s of room above the start-up level is gone"
		  " %.1f hours after a restart: restart before that as a stop-gap, and find"
		  " the owner of the growth (an allocator snapshot with history shows the"
		  " stacks: torch.cuda.memory._record_memory_history()).",
		  tr->fit.slope * 3600 / MIB, rl_bytes(room, b1, sizeof(b1)), hours);
}

/* memray's report on a host-side growth: its totals and peak as figures
 * (memray_stats event), its top allocating location named in the title
 * and the advice, that holder as evidence. 0, or -1 failed. */
static int memray_holders(struct rule_ctx *c, struct rl_finding *f, int64_t *holder)
{
	sqlite3_stmt *st;
	double v;
	char b1[32], b2[32];
	int top = 0;

	*holder = 0;
	if (rl_num(c, &v, "SELECT json_extract(data, '$.total_allocations') FROM event WHERE"
		   " kind = 'memray_stats' ORDER BY id LIMIT 1") == 0)
		rl_fig(f, "memray_total_allocations", v);
	if (rl_num(c, &v, "SELECT json_extract(data, '$.total_allocated_bytes') FROM event WHERE"
		   " kind = 'memray_stats' ORDER BY id LIMIT 1") == 0)
		rl_fig(f, "memray_total_allocated_bytes", v);
	if (rl_num(c, &v, "SELECT json_extract(data, '$.peak_bytes') FROM event WHERE"
		   " kind = 'memray_stats' ORDER BY id LIMIT 1") == 0)
		rl_fig(f, "memray_peak_bytes", v);
	if (!q_has_table(c->db, "holder"))
		return 0;
	/* the largest by size first; the first with a frame is the one named */
	st = rl_prepare(c, "SELECT id, bytes, label, stack_id IS NOT NULL FROM holder WHERE"
			" tool = 'memray' AND bytes IS NOT NULL AND json_extract(data, '$.kind') ="
			" 'location' ORDER BY artifact_id, rank LIMIT 20");
	if (!st)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *label = q_text(st, 2);
		double bytes = sqlite3_column_double(st, 1);
		if (!top++) {
			rl_fig(f, "memray_top_location_bytes", bytes);
			if (!sqlite3_column_int(st, 3))
				rl_advice(f, "memray's largest allocator over the run has no Python"
					  " stack (%s, %s: native code, or frames memray did not"
					  " keep: run memray with --native).", label,
					  rl_bytes(bytes, b1, sizeof(b1)));
		}
		if (!sqlite3_column_int(st, 3))
			continue;
		*holder = sqlite3_column_int64(st, 0);
		rl_fig(f, "memray_top_python_location_bytes", bytes);
		snprintf(f->title + strlen(f->title), sizeof(f->title) - strlen(f->title),
			 "; memray's top allocating location: %s", label);
		rl_advice(f, "memray's top allocating location with a Python frame is %s (%s"
			  " allocated over the run, #%d by size): look there first for what keeps"
			  " its allocations alive (memray flamegraph --leaks shows what is not"
			  " freed).", label, rl_bytes(bytes, b2, sizeof(b2)), top);
		break;
	}
	sqlite3_finalize(st);
	return 0;
}

/* The growth finding: the memory series that leaks most convincingly. */
static int leak_growth(struct rule_ctx *c)
{
	struct rl_pick p;
	const struct rl_trend *tr = &p.tr;
	struct rl_finding f;
	char b1[32], b2[32], span[32], what[200];
	int64_t fid, sid, holder = 0;
	int r = rl_pick_memory_series(c, judge_growth, &p);

	if (r <= 0)
		return r;
	sid = p.s->id;
	rl_finding_init(&f, "leak", "leak", "growth");
	f.score = p.score;
	rl_fig(&f, "slope_mb_per_hour", tr->fit.slope * 3600 / MIB);
	rl_fig(&f, "r2", tr->fit.r2);
	rl_fig(&f, "growth_bytes", floor(tr->growth));
	rl_fig(&f, "span_hours", tr->duration_s / 3600);
	rl_fig(&f, "start_bytes", floor(tr->level_start));
	rl_fig(&f, "end_bytes", floor(tr->level_end));
	/* a leak judged by scale can last seconds: say so, not "0.0 h" */
	if (tr->duration_s < 120)
		snprintf(span, sizeof(span), "%.0f s", tr->duration_s);
	else if (tr->duration_s < 7200)
		snprintf(span, sizeof(span), "%.0f min", tr->duration_s / 60);
	else
		snprintf(span, sizeof(span), "%.1f h", tr->duration_s / 3600);
	/* the series in words (lib/series_words.h), as a sentence opens */
	series_words(p.name, strcmp(p.entity, "?") ? p.entity : NULL, what, sizeof(what));
	if (what[0] >= 'a' && what[0] <= 'z')
		what[0] = (char)(what[0] - 'a' + 'A');
	snprintf(f.title, sizeof(f.title), "%s grew %.1f MiB/h (R\xc2\xb2 %.2f): %s -> %s over %s",
		 what, tr->fit.slope * 3600 / MIB,
		 tr->fit.r2, rl_bytes(tr->level_start, b1, sizeof(b1)),
		 rl_bytes(tr->level_end, b2, sizeof(b2)), span);
	fit_and_requests(c, &p, &f);
	not_returned(c, sid, &f);
	if (p.s->scope == RL_SCOPE_HOST && memray_holders(c, &f, &holder) < 0) {
		rl_finding_drop(&f);
		return -1;
	}
	restart_advice(c, &p, &f);
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "series", sid, "memory in use, trend fitted") < 0 ||
	    (holder && rl_evidence(c, fid, "holder", holder, "memray's top allocating location") < 0))
		return -1;
	return 1;
}

/* A stack's live allocations (alloc_stacks). */
struct live_stack {
	int64_t stack;
	double n, bytes, first, last;   /* count, bytes, first and last birth (ns) */
	double freed;                   /* its allocations freed in the trace */
};

/* The finding of stack x, when its live allocations look like a leak: 1
 * written, 0 not one, -1 failed. */
static int alloc_stack_finding(struct rule_ctx *c, const struct live_stack *x, double t_min,
			       double t_max, double live_total)
{
	int64_t stack = x->stack, fid;
	double n = x->n, bytes = x->bytes, first = x->first, last = x->last, freed = x->freed;
	double spread = (last - first) / (t_max - t_min);
	struct rl_finding f;
	char b1[32], label[300];
	const char *frames = rl_stack_label(c, stack, label, sizeof(label));

	if (spread < ALLOC_MIN_SPREAD || bytes < ALLOC_MIN_FRACTION * live_total || freed > n)
		return 0;
	rl_finding_init(&f, "alloc_stacks", "leak", "alloc_stack");
	f.score = 0.55 + 0.35 * rl_clamp01((spread - ALLOC_MIN_SPREAD) / 0.4) * rl_clamp01(n / 64);
	rl_fig(&f, "live_allocations", n);
	rl_fig(&f, "live_bytes", bytes);
	rl_fig(&f, "live_fraction", bytes / live_total);
	rl_fig(&f, "birth_spread", spread);
	rl_fig(&f, "stack_id", (double)stack);
	rl_fig(&f, "slope_mb_per_hour", bytes / MIB / ((last - first) / 3.6e12));
	snprintf(f.title, sizeof(f.title), "%.0f live allocations (%s) from one stack, born"
		 " all along the trace: %s", n, rl_bytes(bytes, b1, sizeof(b1)),
		 frames);
	rl_advice(&f, "This stack allocates and never frees: %s. Find who keeps the tensors"
		  " it returns alive.", frames);
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "stack", stack, "allocating stack") < 0)
		return -1;
	return 1;
}

/* Stacks of an allocator trace whose allocations stay live: findings
 * written, or -1. alloc is a packed table without indexes (docs/schema.md):
 * each query is one pass over it, and only live rows are sorted. */
static int alloc_stacks(struct rule_ctx *c)
{
	struct live_stack top[5];
	sqlite3_stmt *st;
	double t_min, t_max, live_total;
	int r = 0, n = 0, i;

	if (!q_has_table(c->db, "alloc"))
		return 0;
	/* "keeps growing" needs a window: at least ALLOC_MIN_WINDOW_S of trace
	 * (the packed table tests `state = 'live'` itself: that pass is short) */
	if (rl_num(c, &live_total, "SELECT sum(size) FROM alloc WHERE state = 'live'") < 0 ||
	    live_total <= 0)
		return 0;
	if (!(st = rl_prepare(c, "SELECT min(alloc_ns), max(alloc_ns) FROM alloc")))
		return -1;
	if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_type(st, 0) == SQLITE_NULL) {
		sqlite3_finalize(st);
		return 0;
	}
	t_min = sqlite3_column_double(st, 0);
	t_max = sqlite3_column_double(st, 1);
	sqlite3_finalize(st);
	if (t_max - t_min < ALLOC_MIN_WINDOW_S * 1e9)
		return 0;
	/* a leaking stack: many live allocations whose birth times spread over
	 * most of the recorded window (weights and caches are born together at
	 * start-up; activations die young) */
	st = rl_prepare(c,
		"SELECT stack_id, count(*), sum(size), min(alloc_ns), max(alloc_ns) FROM alloc"
		" WHERE state = 'live' AND stack_id IS NOT NULL"
		" GROUP BY stack_id HAVING count(*) >= ?1 ORDER BY sum(size) DESC LIMIT 5");
	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, ALLOC_MIN_LIVE);
	while (n < 5 && sqlite3_step(st) == SQLITE_ROW) {
		struct live_stack *x = &top[n++];
		x->stack = sqlite3_column_int64(st, 0);
		x->n = sqlite3_column_double(st, 1);
		x->bytes = sqlite3_column_double(st, 2);
		x->first = sqlite3_column_double(st, 3);
		x->last = sqlite3_column_double(st, 4);
		x->freed = 0;
	}
	sqlite3_finalize(st);
	if (!n)
		return 0;
	/* how many of each one's allocations were freed: a pass each, whose
	 * rows the packed table picks out itself (no VDBE work for the others) */
	st = rl_prepare(c, "SELECT count(*) FROM alloc WHERE state = 'freed' AND stack_id = ?1");
	if (!st)
		return -1;
	for (i = 0; i < n; i++) {
		sqlite3_bind_int64(st, 1, top[i].stack);
		if (sqlite3_step(st) == SQLITE_ROW)
			top[i].freed = sqlite3_column_double(st, 0);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	for (i = 0; i < n; i++) {
		int one = alloc_stack_finding(c, &top[i], t_min, t_max, live_total);
		if (one < 0)
			return -1;
		r += one;
	}
	return r;
}

#define LOAD_LEAK_LINES 6          /* statistics lines in the window, the OOM's too */
#define LOAD_LEAK_STEADY 1.25      /* running at the OOM within this factor of typical */
#define LOAD_LEAK_R2 0.8           /* the KV usage's climb fits a line that well */
#define LOAD_LEAK_MIN_RISE 20.0    /* KV usage points gained over the window */

/* See the head: 1 finding, 0 none, -1 failed. Without the running and
 * KV figures of enough lines nothing is said. */
static int load_leak(struct rule_ctx *c)
{
	struct load_row r;
	struct rl_finding f;
	double base, rise;
	int64_t id, fid;
	int rc = load_row_read(c, &r);

	if (rc <= 0)
		return rc;
	if (strcmp(r.doing, "serving") || isnan(r.running) || isnan(r.running_typical) ||
	    isnan(r.samples_before) || r.samples_before + 1 < LOAD_LEAK_LINES ||
	    isnan(r.kv_slope_min) || isnan(r.kv_r2) || isnan(r.kv) || isnan(r.window_s) ||
	    r.kv_samples < LOAD_LEAK_LINES)
		return 0;
	base = r.running_typical > 1 ? r.running_typical : 1;
	rise = r.kv_slope_min * r.window_s / 60;
	if (r.running > LOAD_LEAK_STEADY * base || r.running * LOAD_LEAK_STEADY < r.running_typical ||
	    r.kv_r2 < LOAD_LEAK_R2 || rise < LOAD_LEAK_MIN_RISE)
		return 0;
	rl_finding_init(&f, "leak", "leak", "kv_growth_steady_load");
	f.phase = "serving";
	f.score = 0.4;
	snprintf(f.title, sizeof(f.title), "KV cache usage climbed %.1f points a minute (R\xc2\xb2"
		 " %.2f over %.0f lines, %.0f s) to %.0f%% at the OOM while the running requests"
		 " stayed at their typical %.0f: memory held at a steady load leans leak",
		 r.kv_slope_min, r.kv_r2, r.kv_samples, r.window_s, r.kv, r.running_typical);
	rl_fig(&f, "kv_slope_pct_per_min", r.kv_slope_min);
	rl_fig(&f, "r2", r.kv_r2);
	rl_fig(&f, "kv_usage_pct", r.kv);
	rl_fig(&f, "running", r.running);
	rl_fig(&f, "running_typical", r.running_typical);
	rl_fig(&f, "window_s", r.window_s);
	rl_advice(&f, "Stop the traffic and read the KV cache usage the engine reports: blocks"
		  " that stay allocated with no request running are not returned (a leak: restart"
		  " as a stopgap and report it with the engine's version); a usage that falls to"
		  " 0%% says long generations filled the pool (a smaller %s or %s).",
		  rl_flag(c, KR_MAX_LEN), rl_flag(c, KR_MAX_SEQS));
	fid = rl_finding_write(c, &f);
	if (fid < 0)
		return -1;
	if ((id = rl_series_id(c, "server.gpu_kv_usage", 0)) &&
	    rl_evidence(c, fid, "series", id, "KV cache usage, trend fitted") < 0)
		return -1;
	return 1;
}

int rule_leak(struct rule_ctx *c)
{
	static rl_part *const parts[] = { leak_growth, alloc_stacks, load_leak, NULL };

	return rl_run_parts(c, parts);
}
