/*
 * retract.c -- SGLang's own preemption, read for what it is. When its KV
 * cache pool runs full while decoding, SGLang retracts running requests
 * (they go back to the queue and are recomputed later) and raises its
 * new_token_ratio so that it admits fewer: "KV cache pool is full.
 * Retract requests. #retracted_reqs: N, #new_token_ratio: a -> b" (0.4
 * and before: "Decode out of memory happened. #retracted_reqs: N ...").
 * The engine handled the pressure; nothing crashed. So:
 *
 *  - an OOM after the first retraction: the pressure ran on into the
 *    failure, load beyond what the pool held: spike (RETRACT_BEFORE_OOM);
 *  - no OOM: a warning (RETRACT_WARNING); the verdict stays no_oom and
 *    the answer shows the warning and what to change (reports/answer.c).
 *
 * What to change is the engine's own: a larger pool (SGLang
 * --mem-fraction-static, when the weights and activations leave room) or
 * fewer requests at once (--max-running-requests: x 0.7 of the most
 * that ran, when the log's Decode batch lines give it). Where those lines
 * show the pool's token usage at 100 % (KV_FULL_PCT) before it retracted,
 * the pool itself is what ran out: the advice says so, with SGLang's
 * knobs that size it (--mem-fraction-static, --max-total-tokens: the
 * pool's token count; python/sglang/srt/managers/scheduler.py
 * update_running_batch: check_decode_mem() fails, retract_decode() gives
 * requests back and the line above is logged, the server goes on).
 */
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RETRACT_BEFORE_OOM 0.65  /* above kv_pool's 0.6: the engine's history says which */
#define RETRACT_WARNING 0.4      /* no OOM: a warning, not a verdict */
#define KV_FULL_PCT 99.0         /* token usage that is the whole pool (SGLang prints 1.00) */

struct retracts {
	int events;                 /* retraction lines */
	double requests;            /* the sum of their #retracted_reqs */
	int64_t first_ns, first_id; /* the first one (OL_NULL: no time) */
	double ratio_to;            /* the last new_token_ratio it set; -1 unknown */
};

/* The number after key in text; -1 when absent. */
static double after(const char *text, const char *key)
{
	const char *p = text ? strstr(text, key) : NULL;
	char *end;
	double v;

	if (!p)
		return -1;
	v = strtod(p + strlen(key), &end);
	return end > p + strlen(key) ? v : -1;
}

/* The engine's retraction events into r; 0, or -1 failed. */
static int read_retracts(struct rule_ctx *c, struct retracts *r)
{
	/* one retraction per moment and wording: tensor-parallel ranks each
	 * log the same one */
	sqlite3_stmt *st = rl_prepare(c, "SELECT min(id), time_ns, json_extract(data, '$.text')"
		" FROM event WHERE kind = 'engine_error' AND json_valid(data)"
		" AND json_extract(data, '$.error') = 'retract'"
		" GROUP BY time_ns, json_extract(data, '$.text')"
		" ORDER BY time_ns IS NULL, time_ns, min(id)");

	memset(r, 0, sizeof(*r));
	r->first_ns = OL_NULL;
	r->ratio_to = -1;
	if (!st)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(st, 2);
		const char *arrow = text ? strstr(text, "new_token_ratio") : NULL;
		double n = after(text, "#retracted_reqs: ");
		if (r->events++ == 0) {
			r->first_id = sqlite3_column_int64(st, 0);
			if (sqlite3_column_type(st, 1) != SQLITE_NULL)
				r->first_ns = sqlite3_column_int64(st, 1);
		}
		r->requests += n > 0 ? n : 1;
		if (arrow && (arrow = strstr(arrow, "-> ")))
			r->ratio_to = atof(arrow + 3);
	}
	sqlite3_finalize(st);
	return c->failed ? -1 : 0;
}

int rule_retract(struct rule_ctx *c)
{
	struct retracts r;
	struct rl_finding f;
	const char *seqs = rl_flag(c, KR_MAX_SEQS), *pool = rl_flag(c, KR_MEM_FRACTION);
	double running = -1, util = -1, kv = -1;
	int before_oom;
	int64_t fid;

	if (read_retracts(c, &r) < 0)
		return -1;
	if (r.events == 0)
		return 0;
	before_oom = c->has_oom && (c->oom_ns == OL_NULL || r.first_ns == OL_NULL ||
				    r.first_ns <= c->oom_ns);
	rl_num(c, &running, "SELECT max(sample_max(id)) FROM series WHERE name = 'server.running'");
	rl_meta_num(c, "server.gpu_memory_utilization", &util);
	rl_num(c, &kv, "SELECT max(sample_max(id)) FROM series WHERE name = 'server.gpu_kv_usage'");
	rl_finding_init(&f, "retract", "spike", "kv_retract");
	f.phase = "serving";
	f.score = before_oom ? RETRACT_BEFORE_OOM : RETRACT_WARNING;
	rl_fig(&f, "retracted_requests", r.requests);
	rl_fig(&f, "retract_events", r.events);
	if (r.ratio_to >= 0)
		rl_fig(&f, "new_token_ratio_set", r.ratio_to);
	if (running > 0)
		rl_fig(&f, "running_peak", running);
	if (kv >= KV_FULL_PCT)
		rl_fig(&f, "kv_usage_pct", kv);
	snprintf(f.title, sizeof(f.title), "%s retracted %.0f request%s (%d time%s): its KV cache"
		 " pool ran full while decoding and it preempted %s, %s", rl_engine_title(c),
		 r.requests, r.requests == 1 ? "" : "s", r.events, r.events == 1 ? "" : "s",
		 r.requests == 1 ? "it" : "them",
		 before_oom ? "then memory ran out: the load outgrew the pool" :
		 "memory pressure it handled and survived, not a crash");
	if (running >= 2)
		rl_knob(&f, "max_num_seqs", seqs, floor(running * 0.7),
			"Lower %s to %.0f (x 0.7 of the %.0f requests that ran at once), so that"
			" what runs together fits the pool.", seqs, floor(running * 0.7), running);
	if (pool && util > 0 && util < 0.95)
		rl_advice(&f, "%s the pool more room: raise %s from %.2f (when the weights"
			  " and activations leave it).", f.knob[0] ? "Or give" : "Give", pool, util);
	else if (pool)
		rl_advice(&f, "%s the pool more room: raise %s (when the weights and activations"
			  " leave it)%s%s%s.", f.knob[0] ? "Or give" : "Give", pool,
			  f.knob[0] ? "" : ", or run fewer requests at once (", f.knob[0] ? "" : seqs,
			  f.knob[0] ? "" : ")");
	if (kv >= KV_FULL_PCT && pool)
		rl_advice(&f, "Its token usage stood at %.0f %% of the pool before it retracted (its"
			  " load lines): the pool holds too few tokens for these requests' lengths;"
			  " size it up with %s%s.", kv, pool,
			  rl_engine_kind(c) == ENGINE_SGLANG ? " or --max-total-tokens" : "");
	rl_advice(&f, "Retracted requests are recomputed later: throughput falls while it"
		  " lasts%s.", before_oom ? "" : "; no request failed for memory");
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "event", r.first_id, "the engine's first retraction") < 0)
		return -1;
	return 1;
}
