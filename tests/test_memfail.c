/*
 * test_memfail.c -- the generic memory-failure recogniser
 * (parsers/serving/memfail.c) on real lines: each wording family with
 * the figures it states (lines from tests/data/real/any_stack, issue 27),
 * the lines that must not count (tests/data/real/healthy, TensorFlow's
 * "not a failure", SGLang's profiled value, the kernel's own OOM lines,
 * advice), the continuations that add to a failure, and the phase a
 * failure's own text names.
 */
#include "testutil.h"
#include "parsers/serving/memfail.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MiB 1048576LL
#define NA (-1)

static const struct positive {
	const char *line;
	enum memfail_family family;
	int64_t requested;      /* bytes, NA: not stated; MiB-rounded ones within 1 % */
	int device;
	enum oom_phase phase;
} positives[] = {
	{ "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 144817.04 MiB on device 0: "
	  "cudaMalloc failed: out of memory", MF_GGML, 151851652956LL, 0, OOM_PHASE_UNKNOWN },
	/* PyTorch's message quoted without its first words, wrapped (vllm
	 * pull 57595's description) */
	{ "    Tried to allocate 136.00 MiB. GPU 0 has a total capacity of 22.36 GiB of",
	  MF_TORCH, 142606336, 0, OOM_PHASE_UNKNOWN },
	{ "deep-seek-1  | ggml_gallocr_reserve_n: failed to allocate CUDA1 buffer of size 10345253120",
	  MF_GGML, 10345253120LL, 1, OOM_PHASE_PROFILE },
	{ "error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)",
	  MF_METAL, NA, NA, OOM_PHASE_UNKNOWN },
	/* a generic wording under its backend's name (antirez/ds4 #410, #78:
	 * tests/data/real/any_stack/a-ds4-*): that backend's family */
	{ "ds4: ROCm tensor alloc failed: out of memory", MF_HIP, NA, NA, OOM_PHASE_UNKNOWN },
	{ "ds4: CUDA q8 fp16 cache alloc failed (64.00 MiB): out of memory", MF_CUDA, 67108864, NA,
	  OOM_PHASE_UNKNOWN },
	/* a backend named after the wording labels a figure: no family from it
	 * (the TGI warm-up panic under tests/data/real/any_stack) */
	{ "Error: out of memory, Free (according to CUDA): 11.12 MiB", MF_UNKNOWN, NA, NA,
	  OOM_PHASE_UNKNOWN },
	{ "RuntimeError: MPS backend out of memory (MPS allocated: 8.89 GB, other allocations: "
	  "172.98 MB, max allowed: 9.07 GB). Tried to allocate 6.25 MB on private pool.",
	  MF_MPS, 6553600, NA, OOM_PHASE_UNKNOWN },
	{ "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying "
	  "to allocate 4770354232 bytes.", MF_XLA, 4770354232LL, NA, OOM_PHASE_UNKNOWN },
	{ "FAILED tests/core_test.py::CoreTest::test_jit_42 - RuntimeError: Resource exhausted: "
	  "Out of memory while trying to allocate 24 bytes.", MF_XLA, 24, NA, OOM_PHASE_UNKNOWN },
	{ "2019-01-08 19:06:11.303639: E tensorflow/stream_executor/rocm/rocm_driver.cc:601] "
	  "failed to allocate 7.35G (7889485824 bytes) from device: hipError_t(1002)",
	  MF_HIP, 7889485824LL, NA, OOM_PHASE_UNKNOWN },
	{ "cuDNN failure 2: CUDNN_STATUS_ALLOC_FAILED ; GPU=0 ; hostname=PTNUWCL5099642 ; "
	  "expr=finder(calgo, algoPerf)", MF_CUDNN, NA, 0, OOM_PHASE_UNKNOWN },
	{ "RuntimeError: [TM][ERROR] CUDA runtime error: out of memory "
	  "/lmdeploy/src/turbomind/utils/allocator.h:231", MF_TURBOMIND, NA, NA, OOM_PHASE_UNKNOWN },
	{ "RuntimeError: CUDA out of memory occurred when warming up sampler with 1024 dummy "
	  "requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when "
	  "initializing the engine.", MF_VLLM_WARMUP, NA, NA, OOM_PHASE_WARMUP },
	{ "`ValueError: token_to_kv_pool_allocator memory leak detected! self.max_total_num_tokens="
	  "270331, available_size=644, evictable_size=269628, protected_size=0",
	  MF_SGLANG_KV, NA, NA, OOM_PHASE_SERVING },
	{ "RuntimeError: CUDA error: out of memory", MF_CUDA, NA, NA, OOM_PHASE_UNKNOWN },
	/* round 8: vLLM's sleep-mode allocator, torch_memory_saver */
	{ "(ActorModelRayActor pid=348952) RuntimeError: CUDA Error: out of memory at "
	  "/workspace/csrc/cumem_allocator.cpp:62", MF_CUDA, NA, NA, OOM_PHASE_UNKNOWN },
	{ "[torch_memory_saver.cpp] cudaError error: 2 (out of memory)  file=csrc/core.cpp "
	  "func=resume line=172", MF_CUDA, NA, NA, OOM_PHASE_UNKNOWN },
	{ "time=2025-04-29T12:31:50.345+02:00 level=ERROR source=sched.go:457 msg=\"error loading "
	  "llama server\" error=\"llama runner process has terminated: cudaMalloc failed: out of "
	  "memory\"", MF_CUDA, NA, NA, OOM_PHASE_LOAD_WEIGHTS },
	{ "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 16.00 GiB. GPU 0 has a "
	  "total capacity of 15.24 GiB of which 15.09 GiB is free.", MF_HIP, 16 * 1024 * MiB, 0,
	  OOM_PHASE_UNKNOWN },
	/* ggml's Vulkan backend (llama.cpp issue 15256) */
	{ "ggml_vulkan: Device memory allocation of size 118497280 failed.", MF_GGML, 118497280,
	  NA, OOM_PHASE_UNKNOWN },
	{ "ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory", MF_GGML, NA, NA,
	  OOM_PHASE_UNKNOWN },
	/* wordings no public thread in the corpus shows yet, rendered from
	 * the source that prints them (issue 27: learnt from the sources) */
	/* pytorch c10/cuda/driver_api.h C10_CUDA_DRIVER_CHECK (v2.1.0) */
	{ "RuntimeError: CUDA driver error: out of memory", MF_CUDA, NA, NA, OOM_PHASE_UNKNOWN },
	/* pytorch C10_CUDA_CHECK hipified for ROCm builds (v2.0.0) */
	{ "RuntimeError: HIP error: out of memory", MF_HIP, NA, NA, OOM_PHASE_UNKNOWN },
	/* cusolver_common.h's status name, through torch.linalg (v1.13.0) */
	{ "RuntimeError: cusolver error: CUSOLVER_STATUS_ALLOC_FAILED, when calling "
	  "`cusolverDnCreate(handle)`", MF_CUBLAS, NA, NA, OOM_PHASE_UNKNOWN },
	/* NVIDIA/nccl src/include/alloc.h ncclCudaCalloc (v2.18.5) */
	{ "node1:3063028:3066152 [3] include/alloc.h:185 NCCL WARN Failed to CUDA calloc "
	  "6291456 bytes", MF_NCCL, 6291456, NA, OOM_PHASE_UNKNOWN },
	/* openxla/xla stream_executor device memory allocator */
	{ "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request "
	  "for 2.00GiB (2147483648B) on device ordinal 0", MF_XLA, 2147483648LL, 0,
	  OOM_PHASE_UNKNOWN },
	/* ggml-alloc.c ggml_gallocr_reserve_n (ollama v0.12.0 vendored ggml):
	 * the backend's buffer name, here Vulkan's */
	{ "ggml_gallocr_reserve_n: failed to allocate Vulkan0 buffer of size 2147483648",
	  MF_GGML, 2147483648LL, NA, OOM_PHASE_PROFILE },
	/* ggml-metal.m ggml_backend_metal_buffer_type_alloc_buffer (v0.12.0) */
	{ "ggml_backend_metal_buffer_type_alloc_buffer: error: failed to allocate buffer, "
	  "size =  4096.00 MiB", MF_GGML, 4096 * MiB, NA, OOM_PHASE_UNKNOWN },
	/* llama.cpp kv cache (ollama v0.5.0 vendored llama.cpp) */
	{ "llama_kv_cache_init: failed to allocate buffer for kv cache", MF_GGML, NA, NA,
	  OOM_PHASE_KV_ALLOC },
	/* ollama ml/device.go ErrNoMem, llm/server.go (v0.12.0); the
	 * system-memory refusal is raised only while the layers are placed
	 * (llm/server.go@v0.2.2..v0.20.0), so it names the load itself */
	{ "panic: insufficient memory - required allocations: {InputWeights:0B CPU:{Name:CPU}}",
	  MF_OLLAMA, NA, NA, OOM_PHASE_UNKNOWN },
	{ "Error: model requires more system memory (36.4 GiB) than is available (25.1 GiB)",
	  MF_OLLAMA, (int64_t)(36.4 * 1024 * MiB), NA, OOM_PHASE_LOAD_WEIGHTS },
	/* TensorRT defaultAllocator.cpp through the [TRT] logger */
	{ "[03/13/2026-13:17:50] [TRT] [E] 1: [defaultAllocator.cpp::allocate::20] Error Code 1: "
	  "Cuda Runtime (out of memory)", MF_TRT, NA, NA, OOM_PHASE_UNKNOWN },
	/* SYCL's runtime as llama.cpp's docs/backend/SYCL.md quotes it (PR 9476);
	 * Vulkan's C name (ollama llm/status.go v0.12.0 lists it) */
	{ "Native API failed. Native API returns: -6 (PI_ERROR_OUT_OF_HOST_MEMORY) -6 "
	  "(PI_ERROR_OUT_OF_HOST_MEMORY)", MF_SYCL, NA, NA, OOM_PHASE_UNKNOWN },
	{ "ggml_vulkan: vkAllocateMemory failed: VK_ERROR_OUT_OF_DEVICE_MEMORY", MF_GGML, NA, NA,
	  OOM_PHASE_UNKNOWN },
	/* MLX's other refusal (mlx/backend/metal/allocator.cpp) */
	{ "RuntimeError: [metal::malloc] Resource limit (499000) exceeded.", MF_MLX, NA, NA,
	  OOM_PHASE_UNKNOWN },
	/* set 4, spent round 4: the wordings of memfail_words.c's block of
	 * that name, as the spent excerpts (tests/data/real/any_stack) print
	 * them. torch_xla's XRT on a TPU (TensorFlow's status text) */
	{ "2020-10-22 02:48:58 10.128.0.33 [3]   (1) Resource exhausted: Attempting to allocate "
	  "180.59M. That was not possible. There are 142.58M free.; (0x3x0_HBM1)", MF_XLA,
	  (int64_t)(180.59 * MiB), NA, OOM_PHASE_UNKNOWN },
	/* MLX before 0.18 (mlx/allocator.cpp malloc_or_wait) */
	{ "libc++abi: terminating due to uncaught exception of type std::runtime_error: "
	  "[malloc_or_wait] Unable to allocate 12 bytes.", MF_MLX, 12, NA, OOM_PHASE_UNKNOWN },
	/* TVM's VM under MLC-LLM (relax_vm/memory_manager.cc) */
	{ "[05:04:00] /home/local/llm/omniquant/mlc-llm/3rdparty/tvm/src/runtime/relax_vm/"
	  "memory_manager.cc:115: InternalError: Check failed: (offset + needed_size <= "
	  "this->buffer.size) is false: storage allocation failure, attempted to allocate 16785408 "
	  "at offset 0 in region that is 16777216bytes", MF_MLC, 16785408, NA, OOM_PHASE_UNKNOWN },
	/* TensorRT-LLM's paged KV cache (kvCacheManager.cpp): a request's
	 * block, so serving */
	{ "[TensorRT-LLM][ERROR] [TensorRT-LLM][ERROR] Assertion failed: Can't allocate new blocks. "
	  "No free blocks left. (/home/jenkins/agent/workspace/LLM/main/L0_PostMerge/llm/cpp/"
	  "tensorrt_llm/batch_manager/kvCacheManager.cpp:362)", MF_TRT, NA, NA, OOM_PHASE_SERVING },
	/* exllamav2's auto-split load (model.py@7ba31d8), quoted by exui */
	{ "exui insists \"RuntimeError: Insufficient VRAM for model and cache\"", MF_EXL2, NA, NA,
	  OOM_PHASE_LOAD_WEIGHTS },
	/* LM Studio's server: a prediction failed while it streamed */
	{ "Error in iterating prediction stream: RuntimeError: [metal::malloc] Resource limit "
	  "(499000) exceeded.", MF_MLX, NA, NA, OOM_PHASE_SERVING },
	/* set 12 spent (w-spend12a): Rapid-MLX's scheduler wraps MLX's
	 * refusal in its step's error line (Rapid-MLX #2836), a request's;
	 * oMLX's prefill guard as its client shows it (jundot/omlx #1488) */
	{ "ERROR:rapid_mlx.scheduler:Error in batch generation step: [metal::malloc] Resource "
	  "limit (499000) exceeded.", MF_MLX, NA, NA, OOM_PHASE_SERVING },
	{ "   \xf0\x9f\x93\x9d Error: Memory limit exceeded during prefill", MF_MLX, NA, NA,
	  OOM_PHASE_SERVING },
	/* OpenCL's status -4 as pyopencl names it (tinygrad issue 1989) and
	 * as tinygrad's ctypes runtime does (ops_gpu.py check) */
	{ "pyopencl._cl.MemoryError: clEnqueueMapBuffer failed: MEM_OBJECT_ALLOCATION_FAILURE",
	  MF_OPENCL, NA, NA, OOM_PHASE_UNKNOWN },
	{ "RuntimeError: OpenCL Error -4: CL_MEM_OBJECT_ALLOCATION_FAILURE", MF_OPENCL, NA, NA,
	  OOM_PHASE_UNKNOWN },
	/* bash's fork, Go's runtime (Ollama's runner), the JVM */
	{ "bash: fork: Cannot allocate memory", MF_HOST, NA, NA, OOM_PHASE_UNKNOWN },
	{ "fatal error: runtime: out of memory", MF_HOST, NA, NA, OOM_PHASE_UNKNOWN },
	{ "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space", MF_HOST, NA,
	  NA, OOM_PHASE_UNKNOWN },
	/* SGLang's KV-pool check (sglang 0.4 model_runner.py); the generic
	 * "not enough memory" Ollama lists (llm/status.go v0.12.0) */
	{ "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
	  MF_UNKNOWN, NA, NA, OOM_PHASE_KV_ALLOC },
	/* CPython's bare MemoryError closing a traceback; errno 12 */
	{ "MemoryError", MF_HOST, NA, NA, OOM_PHASE_UNKNOWN },
	{ "OSError: [Errno 12] Cannot allocate memory", MF_HOST, NA, NA, OOM_PHASE_UNKNOWN },
	/* the kernel's crypto self-test (crypto/testmgr.c) failing a
	 * request's allocation: kept, but no XLA allocator's */
	{ "alg: aead: Failed to allocate request for gcm(aes)", MF_UNKNOWN, NA, NA,
	  OOM_PHASE_UNKNOWN },
	/* an unknown wording in an error context is kept */
	{ "[2024-05-01 10:00:00] ERROR worker: out of memory while staging the batch",
	  MF_UNKNOWN, NA, NA, OOM_PHASE_UNKNOWN },
	{ "FATAL: OOM in the scheduler", MF_UNKNOWN, NA, NA, OOM_PHASE_UNKNOWN },
	/* llama.cpp llm_load_tensors (b3265) through Ollama's CLI (ollama 5958) */
	{ "Error: llama runner process has terminated: error loading model: unable to allocate "
	  "backend buffer", MF_GGML, NA, NA, OOM_PHASE_LOAD_WEIGHTS },
	/* Ollama's fit loop giving up (llm/server.go v0.12.0; ollama 15517) */
	{ "Error: 500 Internal Server Error: memory layout cannot be allocated", MF_OLLAMA, NA, NA,
	  OOM_PHASE_LOAD_WEIGHTS },
	/* Ray's kill detail without the exception line above it
	 * (tests/data/real/any_stack vllm-ray-asyncengine-..., vllm 2669) */
	{ "Memory on the node (IP: 169.254.181.2, ID: 708c7baf) where the task (actor ID: "
	  "0dab4ab4, name=RayWorkerVllm.__init__, pid=308, memory used=11.15GB) was running was "
	  "12.49GB / 13.15GB (0.950003), which exceeds the memory usage threshold of 0.95. Ray "
	  "killed this worker (ID: 79a553ea) because it was the most recently scheduled task;",
	  MF_RAY, NA, NA, OOM_PHASE_UNKNOWN },
	/* sizes past int64 are no size (fuzz_memfail, issue 32: UBSan) */
	{ "ggml_gallocr_reserve_n: failed to allocate CUDA1 buffer of size 99999999999999999999999",
	  MF_GGML, NA, 1, OOM_PHASE_PROFILE },
	{ "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 99999999999999999999.00 MiB on "
	  "device 0: cudaMalloc failed: out of memory", MF_GGML, NA, 0, OOM_PHASE_UNKNOWN },
};

