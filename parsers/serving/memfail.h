/*
 * memfail.h -- the generic memory-failure recogniser: does one log line
 * report that an allocation failed, on a GPU or the host, whatever the
 * stack that printed it?
 *
 * The specific readers (PyTorch's OOM message, the engines' own errors)
 * know their wordings field by field; the world keeps writing new ones
 * (ggml's "cudaMalloc failed: out of memory", MPS, XLA's
 * RESOURCE_EXHAUSTED, HIP, cuDNN, Metal, TurboMind...). memfail_line()
 * reads one line with its wrappers taken off or not and says which
 * wording family it matched, the phrase, and what it states: bytes
 * requested, the device, the totals. A wording no family knows, in an
 * error context ("out of memory" or "failed to allocate" next to an
 * error, exception, fatal or abort marker), is kept as family
 * "unknown", never dropped. Advice, help and configuration text, the
 * kernel's own OOM-killer lines (the kernel reader's), oom_score_adj,
 * TensorFlow's "not a failure" warning and SGLang's profiled value are
 * not failures.
 *
 * It also says, from the function names and phrases in a failure's own
 * text (a traceback's frames, llama.cpp's function prefixes), in which
 * phase of the program's life it happened: memfail_phase_hint(). The
 * phase names are lib/engine_vocab.h's.
 *
 * Bounded work: a line is looked at only up to MEMFAIL_SCAN bytes, each
 * table phrase found with one memmem; no allocation.
 */
#ifndef OOMLENS_MEMFAIL_H
#define OOMLENS_MEMFAIL_H

#include <stddef.h>
#include <stdint.h>

#include "lib/engine_vocab.h"
#include "lib/vocab.h"

#define MEMFAIL_SCAN 4096

enum memfail_family {
	MF_NONE = 0,
	MF_CUDA,          /* CUDA runtime/driver: cudaMalloc, CUDA error: out of memory */
	MF_HIP,           /* ROCm: hipMalloc, hipError_t(1002), HIP out of memory */
	MF_GGML,          /* ggml's buffer allocation (llama.cpp, Ollama) */
	MF_METAL,         /* Apple Metal command buffer out of memory */
	MF_MPS,           /* PyTorch's MPS backend */
	MF_XLA,           /* XLA / JAX RESOURCE_EXHAUSTED */
	MF_CUBLAS,
	MF_CUDNN,
	MF_NCCL,
	MF_TRT,           /* TensorRT / TensorRT-LLM */
	MF_TF_BFC,        /* TensorFlow's BFC allocator (a real OOM) */
	MF_TURBOMIND,     /* LMDeploy TurboMind */
	MF_SGLANG_KV,     /* SGLang's KV-pool leak check */
	MF_VLLM_WARMUP,   /* vLLM V1: OOM while warming up the sampler */
	MF_TORCH,         /* PyTorch's own "CUDA out of memory. Tried to allocate" */
	MF_XPU,           /* PyTorch's XPU allocator (Intel GPUs) */
	MF_HOST,          /* the host's allocators: PyTorch's CPU one, numpy, std::bad_alloc */
	MF_ORT,           /* onnxruntime's BFC arena */
	MF_RAY,           /* Ray's memory monitor killing a task */
	MF_OLLAMA,        /* Ollama's own scheduler and runner */
	MF_NPU,           /* torch_npu's caching allocator (Ascend) */
	MF_MLX,           /* Apple MLX's Metal allocator */
	MF_SYCL,          /* SYCL / Level Zero (Intel GPUs) */
	MF_MLC,           /* MLC-LLM's start-up memory estimate (TVM runtime) */
	MF_TT,            /* Tenstorrent tt-metal's bank allocator (DRAM, L1) */
	MF_HPU,           /* Intel Gaudi's PyTorch bridge (HPU device memory) */
	MF_EXL2,          /* exllamav2's auto-split load (weights and cache) */
	MF_FLASHINFER,    /* FlashInfer's fixed workspace buffer exhausted */
	MF_OPENCL,        /* OpenCL's CL_MEM_OBJECT_ALLOCATION_FAILURE (set 11, w-spent11b) */
	MF_VLLM_STATE,    /* vLLM: max_num_seqs above the Mamba state cache's blocks (set 13, w-spend13c) */
	MF_KVCACHED,      /* kvcached's elastic KV pool short of blocks; a failure only
			   * where an error follows (server_memfail.c; set 13, w-spend13c) */
	MF_NVMAP,         /* Jetson's nvmap allocator (Tegra's unified memory) refusing with ENOMEM */
	MF_VULKAN,        /* Vulkan's VK_ERROR_OUT_OF_DEVICE_MEMORY outside ggml: Dawn
			   * (WebGPU: WebLLM in a browser), TVM's Vulkan runtime */
	MF_OPENVINO,      /* OpenVINO's GPU plugin refusing past its memory budget (family15) */
	MF_POOL,          /* a framework's own memory pool, sized once by a flag and
			   * exhausted (DyNet's --dynet-mem, cnn's --cnn-mem; set 15,
			   * w-spend15b) */
	MF_HF_DISPATCH,   /* transformers' bitsandbytes quantizer refusing a device map
			   * that put modules on the CPU or disk: the card could not
			   * hold the quantized model (readers18) */
	MF_DIRECTML,      /* torch-directml's allocator on a DirectX 12 card (AMD, Intel,
			   * NVIDIA under Windows): "There is not enough GPU video memory
			   * available!" (readers19) */
	MF_MINDSPORE,     /* MindSpore's runtime refusing a device tensor from its
			   * memory pool (Ascend, GPU): "memory isn't enough and alloc
			   * failed" (readers19) */
	MF_JETSAM,        /* macOS's memorystatus (jetsam) killing a process when
			   * memory and swap ran out (readers19) */
	MF_UNKNOWN,       /* an unknown wording in an error context */
	MF__COUNT
};

