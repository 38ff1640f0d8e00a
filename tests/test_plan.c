/*
 * test_plan.c -- the plan model (analyzer/plan/) on the config.json
 * figures of real models, where the answer is known from the models'
 * cards or the engines' code: DeepSeek-V3's parameter count (671B without
 * the MTP layer) and its MLA latent per token (61 x (512 + 64) x 2 B, as
 * vLLM's MLAAttentionSpec sizes it); Gemma 2's alternating sliding-window
 * layers and Qwen3-Next's linear-attention layers; KV heads replicated
 * when TP exceeds them; the card table with MIG; the config reader
 * refusing what is not a model (untrusted input); vLLM's profile run
 * by version (the dummy sampler's logits, V1's defaults by card); and
 * the cases of issue 28's second pass: SGLang's pool and its default
 * fraction by version, vLLM's MXFP4 padding and its V0 fallback on ROCm,
 * the AMD cards, pipeline stages (figures from
 * tests/data/real/plan/MANIFEST.tsv).
 */
#include "testutil.h"
#include "analyzer/plan/gpus.h"
#include "analyzer/plan/plan.h"

#include <math.h>
#include <string.h>

/* deepseek-ai/DeepSeek-V3 config.json (the architecture fields) */
static const char deepseek_v3[] =
	"{\"model_type\": \"deepseek_v3\", \"hidden_size\": 7168, \"intermediate_size\": 18432,"
	" \"moe_intermediate_size\": 2048, \"num_hidden_layers\": 61, \"num_attention_heads\": 128,"
	" \"num_key_value_heads\": 128, \"q_lora_rank\": 1536, \"kv_lora_rank\": 512,"
	" \"qk_rope_head_dim\": 64, \"qk_nope_head_dim\": 128, \"v_head_dim\": 128,"
	" \"n_routed_experts\": 256, \"n_shared_experts\": 1, \"num_experts_per_tok\": 8,"
	" \"first_k_dense_replace\": 3, \"moe_layer_freq\": 1, \"vocab_size\": 129280,"
	" \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\","
	" \"max_position_embeddings\": 163840,"
	" \"quantization_config\": {\"quant_method\": \"fp8\", \"weight_block_size\": [128, 128]}}";

/* google/gemma-2-9b config.json */
static const char gemma2_9b[] =
	"{\"model_type\": \"gemma2\", \"hidden_size\": 3584, \"intermediate_size\": 14336,"
	" \"num_hidden_layers\": 42, \"num_attention_heads\": 16, \"num_key_value_heads\": 8,"
	" \"head_dim\": 256, \"sliding_window\": 4096, \"vocab_size\": 256000,"
	" \"torch_dtype\": \"float32\", \"max_position_embeddings\": 8192}";

/* Qwen/Qwen3-Next-80B-A3B-Instruct config.json */
static const char qwen3_next[] =
	"{\"model_type\": \"qwen3_next\", \"hidden_size\": 2048, \"intermediate_size\": 5120,"
	" \"moe_intermediate_size\": 512, \"shared_expert_intermediate_size\": 512,"
	" \"num_hidden_layers\": 48, \"num_attention_heads\": 16, \"num_key_value_heads\": 2,"
	" \"head_dim\": 256, \"full_attention_interval\": 4, \"num_experts\": 512,"
	" \"num_experts_per_tok\": 10, \"vocab_size\": 151936, \"torch_dtype\": \"bfloat16\"}";

static void parse(const char *text, struct pl_arch *a)
{
	char err[256] = "";
	int rc = pl_config_parse(text, strlen(text), a, err, sizeof(err));
	if (rc)
		fail_msg("config refused: %s", err);
}

static void deepseek_v3_params_and_mla_latent(void **state)
{
	struct pl_arch a;
	double n;

	(void)state;
	parse(deepseek_v3, &a);
	assert_true(a.mla);
	n = pl_param_count(&a);
	assert_true(fabs(n - 671e9) / 671e9 < 0.01);
	/* the latent is the same on every rank: TP does not divide it */
	assert_int_equal(pl_kv_bytes_per_token(&a, 1, 1, 2), 61 * (512 + 64) * 2);
	assert_int_equal(pl_kv_bytes_per_token(&a, 8, 1, 2), 61 * (512 + 64) * 2);
	/* FP8 with 128x128 block scales: about a byte a weight, 671 GB over 8 cards */
	assert_true(pl_weights_bytes(&a, 8, 1, PL_Q_FP8, 2) > 80e9);
	assert_true(pl_weights_bytes(&a, 8, 1, PL_Q_FP8, 2) < 90e9);
}

