/*
 * memfail_not.c -- the phrases that make a line no memory failure,
 * whatever wording of memfail_words.c it also holds: the kernel's
 * OOM-killer lines (the kernel reader's), settings, warnings that say
 * they are not a failure, allocations that fall back and go on, probes
 * that size a batch from free memory; see memfail_words.h.
 *
 * Split from memfail_words.c when that file reached its size cap (round
 * 18): the wordings stay there, in the order they win; this table has
 * no order. Each phrase is learnt from the source that prints it (named
 * beside it) and checked on tests/data/real/healthy.
 */
#include "parsers/serving/memfail_words.h"

#define ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))

/* Never a failure, whatever else the line says: the kernel's OOM-killer
 * lines (the kernel reader's), settings, warnings that say they are not
 * a failure, a size the engine merely clamps, allocations that fall
 * back and go on. */
const char *const memfail_not_failures[] = {
	"not a failure", "oom_score_adj", "oom_kill_disable", "invoked oom-killer",
	"Out of memory: Kill", "Memory cgroup out of memory", "is larger than the profiled value",
	"out of memory errors.", "CUDA OOMs:",
	/* ggml_backend_sched_alloc_splits re-reserving a graph whose backends
	 * changed: a debug notice, the reservation follows (llama.cpp #11176) */
	"failed to allocate graph, reserving",
	/* ggml-cuda.cu ggml_cuda_host_malloc (ollama v0.5.0, v0.12.0 vendored
	 * ggml): pinned host memory refused, ggml goes on with pageable
	 * memory; llama-model-loader.cpp (v0.12.0): a debug notice, the
	 * upload goes on synchronously */
	"of pinned memory", "host buffer for async uploads",
	/* llama.cpp's mlock of the weights (llama-mmap.cpp, v0.12.0
	 * vendored): "warning: failed to mlock N-byte buffer ...: Cannot
	 * allocate memory", RLIMIT_MEMLOCK advice follows, loading goes on */
	"failed to mlock",
	/* Triton's pinned memory manager (core src/pinned_memory_manager.cc):
	 * pinned host memory refused, the request goes on in pageable memory
	 * ("failed to allocate pinned system memory, falling back to
	 * non-pinned system memory"; "unable to create backend memory for
	 * type: CPU_PINNED ... all allocation types failed:" then each type's
	 * reason on its own line), any allocation "falling back to" another */
	"pinned system memory", "unable to create backend memory for type: CPU_PINNED",
	"falling back to",
	/* TensorRT's builder (tactic selection): a tactic that needs more
	 * than is free is skipped, the build goes on */
	"Skipping tactic",
	/* a batch-size probe that could not size the batch from free memory
	 * and goes on with a fixed one: dorado 0.3.x "[warning] Auto batchsize
	 * detection failed. Insufficient memory, required 8GB, available
	 * 7.8GB" (nanoporetech/dorado #211: below 8 GB it uses batch 128) */
	"size detection failed",
};
const size_t memfail_not_failures_n = ARRAY_N(memfail_not_failures);
