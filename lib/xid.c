/*
 * xid.c -- NVIDIA's Xid catalogue (docs.nvidia.com/deploy/xid-errors),
 * its names and its "Resolution Bucket (Immediate Action)", for the Xids
 * seen around OOMs and GPU failures; see xid.h. The kernel parser and
 * the report's answer read the same rows.
 */
#include "lib/xid.h"

#include <stddef.h>

static const struct xid_info xids[] = {
	{ 8, "GPU stopped processing", "the GPU stopped processing", "restart the application" },
	{ 13, "Graphics Engine Exception",
	  "a graphics engine exception (often an out-of-range access in a kernel)",
	  "restart the application; repeated, check the application's kernels" },
	{ 31, "GPU memory page fault",
	  "a GPU memory page fault (an illegal address in a kernel or the driver)",
	  "restart the application; repeated on one card, contact support" },
	{ 32, "Invalid or corrupted push buffer stream", "a corrupted push buffer stream",
	  "reset the GPU" },
	{ 38, "Driver firmware error", "a driver firmware error", "reset the GPU" },
	{ 43, "GPU stopped processing", "the GPU stopped processing a channel",
	  "restart the application" },
	{ 45, "Preemptive cleanup, due to previous errors",
	  "the driver cleaned up after an earlier error",
	  "none of its own: act on the Xid before it" },
	{ 48, "Double Bit ECC Error", "a double-bit ECC error", "reset the GPU" },
	{ 61, "Internal micro-controller breakpoint/warning",
	  "an internal micro-controller breakpoint", "reset the GPU" },
	{ 62, "Internal micro-controller halt", "an internal micro-controller halt",
	  "reset the GPU" },
	{ 63, "ECC page retirement or row remapping recording event",
	  "a row remapping was recorded", "reset the GPU to activate the remapping" },
	{ 64, "ECC page retirement or row remapper recording failure", "a row remapping failed",
	  "reset the GPU; repeated, contact support" },
	{ 68, "NVDEC0 Exception", NULL, NULL },
	{ 69, "Graphics Engine class error", NULL, NULL },
	{ 74, "NVLINK Error", "an NVLink error", "reset the GPU" },
	{ 79, "GPU has fallen off the bus", "the GPU has fallen off the bus",
	  "reboot the node; repeated, check the hardware" },
	{ 92, "High single-bit ECC error rate", "a high single-bit ECC error rate",
	  "none at once; watch the card" },
	{ 94, "Contained ECC error", "a contained ECC error",
	  "restart the application; reset the GPU to remap" },
	{ 95, "Uncontained ECC error", "an uncontained ECC error", "reset the GPU" },
	{ 109, "Context Switch Timeout Error", "a context switch timeout",
	  "restart the application" },
	{ 119, "GSP RPC Timeout", "a GSP RPC timeout", "reset the GPU" },
	{ 120, "GSP Error", "a GSP error", "reset the GPU" },
	{ 154, "GPU Recovery Action Changed", "the driver changed the GPU's recovery action",
	  "the action the line names" },
};

const struct xid_info *xid_info(int64_t x)
{
	size_t i;

	for (i = 0; i < sizeof(xids) / sizeof(xids[0]); i++)
		if (xids[i].xid == x)
			return &xids[i];
	return NULL;
}
