/*
 * engine.c -- misconfiguration read from a serving engine's own memory
 * accounting (the engine table, engine_facts.h): what the engine set
 * aside at start-up and the errors it raised say which setting does not
 * fit, and by how much. Each cause is one finding with the value to set,
 * computed from the engine's figures:
 *
 *  - kv_cache_none: no memory left for the KV cache (# GPU blocks <= 0,
 *    negative available KV cache memory, "No available memory for the
 *    cache blocks"): the gpu_memory_utilization that leaves room for it
 *    (weights + activation peak + non-torch memory + at least one
 *    max-length request or 1 GiB of KV cache), or the tensor parallelism
 *    the model needs when no utilization fits;
 *  - max_model_len: max_model_len longer than the KV cache holds (the
 *    engine's error, maximum concurrency below 1x, else max_model_len
 *    > the KV cache's tokens): the max_model_len to set (the tokens the KV
 *    cache holds), and the utilization that would hold one request;
 *  - engine_budget: weights + activations + non-torch + KV cache, with
 *    the CUDA graphs captured outside that budget, more than the card had
 *    free, and an OOM to show it: the utilization that leaves the graphs
 *    room;
 *  - prefill_tokens: TGI's warm-up could not hold its prefill batch: half
 *    the max_batch_prefill_tokens;
 *  - kv_pool: SGLang ran out of KV cache while decoding: what it admitted
 *    does not fit its pool (or the load outgrew it: below 0.7 without a
 *    history of running requests);
 *  - library_oom: NCCL, cuBLAS or TensorRT-LLM found no memory for its own
 *    buffers, outside PyTorch's cache, and no PyTorch message says more:
 *    the card was full (0.5, the likeliest reading); room to leave.
 *
 * The first four fail at start-up (the engine's own check or its
 * warm-up): the configuration, not the traffic, failed; they score 0.85-0.9.
 * The limit the engine's free memory at start-up puts on
 * gpu_memory_utilization (another tenant) is limits.c's.
 */
#include "analyzer/rules/engine_facts.h"
#include "analyzer/rules/startup_phase.h"
#include "analyzer/derive/servwhatif.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define KV_MIN_BYTES (1 * GIB)    /* the least KV cache worth starting with */
#define UTIL_MAX 0.95             /* the highest utilization worth advising */
#define ENGINE_PROVEN 0.9         /* the engine's own error says it */

#define F(e, k) ((e)->f[RL_EF_##k])
#define KNOWN(e, k) rl_ef_known(e, RL_EF_##k)

/* The engine's figures on a finding (the ones its log states). */
static void engine_figures(struct rl_finding *f, const struct rl_engine *e)
{
	static const char *const names[RL_EF__COUNT] = {
		"total_bytes", "free_at_start_bytes", "gpu_memory_utilization", "requested_bytes",
		"weights_bytes", "activation_peak_bytes", "torch_peak_bytes", "non_torch_bytes",
		"cuda_graph_bytes", "kv_cache_bytes", "kv_cache_tokens", "gpu_blocks", "cpu_blocks",
		"max_concurrency", "max_num_seqs", "max_model_len", "max_batch_prefill_tokens",
		"gpu_layers", "model_layers", "compute_buffer_bytes", "required_full_bytes" };
	int k;

	for (k = 0; k < RL_EF__COUNT; k++)
		if (rl_ef_known(e, (enum rl_ef)k))
			rl_fig(f, names[k], e->f[k]);
}

/* Write f with the engine row as evidence; 1, or -1. */
static int ewrite(struct rule_ctx *c, struct rl_finding *f, const struct rl_engine *e,
		  const char *note)
{
	int64_t fid = rl_finding_write(c, f);

	if (fid < 0 || (e->id > 0 && rl_evidence(c, fid, "engine", e->id, note) < 0))
		return -1;
	return 1;
}

/* Bytes of KV cache per token, from any instance that states both. */
static double bytes_per_token(const struct rl_engine *e, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (KNOWN(&e[i], KV) && KNOWN(&e[i], KV_TOKENS) && F(&e[i], KV) > 0 &&
		    F(&e[i], KV_TOKENS) > 0)
			return F(&e[i], KV) / F(&e[i], KV_TOKENS);
	return NAN;
}

/* What the engine holds outside the KV cache: weights + activation peak
 * (or the torch peak, which is both) + non-torch memory; NAN without the
 * weights. */
