/*
 * kvleak.c -- leak: a serving engine's own check says its KV-cache pool
 * leaked. SGLang's scheduler compares, when idle, the tokens its KV pool
 * has free (available + evictable + protected) with the pool's size and
 * raises or warns "token_to_kv_pool_allocator memory leak detected!" (an
 * older wording: "KV cache pool leak detected!") when they differ; the
 * generic recogniser keeps that as an OOM of family sglang_kv (table oom).
 *
 * Tokens missing from the count (size - available - evictable -
 * protected > 0) were taken and never returned: a leak in the engine's
 * accounting, found by the engine itself (KVLEAK_COUNTED). Without the
 * figures, the check's word alone (KVLEAK_WORD). More free than the pool
 * holds (an over-free, a double release) is an accounting bug, not a
 * leak: no finding.
 *
 * LMCache's offload store (rule_kvleak's second part, lmcache_held):
 * its CPU pool is made whole at start-up (max_local_cpu_size) and a
 * store or a retrieve that finds it full evicts before it fails:
 * LocalCPUBackend.allocate (lmcache/v1/storage_backend/
 * local_cpu_backend.py, indexed copy @000620e3; the same loop in the
 * v0.2-v0.3 copies the threads ran) takes the cache policy's eviction
 * candidates -- chunks neither pinned nor referenced (can_evict) --
 * until the allocator has room, and only when none is left does it wait
 * or give up; then the allocator's warning ("Failed to allocate memory
 * for tensor(...) because no memory is available", memory_management.py
 * TensorMemoryAllocator.allocate) or the store's ("Failed to allocate
 * memory for the KV cache. The KV cache will not be stored.",
 * cache_engine.py store) is what the log keeps. A full pool is therefore
 * not ordinary content (that is evicted) but chunks still held: pins and
 * references not released (a leak), or as many requests holding chunks
 * at once as the pool holds (a load). The log shows neither count, so
 * the finding says both and leans leak, below a counted check
 * (LMCACHE_HELD). Only while serving (the phase read from the log): a
 * start-up failure is the pool's size (startup.c). The P/D receiver's
 * "Failed to allocate memory object, retrying" (nixl_connector_v3.py
 * _mem_alloc_loop) waits on a transfer buffer with no eviction: left
 * out.
 * SGLang's busy-time checker (2026, SGLANG_ENABLE_STRICT_MEM_CHECK_
 * DURING_BUSY; python/sglang/srt/managers/scheduler_runtime_checker_
 * mixin.py, indexed copies) asserts "Full|SWA Pool Mem Leak Detected!
 * [pool] total=, available=, evictable=, protected=, session_held=,
 * uncached=" whenever the five categories do not sum to the total
 * (_check_pool_invariant: leak = total_accounted != total), the server
 * aborting. Fewer counted than the total is tokens lost, as above; more
 * is a slot freed while a running request still owns it (a stale mapping
 * freeing a live slot, which the engine's maintainers file as the pool
 * leaking), a lower score as the direction is an accounting bug's as
 * much as a leak's (KVLEAK_BUSY_OVER). Calibration: set 17's one such
 * assert (spent, w-spend17d), its thread a maintainer's leak report.
 * Calibration (this rule's code, round 16): tuning set 5 rows named, 2
 * of them with a cause the thread establishes, both leak (LMCache's
 * layerwise objects not freed; 0.3.x allocator buffers not returned);
 * the other 3 establish none; incoming and healthy: none named.
 */
#include "analyzer/rules/rulelib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KVLEAK_COUNTED 0.7   /* the engine's check, with the tokens it lost */
#define KVLEAK_WORD 0.6      /* the engine's check, no figures */
#define KVLEAK_BUSY_OVER 0.55 /* the busy check's assert, counts over the total */
#define LMCACHE_HELD 0.45    /* LMCache's pool full past eviction: leak, likely */

/* The number after key ("available_size=") in text; -1 when absent. */
static double after(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	char *end;
	double v;

	if (!p)
		return -1;
	v = strtod(p + strlen(key), &end);
	return end > p + strlen(key) ? v : -1;
}

