/*
 * engine_vocab.h -- the serving engines' vocabulary: which engines there
 * are, the facts of their start-up memory accounting, the memory errors
 * they name and their load statistics, each with the one name the
 * timeline, the JSON and the reports use. Declared here, below the
 * parsers, so that the sink's records (parsers/common/sink.h), the line
 * reader (parsers/serving/engine_lines.c), the store and the reports all
 * spell them from one list.
 */
#ifndef OOMLENS_ENGINE_VOCAB_H
#define OOMLENS_ENGINE_VOCAB_H

#include "lib/vocab.h"

enum engine_kind {
	ENGINE_NONE = 0,
	ENGINE_VLLM,
	ENGINE_SGLANG,
	ENGINE_TGI,
	ENGINE_TRTLLM,
	ENGINE_TRITON,
	ENGINE_OLLAMA,       /* Ollama's server (Go) and the llama.cpp runner under it */
	ENGINE_LLAMACPP,     /* llama.cpp, llama-server, ik_llama.cpp (ggml) */
	ENGINE_LMDEPLOY,     /* LMDeploy: its TurboMind and PyTorch engines */
	ENGINE_PYTORCH,      /* the allocator, NCCL, cuBLAS: under any engine */
	ENGINE__COUNT
};

/* The engine's start-up accounting: X(key, column name, integer), one
 * line each, in the order of the engine table's columns (docs/schema.md
 * "engine") and of the JSON's engines objects. Sizes are bytes; integer 0
 * marks the two ratios. One list, so that the enum, the names and the
 * store's columns cannot drift apart. */
#define ENGINE_FACTS(X) \
	X(EF_TOTAL, total_bytes, 1)             /* the card's memory as the engine saw it */ \
	X(EF_FREE, free_bytes, 1)               /* free at start-up (the first said) */ \
	X(EF_UTILIZATION, gpu_memory_utilization, 0) /* share of the card asked for (0..1) */ \
	X(EF_REQUESTED, requested_bytes, 1)     /* total x utilization; Ollama: per GPU */ \
	X(EF_WEIGHTS, weights_bytes, 1) \
	X(EF_ACTIVATION_PEAK, activation_peak_bytes, 1) /* PyTorch peak of the profile run */ \
	X(EF_TORCH_PEAK, torch_peak_bytes, 1)   /* weights + activations (vLLM 0.6.4) */ \
	X(EF_NON_TORCH, non_torch_bytes, 1)     /* context, NCCL, cuBLAS workspaces */ \
	X(EF_CUDA_GRAPH, cuda_graph_bytes, 1) \
	X(EF_KV_CACHE, kv_cache_bytes, 1)       /* may be negative: the engine says so */ \
	X(EF_KV_TOKENS, kv_cache_tokens, 1)     /* tokens the KV cache holds */ \
	X(EF_GPU_BLOCKS, gpu_blocks, 1)         /* KV blocks on the GPU (0 and < 0 kept) */ \
	X(EF_CPU_BLOCKS, cpu_blocks, 1) \
	X(EF_MAX_CONCURRENCY, max_concurrency, 0) /* requests of max_model_len at once */ \
	X(EF_MAX_NUM_SEQS, max_num_seqs, 1)     /* requests admitted at once */ \
	X(EF_MAX_MODEL_LEN, max_model_len, 1)   /* tokens per request */ \
	X(EF_MAX_PREFILL, max_batch_prefill_tokens, 1) /* tokens per prefill batch */ \
	X(EF_GPU_LAYERS, gpu_layers, 1)         /* llama.cpp/Ollama: layers offloaded to GPUs */ \
	X(EF_MODEL_LAYERS, model_layers, 1)     /* llama.cpp/Ollama: the model's layers */ \
	X(EF_COMPUTE_BUFFER, compute_buffer_bytes, 1) /* ggml's compute buffer on the GPU */ \
	X(EF_REQUIRED_FULL, required_full_bytes, 1) /* Ollama: needed to offload every layer */ \
	X(EF_PLANNED_TOTAL, planned_total_bytes, 1) /* Ollama "total memory": its plan, host too */ \
	X(EF_KV_FRACTION, kv_cache_fraction, 0) /* LMDeploy, TensorRT-LLM: KV cache's share of the free memory */ \
	X(EF_REQUIRED_PARTIAL, required_partial_bytes, 1) /* Ollama: its plan for the layers it offloads */ \
	X(EF_GRAPH_PARTIAL, graph_partial_bytes, 1) /* Ollama: the compute graph of a partial offload */

#define ENGINE_FACT_ENUM(key, name, integer) key,
enum engine_fact { ENGINE_FACTS(ENGINE_FACT_ENUM) EF__COUNT };
#undef ENGINE_FACT_ENUM

/* The memory errors an engine names (the JSON's engines[].errors kinds). */
enum engine_error {
	EE_NONE = 0,
	EE_KV_NO_MEMORY,          /* no memory left for the KV cache blocks */
	EE_MAX_LEN_EXCEEDS_KV,    /* one request of max_model_len does not fit */
	EE_FREE_BELOW_UTILIZATION,/* free memory at start-up below the request */
	EE_CUDA_OOM,              /* PyTorch's "CUDA out of memory" */
	EE_GRAPH_CAPTURE_OOM,     /* out of memory while capturing CUDA graphs */
	EE_ENGINE_DEAD,           /* the engine process died or did not start */
	EE_PREFILL_OOM,
	EE_SHARD_CANNOT_START,
	EE_DECODE_OOM,
	EE_RETRACT,               /* SGLang gave back requests: KV cache full */
	EE_NCCL_OOM,
	EE_CUBLAS_ALLOC_FAILED,
	EE_TRT_OOM,
	EE_EXPANDABLE_UNSUPPORTED,/* PyTorch: expandable_segments asked for, not on this build */
	EE_CUMEM_ERROR,           /* vLLM's cumem allocator's own CUDA_CHECK line */
	EE__COUNT
};

/* Load statistics, one series each (docs/schema.md names them). */
enum engine_stat {
	ES_RUNNING, ES_WAITING, ES_SWAPPED,
	ES_GPU_KV_USAGE,      /* percent (SGLang's 0..1 token usage too) */
	ES_CPU_KV_USAGE,      /* percent */
	ES_SWA_KV_USAGE,      /* percent, SGLang's sliding-window pool */
	ES_PREFIX_HIT_RATE,   /* percent */
	ES_PROMPT_TPS, ES_GEN_TPS,
	ES__COUNT
};

/* 1 for an engine of its own (not NONE, not PYTORCH: the libraries). */
static inline int engine_kind_named(enum engine_kind k)
{ return k != ENGINE_NONE && k != ENGINE_PYTORCH && k < ENGINE__COUNT; }

/* Names for the timeline and the JSON ("vllm", "kv_cache_bytes",
 * "kv_no_memory", "server.running"...). */
const char *engine_kind_name(enum engine_kind k);
const char *engine_fact_name(enum engine_fact f);
int engine_fact_integer(enum engine_fact f);
const char *engine_error_name(enum engine_error e);
const char *engine_stat_series(enum engine_stat s);
const char *engine_stat_unit(enum engine_stat s);
/* "load_weights", "profile", ... "unknown" (the event data's "phase");
 * enum oom_phase is lib/vocab.h's. "unknown" for a value out of range. */
const char *oom_phase_name(enum oom_phase p);

#endif
