/*
 * headroom.c -- misconfiguration: the baseline leaves less room than one
 * request needs.
 *
 * GPU: baseline = weights + KV cache (meta server.weights_bytes +
 * server.kv_cache_bytes) or gpu.used after start-up (rl_baseline); the
 * room is gpu total - baseline, the need is rl_per_request or the
 * allocation that failed, whichever is larger; it fires when the safe
 * concurrency, room / need x 0.7, is below one request (score 0.65 when
 * one request still fits without the margin, 0.75-0.95 when not). Host: the
 * cgroup limit (meta cgroup.max_bytes) against cgroup.current (or
 * proc.rss) after start-up: less than one request of room, or less than
 * HOST_MIN_ROOM of the limit when the per-request need is unknown.
 *
 * The admitted concurrency (max_num_seqs, else the running requests at
 * the OOM) x the per-request need against the same room: more than fits
 * is a contributing cause, the value to set the safe concurrency.
 */
#include "analyzer/rules/engine_facts.h"
#include "analyzer/derive/servwhatif.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define HOST_MIN_ROOM 0.10
#define HEADROOM_SAFETY 0.7   /* the factor of the safe concurrency */
#define ADMIT_SCORE 0.45      /* admitting more than fits: contributing */
#define ADMIT_FILLED 0.6      /* the admitted load at the OOM overflowed it */

/* The GPU's room over its baseline: the card's total, the baseline
 * (weights + KV cache from the engine's meta, or gpu.used after start-up,
 * whichever is larger: the CUDA context and runtime come on top of the
 * engine's figures), how it was measured and its series (0: meta).
 * 0, or -1 unknown. */
struct gpu_room {
	double total, base;
	const char *base_how;
	int64_t sid;
};

static int gpu_room(struct rule_ctx *c, struct gpu_room *r)
{
	double w, kv, used;

	r->sid = 0;
	if (rl_gpu_total(c, &r->total) < 0)
		return -1;
	if (rl_meta_num(c, "server.weights_bytes", &w) == 0 &&
	    rl_meta_num(c, "server.kv_cache_bytes", &kv) == 0) {
		r->base = w + kv;
		r->base_how = "weights + KV cache";
		if (rl_baseline(c, "gpu.used_bytes", c->oom_ns, &used, &r->sid) == 0 && used > r->base)
			r->base = used, r->base_how = "gpu memory used after start-up";
		else
			r->sid = 0;
	} else if (rl_baseline(c, "gpu.used_bytes", c->oom_ns, &r->base, &r->sid) == 0) {
		r->base_how = "gpu memory used after start-up";
	} else {
		return -1;
	}
	return r->base > 0 ? 0 : -1;
}

/* GPU: room over the baseline below what one request needs, with the
 * margin: 1 finding, 0 none, -1 failed. */
