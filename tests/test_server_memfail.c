/*
 * test_server_memfail.c -- the server-log parser's side of the generic
 * memory-failure recogniser (parsers/serving/server_memfail.c) on real
 * lines: one failure told over several lines is one OOM event, two are
 * two (issue 27, the wordings learnt from the sources).
 *
 * NCCL prints "Cuda failure 'out of memory'" (an engine_error event) and
 * then "Failed to CUDA calloc N bytes" (src/include/alloc.h): once the
 * calloc line became a wording of its own it was counted a second time
 * (tests/data/real/gpu_host/nccl-cuda-oom-calloc.log).
 */
#include "testutil.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int64_t nevents(struct timeline *tl, const char *kind)
{
	return t_int(tl, "SELECT count(*) FROM event WHERE kind = '%s'", kind);
}

static struct timeline *parse(const char *name, const char *text)
{
	struct timeline *tl = t_open();

	assert_true(t_parse_mem(tl, "server_log", name, text, strlen(text)) > 0);
	return tl;
}

/* NVIDIA/nccl issue 1235's lines (tests/data/real/gpu_host): one failure. */
static void nccl_cuda_failure_then_calloc_is_one(void **state)
{
	static const char pair[] =
		"ng30903:3063028:3066152 [3] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'\n"
		"\n"
		"ng30903:3063028:3066152 [3] include/alloc.h:185 NCCL WARN Failed to CUDA calloc 6291456 bytes\n"
		"ng30903:3063028:3066152 [3] NCCL INFO transport/p2p.cc:204 -> 1\n";
	static const char alone[] =
		"ng30903:3063028:3066152 [3] include/alloc.h:185 NCCL WARN Failed to CUDA calloc 6291456 bytes\n"
		"ng30903:3063028:3066152 [3] NCCL INFO transport/p2p.cc:204 -> 1\n";
	struct timeline *tl = parse("pair", pair);

	(void)state;
	assert_int_equal(nevents(tl, "engine_error") + nevents(tl, "mem_failure"), 1);
	t_close(tl);
	tl = parse("alone", alone);
	assert_int_equal(nevents(tl, "mem_failure"), 1);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.requested_bytes') FROM event "
			       "WHERE kind = 'mem_failure'"), 6291456);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.family') FROM event "
				   "WHERE kind = 'mem_failure'"), "nccl");
	t_close(tl);
}

/* C++'s terminate message and its what() line: one host failure
 * (tests/data/real/any_stack/cxx-std-bad-alloc-core-dumped.log). */
static void bad_alloc_and_its_what_is_one(void **state)
{
	static const char text[] =
		"terminate called after throwing an instance of 'std::bad_alloc'\n"
		"  what():  std::bad_alloc\n"
		"Aborted (core dumped)\n";
	struct timeline *tl = parse("bad_alloc", text);

	(void)state;
	assert_int_equal(nevents(tl, "mem_failure"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.family') FROM event "
				   "WHERE kind = 'mem_failure'"), "host");
	t_close(tl);
}

/* Aphrodite (and TabbyAPI) log their own start-up through uvicorn's
 * "INFO:     " prefix. Such a line is no request served (only an access
 * line's POST answered 2xx is) and may name a phase: Aphrodite's weights
 * loaded, the profile run next. The lines are dphnAI/sonar issue 414's
 * (Aphrodite 0.5.2); the failure is issue 522's title line (Aphrodite's
 * tracker). Before round 4 every such line marked the log served, and
 * a start-up OOM after it came out "serving". */
static void aphrodite_info_lines_are_start_up(void **state)
{
	static const char text[] =
		"INFO:     Initializing the Aphrodite Engine (v0.5.2) with the following config:\n"
		"INFO:     Model = '/app/TheBloke_OpenHermes-2.5-Mistral-7B-AWQ'\n"
		"INFO:     KV Cache Data Type = fp8_e5m2\n"
		"INFO:     Model weights loaded. Memory usage: 3.88 GiB x 1 = 3.88 GiB\n"
		"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB. GPU\n";
	static const char served[] =
		"INFO:     Model weights loaded. Memory usage: 3.88 GiB x 1 = 3.88 GiB\n"
		"INFO:     10.0.0.7:51234 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK\n"
		"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB. GPU\n";
	struct timeline *tl = parse("aphrodite", text);

	(void)state;
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.phase') FROM event "
				   "WHERE kind = 'torch_oom'"), "profile");
	t_close(tl);
	tl = parse("served", served);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.phase') FROM event "
				   "WHERE kind = 'torch_oom'"), "serving");
	t_close(tl);
}

