/*
 * test_plan_engine.c -- issue 28's third pass on vLLM's engine rules and
 * the model's defaults, each figure from a real start-up log in
 * tests/data/real/plan/MANIFEST.tsv: V0's non-torch memory from 0.7
 * (what grew during the profile run, 0.03-0.30 GiB, not the 2 GiB the
 * free-memory rule of 0.2-0.6 counted), V0's profile of
 * max(max_model_len, 2048) tokens without chunked prefill, and the V1
 * engine switched on in 0.7 (VLLM_USE_V1=1, --v1) or off in 0.8 (--v0);
 * and the head tied or not when config.json does not say, as each
 * model_type's config class in transformers defaults it; Gemma 3's SigLIP
 * vision tower counted from vision_config; the card table's totals as
 * CUDA reports them (PyTorch's "total capacity"), not nvidia-smi's.
 */
#include "testutil.h"
#include "analyzer/plan/gpus.h"
#include "analyzer/plan/plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Qwen/Qwen2.5-32B-Instruct config.json (the architecture fields) */
static const char qwen25_32b[] =
	"{\"model_type\": \"qwen2\", \"hidden_size\": 5120, \"intermediate_size\": 27648,"
	" \"num_attention_heads\": 40, \"num_hidden_layers\": 64, \"num_key_value_heads\": 8,"
	" \"vocab_size\": 152064, \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\","
	" \"max_position_embeddings\": 131072}";

/* neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w8a8 (the fields) */
static const char llama31_70b_w8a8[] =
	"{\"model_type\": \"llama\", \"hidden_size\": 8192, \"intermediate_size\": 28672,"
	" \"num_attention_heads\": 64, \"num_hidden_layers\": 80, \"num_key_value_heads\": 8,"
	" \"vocab_size\": 128256, \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\","
	" \"max_position_embeddings\": 131072, \"quantization_config\": {\"quant_method\":"
	" \"compressed-tensors\", \"config_groups\": {\"group_0\": {\"weights\":"
	" {\"num_bits\": 8, \"type\": \"int\"}}}}}";

static void parse(const char *text, struct pl_arch *a)
{
	char err[256] = "";

	if (pl_config_parse(text, strlen(text), a, err, sizeof(err)))
		fail_msg("config refused: %s", err);
}

/* plan's estimate of a vLLM start-up: the card's total in GiB, TP, the
 * version, the V1 switch (0, 1, -1), util, max_model_len and batched
 * tokens (-1: the engine's default). */
static struct pl_result vllm_run(const char *config, double gib, int tp, int version, int v1,
				 double util, int64_t len, int64_t batched)
{
	struct pl_arch a;
	struct pl_settings s = { .engine = PL_VLLM, .max_num_seqs = -1, .block_size = -1,
				 .weights_given = -1, .non_kv_given = -1, .kv_given = -1 };
	struct pl_result r;
	char err[256];

	parse(config, &a);
	s.gpu_bytes = (int64_t)(gib * PL_GIB);
	s.tp = tp;
	s.version = version;
	s.engine_v1 = v1;
	s.util = util;
	s.max_model_len = len;
	s.max_batched_tokens = batched;
	pl_settings_defaults(&s, &a);
	assert_int_equal(pl_estimate(&a, &s, &r, err, sizeof(err)), 0);
	return r;
}

/* Qwen2.5-32B on two L40S under 0.7 V0 (vllm-project/vllm#15815):
 * non-torch 0.30 GiB, activation peak 1.26 GiB for a profile of
 * max_model_len = 10000 tokens, 3947 blocks. */
