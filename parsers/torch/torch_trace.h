/*
 * torch_trace.h -- the memory events ("[memory]", "[OutOfMemory]") of a
 * PyTorch profiler Chrome trace (export_chrome_trace / Kineto JSON, plain
 * or gzip), the whole file or a pasted excerpt of its events.
 */
#ifndef OOMLENS_TORCH_TRACE_H
#define OOMLENS_TORCH_TRACE_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

int torch_trace_sniff(const unsigned char *head, size_t n);
/* torch.allocated_bytes / torch.reserved_bytes per device (entity cuda:N;
 * CPU events torch.cpu_allocated_bytes, entity cpu), a torch_oom event per
 * "[OutOfMemory]", one torch_profiler_trace event. Returns the number of
 * memory and OOM events, or -1. */
int torch_trace_parse(struct input *in, struct sink *s);

#endif
