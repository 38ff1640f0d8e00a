/*
 * memfail_words.c -- the wordings of memory failures on every stack; see
 * memfail_words.h. The lines that say "out of memory" without being one
 * are in memfail_not.c.
 *
 * Learnt from the sources that print them (file@tag beside each group)
 * and checked on the real excerpts under tests/data/real/any_stack (the
 * failures) and tests/data/real/healthy (the lines that are none). The
 * order is the order they win: an engine's or library's own wording
 * before the CUDA or HIP status it quotes, the generic wordings last.
 */
#include "parsers/serving/memfail_words.h"

#define ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))
#define NEED_ERR MFW_NEED_ERR
#define WORD MFW_WORD

const struct memfail_word memfail_words[] = {
	{ "CUDA out of memory occurred when warming up sampler", MF_VLLM_WARMUP, 0 },
	/* TensorRT-LLM's PyExecutor (py_executor_creator.py): the component
	 * that failed and the free memory follow on lines of their own */
	{ "Executor creation failed due to insufficient GPU memory", MF_TRT, 0 },
	{ "might indicate insufficient GPU memory", MF_TRT, 0 },
	{ "MPS backend out of memory", MF_MPS, 0 },
	{ "HIP out of memory", MF_HIP, 0 },
	/* PyTorch's XPU caching allocator (c10/xpu/XPUCachingAllocator.cpp,
	 * 2.5+: "XPU out of memory. Tried to allocate X. GPU N has a total
	 * capacity of Y ..."; IPEX 2.1: "(GPU N; Y total capacity; ...)") */
	{ "XPU out of memory", MF_XPU, 0 },
	/* torch_npu's NPUCachingAllocator (Ascend/pytorch v2.1-v2.6): "NPU
	 * out of memory. Tried to allocate X (NPU N; Y total capacity; ...)",
	 * its advice ("to avoid fragmentation") on the same line */
	{ "NPU out of memory", MF_NPU, 0 },
	/* IPEX's XPU allocator on a platform without allocations above 4 GiB
	 * (intel-extension-for-pytorch csrc/gpu/runtime/CachingDeviceAllocator,
	 * 2.x: "Current platform can NOT allocate memory block with size
	 * larger than 4GB! Tried to allocate X (GPU N; Y total capacity;
	 * ...)"): a per-allocation limit, not the card's memory */
	{ "can NOT allocate memory block with size larger than", MF_XPU, 0 },
	/* Intel Gaudi's PyTorch bridge (habana_frameworks' synapse_helpers
	 * device_memory.cpp: PT_SYNHELPER_FATAL / PT_DEVMEM "Allocation failed
	 * for size::N"; printed "[Rank:0] FATAL ERROR :: MODULE:PT_DEVMEM
	 * Allocation failed for size::N (M)MB", the 1.x bridge "MODULE:DEVMEM";
	 * Lightning's and Gaudi's vLLM docs list it as the HPU OOM) */
	{ "Allocation failed for size::", MF_HPU, 0 },
	/* Ascend CANN's runtime error code (acl's RecentErrMsg, EL0004
	 * "Memory_Allocation_Failure(EL0004): Failed to allocate memory."
	 * then "allocate device memory failed." from memory_pool_manager.cc) */
	{ "Memory_Allocation_Failure(EL0004)", MF_NPU, 0 },
	{ "CUDA out of memory", MF_TORCH, 0 },
	/* the body of the same message (c10/cuda/CUDACachingAllocator.cpp,
	 * 2.1+: "Tried to allocate X. GPU N has a total capacity of Y of
	 * which Z is free."), quoted without its first words or wrapped
	 * onto a line of its own; nothing else prints it */
	{ "has a total capacity of", MF_TORCH, 0 },
	{ "RESOURCE_EXHAUSTED: Out of memory", MF_XLA, 0 },
	{ "Resource exhausted: Out", MF_XLA, 0 },   /* its line may wrap after "Out" */
	/* XLA's TPU runtime and PJRT: a buffer the device could not hold
	 * ("RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting
	 * to allocate 4.39G. That was not possible. There are 2.30G free."),
	 * torch_xla/XRT's "Attempting to reserve N at the bottom of memory"
	 * (on a line of its own after "Resource exhausted: From /job:..."),
	 * the compiler's "Ran out of memory in memory space hbm. Used N of M
	 * hbm. Exceeded hbm capacity by K.", and the stream executor's
	 * device allocator "Failed to allocate request for 2.00GiB
	 * (2147483648B) on device ordinal 0" */
	{ "Error allocating device buffer", MF_XLA, 0 },
	{ "RESOURCE_EXHAUSTED: Attempting to", MF_XLA, 0 },
	{ "at the bottom of memory", MF_XLA, 0 },
	{ "Ran out of memory in memory space", MF_XLA, 0 },
	{ "B) on device ordinal", MF_XLA, 0 },   /* not the kernel crypto's "request for %s" */
	/* the TPU compiler's hbm report on its own, without the line above
	 * it (a paste that kept the block: flax #1733, "Total hbm usage >=
	 * 11.47G:" then the reserved/program/arguments rows, "Program hbm
	 * requirement N:", "Largest program allocations in hbm:"). Printed
	 * only with the RESOURCE_EXHAUSTED it explains; after that line the
	 * block is its continuation (memfail.c continuations[]) */
	{ "Total hbm usage >=", MF_XLA, MFW_START },
	{ "Program hbm requirement ", MF_XLA, MFW_START },
	/* transformers' bitsandbytes quantizers refusing the device map
	 * accelerate made when the card could not hold the quantized model
	 * (src/transformers/quantizers/quantizer_bnb_4bit.py and _8bit.py
	 * validate_environment@009ba7ca: "Some modules are dispatched on the
	 * CPU or the disk. Make sure you have enough GPU RAM to fit the
	 * quantized model."): from_pretrained, before any weight was used */
	{ "Some modules are dispatched on the CPU or the disk", MF_HF_DISPATCH, 0 },
	/* MLX's own words for Metal's out-of-memory status: check_error() in
	 * mlx/backend/metal/eval.cpp (ml-explore/mlx@f1606486, indexed copy;
	 * the same since 0.0.x) throws "[METAL] Command buffer execution
	 * failed: " + the NSError's localizedDescription, which for
	 * kIOGPUCommandBufferCallbackErrorOutOfMemory is "Insufficient Memory
	 * (00000008:...)". ggml's Metal backend prints the same description
	 * after "error: " (ggml-metal.m "command buffer %d failed with status
	 * %lu" then "error: %s"), never MLX's "[METAL]" prefix: the prefix
	 * tells the two apart (mlx-lm #236, #1015, #1808, mlx-examples #481,
	 * LM Studio #1504 under tests/data/real/any_stack). Before the bare
	 * status below, which ggml's line carries alone. */
	{ "[METAL] Command buffer execution failed: Insufficient Memory", MF_MLX, 0 },
	{ "kIOGPUCommandBufferCallbackErrorOutOfMemory", MF_METAL, 0 },
	/* MPSGraph's runtime placing a buffer in a Metal heap it sized
	 * (MPSRuntime GPUMemrefOps.mm, closed; apple/coreai-models #27 on
	 * macOS 27 beta): "allocateMTLBufferFromMTLHeap: offset N + size M
	 * exceeds heap total T", then a failed assertion: no room left */
	{ "exceeds heap total", MF_MPS, 0 },
	/* Jetson's nvmap allocator (L4T's libnvrm_mem, closed source; its
	 * NvMapMem* functions print "NvMapMemAllocInternalTagged: <tag>
	 * error <errno>", "NvMapMemHandleAlloc: error <errno>"): a CUDA or
	 * multimedia allocation of Tegra's memory, which CPU and GPU share,
	 * refused. A failure only with errno 12, ENOMEM (asierarranz/
	 * Cool_Demos #4: ONNX Runtime CUDA beside llama.cpp on an Orin
	 * Nano); the number after the name is a tag, not a size */
	{ "NvMapMem", MF_NVMAP, MFW_ENOMEM },
	/* MLX's Metal allocator (mlx/backend/metal/allocator.cpp, 0.18+):
	 * "[metal::malloc] Attempting to allocate N bytes which is greater
	 * than the maximum allowed buffer size of M bytes.", "[metal::malloc]
	 * Resource limit (N) exceeded." */
	{ "[metal::malloc] Attempting to allocate", MF_MLX, 0 },
	{ "[metal::malloc] Resource limit", MF_MLX, 0 },
	/* the same check before the "[metal::malloc] " prefix (an indexed
	 * pre-0.18 copy of MetalAllocator::malloc: msg << "Attempting to
	 * allocate " << size << " bytes which is greater than" << " the
	 * maximum allowed buffer size of " ...), as a libc++abi abort
	 * prints it: the ceiling's words, not the common "Attempting to
	 * allocate" */
	{ "bytes which is greater than the maximum allowed buffer size", MF_MLX, 0 },
	/* SYCL's runtimes (llama.cpp docs/backend/SYCL.md, PR 9476: "Native
	 * API returns: -6 (PI_ERROR_OUT_OF_HOST_MEMORY)"; Level Zero's and the
	 * unified runtime's result names) */
	/* MLC-LLM's engine, sizing its KV cache at start-up from the card's
	 * memory times gpu_memory_utilization (cpp/serve/config.cc,
	 * EstimateMemoryUsageOnMode and InferForRNNState, v0.1.0+ through
	 * 2025 main): "Insufficient GPU memory error: The available single
	 * GPU memory is X MB, which is less than the sum of model weight size
	 * (W MB) and temporary buffer size (T MB)." -- X is the budget, not
	 * free memory; W + T is what it needed */
	{ "Insufficient GPU memory error: The available", MF_MLC, 0 },
	/* Tenstorrent tt-metal's bank allocator (tt_metal/impl/allocator/
	 * bank_manager.cpp, allocator.cpp: TT_FATAL/TT_THROW, 2024-2026):
	 * "Out of Memory: Not enough space to allocate N B DRAM buffer across
	 * K banks, where each bank needs to store X B, but bank size is Y B
	 * (allocated: A B, free: F B, largest free block: L B)" (L1 buffers
	 * the same), printed under tt-xla's vLLM plugin and ttnn */
	{ "Out of Memory: Not enough space to allocate", MF_TT, 0 },
	/* ---- set 4, spent round 4 (branch w-spent4r) ---- */
	/* TensorFlow's status text as XLA's XRT runtime under torch_xla
	 * printed it on a TPU (tensorflow/core/platform/status.cc: the code
	 * "Resource exhausted: " before XLA's own "Attempting to allocate X.
	 * That was not possible. There are Y free."), the lower-case twin
	 * of PJRT's "RESOURCE_EXHAUSTED: Attempting to" */
	{ "Resource exhausted: Attempting to allocate", MF_XLA, 0 },
	/* MLX's allocator before 0.18 (mlx/allocator.cpp malloc_or_wait, also
	 * in forks of it: "[malloc_or_wait] Unable to allocate N bytes."),
	 * the Metal heap refusing a buffer after waiting and swapping */
	{ "[malloc_or_wait] Unable to allocate", MF_MLX, 0 },
	/* TVM's VM, which MLC-LLM runs (src/runtime/relax_vm/memory_manager.cc
	 * and src/runtime/vm/memory_manager.cc StorageObj::AllocNDArray,
	 * 2021-2025: "storage allocation failure, attempted to allocate N at
	 * offset O in region that is M bytes"): a tensor larger than the
	 * region its compiled memory plan set aside */
	{ "storage allocation failure, attempted to allocate", MF_MLC, 0 },
	/* round 5 (w-gapsa): TVM's runtime checking a CUDA call
	 * (src/runtime/cuda/cuda_common.h CUDA_CALL: ICHECK(e == cudaSuccess
	 * || e == cudaErrorCudartUnloading) << "CUDA: " <<
	 * cudaGetErrorString(e)), as MLC-LLM's cuda_device_api.cc prints it
	 * when a tensor, a parameter or the KV cache cannot be allocated;
	 * before the bare CUDA wording so that MLC's runtime is named */
	{ "is false: CUDA: out of memory", MF_MLC, 0 },
	/* TensorRT-LLM's paged KV cache (cpp/tensorrt_llm/batch_manager/
	 * kvCacheManager.cpp BlockManager::allocateBlock, TLLM_CHECK_WITH_INFO
	 * "Can't allocate new blocks. No free blocks left."; from 2025 "...
	 * for window size N. No free blocks left."): no KV block free */
	{ "Can't allocate new blocks", MF_TRT, 0 },
	/* exllamav2's auto-split load (exllamav2/model.py@7ba31d8
	 * load_autosplit_gen: RuntimeError "Insufficient VRAM for model and
	 * cache" when the last card cannot take the next layer and its
	 * cache), what exui and TabbyAPI pass on */
	{ "Insufficient VRAM for model and cache", MF_EXL2, 0 },
	/* ---- end of set 4, spent round 4 ---- */
	/* ---- set 5, spent round 5 (w-spent5s) ---- */
	/* Caffe's CUDA_CHECK (include/caffe/util/device_alternate.hpp, BVLC
	 * caffe 1.0: CHECK_EQ(error, cudaSuccess) << " " <<
	 * cudaGetErrorString(error)) as glog prints a failed CHECK_EQ: "Check
	 * failed: error == cudaSuccess (2 vs. 0)  out of memory"; 2 is
	 * cudaErrorMemoryAllocation (driver_types.h), so the status is
	 * CUDA's whatever text follows it */
	{ "== cudaSuccess (2 vs. 0)", MF_CUDA, 0 },
	/* ---- end of set 5, spent round 5 (w-spent5s) ---- */
	/* ---- set 5, spent round 5 (w-spent5u) ---- */
	/* FlashInfer's planners carve their temporary arrays out of a
	 * workspace buffer the caller allocated once (vLLM: a fixed
	 * FLASHINFER_WORKSPACE_BUFFER_SIZE, vllm/attention/backends/
	 * flashinfer.py) and throw, misspelt as printed, "RuntimeError: Out
	 * of workspace memory in AlignedAlloactor" when a batch needs more
	 * (include/flashinfer/attention/handler.cuh, allocator.h, 2024
	 * indexed copies): the workspace is full, not the card */
	{ "Out of workspace memory in AlignedAllo", MF_FLASHINFER, 0 },
	/* ---- end of set 5, spent round 5 (w-spent5u) ---- */
	/* ---- round 7 (w-worlde) ---- */
	/* Triton's CUDA launcher (third_party/nvidia/backend/driver.c
	 * gpuAssert, triton 3.x: "Triton Error [CUDA]: " then
	 * cuGetErrorString's text) when loading or launching a kernel finds
	 * no memory, as vLLM's and SGLang's Triton kernels raise it */
	{ "Triton Error [CUDA]: out of memory", MF_CUDA, 0 },
	/* SGLang's hierarchical cache (python/sglang/srt/mem_cache/
	 * memory_pool_host.py HostKVCache.__init__, 0.4.9-0.5.x): "ValueError:
	 * Not enough host memory available. Requesting X GB but only have Y
	 * GB free. Please reduce the size of the hierarchical cache." -- the
	 * host KV pool asked of free host memory less a reserve */
	{ "Not enough host memory available", MF_HOST, 0 },
	/* ---- end of round 7 (w-worlde) ---- */
	/* round 7 (w-worldf): ggml's SYCL buffer type
	 * (ggml/src/ggml-sycl/ggml-sycl.cpp
	 * ggml_backend_sycl_buffer_type_alloc_buffer, 2024-2026: "%s: can't
	 * allocate %lu Bytes of memory on device" when ggml_sycl_malloc_device
	 * returns NULL; docs/backend/SYCL.md lists it, with "failed to
	 * allocate SYCL0 buffer", as the device's memory running out) */
	/* round 7 (w-spent6r): MIOpen's allocator (src/hip/handlehip.cpp
	 * Handle::Create, MIOpen rocm-1.7 to rocm-6.x: MIOPEN_THROW("Memory
	 * not available to allocate buffer: " + size) when the request is
	 * over hipMemGetInfo's free memory, before hipMalloc is tried;
	 * MIGraphX's and RPP's allocators throw the same words) */
	{ "Memory not available to allocate buffer", MF_HIP, 0 },
	/* ---- end of round 7 (w-spent6r) ---- */
	/* ---- round 8 (w-worldg) ---- */
	/* the "CUDA Error: %s at %s:%d" check many CUDA extensions print with
	 * the driver's or runtime's error string (cuGetErrorString /
	 * cudaGetErrorString of error 2: "out of memory"), as vLLM's sleep
	 * mode allocator does when waking up ("RuntimeError: CUDA Error: out
	 * of memory at /workspace/csrc/cumem_allocator.cpp:62", vLLM
	 * csrc/cumem_allocator.cpp CUDA_CHECK; indexed copies of the idiom) */
	{ "CUDA Error: out of memory", MF_CUDA, 0 },
	/* torch_memory_saver (the pause/resume allocator SGLang and verl use)
	 * prints the runtime's code and string: "[torch_memory_saver.cpp]
	 * cudaError error: 2 (out of memory) file=csrc/core.cpp func=resume";
	 * 2 is cudaErrorMemoryAllocation (driver_types.h) */
	{ "cudaError error: 2 (out of memory)", MF_CUDA, 0 },
	/* ---- end of round 8 (w-worldg) ---- */
	/* ---- set 9, spent round 9 (w-spent9a) ---- */
	/* tinygrad's CUDA runtime (tinygrad/runtime/ops_cuda.py check, 0.9.x,
	 * as exo's tinygrad engine ran it in 2024): RuntimeError(f"CUDA
	 * Error {status}, {cuGetErrorString(status)}"); status 2 is the
	 * driver API's CUDA_ERROR_OUT_OF_MEMORY (cuda.h), raised from
	 * cuMemAlloc_v2 in its allocator (_alloc) */
	{ "CUDA Error 2, out of memory", MF_CUDA, 0 },
	/* the CHECK_CUDA_ERROR idiom (cuTAGI include/cuda_error_checking.cuh
	 * check_cuda, 2024; the "proper CUDA error checking" helper many CUDA
	 * projects copy): "CUDA Runtime Error at: FILE:LINE" on one line,
	 * then cudaGetErrorString(err) and the call's own text on the next,
	 * which for error 2 (cudaErrorMemoryAllocation) reads "out of memory
	 * cudaMalloc(...)": the runtime's string before the allocating call
	 * (cudaMalloc, cudaMallocManaged, cudaMallocHost, cudaMallocAsync) */
	{ "out of memory cudaMalloc", MF_CUDA, 0 },
	/* ---- end of set 9, spent round 9 (w-spent9a) ---- */
	/* ---- set 11, spent round 10 (w-spent11b) ---- */
	/* OpenCL's status -4, CL_MEM_OBJECT_ALLOCATION_FAILURE (Khronos
	 * OpenCL-Headers CL/cl.h@v2023.04.17: "failure to allocate memory
	 * for buffer or image objects"), the device's memory running out.
	 * Printed under its own name by the bindings: pyopencl drops the
	 * "CL_" ("pyopencl._cl.MemoryError: clEnqueueMapBuffer failed:
	 * MEM_OBJECT_ALLOCATION_FAILURE", pyopencl src/clinfo_ext.h and
	 * wrap_helpers, as tinygrad's ops_gpu.py ran it in 2023), tinygrad's
	 * own ctypes runtime keeps it (tinygrad/runtime/ops_gpu.py, later
	 * ops_cl.py, check() with cl_errors, 2024-2025 indexed copies:
	 * "OpenCL Error -4: CL_MEM_OBJECT_ALLOCATION_FAILURE"; its early-2024
	 * check printed the bare number, no row: "-4" is a prefix of other
	 * codes), the spec's prose and clinfo-style tables say "mem object
	 * allocation failure" */
	/* OpenVINO's GPU plugin checks each allocation before making it
	 * (openvinotoolkit/openvino src/plugins/intel_gpu/src/runtime/
	 * ocl/ocl_engine.cpp@2024.0, PR #22332; runtime/engine.cpp
	 * check_allocatable on master): one object above the device's
	 * max_alloc_mem_size ("[GPU] Exceeded max size of memory object
	 * allocation: requested N bytes, but max alloc size supported by
	 * device is M bytes.", a per-buffer ceiling, memfail_limit.c), or the
	 * plugin's whole use past the host's RAM (plus a discrete card's own
	 * memory) on Linux, where it refuses rather than be OOM-killed ("[GPU]
	 * Exceeded max size of memory allocation: Required N bytes, already
	 * occupied : U bytes, but available memory size is T bytes"). The
	 * "[GPU]" tag is the plugin's own; openvino.genai #2406 pasted the
	 * first, canonical/inference-snaps #126 the second. */
	{ "[GPU] Exceeded max size of memory", MF_OPENVINO, 0 },
	{ "MEM_OBJECT_ALLOCATION_FAILURE", MF_OPENCL, 0 },
	{ "mem object allocation failure", MF_OPENCL, 0 },
	/* ---- end of set 11, spent round 10 (w-spent11b) ---- */
	/* ---- set 12, spent round 11 (w-spend12a) ---- */
	/* oMLX's guard on MLX's active memory during a request's prefill
	 * (omlx/scheduler.py, jundot/omlx 0.3.x indexed copies, 2026):
	 * past its hard limit it raises RuntimeError("Memory limit exceeded
	 * during prefill"), returned to the client as the request's error
	 * (a client such as the Hermes agent shows only that string) */
	{ "Memory limit exceeded during prefill", MF_MLX, 0 },
	/* ---- end of set 12, spent round 11 (w-spend12a) ---- */
	{ "Bytes of memory on device", MF_SYCL, 0 },
	{ "failed to allocate SYCL", MF_GGML, 0 },
	{ "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY", MF_SYCL, 0 },
	{ "UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY", MF_SYCL, 0 },
	{ "PI_ERROR_OUT_OF_HOST_MEMORY", MF_SYCL, 0 },
	{ "cudaMalloc failed: out of memory", MF_CUDA, 0 },
	{ "hipMalloc failed: out of memory", MF_HIP, 0 },
	{ "CUDA runtime error: out of memory", MF_CUDA, 0 },
	{ "CUDA error: out of memory", MF_CUDA, 0 },
	/* c10/cuda's driver-API check (CUDADriverAPI: "CUDA driver error:
	 * out of memory"), THC's THCudaCheck of torch 0.3-0.4 ("cuda runtime
	 * error (2) : out of memory at .../THCStorage.cu", "THCudaCheck FAIL
	 * file=... line=58 error=2 : out of memory"), CNTK's and onnxruntime's
	 * CUDA_CALL ("CUDA failure 2: out of memory ; GPU=0 ; hostname=...";
	 * onnxruntime core/providers/cuda/cuda_call.cc) */
	{ "CUDA driver error: out of memory", MF_CUDA, 0 },
	{ "cuda runtime error (2) : out of memory", MF_CUDA, 0 },
	{ "error=2 : out of memory", MF_CUDA, 0 },
	{ "CUDA failure 2: out of memory", MF_CUDA, 0 },
	/* bitsandbytes' CUDA check (0.39; csrc/ops.cu, pythonInterface.c):
	 * "Error <the CUDA error string> at line N in file F" */
	{ "Error out of memory at line", MF_CUDA, 0 },
	{ "cudaErrorMemoryAllocation", MF_CUDA, 0 },
	{ "CUDA_ERROR_OUT_OF_MEMORY", MF_CUDA, 0 },
	/* PyTorch's HIP build: C10_CUDA_CHECK hipified ("HIP error: out of
	 * memory"); ggml's ROCm backend ("ROCm error: out of memory") */
	{ "HIP error: out of memory", MF_HIP, 0 },
	{ "ROCm error: out of memory", MF_HIP, 0 },
	{ "hipErrorOutOfMemory", MF_HIP, 0 },
	{ "hipError_t(1002)", MF_HIP, 0 },
	{ "CUDNN_STATUS_ALLOC_FAILED", MF_CUDNN, 0 },
	/* the CUDA math libraries' status names (cublas_api.h, cusolver_common.h,
	 * cusparse.h, cufft.h, curand.h) */
	{ "CUBLAS_STATUS_ALLOC_FAILED", MF_CUBLAS, 0 },
	{ "CUSOLVER_STATUS_ALLOC_FAILED", MF_CUBLAS, 0 },
	{ "CUSPARSE_STATUS_ALLOC_FAILED", MF_CUBLAS, 0 },
	{ "CUFFT_ALLOC_FAILED", MF_CUBLAS, 0 },
	{ "CURAND_STATUS_ALLOCATION_FAILED", MF_CUBLAS, 0 },
	/* nvJPEG (nvjpeg.h, CUDA 10.0-12.x: NVJPEG_STATUS_ALLOCATOR_FAILURE
	 * = 5, "the user-provided or default allocator failed"), raised
	 * through DALI's decoder (dali/operators/decoder/nvjpeg, NVJPEG_CALL:
	 * 'NVJPEG error "5" : NVJPEG_STATUS_ALLOCATOR_FAILURE', DALI 0.x-1.x) */
	{ "NVJPEG_STATUS_ALLOCATOR_FAILURE", MF_CUBLAS, 0 },
	/* NCCL (src/include/checks.h, cudawrap.h, alloc.h at v2.18-v2.29):
	 * "Cuda failure 'out of memory'", "Cuda failure 2 'out of memory'",
	 * then "Failed to CUDA calloc N bytes" (also "calloc async", "malloc",
	 * "host alloc") */
	{ "Cuda failure 'out of memory'", MF_NCCL, 0 },
	{ "Cuda failure 2 'out of memory'", MF_NCCL, 0 },
	{ "Failed to CUDA calloc", MF_NCCL, 0 },
	{ "Failed to CUDA malloc", MF_NCCL, 0 },
	{ "Failed to CUDA host alloc", MF_NCCL, 0 },
	{ "OOM when allocating tensor", MF_TF_BFC, 0 },
	{ "ran out of memory trying to allocate", MF_TF_BFC, 0 },
	/* the BFC allocator's summary, printed only when an allocation
	 * failed (BFCAllocator::DumpMemoryLog, called from AllocateRaw's
	 * failure path: "total_region_allocated_bytes_: N memory_limit_: L
	 * available bytes: A curr_region_allocation_bytes_: C";
	 * tensorflow/core/common_runtime/bfc_allocator.cc@v2.4.0, the same
	 * in tsl/framework/bfc_allocator.cc that XLA and EXLA use): the
	 * failure itself when the paste cut its first line (elixir-nx/
	 * bumblebee #203); within the failure's telling it continues it */
	{ "total_region_allocated_bytes_:", MF_TF_BFC, 0 },
	/* its TF 1.x close, the same summary's last chunk line, also printed
	 * only from that failure path (DumpMemoryLog: "Sum Total of in-use
	 * chunks: " HumanReadableNumBytes, then "Stats:" and the stats'
	 * "Limit:"/"InUse:" lines; tensorflow/core/common_runtime/
	 * bfc_allocator.cc@v1.8.0,v1.12.0): the failure when a paste kept
	 * only the dump's tail (set 19 spent, w-spend19a) */
	{ "Sum Total of in-use chunks", MF_TF_BFC, 0 },
	/* TensorRT (defaultAllocator.cpp, executionContext.cpp, globWriter.cpp
	 * through [TRT] [E]: "Error Code 1: Cuda Runtime (out of memory)",
	 * "Error Code 2: OutOfMemory (Requested size was N bytes.)"); its
	 * safe runtime under onnxruntime's TensorRT EP: "Cuda Error in
	 * allocate: 2 (out of memory)" */
	{ "Error Code 2: OutOfMemory", MF_TRT, 0 },
	{ "Cuda Runtime (out of memory)", MF_TRT, 0 },
	{ "Cuda Error in allocate: 2 (out of memory)", MF_TRT, 0 },
	/* onnxruntime core/framework/bfc_arena.cc (1.8-1.19):
	 * "BFCArena::AllocateRawInternal ... Failed to allocate memory for
	 * requested buffer of size N" */
	{ "Failed to allocate memory for requested buffer", MF_ORT, 0 },
	{ "failed to allocate CUDA", MF_GGML, 0 },   /* "... CUDA0 buffer of size N" */
	{ "failed to allocate ROCm", MF_GGML, 0 },
	{ "failed to allocate Metal", MF_GGML, 0 },
	{ "unable to allocate CUDA", MF_GGML, 0 },
	{ "unable to allocate ROCm", MF_GGML, 0 },
	/* llama.cpp's load before the buffer was named (llm_load_tensors,
	 * b2xxx-b3xxx: "Failed to allocate buffer type %s" then throw
	 * "unable to allocate backend buffer"), through Ollama's runner */
	{ "unable to allocate backend buffer", MF_GGML, 0 },
	/* llama.cpp's KV cache (llama.cpp v0.5.0 vendored by ollama: llama.cpp
	 * LLAMA_LOG_ERROR; v0.12.0 src/llama-kv-cache-unified.cpp throw) */
	{ "failed to allocate buffer for kv cache", MF_GGML, 0 },
	/* set 8 spent (w-spent8s): llama.cpp's recurrent-state cache, the
	 * KV cache's counterpart for Mamba, RWKV and the hybrid models
	 * (src/llama-memory-recurrent.cpp, llama_memory_recurrent's
	 * constructor, 2025-: throw "failed to allocate buffer for rs
	 * cache"), as llama-server, LM Studio's engine and Ollama print it */
	{ "failed to allocate buffer for rs cache", MF_GGML, 0 },
	/* ggml's Vulkan backend: "ggml_vulkan: Device memory allocation of
	 * size N failed." then vk's "ErrorOutOfDeviceMemory" */
	{ "Device memory allocation of size", MF_GGML, 0 },
	/* set 16 spent (w-spend16c): the same backend's buffer creation
	 * (ggml/src/ggml-vulkan/ggml-vulkan.cpp ggml_vk_create_buffer_check,
	 * llama.cpp b5000 to b7000: "ggml_vulkan: Memory allocation of size N
	 * failed." then vk's status, rethrown), which llama-server, Jan and
	 * LM Studio print when a Vulkan device (an iGPU's UMA heap included)
	 * refuses the weights' or the context's buffers */
	{ "ggml_vulkan: Memory allocation of size", MF_GGML, 0 },
	{ "ErrorOutOfDeviceMemory", MF_GGML, 0 },
	/* Vulkan's C name for the status: ggml's under ggml's names (Ollama's
	 * list), else a Vulkan user of its own (memfail_stack_family): Dawn,
	 * WebGPU's implementation in Chrome, which WebLLM runs on
	 * (src/dawn/native/vulkan/VulkanError.cpp CheckVkOOMThenSuccessImpl:
	 * context + " failed with " + VkResultAsString(result), e.g.
	 * "vkAllocateMemory failed with VK_ERROR_OUT_OF_DEVICE_MEMORY",
	 * web-llm #356), and TVM's Vulkan runtime (vulkan_buffer.cc "Vulkan
	 * Error, code=-2: VK_ERROR_OUT_OF_DEVICE_MEMORY", mlc-llm #974) */
	{ "VK_ERROR_OUT_OF_DEVICE_MEMORY", MF_VULKAN, 0 },
	/* Ollama's own (v0.12.0): ml/device.go ErrNoMem "insufficient memory
	 * - required allocations: {...}", llm/server.go "model requires more
	 * system memory (X) than is available (Y)" and "failed to allocate
	 * memory for model" */
	{ "insufficient memory - required allocations", MF_OLLAMA, 0 },
	{ "model requires more system memory", MF_OLLAMA, MFW_HOST },
	{ "failed to allocate memory for model", MF_OLLAMA, 0 },
	/* its new engine's fit loop giving up (llm/server.go Load, v0.12.0
	 * to v0.20.0: "memory layout cannot be allocated", "... with num_gpu
	 * = N" when the layers were set), what the CLI's 500 carries */
	{ "memory layout cannot be allocated", MF_OLLAMA, 0 },
	/* round 17 (w-spike18): the KV cache full while serving. Ollama's
	 * runners turn llama_decode's return 1 (no free cells for the batch)
	 * into ErrKvCacheFull, "could not find a kv cache slot"
	 * (llama/llama.go@v0.4.7 Decode; the new engine's kvcache/cache.go
	 * @v0.6.0, "(length: N)" or "(cache: N batch: M)" after it in
	 * kvcache/causal.go@v0.6.0,v0.9.0), and llama/runner/runner.go
	 * @v0.4.7 run() panics on it ("failed to decode batch: %w"). The
	 * cache is allocated once, num_ctx x the parallel sequences: a
	 * memory it cannot grow, full (rule kv_slots judges it) */
	{ "could not find a kv cache slot", MF_OLLAMA, 0 },
	/* llama.cpp's server giving up after halving its batch down to 1
	 * token: "update_slots : failed to decode the batch, n_batch = 1,
	 * ret = 1" (examples/server/server.cpp update_slots, as Ollama
	 * vendored it: llm/ext_server/server.cpp@v0.1.32,v0.3.0; llama.cpp#4185,
	 * llamafile#244 and ollama#2048 quote it), later "failed to decode the
	 * batch: KV cache is full - try increasing it via the context size"
	 * (SRV_ERR in update_slots, tools/server/server.cpp, indexed copies
	 * of 2025). After a Metal failure the same line continues that
	 * failure (memfail.c continuations) */
	{ "failed to decode the batch", MF_GGML, 0 },
	/* set 13 spent (w-spend13c): vLLM's hybrid models keep one Mamba
	 * state block per decoding sequence, the blocks counted from the same
	 * budget as the KV cache; a max_num_seqs above them stops the start-up
	 * ("ValueError: max_num_seqs (N) exceeds available Mamba cache blocks
	 * (M). Each decode sequence requires one Mamba cache block, so CUDA
	 * graph capture cannot proceed. Please lower max_num_seqs to at most M
	 * or increase gpu_memory_utilization.", vllm/config/compilation.py
	 * resolve_cudagraph_mode_and_sizes, 2026; quoted in real pastes) */
	{ "exceeds available Mamba cache blocks", MF_VLLM_STATE, 0 },
	/* set 16 spent (w-spend16c): vllm-metal, vLLM's plugin for Apple
	 * Silicon, budgets its paged KV cache as MLX's Metal limit times
	 * VLLM_METAL_MEMORY_FRACTION less the weights and the profiled
	 * overhead, and stops the start-up when that budget is not positive
	 * or holds too few blocks (vllm_metal/v1/cache_policy.py
	 * _validate_paged_attention_plan @v0.3.0.dev20260822162826: "Paged
	 * attention: not enough Metal memory for KV cache. metal_limit=..,
	 * ..., kv_budget=..GB" and "Paged attention: computed num_blocks too
	 * low (N < minimum M)"); unified memory, read as MLX's */
	{ "not enough Metal memory for KV cache", MF_MLX, 0 },
	{ "Paged attention: computed num_blocks too low", MF_MLX, 0 },
	/* kvcached (ovg-project/kvcached kvcached/kv_cache_manager.py
	 * KVCacheManager._alloc, 2025-2026; its C++ XTensorBlockManager logs
	 * the same words): the elastic pool, its pages mapped on the GPU on
	 * demand up to its limit, holds fewer free blocks than asked for:
	 * logger.warning("available_size()=%d < need_size=%d"), alloc returns
	 * None. The vLLM patches of 2025 assert on it (ElasticBlockPool.
	 * get_new_blocks: "assert block_ids is not None"), later ones turn it
	 * into the scheduler's "cannot allocate now" and go on: a failure only
	 * where an error follows it (server_memfail.c, MF_KVCACHED) */
	{ "< need_size=", MF_KVCACHED, 0 },
	{ "memory leak detected!", MF_SGLANG_KV, 0 },
	{ "KV cache pool leak detected", MF_SGLANG_KV, 0 },
	/* SGLang's busy-time invariant checker (2026, SGLANG_ENABLE_STRICT_
	 * MEM_CHECK_DURING_BUSY; python/sglang/srt/managers/
	 * scheduler_runtime_checker_mixin.py, indexed copies):
	 * self_check_during_busy asserts "Full Pool Mem Leak Detected! [full]
	 * total=.., available=.., evictable=.., protected=.., session_held=..,
	 * uncached=.." and the same for the "SWA" and hybrid pools */
	{ "Pool Mem Leak Detected!", MF_SGLANG_KV, 0 },
	/* Ray's memory monitor (python/ray/exceptions.py OutOfMemoryError,
	 * 2.1+; raylet node_manager.cc's summary; RayOutOfMemoryError of
	 * ray 0.6-1.x memory_monitor.py) */
	{ "killed due to the node running low on memory", MF_RAY, 0 },
	{ "killed due to memory pressure (OOM)", MF_RAY, 0 },
	{ "RayOutOfMemoryError", MF_RAY, 0 },
	/* the kill's detail alone, when the exception line above it was not
	 * kept: "Memory on the node (IP: ..) where the task (..) was running
	 * was X / Y (F), which exceeds the memory usage threshold of T. Ray
	 * killed this worker (ID: ..) because ..." (raylet's worker-killing
	 * policy, 2.2+; doc/source/ray-core/scheduling/ray-oom-prevention.rst) */
	{ "which exceeds the memory usage threshold of", MF_RAY, 0 },
	/* the host's allocators: PyTorch's CPU allocator
	 * (c10/core/impl/alloc_cpu.cpp, 1.2+: "DefaultCPUAllocator: can't
	 * allocate memory: you tried to allocate N bytes. Error code 12
	 * (Cannot allocate memory)", "DefaultCPUAllocator: not enough memory:
	 * you tried to allocate N bytes."), numpy's (1.17+:
	 * "_ArrayMemoryError: Unable to allocate X GiB for an array with
	 * shape ..."), C++'s std::bad_alloc, errno 12 in an error */
	{ "DefaultCPUAllocator: not enough memory", MF_HOST, 0 },
	{ "DefaultCPUAllocator: can't allocate memory", MF_HOST, 0 },
	/* set 13, spent round 12 (w-spend13a): PyTorch's DataLoader
	 * (torch/csrc/DataLoader.cpp, 0.4 through 2.x): a worker's SIGBUS
	 * handler prints "ERROR: Unexpected bus error encountered in
	 * worker. This might be caused by insufficient shared memory
	 * (shm).", and the main process's _error_if_any_worker_fails raises
	 * "DataLoader worker (pid N) is killed by signal: Bus error. It is
	 * possible that dataloader's workers are out of shared memory.
	 * Please try to raise your shared memory limit." -- the batches
	 * workers hand over live in /dev/shm, whose size a container caps
	 * (Docker's 64 MB default). A worker killed by any other signal
	 * ("Killed.") says no more than that: no wording of memory */
	{ "workers are out of shared memory", MF_HOST, 0 },
	{ "insufficient shared memory (shm)", MF_HOST, 0 },
	{ "_ArrayMemoryError", MF_HOST, 0 },
	{ "MemoryError: Unable to allocate", MF_HOST, 0 },
	{ "std::bad_alloc", MF_HOST, 0 },
	/* Python's own, bare, closing a traceback (Objects/exceptions.c) */
	{ "MemoryError", MF_HOST, MFW_START },
	{ "Cannot allocate memory", MF_HOST, NEED_ERR },
	/* bash's fork (jobs.c: sys_error ("fork")); Go's runtime, which
	 * Ollama's runner is (runtime/mem_linux.go sysMap: throw("runtime:
	 * out of memory")); the JVM's heap */
	{ "fork: Cannot allocate memory", MF_HOST, 0 },
	{ "runtime: out of memory", MF_HOST, 0 },
	{ "java.lang.OutOfMemoryError", MF_HOST, 0 },
	/* round 7 (w-worldf): PyTorch's exception class (torch/__init__.py
	 * OutOfMemoryError, 2.5+; torch.cuda.OutOfMemoryError before it) as
	 * the value that ends a line: ComfyUI's error report ("Exception
	 * Type: torch.OutOfMemoryError"), its dialog, the same page a
	 * browser translated ("Tipo de exceção: torch.OutOfMemoryError"),
	 * whose words around the class name no longer say "Exception" */
	{ "torch.OutOfMemoryError", MF_TORCH, MFW_END },
	{ "torch.cuda.OutOfMemoryError", MF_TORCH, MFW_END },
	/* ---- set 11, spent round 10 (w-spent11c) ---- */
	/* PyTorch's cudaMallocAsync backend (c10/cuda/CUDAMallocAsyncAllocator.cpp
	 * mallocAsync, 2.1-2.4: TORCH_CHECK_WITH(OutOfMemoryError, false,
	 * "Allocation on device ", device, " would exceed allowed memory. (out
	 * of memory)", ...) with device a c10::DeviceIndex, an int8_t that the
	 * stream writes as a character: device 0 is a NUL, which ends the
	 * message Python sees at "Allocation on device " (later tags cast it,
	 * static_cast<int>(device)). ComfyUI turns that backend on by default
	 * (cuda_malloc.py), so its nodes print str(e) as the line's end:
	 * "Error in forward pass: Allocation on device". The whole form is
	 * torch_oom_text's. Only as the line's last words. */
	{ "Allocation on device", MF_TORCH, MFW_END },
	/* ---- end of set 11, spent round 10 (w-spent11c) ---- */
	/* ---- set 15 spent (w-spend15a) ---- */
	/* ggml's own host-side arena: a context is one pool the program
	 * sizes itself (ggml_init_params.mem_size, from the model and the
	 * context it computes), and every tensor and graph object is carved
	 * from it; one that does not fit is refused with "%s: not enough
	 * space in the context's memory pool (needed %zu, available %zu)"
	 * (ggml.c ggml_new_object, ggerganov/ggml@v0.0.1 and the copies
	 * whisper.cpp v1.4-v1.5, encodec.cpp and llama.cpp vendored;
	 * ggml_new_tensor_impl printed the same before ggml_new_object
	 * existed, ggml.c as starcoder.cpp and rustformers/llm vendored it
	 * in 2023), then GGML_ASSERT(false) or a NULL the caller uses. The
	 * program's own sizing against its input, in RAM, never a device's */
	{ "not enough space in the context's memory pool", MF_GGML, MFW_HOST },
	/* the same from the scratch buffer (ggml_set_scratch; ggml.c
	 * ggml_new_tensor_impl, llama.cpp master-2023-07 as koboldcpp v1.36
	 * vendored it, LostRuins/koboldcpp #331), sized by the program */
	{ "not enough space in the scratch memory pool", MF_GGML, MFW_HOST },
	/* ggml's CPU buffer type before it named the size (ggml-backend.c
	 * ggml_backend_cpu_buffer_type_alloc_buffer, late 2023 to spring
	 * 2024, as whisper.cpp v1.5.x and llama.cpp b17xx-b26xx vendored it:
	 * data = malloc(size); GGML_ASSERT(data != NULL && "failed to
	 * allocate buffer")): the assertion is that malloc's, the host's */
	{ "data != NULL && \"failed to allocate buffer\"", MF_GGML, MFW_HOST },
	/* Emscripten's runtime when the WebAssembly heap cannot grow (src/
	 * library.js abortOnCannotGrowMemory at 2.0.x-3.1.x: abort('OOM') in
	 * a release build, "Cannot enlarge memory arrays to size N bytes
	 * (OOM). Either (1) compile with -sINITIAL_MEMORY=X ..." with
	 * ASSERTIONS; src/preamble.js abort() prints "Aborted(" what ")"):
	 * the wasm module's linear memory, the host's (whisper.cpp's wasm
	 * examples, ggml-org/whisper.cpp #1412) */
	{ "Aborted(OOM)", MF_HOST, MFW_HOST },
	{ "Cannot enlarge memory arrays", MF_HOST, MFW_HOST },
	/* ---- end of set 15 spent (w-spend15a) ---- */
	/* ---- set 15, spent round 14 (w-spend15b) ---- */
	/* DyNet's and cnn's (its predecessor's) memory pools: the pool is
	 * allocated once at start-up, at the size a flag gives, and a request
	 * past it aborts whatever the device has free. clab/dynet
	 * dynet/aligned-mem-pool.h (2016-17): "dynet is out of memory, try
	 * increasing with --dynet-mem (current capacity: N)" then abort();
	 * dynet/aligned-mem-pool.cc (2.0+): "<pool> is out of memory, try
	 * increasing with --dynet-mem (current capacity: N). See ...", thrown;
	 * clab/cnn cnn/aligned-mem-pool.h: "cnn is out of memory, try
	 * increasing with --cnn-mem". The flag is in the message */
	{ "is out of memory, try increasing with --", MF_POOL, 0 },
	/* Slurm's step daemon killing a job or step past its memory limit:
	 * jobacct_gather's polling (src/plugins/jobacct_gather/common/
	 * common_jag.c: error("Job %u exceeded memory limit (%"PRIu64" >
	 * %"PRIu64"), being killed") in older releases, "%ps exceeded memory
	 * limit (...)" in later ones, printed "slurmstepd: error: ...") and
	 * slurmstepd's own notice "Exceeded job memory limit" / "Exceeded
	 * step memory limit" (src/slurmd/slurmstepd/req.c): the host's
	 * memory the job asked for (--mem, --mem-per-cpu) ran out. Only in an
	 * error (other programs warn of their own caps with the same words) */
	{ "exceeded memory limit (", MF_HOST, NEED_ERR },
	{ "Exceeded job memory limit", MF_HOST, 0 },
	{ "Exceeded step memory limit", MF_HOST, 0 },
	/* vLLM V0's scheduler preempting by swapping a sequence group's KV
	 * blocks to the CPU swap space (vllm/core/scheduler.py _swap_out,
	 * v0.1.x through v0.6: RuntimeError("Aborted due to the lack of CPU
	 * swap space. Please increase the swap space to avoid this error.")):
	 * the host pool of --swap-space GiB per card, allocated at start-up,
	 * is full */
	{ "lack of CPU swap space", MF_HOST, 0 },
	/* CUDA memory policies that throw their own exception for a failed
	 * allocation, naming the call: VisionCore (lukier/vision_core
	 * include/VisionCore/MemoryPolicyCUDA.hpp: CUDAException(err, "Unable
	 * to cudaMalloc"), "Unable to cudaMallocPitch") and Kangaroo
	 * (stevenlovegrove/Kangaroo kangaroo/Image.h: CudaException("Unable
	 * to cudaMallocPitch")), which dense SLAM systems build on */
	{ "Unable to cudaMalloc", MF_CUDA, 0 },
	/* ---- end of set 15, spent round 14 (w-spend15b) ---- */
	/* ---- set 16 spent (w-spend16b) ---- */
	/* XLA's TPU compiler and runtime placing a buffer in a memory space
	 * (hbm, or the core's scoped vmem) past its size: "Allocation
	 * (size=%lld) would exceed memory (size=%lld) :: <allocation> ::
	 * <hlo>" with the code RESOURCE_EXHAUSTED, raised by jax as
	 * XlaRuntimeError / JaxRuntimeError, and by some wrappers as a bare
	 * ValueError (openxla.org's "OOM debugging" page, its TPU example;
	 * the TPU error-code page, code 1001 "HBM and Vmem OOM"; real pastes
	 * of the same words for hbm and vmem in indexed copies) */
	{ "would exceed memory (size=", MF_XLA, 0 },
	/* PaddlePaddle's GPU allocators: the legacy buddy allocator
	 * (paddle/fluid/memory/allocation/legacy_allocator.cc, 1.x, later
	 * naive_best_fit_allocator.cc: "Cannot allocate %s in GPU %d,
	 * avaliable %s, total %s, GpuMinChunkSize %s, GpuMaxChunkSize %s, GPU
	 * memory used: %s.", a glog F line or ResourceExhaustedError; the
	 * chunk-size words are printed by nothing else), and the 2.x CUDA
	 * allocator (cuda_allocator.cc: "Out of memory error on GPU %d.
	 * Cannot allocate %s memory on GPU %d, available memory is only %s.") */
	{ "GpuMinChunkSize", MF_CUDA, 0 },
	{ "Out of memory error on GPU", MF_CUDA, 0 },
	/* MindSpore's dynamic memory pool (mindspore/ccsrc/backend/common/
	 * mem_reuse/mem_dynamic_allocator.cc AddMemBlockAndMemBufByEagerFree,
	 * 2.2-2.4: MS_LOG(ERROR) "TotalUsedMemStatistics : U [plus
	 * TotalUsedByEventMemStatistics : E] plus alloc size : N is more than
	 * total mem size : T."): the pool of the Ascend (or GPU) device, sized
	 * at start-up, cannot take the request */
	{ "is more than total mem size", MF_MINDSPORE, 0 },
	/* ---- end of set 16 spent (w-spend16b) ---- */
	/* ---- set 18 spent (w-spend18a) ---- */
	/* Caffe's host allocation (include/caffe/syncedmem.hpp@1.0
	 * CaffeMallocHost: "*ptr = malloc(size); ... CHECK(*ptr) << "host
	 * allocation of size " << size << " failed"", glog's "Check failed:
	 * *ptr host allocation of size N failed"): a CPU-mode blob's malloc
	 * refused, in RAM; in GPU mode the same blob is pinned through
	 * cudaMallocHost and fails as CUDA_CHECK's "(2 vs. 0)" above */
	{ "host allocation of size", MF_HOST, 0 },
	/* the same check in the Caffe fork DeepDetect builds on
	 * (jolibrain/caffe include/caffe/util/logging.hpp, 2016-2021: CHECK
	 * throws CaffeErrorException(FILE ":" LINE " / Check failed (custom):
	 * " #condition) and drops the streamed words), which DeepDetect's
	 * JSON error body carries as dd_msg; CHECK(*ptr) is that malloc's
	 * check, the only one on *ptr in Caffe's sources */
	{ "Check failed (custom): *ptr", MF_HOST, 0 },
	/* HTCondor's starter holding a job its memory limit killed, the
	 * scheduler's kill like Slurm's above: the Docker universe
	 * (src/condor_starter.V6.1/docker_proc.cpp, 8.x-23.x: "Docker job has
	 * gone over memory limit of %d Mb", the slot's Memory), the vanilla
	 * universe's cgroup (vanilla_proc.cpp outOfMemoryEvent: "Job has gone
	 * over memory limit of N megabytes. Peak usage: U megabytes." in 8.x,
	 * "Job has gone over cgroup memory limit of N megabytes. ... Consider
	 * resubmitting with a higher request_memory." later); what the job
	 * asked for (request_memory) did not hold it */
	{ "gone over memory limit of", MF_HOST, 0 },
	{ "gone over cgroup memory limit of", MF_HOST, 0 },
	/* ---- end of set 18 spent (w-spend18a) ---- */
	/* ---- set 18 spent (w-spend18b) ----
	 * PaddlePaddle Fluid's first GPU allocator (0.11-0.14, 2018): the
	 * chunk it sizes from FLAGS_fraction_of_gpu_memory_to_use must fit
	 * in what the card has free, PADDLE_ENFORCE_LE(allocating, available)
	 * in GpuMaxChunkSize (paddle/fluid/platform/gpu_info.cc@v0.12.0),
	 * whose enforce prints "enforce allocating <= available failed, A > B"
	 * (platform/enforce.h __PADDLE_BINARY_COMPARE) as EnforceNotMet; the
	 * words say a GPU allocation found too little free memory */
	{ "allocating <= available failed", MF_CUDA, 0 },
	/* ---- end of set 18 spent (w-spend18b) ---- */
	/* ---- readers19: families no reader knew ----
	 * torch-directml, PyTorch's DirectX 12 backend on Windows (AMD, Intel
	 * and NVIDIA cards through DirectML; closed source, the wording as its
	 * allocator raises it: RuntimeError "Could not allocate tensor with N
	 * bytes. There is not enough GPU video memory available!"). Learnt
	 * from a family of real pastes, not one: ComfyUI #3869, sdnext #2916,
	 * RVC-WebUI #1590, stable-diffusion-webui-amdgpu #38 and #592,
	 * ComfyUI-HunyuanVideoWrapper #211 (tests/data/real/any_stack/
	 * r19-directml-*). The words are the card's dedicated memory */
	{ "not enough GPU video memory available", MF_DIRECTML, 0 },
	/* MindSpore's runtime asking its device memory pool for a kernel's
	 * output or a copied tensor (mindspore/ccsrc/runtime/graph_scheduler/
	 * actor sources and pynative, 2.2-2.5 indexed copies: MS_LOG(ERROR or
	 * EXCEPTION) << "Device(id:" << id << ") memory isn't enough and alloc
	 * failed, kernel name: " << name << ", alloc size: " << size << "B.";
	 * the 1.x memory manager "Device memory isn't enough and alloc
	 * failed, actor name: ..., alloc size: N"; the CPU device writes
	 * "Memory isn't enough", capitalised, not matched here: the host's
	 * and no device). On Ascend or a GPU, whichever ran the graph */
	{ "memory isn't enough and alloc failed", MF_MINDSPORE, 0 },
	/* MindSpore's Ascend memory adapter reserving its pool from the
	 * runtime (plugin/device/ascend/hal/device/ascend_memory_adapter.cc
	 * AscendMemAdapter::MallocFromRts, 2.x indexed copy: on
	 * ACL_ERROR_RT_MEMORY_ALLOCATION, 207001 in acl_base.h, "Malloc device
	 * memory failed, size[N], ret[207001], Device D Available HBM size:T
	 * free size:F may be other processes occupying this card") */
	{ "Malloc device memory failed", MF_MINDSPORE, 0 },
	/* MXNet's pooled GPU storage after freeing its pool and trying again
	 * (src/storage/pooled_storage_manager.h@1.5.0 GPUPooledStorageManager::
	 * Alloc: LOG(FATAL) << "cudaMalloc retry failed: " <<
	 * cudaGetErrorString(e), glog's "[23:54:01] .../pooled_storage_manager.h:
	 * 161: cudaMalloc retry failed: out of memory" as MXNetError): the
	 * CUDA runtime's words, which the generic row read as unknown */
	{ "cudaMalloc retry failed: out of memory", MF_CUDA, 0 },
	/* V8's out-of-memory report as Node.js prints it (v8 src/api/api.cc
	 * Utils::ReportOOMFailure: "Allocation failed - JavaScript heap out of
	 * memory" for the heap, "... - process out of memory" otherwise; node
	 * src/node_errors.cc OnFatalError: "FATAL ERROR: <location> <message>";
	 * node's doc/api/cli.md quotes "FATAL ERROR: Ineffective mark-compacts
	 * near heap limit Allocation failed - JavaScript heap out of memory"):
	 * the JavaScript heap, in the host's memory, capped by
	 * --max-old-space-size. Read before as an unknown wording */
	{ "Allocation failed - JavaScript heap out of memory", MF_HOST, MFW_HOST },
	{ "Allocation failed - process out of memory", MF_HOST, MFW_HOST },
	/* Go's runtime giving up on the heap (runtime/malloc.go@go1.21:
	 * throw("out of memory") when the OS refuses the arena; runtime/
	 * panic.go prints a throw as "fatal error: " + s at the line's
	 * start), alone when the "runtime: out of memory: cannot allocate"
	 * line above it was cut: the process's memory, the host's */
	{ "fatal error: out of memory", MF_HOST, MFW_START },
	/* .NET's managed heap (dotnet/runtime src/libraries/System.Private.
	 * CoreLib/src/System/OutOfMemoryException.cs, the runtime's own
	 * throw; the Framework's "Exception of type 'System.OutOfMemory
	 * Exception' was thrown."): the process's memory, the host's */
	{ "System.OutOfMemoryException", MF_HOST, MFW_HOST },
	/* macOS's kernel killing a process when the compressor and swap are
	 * exhausted: no_paging_space_action (xnu bsd/kern/kern_proc.c at
	 * xnu-12377, kern_memorystatus.c before: "memorystatus: killing
	 * largest compressed process %s [%d] %llu MB", the MB being its
	 * compressed memory, not RSS) and the swap-exhaustion kill ("killing
	 * %s [%d] due to swap exhaustion", both in the kernel's string table
	 * of macOS 15-26 kernelcaches), as `log show` prints them (aedocw/
	 * epub2tts-chatterbox #19 under tests/data/incoming). Only these two:
	 * memorystatus's idle-band kills ("killing_idle_process") are the
	 * daemons a healthy Mac reclaims every day */
	{ "memorystatus: killing largest compressed process", MF_JETSAM, MFW_HOST },
	{ "due to swap exhaustion", MF_JETSAM, MFW_HOST },
	/* ---- end of readers19 ---- */
	/* the generic wordings: only in an error context */
	{ "out of memory", MF_UNKNOWN, NEED_ERR },
	{ "Out of memory", MF_UNKNOWN, NEED_ERR },
	{ "OUT OF MEMORY", MF_UNKNOWN, NEED_ERR },
	{ "OutOfMemory", MF_UNKNOWN, NEED_ERR },
	{ "OUT_OF_MEMORY", MF_UNKNOWN, NEED_ERR },
	{ "failed to allocate", MF_UNKNOWN, NEED_ERR },
	{ "Failed to allocate", MF_UNKNOWN, NEED_ERR },
	{ "nsufficient memory", MF_UNKNOWN, NEED_ERR },
	/* Ollama's own list of such wordings (llm/status.go, v0.12.0) */
	{ "not enough memory", MF_UNKNOWN, NEED_ERR },
	{ "Not enough memory", MF_UNKNOWN, NEED_ERR },
	{ "out of device memory", MF_UNKNOWN, NEED_ERR },
	{ "nsufficient Memory", MF_UNKNOWN, NEED_ERR },
	{ "OOM", MF_UNKNOWN, NEED_ERR | WORD },
};
const size_t memfail_words_n = ARRAY_N(memfail_words);