static void vllm_v0_non_torch_and_profile_tokens(void **state)
{
	struct pl_result r;

	(void)state;
	r = vllm_run(qwen25_32b, 44.42, 2, PL_VERSION(0, 7, 0), 0, 0.90, 10000, -1);
	assert_int_equal(r.used.max_batched_tokens, 10000);
	assert_true(fabs(r.non_torch_bytes / PL_GIB - 0.30) < 0.05);
	assert_true(fabs(r.activation_bytes / PL_GIB - 1.26) / 1.26 < 0.15);
	assert_true(fabs(r.gpu_blocks / 3947.0 - 1) < 0.10);
	/* past 32K tokens the OpenAI server chunks its prefill: 2048 */
	r = vllm_run(qwen25_32b, 44.42, 2, PL_VERSION(0, 7, 0), 0, 0.90, 131072, -1);
	assert_int_equal(r.used.max_batched_tokens, 2048);
	/* 0.6 and before counted from the free memory: 2 GiB at TP 2 */
	r = vllm_run(qwen25_32b, 44.42, 2, PL_VERSION(0, 6, 4), 0, 0.90, 10000, -1);
	assert_true(fabs(r.non_torch_bytes / PL_GIB - 2.0) < 0.01);
}

/* Llama-3.1-70B w8a8 on an H100 under 0.7.1 with VLLM_USE_V1=1
 * (vllm-project/vllm#12569): 1381 blocks of 16. V0's rule (the
 * version's default) is 30 % off; --v1 brings it within 15 %. */
static void vllm_v1_switched_on_in_0_7(void **state)
{
	struct pl_result v0, v1;

	(void)state;
	v0 = vllm_run(llama31_70b_w8a8, 79.22, 1, PL_VERSION(0, 7, 1), 0, 0.98, 2048, 2048);
	v1 = vllm_run(llama31_70b_w8a8, 79.22, 1, PL_VERSION(0, 7, 1), 1, 0.98, 2048, 2048);
	assert_true(fabs(v0.gpu_blocks / 1381.0 - 1) > 0.15);
	assert_true(fabs(v1.gpu_blocks / 1381.0 - 1) < 0.15);
	/* and V0 asked for on 0.8 (VLLM_USE_V1=0) takes V0's figure */
	v0 = vllm_run(qwen25_32b, 79.22, 4, PL_VERSION(0, 8, 2), -1, 0.90, 8192, -1);
	assert_true(fabs(v0.non_torch_bytes / PL_GIB - 0.30) < 0.01);
}

/* A config.json without tie_word_embeddings: Llama's and Qwen2's
 * classes untie (LlamaConfig, Qwen2Config: False), Falcon's and
 * Starcoder2's tie (PretrainedConfig's True); the head's vocab x hidden
 * weights are counted once or twice accordingly. */
static void tied_head_follows_the_model_types_default(void **state)
{
	static const char fmt[] =
		"{\"model_type\": \"%s\", \"hidden_size\": 4096, \"intermediate_size\": 11008,"
		" \"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"vocab_size\": 32000}";
	static const struct { const char *type; int tie; } cases[] = {
		{ "llama", 0 }, { "qwen2", 0 }, { "mistral", 0 }, { "gpt_neox", 0 },
		{ "falcon", 1 }, { "starcoder2", 1 }, { "gemma", 1 }, { "opt", 1 },
		{ "some_new_type", 1 },
	};
	char text[512];
	struct pl_arch a, b;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), fmt, cases[i].type);
		parse(text, &a);
		assert_int_equal(a.tie, cases[i].tie);
	}
	/* said in the file, the file wins */
	parse("{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
	      " \"num_hidden_layers\": 32, \"vocab_size\": 32000, \"intermediate_size\": 11008,"
	      " \"tie_word_embeddings\": true}", &a);
	assert_int_equal(a.tie, 1);
	snprintf(text, sizeof(text), fmt, "llama");
	parse(text, &b);
	assert_true(fabs(pl_param_count(&b) - pl_param_count(&a) - 32000.0 * 4096) < 1);
}

/* google/gemma-3-4b-it config.json (text_config and vision_config) */
static const char gemma3_4b[] =
	"{\"model_type\": \"gemma3\", \"text_config\": {\"model_type\": \"gemma3_text\","
	" \"hidden_size\": 2560, \"intermediate_size\": 10240, \"num_hidden_layers\": 34,"
	" \"num_attention_heads\": 8, \"num_key_value_heads\": 4, \"head_dim\": 256,"
	" \"sliding_window\": 1024, \"sliding_window_pattern\": 6, \"vocab_size\": 262208,"
	" \"max_position_embeddings\": 131072}, \"vision_config\": {\"model_type\":"
	" \"siglip_vision_model\", \"hidden_size\": 1152, \"intermediate_size\": 4304,"
	" \"num_hidden_layers\": 27, \"num_attention_heads\": 16, \"patch_size\": 14,"
	" \"image_size\": 896}, \"torch_dtype\": \"bfloat16\"}";

