/*
 * pool.c -- the KV pool each engine makes at start-up under its own rule,
 * what follows from it (tokens, blocks, concurrency at max_model_len, the
 * seed's safe concurrency), whether the configuration fits, and when it
 * does not, the knob and a value that does (found by running the model
 * again with that value, never by a formula alone). The rules, with the
 * engines' code they follow, are in docs/plan.md:
 *   vLLM:    kv = total x gpu_memory_utilization - weights - activation peak
 *            - non-torch (worker.determine_available_memory), in blocks of
 *            block_size (kv_cache_utils: num_blocks = kv // page // layers);
 *   SGLang:  kv = free after weights - total x (1 - mem_fraction_static)
 *            (model_runner.profile_max_num_token), page size 1;
 *   TGI:     kv = total x cuda_memory_fraction - weights - warm-up peak;
 *   TensorRT-LLM: kv = kv_cache_free_gpu_mem_fraction x free after load;
 *   Ollama:  kv = num_ctx x num_parallel x per token (fixed, no pool).
 * The non-KV figures (non-torch memory, activation peak) are estimates
 * unless given (--non-kv-bytes); the weights too (--weights-bytes).
 * With the card's free memory at start-up (--free-memory, or
 * --other-process-bytes), each engine's rule for memory other processes
 * hold: free_rule() and vllm_start_need().
 */
#include "analyzer/plan/plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* What SGLang finds in use before it loads the weights: the CUDA context
 * and the distributed init ("Init torch distributed ends. mem usage"):
 * 0.40 GiB on an L4 at TP 4 (22.03 - 21.63, custom all-reduce off), 0.59
 * on an H200 at TP 1 (139.8 - 139.21); 0.5 GiB. */
#define SGLANG_BEFORE_WEIGHTS (0.5 * PL_GIB)

static const char *const engine_names[] = { "vllm", "sglang", "tgi", "tensorrt-llm", "ollama" };

const char *pl_engine_name(enum pl_engine e)
{
	return (unsigned)e < 5 ? engine_names[e] : "?";
}

int pl_engine_parse(const char *name)
{
	int i;

	for (i = 0; i < 5; i++)
		if (!strcmp(name, engine_names[i]))
			return i;
	if (!strcmp(name, "trtllm") || !strcmp(name, "tensorrt_llm"))
		return PL_TRTLLM;
	return -1;
}

int pl_version_parse(const char *text)
{
	int v[3] = { 0, 0, 0 }, n = 0;
	const char *p = text;

	if (*p == 'v' || *p == 'V')
		p++;
	while (n < 3 && *p >= '0' && *p <= '9') {
		int x = 0;
		while (*p >= '0' && *p <= '9' && x < 1000)
			x = x * 10 + (*p++ - '0');
		v[n++] = x;
		if (*p != '.')
			break;
		p++;
	}
	if (n < 2 || v[1] > 99 || v[2] > 99)
		return -1;
	return PL_VERSION(v[0], v[1], v[2]);
}

/* vLLM's V1 engine (the default from 0.8; 0: the newest modelled). On
 * ROCm it came later: the logs of 0.8.x on Instinct and Radeon cards and
 * of a mid-2025 build on a Radeon print "rocm is experimental on
 * VLLM_USE_V1=1. Falling back to V0 Engine." and run V0, while 0.9.2 on
 * an Instinct card initializes "a V1 LLM engine" (ROCm/rocm-blogs
 * rocm-ray). So: Instinct cards V1 from 0.9, Radeon cards from 0.10 (the
 * Radeon boundary is not seen in a log). What the user says
 * (VLLM_USE_V1=1 on 0.7, =0 on 0.8: --v1, --v0) overrides the version's
 * default. */
static int vllm_v1(const struct pl_settings *s)
{
	if (s->engine != PL_VLLM)
		return 0;
	if (s->engine_v1)
		return s->engine_v1 > 0;
	if (s->card_rocm && s->version &&
	    s->version < (s->card_rocm == 2 ? PL_VERSION(0, 10, 0) : PL_VERSION(0, 9, 0)))
		return 0;
	return s->version == 0 || s->version >= PL_VERSION(0, 8, 0);
}

/* max_num_seqs and max_num_batched_tokens when not given. vLLM V1
 * (EngineArgs._set_default_args_v1, vllm/engine/arg_utils.py, 0.8 on):
 * 1024 sequences and 8192 batched tokens for the OpenAI server on a card
 * of 70 GiB or more that is not an A100 ("For GPUs like H100 and
 * MI300x"), else 256 and 2048 (the 0.10.1.1 logs on A100-80GB print
 * "max_num_batched_tokens=2048"). V0 from 0.6: see below. Older V0 and
 * the other engines: 256, and 8192 tokens (TGI's max_batch_prefill_tokens
 * 4096). */
