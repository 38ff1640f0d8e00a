/*
 * memray_bin.h -- memray's binary capture file (`memray run -o x.bin`),
 * read natively: the lz4 frame memray writes on exit, or the plain
 * stream a killed process leaves. The header becomes a memray_capture
 * event, the RSS samples a proc.rss_bytes series, the allocation records
 * a memray_stats event (totals, peak) and host-side holders for the top
 * allocating Python locations, as `memray stats` would print them.
 * Memory is bounded whatever the capture's size (docs/formats.md).
 */
#ifndef OOMLENS_MEMRAY_BIN_H
#define OOMLENS_MEMRAY_BIN_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

int memray_bin_sniff(const unsigned char *head, size_t n);
int memray_bin_parse(struct input *in, struct sink *s);

#endif
