/*
 * test_rules_startup_room.c -- a start-up OOM is not always a budget that
 * does not fit (startup_room.c, issue 27). On real excerpts:
 *
 *  - TensorRT-LLM could not create its KV cache with 200.47 of 276.50 GiB
 *    free (mlcommons/inference#2501: lowering the cache's memory fraction
 *    to 0.10 still failed): the finding says the figures show room, names
 *    no knob, advises no lower fraction, and the verdict is inconclusive
 *    with the figures in its summary and what would settle it;
 *  - TensorRT-LLM 1.0rc at tp 8 could not create its KV cache with 108.86
 *    of 140.06 GiB free and no fraction set (NVIDIA/TensorRT-LLM#5872,
 *    "not a bug"; tp 4 starts): the cache takes 0.9 of the free memory by
 *    default, so the free figure is what it was cut from, not room: a
 *    misconfiguration at kv_alloc that lowers free_gpu_memory_fraction to
 *    0.8 and says what that leaves;
 *  - llama.cpp's Vulkan backend refused an 8.15 GiB compute buffer as
 *    larger than its per-buffer limit (ggml-org/llama.cpp#18160, a
 *    regression): a misconfiguration of cause allocation_limit at the
 *    profile phase, whose advice names the buffer's size and the
 *    regression, not fewer GPU layers, and whose first screen says the
 *    buffer was refused, not that memory ran out;
 *  - a start-up OOM without such figures (vLLM's sampler warm-up) keeps
 *    its phase's cause and knob;
 *  - llama.cpp's Vulkan backend could not place a 113 MiB device buffer,
 *    three lines with no phase (ggml-org/llama.cpp#15256: "a ton of gpu
 *    layers"): every ggml device buffer is sized by the settings, so a
 *    misconfiguration of cause engine_budget naming --n-gpu-layers, the
 *    phase left unknown; a ggml failure whose free memory holds the
 *    request (the same reader's list of devices, llama.cpp#19764) is not.
 */
#include "testutil.h"
#include "testutil_report.h"
#include "analyzer/rules/rules.h"
#include "reports/report.h"

#include <stdlib.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"
#define GIB_ (1024.0 * 1024.0 * 1024.0)

static struct timeline *analyzed(const char *rel)
{
	struct timeline *tl = t_open();

	assert_int_equal(t_parse_file(tl, rel), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

static void trtllm_kv_cache_with_200_gib_free(void **state)
{
	struct timeline *tl = analyzed(ANY "trtllm-executor-creation-failed-kv-cache-gpt-oss.log");
	const char *s;

	(void)state;
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'request_fits_free'"
			       " AND phase = 'kv_alloc' AND class = 'reading'"), 1);
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.free_bytes') FROM finding"
				  " WHERE cause = 'request_fits_free'") / GIB_, 200.47, 0.01);
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.total_bytes') FROM finding"
				  " WHERE cause = 'request_fits_free'") / GIB_, 276.50, 0.01);
	/* no knob lowers a budget the figures show is not the limit */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE json_extract(figures,"
			       " '$.advice_knob') IS NOT NULL"), 0);
	s = t_text(tl, "SELECT advice FROM finding WHERE cause = 'request_fits_free'");
	assert_null(strstr(s, "lower it"));
	assert_non_null(strstr(s, "per-allocation limit"));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE class = 'misconfig' AND"
			       " score >= 0.3"), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "inconclusive");
	assert_string_equal(t_text(tl, "SELECT phase FROM verdict"), "kv_alloc");
	s = t_text(tl, "SELECT summary FROM verdict");
	assert_non_null(strstr(s, "figures show room"));
	assert_non_null(strstr(s, "200 GiB"));
	assert_non_null(strstr(t_text(tl, "SELECT missing FROM verdict"), "previous release"));
	/* the share the reporter set, from the sentence after the table */
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.kv_cache_fraction') FROM"
				  " finding WHERE cause = 'request_fits_free'"), 0.10, 1e-9);
	t_close(tl);
}

