/*
 * build_tools.h -- the processes of a build step, by the name the kernel
 * prints for a task (its comm, at most 15 bytes): compilers, their front
 * and back ends, assemblers and linkers of the toolchains a serving engine
 * or a training job runs at start-up (a JIT's kernels: torch
 * cpp_extension, FlashInfer, Triton) or an install builds from source
 * (flash-attn, xformers, vLLM). A kernel OOM kill whose victim is one of
 * them was a build that did not fit the host's memory, whatever process
 * started it: its knob is the build's parallelism, never a GPU's.
 */
#ifndef OOMLENS_BUILD_TOOLS_H
#define OOMLENS_BUILD_TOOLS_H

/* The toolchain comm names (a task's command as the kernel prints it)
 * and where each was learnt. */
struct build_tool {
	const char *comm;           /* exact comm, or a prefix ending in '-' */
	const char *toolchain;      /* "CUDA (nvcc)", "GCC", "LLVM", ... */
	const char *source;         /* where the name was learnt (file@tag) */
};

/* The row of build_tools whose comm names comm (exact; a row ending in
 * '-' is a prefix: "clang-" for clang-17), or NULL when comm is no build
 * tool (NULL or empty comm included). */
const struct build_tool *build_tool_of(const char *comm);

/* 1 when the toolchain of t is CUDA's (nvcc's trajectory, Triton's
 * ptxas): the JIT compiles of GPU kernels, whose parallelism MAX_JOBS
 * and NVCC_THREADS set. */
int build_tool_cuda(const struct build_tool *t);

#endif
