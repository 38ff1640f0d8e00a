/*
 * environ.h -- a process's environment as users capture it: a copy of
 * /proc/PID/environ (NUL-separated NAME=value records), the same through
 * `tr '\0' '\n'` or `env` / `printenv` (one record a line), a shell's
 * `export NAME=value` lines, or the "Environment Variables" section of
 * vLLM's collect_env report. Only the variables that shape memory are
 * kept (docs/formats.md "environ"): an environment holds secrets, and
 * oomlens stores no value it does not need.
 */
#ifndef OOMLENS_ENVIRON_H
#define OOMLENS_ENVIRON_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* 1 when variable name (n bytes) is one oomlens keeps: the allocator's
 * and the runtimes' own (PYTORCH_*, TORCH_*, CUDA_*, NCCL_*, VLLM_*,
 * SGLANG_*, HIP_*, HSA_*, TRTLLM_*, NVIDIA_VISIBLE_DEVICES, OMP_NUM_THREADS,
 * MALLOC_ARENA_MAX, ...), never one whose name says it is a secret (KEY,
 * TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL, AUTH). Shared with the
 * Kubernetes reader's Environment section. */
int environ_keep(const char *name, size_t n);

/* How sure (0..100) that head (the first n bytes of a file) is a
 * process environment. */
int environ_sniff(const unsigned char *head, size_t n);

/* Meta env.<NAME> = value for each kept variable (the last one of a name
 * wins, as in the process). Returns the number stored, or -1 when the
 * sink failed. A record that is not NAME=value is a warning with its
 * offset; the rest is read on. */
int environ_parse(struct input *in, struct sink *s);

#endif