static int gpu_headroom(struct rule_ctx *c)
{
	double total, base, need, util, failed;
	const char *how = NULL, *base_how, *uflag = rl_flag(c, KR_MEM_FRACTION);
	struct gpu_room r;
	int64_t fid;
	struct rl_finding f;
	char b1[32], b2[32], b3[32], b4[32];

	if (rl_per_request(c, c->oom_ns, &need, &how) < 0 || gpu_room(c, &r) < 0)
		return 0;
	total = r.total, base = r.base, base_how = r.base_how;
	/* one request needs at least the allocation that failed */
	if (rl_oom_request(c, &failed) == 0 && failed > need)
		need = failed;
	/* safe concurrency (room / need x 0.7) below one request */
	if (total - base >= need / HEADROOM_SAFETY)
		return 0;
	rl_finding_init(&f, "headroom", "misconfig", "headroom");
	f.score = total - base >= need ? 0.65 :
		  0.75 + 0.2 * rl_clamp01((need - (total - base)) / need * 2);
	rl_fig(&f, "total_bytes", total);
	rl_fig(&f, "baseline_bytes", floor(base));
	rl_fig(&f, "headroom_bytes", floor(total - base));
	rl_fig(&f, "per_request_bytes", floor(need));
	rl_fig(&f, "safe_concurrency", floor((total - base) / need * HEADROOM_SAFETY));
	snprintf(f.title, sizeof(f.title), "%s of %s is taken before any request (%s):"
		 " %s left, one request needs %s", rl_bytes(base, b1, sizeof(b1)),
		 rl_bytes(total, b2, sizeof(b2)), base_how, rl_bytes(total - base, b3, sizeof(b3)),
		 rl_bytes(need, b4, sizeof(b4)));
	if (rl_meta_num(c, "server.gpu_memory_utilization", &util) == 0 && util > 0 && util <= 1 &&
	    uflag) {
		/* room for at least one request at the 0.7 safety factor, or
		 * the serving what-if's value: the recorded load fits with it */
		double cut = need / HEADROOM_SAFETY - (total - base);
		double nu = floor((util - cut / total) * 100) / 100, chosen;
		rl_fig(&f, "gpu_memory_utilization", util);
		rl_advice(&f, "Or use a smaller model / quantized weights.");
		if (rl_serving_choice(c, "gpu_memory_utilization", &chosen) == 0 && chosen < util) {
			nu = chosen;
			rl_knob(&f, "gpu_memory_utilization", uflag, nu,
				"Lower %s from %.2f to %.2f (frees %s of KV"
				" cache for activations: the serving what-if's value, the recorded"
				" load fits with a 0.7 margin).", uflag, util, nu,
				rl_bytes((util - nu) * total, b1, sizeof(b1)));
		} else {
			rl_knob(&f, "gpu_memory_utilization", uflag, nu,
				"Lower %s from %.2f to %.2f (frees %s of KV"
				" cache for activations).", uflag, util, nu, rl_bytes(cut, b1, sizeof(b1)));
		}
		rl_fig(&f, "suggested_gpu_memory_utilization", nu);
	} else {
		rl_advice(&f, "Free %s of the baseline (smaller KV cache or weights) so one request"
			  " fits with a 0.7 safety factor.",
			  rl_bytes(need / HEADROOM_SAFETY - (total - base), b1, sizeof(b1)));
	}
	fid = rl_finding_write(c, &f);
	if (fid < 0 || (r.sid && rl_evidence(c, fid, "series", r.sid, base_how) < 0))
		return -1;
	return 1;
}

/* The concurrency the server admits: max_num_seqs (the engine's, else
 * meta), else the running requests at the OOM; *running gets those
 * (-1 unknown). 0, or -1 unknown. */
static int admitted(struct rule_ctx *c, double *seqs, double *running, const char **what)
{
	struct rl_engine e[RL_MAX_ENGINES];
	int n = rl_engines_read(c, e, RL_MAX_ENGINES), i;

	*seqs = -1;
	if (rl_value_at(c, "server.running", NULL, c->oom_ns, running) < 0)
		*running = -1;
	for (i = 0; i < n && *seqs < 1; i++)
		if (rl_ef_known(&e[i], RL_EF_MAX_SEQS))
			*seqs = e[i].f[RL_EF_MAX_SEQS];
	if (*seqs < 1 && rl_meta_num(c, "server.max_num_seqs", seqs) < 0)
		*seqs = -1;
	if (*seqs >= 1) {
		*what = "max_num_seqs";
		return 0;
	}
	*what = "running requests at the OOM";
	*seqs = *running;
	return *seqs >= 1 ? 0 : -1;
}

/* The admitted concurrency x per-request need beyond the room over the
 * baseline: 1 finding, 0 none, -1 failed. A contributing cause
 * (ADMIT_SCORE: it is what lets a burst through), ADMIT_FILLED when the
 * running requests at the OOM, within max_num_seqs, alone overflowed it:
 * the load the configuration admitted is what did not fit. */
