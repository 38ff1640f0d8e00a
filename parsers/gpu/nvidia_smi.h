/*
 * nvidia_smi.h -- nvidia-smi --query-gpu=... and --query-compute-apps=...
 * CSV logs (--format=csv[,noheader][,nounits], -l/-lms loops), any column
 * order, several GPUs, repeated headers (docs/formats.md "nvidia_smi").
 */
#ifndef OOMLENS_NVIDIA_SMI_H
#define OOMLENS_NVIDIA_SMI_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* How sure (0..100) that head (the first n bytes of a file) is an nvidia-smi CSV query log. */
int nvidia_smi_sniff(const unsigned char *head, size_t n);
/* gpu.* series per GPU (entity gpuN, or the GPU uuid when there is no
 * index), gpu.proc_used_bytes per process, meta gpu.total_bytes.gpuN.
 * Returns the number of samples, or -1 when the sink failed. */
int nvidia_smi_parse(struct input *in, struct sink *s);

#endif
