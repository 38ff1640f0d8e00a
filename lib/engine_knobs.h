/*
 * engine_knobs.h -- how each serving engine spells the setting that
 * answers to a role (the share of the card its pool takes, the requests
 * it runs at once, the tokens of one batch, the context length, CUDA
 * graphs, the layers on the GPU, tensor parallelism): one table, engine
 * x role -> the flag or option the user types, learned from each
 * engine's documentation (docs/rules.md "Knobs"). Every rule that names
 * a knob in its advice takes the spelling from here, so that a
 * TensorRT-LLM incident is never told vLLM's flags. The role's key (the
 * finding's advice_knob: "gpu_memory_utilization", "max_num_seqs", ...)
 * stays the same for every engine: the verdict keeps one value per key.
 */
#ifndef OOMLENS_ENGINE_KNOBS_H
#define OOMLENS_ENGINE_KNOBS_H

#include "lib/engine_vocab.h"

enum knob_role {
	KR_MEM_FRACTION,   /* share of the card (or of its free memory) the engine's pool takes */
	KR_MAX_SEQS,       /* requests (sequences) run at once */
	KR_BATCH_TOKENS,   /* tokens of one scheduled batch (prefill chunk) */
	KR_MAX_LEN,        /* tokens of one request (the context length) */
	KR_NO_GRAPHS,      /* run without CUDA graphs */
	KR_GPU_LAYERS,     /* layers offloaded to the GPU (ggml engines) */
	KR_TP,             /* tensor parallelism: GPUs one model is spread over */
	KR_PROJ_ON_CPU,    /* keep a multimodal projector's weights and graph off the GPU */
	KR_IMAGE_TOKENS,   /* the most tokens one image may take (sizes the projector's graph) */
	KR__COUNT
};

/* The key a finding records for role r ("gpu_memory_utilization",
 * "max_num_seqs", "max_num_batched_tokens", "max_model_len",
 * "enforce_eager", "gpu_layers", "tensor_parallel_size",
 * "mmproj_on_cpu", "image_max_tokens"). */
const char *knob_role_key(enum knob_role r);
/* How engine k spells role r ("--mem-fraction-static",
 * "kv_cache_config.free_gpu_memory_fraction", "num_ctx", ...); NULL
 * where the engine has no such setting. ENGINE_NONE and ENGINE_PYTORCH
 * (no engine named) give vLLM's spelling, the default reading of a
 * serving log oomlens cannot place. Static strings. */
const char *engine_knob_flag(enum engine_kind k, enum knob_role r);
/* The engine named by s ("vllm", "sglang", "tgi", "tensorrt-llm",
 * "triton", "ollama", "llama.cpp", "pytorch"; the spellings a log or a
 * meta key uses: "trtllm", "text-generation-inference", "llamacpp");
 * ENGINE_NONE when s names none (or is NULL). */
enum engine_kind engine_kind_from_name(const char *s);

#endif