/* What one failing line states. Figures not stated are -1. */
struct memfail {
	enum memfail_family family;
	const char *wording;       /* the phrase matched (static text) */
	int64_t requested_bytes;
	int64_t total_bytes;
	int64_t free_bytes;
	int device;                /* GPU index, or -1 */
	int host;                  /* 1: the buffer was host memory (ggml's CPU
				    * buffer type, its aligned malloc), no GPU's */
	enum vocab_scope scope;    /* which memory ran out: memfail_scope() of the
				    * family and the line's own words (lib/vocab.h) */
	enum oom_phase phase;      /* memfail_phase_hint() of the line itself */
	int phase_inside;          /* 1: phase was named by a PM_INSIDE frame row
				    * (a step several start-up stages run:
				    * phase_table.h), which a later start-up
				    * stage named by the log's lines overrides */
};

/* 1 when line[0..n) reports a memory or allocation failure, with *out
 * filled; else 0 (and *out is family MF_NONE). */
int memfail_line(const char *line, size_t n, struct memfail *out);

/* Which memory a failure of family f ran out of, the line l[0..n) that
 * reported it (or continues it) read for the words that say which:
 * host for the host's allocators (and f->host), unified for Apple's
 * MPS, Metal and MLX (and ggml's Metal buffers), tpu for XLA's TPU
 * wordings or an XLA line naming HBM or a TPU, gpu for an XLA line naming
 * a GPU or CUDA and for the GPU stacks, accelerator for Intel's XPU and
 * SYCL, Ascend's NPU, Gaudi's HPU and Tenstorrent. An XLA failure whose
 * words name no device keeps cur (gpu at first: XLA's GPU client's BFC
 * wording is the common one). */
enum vocab_scope memfail_scope(enum memfail_family f, int host, const char *l, size_t n,
			       enum vocab_scope cur);

/* 1 when line[0..n) only continues a failure already reported on the
 * line before (llama.cpp's "failed to allocate CUDA0 buffer of size N"
 * after its cudaMalloc line, Metal's "command buffer N failed with
 * status 5", CUDA's "current device: N"); fills what it adds into *f
 * (figures not yet known, the family made more precise, the phase). */
int memfail_continues(const char *line, size_t n, struct memfail *f);

/* The phase of MLC-LLM's start-up memory check l[0..n) by its own
 * figures: OOM_PHASE_LOAD_WEIGHTS when the model's weights alone are at
 * least the budget it states, else ph (the table's kv_alloc)
 * unchanged; ph as well when the line holds neither figure
 * (memfail_mlc.c). */
enum oom_phase memfail_mlc_phase(const char *l, size_t n, enum oom_phase ph);

/* 1 when phrase p opens a tqdm bar in l[0..n): p, a number, any rest of
 * the bar's description, then ": ", blanks, the percentage and "%|" (a
 * PM_TQDM phase row counts only there); 0 otherwise (memfail_bar.c). */
int memfail_opens_bar(const char *l, size_t n, const char *p);

/* 1 when l[0..n) is an epoch's header line that phrase p opens: after
 * blanks, p, the epoch's number, '/', the number of epochs, and nothing
 * else but blanks (Keras's ProgbarLogger, "Epoch 3/10"); 0 otherwise
 * (memfail_bar.c). */
int memfail_epoch_header(const char *l, size_t n, const char *p);

