/*
 * test_memfail_tables.c -- engine memory tables and buffers the
 * recogniser reads beside a failure: ggml's CPU and pinned buffers,
 * TensorRT-LLM's executor-creation table, ggml's host buffers, and which
 * memory ran out (oom.scope) with each accelerator's figures. Split from
 * test_memfail.c.
 */
#include "testutil.h"
#include "parsers/serving/memfail.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MiB 1048576LL
#define NA (-1)


/* Set 4, spent round 4 (tests/data/real/any_stack): ggml's CPU buffer
 * type is named "CPU" in the allocator's own line, which goes on telling
 * the CPU backend's failure and names its phase; old ggml-cuda.cu's check
 * names only its file; the pinned host buffer's refusal is a load-time
 * line (the CPU layers' weights), not a failure. */
static void ggml_cpu_source_and_pinned(void **state)
{
	static const char cpu[] = "ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer";
	static const char galloc[] = "ggml_gallocr_reserve_n: failed to allocate CPU buffer of size 139183763104";
	static const char tensors[] = "alloc_tensor_range: failed to allocate CPU buffer of size 2390753280";
	static const char kv[] = "llama_init_from_model: failed to initialize the context: "
				 "failed to allocate buffer for kv cache";
	static const char old[] = "CUDA error 2 at /go/src/github.com/jmorganca/ollama/llm/llama.cpp/gguf/"
				  "ggml-cuda.cu:7358: out of memory";
	static const char pinned[] = "ggml_cuda_host_malloc: failed to allocate 335445.83 MiB of pinned "
				     "memory: out of memory";
	struct memfail f;

	(void)state;
	assert_true(memfail_line(cpu, sizeof(cpu) - 1, &f));
	assert_int_equal(f.family, MF_GGML);
	assert_true(f.host);
	assert_true(memfail_continues(galloc, sizeof(galloc) - 1, &f));
	assert_int_equal(f.requested_bytes, 139183763104LL);
	assert_int_equal(f.phase, OOM_PHASE_PROFILE);

	assert_true(memfail_line(cpu, sizeof(cpu) - 1, &f));
	assert_true(memfail_continues(tensors, sizeof(tensors) - 1, &f));
	assert_int_equal(f.phase, OOM_PHASE_UNKNOWN);   /* any context's tensors */
	assert_true(memfail_continues(kv, sizeof(kv) - 1, &f));
	assert_int_equal(f.phase, OOM_PHASE_KV_ALLOC);
	assert_int_equal(f.requested_bytes, 2390753280LL);

	assert_true(memfail_line(old, sizeof(old) - 1, &f));
	assert_int_equal(f.family, MF_GGML);

	assert_false(memfail_line(pinned, sizeof(pinned) - 1, &f));
	assert_int_equal(memfail_phase_line(pinned, sizeof(pinned) - 1), OOM_PHASE_LOAD_WEIGHTS);
}

/* TensorRT-LLM's executor-creation table (mlcommons/inference#2501,
 * TensorRT-LLM PR #4497): the component that failed names the phase,
 * the card and the free memory are GiB before their figure; and ggml's
 * decode giving up after a Metal failure (ollama#8331) names a decode. */
