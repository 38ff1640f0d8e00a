/*
 * test_memfail.c -- the generic memory-failure recogniser
 * (parsers/serving/memfail.c) on real lines: each wording family with
 * the figures it states (lines from tests/data/real/any_stack, issue 27),
 * the lines that must not count (tests/data/real/healthy, TensorFlow's
 * "not a failure", SGLang's profiled value, the kernel's own OOM lines,
 * advice) and the continuations that add to a failure. The phase and
 * stack a failure's text names are test_memfail_phases.c; engine tables
 * and which memory ran out, test_memfail_tables.c.
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
	/* readers18: transformers' bitsandbytes quantizer refusing
	 * accelerate's device map (quantizer_bnb_4bit.py validate_environment;
	 * tests/data/incoming/any_stack/b-transformers-bnb-4bit-mistral-7b-*):
	 * the card could not hold the quantized model, at from_pretrained */
	{ "ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have "
	  "enough GPU RAM to fit the quantized model. If you want to dispatch the model on the "
	  "CPU or the disk while keeping these modules in 32-bit, you need to set "
	  "`llm_int8_enable_fp32_cpu_offload=True` and pass a custom `device_map` to "
	  "`from_pretrained`.", MF_HF_DISPATCH, NA, NA, OOM_PHASE_LOAD_WEIGHTS },
	/* readers18: the TPU compiler's hbm report pasted without the
	 * RESOURCE_EXHAUSTED line above it (flax #1733: tests/data/incoming/
	 * any_stack/a-flax-tpu-conv3d-*) */
	{ "Total hbm usage >= 11.47G:", MF_XLA, NA, NA, OOM_PHASE_UNKNOWN },
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
	/* MLX's check_error (mlx/backend/metal/eval.cpp) before the same
	 * Metal status: MLX's, not ggml's (mlx-examples #481) */
	{ "libc++abi: terminating due to uncaught exception of type std::runtime_error: "
	  "[METAL] Command buffer execution failed: Insufficient Memory "
	  "(00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)",
	  MF_MLX, NA, NA, OOM_PHASE_UNKNOWN },
	/* Jetson's nvmap refusing with ENOMEM (asierarranz/Cool_Demos #4):
	 * the number after the name is a tag, not a size */
	{ "NvMapMemAllocInternalTagged: 1075072515 error 12  (ENOMEM)", MF_NVMAP, NA, NA,
	  OOM_PHASE_UNKNOWN },
	/* Dawn's Vulkan backend under WebLLM (web-llm #356): Vulkan's, not
	 * ggml's; the same status under ggml's names stays ggml's */
	{ "15vkAllocateMemory failed with VK_ERROR_OUT_OF_DEVICE_MEMORY", MF_VULKAN, NA, NA,
	  OOM_PHASE_UNKNOWN },
	{ "ggml_vulkan: vk::Device::allocateMemory: VK_ERROR_OUT_OF_DEVICE_MEMORY", MF_GGML, NA,
	  NA, OOM_PHASE_UNKNOWN },
	/* a generic wording under its backend's name (antirez/ds4 #410, #78:
	 * tests/data/real/any_stack/a-ds4-*): that backend's family */
	{ "ds4: ROCm tensor alloc failed: out of memory", MF_HIP, NA, NA, OOM_PHASE_UNKNOWN },
	{ "ds4: CUDA q8 fp16 cache alloc failed (64.00 MiB): out of memory", MF_CUDA, 67108864, NA,
	  OOM_PHASE_UNKNOWN },
	/* a backend named after the wording labels a figure: no family from it
	 * (the TGI warm-up panic under tests/data/real/any_stack) */
	{ "Error: out of memory, Free (according to CUDA): 11.12 MiB", MF_UNKNOWN, NA, NA,
	  OOM_PHASE_UNKNOWN },
	/* set 13 spent (w-spend13c): vLLM's hybrid models' state cache short
	 * of max_num_seqs, placed by its own words at the cache's stage */
	{ "ValueError: max_num_seqs (1024) exceeds available Mamba cache blocks (524)",
	  MF_VLLM_STATE, NA, NA, OOM_PHASE_KV_ALLOC },
	/* set 16 spent (w-spend16c): ggml's Vulkan buffer creation (Jan
	 * #6038) and vllm-metal's KV budget (vllm-metal #585), placed by its
	 * own words at the cache's stage, Jan's wrapper at the model's load */
	{ "Failed to load llama-server: llamacpp error: Error: ggml_vulkan: Memory allocation of size 638668800 failed.",
	  MF_GGML, 638668800, NA, OOM_PHASE_LOAD_WEIGHTS },
	{ "ValueError: Paged attention: not enough Metal memory for KV cache.",
	  MF_MLX, NA, NA, OOM_PHASE_KV_ALLOC },
	{ "ValueError: Paged attention: computed num_blocks too low (3 < minimum 16).",
	  MF_MLX, NA, NA, OOM_PHASE_KV_ALLOC },
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
	/* SGLang's busy-time pool checker (2026, set 17 spent) */
	{ "AssertionError: SWA Pool Mem Leak Detected! [swa] total=322816, available=2816, "
	  "evictable=308992, protected=2560, session_held=0, uncached=8704",
	  MF_SGLANG_KV, NA, NA, OOM_PHASE_SERVING },
	{ "RuntimeError: CUDA error: out of memory", MF_CUDA, NA, NA, OOM_PHASE_UNKNOWN },
	/* set 17 spent (w-spend17a): nvJPEG's allocator status through DALI's
	 * decoder (nvjpeg.h status 5; DALI #486) */
	{ "RuntimeError: Critical error in pipeline: Error in thread 4: [/opt/dali/dali/pipeline/operators/decoder/nvjpeg/decoupled_api/nvjpeg_decoder_decoupled_api.h:351] NVJPEG error \"5\" : NVJPEG_STATUS_ALLOCATOR_FAILURE n04418357/n04418357_26036.JPEG",
	  MF_CUBLAS, NA, NA, OOM_PHASE_UNKNOWN },
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
	/* MLX's Metal allocator before the "[metal::malloc] " prefix: the
	 * buffer ceiling's words, as a libc++abi abort prints them */
	{ "libc++abi: terminating due to uncaught exception of type std::runtime_error: "
	  "Attempting to allocate 19081554496 bytes which is greater than the maximum allowed "
	  "buffer size of 17179869184 bytes.", MF_MLX, 19081554496LL, NA, OOM_PHASE_UNKNOWN },
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
	/* PaddlePaddle Fluid 0.12's GpuMaxChunkSize enforce (gpu_info.cc@v0.12.0;
	 * Paddle 8992, set 18 spent, w-spend18b) */
	{ "paddle.fluid.core.EnforceNotMet: enforce allocating <= available failed, "
	  "10513462067 > 1369702144", MF_CUDA, NA, NA, OOM_PHASE_UNKNOWN },
	/* readers19: torch-directml's allocator (kijai/ComfyUI-HunyuanVideoWrapper
	 * #211, tests/data/real/any_stack/r19-directml-*): the card's memory */
	{ "RuntimeError: Could not allocate tensor with 530841600 bytes. There is not enough GPU "
	  "video memory available!", MF_DIRECTML, 530841600, NA, OOM_PHASE_UNKNOWN },
	/* readers19: MindSpore's runtime actors (graph_scheduler actors, 2.x:
	 * "Device(id:" << id << ") memory isn't enough and alloc failed,
	 * kernel name: " << name << ", alloc size: " << size << "B.") */
	{ "RuntimeError: Device(id:1) memory isn't enough and alloc failed, kernel name: "
	  "Default/network-WithLossCell/_backbone-Net/conv1-Conv2d/Conv2D-op1, alloc size: "
	  "1073741824B.", MF_MINDSPORE, 1073741824LL, 1, OOM_PHASE_UNKNOWN },
	/* readers19: MXNet's pooled GPU storage after its retry
	 * (pooled_storage_manager.h@1.5.0), as MXNetError pasted it */
	{ "MXNetError: cudaMalloc retry failed: out of memory", MF_CUDA, NA, NA,
	  OOM_PHASE_UNKNOWN },
	/* readers19: ONNX Runtime's DirectML provider (huggingface/diffusers
	 * #552's quoted log): Windows' E_OUTOFMEMORY under DirectML's name */
	{ "2022-10-18 13:56:21.2822368 [E:onnxruntime:, sequential_executor.cc:369 "
	  "onnxruntime::SequentialExecutor::Execute] Non-zero status code returned while running "
	  "MemcpyToHost node. Name:'Memcpy_token_29' Status Message: D:\\a\\_work\\1\\s\\"
	  "onnxruntime\\core\\providers\\dml\\DmlExecutionProvider\\src\\"
	  "MLOperatorAuthorImpl.cpp(1978)\\onnxruntime_pybind11_state.pyd!00007FFBDC8EBB9F: "
	  "(caller: 00007FFBDCFFDEFF) Exception(3) tid(4304) 8007000E Not enough memory resources "
	  "are available to complete this operation.", MF_DIRECTML, NA, NA, OOM_PHASE_SERVING },
	/* readers19: V8's heap through Node.js (node doc/api/cli.md's
	 * example) and .NET's managed heap: the host's memory */
	{ "FATAL ERROR: Ineffective mark-compacts near heap limit Allocation failed - JavaScript "
	  "heap out of memory", MF_HOST, NA, NA, OOM_PHASE_UNKNOWN },
	/* readers19: macOS jetsam's no-paging-space kill (aedocw/
	 * epub2tts-chatterbox #19): its MB is compressed memory, no request */
	{ "kernel: memorystatus: killing largest compressed process python3.11 [5844] 43350 MB",
	  MF_JETSAM, NA, NA, OOM_PHASE_UNKNOWN },
	{ "fatal error: out of memory", MF_HOST, NA, NA, OOM_PHASE_UNKNOWN },
	{ "Unhandled exception. System.OutOfMemoryException: Insufficient memory to continue the "
	  "execution of the program.", MF_HOST, NA, NA, OOM_PHASE_UNKNOWN },
};

