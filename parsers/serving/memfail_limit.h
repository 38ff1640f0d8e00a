/*
 * memfail_limit.h -- the per-allocation ceiling a memory failure's own
 * text states, when the allocator refused a buffer for being larger than
 * any one buffer may be (not for want of free memory), and the allocator
 * figures of torch_npu's message. See memfail_limit.c.
 */
#ifndef OOMLENS_MEMFAIL_LIMIT_H
#define OOMLENS_MEMFAIL_LIMIT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "parsers/serving/memfail.h"

/* The largest single buffer the device allows, in bytes, as the failure
 * text l[0..n) states it; -1 when it states none. Reads at most
 * MEMFAIL_SCAN bytes; no allocation. */
int64_t memfail_buffer_limit(const char *l, size_t n);

/* Put into d (a mem_failure event's data) the figures the failure text
 * t[0..n) of f states beyond memfail_line()'s: buffer_limit_bytes
 * (memfail_buffer_limit), and, for torch_npu's allocator message, which
 * is PyTorch's caching-allocator text with "NPU" for "CUDA", the
 * allocator's allocated_bytes, reserved_bytes and
 * reserved_unallocated_bytes as torch_oom_fields() reads them for
 * PyTorch's own. Absent figures are left out. */
void memfail_put_figures(json_t *d, const struct memfail *f, const char *t, size_t n);

#endif
