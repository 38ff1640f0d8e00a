/*
 * test_rules_engine.c -- the engine rule (engine.c) on an engine row whose
 * figures and errors are set by hand, each cause just inside and just
 * outside its threshold, with the value it advises.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A timeline with one vLLM engine row (from a real start-up line), its
 * columns then set by sql ("UPDATE engine SET ..."), analyzed. */
static struct timeline *engine(const char *set)
{
	struct timeline *tl = t_open();
	char sql[1200];

	tl->opts.year = 2025;
	assert_true(t_parse_mem(tl, "server_log", "vllm", "INFO 08-19 07:51:03"
		" model_runner.py:732] Loading model weights took 2.3463 GB\n", 0) > 0);
	snprintf(sql, sizeof(sql), "UPDATE engine SET %s", set);
	assert_int_equal(timeline_exec(tl, sql), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

static int64_t found(struct timeline *tl, const char *cause)
{
	return t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'engine' AND cause = '%s'",
		     cause);
}

static double value(struct timeline *tl, const char *cause)
{
	return t_real(tl, "SELECT json_extract(figures, '$.advice_value') FROM finding WHERE"
		      " rule = 'engine' AND cause = '%s'", cause);
}

static void kv_cache_none_threshold(void **state)
{
	struct timeline *tl;
	(void)state;

	/* no blocks: weights 70 + activations 4 + non-torch 1 = 75 GiB of 80,
	 * + 1 GiB of KV cache: 0.95 */
	tl = engine("total_bytes = 85899345920, weights_bytes = 75161927680,"
		    " activation_peak_bytes = 4294967296, non_torch_bytes = 1073741824,"
		    " gpu_memory_utilization = 0.9, gpu_blocks = 0");
	assert_int_equal(found(tl, "kv_cache_none"), 1);
	assert_float_equal(value(tl, "kv_cache_none"), 0.95, 1e-9);
	t_close(tl);
	/* one block: a KV cache, however small */
	tl = engine("total_bytes = 85899345920, weights_bytes = 75161927680, gpu_blocks = 1");
	assert_int_equal(found(tl, "kv_cache_none"), 0);
	t_close(tl);
	/* 76 GiB outside the KV cache: 0.9625 > 0.95, two GPUs */
	tl = engine("total_bytes = 85899345920, weights_bytes = 76235669504,"
		    " activation_peak_bytes = 4294967296, non_torch_bytes = 1073741824,"
		    " kv_cache_bytes = -1073741824");
	assert_int_equal(found(tl, "kv_cache_none"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(figures, '$.advice_knob') FROM finding"
				   " WHERE cause = 'kv_cache_none'"), "tensor_parallel_size");
	assert_float_equal(value(tl, "kv_cache_none"), 2, 0);
	t_close(tl);
}

static void max_model_len_threshold(void **state)
{
	struct timeline *tl;
	(void)state;

	/* the engine's concurrency: 0.99x does not hold one request, 1.00x does */
	tl = engine("max_concurrency = 0.99, max_model_len = 32768, kv_cache_tokens = 32440");
	assert_int_equal(found(tl, "max_model_len"), 1);
	t_close(tl);
	tl = engine("max_concurrency = 1.0, max_model_len = 32768, kv_cache_tokens = 32768");
	assert_int_equal(found(tl, "max_model_len"), 0);
	t_close(tl);
	/* without it: one token more than the KV cache holds, or not; the
	 * value is the tokens it holds */
	tl = engine("max_model_len = 32769, kv_cache_tokens = 32768");
	assert_int_equal(found(tl, "max_model_len"), 1);
	assert_float_equal(value(tl, "max_model_len"), 32768, 0);
	t_close(tl);
	tl = engine("max_model_len = 32768, kv_cache_tokens = 32768");
	assert_int_equal(found(tl, "max_model_len"), 0);
	t_close(tl);
}

static void engine_budget_threshold(void **state)
{
	struct timeline *tl;
	const char *err = ", errors = '[{\"kind\":\"cuda_oom\",\"text\":\"CUDA out of memory\"}]'";
	char set[600];
	(void)state;

	/* 80 GiB card, 78 GiB free; weights 60 + activations 5 + KV 12 = 77
	 * GiB, graphs 2 GiB: 1 GiB over, more than 1% of the card */
	snprintf(set, sizeof(set), "total_bytes = 85899345920, free_bytes = 83751862272,"
		 " weights_bytes = 64424509440, activation_peak_bytes = 5368709120,"
		 " kv_cache_bytes = 12884901888, cuda_graph_bytes = 2147483648,"
		 " gpu_memory_utilization = 0.95%s", err);
	tl = engine(set);
	assert_int_equal(found(tl, "engine_budget"), 1);
	/* (78 - 2) / 80 - 0.02 = 0.93 */
	assert_float_equal(value(tl, "engine_budget"), 0.93, 1e-9);
	t_close(tl);
	/* graphs 1.7 GiB: 0.7 GiB over, under 1% of the card */
	snprintf(set, sizeof(set), "total_bytes = 85899345920, free_bytes = 83751862272,"
		 " weights_bytes = 64424509440, activation_peak_bytes = 5368709120,"
		 " kv_cache_bytes = 12884901888, cuda_graph_bytes = 1825361101%s", err);
	tl = engine(set);
	assert_int_equal(found(tl, "engine_budget"), 0);
	t_close(tl);
	/* over, but no out-of-memory error to show it */
	tl = engine("total_bytes = 85899345920, free_bytes = 83751862272,"
		    " weights_bytes = 64424509440, activation_peak_bytes = 5368709120,"
		    " kv_cache_bytes = 12884901888, cuda_graph_bytes = 2147483648");
	assert_int_equal(found(tl, "engine_budget"), 0);
	t_close(tl);
}

static void prefill_and_pool(void **state)
{
	struct timeline *tl;
	(void)state;

	tl = engine("max_batch_prefill_tokens = 4096,"
		    " errors = '[{\"kind\":\"prefill_oom\",\"text\":\"Not enough memory\"}]'");
	assert_int_equal(found(tl, "prefill_tokens"), 1);
	assert_float_equal(value(tl, "prefill_tokens"), 2048, 0);
	t_close(tl);
	tl = engine("max_batch_prefill_tokens = 4096");
	assert_int_equal(found(tl, "prefill_tokens"), 0);
	t_close(tl);
	/* SGLang's decode OOM: what runs at once x 0.7, contributing at most */
	tl = engine("engine = 'sglang', max_num_seqs = 100,"
		    " errors = '[{\"kind\":\"decode_oom\",\"text\":\"Decode out of memory happened\"}]'");
	assert_int_equal(found(tl, "kv_pool"), 1);
	assert_float_equal(value(tl, "kv_pool"), 70, 0);
	assert_float_equal(t_real(tl, "SELECT score FROM finding WHERE cause = 'kv_pool'"), 0.6, 1e-9);
	t_close(tl);
}

/* SGLang's decode OOM as sglang#4602 logged it (tests/data/real/serving):
 * 148 tokens asked with 2048 available, a page-counting bug with
 * --page-size above 1 (fixed in #4913). The error's entry keeps the
 * counts now (issue 27 item 3; before, only the first line, and the title
 * said the pool ran out as the likeliest reading): the title says the
 * pool was not full, with the counts, at a low score and no knob, and
 * the advice says what to do. */
static void decode_oom_with_room(void **state)
{
	struct timeline *tl = t_open();
	const char *s;

	(void)state;
	assert_int_equal(t_parse_file(tl, "tests/data/real/serving/"
				      "sglang-0.4-decode-out-of-memory-runtimeerror-backticks.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(found(tl, "kv_pool"), 1);
	s = t_text(tl, "SELECT title FROM finding WHERE cause = 'kv_pool'");
	assert_non_null(strstr(s, "not full"));
	assert_non_null(strstr(s, "148 tokens asked, 2048 available"));
	assert_true(t_real(tl, "SELECT score FROM finding WHERE cause = 'kv_pool'") < 0.5);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'kv_pool'"
			       " AND json_extract(figures, '$.advice_knob') IS NOT NULL"), 0);
	s = t_text(tl, "SELECT advice FROM finding WHERE cause = 'kv_pool'");
	assert_non_null(strstr(s, "--page-size 1"));
	t_close(tl);
}

/* A library's own OOM (NCCL, cuBLAS, TensorRT-LLM) with no PyTorch
 * message: the card was full, the likeliest reading; with the engine's
 * utilization, 0.05 less; a PyTorch message says more (capacity.c). */
static void library_oom(void **state)
{
	struct timeline *tl;
	(void)state;

	tl = t_open();
	assert_int_equal(t_parse_file(tl, "tests/data/real/serving/nccl-vllm-v1-cuda-failure-"
				      "out-of-memory.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "library_oom");
	assert_float_equal(t_real(tl, "SELECT score FROM finding WHERE cause = 'library_oom'"),
			   0.5, 1e-9);
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'library_oom'"),
			       "NCCL found no GPU memory left"));
	t_close(tl);

	tl = engine("gpu_memory_utilization = 0.92,"
		    " errors = '[{\"kind\":\"cublas_alloc_failed\",\"text\":\"CUBLAS_STATUS_ALLOC_FAILED\"}]'");
	assert_int_equal(found(tl, "library_oom"), 1);
	assert_float_equal(value(tl, "library_oom"), 0.87, 1e-9);
	t_close(tl);
	/* just outside: the same error beside PyTorch's own message */
	tl = engine("errors = '[{\"kind\":\"nccl_oom\",\"text\":\"Cuda failure\"},"
		    " {\"kind\":\"cuda_oom\",\"text\":\"CUDA out of memory\"}]'");
	assert_int_equal(found(tl, "library_oom"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kv_cache_none_threshold),
		cmocka_unit_test(max_model_len_threshold),
		cmocka_unit_test(engine_budget_threshold),
		cmocka_unit_test(prefill_and_pool),
		cmocka_unit_test(decode_oom_with_room),
		cmocka_unit_test(library_oom),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