static void batch_defaults(struct pl_settings *s)
{
	int big = s->gpu_bytes >= (int64_t)(70 * PL_GIB) && !s->card_a100;

	if (s->max_num_seqs < 1)
		s->max_num_seqs = s->engine == PL_OLLAMA ? 1 : vllm_v1(s) && big ? 1024 : 256;
	if (s->max_batched_tokens >= 1)
		return;
	s->batched_derived = 1;
	if (s->engine == PL_VLLM && !vllm_v1(s) && s->version >= PL_VERSION(0, 6, 0)) {
		/* V0 (EngineArgs, SchedulerConfig): chunked prefill is on by
		 * default for the OpenAI server when max_model_len > 32K, with
		 * 2048 batched tokens; else no chunking and the profile run
		 * takes max(max_model_len, 2048) tokens */
		s->max_batched_tokens = s->max_model_len > 32768 ? 2048
				      : s->max_model_len > 2048 ? s->max_model_len : 2048;
		return;
	}
	s->max_batched_tokens = s->engine == PL_TGI ? 4096 : vllm_v1(s) && !big ? 2048 : 8192;
}

/* SGLang's default mem_fraction_static (ServerArgs), by version:
 *   before 0.4:  by TP size, 0.88 / 0.87 / 0.85 / 0.83 / 0.79 for TP 1 / 2 /
 *                4 / 8 / 16;
 *   0.4 - 0.5.2: the same with 0.81 at TP 8 (the 0.4.3 log at TP 4 prints
 *                mem_fraction_static=0.85, the 0.4.4 one at TP 1 0.88);
 *   0.5.3 on (#10975, _handle_gpu_memory_settings): (card - reserved) /
 *                card, rounded to 3 places, with the card in MiB and
 *                reserved = 512 + max(chunked_prefill_size, 2048) x 1.5 +
 *                cuda_graph_max_bs x 2 + tp x pp / 8 x 1024, at least 10 GiB
 *                on a card above 60 GiB; chunked_prefill_size and
 *                cuda_graph_max_bs by the card's size (below). Builds that
 *                capture piecewise CUDA graphs reserve 8 MiB more per
 *                captured size (0.828 instead of 0.835 on an H100): not
 *                modelled.
 * Multimodal models: SGLang lowers the fraction (ModelRunner: x 0.95 in
 * 0.4, x 0.90 later), applied in pool.c, not here. */
static double sglang_fraction(const struct pl_settings *s)
{
	double mib = (double)s->gpu_bytes / 1048576.0, cp, bs, reserved;
	int tp = s->tp;

	if (s->version && s->version < PL_VERSION(0, 5, 3)) {
		if (tp >= 16)
			return 0.79;
		if (tp >= 8)
			return s->version < PL_VERSION(0, 4, 0) ? 0.83 : 0.81;
		return tp >= 4 ? 0.85 : tp >= 2 ? 0.87 : 0.88;
	}
	if (mib <= 0)
		return 0.88;
	if (mib < 20 * 1024)
		cp = 2048, bs = 8;                      /* T4, 4080 */
	else if (mib < 35 * 1024)
		cp = 2048, bs = tp < 4 ? 24 : 80;       /* A10, 4090, 5090 */
	else if (mib < 60 * 1024)
		cp = 4096, bs = tp < 4 ? 32 : 160;      /* A100-40GB, L40 */
	else if (mib < 160 * 1024)
		cp = 8192, bs = tp < 4 ? 256 : 512;     /* H100, A100-80GB, H20, H200 */
	else
		cp = 16384, bs = 512;                   /* B200, MI300 */
	reserved = 512 + (cp > 2048 ? cp : 2048) * 1.5 + bs * 2 + tp * s->pp / 8.0 * 1024;
	if (mib > 60 * 1024 && reserved < 10 * 1024)
		reserved = 10 * 1024;
	return floor((mib - reserved) / mib * 1000 + 0.5) / 1000;
}

/* SGLang's multimodal reduction of the fraction (ModelRunner.__init__,
 * "Automatically reduce --mem-fraction-static ... because this is a
 * multimodal model"): x 0.95 in 0.4 (the 0.4.4 log of Gemma 3 4B on an
 * H200 matches 0.88 x 0.95 within 0.01 GB), x 0.90 in later copies. */
static double sglang_mm_factor(const struct pl_arch *a, const struct pl_settings *s)
{
	if (!a->multimodal)
		return 1.0;
	return s->version && s->version < PL_VERSION(0, 5, 0) ? 0.95 : 0.90;
}