static double fixed_need(const struct rl_engine *e)
{
	double w = KNOWN(e, TORCH_PEAK) ? F(e, TORCH_PEAK) : F(e, WEIGHTS);

	if (!isfinite(w))
		return NAN;
	if (!KNOWN(e, TORCH_PEAK) && KNOWN(e, ACT))
		w += F(e, ACT);
	return w + (KNOWN(e, NON_TORCH) ? F(e, NON_TORCH) : 0);
}

static double up2(double x)
{
	return ceil(x * 100 - 1e-9) / 100;
}

static double down2(double x)
{
	return floor(x * 100 + 1e-9) / 100;
}

/* ---- kv_cache_none ---- */

static int kv_none_applies(const struct rl_engine *e)
{
	return (e->errors & RL_EE_KV_NO_MEMORY) || (KNOWN(e, BLOCKS) && F(e, BLOCKS) <= 0) ||
	       (KNOWN(e, KV) && F(e, KV) <= 0);
}

/* The engine of the instance, else the incident's (ENGINE_NONE: none
 * named). 1 from trt_engine when it runs TensorRT-LLM, alone or
 * under Triton's backend: its KV cache takes a share of the memory left
 * free after the weights, not of the card. */
static enum engine_kind kind_of(struct rule_ctx *c, const struct rl_engine *e)
{
	enum engine_kind k = engine_kind_from_name(e->engine);

	return engine_kind_named(k) ? k : rl_engine_kind(c);
}

static int trt_engine(struct rule_ctx *c, const struct rl_engine *e)
{
	enum engine_kind k = kind_of(c, e);

	return k == ENGINE_TRTLLM || k == ENGINE_TRITON;
}

/* kv_cache_none's advice for TensorRT-LLM: its own knobs (the paged KV
 * cache takes kv_cache_config.free_gpu_memory_fraction of the memory
 * free after the weights and activations, 0.9 by default; one sequence
 * of max_seq_len must fit it). */
static void trt_kv_advice(struct rule_ctx *c, struct rl_finding *f, const struct rl_engine *e)
{
	const char *frac = rl_flag_of(c, e->engine, KR_MEM_FRACTION);
	double u;

	if (KNOWN(e, UTIL) && F(e, UTIL) < UTIL_MAX) {
		u = up2(fmin(UTIL_MAX, F(e, UTIL) + 0.05));
		rl_knob(f, "gpu_memory_utilization", frac, u, "Raise %s from %.2f to %.2f so the"
			" paged KV cache holds at least one sequence.", frac, F(e, UTIL), u);
	} else {
		rl_advice(f, "Give the paged KV cache room for one sequence: raise %s"
			  " (kv_cache_free_gpu_mem_fraction in the Triton backend and older releases;"
			  " 0.9 by default) or max_tokens_in_paged_kv_cache.", frac);
	}
	rl_advice(f, "Or shorten the sequence it must hold: a lower %s (max_input_len +"
		  " max_output_len when the engine was built); a smaller %s or %s lowers the"
		  " activations reserved beside the cache.", rl_flag_of(c, e->engine, KR_MAX_LEN),
		  rl_flag_of(c, e->engine, KR_MAX_SEQS), rl_flag_of(c, e->engine, KR_BATCH_TOKENS));
}

/* The value kv_cache_none advises, from the engine's figures: the
 * utilization, else the tensor parallelism, else a step up. */
