/*
 * test_rules_settle.c -- what would settle it follows the platform
 * (settle.c, issue 27): on real excerpts, a TPU/XLA failure asks for the
 * XLA device memory profile, an AMD card for rocm-smi/amd-smi, a
 * llama.cpp Metal failure for the server's verbose load lines, and none
 * of them for `oomlens watch --gpus`, nvidia-smi or a CUDA snapshot; a
 * CUDA OOM keeps them. A Kubernetes exit 137 whose reason is Error (not
 * OOMKilled) is a kill of unknown cause: the no_oom verdict says a kill
 * was seen and asks for the node's kernel log, and the first screen says
 * the same.
 */
#include "testutil.h"
#include "testutil_report.h"
#include "analyzer/rules/rules.h"
#include "reports/report.h"

#include <stdlib.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"

static struct timeline *analyzed(const char *rel)
{
	struct timeline *tl = t_open();

	assert_int_equal(t_parse_file(tl, rel), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

static const char *missing(struct timeline *tl)
{
	return t_text(tl, "SELECT coalesce(missing, '') FROM verdict");
}

static void no_nvidia_words(const char *m)
{
	assert_null(strstr(m, "--gpus"));
	assert_null(strstr(m, "nvidia-smi"));
	assert_null(strstr(m, "torch.cuda.memory._snapshot() pickle"));
}

static void xla_asks_for_the_device_profile(void **state)
{
	struct timeline *tl = analyzed(ANY "xla-jax-resource-exhausted-alphafold-stats.log");
	const char *m = missing(tl);

	(void)state;
	assert_non_null(strstr(m, "jax.profiler.save_device_memory_profile"));
	no_nvidia_words(m);
	t_close(tl);
}

static void rocm_asks_for_rocm_smi(void **state)
{
	struct timeline *tl = analyzed(ANY "rocm-torch-hip-oom-16gib-strix-halo.log");
	const char *m = missing(tl);

	(void)state;
	assert_non_null(strstr(m, "rocm-smi"));
	assert_non_null(strstr(m, "amd-smi"));
	no_nvidia_words(m);
	t_close(tl);
}

static void metal_asks_for_the_load_lines(void **state)
{
	struct timeline *tl = analyzed(ANY "llamacpp-metal-synchronize-insufficient-memory.log");
	const char *m = missing(tl);

	(void)state;
	assert_non_null(strstr(m, "OLLAMA_DEBUG=1"));
	assert_non_null(strstr(m, "--verbose"));
	no_nvidia_words(m);
	t_close(tl);
}

static void mps_names_the_watermark(void **state)
{
	struct timeline *tl = analyzed(ANY "mps-backend-oom-run-backward.log");
	const char *m = missing(tl);

	(void)state;
	assert_non_null(strstr(m, "torch.mps.current_allocated_memory"));
	assert_non_null(strstr(m, "PYTORCH_MPS_HIGH_WATERMARK_RATIO"));
	no_nvidia_words(m);
	t_close(tl);
}

static void cuda_keeps_the_watcher(void **state)
{
	struct timeline *tl = analyzed(ANY "vllm-v1-enginecore-serving-oom-run-busy-loop.log");
	const char *m = missing(tl);

	(void)state;
	assert_non_null(strstr(m, "oomlens watch --gpus"));
	t_close(tl);
}

static void k8s_137_is_a_kill_of_unknown_cause(void **state)
{
	struct timeline *tl = analyzed(ANY "k8s-laststate-json-reason-error-137-system-oom.log");
	const char *sum;

	(void)state;
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	sum = t_text(tl, "SELECT summary FROM verdict");
	assert_non_null(strstr(sum, "a kill of unknown cause was seen"));
	assert_non_null(strstr(sum, "exit code 137"));
	assert_null(strstr(sum, "records an OOM, a kill"));
	assert_non_null(strstr(missing(tl), "the node's kernel log"));
	/* every format says the same: a kill was seen, never "no ... kill" */
	for (int i = 0; i < 3; i++) {
		static const enum report_format fmt[] = { REPORT_MD, REPORT_TEXT, REPORT_HTML };
		char *r = t_render(tl, fmt[i], NULL);
		t_contains(r, "kill of unknown cause was seen");
		t_lacks(r, "an OOM, a kill or a memory failure");
		free(r);
	}
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(xla_asks_for_the_device_profile),
		cmocka_unit_test(rocm_asks_for_rocm_smi),
		cmocka_unit_test(metal_asks_for_the_load_lines),
		cmocka_unit_test(mps_names_the_watermark),
		cmocka_unit_test(cuda_keeps_the_watcher),
		cmocka_unit_test(k8s_137_is_a_kill_of_unknown_cause),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