/* Three tracebacks of a REPL, each its own XPU failure (intel-extension-
 * for-pytorch 629): IPEX's 4 GiB per-allocation refusal and two XPU out
 * of memory, three events with the sizes and total they state, each on
 * an accelerator's memory (issue 27: oom.scope). */
static void three_xpu_failures_are_three(void **state)
{
	size_t n;
	char *text = t_slurp("tests/data/real/any_stack/ipex-xpu-oom-1.x-total-capacity-repl.log", &n);
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_mem(tl, "server_log", "repl", text, n) > 0);
	free(text);
	assert_int_equal(nevents(tl, "mem_failure"), 3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'mem_failure' AND "
			       "json_extract(data, '$.family') = 'xpu' AND "
			       "json_extract(data, '$.scope') = 'accelerator' AND "
			       "json_extract(data, '$.total_bytes') > 16000000000"), 3);
	t_close(tl);
}

/* TensorRT-LLM prints its C++ stack below the error (NVIDIA/TensorRT-LLM
 * #6091, tests/data/real/any_stack/c5-trtllm-020-...): the engine_error is
 * held until those frames name its phase (KVCacheManager::allocatePools:
 * the KV pools); without such frames it is written, phase unknown, once. */
static void trt_error_takes_the_phase_of_the_stack_below(void **state)
{
	static const char with_stack[] =
		"RuntimeError: \n"
		"[TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMalloc(ptr, n): out of memory\n"
		"(/home/jenkins/agent/workspace/LLM/release-0.20/L0_Test-x86_64/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmBuffers.h:92)\n"
		"1       0x7cb3c4fcd438 void tensorrt_llm::common::check<cudaError>(cudaError, char const*, char const*, int) + 88\n"
		"2       0x7cb3c528a6e3 tensorrt_llm::runtime::BufferManager::gpuSync(nvinfer1::Dims64, nvinfer1::DataType) + 339\n"
		"5       0x7cb3c5baf5bd tensorrt_llm::batch_manager::kv_cache_manager::KVCacheManager::allocatePools(bool) + 61\n";
	static const char alone[] =
		"[TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMalloc(ptr, n): out of memory\n"
		"done\n";
	struct timeline *tl = parse("with_stack", with_stack);

	(void)state;
	assert_int_equal(nevents(tl, "engine_error"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.phase') FROM event "
				   "WHERE kind = 'engine_error'"), "kv_alloc");
	t_close(tl);
	tl = parse("alone", alone);
	assert_int_equal(nevents(tl, "engine_error"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.phase') FROM event "
				   "WHERE kind = 'engine_error'"), "unknown");
	t_close(tl);
}

/* Set 8 spent (w-spent8s), the lines of tests/data/real/any_stack's
 * folders of the same names. Mesa RADV's refusal then ggml_vulkan's
 * report of the same allocation is one ggml failure, placed in the
 * weights' load by llama_model_load; llama.cpp's recurrent-state cache
 * failing is a ggml failure of the KV cache's allocation; MLC-LLM's
 * start-up check is the weights' load when the weights alone exceed its
 * budget, the KV cache's when they fit (mlc-llm issue 3024's figures). */
static void driver_then_ggml_and_start_up_stages(void **state)
{
	static const char radv[] =
		"radv/amdgpu: Failed to allocate a buffer:\n"
		"radv/amdgpu:    size      : 4248715264 bytes\n"
		"radv/amdgpu:    alignment : 262144 bytes\n"
		"radv/amdgpu:    domains   : 4\n"
		"ggml_vulkan: Device memory allocation of size 4248715264 failed.\n"
		"ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory\n"
		"llama_model_load: error loading model: unable to allocate Vulkan0 buffer\n"
		"llama_model_load_from_file_impl: failed to load model\n";
	static const char rs[] =
		"Failed to load model.\n"
		"\n"
		"Failed to initialize the context: failed to allocate buffer for rs cache\n";
	static const char mlc_weights[] =
		"mlc-llm/cpp/serve/threaded_engine.cc:283: Check failed: (output_res.IsOk()) is false: "
		"Insufficient GPU memory error: The available single GPU memory is 4762.535 MB, which is "
		"less than the sum of model weight size (4958.468 MB) and temporary buffer size (609.312 MB).\n";
	static const char mlc_cache[] =
		"TVMError: Check failed: (output_res.IsOk()) is false: Insufficient GPU memory error: The "
		"available single GPU memory is 20584.716 MB, which is less than the sum of model weight "
		"size (5977.188 MB) and temporary buffer size (15013.765 MB).\n";
	static const char *const sql_family =
		"SELECT json_extract(data, '$.family') FROM event WHERE kind = 'mem_failure'";
	static const char *const sql_phase =
		"SELECT json_extract(data, '$.phase') FROM event WHERE kind = 'mem_failure'";
	struct timeline *tl = parse("radv", radv);

	(void)state;
	assert_int_equal(nevents(tl, "mem_failure"), 1);
	assert_string_equal(t_text(tl, "%s", sql_family), "ggml");
	assert_string_equal(t_text(tl, "%s", sql_phase), "load_weights");
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.requested_bytes') FROM event "
			       "WHERE kind = 'mem_failure'"), 4248715264LL);
	t_close(tl);
	tl = parse("rs", rs);
	assert_int_equal(nevents(tl, "mem_failure"), 1);
	assert_string_equal(t_text(tl, "%s", sql_family), "ggml");
	assert_string_equal(t_text(tl, "%s", sql_phase), "kv_alloc");
	t_close(tl);
	tl = parse("mlc_weights", mlc_weights);
	assert_string_equal(t_text(tl, "%s", sql_phase), "load_weights");
	t_close(tl);
	tl = parse("mlc_cache", mlc_cache);
	assert_string_equal(t_text(tl, "%s", sql_phase), "kv_alloc");
	t_close(tl);
}

