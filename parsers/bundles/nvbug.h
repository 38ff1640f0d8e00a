/*
 * nvbug.h -- an nvidia-bug-report.log (plain or .gz, several gzip
 * members joined) read section by section.
 *
 * nvidia-bug-report.sh separates its sections by a line of underscores,
 * then a title line (the command run, or "*** /path" for a file); the
 * reader hands each section to the reader of what it holds: the
 * nvidia-smi --query section to parsers/bundles/nvsmi_q.h, the dmesg and
 * kernel-log scan sections to the kernel parser (line by line),
 * /proc/meminfo to host memory facts; base64 sections (binary NVML logs,
 * zip dumps) are named in a diagnostic, not read. Boot-relative dmesg
 * stamps are placed on UTC by an inferred anchor: the report's own time
 * (its Date: line, zone from the newest "*** ls:" offset) is taken as the
 * time of the last dmesg line.
 */
#ifndef OOMLENS_NVBUG_H
#define OOMLENS_NVBUG_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* How sure (0..100) that head is an nvidia-bug-report.log. */
int nvbug_sniff(const unsigned char *head, size_t n);
/* Read the report into s. Returns the records (>= 0), or -1 when the
 * sink failed or memory ran out. */
int nvbug_parse(struct input *in, struct sink *s);

#endif