void pl_settings_defaults(struct pl_settings *s, const struct pl_arch *a)
{
	if (s->tp < 1)
		s->tp = 1;
	if (s->pp < 1)
		s->pp = 1;
	if (!s->quant_set)
		s->quant = a->quant;
	if (s->other_given > 0 && s->free_given <= 0 && s->gpu_bytes > 0)
		s->free_given = s->gpu_bytes - s->other_given;
	if (!s->dtype_bytes)
		s->dtype_bytes = a->dtype_bytes ? a->dtype_bytes : 2;
	if (!s->kv_dtype_bytes)
		s->kv_dtype_bytes = s->dtype_bytes;
	if (s->max_model_len < 1) {
		s->max_model_len = a->max_position > 0 ? a->max_position : 4096;
		if (s->engine == PL_OLLAMA)
			s->max_model_len = 4096;        /* num_ctx */
	}
	if (s->util <= 0) {
		switch (s->engine) {
		case PL_SGLANG:
			s->util = sglang_fraction(s);
			break;
		case PL_TGI:
			s->util = 1.0;                  /* cuda_memory_fraction */
			break;
		case PL_TRTLLM:
			s->util = 0.9;                  /* kv_cache_free_gpu_mem_fraction */
			break;
		default:
			s->util = 0.9;
		}
	}
	if (s->block_size < 1)
		s->block_size = s->engine == PL_SGLANG || s->engine == PL_OLLAMA ? 1 :
				s->engine == PL_TRTLLM ? 64 : 16;
	if (s->max_num_seqs < 1 || s->max_batched_tokens < 1)
		batch_defaults(s);
}

/* The MLP's intermediate tensors of the profile run's dummy batch: the
 * gate/up output and its activation for max_batched_tokens tokens, about
 * 7 bytes per intermediate unit per token in 16 bits (experts: the
 * routed experts each token reaches, plus a shared expert). */
static double mlp_activation(const struct pl_arch *a, const struct pl_settings *s)
{
	double inter = a->experts ? (double)a->experts_per_tok * a->moe_intermediate
				  : (double)a->intermediate;

	if (a->shared_intermediate)
		inter += a->shared_intermediate;
	return (double)s->max_batched_tokens * 7.0 * inter / s->tp;
}

/* Bytes per logit element of vLLM V1's dummy sampler run
 * (GPUModelRunner._dummy_sampler_run, called by profile_run): the logits
 * of min(max_num_seqs, max_num_batched_tokens) requests over the whole
 * vocabulary (gathered on every rank), sampled with top_k = vocab - 1
 * and top_p = 0.9. PyTorch's native top-k/top-p (sampler/ops/
 * topk_topp_sampler.py apply_top_k_top_p) holds the bf16 logits, their
 * fp32 copy, the sorted values, int64 sort indices, the softmax, the
 * masks and the scattered result: 39 bytes per element measured on five
 * models under 0.11.0 (llm-d empirical results, bench/ACCURACY.md); 0.8
 * and 0.9 take the same path (FlashInfer's sampler is disabled there).
 * 0.10 samples with FlashInfer when it is installed ("Using FlashInfer
 * for top-p & top-k sampling"): no sort, the bf16 logits, the fp32 copy
 * and the probabilities, 10 bytes; without FlashInfer 0.10 falls back
 * to the native path ("FlashInfer is not available. Falling back to the
 * PyTorch-native implementation"), which --sampler native says.
 * 0.19 (and 0 here, the newest modelled): the native path masks top-k/
 * top-p with a Triton kernel (apply_top_k_top_p_triton, no sort, no
 * int64 indices): the bf16 logits, the fp32 copy, the probabilities and
 * the exponential noise of random_sample, 14 bytes; 15 fits the five
 * 0.19 logs of the llm-d-planner sweep (Gemma-2-27B's 3.66 GiB peak for
 * 1024 x 256000 logits exactly; Llama-3.3-70B, Qwen3-30B-A3B and
 * Llama-4-Scout within 0.6 GiB, the MoE kernels' workspaces not counted).
 * Where between 0.11 and 0.19 the Triton path came is not seen in a log:
 * 0.12 - 0.18 keep 39. */
static double sampler_bytes(const struct pl_settings *s)
{
	if (s->sampler != PL_SAMPLER_DEFAULT)
		return s->sampler == PL_SAMPLER_FLASHINFER ? 10.0 : 39.0;
	if (s->version == 0 || s->version >= PL_VERSION(0, 19, 0))
		return 15.0;
	return s->version >= PL_VERSION(0, 10, 0) && s->version < PL_VERSION(0, 11, 0) ? 10.0
											: 39.0;
}

/* The activation peak of the profile run, per engine and version. vLLM
 * V1: the larger of the dummy batch's MLP tensors and the dummy sampler
 * run, which come one after the other (profile_run). vLLM V0 and the
 * others: the MLP tensors plus the fp32 logits and probabilities of
 * max_num_seqs sequences (worker.py profile_run, 0.2-0.7), fitted on the
 * 0.6.x cases. An estimate: docs/plan.md. */