static void trtllm_default_fraction_took_the_free_memory(void **state)
{
	struct timeline *tl = analyzed(ANY "trtllm-1.0rc-tp8-executor-kv-cache-insufficient-memory.log");
	const char *s;

	(void)state;
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	assert_string_equal(t_text(tl, "SELECT phase FROM verdict"), "kv_alloc");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause ="
			       " 'request_fits_free'"), 0);
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.kv_cache_fraction') FROM"
				  " finding WHERE rule = 'startup'"), 0.9, 1e-9);
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.advice_value') FROM"
				  " finding WHERE rule = 'startup'"), 0.8, 1e-9);
	s = t_text(tl, "SELECT advice FROM finding WHERE rule = 'startup'");
	assert_non_null(strstr(s, "kv_cache_config.free_gpu_memory_fraction from 0.90 (the"
			       " default; not set in this log) to 0.80"));
	assert_non_null(strstr(s, "109 GiB free"));   /* 108.86 GiB, the table's */
	t_close(tl);
}

static void vulkan_buffer_beyond_its_limit(void **state)
{
	struct timeline *tl = analyzed(ANY "llamacpp-vulkan-compute-pp-buffers-qwen3-30b-segfault.log");
	const char *s;

	(void)state;
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "allocation_limit");
	assert_string_equal(t_text(tl, "SELECT phase FROM verdict"), "profile");
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.requested_bytes') FROM finding"
			       " WHERE cause = 'allocation_limit'"), 8753520640LL);
	s = t_text(tl, "SELECT advice FROM finding WHERE cause = 'allocation_limit'");
	assert_non_null(strstr(s, "--ubatch-size"));
	assert_non_null(strstr(s, "regression"));
	assert_null(strstr(s, "--n-gpu-layers"));
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause ="
				      " 'allocation_limit'"), "8.15 GiB"));
	/* the first screen of every format: a refused buffer, no memory run out */
	for (int i = 0; i < 3; i++) {
		static const enum report_format fmt[] = { REPORT_MD, REPORT_TEXT, REPORT_HTML };
		char *r = t_render(tl, fmt[i], NULL);
		t_contains(r, "as larger than its per-allocation limit");
		t_lacks(r, "ran out of GPU memory");
		free(r);
	}
	t_close(tl);
}

static void warmup_without_figures_keeps_its_knob(void **state)
{
	struct timeline *tl = analyzed(ANY "llmd-vllm-sampler-warmup-oom-wrapped.log");

	(void)state;
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "warmup_does_not_fit");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause IN"
			       " ('request_fits_free', 'allocation_limit')"), 0);
	t_close(tl);
}

static void ggml_device_buffer_is_the_plan(void **state)
{
	struct timeline *tl = analyzed(ANY "llamacpp-vulkan-device-memory-allocation-failed-rtx2060.log");
	const char *s;

	(void)state;
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "engine_budget");
	assert_string_equal(t_text(tl, "SELECT coalesce(phase, 'unknown') FROM finding WHERE"
				   " rule = 'startup'"), "unknown");
	s = t_text(tl, "SELECT advice FROM finding WHERE rule = 'startup'");
	assert_non_null(strstr(s, "--n-gpu-layers"));
	assert_null(strstr(s, "it never fitted"));
	t_close(tl);
	/* the device list says 110357 MiB free for a 98988 MiB buffer */
	tl = analyzed("tests/data/incoming/any_stack/"
		      "llamacpp-hip-strix-halo-windows-98988mib-model-buffer.log");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'engine_budget'"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(trtllm_kv_cache_with_200_gib_free),
		cmocka_unit_test(trtllm_default_fraction_took_the_free_memory),
		cmocka_unit_test(vulkan_buffer_beyond_its_limit),
		cmocka_unit_test(warmup_without_figures_keeps_its_knob),
		cmocka_unit_test(ggml_device_buffer_is_the_plan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
