/*
 * test_cumem_pool.c -- a failure of vLLM's sleep-mode allocator
 * (analyzer/rules/cumem_pool.c) on real pastes of the tuning set: three
 * Ray actors of an RL loop failing in wake_up's create_and_map
 * (TideDra/lmm-r1#43) and the two bare lines of another RL run
 * (c5-vllm-rl-cumem-allocator-cuda-error-oom.log, its second line
 * mistyped by the reporter). Both are misconfig with the pool's knob;
 * a vLLM worker's ordinary CUDA error is not this rule's.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <stdio.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"

/* wake_up's traceback: misconfig, the pool's knob, no load knob; the
 * repeated line counted once with its repeats. */
static void ray_actors_wake_up(void **state)
{
	struct timeline *tl = t_open();
	const char *advice;
	(void)state;
	assert_true(t_parse_file(tl, ANY "g8-vllm-sleep-mode-wake-up-cumem-allocator-oom-ray-actors.log") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class || '/' || cause FROM verdict"),
			    "misconfig/sleep_pool_does_not_fit");
	advice = t_text(tl, "SELECT advice FROM finding WHERE rule = 'cumem_pool'");
	assert_non_null(strstr(advice, "gpu_memory_utilization"));
	assert_null(strstr(advice, "max_num_seqs"));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM evidence v JOIN finding f"
			       " ON f.id = v.finding_id WHERE f.rule = 'cumem_pool'"), 1);
	t_close(tl);
}

/* Two lines, no frame: the allocator's file alone names it. */
static void two_bare_lines(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "c5-vllm-rl-cumem-allocator-cuda-error-oom.log") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "sleep_pool_does_not_fit");
	t_close(tl);
}

/* A vLLM worker's CUDA error elsewhere: the rule stays silent. */
static void other_cuda_error(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "g8-vllm-0110-qwen3vl-235b-8xa100-worker-failed-cuda-error-oom.log") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(t_int(tl, "SELECT count(*) FROM oom") >= 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'cumem_pool'"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ray_actors_wake_up),
		cmocka_unit_test(two_bare_lines),
		cmocka_unit_test(other_cuda_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
