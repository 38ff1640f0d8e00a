/*
 * test_buildkill.c -- a compiler of a build step killed for host memory
 * (analyzer/rules/buildkill.c, lib/build_tools.c), on real pastes of the
 * tuning set: vLLM 0.25's start-up whose FlashInfer JIT ran cicc until
 * the kernel's OOM killer took it (sostrowsk/dgx-spark-local-llm: the
 * server log, the kernel journal lines, the start script), a `make` of
 * mlpack whose cc1plus was killed (mlpack#2213), and a `make -j4` whose
 * cc1 invoked the OOM killer (tempesta PR 2124). The verdict names the
 * build's parallelism, never a GPU's knob.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "lib/build_tools.h"

#include <stdio.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"
#define DGX ANY "c-vllm-0.25-dgx-spark-laguna-nvfp4-jit-cicc-oom-killer/"

/* The table: the toolchains' names, a versioned clang, and names that
 * are not build tools. */
static void names(void **state)
{
	(void)state;
	assert_non_null(build_tool_of("cicc"));
	assert_true(build_tool_cuda(build_tool_of("ptxas")));
	assert_false(build_tool_cuda(build_tool_of("cc1plus")));
	assert_non_null(build_tool_of("clang-17"));
	assert_null(build_tool_of("clang-"));
	assert_null(build_tool_of("python3"));
	assert_null(build_tool_of("vllm"));
	assert_null(build_tool_of(""));
	assert_null(build_tool_of(NULL));
}

/* vLLM's start-up: misconfig of the build step, in the phase the engine's
 * lines give, and no GPU knob in the advice. */
static void vllm_jit_cicc(void **state)
{
	struct timeline *tl = t_open();
	const char *advice;
	(void)state;
	assert_true(t_parse_file(tl, DGX "01-vllm-run1-oom.log") >= 0);
	assert_true(t_parse_file(tl, DGX "02-kernel-journal.txt") >= 0);
	assert_true(t_parse_file(tl, DGX "03-start-vllm-after-fix.sh") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class || '/' || cause || '/' || phase FROM verdict"),
			    "misconfig/build_parallelism/profile");
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.build_pid') FROM finding"
			       " WHERE rule = 'buildkill'"), 21394);
	advice = t_text(tl, "SELECT group_concat(advice, ' ') FROM finding");
	assert_non_null(strstr(advice, "MAX_JOBS"));
	assert_null(strstr(advice, "gpu_memory_utilization"));
	assert_null(strstr(advice, "max_model_len"));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'startup'"), 0);
	/* derived once (oom_fate.c), read by buildkill and startup alike */
	assert_string_equal(t_text(tl, "SELECT build_tool FROM oom WHERE id = 1"), "cicc");
	t_close(tl);
}

/* make's cc1plus killed: the kill's RSS is the figure; no engine, no
 * phase. */
static void make_cc1plus(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "kernel-oom-kill-cc1plus-make-mlpack.log") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class || '/' || cause FROM verdict"),
			    "misconfig/build_parallelism");
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.build_rss_bytes') FROM finding"
			       " WHERE rule = 'buildkill'"), 3090636LL * 1024);
	assert_string_equal(t_text(tl, "SELECT build_tool FROM oom WHERE id = 1"), "cc1plus");
	t_close(tl);
}

/* cc1 invoked the OOM killer and the paste ends before any kill: the
 * invoker names the build, at a lower score. */
static void make_cc1_invoker(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "kernel-cc1-invoked-oom-killer-make-j4-vm.log") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "build_parallelism");
	assert_true(t_int(tl, "SELECT score * 100 FROM finding WHERE rule = 'buildkill'") < 85);
	assert_string_equal(t_text(tl, "SELECT build_tool FROM oom WHERE id = 1"), "cc1");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names),
		cmocka_unit_test(vllm_jit_cicc),
		cmocka_unit_test(make_cc1plus),
		cmocka_unit_test(make_cc1_invoker),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