static int64_t activation_estimate(const struct pl_arch *a, const struct pl_settings *s)
{
	double mlp = mlp_activation(a, s), sampler;

	if (vllm_v1(s) && s->version && s->version < PL_VERSION(0, 8, 0)) {
		/* V1 on 0.7 (VLLM_USE_V1=1): no dummy sampler run yet; the
		 * profile computes the logits of every batched token
		 * (GPUModelRunner.profile_run, "TODO: Consider the memory usage
		 * of the sampler"). 10 bytes per logit element (bf16 logits,
		 * their fp32 copy and probabilities) fits the one 0.7.1 log
		 * (vllm-project/vllm#12569): approximate. */
		sampler = (double)s->max_batched_tokens * a->vocab * 10.0;
		return (int64_t)(mlp > sampler ? mlp : sampler);
	}
	if (vllm_v1(s)) {
		double reqs = (double)(s->max_num_seqs < s->max_batched_tokens ? s->max_num_seqs
									      : s->max_batched_tokens);
		sampler = reqs * a->vocab * sampler_bytes(s);
		return (int64_t)(mlp > sampler ? mlp : sampler);
	}
	return (int64_t)(mlp + (double)s->max_num_seqs * a->vocab * 8.0);
}

/* Memory outside PyTorch's allocator: the CUDA context's share that the
 * engine counts, cuBLAS workspaces, and with more ranks NCCL's and the
 * custom all-reduce's buffers. vLLM V1 measures it against a baseline
 * taken after the context exists (utils memory_profiling,
 * non_torch_increase): 0.13 GiB at TP 1 and 0.55 GiB at TP 2 under 0.11
 * (0.14 and 0.54 for Qwen3-32B), so 0.42 GiB more for each other rank.
 * V0 0.7 on (worker.determine_num_available_blocks under
 * memory_profiling, baseline after the context and the distributed
 * init) prints what grew during the profile run alone: 0.03 GiB at TP 1
 * (RTX 4060, 0.7.3), 0.25 and 0.30 at TP 2 (RTX 4090 and L40S, 0.7),
 * 0.28 at TP 4 (H100, 0.8 with VLLM_USE_V1=0): 0.05 GiB, 0.3 GiB with
 * more ranks (NCCL's and the all-reduce's buffers exist before the
 * baseline, so TP does not scale it). V0 before 0.7 (the 0.2-0.6 logs'
 * non-KV figures) counted from the card's free memory, context
 * included: 0.5 GiB, 2 GiB with TP > 1; so does V0 on ROCm (the 0.9.0
 * OPT-125m log on a Radeon card: 1.02 GiB non-KV beside a 0.2 GiB
 * activation peak). */
static int64_t non_torch_estimate(const struct pl_settings *s)
{
	int ranks = s->tp * s->pp;

	if (vllm_v1(s) && s->version && s->version < PL_VERSION(0, 8, 0))
		/* V1 on 0.7: determine_available_memory counts total - free -
		 * torch's, the CUDA context included (as V0 before 0.7) */
		return (int64_t)((0.5 + 0.42 * (ranks - 1)) * PL_GIB);
	if (vllm_v1(s))
		return (int64_t)((0.13 + 0.42 * (ranks - 1)) * PL_GIB);
	if (s->engine == PL_VLLM && !s->card_rocm &&
	    (s->version == 0 || s->version >= PL_VERSION(0, 7, 0)))
		return (int64_t)((ranks > 1 ? 0.3 : 0.05) * PL_GIB);
	return (int64_t)((ranks > 1 ? 2.0 : 0.5) * PL_GIB);
}

/* vLLM pads the MXFP4 experts' dimensions for its kernels
 * (Mxfp4MoEMethod.create_weights, model_executor/layers/quantization/
 * mxfp4.py): the intermediate size per rank to a multiple of 128 on ROCm
 * and, with the hidden size to 256, on the Marlin path the A100 takes;
 * on newer NVIDIA cards to 256 (the 0.11.0 gpt-oss-20b and -120b weights
 * on an H100; FlashInfer's path pads the hidden size too, not modelled).
 * SGLang: not modelled (1). */
static int mxfp4_pad_i(const struct pl_settings *s)
{
	if (s->engine != PL_VLLM)
		return 1;
	return s->card_rocm || s->card_a100 ? 128 : 256;
}

static int mxfp4_pad_h(const struct pl_settings *s)
{
	return s->engine == PL_VLLM && s->card_a100 ? 256 : 1;
}

/* The pool's tokens one request of max_model_len holds. The pool is
 * sized per token over every attention layer, and one request takes
 * max_model_len of it, except under vLLM's hybrid KV cache manager
 * (0.10 on): there a sliding-window layer keeps only its window plus
 * one step's tokens, cdiv(window - 1 + max_num_batched_tokens, block) + 1
 * blocks (SlidingWindowSpec.max_memory_usage_bytes, v1/kv_cache_interface.py),
 * and the concurrency it prints weighs each layer group by what it keeps
 * (kv_cache_utils.get_max_concurrency_for_kv_cache_config). */
