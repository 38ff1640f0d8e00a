/*
 * startup_room.c -- a start-up OOM whose own figures show the memory was
 * there (see startup_phase.h). "Before any request was served, so the
 * configuration does not fit" holds only when the card was full: where
 * the failure states that its request fits in the memory free when it
 * failed (or that half the card or more was free), or where the backend
 * refused one buffer as larger than its per-allocation limit, the budget
 * knobs are not the limit and lowering them is no fix. Real cases:
 *
 *  - TensorRT-LLM's executor-creation table (mlcommons/inference#2501):
 *    the KV cache could not be created with 200.47 of 276.50 GiB free, and
 *    lowering the cache's memory fraction to 0.10 still failed;
 *  - (the converse) a PyTorch process capped by
 *    set_per_process_memory_fraction whose reserve and request exceed
 *    its "C allowed;" cap with the rest of the card free (a quantized
 *    load on a T4 capped at half the card): the cap ran out, the budget;
 *  - llama.cpp's Vulkan backend (ggml-org/llama.cpp#18160, labelled a
 *    regression): "Requested buffer size exceeds device buffer size
 *    limit" for an 8.15 GiB compute buffer that an earlier build placed;
 *    a smaller context worked.
 *
 * One cache sizes itself from the free memory: TensorRT-LLM's KV cache
 * takes kv_cache_config.free_gpu_memory_fraction (0.9 unless set) of the
 * memory free once the model and the profiling run are done
 * (_torch/pyexecutor/_util.py _cal_max_tokens, cpp/tensorrt_llm/
 * batch_manager/kvCacheManager.cpp, v0.20-v1.x). Its executor table's
 * "free before the KV cache" is then what the cache was cut from, not
 * room left over: the fraction, not the free figure, says whether the
 * budget took the card. At the default it leaves a tenth to everything
 * else (TensorRT-LLM 1.0rc tp8, NVIDIA/TensorRT-LLM#5872: a budget that
 * does not fit, its own table's advice "reduce free_gpu_memory_fraction");
 * set to half or less and still failing (#2501's 0.10) it is not the
 * budget.
 *
 * What is left, then, is named as such: a per-allocation limit,
 * fragmentation, another process taking the memory meanwhile, or a
 * regression in the engine or driver.
 */
#include "analyzer/rules/startup_phase.h"

#include <stdio.h>
#include <string.h>

#define ROOM_SLACK 0.9         /* a request within 90% of free should fit */
#define ROOM_HALF 0.5          /* free share of the card that is no shortage */

/* The backends' words for one buffer beyond a per-allocation limit (as
 * opposed to memory running out): ggml's Vulkan backend ("Requested
 * buffer size exceeds device buffer size limit", "... memory allocation
 * limit"), the Vulkan property it is checked against. */
static int limit_wording(const char *t)
{
	static const char *const w[] = { "buffer size limit", "allocation limit",
					 "maxMemoryAllocationSize", "maxBufferSize", NULL };
	int i;

	for (i = 0; w[i]; i++)
		if (strstr(t, w[i]))
			return 1;
	return 0;
}

double rl_trt_kv_fraction(const struct rl_engine *e, int n, int *stated)
{
	int i;

	for (i = 0; i < n; i++) {
		enum engine_kind k = engine_kind_from_name(e[i].engine);
		if ((k == ENGINE_TRTLLM || k == ENGINE_TRITON) && rl_ef_known(&e[i], RL_EF_KV_FRACTION)) {
			*stated = 1;
			return e[i].f[RL_EF_KV_FRACTION];
		}
	}
	*stated = 0;
	return TRT_KV_FRACTION_DEFAULT;
}

/* TensorRT-LLM's KV cache (the family "trt" at kv_alloc): sized from the
 * free memory, so room only when its fraction leaves half of it to the
 * rest. RL_ROOM_FITS (the figures added to f), RL_ROOM_NONE, or -1 when
 * the engines cannot be read (recorded in c). */
static int trt_cache_room(struct rule_ctx *c, struct rl_phase *p, struct rl_finding *f)
{
	struct rl_engine e[RL_MAX_ENGINES];
	int n = rl_engines_read(c, e, RL_MAX_ENGINES), stated;
	double frac;

	if (n < 0)
		return -1;
	frac = rl_trt_kv_fraction(e, n, &stated);
	if (!stated || frac > ROOM_HALF || p->free < 0)
		return RL_ROOM_NONE;
	p->kv_fraction = frac;
	rl_fig(f, "kv_cache_fraction", frac);
	rl_fig(f, "free_bytes", p->free);
	if (p->total > 0)
		rl_fig(f, "total_bytes", p->total);
	return RL_ROOM_FITS;
}

