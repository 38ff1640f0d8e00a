/*
 * build_tools.c -- the table of build-step process names (build_tools.h),
 * each row learnt from its toolchain's documentation or source. The
 * kernel prints a task's comm truncated to 15 bytes (TASK_COMM_LEN 16,
 * include/linux/sched.h): every name here fits, a prefix row covers the
 * versioned names (clang-17, ld.lld).
 */
#include "lib/build_tools.h"

#include <string.h>

static const struct build_tool tools[] = {
	/* nvcc's compilation trajectory: the EDG front end cudafe++, the NVVM
	 * compiler cicc (PTX), ptxas (SASS), fatbinary, nvlink for device
	 * linking (CUDA Compiler Driver NVCC, "The CUDA Compilation
	 * Trajectory", cuda-compiler-driver-nvcc@12.x); vLLM's FlashInfer JIT
	 * runs them through ninja (flashinfer/jit/cpp_ext.py run_ninja, whose
	 * jobs are torch's _get_num_workers: MAX_JOBS) */
	{ "nvcc", "CUDA (nvcc)", "cuda-compiler-driver-nvcc@12.x" },
	{ "cicc", "CUDA (nvcc)", "cuda-compiler-driver-nvcc@12.x (compilation trajectory)" },
	{ "ptxas", "CUDA (nvcc)", "cuda-compiler-driver-nvcc@12.x; triton"
	  " python/triton/backends/nvidia/compiler.py@v3.1.0 make_cubin" },
	{ "cudafe++", "CUDA (nvcc)", "cuda-compiler-driver-nvcc@12.x (compilation trajectory)" },
	{ "fatbinary", "CUDA (nvcc)", "cuda-compiler-driver-nvcc@12.x (compilation trajectory)" },
	{ "nvlink", "CUDA (nvcc)", "cuda-compiler-driver-nvcc@12.x (device linking)" },
	/* GCC's driver runs cc1/cc1plus, as and collect2 (ld); lto1 and
	 * lto-wrapper at link time (gcc/doc/invoke.texi@releases/gcc-13, -v
	 * and -flto) */
	{ "cc1plus", "GCC", "gcc/doc/invoke.texi@releases/gcc-13 (-v)" },
	{ "cc1", "GCC", "gcc/doc/invoke.texi@releases/gcc-13 (-v)" },
	{ "lto1", "GCC", "gcc/doc/invoke.texi@releases/gcc-13 (-flto)" },
	{ "lto-wrapper", "GCC", "gcc/doc/invoke.texi@releases/gcc-13 (-flto)" },
	{ "collect2", "GCC", "gcc/doc/invoke.texi@releases/gcc-13 (-v)" },
	{ "g++", "GCC", "gcc/doc/invoke.texi@releases/gcc-13" },
	{ "gcc", "GCC", "gcc/doc/invoke.texi@releases/gcc-13" },
	{ "c++", "GCC", "gcc/doc/invoke.texi@releases/gcc-13" },
	{ "as", "binutils", "binutils gas/doc/as.texi@binutils-2_41" },
	{ "ld", "binutils", "binutils ld/ld.texi@binutils-2_41" },
	{ "ld.bfd", "binutils", "binutils ld/ld.texi@binutils-2_41" },
	{ "ld.gold", "binutils", "binutils gold/README@binutils-2_41" },
	/* LLVM: the clang driver runs itself as the compiler (clang -cc1),
	 * installed as clang-<major>; lld as ld.lld (clang/docs/
	 * ClangCommandLineReference.rst, lld/docs/index.rst@llvmorg-17.0.1);
	 * ROCm's hipcc drives the same clang */
	{ "clang", "LLVM", "clang/docs/UsersManual.rst@llvmorg-17.0.1" },
	{ "clang++", "LLVM", "clang/docs/UsersManual.rst@llvmorg-17.0.1" },
	{ "clang-", "LLVM", "clang/docs/UsersManual.rst@llvmorg-17.0.1 (clang-<major>)" },
	{ "ld.lld", "LLVM", "lld/docs/index.rst@llvmorg-17.0.1" },
	{ "lld", "LLVM", "lld/docs/index.rst@llvmorg-17.0.1" },
	/* the build drivers that run them in parallel: torch's cpp_extension
	 * builds with ninja -j MAX_JOBS (torch/utils/cpp_extension.py@v2.5.0
	 * _get_num_workers, _run_ninja_build) */
	{ "ninja", "build driver", "torch/utils/cpp_extension.py@v2.5.0 _run_ninja_build" },
	{ "make", "build driver", "GNU make doc/make.texi@4.4 (-j)" },
};

const struct build_tool *build_tool_of(const char *comm)
{
	size_t i, n;

	if (!comm || !comm[0])
		return NULL;
	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		n = strlen(tools[i].comm);
		if (tools[i].comm[n - 1] == '-' ? !strncmp(comm, tools[i].comm, n) && comm[n] :
		    !strcmp(comm, tools[i].comm))
			return &tools[i];
	}
	return NULL;
}

int build_tool_cuda(const struct build_tool *t)
{
	return t && !strcmp(t->toolchain, "CUDA (nvcc)");
}