/* Real lines that mention memory running out and are no failure. */
static const char *const negatives[] = {
	"2022-03-03 14:59:00.303723: W tensorflow/core/common_runtime/bfc_allocator.cc:239] "
	"Allocator (GPU_0_bfc) ran out of memory trying to allocate 3.34GiB with freed_by_count=0. "
	"The caller indicates that this is not a failure, but may mean that there could be "
	"performance gains if more memory were available.",
	"[2025-07-02 07:41:59 DP0 TP0] max_total_tokens=131072 is larger than the profiled value "
	"-561981. Use the profiled value instead.",
	"[ 1234.567890] python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), "
	"order=0, oom_score_adj=0",
	"[ 1234.600000] Out of memory: Killed process 4242 (python3) total-vm:123456kB",
	"Memory cgroup out of memory: Killed process 1234 (vllm)",
	"If reserved but unallocated memory is large try setting "
	"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.",
	"| `gpu_memory_utilization` | 0.9 | Lower it if you keep going out of memory (error at start). |",
	"|       cudaMalloc retries: 0         |     CUDA OOMs: 0      |",
	"out of memory",                     /* no error context */
	"OOMKilled: false",
	"INFO 05-01 10:00:00 worker.py:100] Memory profiling takes 5.2 seconds",
	/* fall-backs that go on: ggml-cuda.cu ggml_cuda_host_malloc, llama-model-loader.cpp
	 * (ollama v0.12.0 vendored), TensorRT's builder skipping a tactic; TensorRT's
	 * [W] "Requested amount" alone is the builder's too */
	"ggml_cuda_host_malloc: failed to allocate 1024.00 MiB of pinned memory: out of memory",
	"load_all_data: failed to allocate host buffer for async uploads for device CUDA0",
	"[TRT] [W] UNSUPPORTED_STATE: Skipping tactic 28 due to insufficient memory on requested "
	"size of 2833252352 detected for tactic 0x0000000000000000.",
	"[TRT] [W] Requested amount of GPU memory (2833252352 bytes) could not be allocated. "
	"There may not be enough free memory for allocation to succeed.",
	/* Triton's pinned memory manager falls back (triton-inference-server 1752) */
	"failed to allocate pinned system memory, falling back to non-pinned system memory",
	/* a bare MemoryError inside a sentence is no exception line */
	"Catch MemoryError and retry with a smaller batch",
	/* earlyoom's start-up goes on without mlock */
	"Could not lock memory - continuing anyway: Cannot allocate memory",
	/* ggml re-reserving a graph: a notice, the reservation follows (llama.cpp 11176) */
	"ggml_backend_sched_alloc_splits: failed to allocate graph, reserving (backend_ids_changed = 1)",
};

