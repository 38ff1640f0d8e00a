/*
 * torch_profiler.h -- the PyTorch profiler's key_averages().table() with
 * memory columns (CPU Mem, Self CPU Mem, CUDA Mem, Self CUDA Mem), in the
 * 1.4-1.6 autograd layout and the later one, with or without its header,
 * alone or inside a log.
 */
#ifndef OOMLENS_TORCH_PROFILER_H
#define OOMLENS_TORCH_PROFILER_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

int torch_profiler_sniff(const unsigned char *head, size_t n);
/* A holder per operator and non-zero memory column (scope "self" or
 * "inclusive", space "host" or "device"), one torch_profiler_table event
 * per table. Returns tables + holders, or -1. */
int torch_profiler_parse(struct input *in, struct sink *s);

#endif
