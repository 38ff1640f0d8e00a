/*
 * engine_knobs.c -- the engine x knob-role table (engine_knobs.h). The
 * spellings come from each engine's own documentation:
 *  - vLLM: the engine arguments (--gpu-memory-utilization, --max-num-seqs,
 *    --max-num-batched-tokens, --max-model-len, --enforce-eager);
 *  - SGLang: server arguments (--mem-fraction-static,
 *    --max-running-requests, --chunked-prefill-size, --context-length,
 *    --disable-cuda-graph, --tp-size) and its troubleshooting page's
 *    advice for OOM in prefill and decode;
 *  - TGI: text-generation-launcher arguments (--cuda-memory-fraction,
 *    --max-concurrent-requests, --max-batch-prefill-tokens,
 *    --max-total-tokens, --cuda-graphs 0, --num-shard);
 *  - TensorRT-LLM: the LLM API (KvCacheConfig.free_gpu_memory_fraction,
 *    0.9 by default; max_batch_size, max_num_tokens, max_seq_len,
 *    tensor_parallel_size); the Triton backend's config.pbtxt keeps the
 *    older kv_cache_free_gpu_mem_fraction;
 *  - Ollama: the Modelfile/API options num_ctx, num_gpu (layers, not
 *    GPUs), num_batch and OLLAMA_NUM_PARALLEL;
 *  - llama.cpp: --ctx-size, --n-gpu-layers, --batch-size, --parallel;
 *    for its multimodal projector (common/arg.cpp, 2025-, the copy with
 *    --fit in the index): --no-mmproj-offload ("do not offload
 *    multimodal projector to GPU", params.mmproj_use_gpu) and
 *    --image-max-tokens ("maximum number of tokens each image can take,
 *    only used by vision models with dynamic resolution");
 *  - LMDeploy: lmdeploy serve api_server's --cache-max-entry-count (the
 *    KV cache's share of what the weights leave), --max-batch-size,
 *    --max-prefill-token-num, --session-len, --eager-mode (its PyTorch
 *    engine's CUDA graphs) and --tp.
 */
#include "lib/engine_knobs.h"

#include <string.h>
#include <strings.h>

static const char *const role_keys[KR__COUNT] = {
	[KR_MEM_FRACTION] = "gpu_memory_utilization", [KR_MAX_SEQS] = "max_num_seqs",
	[KR_BATCH_TOKENS] = "max_num_batched_tokens", [KR_MAX_LEN] = "max_model_len",
	[KR_NO_GRAPHS] = "enforce_eager", [KR_GPU_LAYERS] = "gpu_layers",
	[KR_TP] = "tensor_parallel_size", [KR_PROJ_ON_CPU] = "mmproj_on_cpu",
	[KR_IMAGE_TOKENS] = "image_max_tokens",
};

/* [engine][role]; NULL: the engine has no such setting. */
static const char *const flags[ENGINE__COUNT][KR__COUNT] = {
	[ENGINE_VLLM] = { "--gpu-memory-utilization", "--max-num-seqs", "--max-num-batched-tokens",
			  "--max-model-len", "--enforce-eager", NULL, "--tensor-parallel-size" },
	[ENGINE_SGLANG] = { "--mem-fraction-static", "--max-running-requests",
			    "--chunked-prefill-size", "--context-length", "--disable-cuda-graph",
			    NULL, "--tp-size" },
	[ENGINE_TGI] = { "--cuda-memory-fraction", "--max-concurrent-requests",
			 "--max-batch-prefill-tokens", "--max-total-tokens", "--cuda-graphs 0", NULL,
			 "--num-shard" },
	[ENGINE_TRTLLM] = { "kv_cache_config.free_gpu_memory_fraction", "max_batch_size",
			    "max_num_tokens", "max_seq_len", NULL, NULL, "tensor_parallel_size" },
	[ENGINE_TRITON] = { "kv_cache_free_gpu_mem_fraction", "max_batch_size", "max_num_tokens",
			    "max_seq_len", NULL, NULL, "tensor_parallel_size" },
	[ENGINE_OLLAMA] = { NULL, "OLLAMA_NUM_PARALLEL", "num_batch", "num_ctx", NULL, "num_gpu",
			    NULL },
	[ENGINE_LLAMACPP] = { NULL, "--parallel", "--batch-size", "--ctx-size", NULL,
			      "--n-gpu-layers", NULL, "--no-mmproj-offload", "--image-max-tokens" },
	[ENGINE_LMDEPLOY] = { "--cache-max-entry-count", "--max-batch-size", "--max-prefill-token-num",
			      "--session-len", "--eager-mode", NULL, "--tp" },
};

const char *knob_role_key(enum knob_role r)
{
	return (unsigned)r < KR__COUNT ? role_keys[r] : "unknown";
}

const char *engine_knob_flag(enum engine_kind k, enum knob_role r)
{
	if ((unsigned)r >= KR__COUNT)
		return NULL;
	if (!engine_kind_named(k))
		k = ENGINE_VLLM;
	return flags[k][r];
}

enum engine_kind engine_kind_from_name(const char *s)
{
	static const struct { const char *name; enum engine_kind k; } also[] = {
		{ "trtllm", ENGINE_TRTLLM }, { "tensorrt_llm", ENGINE_TRTLLM },
		{ "text-generation-inference", ENGINE_TGI }, { "llamacpp", ENGINE_LLAMACPP },
		{ "llama-server", ENGINE_LLAMACPP },
	};
	size_t i;
	int k;

	if (!s || !*s)
		return ENGINE_NONE;
	for (k = ENGINE_NONE + 1; k < ENGINE__COUNT; k++)
		if (!strcasecmp(s, engine_kind_name((enum engine_kind)k)))
			return (enum engine_kind)k;
	for (i = 0; i < sizeof(also) / sizeof(also[0]); i++)
		if (!strcasecmp(s, also[i].name))
			return also[i].k;
	return ENGINE_NONE;
}