static void kv_none_knob(struct rule_ctx *c, struct rl_finding *f, const struct rl_engine *e,
			 double bpt)
{
	double total = F(e, TOTAL), fixed = fixed_need(e), kv_min = KV_MIN_BYTES, u, tp;
	const char *util = rl_flag_of(c, e->engine, KR_MEM_FRACTION);
	const char *tpf = rl_flag_of(c, e->engine, KR_TP);
	char b1[32], b2[32], b3[32];

	if (trt_engine(c, e)) {
		trt_kv_advice(c, f, e);
		return;
	}
	if (!util) {   /* llama.cpp, Ollama: no share of the card to set */
		rl_advice(f, "Offload fewer layers (%s) or a shorter context (%s) so the KV cache"
			  " fits beside the weights.", rl_flag_of(c, e->engine, KR_GPU_LAYERS),
			  rl_flag_of(c, e->engine, KR_MAX_LEN));
		return;
	}

	if (KNOWN(e, MAX_LEN) && isfinite(bpt) && F(e, MAX_LEN) * bpt > kv_min)
		kv_min = F(e, MAX_LEN) * bpt;
	if (!isfinite(total) && rl_gpu_total(c, &total) < 0)
		total = NAN;
	if (isfinite(total) && total > 0 && isfinite(fixed)) {
		u = up2((fixed + kv_min) / total);
		if (KNOWN(e, UTIL) && u <= F(e, UTIL))
			u = up2(F(e, UTIL) + 0.01);
		rl_fig(f, "needed_outside_kv_bytes", fixed);
		rl_fig(f, "kv_cache_min_bytes", kv_min);
		if (u <= UTIL_MAX) {
			char from[40] = "";
			if (KNOWN(e, UTIL))
				snprintf(from, sizeof(from), " (from %.2f)", F(e, UTIL));
			rl_knob(f, "gpu_memory_utilization", util, u,
				"Set %s to %.2f%s: the weights, the activation"
				" peak and the memory outside PyTorch take %s of the %s card, and %.2f"
				" leaves %s for the KV cache (%s).", util, u, from,
				rl_bytes(fixed, b1, sizeof(b1)), rl_bytes(total, b2, sizeof(b2)), u,
				rl_bytes(u * total - fixed, b3, sizeof(b3)),
				kv_min > KV_MIN_BYTES ? "one request of max_model_len" : "at least 1 GiB");
			return;
		}
		if (rl_run_meta_num(c, "server.tensor_parallel_size", &tp) < 0 || tp < 1)
			tp = 1;
		tp *= ceil((fixed + kv_min) / (UTIL_MAX * total));
		rl_knob(f, "tensor_parallel_size", tpf ? tpf : "--tensor-parallel-size", tp,
			"The model does not fit this card with room for a KV cache: %s outside the"
			" KV cache of %s. Spread it over %.0f GPUs (%s %.0f), or"
			" quantise the weights (8-bit halves 16-bit weights).",
			rl_bytes(fixed, b1, sizeof(b1)), rl_bytes(total, b2, sizeof(b2)), tp,
			tpf ? tpf : "--tensor-parallel-size", tp);
		return;
	}
	if (KNOWN(e, UTIL) && F(e, UTIL) < UTIL_MAX) {
		u = up2(fmin(UTIL_MAX, F(e, UTIL) + 0.05));
		rl_knob(f, "gpu_memory_utilization", util, u,
			"Raise %s from %.2f to %.2f as a first step: the log does"
			" not give the weights and the activation peak that would size it (the"
			" engine's memory profiling line does).", util, F(e, UTIL), u);
		return;
	}
	rl_advice(f, "The log does not give the card's size, the weights or the activation peak"
		  " that would size the fix (the engine's memory profiling line gives them).");
}

static int kv_cache_none(struct rule_ctx *c, const struct rl_engine *e, int n)
{
	const struct rl_engine *x = rl_engine_pick(e, n, kv_none_applies, 0);
	struct rl_finding f;
	char what[120], lab[100], b1[32];

	if (!x)
		return 0;
	rl_finding_init(&f, "engine", "misconfig", "kv_cache_none");
	f.score = ENGINE_PROVEN;
	engine_figures(&f, x);
	if (KNOWN(x, BLOCKS) && F(x, BLOCKS) <= 0)
		snprintf(what, sizeof(what), "# GPU blocks: %.0f", F(x, BLOCKS));
	else if (KNOWN(x, KV) && F(x, KV) <= 0)
		snprintf(what, sizeof(what), "KV cache memory %s", rl_bytes(F(x, KV), b1, sizeof(b1)));
	else if (trt_engine(c, x))
		snprintf(what, sizeof(what), "maxTokensInPagedKvCache is below beam_width x"
			 " tokensPerBlock x maxBlocksPerSeq");
	else
		snprintf(what, sizeof(what), "the engine found no memory for the cache blocks");
	snprintf(f.title, sizeof(f.title), "%s at start-up%s: %s; the configuration failed, not the"
		 " traffic", trt_engine(c, x) ? "The paged KV cache could not hold one sequence" :
		 "No memory was left for the KV cache", rl_engine_label(x, lab, sizeof(lab)), what);
	kv_none_knob(c, &f, x, bytes_per_token(e, n));
	if (!trt_engine(c, x))
		rl_advice(&f, "A lower %s (or %s) lowers the activation peak the engine profiles;"
			  " quantised weights or a larger card leave more for the cache.",
			  rl_flag_of(c, x->engine, KR_BATCH_TOKENS),
			  rl_flag_of(c, x->engine, KR_MAX_SEQS));
	return ewrite(c, &f, x, "the engine's accounting at start-up");
}