static int admitted_concurrency(struct rule_ctx *c)
{
	double seqs, running, need, safe, room, chosen;
	const char *how, *what;
	struct gpu_room r;
	struct rl_finding f;
	char b1[32], b2[32], b3[32];

	if (admitted(c, &seqs, &running, &what) < 0 || gpu_room(c, &r) < 0 ||
	    rl_per_request(c, c->oom_ns, &need, &how) < 0 || need <= 0)
		return c->failed ? -1 : 0;
	room = r.total - r.base;
	if (room <= 0 || seqs * need <= room)
		return 0;
	safe = floor(room / need * HEADROOM_SAFETY);
	rl_finding_init(&f, "headroom", "misconfig", "max_num_seqs");
	/* the serving what-if's cap, when it made one: the same model with the
	 * failed allocation as a floor on the per-request need */
	if (rl_serving_choice(c, "max_num_seqs", &chosen) == 0)
		safe = chosen;
	f.score = ADMIT_SCORE;
	if (strcmp(what, "max_num_seqs") == 0 && running >= 1 && running <= seqs &&
	    running * need > room)
		f.score = ADMIT_FILLED;
	rl_fig(&f, strcmp(what, "max_num_seqs") ? "admitted_concurrency" : "max_num_seqs", seqs);
	if (running >= 0)
		rl_fig(&f, "running_at_oom", running);
	rl_fig(&f, "per_request_bytes", floor(need));
	rl_fig(&f, "baseline_bytes", floor(r.base));
	rl_fig(&f, "safe_concurrency", safe);
	snprintf(f.title, sizeof(f.title), "%s %.0f x %s per request exceeds the %s left"
		 " over the baseline", what, seqs, rl_bytes(need, b1, sizeof(b1)),
		 rl_bytes(room, b2, sizeof(b2)));
	rl_knob(&f, "max_num_seqs", rl_flag(c, KR_MAX_SEQS), safe > 1 ? safe : 1,
		"Lower %s to %.0f ((%s - %s) / %s x 0.7).", rl_flag(c, KR_MAX_SEQS),
		safe > 1 ? safe : 1,
		rl_bytes(r.total, b1, sizeof(b1)), rl_bytes(r.base, b2, sizeof(b2)),
		rl_bytes(need, b3, sizeof(b3)));
	return rl_finding_write(c, &f) < 0 ? -1 : 1;
}

/* Host: the cgroup limit over the baseline leaves less than a request,
 * or little of the limit: 1 finding, 0 none, -1 failed. */
static int host_headroom(struct rule_ctx *c)
{
	double max, base, need = 0;
	const char *how = NULL, *src = "cgroup.current_bytes";
	int64_t until = c->oom_ns, sid = 0, fid;
	int have_need;
	struct rl_finding f;
	char b1[32], b2[32], b3[32];

	if (rl_meta_num(c, "cgroup.max_bytes", &max) < 0 || max <= 0 || max > 1e18)
		return 0;
	if (rl_baseline(c, src, until, &base, &sid) < 0) {
		src = "proc.rss_bytes";
		if (rl_baseline(c, src, until, &base, &sid) < 0)
			return 0;
	}
	have_need = rl_per_request(c, until, &need, &how) == 0 && need > 0 &&
		    need < max;
	if (have_need ? max - base >= need : max - base >= HOST_MIN_ROOM * max)
		return 0;
	rl_finding_init(&f, "headroom", "misconfig", "limit");
	f.score = 0.85;
	rl_fig(&f, "limit_bytes", max);
	rl_fig(&f, "baseline_bytes", floor(base));
	rl_fig(&f, "headroom_bytes", floor(max - base));
	rl_fig(&f, "headroom_fraction", (max - base) / max);
	if (have_need)
		rl_fig(&f, "per_request_bytes", floor(need));
	snprintf(f.title, sizeof(f.title), "The cgroup limit %s leaves %s over the %s baseline"
		 " (%s after start-up)", rl_bytes(max, b1, sizeof(b1)),
		 rl_bytes(max - base, b2, sizeof(b2)), src, rl_bytes(base, b3, sizeof(b3)));
	{
		double want = have_need ? base + need * 4 / 0.7 : base / 0.7;
		want = ceil(want / GIB) * GIB;
		rl_fig(&f, "suggested_limit_bytes", want);
		rl_advice(&f, "Or shrink the process's baseline.");
		rl_knob(&f, "memory_limit", "the memory limit", want,
			"Raise the cgroup limit (memory.max / the container's memory limit)"
			" to at least %s (%.0f bytes).", rl_bytes(want, b1, sizeof(b1)), want);
	}
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "series", sid, "baseline after start-up") < 0)
		return -1;
	return 1;
}

int rule_headroom(struct rule_ctx *c)
{
	static rl_part *const parts[] = { gpu_headroom, admitted_concurrency, host_headroom, NULL };

	return rl_run_parts(c, parts);
}