static int sglang_check(struct rule_ctx *c)
{
	sqlite3_stmt *st;
	struct rl_finding f;
	char text[600];
	double total, avail, evict, prot, held = -1, unc = -1, lost = -1;
	int busy;
	int64_t ev, fid;

	/* each failure's text (its event's, else the summary) once; the line
	 * with the counts first */
	if (rl_first_row(c, "SELECT event_id, text FROM (SELECT o.id, o.event_id,"
		" coalesce(CASE WHEN json_valid(e.data) THEN json_extract(e.data, '$.text') END,"
		" e.summary, '') AS text FROM oom o JOIN event e ON e.id = o.event_id"
		" WHERE o.family = 'sglang_kv') ORDER BY text LIKE '%total%=%' DESC, id LIMIT 1", &st) <= 0)
		return c->failed ? -1 : 0;
	ev = sqlite3_column_int64(st, 0);
	snprintf(text, sizeof(text), "%s", q_text(st, 1));
	sqlite3_finalize(st);
	busy = strstr(text, "Pool Mem Leak Detected") != NULL;
	if (busy) {   /* the busy-time checker's "[pool] total=.., available=.." */
		total = after(text, " total=");
		avail = after(text, "available=");
		evict = after(text, "evictable=");
		prot = after(text, "protected=");
		held = after(text, "session_held=");
		unc = after(text, "uncached=");
	} else {
		total = after(text, "max_total_num_tokens=");
		avail = after(text, "available_size=");
		evict = after(text, "evictable_size=");
		prot = after(text, "protected_size=");
	}
	if (total > 0 && avail >= 0)
		lost = total - avail - (evict > 0 ? evict : 0) - (prot > 0 ? prot : 0)
		       - (held > 0 ? held : 0) - (unc > 0 ? unc : 0);
	if (!busy && total > 0 && avail >= 0 && lost <= 0)
		return 0;   /* an over-free: the accounting's bug, not a leak */
	rl_finding_init(&f, "kvleak", "leak", "kv_pool_leak");
	f.phase = "serving";
	f.score = lost > 0 ? KVLEAK_COUNTED : KVLEAK_WORD;
	if (busy && total > 0 && avail >= 0 && lost < 0) {
		/* more counted than the pool holds: a slot counted free while a
		 * running request still owns it -- the engine's leak assert */
		f.score = KVLEAK_BUSY_OVER;
		rl_fig(&f, "kv_pool_tokens", total);
		rl_fig(&f, "kv_pool_overcounted_tokens", -lost);
		snprintf(f.title, sizeof(f.title), "SGLang's busy-time pool check aborted the"
			 " server: its pool's counts exceed its %.0f tokens by %.0f (a slot freed"
			 " while a request still held it); the engine reports it as a pool leak",
			 total, -lost);
	} else if (lost > 0) {
		rl_fig(&f, "kv_pool_tokens", total);
		rl_fig(&f, "kv_pool_available_tokens", avail);
		rl_fig(&f, "kv_pool_leaked_tokens", lost);
		snprintf(f.title, sizeof(f.title), "SGLang's own check found its KV-cache pool"
			 " leaking: %.0f of %.0f tokens were taken and never returned", lost, total);
	} else {
		snprintf(f.title, sizeof(f.title), "SGLang's own check found its KV-cache pool"
			 " leaking (the check's counts were not in the log)");
	}
	rl_advice(&f, "Tokens the scheduler took for requests were not given back to the pool:"
		  " an engine bug, not the configuration. Compare with the previous SGLang"
		  " release, and report it with the requests' features (radix cache, chunked"
		  " prefill, speculative decoding); restarting the server returns the pool.");
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "event", ev, "the engine's leak check") < 0)
		return -1;
	return 1;
}

/* LMCache's pool full past its eviction while serving (see the top):
 * 1 with a finding, 0 none, -1 error. */
static int lmcache_held(struct rule_ctx *c)
{
	sqlite3_stmt *st;
	struct rl_finding f;
	int64_t ev, n, fid;

	/* each serving OOM's text (its event's, else the summary) once; the
	 * first LMCache pool failure, and how many there were */
	if (rl_first_row(c, "SELECT event_id, count(*) OVER () FROM (SELECT o.id,"
		" o.event_id, coalesce(CASE WHEN json_valid(e.data) THEN json_extract(e.data,"
		" '$.text') END, e.summary, '') AS text FROM oom o JOIN event e ON e.id = o.event_id"
		" WHERE o.phase = 'serving') WHERE text LIKE '%LMCache%' AND (text LIKE"
		" '%because no memory is available%' OR text LIKE"
		" '%Failed to allocate memory for the KV cache%') ORDER BY id LIMIT 1", &st) <= 0)
		return c->failed ? -1 : 0;
	ev = sqlite3_column_int64(st, 0);
	n = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	rl_finding_init(&f, "kvleak", "leak", "offload_pool_held");
	f.phase = "serving";
	f.score = LMCACHE_HELD;
	rl_fig(&f, "pool_failure_ooms", (double)n);
	snprintf(f.title, sizeof(f.title), "LMCache's CPU pool had nothing left to evict while"
		 " serving: the chunks in it were all still held -- not released (a leak),"
		 " unless as many requests held chunks at once");
	rl_advice(&f, "LMCache evicts cached chunks when its pool is full; it fails only when"
		  " every chunk is pinned or referenced. Compare LMCache's local-CPU usage"
		  " (its Prometheus gauges) across requests: climbing at a steady load is"
		  " chunks not released, fixed by a newer LMCache release (restarting returns"
		  " the pool); flat and high with many requests in flight is the load, which"
		  " a larger max_local_cpu_size or fewer concurrent requests answers.");
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "event", ev, "LMCache's allocation failure") < 0)
		return -1;
	return 1;
}

int rule_kvleak(struct rule_ctx *c)
{
	int r = sglang_check(c);

	if (r != 0)
		return r;
	return lmcache_held(c);
}
