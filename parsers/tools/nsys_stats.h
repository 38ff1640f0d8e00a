/*
 * nsys_stats.h -- Nsight Systems `nsys stats` text output on CUDA memory:
 * the memory-operation sums by size and by time, and the CUDA API sum
 * (cudaMalloc, cudaFree, ...), 2022 to 2025 report names, alone or in a
 * log of `nsys profile --stats`.
 */
#ifndef OOMLENS_NSYS_STATS_H
#define OOMLENS_NSYS_STATS_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

int nsys_stats_sniff(const unsigned char *head, size_t n);
/* One nsys_stats event per table read. Returns the number, or -1. */
int nsys_stats_parse(struct input *in, struct sink *s);

#endif
