/*
 * test_plan_free.c -- plan's reading of a checkpoint's quantisation and
 * its rule for memory other processes hold (analyzer/plan/quant.c,
 * pool.c), on the figures of real cases: the AWQ quantization_config as
 * AutoAWQ writes it (transformers' docs, TheBloke/zephyr-7B-alpha-AWQ),
 * bitsandbytes' NF4 with double quantisation, names from the Hub
 * (-AWQ, -GPTQ-Int8, -bnb-4bit, -Q4_K_M); the 4-bit Qwen2.5-7B of
 * vllm#13882 whose vLLM printed 5.20 GiB of weights, llama.cpp's 4.58G
 * Q4_K_M Llama-3-8B; and the two vLLM 0.9.2 start-ups refused because
 * another process held the card (kvcached#110: 67.24 of 79.25 GiB free).
 */
#include "testutil.h"
#include "analyzer/plan/plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Qwen/Qwen2.5-7B-Instruct config.json (the architecture fields) */
#define QWEN25_7B \
	"\"model_type\": \"qwen2\", \"hidden_size\": 3584, \"intermediate_size\": 18944," \
	" \"num_attention_heads\": 28, \"num_hidden_layers\": 28, \"num_key_value_heads\": 4," \
	" \"vocab_size\": 152064, \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\"," \
	" \"max_position_embeddings\": 32768"

/* meta-llama/Llama-3.1-8B config.json (the architecture fields) */
#define LLAMA31_8B \
	"\"model_type\": \"llama\", \"hidden_size\": 4096, \"intermediate_size\": 14336," \
	" \"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"num_key_value_heads\": 8," \
	" \"vocab_size\": 128256, \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\"," \
	" \"max_position_embeddings\": 131072"

static void parse(const char *text, struct pl_arch *a)
{
	char err[256] = "";

	if (pl_config_parse(text, strlen(text), a, err, sizeof(err)))
		fail_msg("config refused: %s", err);
}

static double gib_weights(const struct pl_arch *a)
{
	return pl_weights_bytes(a, 1, 1, a->quant, 2) / PL_GIB;
}

static void quantization_config_is_read_with_its_scales(void **state)
{
	struct pl_arch a;
	char err[256];
	static const char bad[] = "{" QWEN25_7B ", \"quantization_config\":"
				  " {\"quant_method\": \"awq\", \"bits\": \"4\"}}";

	(void)state;
	parse("{" QWEN25_7B ", \"quantization_config\": {\"quant_method\": \"awq\","
	      " \"zero_point\": true, \"group_size\": 128, \"bits\": 4, \"version\": \"gemm\"}}", &a);
	assert_int_equal(a.quant, PL_Q_INT4);
	assert_int_equal(a.quant_src, PL_QS_CONFIG);
	/* 4 bits, a 16-bit scale and a 4-bit zero per group of 128 */
	assert_true(fabs(pl_quant_bytes(&a, a.quant, 2) - (0.5 + 2.5 / 128)) < 1e-9);
	/* a config that says so is not second-guessed by a name */
	assert_int_equal(pl_quant_guess(&a, "Qwen2.5-7B-Instruct-FP8", NULL), 0);
	assert_int_equal(a.quant, PL_Q_INT4);

	parse("{" QWEN25_7B ", \"quantization_config\": {\"quant_method\": \"gptq\","
	      " \"bits\": 8, \"group_size\": 128, \"desc_act\": false}}", &a);
	assert_int_equal(a.quant_bits, 8);
	assert_true(pl_quant_bytes(&a, a.quant, 2) > 1.0);

	parse("{" QWEN25_7B ", \"quantization_config\": {\"quant_method\": \"bitsandbytes\","
	      " \"load_in_4bit\": true, \"load_in_8bit\": false, \"bnb_4bit_quant_type\": \"nf4\","
	      " \"bnb_4bit_use_double_quant\": true, \"bnb_4bit_compute_dtype\": \"bfloat16\"}}", &a);
	assert_int_equal(a.quant, PL_Q_NF4);
	assert_true(a.double_quant);
	/* vLLM printed 5.20 GiB for this 4-bit Qwen2.5-7B (vllm#13882) */
	assert_true(fabs(gib_weights(&a) - 5.20) / 5.20 < 0.02);

	/* bitsandbytes named by its flags alone, no quant_method */
	parse("{" QWEN25_7B ", \"quantization_config\": {\"load_in_8bit\": true,"
	      " \"llm_int8_threshold\": 6.0}}", &a);
	assert_int_equal(a.quant, PL_Q_INT8);

	assert_int_equal(pl_config_parse(bad, strlen(bad), &a, err, sizeof(err)), -1);
}

