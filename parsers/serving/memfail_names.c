/*
 * memfail_names.c -- the names around a memory failure's wording: the
 * backend a generic failure line names as a word, each family's name as
 * the oom table, JSON and report print it, the error and advice markers
 * that decide a generic wording, and the stacks whose names give a
 * wording its family; see memfail_words.h.
 *
 * Split from memfail_words.c (which keeps the wordings themselves) when
 * that file neared its size cap; the markers and stacks moved here in
 * readers19 for the same reason.
 */
#include "parsers/serving/memfail_words.h"

#define ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))

/* A backend named as a word on a failure line whose wording is generic:
 * an engine's own message that names the backend it allocates through,
 * as antirez/ds4 at 8d57664 prints them (ds4_cuda.cu cuda_q8_f16_ptr and
 * its ROCm build; the real pastes of antirez/ds4 #78 and #410 under
 * tests/data/real/any_stack/a-ds4-*: "ds4: ROCm tensor alloc failed: out
 * of memory", "ds4: CUDA q8 fp16 cache alloc failed (64.00 MiB): out of
 * memory"). Case as the vendors write them; ROCm and HIP
 * before CUDA, which a ROCm build's messages may also name. Vulkan has
 * no family of its own (ggml's Vulkan wordings are ggml's): not here. */
const struct memfail_backend memfail_backends[] = {
	{ "ROCm", MF_HIP }, { "HIP", MF_HIP }, { "CUDA", MF_CUDA },
	{ "Metal", MF_METAL }, { "SYCL", MF_SYCL },
};
const size_t memfail_backends_n = ARRAY_N(memfail_backends);

static const char *const family_names[MF__COUNT] = {
	[MF_NONE] = "none", [MF_CUDA] = "cuda", [MF_HIP] = "hip", [MF_GGML] = "ggml",
	[MF_METAL] = "metal", [MF_MPS] = "mps", [MF_XLA] = "xla", [MF_CUBLAS] = "cublas",
	[MF_CUDNN] = "cudnn", [MF_NCCL] = "nccl", [MF_TRT] = "trt", [MF_TF_BFC] = "tf_bfc",
	[MF_TURBOMIND] = "turbomind", [MF_SGLANG_KV] = "sglang_kv",
	[MF_VLLM_WARMUP] = "vllm_warmup", [MF_TORCH] = "torch", [MF_XPU] = "xpu",
	[MF_HOST] = "host", [MF_ORT] = "onnxruntime", [MF_RAY] = "ray", [MF_OLLAMA] = "ollama",
	[MF_NPU] = "npu", [MF_MLX] = "mlx", [MF_SYCL] = "sycl", [MF_MLC] = "mlc",
	[MF_TT] = "tt_metal", [MF_HPU] = "hpu", [MF_EXL2] = "exllamav2",
	[MF_FLASHINFER] = "flashinfer", [MF_POOL] = "pool",
	[MF_OPENCL] = "opencl", [MF_VLLM_STATE] = "vllm_state",
	[MF_KVCACHED] = "kvcached", [MF_NVMAP] = "nvmap",
	[MF_VULKAN] = "vulkan", [MF_OPENVINO] = "openvino",
	[MF_HF_DISPATCH] = "hf_device_map",
	[MF_DIRECTML] = "directml", [MF_MINDSPORE] = "mindspore", [MF_JETSAM] = "jetsam",
	[MF_UNKNOWN] = "unknown",
};

const char *memfail_family_name(enum memfail_family f)
{
	return (unsigned)f < MF__COUNT && family_names[f] ? family_names[f] : "unknown";
}

/* What makes a generic wording an error, and what makes it advice
 * ("default" only as a help text says it: TensorRT's defaultAllocator
 * is no advice). */
