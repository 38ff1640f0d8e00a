/*
 * mem_family.c -- the wording families' one table (mem_family.h). The
 * keys are parsers/serving/memfail_words.c's family names plus the two
 * TensorFlow/JAX names other readers write; tests/test_mem_family.c
 * checks that every family the recogniser can name has its row and that
 * the scope column agrees with memfail_scope.
 *
 * Sources of the facts: the monitors are the vendors' own tools (npu-smi
 * of Ascend's CANN, xpu-smi of Intel's XPU Manager, hl-smi of Habana's
 * SynapseAI, tt-smi of Tenstorrent); the graph words are the names the
 * frameworks give their captured graphs (torch.cuda.CUDAGraph, ROCm's
 * hipGraph under the same API, torch_npu's NPUGraph and SGLang's
 * "Capture npu graph", Habana's HPU Graphs: habana_frameworks.torch.hpu
 * .wrap_in_hpu_graph and vllm-hpu's "HPU graph" warm-up); the PyTorch
 * words are c10's per-backend messages ("XPU out of memory", "MPS
 * backend out of memory", torch_npu's "NPU out of memory").
 */
#include "lib/mem_family.h"

#include <string.h>

static const struct mem_family rows[] = {
	{ "cuda", NULL, NULL, NULL, NULL, "CUDA graphs", NULL, MEM_PLAT_CUDA },
	{ "torch", "PyTorch", NULL, NULL, NULL, "CUDA graphs", NULL, MEM_PLAT_CUDA },
	{ "cublas", "cuBLAS", NULL, NULL, NULL, "CUDA graphs", NULL, MEM_PLAT_CUDA },
	{ "cudnn", "cuDNN", NULL, NULL, NULL, "CUDA graphs", NULL, MEM_PLAT_CUDA },
	{ "nccl", "NCCL", NULL, NULL, NULL, "CUDA graphs", NULL, MEM_PLAT_CUDA },
	{ "vllm_warmup", "vLLM's warm-up", NULL, NULL, NULL, "CUDA graphs", NULL, MEM_PLAT_CUDA },
	{ "hip", "HIP (ROCm)", NULL, NULL, NULL, "HIP graphs", "HIP out of memory", MEM_PLAT_HIP },
	/* not only llama.cpp's: whisper.cpp, encodec.cpp, starcoder.cpp and
	 * rustformers vendor it too (set 15) */
	{ "ggml", "The ggml library (llama.cpp, whisper.cpp and others)", NULL, NULL,
	  NULL, NULL, NULL, MEM_PLAT_GGML },
	{ "metal", "Metal", "unified", NULL, NULL, NULL, NULL, MEM_PLAT_GGML },
	{ "mps", "PyTorch's MPS backend", "unified", NULL, NULL, NULL,
	  "MPS backend out of memory", MEM_PLAT_MPS },
	{ "mlx", "MLX (Metal)", "unified", NULL, NULL, NULL, NULL, MEM_PLAT_MLX },
	{ "nvmap", "Jetson's nvmap allocator (unified memory)", "unified", NULL, NULL, NULL, NULL,
	  MEM_PLAT_JETSON },
	/* transformers' bitsandbytes quantizers (quantizer_bnb_4bit.py
	 * validate_environment): accelerate's device map left modules off
	 * the CUDA card */
	{ "hf_device_map", "transformers' device map (bitsandbytes, accelerate)", NULL, NULL, NULL,
	  "CUDA graphs", NULL, MEM_PLAT_CUDA },
	{ "xla", "XLA", NULL, NULL, NULL, NULL, NULL, MEM_PLAT_XLA },
	{ "tensorflow", "TensorFlow", NULL, NULL, NULL, NULL, NULL, MEM_PLAT_CUDA },
	{ "jax", "JAX", NULL, NULL, NULL, NULL, NULL, MEM_PLAT_CUDA },
	{ "tf_bfc", "TensorFlow's BFC allocator", NULL, NULL, NULL, NULL, NULL, MEM_PLAT_CUDA },
	{ "trt", "TensorRT", NULL, NULL, NULL, NULL, NULL, MEM_PLAT_CUDA },
	{ "turbomind", "LMDeploy's TurboMind", NULL, NULL, NULL, NULL, NULL, MEM_PLAT_CUDA },
	{ "sglang_kv", "SGLang's KV-cache pool", NULL, NULL, NULL, NULL, NULL, MEM_PLAT_CUDA },
	{ "xpu", "PyTorch's XPU backend (Intel GPU)", "accelerator", "Intel XPU memory",
	  "`xpu-smi dump` of its memory used on the Intel GPU, and torch.xpu.memory_stats()",
	  NULL, "XPU out of memory", MEM_PLAT_ACCEL },
	{ "sycl", "SYCL", "accelerator", "SYCL device memory",
	  "`xpu-smi dump` of its memory used on the Intel GPU", NULL, NULL, MEM_PLAT_ACCEL },
	{ "npu", "An Ascend NPU (torch_npu)", "accelerator", "Ascend NPU memory",
	  "`npu-smi info` (its HBM usage) on the Ascend NPU, and torch.npu.memory_stats()",
	  "NPU graphs", "NPU out of memory", MEM_PLAT_ACCEL },
	{ "hpu", "Gaudi's PyTorch bridge (HPU)", "accelerator", "Gaudi HPU memory",
	  "`hl-smi` (its memory used) on the Gaudi, and torch.hpu.memory_stats()",
	  "HPU graphs", "HPU out of memory", MEM_PLAT_ACCEL },
	{ "tt_metal", "Tenstorrent's tt-metal", "accelerator", "Tenstorrent device memory",
	  "`tt-smi` on the Tenstorrent card", NULL, NULL, MEM_PLAT_ACCEL },
	{ "host", "A host allocation", "host", NULL, NULL, NULL, NULL, MEM_PLAT_CUDA },
	{ "ray", "Ray", "host", NULL, NULL, NULL, NULL, MEM_PLAT_CUDA },
	{ "onnxruntime", "ONNX Runtime", NULL, NULL, NULL, NULL, NULL, MEM_PLAT_CUDA },
	{ "ollama", "Ollama", NULL, NULL, NULL, NULL, NULL, MEM_PLAT_CUDA },
	{ "mlc", "MLC-LLM", NULL, NULL, NULL, NULL, NULL, MEM_PLAT_CUDA },
	{ "exllamav2", "exllamav2's load", NULL, NULL, NULL, NULL, NULL, MEM_PLAT_CUDA },
	{ "flashinfer", "FlashInfer's workspace buffer", NULL, NULL, NULL, NULL, NULL,
	  MEM_PLAT_CUDA },
	{ "opencl", "OpenCL", NULL, NULL, NULL, NULL, NULL, MEM_PLAT_CUDA },
	{ "vllm_state", "vLLM's Mamba state cache", NULL, NULL, NULL, NULL, NULL, MEM_PLAT_CUDA },
	{ "kvcached", "kvcached's KV pool", NULL, NULL, NULL, NULL, NULL, MEM_PLAT_CUDA },
	{ "vulkan", "A Vulkan allocation (Dawn/WebGPU, TVM)", NULL, NULL, NULL, NULL, NULL,
	  MEM_PLAT_CUDA },
	/* OpenVINO's GPU plugin budgets the host's RAM (plus a discrete
	 * card's own memory) as one pool (runtime/engine.cpp
	 * get_max_memory_size): an integrated Intel GPU's memory is the
	 * machine's RAM */
	{ "openvino", "OpenVINO's GPU plugin (Intel GPU)", "unified", NULL,
	  "`intel_gpu_top` or `xpu-smi dump` on the Intel GPU with the host's `free -m`, and"
	  " OpenVINO's ov::intel_gpu::memory_statistics of the compiled model",
	  NULL, NULL, MEM_PLAT_ACCEL },
	/* DyNet's and cnn's preallocated pools (memfail_words.c, set 15):
	 * host or GPU memory as the build runs, so no scope of its own */
	{ "pool", "A framework's preallocated memory pool (DyNet, cnn)", NULL,
	  "its memory (the pool is sized at start-up by --dynet-mem or --cnn-mem, in host"
	  " memory or on a GPU as the build runs; the message does not say which)",
	  NULL, NULL, NULL, MEM_PLAT_CUDA },
	/* readers19: torch-directml (PyTorch on DirectX 12, Windows): any
	 * vendor's card, so no CUDA platform of its own; Windows shows the
	 * card's memory in Task Manager (Performance, "Dedicated GPU
	 * memory"), where no nvidia-smi or rocm-smi may run */
	{ "directml", "torch-directml (DirectML on DirectX 12)", NULL,
	  "the card's dedicated video memory (DirectML)", NULL, NULL, NULL, MEM_PLAT_CUDA },
	/* readers19: MindSpore's device memory pool (runtime actors'
	 * "memory isn't enough and alloc failed", the dynamic allocator's
	 * "is more than total mem size"): an Ascend NPU mostly, a GPU where
	 * the graph ran on one */
	{ "mindspore", "MindSpore's device memory pool", "accelerator",
	  "the device's memory (MindSpore's pool; an Ascend NPU's HBM mostly)",
	  "`npu-smi info` (its HBM usage) on the Ascend NPU, or the card's own monitor",
	  NULL, NULL, MEM_PLAT_ACCEL },
	/* readers19: macOS's memorystatus (xnu's jetsam) killing a process
	 * when the machine's memory and swap ran out: the host's memory,
	 * which on Apple silicon the GPU shares */
	{ "jetsam", "macOS's memory pressure killer (jetsam)", "host", NULL, NULL, NULL, NULL,
	  MEM_PLAT_CUDA },
	{ "unknown", "An allocation", NULL, NULL, NULL, NULL, NULL, MEM_PLAT_CUDA },
};

const struct mem_family *mem_family_find(const char *key)
{
	size_t i;

	if (!key || !*key)
		return NULL;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (!strcmp(key, rows[i].key))
			return &rows[i];
	return NULL;
}

const struct mem_family *mem_family_rows(unsigned *n)
{
	*n = (unsigned)(sizeof(rows) / sizeof(rows[0]));
	return rows;
}