static void a_name_is_a_labelled_guess(void **state)
{
	struct pl_arch a;

	(void)state;
	parse("{" QWEN25_7B "}", &a);
	assert_int_equal(pl_quant_guess(&a, "/home/sancelot/Qwen2.5-7B-Instruct-bnb-4bit", NULL), 1);
	assert_int_equal(a.quant, PL_Q_NF4);
	assert_int_equal(a.quant_src, PL_QS_NAME);
	assert_string_equal(a.quant_from, "/home/sancelot/Qwen2.5-7B-Instruct-bnb-4bit");
	assert_true(fabs(gib_weights(&a) - 5.20) / 5.20 < 0.02);

	parse("{" QWEN25_7B "}", &a);
	assert_int_equal(pl_quant_from_name("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", &a), 1);
	assert_int_equal(a.quant, PL_Q_INT4);
	assert_int_equal(a.quant_bits, 8);

	parse("{" QWEN25_7B "}", &a);
	assert_int_equal(pl_quant_from_name("Qwen/Qwen2.5-7B-Instruct-AWQ", &a), 1);
	assert_int_equal(a.quant_bits, 4);

	/* the Hub cache names the repository two folders up */
	parse("{" QWEN25_7B "}", &a);
	assert_int_equal(pl_quant_guess(&a, NULL, "/root/.cache/huggingface/hub/models--Qwen--"
				       "Qwen2.5-7B-Instruct-AWQ/snapshots/"
				       "b25037543e9394b818fdfca67ab2a00ecc7dd641/config.json"), 1);
	assert_int_equal(a.quant, PL_Q_INT4);
	assert_string_equal(a.quant_from, "Qwen/Qwen2.5-7B-Instruct-AWQ");

	/* a named format wins over a generic "4bit" */
	parse("{" QWEN25_7B "}", &a);
	assert_int_equal(pl_quant_from_name("TheBloke/Llama-2-7B-Chat-AWQ-4bit", &a), 1);
	assert_int_equal(a.quant, PL_Q_INT4);

	/* llama.cpp prints 4.58G for Llama-3-8B in Q4_K_M */
	parse("{" LLAMA31_8B "}", &a);
	assert_int_equal(pl_quant_from_name("Meta-Llama-3-8B-Instruct-Q4_K_M.gguf", &a), 1);
	assert_int_equal(a.quant, PL_Q_GGUF);
	assert_true(fabs(gib_weights(&a) - 4.58) / 4.58 < 0.03);

	/* a plain name says nothing: no guess */
	parse("{" LLAMA31_8B "}", &a);
	assert_int_equal(pl_quant_guess(&a, "meta-llama/Llama-3.1-8B-Instruct", NULL), 0);
	assert_int_equal(a.quant, PL_Q_NONE);
	assert_int_equal(a.quant_src, PL_QS_NONE);
}

/* Llama-3.1-8B on a 79.25 GiB card under vLLM at version v, with free
 * (GiB, 0: not given) at start-up and fraction u. */
