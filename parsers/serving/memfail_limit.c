/*
 * memfail_limit.c -- the per-buffer ceiling a memory failure states
 * (memfail_limit.h).
 *
 * Some allocators refuse a request before looking at free memory because
 * one buffer may not be that large on the device at all. MLX's Metal
 * allocator (ml-explore/mlx mlx/backend/metal/allocator.cpp,
 * MetalAllocator::malloc, v0.18.0 through v0.26) compares the size with
 * the device's maxBufferLength and throws "[metal::malloc] Attempting to
 * allocate N bytes which is greater than the maximum allowed buffer size
 * of M bytes." M is that ceiling: no load, history or free memory changes
 * it, so a request above it is a shape that can never run on that device
 * (the rule buffer_limit.c). Only wordings that state the ceiling in
 * bytes are read; the failure's requested size is memfail.c's.
 *
 * torch_npu's NPUCachingAllocator (Ascend/pytorch
 * torch_npu/csrc/core/npu/NPUCachingAllocator.cpp, v2.1.0 through
 * v2.6) prints PyTorch's caching-allocator message with "NPU" for "CUDA":
 * "NPU out of memory. Tried to allocate X (NPU d; T total capacity; A
 * already allocated; C current active; F free; R reserved in total by
 * PyTorch)". The generic recogniser keeps it as family npu; its
 * allocated and reserved figures are read here with PyTorch's own reader
 * (parsers/torch/torch_oom_text.c), so the rules that weigh an engine's
 * allocations against its budget (launch.c) see them.
 */
#include "parsers/serving/memfail_limit.h"
#include "parsers/serving/memfail.h"
#include "parsers/common/seriesutil.h"

#include "parsers/torch/torch_oom_text.h"

#include <string.h>

/* label, then a decimal byte count, then " bytes" */
static const char *const limit_labels[] = {
	"greater than the maximum allowed buffer size of ",   /* MLX, Metal */
	/* OpenVINO's GPU plugin (src/plugins/intel_gpu/src/runtime/
	 * ocl/ocl_engine.cpp@2024.0): the device's max_alloc_mem_size */
	"but max alloc size supported by device is ",
};

int64_t memfail_buffer_limit(const char *l, size_t n)
{
	size_t i;

	if (!l)
		return -1;
	if (n > MEMFAIL_SCAN)
		n = MEMFAIL_SCAN;
	for (i = 0; i < sizeof(limit_labels) / sizeof(limit_labels[0]); i++) {
		const char *p = mem_find(l, n, limit_labels[i]), *end = l + n;
		int64_t v = 0;
		int digits = 0;

		if (!p)
			continue;
		for (p += strlen(limit_labels[i]); p < end && *p >= '0' && *p <= '9'; p++) {
			if (++digits > 18)      /* beyond any device: not a count */
				return -1;
			v = v * 10 + (*p - '0');
		}
		if (!digits || (size_t)(end - p) < 6 || memcmp(p, " bytes", 6))
			return -1;
		return v > 0 ? v : -1;
	}
	return -1;
}

/* The torch_npu figures copied from PyTorch's reader, when stated. */
static const char *const npu_keys[] = {
	"allocated_bytes", "reserved_bytes", "reserved_unallocated_bytes",
};

void memfail_put_figures(json_t *d, const struct memfail *f, const char *t, size_t n)
{
	int64_t lim, req;
	char summary[8];
	json_t *tf, *v;
	size_t i;

	if (!d || !t)
		return;
	if (n > MEMFAIL_SCAN)
		n = MEMFAIL_SCAN;
	if ((lim = memfail_buffer_limit(t, n)) > 0)
		json_object_set_new(d, "buffer_limit_bytes", json_integer(lim));
	if (f->family != MF_NPU || !mem_find(t, n, "Tried to allocate") ||
	    !mem_find(t, n, "reserved in total by PyTorch"))
		return;
	if (!(tf = torch_oom_fields(t, n, &req, summary, sizeof(summary))))
		return;
	for (i = 0; i < sizeof(npu_keys) / sizeof(npu_keys[0]); i++)
		if ((v = json_object_get(tf, npu_keys[i])) && json_is_integer(v))
			json_object_set(d, npu_keys[i], v);
	json_decref(tf);
}
