/*
 * smaps.h -- /proc/PID/smaps and /proc/PID/smaps_rollup: one capture, or a
 * series of captures separated by "### <iso> pid=.. src=.. [mono=..]"
 * lines (docs/formats.md "The capture separator").
 */
#ifndef OOMLENS_SMAPS_H
#define OOMLENS_SMAPS_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* How sure (0..100) that head (the first n bytes of a file) is an smaps or smaps_rollup capture. */
int smaps_sniff(const unsigned char *head, size_t n);
/* Each capture becomes a capture row, each VMA a mapping row, and the
 * per-process sums the proc.* series. Returns the number of captures, or
 * -1 when the sink failed. */
int smaps_parse(struct input *in, struct sink *s);
/* The mapping kind of a VMA: heap, anon, file, stack, gpu, shmem,
 * hugepage, special (see docs/formats.md). vmflags may be NULL. */
const char *smaps_kind(const char *path, const char *vmflags, int64_t kernel_page_kb);

#endif