static void gemma2_alternates_sliding_layers(void **state)
{
	struct pl_arch a;

	(void)state;
	parse(gemma2_9b, &a);
	assert_int_equal(a.n_full, 21);
	assert_int_equal(a.n_swa, 21);
	assert_int_equal(a.tie, 1);            /* Gemma ties its head by default */
	assert_int_equal(a.dtype_bytes, 2);    /* fp32 checkpoint served in 16 bits */
	assert_int_equal(pl_kv_bytes_per_token(&a, 1, 1, 2), 42 * 2 * 8 * 256 * 2);
	/* 9.24B parameters (the model card) */
	assert_true(fabs(pl_param_count(&a) - 9.24e9) / 9.24e9 < 0.02);
}

static void qwen3_next_linear_layers_hold_no_kv(void **state)
{
	struct pl_arch a;

	(void)state;
	parse(qwen3_next, &a);
	assert_int_equal(a.n_full, 12);
	assert_int_equal(a.n_linear, 36);
	assert_int_equal(pl_kv_bytes_per_token(&a, 1, 1, 2), 12 * 2 * 2 * 256 * 2);
}

static void kv_heads_replicate_past_their_number(void **state)
{
	struct pl_arch a;

	(void)state;
	parse(qwen3_next, &a);                 /* 2 KV heads */
	assert_int_equal(pl_kv_heads_per_rank(&a, 1), 2);
	assert_int_equal(pl_kv_heads_per_rank(&a, 2), 1);
	assert_int_equal(pl_kv_heads_per_rank(&a, 8), 1);
}

static void config_refuses_what_is_not_a_model(void **state)
{
	static const char *const bad[] = {
		"[1, 2]",
		"{\"num_hidden_layers\": \"32\", \"hidden_size\": 4096, \"num_attention_heads\": 32,"
		" \"vocab_size\": 32000}",
		"{\"num_hidden_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32}",
		"{\"num_hidden_layers\": 32, \"hidden_size\": 4096, \"num_attention_heads\": 32,"
		" \"num_key_value_heads\": 64, \"vocab_size\": 32000}",
		"{\"num_hidden_layers\": -1, \"hidden_size\": 4096, \"num_attention_heads\": 32,"
		" \"vocab_size\": 32000}",
		"{\"num_hidden_layers\": 2, \"hidden_size\": 64, \"num_attention_heads\": 2,"
		" \"vocab_size\": 10, \"layer_types\": [\"full_attention\"]}",
		"{\"num_hidden_layers\": 2, \"num_hidden_layers\": 3}",
	};
	struct pl_arch a;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		assert_int_equal(pl_config_parse(bad[i], strlen(bad[i]), &a, err, sizeof(err)), -1);
		assert_true(err[0] != 0);
	}
}

static void card_table_knows_mig_profiles(void **state)
{
	const struct pl_gpu *g;

	(void)state;
	g = pl_gpu_find("H100");
	assert_non_null(g);
	assert_true(g->mib > 79 * 1024 && g->mib < 80 * 1024);   /* 79.2 GiB, not 80 GB */
	g = pl_gpu_find("a100-40gb/3g.20gb");
	assert_non_null(g);
	assert_true(g->mib < 20 * 1024);
	assert_null(pl_gpu_find("h1000"));
}

static void misfit_gets_a_value_that_fits(void **state)
{
	struct pl_arch a;
	struct pl_settings s = { .engine = PL_VLLM, .max_model_len = -1, .max_num_seqs = -1,
				 .block_size = -1, .max_batched_tokens = -1, .weights_given = -1,
				 .non_kv_given = -1, .kv_given = -1 };
	struct pl_result r, again;
	char err[256];

	(void)state;
	parse(gemma2_9b, &a);
	s.gpu_bytes = pl_gpu_find("l4")->mib * 1048576LL;
	s.max_model_len = 65536;
	pl_settings_defaults(&s, &a);
	assert_int_equal(pl_plan(&a, &s, &r, err, sizeof(err)), 0);
	assert_false(r.fits);
	assert_string_equal(r.knob, "max_model_len");
	s.max_model_len = atoll(r.value);
	assert_int_equal(pl_estimate(&a, &s, &again, err, sizeof(err)), 0);
	assert_true(again.fits);
}

