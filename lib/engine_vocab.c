/*
 * engine_vocab.c -- the names of the serving engines' vocabulary
 * (engine_vocab.h): engines, accounting facts, errors, load series.
 */
#include "lib/engine_vocab.h"
#include "lib/vocab.h"

const char *engine_kind_name(enum engine_kind k)
{
	static const char *const names[ENGINE__COUNT] = { "unknown", "vllm", "sglang", "tgi",
							  "tensorrt-llm", "triton", "ollama",
							  "llama.cpp", "lmdeploy", "pytorch" };
	return (unsigned)k < ENGINE__COUNT ? names[k] : "unknown";
}

#define ENGINE_FACT_NAME(key, name, integer) #name,
#define ENGINE_FACT_INTEGER(key, name, integer) integer,
static const char *const fact_names[EF__COUNT] = { ENGINE_FACTS(ENGINE_FACT_NAME) };
static const char fact_integer[EF__COUNT] = { ENGINE_FACTS(ENGINE_FACT_INTEGER) };

const char *engine_fact_name(enum engine_fact f)
{
	return (unsigned)f < EF__COUNT ? fact_names[f] : "unknown";
}

int engine_fact_integer(enum engine_fact f)
{
	return (unsigned)f < EF__COUNT && fact_integer[f];
}

const char *engine_error_name(enum engine_error e)
{
	static const char *const names[EE__COUNT] = {
		"none", "kv_no_memory", "max_len_exceeds_kv", "free_below_utilization",
		"cuda_oom", "graph_capture_oom", "engine_dead", "prefill_oom",
		"shard_cannot_start", "decode_oom", "retract", "nccl_oom",
		"cublas_alloc_failed", "trt_oom", "expandable_unsupported", "cumem_error",
	};
	return (unsigned)e < EE__COUNT ? names[e] : "unknown";
}

/* The load series are declared in lib/vocab.h, with their units. */
static const enum vocab_series stat_series[ES__COUNT] = {
	VS_SERVER_RUNNING, VS_SERVER_WAITING, VS_SERVER_SWAPPED, VS_SERVER_GPU_KV_USAGE,
	VS_SERVER_CPU_KV_USAGE, VS_SERVER_SWA_KV_USAGE, VS_SERVER_PREFIX_CACHE_HIT_RATE,
	VS_SERVER_PROMPT_TOKENS_PER_S, VS_SERVER_GEN_TOKENS_PER_S,
};

const char *engine_stat_series(enum engine_stat s)
{
	return (unsigned)s < ES__COUNT ? vocab_series_name(stat_series[s]) : "unknown";
}

const char *engine_stat_unit(enum engine_stat s)
{
	return (unsigned)s < ES__COUNT ? vocab_series_unit(stat_series[s]) : "unknown";
}

const char *oom_phase_name(enum oom_phase p)
{
	return (unsigned)p < OOM_PHASE__COUNT ? vocab_phase(p) : "unknown";
}
