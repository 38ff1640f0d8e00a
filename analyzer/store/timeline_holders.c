/*
 * timeline_holders.c -- the tables of what held the memory (docs/schema.md
 * "What held the memory"): holder, holder_timeline and pool. A snapshot's
 * rows are derived when it ends (analyzer/derive/holders.h).
 *
 * holder is shared with the diagnostic tools' readers (memray, the PyTorch
 * profiler): its first columns are theirs (tool, scope, space, device,
 * bytes, allocations, rank, stack_id, label, line, data), the rest say
 * what a snapshot knows besides (its id, the kind of holder, requested and
 * largest bytes, the share, the user's frame, the trace index and time of
 * the scope).
 */
#include "analyzer/store/holder_tables.h"
#include "analyzer/store/timeline_parts.h"

#include <math.h>

#define HR(field) INT_COLUMN(struct tl_holder_row, field)
#define HT(field) TEXT_COLUMN(struct tl_holder_row, field)
static const struct col holder_cols[] = {
	ID_COLUMN,
	ARTIFACT_COLUMN("INTEGER REFERENCES artifact(id)"),
	COLUMN(struct tl_holder_row, tool, "TEXT NOT NULL", COL_TEXT),
	HT(scope), HT(space), HR(device), HR(bytes), HR(allocations), HR(rank), HR(stack_id),
	HT(label), HR(line),
	COLUMN(struct tl_holder_row, data, "TEXT", COL_JSON),
	HR(snapshot_id), HT(kind), HR(requested_bytes), HR(largest_bytes),
	COLUMN(struct tl_holder_row, share, "REAL", COL_REAL),
	HT(frame_file), HR(frame_line), HT(frame_name), HR(seq), HR(time_ns),
};
const struct table timeline_holder_table = TABLE("holder", holder_cols, NULL, NULL,
	"CREATE INDEX holder_artifact ON holder(artifact_id);\n"
	"CREATE INDEX holder_snapshot ON holder(snapshot_id, scope, device, rank);\n");

#define TL(field) INT_COLUMN(struct tl_holder_point, field)
static const struct col timeline_cols[] = {
	TL(snapshot_id), TL(device), TL(col), TL(seq), TL(time_ns), TL(holder_id), TL(bytes),
};
const struct table timeline_holder_timeline_table = TABLE("holder_timeline", timeline_cols,
	NULL, NULL, "CREATE INDEX holder_timeline_snapshot ON holder_timeline(snapshot_id, device);\n");

#define PL(field) INT_COLUMN(struct tl_pool_row, field)
static const struct col pool_cols[] = {
	ID_COLUMN,
	PL(snapshot_id), PL(device),
	TEXT_COLUMN(struct tl_pool_row, pool_id),
	COLUMN(struct tl_pool_row, private_pool, "INTEGER", COL_CINT),
	PL(segments), PL(expandable_segments), PL(reserved_bytes), PL(allocated_bytes),
	PL(requested_bytes), PL(pending_free_bytes), PL(inactive_bytes), PL(largest_free_bytes),
	PL(blocks), PL(top_stack_id), PL(top_bytes), PL(top_allocations),
	TEXT_COLUMN(struct tl_pool_row, top_label),
};
const struct table timeline_pool_table = TABLE("pool", pool_cols, NULL, NULL,
	"CREATE INDEX pool_snapshot ON pool(snapshot_id);\n");

/* A holder a diagnostic tool names (memray, the PyTorch profiler): the
 * tool's columns of the shared table, the snapshot's left NULL. */
static int64_t op_holder(struct sink *s, const struct ol_holder *h)
{
	struct tl_holder_row r = {
		.tool = h->tool, .scope = h->scope, .space = h->space, .device = h->device,
		.bytes = h->bytes, .allocations = h->allocations, .rank = h->rank,
		.stack_id = h->stack_id, .label = h->label,
		.line = h->line ? (int64_t)h->line : OL_NULL, .data = h->data,
		.snapshot_id = OL_NULL, .kind = NULL, .requested_bytes = OL_NULL,
		.largest_bytes = OL_NULL, .share = NAN, .frame_file = NULL,
		.frame_line = OL_NULL, .frame_name = NULL, .seq = OL_NULL, .time_ns = OL_NULL,
	};

	return tl_insert(s->ctx, &timeline_holder_table, 0, &r);
}

void timeline_bind_holders(struct sink *s)
{
	s->holder = op_holder;
}
