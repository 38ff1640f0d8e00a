/*
 * holder_tables.h -- the tables of what held the memory (docs/schema.md
 * "What held the memory"): holder, holder_timeline and pool, their row
 * records and column lists (timeline_holders.c). The store owns them and
 * writes the tools' holders (memray, the PyTorch profiler) itself; a
 * snapshot's rows are derived and written by analyzer/derive/holders.h
 * through the store's write API (timeline_parts.h).
 */
#ifndef OOMLENS_HOLDER_TABLES_H
#define OOMLENS_HOLDER_TABLES_H

#include <stdint.h>

#include "parsers/common/sink.h"
#include "analyzer/store/table.h"

/* A row of holder; strings and data borrowed. */
struct tl_holder_row {
	const char *tool;              /* "torch_snapshot" */
	const char *scope;             /* "snapshot", "peak", "oom" */
	const char *space;             /* "device" */
	int64_t device, bytes, allocations, rank, stack_id;
	const char *label;             /* the user's frame, or what the holder is */
	int64_t line;                  /* the tool's printed line: OL_NULL here */
	json_t *data;
	int64_t snapshot_id;
	const char *kind;              /* "stack", "no_stack", "not_in_trace", "other" */
	int64_t requested_bytes, largest_bytes;
	double share;                  /* of the scope's bytes on the device (NAN: unknown) */
	const char *frame_file;        /* the user's frame, NULL when none */
	int64_t frame_line;
	const char *frame_name;
	int64_t seq, time_ns;          /* the scope's trace index (-1: before the first) and time */
};

struct tl_holder_point {
	int64_t snapshot_id, device, col, seq, time_ns;
	int64_t holder_id;             /* OL_NULL: the holders past the top ones */
	int64_t bytes;
};

struct tl_pool_row {
	int64_t snapshot_id, device;
	const char *pool_id;           /* "A,B"; NULL when the segments carry none */
	int private_pool;              /* 1: not the default pool (0,0) */
	int64_t segments, expandable_segments, reserved_bytes, allocated_bytes;
	int64_t requested_bytes, pending_free_bytes, inactive_bytes, largest_free_bytes;
	int64_t blocks, top_stack_id, top_bytes, top_allocations;
	const char *top_label;
};

extern const struct table timeline_holder_table, timeline_holder_timeline_table,
	timeline_pool_table;

#endif