static void trtllm_table_and_decode(void **state)
{
	static const char kv[] = "RuntimeError: Executor creation failed due to insufficient GPU memory.";
	static const char might[] = "RuntimeError: Executor creation failed with an error which might "
				    "indicate insufficient GPU memory.";
	static const char *const kv_more[] = {
		"The following component could not be created: KV cache",
		"Total GPU memory (GiB): 276.50",
		"Free GPU memory before component creation attempt (GiB): 200.47",
	};
	static const char extra[] = "The following component could not be created: Additional "
				    "executor resources (temporary for KV cache size estimation)";
	static const char *const decode[] = {
		"error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)",
		"llama_graph_compute: ggml_backend_sched_graph_compute_async failed with error -1",
		"llama_decode: failed to decode, ret = -3",
	};
	static const char row[] = "model: 274.64 / 208.12";   /* a row is no continuation */
	struct memfail f;
	size_t i;

	(void)state;
	assert_true(memfail_line(kv, sizeof(kv) - 1, &f));
	assert_int_equal(f.family, MF_TRT);
	for (i = 0; i < sizeof(kv_more) / sizeof(kv_more[0]); i++)
		assert_true(memfail_continues(kv_more[i], strlen(kv_more[i]), &f));
	assert_int_equal(f.phase, OOM_PHASE_KV_ALLOC);
	assert_int_equal(f.total_bytes, (int64_t)(276.50 * 1073741824.0));
	assert_int_equal(f.free_bytes, (int64_t)(200.47 * 1073741824.0));
	assert_false(memfail_continues(row, sizeof(row) - 1, &f));

	assert_true(memfail_line(might, sizeof(might) - 1, &f));
	assert_int_equal(f.family, MF_TRT);
	assert_true(memfail_continues(extra, sizeof(extra) - 1, &f));
	assert_int_equal(f.phase, OOM_PHASE_PROFILE);

	assert_true(memfail_line(decode[0], strlen(decode[0]), &f));
	assert_int_equal(f.family, MF_METAL);
	for (i = 1; i < sizeof(decode) / sizeof(decode[0]); i++)
		assert_true(memfail_continues(decode[i], strlen(decode[i]), &f));
	assert_int_equal(f.phase, OOM_PHASE_SERVING);
}

/* ggml's host buffers: llama.cpp #8101's CPU-backend KV cache (b3184,
 * tests/data/real/any_stack) failed in RAM, family ggml, no GPU; its CUDA
 * buffer of the same shape is a card's. */
static void host_buffers(void **state)
{
	static const char cpu[] = "ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate"
				  " buffer of size 137438953504";
	static const char cuda[] = "ggml_backend_cuda_buffer_type_alloc_buffer: allocating"
				   " 144817.04 MiB on device 0: cudaMalloc failed: out of memory";
	struct memfail f;

	(void)state;
	assert_true(memfail_line(cpu, strlen(cpu), &f));
	assert_int_equal(f.family, MF_GGML);
	assert_true(f.host);
	assert_int_equal(f.device, -1);
	assert_true(f.requested_bytes == 137438953504LL);
	assert_true(memfail_line(cuda, strlen(cuda), &f));
	assert_int_equal(f.family, MF_GGML);
	assert_false(f.host);
	assert_int_equal(f.device, 0);
}

/* Which memory ran out (oom.scope, issue 27's accelerators): the
 * wording family and the line's own words decide, with the figures each
 * states. Lines of tests/data/real/any_stack (Enzyme-JAX 2422, ColabFold
 * 62, ComfyUI 7372, milabench 301, PTOAS 341, ComfyUI 7004, torch_xla
 * 1735). */
