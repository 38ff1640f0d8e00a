/*
 * mem_family.h -- one table of the memory-failure wording families
 * (oom.family, parsers/serving/memfail_words.c's names): for each, what
 * its users call it, which memory it runs out of, the monitor that
 * watches that memory, whose graphs a start-up capture records, the
 * words PyTorch's backend prints for it and the platform whose tools
 * settle it. The reports (answer_what.c, summary.c) and the rules
 * (settle.c) read a family's facts from here only, so a new family is
 * one row. Below the parsers and the analyzer: static text, no state.
 */
#ifndef OOMLENS_MEM_FAMILY_H
#define OOMLENS_MEM_FAMILY_H

/* The platform an OOM happened on, which decides the tools that watch it
 * (analyzer/rules/rulelib.h enum rl_platform takes these values). */
enum mem_platform {
	MEM_PLAT_CUDA,   /* an NVIDIA card, or not known: nvidia-smi, CUDA snapshots */
	MEM_PLAT_HIP,    /* an AMD card (HIP/ROCm): rocm-smi, amd-smi */
	MEM_PLAT_MPS,    /* a Mac (PyTorch's MPS backend) */
	MEM_PLAT_XLA,    /* XLA (JAX, TensorFlow, torch_xla; TPU or GPU) */
	MEM_PLAT_GGML,   /* llama.cpp or Ollama (ggml: CUDA, HIP, Metal, Vulkan) */
	MEM_PLAT_MLX,    /* a Mac under MLX (its Metal allocator) */
	MEM_PLAT_ACCEL,  /* another accelerator (oom.scope accelerator): Intel XPU,
			  * Ascend NPU, Gaudi HPU, Tenstorrent; their own tools */
	MEM_PLAT_JETSON, /* a Jetson (Tegra): CPU and GPU share its RAM; tegrastats */
};

/* One wording family. Every pointer is static text; NULL where the
 * family has no such fact and the caller's default applies. */
struct mem_family {
	const char *key;     /* oom.family ("cuda", "npu", ...) */
	const char *name;    /* the answer's subject ("HIP (ROCm)"); NULL: the key */
	const char *scope;   /* lib/vocab.h scope the family fixes (memfail_scope):
			      * "gpu" is not fixed (any default), NULL: by the line's words */
	const char *memory;  /* the memory that ran out, for an accelerator
			      * ("Ascend NPU memory"); NULL: by scope */
	const char *monitor; /* the device's own monitor and memory_stats() call,
			      * asked for when no memory series was kept */
	const char *graphs;  /* whose graphs a start-up capture records ("CUDA
			      * graphs"); NULL: plain "graphs" */
	const char *torch_words; /* PyTorch's OOM message for that backend
				  * ("NPU out of memory"); NULL: none */
	enum mem_platform platform;
};

/* The row of family key, or NULL for NULL, "" or a key no row has. */
const struct mem_family *mem_family_find(const char *key);

/* The table and its row count, for the tests and the docs. */
const struct mem_family *mem_family_rows(unsigned *n);

#endif