static void families_and_figures(void **state)
{
	size_t i;
	struct memfail f;

	(void)state;
	for (i = 0; i < sizeof(positives) / sizeof(positives[0]); i++) {
		const struct positive *c = &positives[i];
		if (!memfail_line(c->line, strlen(c->line), &f))
			fail_msg("not recognised: %s", c->line);
		if (f.family != c->family)
			fail_msg("family %s, want %s: %s", memfail_family_name(f.family),
				 memfail_family_name(c->family), c->line);
		assert_non_null(f.wording);
		if (c->requested == NA)
			assert_true(f.requested_bytes < 0);
		else if (f.requested_bytes < c->requested - c->requested / 100 ||
			 f.requested_bytes > c->requested + c->requested / 100)
			fail_msg("requested %lld, want %lld: %s", (long long)f.requested_bytes,
				 (long long)c->requested, c->line);
		assert_int_equal(f.device, c->device);
		if (f.phase != c->phase)
			fail_msg("phase %s, want %s: %s", oom_phase_name(f.phase),
				 oom_phase_name(c->phase), c->line);
	}
}

static void not_failures(void **state)
{
	size_t i;
	struct memfail f;

	(void)state;
	for (i = 0; i < sizeof(negatives) / sizeof(negatives[0]); i++)
		if (memfail_line(negatives[i], strlen(negatives[i]), &f))
			fail_msg("recognised as %s: %s", memfail_family_name(f.family), negatives[i]);
}