/* ---- max_model_len ---- */

/* The engine's error, or its maximum concurrency below 1x; without that
 * figure, max_model_len above the KV cache's tokens (models with sliding
 * windows or state layers serve more than their tokens suggest: the
 * engine's concurrency is the authority when it is printed). */
static int max_len_applies(const struct rl_engine *e)
{
	if (e->errors & RL_EE_MAX_LEN)
		return 1;
	if (KNOWN(e, MAX_CONC) && F(e, MAX_CONC) > 0)
		return F(e, MAX_CONC) < 1;
	return KNOWN(e, MAX_LEN) && KNOWN(e, KV_TOKENS) && F(e, KV_TOKENS) > 0 &&
	       F(e, MAX_LEN) > F(e, KV_TOKENS);
}

/* The utilization that would hold one request of max_model_len. */
static void max_len_util(struct rule_ctx *c, struct rl_finding *f, const struct rl_engine *e,
			 double tokens)
{
	const char *util = rl_flag_of(c, e->engine, KR_MEM_FRACTION);

	double bpt, extra, u;
	char b1[32];

	if (!KNOWN(e, KV) || F(e, KV) <= 0 || !KNOWN(e, UTIL) || !KNOWN(e, TOTAL) || tokens <= 0)
		return;
	bpt = F(e, KV) / tokens;
	extra = (F(e, MAX_LEN) - tokens) * bpt;
	u = up2(F(e, UTIL) + extra / F(e, TOTAL));
	rl_fig(f, "kv_bytes_per_token", round(bpt));
	if (u <= UTIL_MAX && util) {
		rl_fig(f, "utilization_for_max_len", u);
		rl_advice(f, "Or keep max_model_len and raise %s from %.2f to"
			  " %.2f (%s more KV cache at %.0f bytes a token).", util, F(e, UTIL), u,
			  rl_bytes(extra, b1, sizeof(b1)), bpt);
	}
}

static int max_model_len(struct rule_ctx *c, const struct rl_engine *e, int n)
{
	const struct rl_engine *x = rl_engine_pick(e, n, max_len_applies, 0);
	struct rl_finding f;
	double tokens = NAN, len;
	const char *mlen, *util;
	char lab[100];

	if (!x)
		return 0;
	len = F(x, MAX_LEN);
	if (KNOWN(x, KV_TOKENS) && F(x, KV_TOKENS) > 0)
		tokens = F(x, KV_TOKENS);
	else if (KNOWN(x, MAX_CONC) && isfinite(len) && F(x, MAX_CONC) > 0)
		tokens = floor(F(x, MAX_CONC) * len);
	mlen = rl_flag_of(c, x->engine, KR_MAX_LEN);
	util = rl_flag_of(c, x->engine, KR_MEM_FRACTION);
	rl_finding_init(&f, "engine", "misconfig", "max_model_len");
	f.score = x->errors & RL_EE_MAX_LEN ? ENGINE_PROVEN : 0.85;
	engine_figures(&f, x);
	if (isfinite(tokens) && isfinite(len)) {
		snprintf(f.title, sizeof(f.title), "max_model_len %.0f is longer than the KV cache"
			 " holds (%.0f tokens)%s: not one request of that length fits; the"
			 " configuration failed, not the traffic", len, tokens,
			 rl_engine_label(x, lab, sizeof(lab)));
		rl_knob(&f, "max_model_len", mlen, tokens,
			"Set %s to %.0f, the most the KV cache holds (from %.0f).",
			mlen, tokens, len);
		max_len_util(c, &f, x, tokens);
	} else {
		snprintf(f.title, sizeof(f.title), "max_model_len%s%.0f is longer than the KV cache"
			 " holds%s; the configuration failed, not the traffic",
			 isfinite(len) ? " " : "", isfinite(len) ? len : 0,
			 rl_engine_label(x, lab, sizeof(lab)));
		rl_advice(&f, "Lower %s to the tokens the KV cache holds (the engine's KV cache"
			  " size line gives the value; it is not in this log)%s%s.", mlen,
			  util ? ", or raise " : "", util ? util : "");
	}
	return ewrite(c, &f, x, "the engine's accounting at start-up");
}

/* ---- engine_budget: CUDA graphs beyond what was free ---- */

