/*
 * nvsmi_accounted.h -- `nvidia-smi --query-accounted-apps=... --format=csv`
 * output: the processes the driver's accounting (nvidia-smi -am 1)
 * remembers after they exit, each with the most memory it held on its
 * card. It is the one witness of a dead process's GPU peak: the process
 * the OOM killed, or a job that had finished before anyone looked.
 *
 * Detection is by the header (a "max_memory_usage" column beside "pid");
 * noheader output has no signature and is not claimed. Columns in any
 * order: pid, max_memory_usage [MiB] (or nounits MiB), and when present
 * gpu_bus_id, gpu_uuid, gpu_name (the card), time [ms] (how long the
 * process ran), gpu_utilization, mem_utilization, is_running, timestamp.
 * Records: meta gpu.proc_peak_bytes.<gpu>/pid:<pid> (bytes; <gpu> is the
 * bus id, else the uuid, else the name, as the CSV gives it; a pid met
 * twice gives a row each) and meta gpu.proc_runtime_ms.<gpu>/pid:<pid>.
 */
#ifndef OOMLENS_NVSMI_ACCOUNTED_H
#define OOMLENS_NVSMI_ACCOUNTED_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* How sure (0..100) that head is accounted-apps CSV (its header line). */
int nvsmi_accounted_sniff(const unsigned char *head, size_t n);
/* Read it into s: records (>= 0), or -1 when the sink failed. */
int nvsmi_accounted_parse(struct input *in, struct sink *s);

#endif
