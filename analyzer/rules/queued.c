/*
 * queued.c -- requests queued at a serving OOM: the engine's own load line
 * at the failure (derived row oom_load: vLLM's "Running: N reqs, ...
 * Pending: M reqs" (V0 metrics.py; V1 "Waiting:"), SGLang's "#queue-req:
 * M", the last statistics line at the failure) shows requests waiting
 * beside those running. The engine was at its admission cap: more demand
 * than it runs at once, and the batch it admitted is what ran out. That
 * is load beyond what the memory holds, a spike of demand, whatever the
 * card's fill says (rule capacity sees the same full card from inside);
 * one statistics line is enough, as the queue is the engine's own count.
 *
 * Where the engine's own account says its KV pool ran out (a kv_pool
 * finding of rule engine), the pool decided what it admitted: the queue
 * then only contributes (QUEUE_BESIDE_POOL), with no knob of its own.
 *
 * The queue must be a real one: at least QUEUE_MIN waiting and
 * QUEUE_SHARE of those running, so that a request or two passing through
 * the queue of a busy server is not read as a surge. What to change is
 * the engine's concurrency knob, at x 0.7 of what ran (the rules' safe
 * concurrency factor), and letting the rest queue.
 */
#include "analyzer/rules/rulelib.h"
#include "analyzer/rules/loadrow.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define QUEUE_MIN 2.0       /* requests waiting */
#define QUEUE_SHARE 0.1     /* of those running */
#define QUEUE_SCORE 0.62    /* above capacity's full card (0.6): the queue says why it filled */
#define QUEUE_BESIDE_POOL 0.25 /* beside the engine's own KV-pool account: contributes only */

/* Writes one spike finding (cause concurrency) when the load line at a
 * serving OOM shows a queue. 1 written, 0 none, -1 failed. */
int rule_queued(struct rule_ctx *c)
{
	struct load_row r;
	struct rl_finding f;
	const char *seqs = rl_flag(c, KR_MAX_SEQS);
	double safe, pool = 0;
	int64_t id, fid;
	int rc;

	if (!c->has_oom)
		return 0;
	if ((rc = load_row_read(c, &r)) <= 0)
		return rc;
	if (strcmp(r.doing, "serving") || isnan(r.running) || isnan(r.waiting) || r.running < 1 ||
	    r.waiting < QUEUE_MIN || r.waiting < QUEUE_SHARE * r.running)
		return 0;
	/* the engine's own account of its KV pool running out (engine.c's
	 * kv_pool, SGLang's decode OOM): the pool decides what it admits, so
	 * the queue beside it only contributes */
	rl_num(c, &pool, "SELECT count(*) FROM finding WHERE cause = 'kv_pool'");
	rl_finding_init(&f, "queued", "spike", "concurrency");
	f.phase = "serving";
	f.score = pool > 0 ? QUEUE_BESIDE_POOL : QUEUE_SCORE;
	rl_fig(&f, "running", r.running);
	rl_fig(&f, "waiting", r.waiting);
	if (!isnan(r.kv))
		rl_fig(&f, "kv_usage_pct", r.kv);
	snprintf(f.title, sizeof(f.title), "%.0f requests were queued beside the %.0f running at"
		 " the OOM: the engine was at its admission cap, with more demand than it runs at"
		 " once, and the batch it admitted ran out of memory", r.waiting, r.running);
	safe = floor(r.running * 0.7);
	if (pool > 0)
		rl_advice(&f, "The engine's own account says its KV pool ran out: the queue only"
			  " shows the demand beside it, and that finding's advice comes first.");
	else if (seqs && safe >= 1)
		rl_knob(&f, "max_num_seqs", seqs, safe, "Lower %s to %.0f (x 0.7 of the %.0f that"
			" ran at the OOM) and let the rest queue.", seqs, safe, r.running);
	else
		rl_advice(&f, "Run fewer requests at once and let the rest queue.");
	fid = rl_finding_write(c, &f);
	if (fid < 0)
		return -1;
	if ((id = rl_series_id(c, "server.waiting", 0)) &&
	    rl_evidence(c, fid, "series", id, "requests waiting, at the OOM") < 0)
		return -1;
	return 1;
}