/* meta-llama/Llama-3.1-8B-Instruct config.json (the architecture fields) */
static const char llama31_8b[] =
	"{\"model_type\": \"llama\", \"hidden_size\": 4096, \"intermediate_size\": 14336,"
	" \"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"num_key_value_heads\": 8,"
	" \"vocab_size\": 128256, \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\","
	" \"max_position_embeddings\": 131072}";

/* Plan's non-KV estimate for Llama-3.1-8B on an H100 (79.18 GiB) at a
 * vLLM version and sampler, defaults filled. */
static struct pl_result llama_on_h100(int version, int sampler, int a100)
{
	struct pl_arch a;
	struct pl_settings s = { .engine = PL_VLLM, .max_model_len = 16000, .max_num_seqs = -1,
				 .block_size = -1, .max_batched_tokens = -1, .weights_given = -1,
				 .non_kv_given = -1, .kv_given = -1 };
	struct pl_result r;
	char err[256];

	parse(llama31_8b, &a);
	s.gpu_bytes = (int64_t)(79.18 * PL_GIB);
	s.version = version;
	s.sampler = sampler;
	s.card_a100 = a100;
	pl_settings_defaults(&s, &a);
	assert_int_equal(pl_estimate(&a, &s, &r, err, sizeof(err)), 0);
	return r;
}

/* As llama_on_h100, on an AMD card (rocm) or not. */
static struct pl_result llama_on_card(int version, int rocm)
{
	struct pl_arch a;
	struct pl_settings s = { .engine = PL_VLLM, .max_model_len = 16000, .max_num_seqs = -1,
				 .block_size = -1, .max_batched_tokens = -1, .weights_given = -1,
				 .non_kv_given = -1, .kv_given = -1 };
	struct pl_result r;
	char err[256];

	parse(llama31_8b, &a);
	s.gpu_bytes = pl_gpu_find("mi300x")->mib * 1048576LL;
	s.version = version;
	s.card_rocm = rocm;
	pl_settings_defaults(&s, &a);
	assert_int_equal(pl_estimate(&a, &s, &r, err, sizeof(err)), 0);
	return r;
}

static void vllm_profile_run_by_version(void **state)
{
	struct pl_result r;

	(void)state;
	assert_int_equal(pl_version_parse("0.10.1.1"), PL_VERSION(0, 10, 1));
	assert_int_equal(pl_version_parse("v0.9.x"), PL_VERSION(0, 9, 0));
	assert_int_equal(pl_version_parse("main 2026-07"), -1);
	/* 0.11 on an H100: 1024 requests' logits on the native sampler, 39 B
	 * each: vLLM printed 4.76 GiB of activation peak, 0.13 of non-torch */
	r = llama_on_h100(PL_VERSION(0, 11, 0), PL_SAMPLER_DEFAULT, 0);
	assert_int_equal(r.used.max_num_seqs, 1024);
	assert_int_equal(r.used.max_batched_tokens, 8192);
	assert_true(fabs(r.non_kv_bytes / PL_GIB - 4.89) < 0.05);
	/* 0.10 samples with FlashInfer: a quarter of that; native again when told */
	assert_true(llama_on_h100(PL_VERSION(0, 10, 1), PL_SAMPLER_DEFAULT, 0).activation_bytes <
		    r.activation_bytes / 3);
	assert_int_equal(llama_on_h100(PL_VERSION(0, 10, 1), PL_SAMPLER_NATIVE, 0).activation_bytes,
			 r.activation_bytes);
	/* an A100 gets V1's small-card defaults; V0 (0.6) keeps its own: no
	 * chunked prefill at 16000 tokens, the profile takes max_model_len */
	assert_int_equal(llama_on_h100(PL_VERSION(0, 11, 0), 0, 1).used.max_num_seqs, 256);
	assert_int_equal(llama_on_h100(PL_VERSION(0, 6, 4), 0, 0).used.max_batched_tokens, 16000);
	assert_int_equal(llama_on_h100(PL_VERSION(0, 6, 4), 0, 0).non_torch_bytes,
			 (int64_t)(0.5 * PL_GIB));
}