const char *const memfail_error_markers[] = {
	"error", "Error", "ERROR", "xception", "EXCEPTION", "fatal", "Fatal", "FATAL",
	"abort", "Abort", "ABORT", "panic", "failed", "Failed", "FAILED", "CRITICAL",
	/* an uncaught C++ exception's message: libstdc++'s verbose terminate
	 * handler (libsupc++/vterminate.cc, gcc-9..14) prints "terminate called
	 * after throwing an instance of 'T'" and then "  what():  <message>"
	 * on a line of its own (dorado correct@v0.7.3 throwing
	 * "Insufficient memory to run inference on cuda:0") */
	"what():",
};
const size_t memfail_error_markers_n = ARRAY_N(memfail_error_markers);
const char *const memfail_advice_words[] = {
	"to avoid", "To avoid", "avoid ", "If you", "if you", "consider", "Consider", "may cause",
	"can cause", "might ", "--help", "default ", "default:", "default=", "(default", "Default",
	"prevent", "reduce the chance",
};
const size_t memfail_advice_words_n = ARRAY_N(memfail_advice_words);

const char *const memfail_stacks[MFS__COUNT] = {
	[MFS_GGML] = "ggml_", [MFS_TM] = "[TM]", [MFS_TRT] = "[TensorRT-LLM]", [MFS_NCCL] = "NCCL",
	[MFS_BUFFER_OF_SIZE] = "buffer of size ", [MFS_LLAMA] = "llama_", [MFS_TRT_TAG] = "[TRT]",
	[MFS_ORT] = "onnxruntime",
	/* ggml's host buffers: its CPU buffer type and aligned malloc
	 * (ggml-backend.c, ggml.c) and the graph allocator's "failed to
	 * allocate CPU buffer" fail in RAM, not on a card (llama.cpp #8101) */
	[MFS_HOST_CPU] = "ggml_backend_cpu_buffer_type", [MFS_HOST_ALIGNED] = "ggml_aligned_malloc",
	[MFS_HOST_GALLOC] = "allocate CPU buffer",
	/* set 4, spent round 4: ggml's CUDA source file named in its own
	 * check's message, "CUDA error 2 at .../ggml-cuda.cu:7358: out of
	 * memory" (CUDA_CHECK, ggml-cuda.cu@b1500, vendored by Ollama 0.1.x
	 * under llm/llama.cpp/gguf/; later ggml/src/ggml-cuda/): the
	 * failure is ggml's, as "ggml_" in a function's name says */
	[MFS_GGML_SRC] = "ggml-cuda",
	/* readers19: ONNX Runtime's DirectML provider, whose D3D12 allocator
	 * (core/providers/dml/DmlExecutionProvider/src/
	 * BucketizedBufferAllocator.cpp, as 2022 builds print it) throws the HRESULT
	 * E_OUTOFMEMORY with Windows' text, "8007000E Not enough memory
	 * resources are available to complete this operation." after the
	 * provider's source path (huggingface/diffusers #552, #791): the
	 * generic wording under DirectML's name is the card's */
	[MFS_DML] = "DmlExecutionProvider",
};

enum memfail_family memfail_stack_family(enum memfail_family f, const int has[MFS__COUNT])
{
	if ((f == MF_CUDA || f == MF_HIP) && (has[MFS_GGML] || has[MFS_GGML_SRC]))
		return MF_GGML;
	if (f == MF_VULKAN && (has[MFS_GGML] || has[MFS_LLAMA]))
		return MF_GGML;
	if (f == MF_CUDA && has[MFS_TM])
		return MF_TURBOMIND;
	if (f != MF_UNKNOWN)
		return f;
	/* an unknown wording under a stack's own name is that stack's:
	 * ggml's "failed to allocate Vulkan0 buffer", "failed to allocate
	 * buffer of size N", llama.cpp's "failed to allocate compute
	 * buffers" */
	if (has[MFS_TRT] || has[MFS_TRT_TAG])
		return MF_TRT;
	if (has[MFS_NCCL])
		return MF_NCCL;
	if (has[MFS_GGML] || has[MFS_LLAMA] || has[MFS_GGML_SRC])
		return MF_GGML;
	if (has[MFS_DML])
		return MF_DIRECTML;
	if (has[MFS_ORT])
		return MF_ORT;
	return f;
}