static double request_tokens(const struct pl_arch *a, const struct pl_settings *s)
{
	double len = (double)s->max_model_len, bs = (double)s->block_size, full, swa;
	int layers = a->n_full + a->n_swa;

	if (!vllm_v1(s) || (s->version && s->version < PL_VERSION(0, 10, 0)) || a->n_swa < 1 ||
	    a->sliding_window < 1 || layers < 1 || bs < 1)
		return len;
	full = ceil(len / bs) * bs;
	swa = (ceil((a->sliding_window - 1.0 + (double)s->max_batched_tokens) / bs) + 1) * bs;
	if (swa > full)
		swa = full;
	return (a->n_full * full + a->n_swa * swa) / layers;
}

/* vLLM versions whose pool loses what other processes hold, with no
 * check at start-up. V1 before 0.9.1 (the refusal below came with 0.9.1:
 * llm-compressor#1560 "starting from version 0.9.1"):
 * determine_available_memory (v1/worker/gpu_worker.py, 0.8) counts as
 * non-torch memory everything in use beyond torch's allocations (total -
 * free - torch's), the others' included. V0 0.2.5-0.2.x: after #2031
 * worker.py took the peak as total - free after the profile run, every
 * process's memory counted as its own (vllm#2248). */
static int v1_takes_others(const struct pl_settings *s)
{
	if (s->engine != PL_VLLM || !s->version)
		return 0;
	if (vllm_v1(s))
		return s->version < PL_VERSION(0, 9, 1);
	return s->version >= PL_VERSION(0, 2, 5) && s->version < PL_VERSION(0, 3, 0);
}

/* What vLLM needs free at start-up, other processes aside. V1 from 0.9.1:
 * Worker.init_device takes a MemorySnapshot and refuses to start when
 * its free memory is below total x gpu_memory_utilization ("Free memory
 * on device ... on startup is less than desired GPU memory utilization");
 * the KV pool is then requested - non-KV, whatever the others hold. V0
 * (worker.py determine_num_available_blocks, 0.4-0.8, and its
 * memory_profiling baseline from 0.6.4) measures its peak from the free
 * memory at init, so the others are left out of the sum and nothing is
 * checked: the profile run needs weights + non-torch + the activation
 * peak, the KV cache allocation after it weights + non-torch + the pool,
 * and it fails with CUDA out of memory when the card has less free. */
static int64_t vllm_start_need(const struct pl_settings *s, const struct pl_result *r,
			       double total)
{
	int64_t act = r->non_kv_bytes - r->non_torch_bytes;

	if (vllm_v1(s))
		return (int64_t)(total * s->util);
	if (act < 0)
		act = 0;
	return r->weights_bytes + r->non_torch_bytes + (act > r->kv_cache_bytes ? act
										: r->kv_cache_bytes);
}

/* The KV pool kv (the engine's rule on an empty card) when other
 * processes hold total - free_given of it. SGLang takes its fraction of
 * the memory free before the weights load (ModelRunner: min_per_gpu_memory
 * from init_torch_distributed is profile_max_num_token's
 * total_gpu_memory; rest = free after weights - that x (1 -
 * mem_fraction_static)), so the pool shrinks by the others' memory x the
 * fraction. vLLM V1 before 0.9.1 (and 0.2.5-0.2.x) and TGI (get_free_memory: free - (1 -
 * cuda_memory_fraction) x total) lose it whole; TensorRT-LLM takes its
 * fraction of what is free after the engine loads. vLLM V0 and V1 from
 * 0.9.1 size the pool as on an empty card: vllm_start_need says whether it
 * can start. */
static double free_rule(const struct pl_settings *s, const struct pl_result *r, double total,
			double kv)
{
	double others = total - (double)s->free_given;

	if (others <= 0)
		return kv;
	switch (s->engine) {
	case PL_SGLANG:
		return kv - others * s->util;
	case PL_TGI:
		return kv - others;
	case PL_TRTLLM:
		return s->util * ((double)s->free_given - r->weights_bytes - r->non_kv_bytes);
	case PL_VLLM:
		return v1_takes_others(s) ? kv - others : kv;
	default:
		return kv;
	}
}

/* vLLM V1 under pipeline parallelism: every stage profiles itself and
 * the engine keeps the fewest blocks any stage can hold
 * (kv_cache_utils: the smallest num_blocks over the workers). vLLM gives
 * the layers evenly with the remainder one each to the stages before the
 * last, from the second-to-last backwards (get_pp_indices,
 * pl_pp_stage_layers): the first stage holds its share and the
 * embedding, the last floor(L / pp) layers, the LM head and the dummy
 * sampler run; non-torch memory counts each stage's TP group. Fills r's
 * weights, KV per token and non-KV figures with the stage that binds, and
 * returns its KV memory. Checked on DeepSeek-V2-Lite at TP 2 x PP 2 on
 * L4s (vllm-project/vllm#20665): the first stage binds there. */