static void scopes_and_accelerator_figures(void **state)
{
	static const struct {
		const char *line;
		enum memfail_family family;
		enum vocab_scope scope;
		int64_t requested, total;   /* NA: not stated */
	} t[] = {
		{ "ERROR: LoadError: RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom: XLA:TPU compile "
		  "permanent error. Ran out of memory in memory space hbm. Used 215.17G of 31.25G hbm. "
		  "Exceeded hbm capacity by 183.92G.", MF_XLA, VSC_TPU, 231037028270LL,
		  33554432000LL },
		{ "RuntimeError: RESOURCE_EXHAUSTED: Attempting to reserve 3.95G at the bottom of "
		  "memory. That was not possible. There are 1.92G free, 0B reserved, and 1.92G "
		  "reservable.", MF_XLA, VSC_TPU, 4241280205LL, NA },
		/* XLA's GPU client (BFC): no device named, a GPU's */
		{ "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while "
		  "trying to allocate 4770354232 bytes.", MF_XLA, VSC_GPU, 4770354232LL, NA },
		{ "MPS backend out of memory (MPS allocated: 17.68 GB, other allocations: 3.95 MB, max "
		  "allowed: 18.13 GB). Tried to allocate 1024.00 MB on private pool.", MF_MPS,
		  VSC_UNIFIED, 1024 * MiB, 19466939269LL },
		{ "\t* 1 x RuntimeError: [Rank:0] FATAL ERROR :: MODULE:PT_DEVMEM Allocation failed for "
		  "size::268435456 (256)MB", MF_HPU, VSC_ACCELERATOR, 268435456, NA },
		{ "[ERROR] RecentErrMsg: [PID: 1613532] 2026-03-24-12:14:45.885.234 "
		  "Memory_Allocation_Failure(EL0004): Failed to allocate memory.", MF_NPU,
		  VSC_ACCELERATOR, NA, NA },
		{ "!!! Exception during processing !!! Current platform can NOT allocate memory block "
		  "with size larger than 4GB! Tried to allocate 5.46 GiB (GPU  0; 15.56 GiB total "
		  "capacity; 556.67 MiB already allocated; 2.70 GiB reserved in total by PyTorch)",
		  MF_XPU, VSC_ACCELERATOR, 5862630359LL, 16707422781LL },
		{ "RuntimeError: CUDA error: out of memory", MF_CUDA, VSC_GPU, NA, NA },
	};
	struct memfail f;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(memfail_line(t[i].line, strlen(t[i].line), &f), 1);
		assert_int_equal(f.family, t[i].family);
		assert_int_equal(f.scope, t[i].scope);
		if (t[i].requested == NA)
			assert_true(f.requested_bytes < 0);
		else
			assert_true(llabs(f.requested_bytes - t[i].requested) <= t[i].requested / 100);
		if (t[i].total == NA)
			assert_true(f.total_bytes < 0);
		else
			assert_true(llabs(f.total_bytes - t[i].total) <= t[i].total / 100);
	}
	/* the TPU runtime's report after its failure (torch_xla 1735): the
	 * "HBM capacity" line gives the HBM's size; the compiler's report
	 * (ColabFold 62) names a TPU's HBM when the failure's line did not */
	{
		static const char fail[] = "Attempting to reserve 3.95G at the bottom of memory. That"
					   " was not possible. There are 1.92G free, 0B reserved, and"
					   " 1.92G reservable.; ";
		static const char cap[] = "HBM capacity 8.00G:";
		static const char usage[] = "Total hbm usage >= 9.60G:";

		assert_int_equal(memfail_line(fail, strlen(fail), &f), 1);
		assert_int_equal(f.scope, VSC_TPU);
		assert_true(f.total_bytes < 0);
		assert_int_equal(memfail_continues(cap, strlen(cap), &f), 1);
		assert_int_equal(f.total_bytes, 8LL * 1024 * MiB);
		assert_int_equal(memfail_scope(MF_XLA, 0, usage, strlen(usage), VSC_GPU), VSC_TPU);
		assert_int_equal(memfail_scope(MF_XLA, 0, fail, 0, VSC_GPU), VSC_GPU);
	}
	/* the healthy start-up of a Mac (ComfyUI 2420): no failure */
	{
		static const char ok[] = "Set vram state to: SHARED";

		assert_int_equal(memfail_line(ok, strlen(ok), &f), 0);
	}
}

/* Set 15 spent (w-spend15a, tests/data/real/any_stack/a-whispercpp-*,
 * a-rustformers-*): ggml's context pool (ggml.c ggml_new_object, and
 * ggml_new_tensor_impl before it) with its needed and available bytes;
 * ggml-backend.c's CPU-buffer assertion; Emscripten's abort when the
 * wasm heap cannot grow. All the host's memory. The line phases of
 * whisper.cpp's start-up: the model's load, then the state's caches. */