enum rl_room rl_phase_room(struct rule_ctx *c, struct rl_phase *p, struct rl_finding *f)
{
	double req = p->req, free = p->free, total = p->total;
	struct rl_card k;
	int r;

	if (!p->startup)
		return RL_ROOM_NONE;
	if (limit_wording(p->text)) {
		if (req > 0)
			rl_fig(f, "requested_bytes", req);
		return RL_ROOM_LIMIT;
	}
	if (!strcmp(p->family, "trt") && !strcmp(p->phase, "kv_alloc"))
		return (r = trt_cache_room(c, p, f)) < 0 ? RL_ROOM_NONE : (enum rl_room)r;
	/* PyTorch's message states the card: its free figure and request;
	 * and, where set_per_process_memory_fraction capped the process, the
	 * cap ("C allowed;", c10/cuda/CUDACachingAllocator.cpp@v2.6.0
	 * allowed_info). A request the cap could not hold beside what the
	 * allocator reserved ran out of the memory this process may use,
	 * whatever the card had free: the budget, not room */
	if (rl_card_read(c, &k) == 1 && k.limit > 0 && k.limit < k.total && k.reserved >= 0 &&
	    (req > 0 ? req : k.req) > 0 && k.reserved + (req > 0 ? req : k.req) > k.limit)
		return RL_ROOM_NONE;
	if (free < 0 && rl_card_read(c, &k) == 1) {
		if (k.free >= 0)
			free = k.free;
		if (k.total > 0)
			total = k.total;
		if (req <= 0 && k.req > 0)
			req = k.req;
	}
	if (free < 0)
		return RL_ROOM_NONE;
	if (req > 0 ? req <= ROOM_SLACK * free : total > 0 && free >= ROOM_HALF * total) {
		p->req = req;
		p->free = free;
		p->total = total;
		rl_fig(f, "free_bytes", free);
		if (total > 0)
			rl_fig(f, "total_bytes", total);
		if (req > 0)
			rl_fig(f, "requested_bytes", req);
		return RL_ROOM_FITS;
	}
	return RL_ROOM_NONE;
}

const char *rl_phase_room_advise(const struct rl_phase *p, enum rl_room r, struct rl_finding *f)
{
	char b1[32], b2[32], b3[32];
	const char *doing = rl_phase_doing_of(p);

	if (r == RL_ROOM_LIMIT) {
		snprintf(f->title, sizeof(f->title), "The OOM came at start-up, while %s, but not for want"
			 " of memory: the backend refused one buffer%s%s as larger than its"
			 " per-allocation limit", doing, p->req > 0 ? " of " : "",
			 p->req > 0 ? rl_bytes(p->req, b1, sizeof(b1)) : "");
		rl_advice(f, "The card's memory is not the limit, one buffer's size is: keep each"
			  " buffer under the backend's per-allocation limit (the compute buffer"
			  " grows with the context and the micro-batch: --ctx-size, --ubatch-size;"
			  " with several cards, pipeline parallelism multiplies it). If the same"
			  " configuration loaded with an earlier build or driver, it is a"
			  " regression: keep that build and report it.");
		return "allocation_limit";
	}
	if (p->req > 0 && p->free >= 0)
		snprintf(f->title, sizeof(f->title), "The OOM came at start-up, while %s, but its own"
			 " figures show room: it asked for %s with %s free%s%s", doing,
			 rl_bytes(p->req, b1, sizeof(b1)), rl_bytes(p->free, b2, sizeof(b2)),
			 p->total > 0 ? " of " : "", p->total > 0 ? rl_bytes(p->total, b3,
			 sizeof(b3)) : "");
	else if (p->free >= 0)
		snprintf(f->title, sizeof(f->title), "The OOM came at start-up, while %s, but its own"
			 " figures show room: %s of %s was free when it failed%s", doing,
			 rl_bytes(p->free, b2, sizeof(b2)), rl_bytes(p->total, b3, sizeof(b3)),
			 p->kv_fraction > 0 ? ", the KV cache set to take only a share of it" : "");
	if (p->kv_fraction > 0)
		rl_advice(f, "The KV cache was set to take %.2f of the free memory and still"
			  " failed: lowering that share further is no fix.", p->kv_fraction);
	else
		snprintf(f->title, sizeof(f->title), "The OOM came at start-up, while %s, but the"
			 " message's own figures show the request fitted in the memory free", doing);
	rl_advice(f, "Not a budget that does not fit: the memory was free when the allocation"
		  " failed, so lowering the engine's memory fraction or the model length is no fix."
		  " What the figures leave out is the cause: a per-allocation limit of the driver or"
		  " the runtime, fragmentation (no block of the size asked), another process taking"
		  " the memory meanwhile, or a regression of the engine's version (the previous"
		  " release, the same configuration, would say).");
	return "request_fits_free";
}