static double pp_stages(const struct pl_arch *a, const struct pl_settings *s, struct pl_result *r)
{
	int attn = a->n_full + a->n_swa ? a->n_full + a->n_swa : a->layers;
	int lf = pl_pp_stage_layers(a->layers, s->pp, 0), ll = a->layers / s->pp;
	double per_layer = (double)pl_kv_bytes_per_token(a, s->tp, 1, s->kv_dtype_bytes) /
			   (attn > 0 ? attn : 1);
	double budget = (double)s->gpu_bytes * s->util, nt, mlp, act_l, wf, wl, kvf, kvl, tf, tl;
	double kf = per_layer * pl_pp_stage_layers(attn, s->pp, 0), kl = per_layer * (attn / s->pp);
	nt = (0.13 + 0.42 * (s->tp - 1)) * PL_GIB;
	mlp = mlp_activation(a, s);
	act_l = (double)activation_estimate(a, s);
	wf = (double)pl_stage_weights_bytes(a, s->tp, 0, lf, s->quant, s->dtype_bytes,
					    mxfp4_pad_i(s), mxfp4_pad_h(s), 1, 0);
	wl = (double)pl_stage_weights_bytes(a, s->tp, a->layers - ll, ll, s->quant, s->dtype_bytes,
					    mxfp4_pad_i(s), mxfp4_pad_h(s), 0, 1);
	kvf = budget - wf - nt - mlp;
	kvl = budget - wl - nt - act_l;
	tf = kf > 0 ? kvf / kf : 0;
	tl = kl > 0 ? kvl / kl : 0;
	r->non_torch_bytes = (int64_t)nt;
	if (ll < 1 || tf <= tl) {
		r->weights_bytes = (int64_t)wf;
		r->kv_bytes_per_token = (int64_t)kf;
		r->activation_bytes = (int64_t)mlp;
		r->non_kv_bytes = (int64_t)(nt + mlp);
		return kvf;
	}
	r->weights_bytes = (int64_t)wl;
	r->kv_bytes_per_token = (int64_t)kl;
	r->activation_bytes = (int64_t)act_l;
	r->non_kv_bytes = (int64_t)(nt + act_l);
	return kvl;
}

/* vLLM V0's cache layout for an MLA model, by version (kv.c says how
 * each is counted): MHA padded to head size 256 before 0.7.1 (the MLA
 * backends arrived in 0.7.1), the latent padded to 256 bytes from 0.7.1
 * on CUDA (CacheEngine._align_cache: use_mla and is_cuda). V1 caches the
 * latent unpadded (MLAAttentionSpec); version 0 (not given) is V1. The
 * 0.7 MLA backends also keep absorbed copies of the attention matrices
 * (weights.c; VLLM_MLA_PERFORM_MATRIX_ABSORPTION, gone by 0.8). */
static void vllm_mla_layout(struct pl_arch *k, const struct pl_settings *s)
{
	if (!k->mla || s->engine != PL_VLLM || vllm_v1(s) || !s->version)
		return;
	if (s->version < PL_VERSION(0, 7, 1))
		k->mla_mha_head = 256;
	else if (!s->card_rocm)
		k->kv_align_bytes = 256;
	if (s->version >= PL_VERSION(0, 7, 1) && s->version < PL_VERSION(0, 8, 0))
		k->mla_absorbed = 1;
}

/* vLLM's rotary embedding table (RotaryEmbedding's cos_sin_cache, a
 * buffer made on the card when the model is built, so "Model loading
 * took" counts it): max_position_embeddings x the rotary dimension (the
 * head size; MLA's qk_rope_head_dim) in the model's dtype, on every rank.
 * Tens of MiB for most models; 2.5 GiB for Llama 4 Scout's 10485760
 * positions, which with its shared experts makes the 53.12 GiB per rank
 * vLLM 0.19 printed at TP 4. 0 for the other engines (not checked). */
static double rope_cache_bytes(const struct pl_arch *a, const struct pl_settings *s)
{
	int dim = a->mla ? a->qk_rope_head_dim : a->head_dim;

	if (s->engine != PL_VLLM || a->max_position <= 0 || dim <= 0)
		return 0;
	return (double)a->max_position * dim * s->dtype_bytes;
}

