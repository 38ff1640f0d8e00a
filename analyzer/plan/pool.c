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
 */
#include "analyzer/plan/plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

void pl_settings_defaults(struct pl_settings *s, const struct pl_arch *a)
{
	if (s->tp < 1)
		s->tp = 1;
	if (s->pp < 1)
		s->pp = 1;
	if (!s->quant_set)
		s->quant = a->quant;
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
		case PL_SGLANG: /* server_args: by TP size */
			s->util = s->tp >= 8 ? 0.79 : s->tp >= 4 ? 0.83 : s->tp >= 2 ? 0.85 : 0.88;
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
	if (s->max_num_seqs < 1)
		s->max_num_seqs = s->engine == PL_OLLAMA ? 1 : 256;
	if (s->max_batched_tokens < 1)
		s->max_batched_tokens = s->engine == PL_TGI ? 4096 : 8192;
}

/* The activation peak of the profile run: the MLP's intermediate tensors
 * for max_batched_tokens tokens (gate/up output and its activation, about
 * 7 bytes per intermediate unit per token in 16 bits) and the fp32 logits
 * and probabilities of max_num_seqs sequences. An estimate: docs/plan.md. */
static int64_t activation_estimate(const struct pl_arch *a, const struct pl_settings *s)
{
	double inter = a->experts ? (double)a->experts_per_tok * a->moe_intermediate
				  : (double)a->intermediate;
	double tokens = (double)s->max_batched_tokens;

	if (a->shared_intermediate)
		inter += a->shared_intermediate;
	inter /= s->tp;
	return (int64_t)(tokens * 7.0 * inter +
			 (double)s->max_num_seqs * a->vocab * 8.0);
}

/* Memory outside PyTorch's allocator: the CUDA context and libraries,
 * and with TP > 1 NCCL's and the custom all-reduce's buffers. */
static int64_t non_torch_estimate(const struct pl_settings *s)
{
	return (int64_t)((s->tp * s->pp > 1 ? 2.0 : 0.5) * PL_GIB);
}

int pl_estimate(const struct pl_arch *a, const struct pl_settings *s, struct pl_result *r,
		char *err, size_t errn)
{
	double total = (double)s->gpu_bytes, kv;
	int64_t per_block;

	memset(r, 0, sizeof(*r));
	r->used = *s;
	if (s->gpu_bytes <= 0 && s->kv_given < 0) {
		snprintf(err, errn, "the card's memory is needed: --gpu NAME or --gpu-memory SIZE");
		return -1;
	}
	if (s->util <= 0 || s->util > 1) {
		snprintf(err, errn, "the memory fraction must be in (0, 1], not %g", s->util);
		return -1;
	}
	r->weights_bytes = s->weights_given >= 0 ? s->weights_given
		: pl_weights_bytes(a, s->tp, s->pp, s->quant, s->dtype_bytes);
	r->kv_bytes_per_token = s->kv_per_token_given > 0 ? s->kv_per_token_given
		: pl_kv_bytes_per_token(a, s->tp, s->pp, s->kv_dtype_bytes);
	r->non_torch_bytes = non_torch_estimate(s);
	r->activation_bytes = activation_estimate(a, s);
	r->non_kv_bytes = s->non_kv_given >= 0 ? s->non_kv_given
						: r->non_torch_bytes + r->activation_bytes;
	r->budget_bytes = (int64_t)(total * s->util);
	switch (s->engine) {
	case PL_SGLANG:
		/* free after the weights, less what mem_fraction_static leaves out */
		kv = total - r->weights_bytes - r->non_torch_bytes - total * (1 - s->util);
		if (s->non_kv_given >= 0)
			kv = total * s->util - r->weights_bytes - r->non_kv_bytes;
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
		break;
	}
	if (s->kv_given >= 0)
		kv = (double)s->kv_given;
	r->kv_cache_bytes = kv > 0 ? (int64_t)kv : 0;
	per_block = r->kv_bytes_per_token * s->block_size;
	r->gpu_blocks = per_block > 0 ? r->kv_cache_bytes / per_block : 0;
	r->kv_cache_tokens = r->gpu_blocks * s->block_size;
	r->max_concurrency = (double)r->kv_cache_tokens / (double)s->max_model_len;
	r->safe_concurrency = (int64_t)floor(r->max_concurrency * PL_SAFETY);
	if (s->engine == PL_OLLAMA)
		r->fits = r->weights_bytes + r->kv_cache_bytes + r->non_kv_bytes <= s->gpu_bytes;
	else
		r->fits = kv > 0 && r->kv_cache_tokens >= s->max_model_len;
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
		/* the profile run shrinks with the length: it can only fit better */
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