/* SGLang's default mem_fraction_static by version (ServerArgs): the 0.4
 * table by TP size (the 0.4.3 log at TP 4 prints 0.85), the 0.3 one (0.83
 * at TP 8), and from 0.5.3 (card - reserved) / card in MiB. */
static double sglang_default(int version, int tp, const char *card)
{
	struct pl_arch a;
	struct pl_settings s = { .engine = PL_SGLANG, .max_model_len = -1, .max_num_seqs = -1,
				 .block_size = -1, .max_batched_tokens = -1, .weights_given = -1,
				 .non_kv_given = -1, .kv_given = -1 };

	parse(llama31_8b, &a);
	s.gpu_bytes = pl_gpu_find(card)->mib * 1048576LL;
	s.version = version;
	s.tp = tp;
	pl_settings_defaults(&s, &a);
	return s.util;
}

static void sglang_fraction_by_version(void **state)
{
	(void)state;
	assert_true(fabs(sglang_default(PL_VERSION(0, 4, 3), 4, "l4") - 0.85) < 1e-9);
	assert_true(fabs(sglang_default(PL_VERSION(0, 4, 4), 1, "h200") - 0.88) < 1e-9);
	assert_true(fabs(sglang_default(PL_VERSION(0, 4, 4), 8, "h100") - 0.81) < 1e-9);
	assert_true(fabs(sglang_default(PL_VERSION(0, 3, 0), 8, "h100") - 0.83) < 1e-9);
	/* 0.5.3: 512 + 8192 x 1.5 + 256 x 2 + 128 MiB reserved of 81121 */
	assert_true(fabs(sglang_default(PL_VERSION(0, 5, 3), 1, "h100") - 0.834) < 1e-9);
	/* at TP 8 on an H200 (143155 MiB): 512 + 12288 + 1024 + 1024 = 0.896,
	 * what sgl-project/sglang#11716's pool implies */
	assert_true(fabs(sglang_default(0, 8, "h200") - 0.896) < 1e-9);
	/* a card below 35 GiB: 2048 tokens of prefill, 24 graphs */
	assert_true(fabs(sglang_default(0, 1, "l4") - 0.833) < 1e-9);
}

/* Qwen/QwQ-32B's figures (the Qwen2.5-32B architecture) */
static const char qwq_32b[] =
	"{\"model_type\": \"qwen2\", \"hidden_size\": 5120, \"intermediate_size\": 27648,"
	" \"num_attention_heads\": 40, \"num_key_value_heads\": 8, \"num_hidden_layers\": 64,"
	" \"vocab_size\": 152064, \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\"}";

/* google/gemma-3-4b-it: text_config and a vision tower */
static const char gemma3_4b[] =
	"{\"model_type\": \"gemma3\", \"text_config\": {\"model_type\": \"gemma3_text\","
	" \"hidden_size\": 2560, \"intermediate_size\": 10240, \"num_hidden_layers\": 34,"
	" \"num_attention_heads\": 8, \"num_key_value_heads\": 4, \"head_dim\": 256,"
	" \"sliding_window\": 1024, \"sliding_window_pattern\": 6, \"vocab_size\": 262208},"
	" \"vision_config\": {\"model_type\": \"siglip_vision_model\"},"
	" \"torch_dtype\": \"bfloat16\"}";

/* SGLang's pool (ModelRunner.profile_max_num_token): the memory free
 * before the weights x the fraction, less the weights; a multimodal model's
 * fraction x 0.95 in 0.4. The logs: QwQ-32B at TP 4 on L4s, 46611 tokens
 * after 15.54 GB of weights (llms-in-clouds); Gemma 3 4B on an H200,
 * 834615 tokens at 0.88 (sgl-project/sglang#4826). */
