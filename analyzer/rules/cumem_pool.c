/*
 * cumem_pool.c -- misconfiguration of vLLM's sleep-mode memory pool: the
 * memory failure of row 1 of table oom was raised by vLLM's cumem
 * allocator (csrc/cumem_allocator.cpp, whose CUDA_CHECK prints "CUDA
 * Error: out of memory at <file>:<line>" with its own file name).
 *
 * That allocator is a CUDAPluggableAllocator that vLLM installs only for
 * its own pools (vllm/device_allocator/cumem.py CuMemAllocator,
 * use_memory_pool; vllm/v1/worker/gpu_worker.py at v0.8.0 through
 * v0.11: load_model under tag "weights", initialize_from_config's KV
 * cache under tag "kv_cache", when enable_sleep_mode is on, and later
 * --enable-cumem-allocator for the KV cache alone). wake_up() maps every
 * handle of those pools back at once (cumem.py create_and_map). So
 * nothing but the model's weights and the KV cache, whose size
 * gpu_memory_utilization fixed at start, fails there: the configured pool
 * does not fit what the card had free at that moment (in an RL loop, the
 * trainer's tensors beside the sleeping engine). No request's load
 * changes it, so this is a misconfiguration, whatever the phase; the knob
 * is gpu_memory_utilization (the KV pool's share), or the memory the
 * co-located process keeps when the engine wakes. The files state no
 * figure of the pool, so no value is given.
 *
 * The same allocator can fail with an error of its own (its CUDA_CHECK
 * line "CUDA Error: invalid argument at .../cumem_allocator.cpp:N", kept
 * as an engine_error of kind cumem_error): its malloc then returns no
 * memory and PyTorch raises out of memory whatever is free (set 11: a
 * ROCm MI300X with 189 GiB free refused 186 MiB at load_model). That is
 * the sleep-mode configuration failing on this platform, before any
 * request, named misconfig (sleep_allocator_failed) in the OOM's phase;
 * the knob is enable_sleep_mode, not any size.
 */
#include "analyzer/rules/rulelib.h"

#include <stdio.h>
#include <string.h>

#define CUMEM_SCORE 0.7   /* the allocator's own file in the message */

/* Row 1 of oom when its event's text names the cumem allocator: its
 * phase, event id and how many times the message repeated. 1 found, 0
 * not, -1 failed. */
static int read_oom(struct rule_ctx *c, char *phase, size_t n, int64_t *event_id,
		    int64_t *repeats)
{
	sqlite3_stmt *st;

	if (rl_first_row(c, "SELECT coalesce(o.phase, 'unknown'), o.event_id,"
			 " coalesce(json_extract(e.data, '$.repeats'), 0)"
			 " FROM oom o JOIN event e ON e.id = o.event_id"
			 " WHERE o.id = 1 AND o.kind = 'mem_failure' AND json_valid(e.data)"
			 " AND lower(json_extract(e.data, '$.text')) LIKE '%cumem_allocator.cpp%'",
			 &st) <= 0)
		return c->failed ? -1 : 0;
	snprintf(phase, n, "%s", (const char *)sqlite3_column_text(st, 0));
	*event_id = sqlite3_column_int64(st, 1);
	*repeats = sqlite3_column_int64(st, 2);
	sqlite3_finalize(st);
	return c->failed ? -1 : 1;
}

/* Writes one misconfig finding (cause sleep_allocator_failed) when the
 * files hold the cumem allocator's own non-memory error (an engine_error
 * of kind cumem_error) and row 1 of oom is a memory failure: the
 * allocator's refusal surfaced as the OOM. 1 written, 0 none, -1
 * failed. */
static int allocator_error(struct rule_ctx *c)
{
	struct rl_finding f;
	char phase[24] = "unknown", text[200] = "";
	int64_t err_id = 0, oom_ev = 0, fid;
	int found = 0;
	sqlite3_stmt *st = rl_prepare(c,
		"SELECT e.id, coalesce(json_extract(e.data, '$.text'), ''),"
		" coalesce(o.phase, 'unknown'), o.event_id"
		" FROM event e, oom o WHERE o.id = 1 AND e.kind = 'engine_error'"
		" AND json_valid(e.data) AND json_extract(e.data, '$.error') = 'cumem_error'"
		" ORDER BY e.id LIMIT 1");

	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		err_id = sqlite3_column_int64(st, 0);
		snprintf(text, sizeof(text), "%s", (const char *)sqlite3_column_text(st, 1));
		snprintf(phase, sizeof(phase), "%s", (const char *)sqlite3_column_text(st, 2));
		oom_ev = sqlite3_column_int64(st, 3);
		found = 1;
	}
	sqlite3_finalize(st);
	if (c->failed)
		return -1;
	if (!found)
		return 0;
	rl_finding_init(&f, "cumem_pool", "misconfig", "sleep_allocator_failed");
	f.score = CUMEM_SCORE;
	if (strcmp(phase, "unknown"))
		f.phase = phase;
	snprintf(f.title, sizeof(f.title), "vLLM's sleep-mode allocator (cumem) failed with an"
		 " error of its own, and the failure surfaced as out of memory");
	rl_advice(&f, "The allocator's own line (\"%.120s\") is not a lack of memory: its"
		  " malloc returned nothing and PyTorch reported out of memory whatever was"
		  " free.", text);
	rl_advice(&f, "Start without enable_sleep_mode (the allocator serves only its pools),"
		  " or on a vLLM and driver build whose cumem allocator supports this"
		  " platform; no memory setting changes it.");
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "event", err_id, "the cumem allocator's own error") < 0)
		return -1;
	if (oom_ev > 0 && rl_evidence(c, fid, "event", oom_ev, "the out-of-memory it surfaced as") < 0)
		return -1;
	return 1;
}

/* Writes one misconfig finding (cause sleep_pool_does_not_fit) when row 1
 * of oom is a failure of vLLM's cumem allocator. 1 written, 0 none, -1
 * failed. */
int rule_cumem_pool(struct rule_ctx *c)
{
	struct rl_finding f;
	char phase[24];
	int64_t event_id = 0, repeats = 0, fid;
	int r;

	if ((r = read_oom(c, phase, sizeof(phase), &event_id, &repeats)) < 0)
		return -1;
	if (r == 0)
		return allocator_error(c);
	rl_finding_init(&f, "cumem_pool", "misconfig", "sleep_pool_does_not_fit");
	f.score = CUMEM_SCORE;
	if (strcmp(phase, "unknown"))
		f.phase = phase;
	if (repeats > 0)
		rl_fig(&f, "repeats", (double)repeats);
	snprintf(f.title, sizeof(f.title), "vLLM's sleep-mode allocator (cumem) could not map"
		 " its pool: the weights and KV cache it holds did not fit the card");
	rl_advice(&f, "That allocator holds only vLLM's own pools, the model's weights and the"
		  " KV cache whose size gpu_memory_utilization set at start, and wake_up maps"
		  " them back at once: what else holds the card then (a trainer beside the"
		  " sleeping engine in an RL loop) must leave room for the whole pool.");
	rl_advice(&f, "Lower gpu_memory_utilization (the KV pool's share of the card), or"
		  " release the co-located process's memory (torch.cuda.empty_cache()) before"
		  " the engine wakes; no load setting changes it.");
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "event", event_id, "the failure vLLM's cumem"
				   " allocator raised") < 0)
		return -1;
	return 1;
}