/* No line of the negative corpus is a failure. */
static void healthy_corpus(void **state)
{
	static const char *const files[] = {
		"sglang-b200-kv-pool-cuda-graph-capture-end.log", "tgi-launcher-env-nvidia-smi-indented.txt",
		"docs-vllm-engine-arguments-out-of-memory-advice.txt",
		"llamacpp-server-2024-07-http-listening-print-timings.log",
		"ollama-offload-line-starting-server-journal.log", "deepspeed-zero3-estimator-table.txt",
		"torch-memory-summary-header-comfyui-prefix.txt", "vllm-v1-windows-build-startup-graph-pool.log",
		/* issue 27: lines that mention memory running short and go on */
		"vllm-0.3-cuda-graphs-advice-running-out-of-memory-ray.log",
		"llamacpp-2023-pinned-memory-fallback-warning.log",
		"ollama-0.13-cpu-evicting-model-to-make-space-journal.log",
		"llamacpp-load-tensors-mlock-cannot-allocate-memory-warning.log",
		"earlyoom-1.6-startup-french-journal-no-kill.log",
		"trtllm-build-skipping-tactic-insufficient-memory-warning.log",
		"tensorrt-orin-export-tactic-device-memory-insufficient.log",
		"tensorflow-sleap-bfc-not-a-failure-warnings.log",
		"nccl-info-cuda-alloc-size-shared-memory-accelerate.log",
		"triton-cpu-pinned-all-allocation-types-failed-info.log",
	};
	char path[256];
	struct memfail f;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *text, *p, *nl, *end;
		snprintf(path, sizeof(path), "tests/data/real/healthy/%s", files[i]);
		text = t_slurp(path, &n);
		for (p = text, end = text + n; p < end; p = nl + 1) {
			nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl)
				nl = end;
			if (memfail_line(p, (size_t)(nl - p), &f))
				fail_msg("%s: a failure (%s): %.*s", files[i],
					 memfail_family_name(f.family), (int)(nl - p), p);
		}
		free(text);
	}
}