int pl_estimate(const struct pl_arch *arch, const struct pl_settings *s, struct pl_result *r,
		char *err, size_t errn)
{
	double total = (double)s->gpu_bytes, kv;
	int64_t per_block;
	struct pl_arch ka = *arch;
	const struct pl_arch *a = &ka;

	vllm_mla_layout(&ka, s);
	memset(r, 0, sizeof(*r));
	r->used = *s;
	r->free_bytes = s->free_given > 0 ? s->free_given : -1;
	if (s->gpu_bytes <= 0 && s->kv_given < 0) {
		snprintf(err, errn, "the card's memory is needed: --gpu NAME or --gpu-memory SIZE");
		return -1;
	}
	if (s->util <= 0 || s->util > 1) {
		snprintf(err, errn, "the memory fraction must be in (0, 1], not %g", s->util);
		return -1;
	}
	r->weights_bytes = s->weights_given >= 0 ? s->weights_given
		: pl_weights_bytes_padded(a, s->tp, s->pp, s->quant, s->dtype_bytes,
					  mxfp4_pad_i(s), mxfp4_pad_h(s));
	if (s->weights_given < 0)
		r->weights_bytes += (int64_t)rope_cache_bytes(a, s);
	r->kv_bytes_per_token = s->kv_per_token_given > 0 ? s->kv_per_token_given
		: pl_kv_bytes_per_token(a, s->tp, s->pp, s->kv_dtype_bytes);
	r->non_torch_bytes = non_torch_estimate(s);
	r->activation_bytes = activation_estimate(a, s);
	r->non_kv_bytes = s->non_kv_given >= 0 ? s->non_kv_given
						: r->non_torch_bytes + r->activation_bytes;
	r->budget_bytes = (int64_t)(total * s->util);
	switch (s->engine) {
	case PL_SGLANG:
		/* ModelRunner.profile_max_num_token: the memory free after the
		 * weights, less (1 - mem_fraction_static) of the memory free
		 * before them (after the context and the distributed init):
		 * (total - before) x fraction - weights */
		kv = (total - SGLANG_BEFORE_WEIGHTS) * s->util * sglang_mm_factor(a, s) -
		     r->weights_bytes;
		if (s->non_kv_given >= 0) {
			kv = total * s->util - r->weights_bytes - r->non_kv_bytes;
			break;
		}
		/* what stays outside the pool: the context and distributed init,
		 * and the (1 - fraction) SGLang reserves for activations and
		 * CUDA graphs, so weights + KV + non-KV = the card */
		r->non_torch_bytes = (int64_t)SGLANG_BEFORE_WEIGHTS;
		r->activation_bytes = (int64_t)((total - SGLANG_BEFORE_WEIGHTS) *
						(1 - s->util * sglang_mm_factor(a, s)));
		r->non_kv_bytes = r->non_torch_bytes + r->activation_bytes;
		break;
	case PL_TRTLLM:
		kv = s->util * (total - r->weights_bytes - r->non_kv_bytes);
		break;
	case PL_OLLAMA:
		kv = (double)s->max_model_len * s->max_num_seqs * r->kv_bytes_per_token;
		break;
	case PL_TGI:
	case PL_VLLM:
	default:
		kv = total * s->util - r->weights_bytes - r->non_kv_bytes;
		if (vllm_v1(s) && s->pp > 1 && s->weights_given < 0 && s->non_kv_given < 0 &&
		    s->kv_given < 0 && s->kv_per_token_given <= 0)
			kv = pp_stages(a, s, r);
		break;
	}
	if (s->free_given > 0 && s->kv_given < 0)
		kv = free_rule(s, r, total, kv);
	if (s->kv_given >= 0)
		kv = (double)s->kv_given;
	r->kv_cache_bytes = kv > 0 ? (int64_t)kv : 0;
	per_block = r->kv_bytes_per_token * s->block_size;
	r->gpu_blocks = per_block > 0 ? r->kv_cache_bytes / per_block : 0;
	r->kv_cache_tokens = r->gpu_blocks * s->block_size;
	r->max_concurrency = (double)r->kv_cache_tokens / request_tokens(a, s);
	r->safe_concurrency = (int64_t)floor(r->max_concurrency * PL_SAFETY);
	if (s->engine == PL_OLLAMA)
		r->fits = r->weights_bytes + r->kv_cache_bytes + r->non_kv_bytes <=
			  (s->free_given > 0 ? s->free_given : s->gpu_bytes);
	else
		r->fits = kv > 0 && r->kv_cache_tokens >= s->max_model_len;
	if (s->free_given > 0 && s->kv_given < 0 && s->engine == PL_VLLM && !v1_takes_others(s)) {
		r->start_need_bytes = vllm_start_need(s, r, total);
		r->free_short = s->free_given < r->start_need_bytes;
		if (r->free_short)
			r->fits = 0;
	}
	return 0;
}

int64_t pl_safe_seqs(double room_bytes, double per_request_bytes)
{
	double v;

	if (!(room_bytes > 0) || !(per_request_bytes > 0))
		return 0;
	v = floor(room_bytes / per_request_bytes * PL_SAFETY);
	return v < 1 ? 1 : v > 1e9 ? (int64_t)1e9 : (int64_t)v;
}

/* Try one change: run the model with t; 1 when it fits (r filled), 0
 * when not, -1 on error. */
static int try_setting(const struct pl_arch *a, const struct pl_settings *t, struct pl_result *r,
		       char *err, size_t errn)
{
	if (pl_estimate(a, t, r, err, errn) < 0)
		return -1;
	return r->fits;
}

static void say(struct pl_result *r, const char *knob, const char *value, const char *why)
{
	snprintf(r->knob, sizeof(r->knob), "%s", knob);
	snprintf(r->value, sizeof(r->value), "%s", value);
	snprintf(r->advice, sizeof(r->advice), "set %s to %s: %s", knob, value, why);
}

