/*
 * test_serving_round8.c -- what round 8 (w-worldg) taught oomlens from the
 * serving engines' newest versions, on the real excerpts of
 * tests/data/real (MANIFEST.tsv gives each thread):
 *
 *  - SGLang on Ascend: the KV pool's "self.kv_buffer = torch.zeros(" frame
 *    (parsers/serving/phase_rows_sglang.inc) places the NPU failure in the
 *    KV cache's allocation, a start-up misconfiguration;
 *  - torch_npu's OOM keeps PyTorch 1.x's "(NPU 0; ... total capacity; ...
 *    free; ...)" list: the card, its total and its free memory are read,
 *    and the event says NPU, not CUDA (parsers/torch/torch_oom_text.c);
 *  - SGLang's "Capture cuda graph failed: CUDA out of memory." alone is a
 *    graph capture's OOM (parsers/serving/engine_lines.c);
 *  - a newer vLLM worker's "Free memory on device (...) on startup." of a
 *    check that passed is no failure (engine_readers.c er_free_below);
 *  - SGLang's "scheduler died during initialization", whose text names the
 *    OOM killer as a hint, is an engine that did not start, no OOM;
 *  - TensorRT's "Failed to deserialize cuda engine" after the allocator's
 *    failure places it in the engine's (the model's) load.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <string.h>

#define ANY "tests/data/real/any_stack/"
#define NPU_KV ANY "g8-sglang-npu-qwen35-910b-kv-buffer-npu-oom-98.71gib.log"
#define NPU_OLD ANY "g8-sglang-npu-glm52-w8a8-a3-tp16-serving-npu-oom-72mib/01-traceback-tail.log"
#define CAPTURE ANY "g8-sglang-dsv41-dev-image-decode-capture-cuda-graph-failed-oom.log"
#define DIED ANY "g8-sglang-0511-rocm-dsv4-scheduler-died-exit-3-oom-killer-hint.log"
#define ENGINE ANY "g8-llgtrt-trtllm-014-engine-68370mib-deserialize-oom.log"
#define PASSED "tests/data/real/healthy/g8-vllm-gb10-uma-free-memory-on-startup-desired-utilization.log"
#define GIB_ (1024.0 * 1024.0 * 1024.0)
#define MIB_ (1024.0 * 1024.0)

static void npu_kv_pool_is_kv_alloc(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, NPU_KV), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "kv_alloc");
	assert_string_equal(t_text(tl, "SELECT family FROM oom WHERE id = 1"), "npu");
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	assert_string_equal(t_text(tl, "SELECT phase FROM verdict"), "kv_alloc");
	t_close(tl);
}

static void npu_old_list_is_read(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, NPU_OLD), 0);
	assert_int_equal(t_real(tl, "SELECT count(*) FROM event WHERE kind = 'torch_oom'"), 1);
	assert_int_equal(t_real(tl, "SELECT json_extract(data, '$.device') FROM event"
			 " WHERE kind = 'torch_oom'"), 0);
	assert_float_equal(t_real(tl, "SELECT json_extract(data, '$.total_bytes') FROM event"
			   " WHERE kind = 'torch_oom'") / GIB_, 61.27, 0.01);
	assert_float_equal(t_real(tl, "SELECT json_extract(data, '$.free_bytes') FROM event"
			   " WHERE kind = 'torch_oom'") / MIB_, 5.04, 0.01);
	assert_string_equal(t_text(tl, "SELECT summary FROM event WHERE kind = 'torch_oom'"),
			    "NPU out of memory on NPU 0: tried to allocate 72.0 MiB (5.0 MiB free)");
	t_close(tl);
}

static void capture_failed_oom_is_graph_capture(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, CAPTURE), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "graph_capture");
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	assert_string_equal(t_text(tl, "SELECT phase FROM verdict"), "graph_capture");
	t_close(tl);
}

/* Two lines that mention memory and are no OOM. */
static void passed_check_and_dead_scheduler_are_no_oom(void **state)
{
	static const char *const files[] = { PASSED, DIED };
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct timeline *tl = t_open();

		assert_int_equal(t_parse_file(tl, files[i]), 0);
		assert_int_equal(analyze_timeline(tl, NULL), 0);
		assert_int_equal(t_real(tl, "SELECT count(*) FROM oom"), 0);
		assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
		t_close(tl);
	}
	/* the dead scheduler is read as such */
	{
		struct timeline *tl = t_open();

		assert_int_equal(t_parse_file(tl, DIED), 0);
		assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.error') FROM event"
				    " WHERE kind = 'engine_error'"), "engine_dead");
		t_close(tl);
	}
}

static void engine_not_deserialized_is_load(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, ENGINE), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "load_weights");
	assert_string_equal(t_text(tl, "SELECT phase FROM verdict"), "load_weights");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(npu_kv_pool_is_kv_alloc),
		cmocka_unit_test(npu_old_list_is_read),
		cmocka_unit_test(capture_failed_oom_is_graph_capture),
		cmocka_unit_test(passed_check_and_dead_scheduler_are_no_oom),
		cmocka_unit_test(engine_not_deserialized_is_load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
