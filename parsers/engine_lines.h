/*
 * engine_lines.h -- what one serving-engine log line says about memory.
 *
 * vLLM (0.1 to V1), SGLang, TGI, TensorRT-LLM/Triton, and the libraries
 * under them (PyTorch's allocator, NCCL, cuBLAS) print their start-up
 * memory accounting, their periodic load statistics and their memory
 * errors as free text, whose wording changed with every generation
 * (docs/formats.md lists the forms, tests/data/real/serving holds real
 * ones). engine_line() reads one line with its wrappers already removed
 * or not (anchors are found anywhere in it) and says, in a struct, what
 * the line states: facts of the engine's accounting, load statistics,
 * an error, a preemption. It keeps no state and knows no sink: the caller
 * (parsers/server_log.c) decides which engine instance a line belongs to
 * and records what is found.
 */
#ifndef OOMLENS_ENGINE_LINES_H
#define OOMLENS_ENGINE_LINES_H

#include <stddef.h>
#include <stdint.h>

enum engine_kind {
	ENGINE_NONE = 0,
	ENGINE_VLLM,
	ENGINE_SGLANG,
	ENGINE_TGI,
	ENGINE_TRTLLM,
	ENGINE_TRITON,
	ENGINE_PYTORCH,      /* the allocator, NCCL, cuBLAS: under any engine */
};

/* The engine's start-up accounting, one key each; bytes unless noted. */
enum engine_fact {
	EF_TOTAL,            /* the card's memory as the engine saw it */
	EF_FREE,             /* free at start-up (before the engine loaded) */
	EF_UTILIZATION,      /* gpu_memory_utilization / mem_fraction (0..1) */
	EF_REQUESTED,        /* total x utilization: what the engine may use */
	EF_WEIGHTS,
	EF_ACTIVATION_PEAK,  /* PyTorch activation peak of the profiling run */
	EF_TORCH_PEAK,       /* peak_torch_memory (weights + activations) */
	EF_NON_TORCH,        /* context, NCCL, cuBLAS workspaces */
	EF_CUDA_GRAPH,
	EF_KV_CACHE,         /* may be negative: the engine says so */
	EF_KV_TOKENS,        /* tokens the KV cache holds */
	EF_GPU_BLOCKS,       /* KV cache blocks on the GPU (may be 0 or < 0) */
	EF_CPU_BLOCKS,
	EF_MAX_CONCURRENCY,  /* requests of max_model_len that fit at once */
	EF_MAX_NUM_SEQS,     /* requests admitted at once */
	EF_MAX_MODEL_LEN,    /* tokens per request */
	EF_MAX_PREFILL,      /* tokens per prefill batch */
	EF__COUNT
};

/* The memory errors an engine names; kept as text in the timeline. */
enum engine_error {
	EE_NONE = 0,
	EE_KV_NO_MEMORY,          /* no memory left for the KV cache blocks */
	EE_MAX_LEN_EXCEEDS_KV,    /* one request of max_model_len does not fit */
	EE_FREE_BELOW_UTILIZATION,/* free memory at start-up below the request */
	EE_CUDA_OOM,              /* PyTorch's "CUDA out of memory" */
	EE_GRAPH_CAPTURE_OOM,
	EE_ENGINE_DEAD,           /* the engine process died or did not start */
	EE_PREFILL_OOM,
	EE_SHARD_CANNOT_START,
	EE_DECODE_OOM,
	EE_RETRACT,               /* SGLang gave back requests: KV cache full */
	EE_NCCL_OOM,
	EE_CUBLAS_ALLOC_FAILED,
	EE_TRT_OOM,
	EE__COUNT
};

/* Load statistics, one series each (docs/schema.md names them). */
enum engine_stat {
	ES_RUNNING, ES_WAITING, ES_SWAPPED,
	ES_GPU_KV_USAGE,      /* percent */
	ES_CPU_KV_USAGE,      /* percent */
	ES_SWA_KV_USAGE,      /* percent, SGLang's sliding-window pool */
	ES_PREFIX_HIT_RATE,   /* percent */
	ES_PROMPT_TPS, ES_GEN_TPS,
	ES__COUNT
};

#define ENGINE_LINE_MAX_FACTS 12

/* What one line says. Facts and stats appear in the order read. */
struct engine_line {
	enum engine_kind engine;   /* who prints this wording; NONE if unsure */
	int nfacts;
	struct { enum engine_fact key; double value; } facts[ENGINE_LINE_MAX_FACTS];
	unsigned stats_set;        /* bit i: stats[i] is set */
	double stats[ES__COUNT];
	enum engine_error error;
	int preempted;             /* a preemption warning */
	int64_t preempt_total;     /* its cumulative count, or -1 */
	int rank;                  /* SGLang "TPn" / TGI "rank=n", or -1 */
	char version[48];          /* "" unless the line states it */
};

/* Read one line. Returns 1 if it said anything, 0 if not. Bounded work:
 * one pass over the line to find anchors, then a bounded parse at each. */
int engine_line(const char *line, size_t n, struct engine_line *out);

/* Names for the timeline and the JSON ("vllm", "kv_cache_bytes",
 * "kv_no_memory", "server.running"...). */
const char *engine_kind_name(enum engine_kind k);
const char *engine_fact_name(enum engine_fact f);
const char *engine_error_name(enum engine_error e);
const char *engine_stat_series(enum engine_stat s);
const char *engine_stat_unit(enum engine_stat s);

#endif