/* What the budget and the graphs need beyond the room; NAN when the
 * figures do not say. */
static double over_budget(const struct rl_engine *e, double *in, double *room)
{
	double fixed = fixed_need(e);

	if (!KNOWN(e, TOTAL) || !isfinite(fixed) || !KNOWN(e, KV) || F(e, KV) <= 0 ||
	    !KNOWN(e, GRAPHS) || F(e, GRAPHS) <= 0)
		return NAN;
	*in = fixed + F(e, KV);
	*room = KNOWN(e, FREE) && F(e, FREE) > 0 ? F(e, FREE) : F(e, TOTAL);
	return *in + F(e, GRAPHS) - *room;
}

static int budget_applies(const struct rl_engine *e)
{
	double in, room, over = over_budget(e, &in, &room);

	return isfinite(over) && over > 0.01 * F(e, TOTAL) &&
	       (e->errors & (RL_EE_GRAPH_OOM | RL_EE_CUDA_OOM));
}

static int engine_budget(struct rule_ctx *c, const struct rl_engine *e, int n)
{
	const struct rl_engine *x = rl_engine_pick(e, n, budget_applies, 0);
	struct rl_finding f;
	double in, room, over, u, util;
	const char *uflag;
	char lab[100], b1[32], b2[32], b3[32], b4[32];

	if (!x)
		return 0;
	uflag = rl_flag_of(c, x->engine, KR_MEM_FRACTION);
	over = over_budget(x, &in, &room);
	util = KNOWN(x, UTIL) ? F(x, UTIL) : KNOWN(x, REQUESTED) ? F(x, REQUESTED) / F(x, TOTAL) : NAN;
	rl_finding_init(&f, "engine", "misconfig", "engine_budget");
	f.score = x->errors & RL_EE_GRAPH_OOM ? 0.85 : 0.75;
	engine_figures(&f, x);
	rl_fig(&f, "budget_bytes", in);
	rl_fig(&f, "room_bytes", room);
	rl_fig(&f, "over_bytes", over);
	snprintf(f.title, sizeof(f.title), "The engine's budget (%s: weights, activations, KV cache)"
		 " and its CUDA graphs (%s) need %s more than the %s %s%s; the configuration"
		 " failed, not the traffic", rl_bytes(in, b1, sizeof(b1)),
		 rl_bytes(F(x, GRAPHS), b2, sizeof(b2)), rl_bytes(over, b3, sizeof(b3)),
		 rl_bytes(room, b4, sizeof(b4)), KNOWN(x, FREE) ? "free at start-up" : "card",
		 rl_engine_label(x, lab, sizeof(lab)));
	u = down2((room - F(x, GRAPHS)) / F(x, TOTAL) - 0.02);
	if (isfinite(util) && u < util && u > 0 && uflag)
		rl_knob(&f, "gpu_memory_utilization", uflag, u,
			"Lower %s from %.2f to %.2f so the CUDA graphs fit"
			" beside the budget (their memory is not part of it in this version).", uflag,
			util, u);
	if (kind_of(c, x) == ENGINE_VLLM || kind_of(c, x) == ENGINE_NONE)
		rl_advice(&f, "Or capture fewer graphs (--max-seq-len-to-capture, a shorter"
			  " cudagraph_capture_sizes list), or none (--enforce-eager).");
	else if (rl_flag_of(c, x->engine, KR_NO_GRAPHS))
		rl_advice(&f, "Or capture fewer graphs, or none (%s).",
			  rl_flag_of(c, x->engine, KR_NO_GRAPHS));
	else
		rl_advice(&f, "Or capture fewer CUDA graphs.");
	return ewrite(c, &f, x, "the engine's accounting at start-up");
}

/* ---- prefill_tokens (TGI's warm-up) ---- */

static int prefill_applies(const struct rl_engine *e)
{
	return (e->errors & RL_EE_PREFILL_OOM) != 0;
}

