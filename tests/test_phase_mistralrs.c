/*
 * test_phase_mistralrs.c -- mistral.rs' start-up stages
 * (parsers/serving/phase_rows_lmdeploy_mlc_exllama.inc, round 16,
 * startup17): the loader's "Loading model `ID` on DEVICE." and in-situ
 * quantisation are the model's load, PagedAttention's "Allocating N MB
 * for PagedAttention KV cache per GPU" the KV cache's allocation, the
 * dummy run the warm-up. The lines are the engine's own, as printed in
 * public threads (EricLBuehler/mistral.rs pull 364, issue 1557, pull
 * 1482); the wordings are those of the engine's source at the commits
 * the rows cite.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "parsers/serving/memfail.h"

#include <string.h>

static enum oom_phase ph(const char *line)
{
	return memfail_phase_line(line, strlen(line));
}

static void start_up_stages(void **state)
{
	(void)state;
	/* pull 364 (2024-06, mistralrs-server -i plain -m Phi-3-mini-128k) */
	assert_int_equal(ph("2024-06-01T01:27:29.161516Z  INFO mistralrs_core::pipeline::normal: "
			    "Loading model `microsoft/Phi-3-mini-128k-instruct` on "
			    "Cuda(CudaDevice(DeviceId(1)))..."),
			 OOM_PHASE_LOAD_WEIGHTS);
	/* issue 1557 (2025-07, --isq q4k) */
	assert_int_equal(ph("mistralrs-svc1  | 2025-07-13T03:46:57.487436Z  INFO "
			    "mistralrs_core::pipeline::isq: Applying in-situ quantization into "
			    "Some(Q4K) to 1537 tensors."),
			 OOM_PHASE_LOAD_WEIGHTS);
	/* pull 1482 (2025-06) */
	assert_int_equal(ph("2025-06-19T01:33:33.443588Z  INFO mistralrs_core::paged_attention: "
			    "Allocating 1024 MB for PagedAttention KV cache per GPU"),
			 OOM_PHASE_KV_ALLOC);
	assert_int_equal(ph("2025-06-19T01:33:33.601873Z  INFO mistralrs_core: Beginning dummy run."),
			 OOM_PHASE_WARMUP);
	/* the cache's sizing summary names no stage of its own */
	assert_int_equal(ph("2025-06-19T01:33:33.443607Z  INFO mistralrs_core::paged_attention: "
			    "PagedAttention KV cache type is F16"),
			 OOM_PHASE_UNKNOWN);
}

/* A failure after the cache's line is the KV cache's, before any request:
 * a misconfiguration whose advice names mistral.rs' own flags, not
 * vLLM's gpu_memory_utilization. The two engine lines are those above;
 * the failure is cudarc's error as mistral.rs prints it on exit
 * (EricLBuehler/mistral.rs issue 819); the three are put together
 * here, they are no one incident's log. */
static void kv_cache_failure_names_its_flags(void **state)
{
	static const char log[] =
		"2024-06-01T01:27:29.161516Z  INFO mistralrs_core::pipeline::normal: "
		"Loading model `microsoft/Phi-3-mini-128k-instruct` on Cuda(CudaDevice(DeviceId(1)))...\n"
		"2025-06-19T01:33:33.443588Z  INFO mistralrs_core::paged_attention: "
		"Allocating 1024 MB for PagedAttention KV cache per GPU\n"
		"Error: DriverError(CUDA_ERROR_OUT_OF_MEMORY, \"out of memory\")\n";
	struct timeline *tl = t_open();
	const char *advice;

	(void)state;
	assert_true(t_parse_mem(tl, "server_log", "mistralrs.log", log, 0) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	assert_string_equal(t_text(tl, "SELECT phase FROM verdict"), "kv_alloc");
	advice = t_text(tl, "SELECT advice FROM finding WHERE rule = 'startup'");
	assert_non_null(strstr(advice, "--pa-gpu-mem"));
	assert_null(strstr(advice, "gpu_memory_utilization"));
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(start_up_stages),
		cmocka_unit_test(kv_cache_failure_names_its_flags),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
