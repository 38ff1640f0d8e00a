/*
 * knobs.c -- which engine the incident ran under, and how that engine
 * spells a knob (lib/engine_knobs.h's table), for every rule whose advice
 * names one: SGLang is told --mem-fraction-static, TensorRT-LLM
 * kv_cache_config.free_gpu_memory_fraction, Ollama num_ctx, never vLLM's
 * flags by default when the log says which engine it was.
 */
#include "analyzer/rules/rulelib.h"

#include <stdio.h>

enum engine_kind rl_engine_kind(struct rule_ctx *c)
{
	enum engine_kind k = ENGINE_NONE;
	char name[64];
	sqlite3_stmt *st;

	if (q_has_table(c->db, "engine") &&
	    (st = rl_prepare(c, "SELECT engine FROM engine ORDER BY id")) != NULL) {
		while (k == ENGINE_NONE && sqlite3_step(st) == SQLITE_ROW) {
			enum engine_kind e = engine_kind_from_name(
				(const char *)sqlite3_column_text(st, 0));
			if (engine_kind_named(e))
				k = e;
		}
		sqlite3_finalize(st);
	}
	if (k == ENGINE_NONE && rl_meta_text(c, "server.name", name, sizeof(name)) == 0)
		k = engine_kind_from_name(name);
	/* the engine the launch command pasted beside the failure starts
	 * (parsers/serving/launch_conf.h): a witness where the logs name none */
	if (!engine_kind_named(k) && rl_meta_text(c, "launch.engine", name, sizeof(name)) == 0)
		k = engine_kind_from_name(name);
	return engine_kind_named(k) ? k : ENGINE_NONE;
}

const char *rl_flag(struct rule_ctx *c, enum knob_role r)
{
	return engine_knob_flag(rl_engine_kind(c), r);
}

const char *rl_engine_title(struct rule_ctx *c)
{
	static const char *const titles[ENGINE__COUNT] = {
		[ENGINE_VLLM] = "vLLM", [ENGINE_SGLANG] = "SGLang", [ENGINE_TGI] = "TGI",
		[ENGINE_TRTLLM] = "TensorRT-LLM", [ENGINE_TRITON] = "Triton",
		[ENGINE_OLLAMA] = "Ollama", [ENGINE_LLAMACPP] = "llama.cpp",
	};
	enum engine_kind k = rl_engine_kind(c);

	return engine_kind_named(k) && titles[k] ? titles[k] : "vLLM";
}

const char *rl_flag_of(struct rule_ctx *c, const char *name, enum knob_role r)
{
	enum engine_kind k = engine_kind_from_name(name);

	return engine_knob_flag(engine_kind_named(k) ? k : rl_engine_kind(c), r);
}