static int prefill_tokens(struct rule_ctx *c, const struct rl_engine *e, int n)
{
	const struct rl_engine *x = rl_engine_pick(e, n, prefill_applies, 0);
	struct rl_finding f;
	char lab[100];

	if (!x)
		return 0;
	rl_finding_init(&f, "engine", "misconfig", "prefill_tokens");
	f.score = 0.85;
	engine_figures(&f, x);
	if (!strcmp(x->engine, "sglang")) {
		/* SGLang's "Prefill out of memory" is raised by its scheduler
		 * while serving, not by a warm-up: its own knobs, from its
		 * troubleshooting page (lower the prefill chunk, then the
		 * static fraction), never TGI's launcher flags */
		snprintf(f.title, sizeof(f.title), "SGLang could not hold a prefill batch%s;"
			 " its batch budget does not fit the memory the KV pool leaves",
			 rl_engine_label(x, lab, sizeof(lab)));
		rl_advice(&f, "Lower %s (4096 or 2048) so that one prefill chunk fits; then lower"
			  " %s, which leaves more room for the activations beside the KV pool.",
			  rl_flag_of(c, x->engine, KR_BATCH_TOKENS),
			  rl_flag_of(c, x->engine, KR_MEM_FRACTION));
		return ewrite(c, &f, x, "the engine's scheduler");
	}
	if (KNOWN(x, MAX_PREFILL)) {
		snprintf(f.title, sizeof(f.title), "The warm-up could not hold a prefill batch of %.0f"
			 " tokens%s; the configuration failed, not the traffic", F(x, MAX_PREFILL),
			 rl_engine_label(x, lab, sizeof(lab)));
		rl_knob(&f, "max_batch_prefill_tokens", "--max-batch-prefill-tokens",
			floor(F(x, MAX_PREFILL) / 2),
			"Set --max-batch-prefill-tokens to %.0f (half of %.0f: a prefill batch's"
			" activations grow with its tokens), and keep --max-input-tokens at most that.",
			floor(F(x, MAX_PREFILL) / 2), F(x, MAX_PREFILL));
	} else {
		snprintf(f.title, sizeof(f.title), "The warm-up could not hold its prefill batch%s;"
			 " the configuration failed, not the traffic",
			 rl_engine_label(x, lab, sizeof(lab)));
		rl_advice(&f, "Halve --max-batch-prefill-tokens (the launcher's arguments, not in this"
			  " log, give its value).");
	}
	rl_advice(&f, "Quantised weights (--quantize) or more shards (--num-shard) leave more"
		  " room for the batch.");
	return ewrite(c, &f, x, "the engine's warm-up");
}

/* ---- kv_pool (SGLang's decode) ---- */

static int pool_applies(const struct rl_engine *e)
{
	return (e->errors & RL_EE_DECODE_OOM) != 0;
}

/* SGLang's own counts show more tokens available than the step asked
 * for: the pool was not full, its knobs do not help (sglang#4602, fixed
 * by #4913 and #7411: with --page-size above 1 the decode's new pages
 * were under-counted). A low score: the cause is the engine's, and the
 * counts are one line's. */
static int kv_pool_not_full(struct rule_ctx *c, const struct rl_engine *x)
{
	struct rl_finding f;
	char lab[100];

	rl_finding_init(&f, "engine", "misconfig", "kv_pool");
	f.score = 0.3;
	engine_figures(&f, x);
	rl_fig(&f, "asked_tokens", x->kv_asked);
	rl_fig(&f, "available_tokens", x->kv_available);
	snprintf(f.title, sizeof(f.title), "The KV cache pool was not full at the decode OOM%s:"
		 " %.0f tokens asked, %.0f available (the engine's own counts)",
		 rl_engine_label(x, lab, sizeof(lab)), x->kv_asked, x->kv_available);
	rl_advice(&f, "A pool with room that still fails the allocation is the allocator's, not"
		  " the configuration's: SGLang under-counted the decode's new pages with"
		  " --page-size above 1 (sglang#4602, fixed in #4913; #7411): --page-size 1, or a"
		  " release with the fix. Lowering the running requests or raising the memory share"
		  " would not help.");
	return ewrite(c, &f, x, "the engine's decode error and its counts");
}