/* llama.cpp logs a failure callee first: its callers' lines add the
 * exact size, the backend's device and the phase. */
static void continuations(void **state)
{
	static const char first[] = "ggml_backend_cuda_buffer_type_alloc_buffer: allocating "
				    "14136.04 MiB on device 0: cudaMalloc failed: out of memory";
	static const char *const more[] = {
		"ggml_gallocr_reserve_n: failed to allocate ROCm0 buffer of size 14822711296",
		"graph_reserve: failed to allocate compute buffers",
		"llama_init_from_model: failed to initialize the context: failed to allocate compute pp buffers",
		"srv    load_model: failed to load model, 'models/large/Apertus-70B-Instruct-2509-IQ4_XS.gguf'",
	};
	static const char serving[] = "llama_kv_cache_update_impl: failed to allocate compute buffers";
	static const char other[] = "main: server is listening on http://127.0.0.1:8080";
	static const char kv_first[] = "ggml_backend_cuda_buffer_type_alloc_buffer: allocating "
				       "204800.00 MiB on device 0: cudaMalloc failed: out of memory";
	static const char kv_more[] = "llama_kv_cache_init: failed to allocate buffer for kv cache";
	struct memfail f;
	size_t i;

	(void)state;
	assert_true(memfail_line(first, sizeof(first) - 1, &f));
	for (i = 0; i < sizeof(more) / sizeof(more[0]); i++)
		assert_true(memfail_continues(more[i], strlen(more[i]), &f));
	assert_int_equal(f.requested_bytes, 14822711296LL);
	assert_int_equal(f.device, 0);
	assert_int_equal(f.phase, OOM_PHASE_PROFILE);   /* the first named wins */
	assert_true(memfail_continues(serving, sizeof(serving) - 1, &f));
	assert_int_equal(f.phase, OOM_PHASE_SERVING);   /* but a served call decides */
	assert_false(memfail_continues(other, sizeof(other) - 1, &f));

	/* the KV cache's buffer (llama-cpp-python 1944, tests/data/real/
	 * any_stack): the allocation names no phase, the next line does */
	assert_true(memfail_line(kv_first, sizeof(kv_first) - 1, &f));
	assert_int_equal(f.phase, OOM_PHASE_UNKNOWN);
	assert_true(memfail_continues(kv_more, sizeof(kv_more) - 1, &f));
	assert_int_equal(f.phase, OOM_PHASE_KV_ALLOC);
}

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