static void sglang_pool_from_the_logs(void **state)
{
	struct pl_arch a;
	struct pl_settings s = { .engine = PL_SGLANG, .max_model_len = 131072, .max_num_seqs = -1,
				 .block_size = -1, .max_batched_tokens = -1, .weights_given = -1,
				 .non_kv_given = -1, .kv_given = -1 };
	struct pl_result r;
	char err[256];

	(void)state;
	parse(qwq_32b, &a);
	assert_false(a.multimodal);
	s.gpu_bytes = pl_gpu_find("l4")->mib * 1048576LL;
	s.tp = 4;
	s.util = 0.85;
	s.version = PL_VERSION(0, 4, 3);
	s.weights_given = (int64_t)(15.54 * PL_GIB);
	pl_settings_defaults(&s, &a);
	assert_int_equal(pl_estimate(&a, &s, &r, err, sizeof(err)), 0);
	assert_true(fabs(r.kv_cache_tokens / 46611.0 - 1) < 0.05);

	parse(gemma3_4b, &a);
	assert_true(a.multimodal);
	assert_true(a.tie);                       /* Gemma ties by default */
	s.gpu_bytes = pl_gpu_find("h200")->mib * 1048576LL;
	s.tp = 1;
	s.util = 0.88;
	s.version = PL_VERSION(0, 4, 4);
	s.weights_given = (int64_t)(8.13 * PL_GIB);
	s.kv_dtype_bytes = 0;
	pl_settings_defaults(&s, &a);
	assert_int_equal(pl_estimate(&a, &s, &r, err, sizeof(err)), 0);
	assert_true(fabs(r.kv_cache_tokens / 834615.0 - 1) < 0.02);
	/* without the multimodal reduction it would be 5 % more */
	a.multimodal = 0;
	assert_int_equal(pl_estimate(&a, &s, &r, err, sizeof(err)), 0);
	assert_true(r.kv_cache_tokens > 834615 * 1.04);
}

/* openai/gpt-oss-120b (the fields the weights read) */
static const char gpt_oss_120b[] =
	"{\"model_type\": \"gpt_oss\", \"hidden_size\": 2880, \"intermediate_size\": 2880,"
	" \"num_attention_heads\": 64, \"num_key_value_heads\": 8, \"head_dim\": 64,"
	" \"num_hidden_layers\": 36, \"num_local_experts\": 128, \"num_experts_per_tok\": 4,"
	" \"vocab_size\": 201088, \"tie_word_embeddings\": false, \"attention_bias\": true,"
	" \"torch_dtype\": \"bfloat16\", \"quantization_config\": {\"quant_method\": \"mxfp4\"}}";

/* vLLM pads the MXFP4 experts for its kernels: gpt-oss-120b printed 64.38
 * GiB at TP 1 on an H100 (0.11.0, llm-d) and 17.22 GiB per rank at TP 4 on
 * A100s (0.10.1.1, Marlin); unpadded, the second is 12 % short. */
static void mxfp4_experts_padded_as_vllm_loads_them(void **state)
{
	struct pl_arch a;
	struct pl_settings s = { .engine = PL_VLLM, .max_model_len = 16384, .max_num_seqs = -1,
				 .block_size = -1, .max_batched_tokens = -1, .weights_given = -1,
				 .non_kv_given = -1, .kv_given = -1 };
	struct pl_result r;
	char err[256];

	(void)state;
	parse(gpt_oss_120b, &a);
	assert_int_equal(a.quant, PL_Q_MXFP4);
	s.gpu_bytes = pl_gpu_find("h100")->mib * 1048576LL;
	pl_settings_defaults(&s, &a);
	assert_int_equal(pl_estimate(&a, &s, &r, err, sizeof(err)), 0);
	assert_true(fabs(r.weights_bytes / PL_GIB / 64.38 - 1) < 0.01);
	s.gpu_bytes = pl_gpu_find("a100-80gb")->mib * 1048576LL;
	s.card_a100 = 1;
	s.tp = 4;
	assert_int_equal(pl_estimate(&a, &s, &r, err, sizeof(err)), 0);
	assert_true(fabs(r.weights_bytes / PL_GIB / 17.22 - 1) < 0.01);
	assert_true(pl_weights_bytes(&a, 4, 1, PL_Q_MXFP4, 2) < 0.9 * 17.22 * PL_GIB);
}

/* AMD cards in the table, and vLLM's V0 fallback on ROCm ("rocm is
 * experimental on VLLM_USE_V1=1. Falling back to V0 Engine."): before 0.9
 * on Instinct cards, before 0.10 on Radeon ones; the V0 non-torch figure,
 * not V1's. */
