/*
 * cgroup.h -- cgroup v1 and v2 memory controller files (memory.current,
 * .max, .high, .peak, .events, .stat, .swap.*, v1 usage_in_bytes,
 * limit_in_bytes, max_usage_in_bytes, failcnt, memsw.*, oom_control,
 * stat): one copied file, or a series of "### <iso> src=cgroup:<file>
 * cgroup=<path>" records (docs/formats.md "cgroup").
 */
#ifndef OOMLENS_CGROUP_H
#define OOMLENS_CGROUP_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* How sure (0..100) that head (the first n bytes of a file) is a cgroup memory file or a series of its readings. */
int cgroup_sniff(const unsigned char *head, size_t n);
/* The one exception to content-only detection (called by ingest when no
 * format recognised the content): a file NAMED memory.* holding a single
 * integer or "max" (memory.current, memory.max, ...) has no content
 * signature at all. 1 if path and head look like that. */
int cgroup_name_sniff(const char *path, const unsigned char *head, size_t n);
/* Samples (cgroup.* series) and meta (cgroup.max_bytes, ...). Returns the
 * number of values stored, or -1 when the sink failed. */
int cgroup_parse(struct input *in, struct sink *s);

#endif
