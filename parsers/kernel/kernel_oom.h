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

/* The same reader fed line by line, for a kernel log inside another
 * artifact (a section of an nvidia-bug-report.log): kernel_feed_new
 * (NULL when out of memory) over the enclosing input (its line numbers
 * and file time are the messages' and the year's), kernel_feed_line for
 * each line (0, or -1 when the sink failed: then call kernel_feed_end
 * only to free), kernel_feed_end to close the open report and free;
 * it returns the events (>= 0), or -1 when the sink failed. */
struct kparse;
struct kparse *kernel_feed_new(struct input *in, struct sink *s);
int kernel_feed_line(struct kparse *kp, const char *line, size_t len);
int kernel_feed_end(struct kparse *kp);

#endif
