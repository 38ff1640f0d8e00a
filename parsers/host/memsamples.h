/*
 * memsamples.h -- memory samples pasted as lines: a reporter's own
 * measurements of one process or device, one figure a line, with no
 * tool's format around them. What users paste to show growth: VmRSS: /
 * VmHWM: / RssAnon: lines as /proc/PID/status prints them, "resident" /
 * "RSS" / "memory" followed by a size, a training or serving log line
 * that repeats "memory: N MiB" per step or request, and small tables
 * whose header names the column (ps -o rss, top/htop RES, nvidia-smi
 * --query-gpu=memory.used csv, "req resident delta").
 *
 * Records: meta samples.series.0 = "label|per|steps|bytes": the label the
 * figures carry, what one sample is (request, iteration, step, epoch,
 * batch; "sample" when the lines do not say), the step numbers when every
 * sample carries one (comma-separated, else empty), and the figures in
 * bytes, in FILE ORDER: the lines carry no time, so the order is the
 * paste's, never a time (the rules say so). One series a file: the label
 * most lines carry. A figure needs a unit (or a header naming it); a
 * signed figure ("+126") is a delta and is skipped.
 */
#ifndef OOMLENS_MEMSAMPLES_H
#define OOMLENS_MEMSAMPLES_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* The fewest samples a paste needs to be read as a series. */
#define MEMSAMPLES_MIN 4

/* How sure (0..100) that head is a paste of memory samples: 30 when at
 * least MEMSAMPLES_MIN lines and most non-blank lines carry a labelled
 * figure; low, so that any tool's own format wins. */
int memsamples_sniff(const unsigned char *head, size_t n);

/* Read the paste into meta samples.series.0. Returns the records stored
 * (>= 0), or -1 when the sink failed. */
int memsamples_parse(struct input *in, struct sink *s);

#endif