static void rocm_cards_and_vllm_v0_fallback(void **state)
{
	const struct pl_gpu *g;
	struct pl_result cuda, rocm;

	(void)state;
	g = pl_gpu_find("MI300X");
	assert_non_null(g);
	assert_true(g->rocm);
	assert_true(g->mib > 191 * 1024 && g->mib < 192 * 1024);
	assert_non_null(pl_gpu_find("mi250x"));
	assert_non_null(pl_gpu_find("w7900"));
	assert_int_equal(pl_gpu_find("rx7900xtx")->rocm, 2);
	assert_false(pl_gpu_find("h100")->rocm);
	cuda = llama_on_h100(PL_VERSION(0, 8, 5), PL_SAMPLER_DEFAULT, 0);
	assert_int_equal(cuda.non_torch_bytes, (int64_t)(0.13 * PL_GIB));
	rocm = llama_on_card(PL_VERSION(0, 8, 5), 1);
	assert_int_equal(rocm.non_torch_bytes, (int64_t)(0.5 * PL_GIB));
	assert_int_equal(llama_on_card(PL_VERSION(0, 9, 2), 1).non_torch_bytes,
			 (int64_t)(0.13 * PL_GIB));
	assert_int_equal(llama_on_card(PL_VERSION(0, 9, 2), 2).non_torch_bytes,
			 (int64_t)(0.5 * PL_GIB));
}

/* deepseek-ai/DeepSeek-V2-Lite config.json (the architecture fields) */
static const char deepseek_v2_lite[] =
	"{\"model_type\": \"deepseek_v2\", \"hidden_size\": 2048, \"intermediate_size\": 10944,"
	" \"moe_intermediate_size\": 1408, \"num_hidden_layers\": 27, \"num_attention_heads\": 16,"
	" \"num_key_value_heads\": 16, \"kv_lora_rank\": 512, \"qk_rope_head_dim\": 64,"
	" \"qk_nope_head_dim\": 128, \"v_head_dim\": 128, \"n_routed_experts\": 64,"
	" \"n_shared_experts\": 2, \"num_experts_per_tok\": 6, \"first_k_dense_replace\": 1,"
	" \"moe_layer_freq\": 1, \"vocab_size\": 102400, \"tie_word_embeddings\": false,"
	" \"torch_dtype\": \"bfloat16\"}";

/* vLLM V1 under PP keeps the fewest blocks any stage holds: DeepSeek-V2-
 * Lite at TP 2 x PP 2 on L4s printed 12.13 GiB on the first stage (14
 * layers x 576 x 2 B per token, the latent not split by TP) and 807792
 * tokens (vllm-project/vllm#20665); the first stage binds. */
static void pipeline_stages_bind_the_pool(void **state)
{
	struct pl_arch a;
	struct pl_settings s = { .engine = PL_VLLM, .max_model_len = 1024, .max_num_seqs = -1,
				 .block_size = -1, .max_batched_tokens = -1, .weights_given = -1,
				 .non_kv_given = -1, .kv_given = -1 };
	struct pl_result r;
	char err[256];

	(void)state;
	parse(deepseek_v2_lite, &a);
	s.gpu_bytes = pl_gpu_find("l4")->mib * 1048576LL;
	s.tp = 2;
	s.pp = 2;
	s.version = PL_VERSION(0, 9, 2);
	pl_settings_defaults(&s, &a);
	assert_int_equal(pl_estimate(&a, &s, &r, err, sizeof(err)), 0);
	assert_int_equal(r.kv_bytes_per_token, 14 * 576 * 2);
	assert_true(fabs(r.kv_cache_tokens / 807792.0 - 1) < 0.05);
	/* the first stage holds the embedding, no head */
	assert_true(r.weights_bytes < pl_stage_weights_bytes(&a, 2, 0, 14, PL_Q_NONE, 2, 1, 1, 1, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(deepseek_v3_params_and_mla_latent),
		cmocka_unit_test(gemma2_alternates_sliding_layers),
		cmocka_unit_test(qwen3_next_linear_layers_hold_no_kv),
		cmocka_unit_test(kv_heads_replicate_past_their_number),
		cmocka_unit_test(config_refuses_what_is_not_a_model),
		cmocka_unit_test(card_table_knows_mig_profiles),
		cmocka_unit_test(misfit_gets_a_value_that_fits),
		cmocka_unit_test(vllm_profile_run_by_version),
		cmocka_unit_test(sglang_fraction_by_version),
		cmocka_unit_test(sglang_pool_from_the_logs),
		cmocka_unit_test(mxfp4_experts_padded_as_vllm_loads_them),
		cmocka_unit_test(rocm_cards_and_vllm_v0_fallback),
		cmocka_unit_test(pipeline_stages_bind_the_pool),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