/* Gemma 3 4B: SGLang 0.4.4 printed 8.13 GB of weights on an H200
 * (sgl-project/sglang#4826), the SigLIP tower (about 0.42B parameters
 * with the projector) included; the language model alone is 11 % short. */
static void gemma3_vision_tower_is_counted(void **state)
{
	static const char bad_vision[] =
		"{\"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 2,"
		" \"vocab_size\": 10, \"vision_config\": {\"hidden_size\": \"big\"}}";
	struct pl_arch a;
	char err[256];

	(void)state;
	parse(gemma3_4b, &a);
	assert_true(a.multimodal);
	assert_true(a.vision_params > 0.40e9 && a.vision_params < 0.44e9);
	assert_true(fabs(pl_weights_bytes(&a, 1, 1, PL_Q_NONE, 2) / PL_GIB / 8.13 - 1) < 0.03);
	/* half of it on each of two ranks */
	assert_true(fabs(pl_weights_bytes(&a, 2, 1, PL_Q_NONE, 2) * 2.0 /
			 pl_weights_bytes(&a, 1, 1, PL_Q_NONE, 2) - 1) < 0.01);
	/* a vision_config that gives too little is not guessed at */
	parse("{\"model_type\": \"llava\", \"text_config\": {\"model_type\": \"llama\","
	      " \"hidden_size\": 4096, \"intermediate_size\": 11008, \"num_hidden_layers\": 32,"
	      " \"num_attention_heads\": 32, \"vocab_size\": 32064}, \"vision_config\":"
	      " {\"model_type\": \"clip_vision_model\"}}", &a);
	assert_true(a.multimodal);
	assert_true(a.vision_params == 0);
	/* nor one that is not a number */
	assert_int_equal(pl_config_parse(bad_vision, strlen(bad_vision), &a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "hidden_size"));
}

/* The table holds cudaMemGetInfo's total, as PyTorch's OOM messages
 * print it: 14.74 GiB on a T4 (nvidia-smi 15360MiB), 22.03 on an L4
 * (23034MiB), 21.99 on an A10G (23028MiB); an entry seen only in
 * nvidia-smi says what it took off. */
static void card_totals_are_what_cuda_reports(void **state)
{
	static const struct { const char *name; double gib; } seen[] = {
		{ "t4", 14.74 }, { "l4", 22.03 }, { "a10", 21.99 }, { "a10g", 21.99 },
		{ "v100-32gb", 31.74 }, { "a6000", 47.53 }, { "h100", 79.22 },
	};
	static const char *const all[] = {
		"h100-80gb", "h100-94gb", "h20", "h200", "gh200", "b200", "a100-80gb", "a100-40gb",
		"l40s", "l40", "a6000", "rtx6000-ada", "a10g", "l4", "t4", "v100-16gb", "v100-32gb",
		"rtx3090", "rtx4090", "rtx5090",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(seen) / sizeof(seen[0]); i++) {
		const struct pl_gpu *g = pl_gpu_find(seen[i].name);
		assert_non_null(g);
		assert_true(fabs(g->mib / 1024.0 - seen[i].gib) < 0.006);
	}
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		const struct pl_gpu *g = pl_gpu_find(all[i]);
		assert_non_null(g);
		/* a bare nvidia-smi figure is not what CUDA reports */
		if (!strncmp(g->source, "nvidia-smi", 10))
			assert_true(strstr(g->source, "less") || strstr(g->source, "not seen"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vllm_v0_non_torch_and_profile_tokens),
		cmocka_unit_test(vllm_v1_switched_on_in_0_7),
		cmocka_unit_test(tied_head_follows_the_model_types_default),
		cmocka_unit_test(gemma3_vision_tower_is_counted),
		cmocka_unit_test(card_totals_are_what_cuda_reports),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