static int kv_pool(struct rule_ctx *c, const struct rl_engine *e, int n)
{
	const struct rl_engine *x = rl_engine_pick(e, n, pool_applies, 0);
	const char *seqs, *util;
	struct rl_finding f;
	char lab[100];
	double cap;

	if (!x)
		return 0;
	if (!isnan(x->kv_asked) && !isnan(x->kv_available) && x->kv_available >= x->kv_asked)
		return kv_pool_not_full(c, x);
	seqs = rl_flag_of(c, x->engine, KR_MAX_SEQS);
	util = rl_flag_of(c, x->engine, KR_MEM_FRACTION);
	rl_finding_init(&f, "engine", "misconfig", "kv_pool");
	f.score = 0.6;   /* admitted load or a burst: the message cannot tell */
	engine_figures(&f, x);
	if (!isnan(x->kv_asked) && !isnan(x->kv_available)) {   /* its counts: the pool ran out */
		f.score = 0.65;
		rl_fig(&f, "asked_tokens", x->kv_asked);
		rl_fig(&f, "available_tokens", x->kv_available);
	}
	/* the message's first line is all the engine table keeps: "the pool
	 * ran out" is the likeliest reading, not what the figures show */
	snprintf(f.title, sizeof(f.title), "The decode step could not get KV cache tokens%s"
		 " (\"Decode out of memory\"): likeliest, the requests admitted needed more tokens"
		 " than the pool holds", rl_engine_label(x, lab, sizeof(lab)));
	if (KNOWN(x, MAX_SEQS) && F(x, MAX_SEQS) > 1 &&
	    rl_serving_choice(c, "max_num_seqs", &cap) == 0 && cap < F(x, MAX_SEQS))
		/* the serving what-if's cap: one value per knob */
		rl_knob(&f, "max_num_seqs", seqs,
			cap, "Lower %s from %.0f to %.0f (the serving what-if: the recorded load"
			" fits under it with a 0.7 margin).", seqs, F(x, MAX_SEQS), cap);
	else if (KNOWN(x, MAX_SEQS) && F(x, MAX_SEQS) > 1)
		rl_knob(&f, "max_num_seqs", seqs,
			floor(F(x, MAX_SEQS) * 0.7),
			"Lower %s from %.0f to %.0f (x 0.7), so what runs at once fits the pool.",
			seqs, F(x, MAX_SEQS), floor(F(x, MAX_SEQS) * 0.7));
	else if (KNOWN(x, UTIL) && F(x, UTIL) < UTIL_MAX && util)
		rl_knob(&f, "gpu_memory_utilization", util, up2(fmin(UTIL_MAX, F(x, UTIL) + 0.05)),
			"Raise %s from %.2f to %.2f for a larger pool.", util, F(x, UTIL),
			up2(fmin(UTIL_MAX, F(x, UTIL) + 0.05)));
	else
		rl_advice(&f, "Lower %s (or raise %s): the log does not give their values.", seqs,
			  util ? util : "the memory share");
	rl_advice(&f, "The engine's message cannot tell admitted load that never fitted from a"
		  " burst beyond what it carried before: its running requests and token usage over"
		  " time (the Decode batch lines of the hours before) would settle it.");
	/* sglang#4602, fixed by #4913 (and #7411): with --page-size above 1
	 * the decode's new pages were under-counted, and the error came with
	 * more tokens available than it tried to allocate */
	rl_advice(&f, "If the message's own counts show more tokens available than it tried to"
		  " allocate (\"Try to allocate N tokens\" with \"Available tokens: M\", M at least N), the"
		  " pool was not full and none of these knobs helps: SGLang under-counted the"
		  " decode's new pages with --page-size above 1 (sglang#4602, fixed in #4913;"
		  " #7411): --page-size 1, or a release with the fix.");
	return ewrite(c, &f, x, "the engine's decode error");
}

#define LIB_OOM (RL_EE_NCCL_OOM | RL_EE_CUBLAS | RL_EE_TRT_OOM)

/* A CUDA library's own allocation failed, with no PyTorch message to
 * say what the card held (that is capacity.c's). */
static int library_applies(const struct rl_engine *e)
{
	return (e->errors & LIB_OOM) && !(e->errors & RL_EE_CUDA_OOM);
}

