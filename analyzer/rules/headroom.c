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
 */
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdio.h>

#define HOST_MIN_ROOM 0.10
#define HEADROOM_SAFETY 0.7   /* the factor of the safe concurrency */

/* GPU: room over the baseline below what one request needs, with the
 * margin: 1 finding, 0 none, -1 failed. */
static int gpu_headroom(struct rule_ctx *c)
{
	double total, w, kv, base, need, util, failed;
	const char *how = NULL, *base_how;
	int64_t until = c->oom_ns, sid = 0, fid;
	struct rl_finding f;
	char b1[32], b2[32], b3[32], b4[32];

	if (rl_gpu_total(c, &total) < 0 || rl_per_request(c, until, &need, &how) < 0)
		return 0;
	/* one request needs at least the allocation that failed */
	if (rl_oom_request(c, &failed) == 0 && failed > need)
		need = failed;
	if (rl_meta_num(c, "server.weights_bytes", &w) == 0 &&
	    rl_meta_num(c, "server.kv_cache_bytes", &kv) == 0) {
		double used;
		base = w + kv;
		base_how = "weights + KV cache";
		/* the CUDA context and runtime come on top: take the device's
		 * own figure when it is the larger one */
		if (rl_baseline(c, "gpu.used_bytes", until, &used, &sid) == 0 && used > base)
			base = used, base_how = "gpu memory used after start-up";
	} else if (rl_baseline(c, "gpu.used_bytes", until, &base, &sid) == 0) {
		base_how = "gpu memory used after start-up";
	} else {
		return 0;
	}
	/* safe concurrency (room / need x 0.7) below one request */
	if (total - base >= need / HEADROOM_SAFETY || base <= 0)
		return 0;
	rl_finding_init(&f, "headroom", "misconfig", "headroom");
	f.score = total - base >= need ? 0.65 :
		  0.75 + 0.2 * rl_clamp01((need - (total - base)) / need * 2);
	rl_fig(&f, "total_bytes", total);
	rl_fig(&f, "baseline_bytes", floor(base));
	rl_fig(&f, "headroom_bytes", floor(total - base));
	rl_fig(&f, "per_request_bytes", floor(need));
	rl_fig(&f, "safe_concurrency", floor((total - base) / need * 0.7));
	snprintf(f.title, sizeof(f.title), "%s of %s is taken before any request (%s):"
		 " %s left, one request needs %s", rl_bytes(base, b1, sizeof(b1)),
		 rl_bytes(total, b2, sizeof(b2)), base_how, rl_bytes(total - base, b3, sizeof(b3)),
		 rl_bytes(need, b4, sizeof(b4)));
	if (rl_meta_num(c, "server.gpu_memory_utilization", &util) == 0 && util > 0 && util <= 1) {
		/* room for at least one request at the 0.7 safety factor */
		double cut = need / HEADROOM_SAFETY - (total - base);
		double nu = floor((util - cut / total) * 100) / 100;
		rl_fig(&f, "gpu_memory_utilization", util);
		rl_fig(&f, "suggested_gpu_memory_utilization", nu);
		rl_advice(&f, "Or use a smaller model / quantized weights.");
		rl_knob(&f, "gpu_memory_utilization", "--gpu-memory-utilization", nu,
			"Lower --gpu-memory-utilization from %.2f to %.2f (frees %s of KV"
			" cache for activations).", util, nu, rl_bytes(cut, b1, sizeof(b1)));
	} else {
		rl_advice(&f, "Free %s of the baseline (smaller KV cache or weights) so one request"
			  " fits with a 0.7 safety factor.",
			  rl_bytes(need / HEADROOM_SAFETY - (total - base), b1, sizeof(b1)));
	}
	fid = rl_finding_write(c, &f);
	if (fid < 0 || (sid && rl_evidence(c, fid, "series", sid, base_how) < 0))
		return -1;
	return 1;
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
	static rl_part *const parts[] = { gpu_headroom, host_headroom, NULL };

	return rl_run_parts(c, parts);
}