int pl_plan(const struct pl_arch *a, const struct pl_settings *s, struct pl_result *r,
	    char *err, size_t errn)
{
	struct pl_settings t;
	struct pl_result tr;
	char v[32];
	int64_t len;
	double u;
	int tp;

	if (pl_estimate(a, s, r, err, errn) < 0)
		return -1;
	if (r->fits) {
		if (s->engine != PL_OLLAMA && s->seqs_given && r->safe_concurrency < s->max_num_seqs &&
		    r->safe_concurrency >= 1) {
			snprintf(v, sizeof(v), "%lld", (long long)r->safe_concurrency);
			say(r, "max_num_seqs", v, "more sequences at max_model_len than the KV"
			    " cache holds with 30% headroom; requests would be preempted");
		}
		return 0;
	}
	/* 0. vLLM short of free memory at start-up: the largest fraction the
	 * card's free memory allows that still holds one request */
	if (r->free_short) {
		for (u = floor(s->util * 100 + 0.5) / 100 - 0.01; u >= 0.0099; u -= 0.01) {
			t = *s;
			t.util = floor(u * 100 + 0.5) / 100;
			if (try_setting(a, &t, &tr, err, errn) > 0) {
				char why[160];
				snprintf(v, sizeof(v), "%.2f", t.util);
				snprintf(why, sizeof(why), "%.2f GiB of %.2f GiB free at start-up"
					 " (other processes hold the rest); vLLM needs %.2f GiB",
					 s->free_given / PL_GIB, s->gpu_bytes / PL_GIB,
					 tr.start_need_bytes / PL_GIB);
				say(r, "gpu_memory_utilization", v, why);
				return 0;
			}
		}
		snprintf(r->advice, sizeof(r->advice), "no memory fraction fits in the %.2f GiB"
			 " free at start-up: free the memory other processes hold on the card"
			 " (%.2f GiB), or use another card", s->free_given / PL_GIB,
			 (s->gpu_bytes - s->free_given) / PL_GIB);
		return 0;
	}
	/* 1. a larger memory fraction, up to 0.95, when the KV pool is short */
	if (s->engine != PL_OLLAMA && s->kv_given < 0) {
		for (u = s->util + 0.01; u <= 0.9501; u += 0.01) {
			t = *s;
			t.util = floor(u * 100 + 0.5) / 100;
			if (try_setting(a, &t, &tr, err, errn) > 0) {
				snprintf(v, sizeof(v), "%.2f", t.util);
				say(r, s->engine == PL_SGLANG ? "mem_fraction_static"
				       : s->engine == PL_TGI ? "cuda_memory_fraction"
				       : s->engine == PL_TRTLLM ? "kv_cache_free_gpu_mem_fraction"
				       : "gpu_memory_utilization", v,
				    "the KV cache then holds one request of max_model_len");
				return 0;
			}
		}
	}
	/* 2. a shorter max_model_len, when some KV cache is left */
	if (r->kv_cache_tokens >= 256 && s->engine != PL_OLLAMA) {
		t = *s;
		len = r->kv_cache_tokens / 256 * 256;
		t.max_model_len = len;
		/* the profile run shrinks with the length (V0's default batch is
		 * max_model_len's): it can only fit better */
		if (t.batched_derived) {
			t.max_batched_tokens = -1;
			batch_defaults(&t);
		}
		if (try_setting(a, &t, &tr, err, errn) > 0) {
			snprintf(v, sizeof(v), "%lld", (long long)len);
			say(r, "max_model_len", v, "the longest request the KV cache holds");
			return 0;
		}
	}
	if (s->engine == PL_OLLAMA && s->max_model_len > 2048) {
		for (len = s->max_model_len / 2; len >= 2048; len /= 2) {
			t = *s;
			t.max_model_len = len;
			if (try_setting(a, &t, &tr, err, errn) > 0) {
				snprintf(v, sizeof(v), "%lld", (long long)len);
				say(r, "num_ctx", v, "the context then fits beside the weights");
				return 0;
			}
		}
	}
	/* 3. more cards: tensor parallelism */
	if (s->weights_given < 0 && s->kv_given < 0 && s->non_kv_given < 0) {
		for (tp = s->tp * 2; tp <= 64; tp *= 2) {
			if (a->heads % tp)
				break;
			t = *s;
			t.tp = tp;
			if (try_setting(a, &t, &tr, err, errn) > 0) {
				snprintf(v, sizeof(v), "%d", tp);
				say(r, "tensor_parallel_size", v, "the weights and one request's KV"
				    " cache then fit on each card");
				return 0;
			}
		}
	}
	snprintf(r->advice, sizeof(r->advice), "no single setting makes it fit: a larger card,"
		 " a quantised checkpoint or fewer layers per card (pipeline parallelism)");
	return 0;
}