static void ggml_pool_assert_and_wasm(void **state)
{
	static const char pool[] = "ggml_new_object: not enough space in the context's memory pool (needed 184549744, available 2097152)";
	static const char old_pool[] = "ggml_new_tensor_impl: not enough space in the context's memory pool (needed 412241472, available 411791504)";
	static const char assert_buf[] = "GGML_ASSERT: D:\\a\\whisper.cpp\\whisper.cpp\\ggml-backend.c:460: data != NULL && \"failed to allocate buffer\"";
	static const char wasm[] = "Aborted(OOM)";
	static const char grow[] = "Aborted(Cannot enlarge memory arrays to size 2164260864 bytes (OOM).)";
	static const char load[] = "whisper_model_load: n_langs       = 100";
	static const char kv[] = "whisper_init_state: kv cross size =   17.58 MB";
	struct memfail f;

	(void)state;
	assert_true(memfail_line(pool, sizeof(pool) - 1, &f));
	assert_int_equal(f.family, MF_GGML);
	assert_true(f.host);
	assert_int_equal(f.requested_bytes, 184549744LL);
	assert_int_equal(f.free_bytes, 2097152LL);
	assert_true(memfail_line(old_pool, sizeof(old_pool) - 1, &f));
	assert_int_equal(f.family, MF_GGML);
	assert_int_equal(f.requested_bytes, 412241472LL);
	assert_int_equal(f.free_bytes, 411791504LL);

	assert_true(memfail_line(assert_buf, sizeof(assert_buf) - 1, &f));
	assert_int_equal(f.family, MF_GGML);
	assert_true(f.host);

	assert_true(memfail_line(wasm, sizeof(wasm) - 1, &f));
	assert_int_equal(f.family, MF_HOST);
	assert_true(f.host);
	assert_true(memfail_line(grow, sizeof(grow) - 1, &f));
	assert_true(f.host);

	assert_int_equal(memfail_phase_line(load, sizeof(load) - 1), OOM_PHASE_LOAD_WEIGHTS);
	assert_int_equal(memfail_phase_line(kv, sizeof(kv) - 1), OOM_PHASE_KV_ALLOC);
}

/* Set 19 spent (w-spend19b): ggml's scratch pool refusal (ggml.c
 * ggml_new_tensor_impl, koboldcpp v1.36) is ggml's, host, with its
 * figures; an uncaught C++ exception's "what():" line is an error
 * context (dorado correct@v0.7.3); an automatic batch-size probe whose
 * size detection failed is a warning, no failure (dorado 0.3.x). */
static void scratch_pool_what_and_probe(void **state)
{
	static const char scratch[] = "Processing Prompt [BLAS] (7168 / 7321 tokens)ggml_new_tensor_impl: "
				      "not enough space in the scratch memory pool (needed 1279262720, "
				      "available 1197473792)";
	static const char what[] = "  what():  Insufficient memory to run inference on cuda:0";
	static const char probe[] = "[warning] Auto batchsize detection failed. Insufficient memory, "
				    "required 8GB, available 7.8GB";
	struct memfail f;

	(void)state;
	assert_true(memfail_line(scratch, sizeof(scratch) - 1, &f));
	assert_int_equal(f.family, MF_GGML);
	assert_true(f.host);
	assert_int_equal(f.requested_bytes, 1279262720LL);
	assert_true(memfail_line(what, sizeof(what) - 1, &f));
	assert_false(memfail_line(probe, sizeof(probe) - 1, &f));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(trtllm_table_and_decode),
		cmocka_unit_test(ggml_cpu_source_and_pinned),
		cmocka_unit_test(host_buffers),
		cmocka_unit_test(scopes_and_accelerator_figures),
		cmocka_unit_test(ggml_pool_assert_and_wasm),
		cmocka_unit_test(scratch_pool_what_and_probe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
