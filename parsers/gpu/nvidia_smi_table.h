/*
 * nvidia_smi_table.h -- the table plain `nvidia-smi` prints (box-drawn,
 * one block per GPU, then the Processes box), in every layout drivers
 * have printed: the old one (396, 410: no CUDA version), 450-550 (CUDA
 * Version, MIG M. row, GI/CI process columns) and the newest (KMD Version
 * / CUDA UMD Version, "Not Supported" memory on unified-memory parts),
 * wherever it sits in a file (after a shell prompt, between log lines,
 * inside a markdown quote). docs/formats.md lists what is read.
 */
#ifndef OOMLENS_NVIDIA_SMI_TABLE_H
#define OOMLENS_NVIDIA_SMI_TABLE_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* How sure (0..100) that head (the first n bytes of a file) holds an
 * nvidia-smi table anywhere in it. */
int nvidia_smi_table_sniff(const unsigned char *head, size_t n);
/* Per GPU gpu.used_bytes, gpu.total_bytes, gpu.util_percent (entity
 * gpuN), per process gpu.proc_used_bytes (entity gpuN/pid:P), meta
 * cuda.driver_version, cuda.version, gpu.total_bytes.gpuN, gpu.name.gpuN,
 * gpu.pci_bus_id.gpuN, gpu.proc_name.gpuN/pid:P. A sample's time is the
 * stamp line printed just before its table (local wall clock), else none.
 * Returns the number of records, or -1 when the sink failed. */
int nvidia_smi_table_parse(struct input *in, struct sink *s);

#endif
