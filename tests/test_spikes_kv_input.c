/*
 * test_spikes_kv_input.c -- round 17 (w-spike18), spikes whose evidence
 * is in the files, on the real pastes of tests/data/real/any_stack:
 *   - Ollama's runner finding its KV cache full ("could not find a kv
 *     cache slot", ollama#7930): a memory failure of family ollama while
 *     serving, spike/concurrency (analyzer/rules/kv_slots.c), and no
 *     finding where the engine's figures say it ran one sequence;
 *   - llama.cpp's server giving up on a full KV cache ("failed to decode
 *     the batch"): a ggml failure while serving, not judged a spike, and
 *     after a Metal failure the same line continues it (one OOM);
 *   - a failure in an operation one input sizes (vLLM's prompt
 *     logprobs, MMDetection's IoU assignment): input_op on the event,
 *     spike/input_scaled_op (analyzer/rules/input_op.c); the same library's
 *     box overlaps in its evaluation are no such operation.
 * The server's retries that found room ("failed to find free space in
 * the KV cache, retrying with smaller n_batch") stay no OOM.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "parsers/serving/input_ops.h"

#include <string.h>

#define ANY "tests/data/real/any_stack/"

static void ollama_kv_slot_concurrency(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "f-ollama-0.4.7-metal-graphrag-concurrent-kv-cache-slot-panic") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT family || '/' || phase FROM oom WHERE id = 1"),
			    "ollama/serving");
	assert_string_equal(t_text(tl, "SELECT class || '/' || cause FROM verdict"),
			    "spike/concurrency");
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE rule = 'kv_slots'"),
			       "OLLAMA_NUM_PARALLEL"));
	t_close(tl);
}

static void ollama_kv_slot_one_sequence(void **state)
{
	/* the engine's own figures: a cache of one sequence's context */
	static const char one[] =
		"llama_kv_cache_init: kv_size = 2048, offload = 1, type_k = 'f16', type_v = 'f16', n_layer = 32\n"
		"llama_new_context_with_model: n_ctx_per_seq = 2048\n"
		"panic: failed to decode batch: could not find a kv cache slot\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "server_log", "runner.log", one, sizeof(one) - 1) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'kv_slots'"), 0);
	t_close(tl);
}

static void llama_server_kv_full(void **state)
{
	static const char metal[] =
		"ggml_metal_graph_compute: command buffer 1 failed with status 5\n"
		"error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)\n"
		"graph_compute: ggml_backend_sched_graph_compute_async failed with error -1\n"
		"llama_decode: failed to decode, ret = -3\n"
		"srv  update_slots: failed to decode the batch: KV cache is full - try increasing it"
		" via the context size, i = 0, n_batch = 2048, ret = -3\n";
	static const char retried[] =
		"[1707364943] update_slots : failed to find free space in the KV cache, retrying with smaller n_batch = 256\n"
		"[1707364943] update_slots : failed to find free space in the KV cache, retrying with smaller n_batch = 128\n"
		"[1707364943] slot 0 released (1871 tokens in cache)\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "s-llamafile-server-update-slots-kv-cache-full-n-batch-1.log") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT family || '/' || phase FROM oom WHERE id = 1"),
			    "ggml/serving");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM verdict WHERE class = 'spike'"), 0);
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "metal.log", metal, sizeof(metal) - 1) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 1);
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "retried.log", retried, sizeof(retried) - 1) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 0);
	t_close(tl);
}

static void input_scaled_ops(void **state)
{
	static const char eval[] =
		"Traceback (most recent call last):\n"
		"  File \"/mmdetection/mmdet/core/evaluation/mean_ap.py\", line 412, in eval_map\n"
		"    ious = bbox_overlaps(det_bboxes, gt_bboxes)\n"
		"RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 10.76 GiB total"
		" capacity; 7.12 GiB already allocated; 1.02 GiB free; 8.50 GiB reserved in total by PyTorch)\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(input_op_find("in _get_prompt_logprobs_dict", 29), 0);
	assert_int_equal(input_op_find("  File \"x.py\", line 3, in main", 30), -1);
	assert_true(t_parse_file(tl, ANY "g-vllm-0.20-kimi-k2.6-tp4-b300-prompt-logprobs-long-prompt-all-gather-oom-3.82gib") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(e.data, '$.input_op') FROM oom o"
				   " JOIN event e ON e.id = o.event_id WHERE o.id = 1"), "prompt_logprobs");
	assert_string_equal(t_text(tl, "SELECT class || '/' || cause || '/' || phase FROM verdict"),
			    "spike/input_scaled_op/serving");
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_file(tl, ANY "s-mmrotate-dcfl-max-iou-assigner-oom-5.05gib-2000-gt-boxes.log") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class || '/' || cause || '/' || phase FROM verdict"),
			    "spike/input_scaled_op/training_step");
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE rule = 'input_op'"),
			       "gpu_assign_thr"));
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "eval.log", eval, sizeof(eval) - 1) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE json_extract(data, '$.input_op')"
			       " IS NOT NULL"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ollama_kv_slot_concurrency),
		cmocka_unit_test(ollama_kv_slot_one_sequence),
		cmocka_unit_test(llama_server_kv_full),
		cmocka_unit_test(input_scaled_ops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
