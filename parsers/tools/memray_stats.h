/*
 * memray_stats.h -- memray's `memray stats` report, as text (the terminal
 * output, tab- or space-indented, emoji or not) and as `stats --json`
 * (the JSON file, or that dict printed by Python). Both become one
 * memray_stats event (totals, peak, histogram, allocators) and host-side
 * holders for the top allocating locations, with their Python frame.
 */
#ifndef OOMLENS_MEMRAY_STATS_H
#define OOMLENS_MEMRAY_STATS_H

#include <stddef.h>
#include <jansson.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

int memray_stats_sniff(const unsigned char *head, size_t n);
int memray_stats_parse(struct input *in, struct sink *s);
int memray_json_sniff(const unsigned char *head, size_t n);
int memray_json_parse(struct input *in, struct sink *s);

/* Shared by the two readers (memray_stats.c). */

/* A top location as memray prints it, "func:file:line" or "<stack trace
 * unavailable>", with its size (bytes, OL_NULL) or count (OL_NULL), as a
 * host holder of scope "total" (memray counts every allocation of the
 * run); a module of the 1.20 "allocating modules" lists when is_module.
 * Returns 0, or -1 when the sink failed. */
int memray_holder(struct sink *s, const char *location, int64_t bytes, int64_t count,
		  int64_t rank, int is_module, uint64_t line, const char *printed);
/* The memray_stats event from its data object (borrowed; the figure keys of
 * docs/json.md). Returns 0 or -1. */
int memray_event(struct sink *s, json_t *data, uint64_t line);

#endif