/* Jetson's nvmap refusing (ENOMEM) and then ggml's cudaMalloc failure
 * of the same allocation, as a public llama.cpp-on-Orin notes file
 * quotes them (round 14): one failure, ggml's, with ggml's size; the
 * nvmap line alone (asierarranz/Cool_Demos #4) is nvmap's, unified; its
 * "error 0" companion is no failure. */
static void nvmap_then_ggml_is_one_failure(void **state)
{
	static const char both[] =
		"NvMapMemAllocInternalTagged: 1075072515 error 12\n"
		"NvMapMemHandleAlloc: error 0\n"
		"ggml_backend_cuda_buffer_type_alloc_buffer: allocating 345.72 MiB on device 0: "
		"cudaMalloc failed: out of memory\n"
		"alloc_tensor_range: failed to allocate CUDA0 buffer of size 362517888\n"
		"llama_model_load: error loading model: unable to allocate CUDA0 buffer\n";
	static const char alone[] =
		"NvMapMemAllocInternalTagged: 1075072515 error 12  (ENOMEM)\n";
	struct timeline *tl = parse("both", both);

	(void)state;
	assert_int_equal(nevents(tl, "mem_failure"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.family') FROM event "
				   "WHERE kind = 'mem_failure'"), "ggml");
	t_close(tl);
	tl = parse("alone", alone);
	assert_int_equal(nevents(tl, "mem_failure"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.family') FROM event "
				   "WHERE kind = 'mem_failure'"), "nvmap");
	t_close(tl);
}

/* kvcached's pool shortfall (ovg-project/kvcached issue 262's lines,
 * set 13 spent): a failure where the engine's fatal error follows, none
 * where the engine goes on (later kvcached patches wait for blocks). */
static void kvcached_shortfall_needs_an_error(void **state)
{
	static const char fatal[] =
		"[kvcached][WARNING] kv_cache_manager.py:174 available_size()=71 < need_size=76\n"
		"ERROR core.py:938 EngineCore encountered a fatal error.\n";
	static const char survived[] =
		"[kvcached][WARNING] kv_cache_manager.py:174 available_size()=71 < need_size=76\n"
		"INFO 10-25 11:17:28 [loggers.py:123] Engine 000: Avg prompt throughput: 1.0 tokens/s\n"
		"INFO 10-25 11:17:38 [loggers.py:123] Engine 000: Avg prompt throughput: 2.0 tokens/s\n";
	struct timeline *tl = parse("fatal", fatal);

	(void)state;
	assert_int_equal(nevents(tl, "mem_failure"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.family') FROM event "
				   "WHERE kind = 'mem_failure'"), "kvcached");
	t_close(tl);
	tl = parse("survived", survived);
	assert_int_equal(nevents(tl, "mem_failure"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nccl_cuda_failure_then_calloc_is_one),
		cmocka_unit_test(kvcached_shortfall_needs_an_error),
		cmocka_unit_test(bad_alloc_and_its_what_is_one),
		cmocka_unit_test(three_xpu_failures_are_three),
		cmocka_unit_test(aphrodite_info_lines_are_start_up),
		cmocka_unit_test(trt_error_takes_the_phase_of_the_stack_below),
		cmocka_unit_test(driver_then_ggml_and_start_up_stages),
		cmocka_unit_test(nvmap_then_ggml_is_one_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
