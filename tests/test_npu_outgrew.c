/*
 * test_npu_outgrew.c -- torch_npu's allocator message read for its
 * allocator figures (parsers/serving/memfail_limit.c
 * memfail_put_figures) and a vLLM-Ascend batch that outgrew the budget
 * its launch command set (analyzer/rules/launch.c batch_outgrew_pool),
 * on the tuning set's vllm-ascend#5020 folder: the tutorial's launch
 * (TP 4, --gpu-memory-utilization 0.85) and the NPU OOM (2 GiB asked,
 * 55.91 GiB allocated, 58.73 GiB reserved of 60.96 GiB).
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <stdio.h>
#include <string.h>

#define DIR "tests/data/real/any_stack/g8-vllm-ascend-0120rc1-qwen3-next-tp4-util-085-npu-oom-2gib/"
#define GIB (1024.0 * 1024.0 * 1024.0)

/* The NPU message alone: its allocator figures in the event. */
static void npu_figures(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, DIR "02-error.log") >= 0);
	assert_int_equal(t_int(tl, "SELECT round(json_extract(data, '$.allocated_bytes') / %f * 100)"
			       " FROM event WHERE kind = 'mem_failure'", GIB), 5591);
	assert_int_equal(t_int(tl, "SELECT round(json_extract(data, '$.reserved_bytes') / %f * 100)"
			       " FROM event WHERE kind = 'mem_failure'", GIB), 5873);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.family') FROM event"
				   " WHERE kind = 'mem_failure'"), "npu");
	t_close(tl);
}

/* With the launch command: allocated alone past 0.85 of the card, so the
 * batch outgrew the pool though the cached blocks could have held the
 * request; the stated share is named. */
static void outgrew_stated_share(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, DIR "01-launch.sh") >= 0);
	assert_true(t_parse_file(tl, DIR "02-error.log") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class || '/' || cause FROM verdict"),
			    "misconfig/batch_outgrew_pool");
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.launched_gpu_memory_utilization') * 100"
			       " FROM finding WHERE rule = 'launch'"), 85);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(npu_figures),
		cmocka_unit_test(outgrew_stated_share),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