static void phases(void **state)
{
	static const struct { const char *text; enum oom_phase want; } hints[] = {
		/* a traceback prints the outer frame first: the sampler's
		 * warm-up run inside the profile run is the innermost */
		{ "  File \"gpu_model_runner.py\", line 1400, in profile_run\n"
		  "  File \"/workspace/vllm/vllm/v1/worker/gpu_model_runner.py\", line 1292, in "
		  "_dummy_sampler_run", OOM_PHASE_WARMUP },
		/* the engine core's _initialize_kv_caches encloses the profile
		 * run, the KV cache and the warm-up: the frame inside decides */
		{ "  File \"vllm/v1/engine/core.py\", line 70, in __init__\n"
		  "    self._initialize_kv_caches(vllm_config)\n"
		  "  File \"vllm/v1/engine/core.py\", line 133, in _initialize_kv_caches\n"
		  "  File \"vllm/v1/worker/gpu_worker.py\", line 230, in compile_or_warm_up_model\n"
		  "    self.model_runner.capture_model()\n", OOM_PHASE_GRAPH_CAPTURE },
		{ "  File \"vllm/v1/engine/core.py\", line 133, in _initialize_kv_caches\n"
		  "  File \"vllm/v1/executor/abstract.py\", line 103, in determine_available_memory\n",
		  OOM_PHASE_PROFILE },
		/* of a chain the cause is printed first: its frames decide */
		{ "  File \"vllm/v1/worker/gpu_model_runner.py\", line 1533, in _dummy_sampler_run\n"
		  "RuntimeError: CUDA out of memory occurred when warming up sampler\n\n"
		  "The above exception was the direct cause of the following exception:\n\n"
		  "  File \"vllm/v1/worker/gpu_worker.py\", line 180, in determine_available_memory\n",
		  OOM_PHASE_WARMUP },
		/* DeepSpeed's inference engine loads a model; it trains nothing */
		{ "  File \"bloom-ds-inference.py\", line 185, in <module>\n"
		  "    model = deepspeed.init_inference(\n", OOM_PHASE_LOAD_WEIGHTS },
		/* ggml allocates the KV cache's tensors as it does the
		 * weights': the next line names which */
		{ "llama_init_from_model: failed to initialize the context: failed to allocate "
		  "buffer for kv cache", OOM_PHASE_KV_ALLOC },
		{ "  File \"/usr/local/lib/python3.10/site-packages/torch/cuda/graphs.py\", line 84, "
		  "in capture_end", OOM_PHASE_GRAPH_CAPTURE },
		{ "alloc_tensor_range: failed to allocate CUDA0 buffer of size 151851674624",
		  OOM_PHASE_UNKNOWN },
		{ "llama_model_load: error loading model: unable to allocate CUDA0 buffer",
		  OOM_PHASE_LOAD_WEIGHTS },
		{ "ERROR | autotrain.trainers.common:wrapper:121 - HIP out of memory.",
		  OOM_PHASE_TRAINING_STEP },
		/* DeepSpeed's set-up runs optimizer.step once: its frames win
		 * (tests/data/real/any_stack/deepspeed-zero2-configure-zero-...) */
		{ "  File \"deepspeed/pt/deepspeed_zero_optimizer.py\", line 357, in "
		  "initialize_optimizer_states\n    self.optimizer.step()\n", OOM_PHASE_LOAD_WEIGHTS },
		/* Trainer evaluates from inside its training loop: evaluation wins */
		{ "  File \"transformers/trainer.py\", line 1869, in _inner_training_loop\n"
		  "  File \"transformers/trainer.py\", line 1157, in evaluate\n", OOM_PHASE_EVAL },
		{ "  File \"torch/autograd/__init__.py\", line 251, in backward\n"
		  "    Variable._execution_engine.run_backward(  # Calls into the C++ engine",
		  OOM_PHASE_TRAINING_STEP },
		{ "thread 'main' panicked at 'Unable to warmup model: Generation(\"Allocation on "
		  "device 0 would exceed allowed memory.", OOM_PHASE_WARMUP },
		{ "  File \"vllm/worker/worker.py\", line 493, in raise_if_cache_size_invalid",
		  OOM_PHASE_KV_ALLOC },
		{ "  File \"/opt/py3/lib/python3.10/site-packages/lmdeploy/turbomind/turbomind.py\","
		  " line 152, in _create_weight", OOM_PHASE_LOAD_WEIGHTS },
		/* frames printed after the failure (tests/data/real/any_stack:
		 * vllm-0.6-multistep-..., vllm-v1-create-weights-...,
		 * vllm-v1-lmcache-..., torch-0.4-validation-...) */
		{ "ERROR 10-11 12:27:29 engine.py:157]     request_outputs = self.engine_step()",
		  OOM_PHASE_SERVING },
		{ "Engine loop is not running. Inspect the stacktrace to find the original error: "
		  "OutOfMemoryError('HIP out of memory.", OOM_PHASE_SERVING },
		{ "    outputs = llm.generate(prompts, sampling_params)", OOM_PHASE_SERVING },
		{ "  File \"vllm/model_executor/layers/linear.py\", line 202, in create_weights",
		  OOM_PHASE_LOAD_WEIGHTS },
		{ "    eval_loss = evaluate(model, criterion, epoch, eval_losses)", OOM_PHASE_EVAL },
		/* TensorRT-LLM's executor stages (py_executor_creator.py): the
		 * executor built after the KV cache is sized warms up; the
		 * estimation's temporary one is a profile */
		{ "The following component could not be created: Additional executor resources",
		  OOM_PHASE_WARMUP },
		{ "The following component could not be created: Additional executor resources "
		  "(temporary for KV cache size estimation)", OOM_PHASE_PROFILE },
		{ "The following component could not be created: Model resources created during "
		  "usage", OOM_PHASE_PROFILE },
		{ "RuntimeError: CUDA out of memory occurred when warming up pooler (task='embed') "
		  "with 256 dummy requests. Please try lowering `max_num_seqs` or "
		  "`gpu_memory_utilization` when initializing the engine.", OOM_PHASE_WARMUP },
		{ "Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate "
		  "448.00 MiB.", OOM_PHASE_GRAPH_CAPTURE },
		/* the spent set-3 excerpts (tests/data/real/any_stack) */
		{ "ERROR 05-07 00:37:03 [core.py:1136]   File \"/usr/local/lib/python3.12/dist-packages/"
		  "vllm/_custom_ops.py\", line 1279, in gptq_marlin_repack", OOM_PHASE_LOAD_WEIGHTS },
		{ "RuntimeError: Prefill out of memory. Try to lower your batch size.", OOM_PHASE_SERVING },
		{ "text_generation.errors.GenerationError: Request failed during generation: Server "
		  "error: CUDA out of memory.", OOM_PHASE_SERVING },
		/* round 4 (worlda): the executor's set-up is the model's load;
		 * exllamav2's cache and scratch; SGLang's symmetric pool after
		 * the graphs; LMDeploy's request loop; Module.cuda() */
		{ "(EngineCore_DP0 pid=556790) ERROR 12-24 08:50:35 [core.py:866]     "
		  "self._init_executor()", OOM_PHASE_LOAD_WEIGHTS },
		{ "  File \"/content/exllamav2/exllamav2/cache.py\", line 92, in create_state_tensors",
		  OOM_PHASE_KV_ALLOC },
		{ "tabbyapi-1  | context.prepare(scratch)", OOM_PHASE_LOAD_WEIGHTS },
		{ "  File \"sglang/srt/model_executor/model_runner.py\", line 3420, in "
		  "prealloc_symmetric_memory_pool", OOM_PHASE_WARMUP },
		{ "2024-05-08 16:16:10,360 - lmdeploy - ERROR - Engine loop failed with error: CUDA "
		  "out of memory.", OOM_PHASE_SERVING },
		{ "    return self._apply(lambda t: t.cuda(device))", OOM_PHASE_LOAD_WEIGHTS },
		/* a generic frame under an engine's: the engine decides */
		{ "  File \"vllm/worker/worker.py\", line 493, in raise_if_cache_size_invalid\n"
		  "    return self._apply(lambda t: t.cuda(device))", OOM_PHASE_KV_ALLOC },
		{ "RuntimeError: Not enough memory to handle 4096 prefill tokens. You need to "
		  "decrease `--max-batch-prefill-tokens`", OOM_PHASE_WARMUP },
		/* TensorRT-LLM's PyTorch backend (gapsb): the executor's event
		 * loop serves (TensorRT-LLM 13179, frames as a log UI pasted
		 * them); the decode graphs' capture in warm-up (TensorRT-LLM
		 * 8802) */
		{ "  File \"/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/"
		  "py_executor.py\", line 2284, in _executor_loop_overlap\n"
		  "\t\t2026-04-18 12:59:31.370\t\n"
		  "    self.resource_manager.prepare_resources(scheduled_batch)", OOM_PHASE_SERVING },
		{ "  File \"/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/"
		  "model_engine.py\", line 592, in _run_cuda_graph_warmup\n"
		  "    self._capture_generation_cuda_graphs(resource_manager)\n"
		  "  File \"/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/"
		  "model_engine.py\", line 652, in _capture_generation_cuda_graphs\n"
		  "    self.forward(batch,", OOM_PHASE_GRAPH_CAPTURE },
		/* vLLM 0.19+: the graphs captured once inside the profile */
		{ "  File \"vllm/v1/worker/gpu_worker.py\", line 411, in determine_available_memory\n"
		  "    cudagraph_memory_estimate = self.model_runner.profile_cudagraph_memory()",
		  OOM_PHASE_GRAPH_CAPTURE },
		/* TGI's serve_inner -> get_model (tgi 844) */
		{ "2023-08-14 23:30:56   File \"/opt/conda/lib/python3.9/site-packages/"
		  "text_generation_server/models/__init__.py\", line 185, in get_model",
		  OOM_PHASE_LOAD_WEIGHTS },
		/* a model moved to the card whole (round 4: deepspeed 2672's
		 * rich box, InstantID 72, TheChosenOne 18; Module.cuda() from
		 * torch/nn/modules/module.py), the Trainer moving it as it is
		 * built, SD.Next's loader (sdnext 2015) */
		{ "\u2502 \u2771  905 \u2502   \u2502   \u2502   return t.to(device, dtype if "
		  "t.is_floating_point() or t.i \u2502", OOM_PHASE_LOAD_WEIGHTS },
		{ " return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, "
		  "non_blocking)", OOM_PHASE_LOAD_WEIGHTS },
		{ "    self._move_model_to_device(model, args.device)", OOM_PHASE_LOAD_WEIGHTS },
		{ "Diffusers failed loading model using pipeline: {MODEL} Stable Diffusion XL [enforce "
		  "fail at ..\\c10\\core\\impl\\alloc_cpu.cpp:72] data.", OOM_PHASE_LOAD_WEIGHTS },
		/* generic: a training step that moves a module stays a step */
		{ "  File \"train.py\", line 80, in training_step\n    self.head.to(self.device)\n"
		  "  File \"torch/nn/modules/module.py\", line 1152, in convert\n"
		  "    return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, "
		  "non_blocking)", OOM_PHASE_TRAINING_STEP },
		{ "nothing to see", OOM_PHASE_UNKNOWN },
	};
	static const struct { const char *line; enum oom_phase want; } lines[] = {
		/* TGI's shard: get_model() raised (server.py serve_inner) */
		{ "ERROR text_generation_launcher: Error when "
		  "initializing model", OOM_PHASE_LOAD_WEIGHTS },
		/* Aphrodite after its weights: the profile run is next (sonar 414) */
		{ "INFO:     Model weights loaded. Memory usage: 3.88 GiB x 1 = 3.88 GiB",
		  OOM_PHASE_PROFILE },
		/* SGLang's multi-threaded weight iterator (lsglang #7) */
		{ "Multi-thread loading shards: 100% Completed | 142/142 [00:25<00:00,  5.66it/s]",
		  OOM_PHASE_LOAD_WEIGHTS },
		{ "[2026-05-01 10:00:00 TP0] Pre-allocating symmetric memory pool with 4 GB",
		  OOM_PHASE_WARMUP },
		{ "[2025-07-02 07:41:58 DP0 TP0] Load weight end. type=DeepseekV3ForCausalLM",
		  OOM_PHASE_KV_ALLOC },
		{ "INFO 06-05 06:10:00 [gpu_model_runner.py:1933] Capturing CUDA graph shapes",
		  OOM_PHASE_GRAPH_CAPTURE },
		{ "Jul 24 21:50:06 vega ollama[132945]: llm_load_tensors: offloaded 43/81 layers to GPU",
		  OOM_PHASE_LOAD_WEIGHTS },
		{ "[GIN] 2025/04/29 - 12:31:50 | 200 |  2.279007182s |  127.0.0.1 | POST     \"/api/generate\"",
		  OOM_PHASE_SERVING },
		{ "Starting minibatch loop.", OOM_PHASE_TRAINING_STEP },
		/* the model's metadata: its tensors are loaded next (ollama 9170) */
		{ "llm_load_print_meta: rope_yarn_log_mul    = 0.1000", OOM_PHASE_LOAD_WEIGHTS },
		/* LMDeploy logs each request it takes (lmdeploy 2055) */
		{ "2024-07-17 13:52:26,995 - lmdeploy - INFO - session_id=1, history_tokens=0, "
		  "input_tokens=2408, max_new_tokens=2048, seq_start=True, seq_end=True, step=0, "
		  "prep=True", OOM_PHASE_SERVING },
		/* TurboMind picks a GEMM kernel for a new shape at run time */
		{ "Failed to find a feasible kernel in the cache, will dispatch by heuristic.",
		  OOM_PHASE_SERVING },
	};
	size_t i;

	(void)state;
	assert_int_equal(memfail_self_check(), 0);
	for (i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
		assert_int_equal(memfail_phase_hint(hints[i].text, strlen(hints[i].text)), hints[i].want);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (memfail_phase_line(lines[i].line, strlen(lines[i].line)) != lines[i].want)
			fail_msg("phase line %s, want %s: %s",
				 oom_phase_name(memfail_phase_line(lines[i].line, strlen(lines[i].line))),
				 oom_phase_name(lines[i].want), lines[i].line);
	assert_string_equal(oom_phase_name(OOM_PHASE_KV_ALLOC), "kv_alloc");
	assert_string_equal(memfail_family_name(MF_UNKNOWN), "unknown");
}

/* The training stack a traceback's frames name (issue 27 item 3), from
 * the real excerpts' frames: DeepSpeed under the Trainer is DeepSpeed's,
 * ZeRO-3 by its partitioner, none for a serving engine's. */
static void stacks(void **state)
{
	static const struct { const char *text; int want; } t[] = {
		{ "  File \"/data/envs/viscpm/lib/python3.10/site-packages/deepspeed/runtime/zero/"
		  "stage_1_and_2.py\", line 1873, in backward", VST_DEEPSPEED },
		{ "  File \"site-packages/transformers/trainer.py\", line 1869, in"
		  " _inner_training_loop\n  File \"site-packages/deepspeed/runtime/zero/stage3.py\","
		  " line 1958, in step", VST_DEEPSPEED_ZERO3 },
		{ "  File \"site-packages/transformers/trainer.py\", line 2515, in evaluation_loop",
		  VST_HF_TRAINER },
		{ "[/usr/local/lib/python3.10/dist-packages/transformers/trainer_pt_utils.py]"
		  "(https://localhost:8080/#) in torch_pad_and_concatenate", VST_HF_TRAINER },
		{ "  File \"site-packages/pytorch_lightning/loops/training_epoch_loop.py\", line 218,"
		  " in advance", VST_LIGHTNING },
		{ "  File \"/home/gccrcv/anaconda3/envs/multinerf/lib/python3.9/site-packages/jax/_src/"
		  "dispatch.py\", line 895, in _execute_compiled", VST_JAX },
		{ "  File \"vllm/worker/worker.py\", line 493, in raise_if_cache_size_invalid", -1 },
		/* DeepSpeed's inference engine: no training stack (deepspeed
		 * issue 2933, tests/data/real/any_stack) */
		{ "  File \"/home/u/.local/lib/python3.8/site-packages/deepspeed/ops/transformer/"
		  "inference/ds_mlp.py\", line 45, in __init__", MEMFAIL_STACK_INFERENCE },
	};
	size_t i;
	int rank;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(memfail_stack_hint(t[i].text, strlen(t[i].text), &rank), t[i].want);
	assert_int_equal(memfail_phase_hint(t[3].text, strlen(t[3].text)), OOM_PHASE_EVAL);
	assert_string_equal(vocab_stack(VST_HF_TRAINER), "hf_trainer");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(families_and_figures),
		cmocka_unit_test(not_failures),
		cmocka_unit_test(healthy_corpus),
		cmocka_unit_test(continuations),
		cmocka_unit_test(phases),
		cmocka_unit_test(trtllm_table_and_decode),
		cmocka_unit_test(ggml_cpu_source_and_pinned),
		cmocka_unit_test(stacks),
		cmocka_unit_test(host_buffers),
		cmocka_unit_test(scopes_and_accelerator_figures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