/* The phase a failure's text names (its traceback's function names,
 * llama.cpp's function prefixes, the engine's own phrase: the rows of
 * phase_table.c), or OOM_PHASE_UNKNOWN. The innermost engine frame wins
 * (the one printed last; of a chain of exceptions, in the first
 * traceback that names one): a sampler warm-up run inside the profile
 * run is a warm-up. A framework's frame (transformers' from_pretrained,
 * a Trainer's or Lightning's loop, Keras's fit: PM_FRAMEWORK) decides only
 * when no engine frame does, a generic library frame (a backward, an
 * optimizer's step) only when neither does (DeepSpeed's set-up runs
 * optimizer.step() once), and a frame that says only that the program
 * was starting (OOM_PHASE_STARTUP) only when nothing names a stage. A
 * traceback printed newest first (its "most recent call last" header
 * below its frames) is read the other way. */
enum oom_phase memfail_phase_hint(const char *text, size_t n);
/* The same, with *rank 0 when an engine's frame decided, 1 a
 * framework's, 2 a generic one, 3 one of start-up alone, 4
 * (MEMFAIL_RANK_WORDS) the names of the program's own frames alone
 * (frame_words.h), 5 (MEMFAIL_RANK_NONE) none: read line by line, a
 * later line (an inner frame) wins when its rank is not worse. */
#define MEMFAIL_RANK_WORDS 4
#define MEMFAIL_RANK_NONE 5
enum oom_phase memfail_phase_hint_ranked(const char *text, size_t n, int *rank);

/* The phase of a failure that holds held when another source names
 * named: named when held is unknown, or is start-up alone
 * (OOM_PHASE_STARTUP) and named is anything; else held. */
enum oom_phase memfail_phase_pick(enum oom_phase held, enum oom_phase named);

/* The training stack (lib/vocab.h's enum vocab_stack) a frame or line
 * in text[0..n) names (DeepSpeed's, transformers' Trainer's or
 * accelerate's, Lightning's, JAX's, Keras's files and functions), with
 * *rank its precedence (lower wins: DeepSpeed under the Trainer is
 * DeepSpeed's); -1 when it names none; MEMFAIL_STACK_INFERENCE when it
 * names DeepSpeed's inference engine (init_inference, its injected
 * kernels), which trains nothing. */
#define MEMFAIL_STACK_INFERENCE (-2)
int memfail_stack_hint(const char *text, size_t n, int *rank);

/* Each phrase memfail_stack_hint() looks for, as fn(phrase,
 * MEMFAIL_MARK_PHASE, arg): for memfail_each_phrase()'s prefilter. */
void memfail_stack_each_phrase(void (*fn)(const char *phrase, unsigned mark, void *arg), void *arg);

/* The phase a line of the log before a failure says the program is in
 * ("Loading weights", "KV Cache is allocated", a capture beginning, a
 * request served...), or OOM_PHASE_UNKNOWN when it says none. */
enum oom_phase memfail_phase_line(const char *line, size_t n);

/* memfail_phase_line(), and in *flags the flags of the line's row
 * (phase_table.h: PM_RUNS, the program runs a request's work but no
 * request is known served; PM_RESTART, a new engine process for a load),
 * 0 when the line names no phase. flags must not be NULL. */
enum oom_phase memfail_phase_line_flags(const char *line, size_t n, unsigned *flags);

/* memfail_phase_line_flags(), and in *app the program the line's row
 * was read from (phase_table.h's engine: "whisper.cpp", "llama.cpp",
 * "ollama"...; static text), NULL when the line names no phase. flags
 * and app must not be NULL. */
enum oom_phase memfail_phase_line_app(const char *line, size_t n, unsigned *flags,
				      const char **app);

/* The stage a line printed after a failure says failed (phase_table.c's
 * PM_AFTER rows: a handler's "Stable diffusion model failed to load"),
 * or OOM_PHASE_UNKNOWN when it names none. */
enum oom_phase memfail_phase_after(const char *line, size_t n);

/* Each phrase the recogniser starts from, for a prefilter: fn(phrase,
 * mark) with mark one of engine_lines.h's MEMFAIL_MARK_* (failure
 * wordings, continuations, phase lines). Phrases under 6 bytes are not
 * given (the generic "OOM": a line with only it is not prefiltered). */
void memfail_each_phrase(void (*fn)(const char *phrase, unsigned mark, void *arg), void *arg);

/* 0 when every phrase of every table found its place in the phrase set
 * and every row of phase_table.c is complete (at least 6 bytes, engine,
 * versions and source given); -1 when not (a programmer's error the
 * tests catch). */
int memfail_self_check(void);

/* "cuda", "hip", "ggml", ... "unknown" (the event data's "family"). */
const char *memfail_family_name(enum memfail_family f);

#endif
