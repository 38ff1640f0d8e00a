/*
 * torch_summary.h -- torch.cuda.memory_summary() tables (every layout
 * PyTorch printed: 1.5+ "KB/MB/GB", 2.0+ "KiB/MiB/GiB", abbreviated,
 * with Requested memory, with the Oversize rows), anywhere in a log.
 */
#ifndef OOMLENS_TORCH_SUMMARY_H
#define OOMLENS_TORCH_SUMMARY_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

int torch_summary_sniff(const unsigned char *head, size_t n);
/* One torch_memory_stats event and torch.* samples per table (entity
 * cuda:N from the title). Returns the number of tables, or -1. */
int torch_summary_parse(struct input *in, struct sink *s);

#endif