static struct pl_result llama_free(int v, double free, double u, enum pl_engine e,
				   char *knob, char *value)
{
	struct pl_arch a;
	struct pl_settings s;
	struct pl_result r;
	char err[256];

	parse("{" LLAMA31_8B "}", &a);
	memset(&s, 0, sizeof(s));
	s.engine = e;
	s.max_model_len = s.max_num_seqs = s.block_size = s.max_batched_tokens = -1;
	s.weights_given = s.non_kv_given = s.kv_given = -1;
	s.gpu_bytes = (int64_t)(79.25 * PL_GIB);
	s.free_given = (int64_t)(free * PL_GIB);
	s.version = v;
	s.util = u;
	pl_settings_defaults(&s, &a);
	assert_int_equal(pl_plan(&a, &s, &r, err, sizeof(err)), 0);
	if (knob)
		strcpy(knob, r.knob);
	if (value)
		strcpy(value, r.value);
	return r;
}

static void other_processes_by_engine_and_version(void **state)
{
	struct pl_result r, empty;
	char knob[32], value[32];

	(void)state;
	/* vLLM 0.9.2 with 67.24 GiB free: 0.9 x 79.25 = 71.33 is refused */
	empty = llama_free(PL_VERSION(0, 9, 2), 0, 0.9, PL_VLLM, NULL, NULL);
	assert_true(empty.fits);
	r = llama_free(PL_VERSION(0, 9, 2), 67.24, 0.9, PL_VLLM, knob, value);
	assert_false(r.fits);
	assert_true(r.free_short);
	assert_true(fabs(r.start_need_bytes / PL_GIB - 71.33) < 0.01);
	assert_int_equal(r.kv_cache_bytes, empty.kv_cache_bytes);   /* the pool is sized as if empty */
	assert_string_equal(knob, "gpu_memory_utilization");
	assert_string_equal(value, "0.84");
	/* and the advised value starts */
	r = llama_free(PL_VERSION(0, 9, 2), 67.24, atof(value), PL_VLLM, NULL, NULL);
	assert_true(r.fits);
	assert_false(r.free_short);

	/* V1 0.8 counts the others as non-torch memory: the pool loses them */
	r = llama_free(PL_VERSION(0, 8, 5), 67.24, 0.9, PL_VLLM, NULL, NULL);
	empty = llama_free(PL_VERSION(0, 8, 5), 0, 0.9, PL_VLLM, NULL, NULL);
	assert_false(r.free_short);
	assert_true(fabs((empty.kv_cache_bytes - r.kv_cache_bytes) / PL_GIB - 12.01) < 0.01);

	/* V0 checks nothing; it needs weights, non-torch and the pool free */
	r = llama_free(PL_VERSION(0, 7, 3), 67.24, 0.9, PL_VLLM, NULL, NULL);
	assert_true(r.free_short);
	assert_true(r.start_need_bytes > (int64_t)(67.24 * PL_GIB));
	assert_true(llama_free(PL_VERSION(0, 7, 3), 75, 0.9, PL_VLLM, NULL, NULL).fits);

	/* SGLang takes its fraction of what was free: 12.01 GiB x 0.88 less */
	r = llama_free(0, 67.24, 0.88, PL_SGLANG, NULL, NULL);
	empty = llama_free(0, 0, 0.88, PL_SGLANG, NULL, NULL);
	assert_true(fabs((empty.kv_cache_bytes - r.kv_cache_bytes) / PL_GIB - 12.01 * 0.88) < 0.01);

	/* a card another process has nearly filled: no fraction starts */
	r = llama_free(PL_VERSION(0, 9, 2), 10, 0.9, PL_VLLM, knob, NULL);
	assert_false(r.fits);
	assert_string_equal(knob, "");
	assert_non_null(strstr(r.advice, "other processes"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quantization_config_is_read_with_its_scales),
		cmocka_unit_test(a_name_is_a_labelled_guess),
		cmocka_unit_test(other_processes_by_engine_and_version),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
