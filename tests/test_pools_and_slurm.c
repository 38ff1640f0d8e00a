/*
 * test_pools_and_slurm.c -- set 15's misses spent on w-spend15b (round
 * 14), on the real pastes moved to tests/data/real/any_stack:
 *   - DyNet's and cnn's pool wording ("is out of memory, try increasing
 *     with --dynet-mem"), family pool, and vLLM V0's CPU swap space:
 *     memory failures (memfail_words.c), misconfig/pool_limit
 *     (analyzer/rules/pool_limit.c) with the flag the message names;
 *   - Slurm's jobacct_gather kill ("Job N exceeded memory limit (U > L),
 *     being killed"): a slurm_oom of the kernel reader's userspace killers
 *     (parsers/kernel/kernel_slurm.c), misconfig/cgroup_limit, its
 *     figures in KiB for the "Job N" form and in bytes for "StepId=";
 *   - VisionCore's and Kangaroo's "Unable to cudaMallocPitch": CUDA's.
 * The same words in a warning, or advice, stay no OOM.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "parsers/serving/memfail.h"

#include <string.h>

#define ANY "tests/data/real/any_stack/"

static void dynet_pool(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "d-dynet-cpp-lm-training-out-of-memory-dynet-mem-170mb") >= 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.family') FROM event"
				   " WHERE kind = 'mem_failure'"), "pool");
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class || '/' || cause FROM verdict"),
			    "misconfig/pool_limit");
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE rule = 'pool_limit'"),
			       "--dynet-mem"));
	t_close(tl);
}

static void cnn_pool(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "d-lstm-parser-cnn-training-out-of-memory-cnn-mem") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class || '/' || cause FROM verdict"),
			    "misconfig/pool_limit");
	t_close(tl);
}

static void vllm_swap_space(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "d-verl-vllm-rollout-cpu-swap-space-exhausted-swap-space-4gb") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT scope FROM oom WHERE id = 1"), "host");
	assert_string_equal(t_text(tl, "SELECT class || '/' || cause FROM verdict"),
			    "misconfig/pool_limit");
	t_close(tl);
}

static void slurm_jobacct_kill(void **state)
{
	static const char step_form[] =
		"slurmstepd: error: StepId=42.0 exceeded memory limit (2147483648 > 1073741824), being killed\n"
		"slurmstepd: error: *** STEP 42.0 ON node7 CANCELLED AT 2024-03-01T10:00:00 ***\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "d-slurm-coqui-stt-train-job-exceeded-memory-limit-512mb") >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'slurm_oom'"), 1);
	/* "Job N" form: KiB (jobacct_gather_set_mem_limit, "MB to KB") */
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.limit_bytes') FROM event"
			       " WHERE kind = 'slurm_oom'"), 512000000LL * 1024);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.job_id') FROM event"
				   " WHERE kind = 'slurm_oom'"), "7518");
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class || '/' || cause FROM verdict"),
			    "misconfig/cgroup_limit");
	/* the line prints no unit: the KiB are Slurm's source's, and the
	 * finding says so beside the figure as printed */
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'cgroup_limit'"),
			       "the line's 512000000, read as KiB"));
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "kernel_log", "s.log", step_form, sizeof(step_form) - 1) >= 0);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.limit_bytes') FROM event"
			       " WHERE kind = 'slurm_oom'"), 1073741824LL);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.step') FROM event"
				   " WHERE kind = 'slurm_oom'"), "42.0");
	t_close(tl);
}

static void cuda_policy_and_negatives(void **state)
{
	static const char warn[] =
		"WARNING Worker exceeded memory limit (900 MB > 800 MB). Shutting down.\n"
		"hint: dynet is out of memory at times; see the docs\n";
	struct memfail mf;
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "d-deepfactors-slam-cudamallocpitch-fails-as-keyframes-grow") >= 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.family') FROM event"
				   " WHERE kind = 'mem_failure'"), "cuda");
	t_close(tl);
	assert_true(memfail_line("Unable to cudaMalloc", 20, &mf));
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "w.log", warn, sizeof(warn) - 1) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dynet_pool),
		cmocka_unit_test(cnn_pool),
		cmocka_unit_test(vllm_swap_space),
		cmocka_unit_test(slurm_jobacct_kill),
		cmocka_unit_test(cuda_policy_and_negatives),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
