/*
 * test_phase_frames.c -- the phase of an OOM read from a server log's
 * traceback frames (parsers/serving/phase_table.c, issue 27 item 2): the
 * innermost engine frame wins, and of a chain of exceptions the cause's
 * traceback (printed first) decides over the outer one printed after
 * it; DeepSpeed's inference engine loads a model and trains nothing.
 *
 * The chained case is an edge case built from the wordings of real V1
 * logs (tests/data/real/any_stack: vllm-v1-enginecore-serving-oom-run-
 * busy-loop.log's chain marker and prefixes, the frames of vLLM's
 * gpu_worker.py / gpu_model_runner.py); the DeepSpeed case is the real
 * excerpt of deepspeed issue 2933.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#define P "(EngineCore_DP0 pid=8402) ERROR 10-24 01:26:57 [core.py:710] "
#define PKG "/usr/local/lib/python3.12/dist-packages/vllm/"

/* The worker's OOM while capturing CUDA graphs inside the warm-up,
 * then the engine core's traceback, whose last frame's call names only
 * the warm-up: read by position alone the outer call would win. */
static const char chained[] =
	P "Traceback (most recent call last):\n"
	P "  File \"" PKG "v1/worker/gpu_worker.py\", line 588, in compile_or_warm_up_model\n"
	P "    cuda_graph_memory_bytes = self.model_runner.capture_model()\n"
	P "  File \"" PKG "v1/worker/gpu_model_runner.py\", line 3410, in capture_model\n"
	P "    self._capture_cudagraphs(\n"
	P "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 960.00 MiB. GPU 0 has a "
	"total capacity of 79.14 GiB of which 712.75 MiB is free.\n"
	P "\n"
	P "The above exception was the direct cause of the following exception:\n"
	P "\n"
	P "Traceback (most recent call last):\n"
	P "  File \"" PKG "v1/engine/core.py\", line 83, in __init__\n"
	P "    self._initialize_kv_caches(vllm_config)\n"
	P "  File \"" PKG "v1/engine/core.py\", line 170, in _initialize_kv_caches\n"
	P "    self.model_executor.initialize_from_config(kv_cache_configs)\n"
	P "  File \"" PKG "v1/executor/abstract.py\", line 65, in initialize_from_config\n"
	P "    self.collective_rpc(\"compile_or_warm_up_model\")\n"
	P "RuntimeError: Worker failed\n";

static void chain_cause_decides(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_mem(tl, "server_log", "chained.log", chained, sizeof(chained) - 1) > 0);
	assert_string_equal(t_first_phase(tl), "graph_capture");
	t_close(tl);
}

static void deepspeed_inference_is_a_load(void **state)
{
	static const char rel[] =
		"tests/data/real/any_stack/deepspeed-init-inference-opt66b-ds-mlp-oom.log";
	struct timeline *tl = t_open();
	size_t n;
	char *text = t_slurp(rel, &n);

	(void)state;
	assert_true(t_parse_mem(tl, "server_log", rel, text, n) > 0);
	free(text);
	assert_string_equal(t_first_phase(tl), "load_weights");
	/* no training stack: DeepSpeed's ZeRO knobs would answer nothing */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE"
			       " json_extract(data, '$.stack') IS NOT NULL"), 0);
	t_close(tl);
}

/* TGI's router logs a shard's error inside the batching task's
 * "batch{batch_size=N}" span, opened only after the warm-up: a request
 * being served. The real line of tests/data/real/serving/tgi-1.3-torch21-
 * capacty-router-prefill-echo.log (TGI issue 1356). */
static void tgi_router_batch_span_is_serving(void **state)
{
	static const char log[] =
		"2023-12-18T02:36:47.730476Z ERROR batch{batch_size=1}:prefill:prefill{id=7570"
		" size=1}:prefill{id=7570 size=1}: text_generation_client:"
		" router/client/src/lib.rs:33: Server error: CUDA out of memory. Tried to allocate"
		" 18.00 MiB. GPU 0 has a total capacty of 79.11 GiB of which 14.62 MiB is free.\n";
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_mem(tl, "server_log", "tgi.log", log, sizeof(log) - 1) > 0);
	assert_string_equal(t_first_phase(tl), "serving");
	t_close(tl);
}

/* stable-diffusion-webui's "Total progress" bar runs only while a
 * generation job does (sd-webui issue 3280's lines: a txt2img job that
 * failed at step 49 of 50); a bare OOM without it names no phase. */
static void sdwebui_total_progress_is_serving(void **state)
{
	static const char log[] =
		"49/50 1.45it/s\n"
		"Total progress: 98% 49/50 1.44it/s\n"
		"\n"
		"RuntimeError: CUDA out of memory. Tried to allocate 0.00MiB (GPU 0; 8.00 GiB total"
		" capacity; 5.42 GiB already allocated; 0 bytes free; 7.99 GiB reserved in total by"
		" PyTorch)\n";
	const char *bare = log + strlen("49/50 1.45it/s\nTotal progress: 98% 49/50 1.44it/s\n\n");
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_mem(tl, "server_log", "webui.log", log, sizeof(log) - 1) > 0);
	assert_string_equal(t_first_phase(tl), "serving");
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "bare.log", bare, strlen(bare)) > 0);
	assert_true(t_first_phase(tl) == NULL || strcmp(t_first_phase(tl), "serving") != 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(chain_cause_decides),
		cmocka_unit_test(deepspeed_inference_is_a_load),
		cmocka_unit_test(tgi_router_batch_span_is_serving),
		cmocka_unit_test(sdwebui_total_progress_is_serving),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