/* Real lines that mention memory running out and are no failure. */
static const char *const negatives[] = {
	/* nvmap's other errnos are not a memory failure (memfail_words.c) */
	"NvMapMemHandleAlloc: error 22",
	"NvMapMemAllocInternalTagged: 1075072515 error 120",
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

/* readers19: the free figure PaddlePaddle 2.x states (cuda_allocator.cc
 * @v2.4.0: "... memory has been allocated and available memory is only
 * %s."; PaddleOCR's docs quote the line) and MindSpore's older wording */
static void readers19_figures(void **state)
{
	static const char paddle[] = "Out of memory error on GPU 0. Cannot allocate 120.000000MB "
		"memory on GPU 0, 5.726685GB memory has been allocated and available memory is "
		"only 41.250000MB.";
	static const char ms_old[] = "Device memory isn't enough and alloc failed, actor name: "
		"kernel_graph_0_memory_manager_actor, alloc size: 2097152";
	static const char ms_rts[] = "RuntimeError: Malloc device memory failed, size[32212254720], "
		"ret[207001], Device 3 Available HBM size:65464696832 free size:21102592000 may be "
		"other processes occupying this card, check as: ps -ef|grep python";
	struct memfail f;

	(void)state;
	assert_true(memfail_line(ms_rts, sizeof(ms_rts) - 1, &f));
	assert_int_equal(f.family, MF_MINDSPORE);
	assert_int_equal(f.device, 3);
	assert_int_equal(f.requested_bytes, 32212254720LL);
	assert_int_equal(f.total_bytes, 65464696832LL);
	assert_int_equal(f.free_bytes, 21102592000LL);
	assert_true(memfail_line(paddle, sizeof(paddle) - 1, &f));
	assert_int_equal(f.family, MF_CUDA);
	assert_int_equal(f.device, 0);
	assert_true(f.requested_bytes >= 120 * MiB - MiB && f.requested_bytes <= 120 * MiB + MiB);
	assert_true(f.free_bytes >= 41 * MiB && f.free_bytes <= 42 * MiB);
	assert_true(memfail_line(ms_old, sizeof(ms_old) - 1, &f));
	assert_int_equal(f.family, MF_MINDSPORE);
	assert_int_equal(f.requested_bytes, 2097152);
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
		/* round 13: oneDNN's "could not create a memory object" under
		 * llama.cpp's SYCL backend is its invalid_arguments (a pointer
		 * that is no USM allocation: llama.cpp PR 27671, #27547), no
		 * memory running out (llama.cpp #24424) */
		"llamacpp-sycl-onednn-could-not-create-memory-object-bench.log",
		/* llama.cpp's memory breakdown table on exit (#19881) */
		"llamacpp-2026-vulkan-server-exit-memory-breakdown.log",
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(families_and_figures),
		cmocka_unit_test(not_failures),
		cmocka_unit_test(readers19_figures),
		cmocka_unit_test(healthy_corpus),
		cmocka_unit_test(continuations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
