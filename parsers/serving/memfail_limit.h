/*
 * memfail_limit.h -- the per-allocation ceiling a memory failure's own
 * text states, when the allocator refused a buffer for being larger than
 * any one buffer may be (not for want of free memory). See memfail_limit.c.
 */
#ifndef OOMLENS_MEMFAIL_LIMIT_H
#define OOMLENS_MEMFAIL_LIMIT_H

#include <stddef.h>
#include <stdint.h>

/* The largest single buffer the device allows, in bytes, as the failure
 * text l[0..n) states it; -1 when it states none. Reads at most
 * MEMFAIL_SCAN bytes; no allocation. */
int64_t memfail_buffer_limit(const char *l, size_t n);

#endif
