/*
 * kernel_oom.h -- kernel OOM-killer reports from any kernel log source
 * (dmesg raw and -T, syslog files, journalctl text and JSON, /dev/kmsg).
 */
#ifndef OOMLENS_KERNEL_OOM_H
#define OOMLENS_KERNEL_OOM_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* How sure (0..100) that head (the first n bytes of a file) is a kernel log. */
int kernel_oom_sniff(const unsigned char *head, size_t n);
/* Read every OOM event of the log into s. Returns the number of events
 * (>= 0), or -1 when the sink failed. Bad lines give diagnostics. */
int kernel_oom_parse(struct input *in, struct sink *s);

#endif
