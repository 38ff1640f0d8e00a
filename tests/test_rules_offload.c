/*
 * test_rules_offload.c -- an Ollama GPU plan beside an OOM whose phase is
 * not shown (the derive pass offload_fit, the rule offload.c): the plan
 * that left less than its compute graph free names num_gpu and the layers
 * that fit, computed from the estimate; a plan with room says nothing, and
 * a placed OOM is left to its phase's rule. Inputs are the real pastes of
 * tests/data/real (ollama #6139's three, healthy Ollama start-ups) with
 * the bare "CUDA error: out of memory" of #6139 beside the healthy lines.
 */
#include "testutil_rules.h"
#include "analyzer/rules/rules.h"

#include <string.h>

#define MiB 1048576.0
#define DEEPSEEK "tests/data/real/any_stack/b-ollama-deepseek-v2-cublas-alloc-failed-offload-20-layers/"

/* ollama #6139: 20 of 28 layers planned, 7.1 GiB of 7.3 GiB, the partial
 * graph 376.1 MiB; then a bare CUDA OOM in another paste. A layer is
 * (9.6 - 7.1 GiB) / 8 = 320 MiB; 205 MiB left, 171 MiB short of the
 * graph: one layer fewer, num_gpu 19 (the maintainer's own count). */
static void deepseek_twenty_layers_one_too_many(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, DEEPSEEK "02-cuda-error.log"), 0);
	assert_int_equal(t_parse_file(tl, DEEPSEEK "03-offload.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "unknown");
	/* the reader's two figures (engine_lines.c), as the line prints them */
	assert_float_equal(t_real(tl, "SELECT required_partial_bytes FROM engine"), 7.1 * 1024 * MiB,
			   1);
	assert_float_equal(t_real(tl, "SELECT graph_partial_bytes FROM engine"), 376.1 * MiB, 1);
	assert_string_equal(t_text(tl, "SELECT basis || ' ' || per_layer_from FROM offload_fit"),
			    "ollama_estimate full_minus_partial");
	assert_float_equal(t_real(tl, "SELECT bytes_per_layer FROM offload_fit"), 320 * MiB, MiB);
	assert_int_equal(t_int(tl, "SELECT layers_short FROM offload_fit"), 1);
	assert_string_equal(t_text(tl, "SELECT class || ' ' || cause FROM verdict"),
			    "misconfig offload_does_not_fit");
	assert_float_equal(t_figure(tl, "offload_does_not_fit", "advice_value"), 19, 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(figures, '$.advice_knob') FROM"
				   " finding WHERE cause = 'offload_does_not_fit'"), "num_gpu");
	/* the value is labelled as oomlens's, from the estimate */
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE"
				      " cause = 'offload_does_not_fit'"), "computed by oomlens"));
	t_close(tl);
}

/* A healthy start-up's plan (48 of 49 layers, 8.5 of 10.9 GiB, graph
 * 1.3 GiB: 2.4 GiB left) beside the same bare OOM: the plan had room, so
 * no layer count is claimed. */
static void plan_with_room_says_nothing(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, DEEPSEEK "02-cuda-error.log"), 0);
	assert_true(t_parse_file(tl, "tests/data/real/healthy/"
				 "ollama-offload-line-starting-server-journal.log") == 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT layers_short FROM offload_fit"), 0);
	assert_int_equal(t_findings(tl, "offload_does_not_fit"), 0);
	t_close(tl);
}

/* Two GPUs, Ollama's per-GPU lists: available [11.5 GiB 4.6 GiB],
 * allocations [11.4 GiB 0 B] (37 of 49 layers, all on GPU 0): GPU 0 is
 * the one judged (GPU 1 holds none), 0.1 GiB left against a 1.3 GiB graph. */
static void two_gpus_the_one_holding_layers(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, DEEPSEEK "02-cuda-error.log"), 0);
	assert_true(t_parse_file(tl, "tests/data/real/healthy/"
				 "ollama-offload-line-wrapped-two-gpus-37-of-49-layers.log") == 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT devices FROM offload_fit"), 1);
	assert_int_equal(t_int(tl, "SELECT device FROM offload_fit"), 0);
	assert_true(t_int(tl, "SELECT layers_short FROM offload_fit") >= 1);
	assert_int_equal(t_findings(tl, "offload_does_not_fit"), 1);
	assert_true(t_figure(tl, "offload_does_not_fit", "advice_value") < 37);
	t_close(tl);
}

/* A placed OOM (ollama #8471: the compute graph's reservation failed,
 * phase profile, beside a plan of 32 of 33 layers) is its phase's: this
 * rule stays silent though the plan is tight. */
static void placed_oom_left_to_its_phase(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(t_parse_file(tl, "tests/data/real/any_stack/"
				 "ollama-journal-offload-estimate-then-gallocr-cudamalloc.log") == 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "profile");
	assert_int_equal(t_findings(tl, "offload_does_not_fit"), 0);
	t_close(tl);
}

/* llama.cpp's own plan (basis ggml_buffers): the free memory it saw and
 * the GPU buffers it allocated, in its log's wording (llama.cpp's
 * llama_model_load_from_file_impl, load_tensors, llama_kv_cache_unified,
 * llama_context; an edge case made in that format, no real paste of it
 * beside an unplaced failure was found), then a bare CUDA OOM pasted
 * apart. 23306 MiB free, 21000 + 1536 + 560 planned: 210 MiB left against
 * a 560 MiB compute buffer; a layer (21000 + 1536) / 49 = 460 MiB: 48. */
static void llamacpp_buffers_one_layer_short(void **state)
{
	static const char log[] =
		"llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 3090) -"
		" 23306 MiB free\n"
		"load_tensors: offloading 48 repeating layers to GPU\n"
		"load_tensors: offloading output layer to GPU\n"
		"load_tensors: offloaded 49/49 layers to GPU\n"
		"load_tensors:        CUDA0 model buffer size = 21000.00 MiB\n"
		"load_tensors:   CPU_Mapped model buffer size =   417.66 MiB\n"
		"llama_kv_cache_unified:      CUDA0 KV buffer size =  1536.00 MiB\n"
		"llama_context:      CUDA0 compute buffer size =   560.00 MiB\n"
		"llama_context:  CUDA_Host compute buffer size =    24.01 MiB\n";
	struct timeline *tl = t_open();
	(void)state;

	assert_true(t_parse_mem(tl, "server_log", "llama-server.log", log, sizeof(log) - 1) > 0);
	assert_int_equal(t_parse_file(tl, DEEPSEEK "02-cuda-error.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT basis FROM offload_fit"), "ggml_buffers");
	assert_int_equal(t_int(tl, "SELECT headroom_bytes FROM offload_fit"), 210 * 1048576LL);
	assert_int_equal(t_int(tl, "SELECT layers_fit FROM offload_fit"), 48);
	assert_string_equal(t_text(tl, "SELECT json_extract(figures, '$.advice_knob') FROM"
				   " finding WHERE cause = 'offload_does_not_fit'"), "n_gpu_layers");
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE"
				      " cause = 'offload_does_not_fit'"), "--n-gpu-layers 48"));
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(deepseek_twenty_layers_one_too_many),
		cmocka_unit_test(plan_with_room_says_nothing),
		cmocka_unit_test(two_gpus_the_one_holding_layers),
		cmocka_unit_test(placed_oom_left_to_its_phase),
		cmocka_unit_test(llamacpp_buffers_one_layer_short),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