static int library_oom(struct rule_ctx *c, const struct rl_engine *e, int n)
{
	const struct rl_engine *x = rl_engine_pick(e, n, library_applies, 0);
	const char *who, *util;
	struct rl_phase ph;
	struct rl_finding f;
	char lab[100];
	double v;

	if (!x)
		return 0;
	/* a PyTorch OOM message elsewhere in the folder tells more */
	if (rl_num(c, &v, "SELECT 1 FROM event WHERE kind = 'torch_oom' LIMIT 1") == 0)
		return 0;
	util = rl_flag_of(c, x->engine, KR_MEM_FRACTION);
	who = x->errors & RL_EE_NCCL_OOM ? "NCCL" : x->errors & RL_EE_CUBLAS ? "cuBLAS" :
	      "TensorRT-LLM";
	rl_finding_init(&f, "engine", "misconfig", "library_oom");
	f.score = 0.5;   /* the card was full; of what, the message does not say */
	engine_figures(&f, x);
	snprintf(f.title, sizeof(f.title), "%s found no GPU memory left for its own buffers%s:"
		 " the card was full before it allocated", who,
		 rl_engine_label(x, lab, sizeof(lab)));
	if (x->errors & RL_EE_NCCL_OOM)
		rl_advice(&f, "NCCL allocates its channels' buffers with cudaMalloc, outside"
			  " PyTorch's cache, after the engine has reserved its share: leave it room"
			  " (about 1-2 GiB per card with many channels), or shrink what NCCL asks"
			  " for (NCCL_BUFFSIZE, fewer channels), and check no other process holds the"
			  " card (nvidia-smi).");
	if (x->errors & RL_EE_CUBLAS)
		rl_advice(&f, "cuBLAS allocates its handle and workspace on the first matrix"
			  " multiply, outside PyTorch's cache: the card was already full. Leave room"
			  " for it (a smaller batch, a lower memory fraction), or make the workspace"
			  " smaller (CUBLAS_WORKSPACE_CONFIG=:4096:8).");
	/* the KV cache's own pools failing (the C++ stack below the message
	 * names KVCacheManager::allocatePools: phase kv_alloc) is the cache
	 * asking more than the card had left, not the buffers after it */
	strcpy(ph.phase, "unknown");
	if ((x->errors & RL_EE_TRT_OOM) && rl_oom_phase(c, &ph) > 0 &&
	    !strcmp(ph.phase, "kv_alloc"))
		rl_advice(&f, "TensorRT-LLM's KV cache pools could not be allocated: the share"
			  " of free memory it takes was more than the card had left after the"
			  " engine's weights and buffers. Lower %s (kv_cache_free_gpu_mem_fraction"
			  " in the Triton backend; 0.9 by default) by 0.1, or cap the cache"
			  " (max_tokens_in_paged_kv_cache).",
			  engine_knob_flag(ENGINE_TRTLLM, KR_MEM_FRACTION));
	else if ((x->errors & RL_EE_TRT_OOM) && !strcmp(ph.phase, "load_weights"))
		rl_advice(&f, "TensorRT-LLM could not load the engine: its weights and the"
			  " device memory it asks for need more than the card had free, before"
			  " any KV cache existed. Build the engine for more GPUs (tensor"
			  " parallelism) or with a quantization that makes it smaller, or free the"
			  " card of other processes (nvidia-smi).");
	else if (x->errors & RL_EE_TRT_OOM)
		rl_advice(&f, "TensorRT-LLM's runtime buffers could not be allocated after the KV"
			  " cache took its share: lower %s (kv_cache_free_gpu_mem_fraction in the"
			  " Triton backend; 0.9 by default) by 0.1, or max_batch_size /"
			  " max_num_tokens.", engine_knob_flag(ENGINE_TRTLLM, KR_MEM_FRACTION));
	if (KNOWN(x, UTIL) && F(x, UTIL) > 0.5 && util)
		rl_knob(&f, "gpu_memory_utilization", util,
			down2(F(x, UTIL) - 0.05), "Lower %s from %.2f to %.2f"
			" to leave that room outside the engine's pool.", util, F(x, UTIL),
			down2(F(x, UTIL) - 0.05));
	rl_advice(&f, "From the library's message alone this is the likeliest reading, not a"
		  " proof: nvidia-smi's per-process use at the failure, or the engine's start-up"
		  " accounting, would show what filled the card.");
	return ewrite(c, &f, x, "the library's allocation error");
}

int rule_engine(struct rule_ctx *c)
{
	struct rl_engine e[RL_MAX_ENGINES];
	int n = rl_engines_read(c, e, RL_MAX_ENGINES), r, found = 0;

	if (n <= 0)
		return n;
	if ((r = kv_cache_none(c, e, n)) < 0)
		return -1;
	found += r;
	if ((r = max_model_len(c, e, n)) < 0)
		return -1;
	found += r;
	if ((r = engine_budget(c, e, n)) < 0)
		return -1;
	found += r;
	if ((r = prefill_tokens(c, e, n)) < 0)
		return -1;
	found += r;
	if ((r = kv_pool(c, e, n)) < 0)
		return -1;
	found += r;
	if ((r = library_oom(c, e, n)) < 0)
		return -1;
	return found + r;
}
