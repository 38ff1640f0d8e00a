/*
 * kv_slots.c -- Ollama's KV cache full under concurrent requests: row 1
 * of table oom is the runner's "could not find a kv cache slot" (family
 * `ollama`, parsers/serving/memfail_words.c, round 17).
 *
 * Learnt from Ollama's runner (llama/runner/runner.go and cache.go
 * @v0.4.7; the same truncation and ShiftCacheSlot in
 * runner/ollamarunner/runner.go and cache.go@v0.9.0): the KV cache is allocated once for kvSize = num_ctx x parallel
 * cells, and each sequence owns at most num_ctx of them (cache.go
 * NewInputCache: numCtx = kvSize / numSlots). A prompt longer than that
 * is cut to it ("truncating input prompt" limit=numCtx), and before a
 * sequence would pass it the runner shifts its context
 * (ShiftCacheSlot). So one request alone never fills the cache: the
 * decode that found no free cells (llama_decode's 1, ErrKvCacheFull,
 * which run() panics on) found them held by the other sequences decoding
 * beside it. That is the load of several requests at once, a spike of
 * concurrency, whatever the card holds: the cure is fewer at once
 * (OLLAMA_NUM_PARALLEL, or the client's own concurrency) or a larger
 * num_ctx, which sizes the cache. The thread ollama#7930 (GraphRAG
 * sending requests concurrently, fixed by its concurrent_requests: 1)
 * is the real case.
 *
 * Where the files say the runner ran one sequence (a launch paste's
 * OLLAMA_NUM_PARALLEL or --parallel of 1, or the engine's kv_size equal
 * to its n_ctx_per_seq) the reasoning does not hold, and no finding is
 * written. llama.cpp's server ("failed to decode the batch") shares its
 * cache among its slots differently by version (one slot may own all of
 * it), so its failure is read but not judged here.
 */
#include "analyzer/rules/rulelib.h"
#include "analyzer/rules/engine_facts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define KVSLOT_SCORE 0.55    /* by the runner's source: likely, not a count of requests */
#define KVSLOT_WORDING "could not find a kv cache slot"

/* The parallel sequences the files state: an engine's kv_size over its
 * n_ctx_per_seq, else its max_num_seqs (OLLAMA_NUM_PARALLEL, --parallel,
 * a launch paste's included: engine_facts.c); NAN when none. -1 on
 * failure, else 0. */
static int stated_slots(struct rule_ctx *c, double *slots)
{
	struct rl_engine e[RL_MAX_ENGINES];
	int n, i;

	*slots = NAN;
	if ((n = rl_engines_read(c, e, RL_MAX_ENGINES)) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (rl_ef_known(&e[i], RL_EF_KV_TOKENS) && rl_ef_known(&e[i], RL_EF_MAX_LEN) &&
		    e[i].f[RL_EF_MAX_LEN] >= 1) {
			*slots = floor(e[i].f[RL_EF_KV_TOKENS] / e[i].f[RL_EF_MAX_LEN] + 0.5);
			return 0;
		}
	for (i = 0; i < n; i++)
		if (rl_ef_known(&e[i], RL_EF_MAX_SEQS) && e[i].f[RL_EF_MAX_SEQS] > 0) {
			*slots = e[i].f[RL_EF_MAX_SEQS];
			return 0;
		}
	return 0;
}

/* Writes one spike finding (cause concurrency) when row 1 of oom is
 * Ollama's KV cache found full and nothing says the runner ran a single
 * sequence. 1 written, 0 none, -1 failed. */
int rule_kv_slots(struct rule_ctx *c)
{
	struct rl_finding f;
	double hit = 0, slots;
	int64_t fid, event_id = 0;

	if (!c->has_oom)
		return 0;
	if (rl_num(c, &hit, "SELECT count(*) FROM oom o JOIN event e ON e.id = o.event_id"
		   " WHERE o.id = 1 AND e.kind = 'mem_failure' AND json_valid(e.data)"
		   " AND json_extract(e.data, '$.family') = 'ollama'"
		   " AND instr(lower(json_extract(e.data, '$.wording')), '" KVSLOT_WORDING "') > 0") < 0)
		return -1;
	if (hit < 1)
		return 0;
	if (stated_slots(c, &slots) < 0)
		return -1;
	if (!isnan(slots) && slots < 2)
		return 0;
	/* NULL (an engine's count, no event) is no row for rl_num */
	hit = 0;
	if (rl_num(c, &hit, "SELECT event_id FROM oom WHERE id = 1") < 0 && c->failed)
		return -1;
	event_id = isnan(hit) || hit < 1 ? 0 : (int64_t)hit;
	rl_finding_init(&f, "kv_slots", "spike", "concurrency");
	f.phase = "serving";
	f.score = KVSLOT_SCORE;
	if (!isnan(slots))
		rl_fig(&f, "parallel_sequences", slots);
	snprintf(f.title, sizeof(f.title), "Ollama's KV cache was full while serving: the runner"
		 " caps each request at num_ctx and shifts it before it passes, so the cells were"
		 " held by several requests decoding at once");
	rl_advice(&f, "Ollama sizes one KV cache for num_ctx x OLLAMA_NUM_PARALLEL tokens and"
		  " gives each request at most num_ctx of it (a longer prompt is truncated):"
		  " the cache found full means the requests running beside the failed one held"
		  " it (an inference from the runner's source, not a count the log gives).");
	rl_knob(&f, "max_num_seqs", "OLLAMA_NUM_PARALLEL", 1,
		"Send fewer requests at once (the client's concurrency, or OLLAMA_NUM_PARALLEL=1),"
		" or raise num_ctx so the cache holds what runs together.");
	if ((fid = rl_finding_write(c, &f)) < 0)
		return -1;
	if (event_id > 0 && rl_evidence(c, fid, "event", event_id,
					"the runner's KV cache found full") < 0)
		return -1;
	return 1;
}
