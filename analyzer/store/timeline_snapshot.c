/*
 * timeline_snapshot.c -- the store of PyTorch memory snapshots: tables
 * snapshot, segment, block, trace, alloc (docs/schema.md "PyTorch
 * snapshots") and the sink ops that fill them (parsers/common/sink.h).
 *
 * Each table is one column list (table.h); each op is one insert of the
 * parser's record through a cached prepared statement inside the
 * artifact's transaction, its text bound without a copy. Trace and alloc
 * rows come by the million: they go through the bulk path (batches of
 * rows per INSERT, timeline_bulk.c). The snapshot row is inserted when
 * the file begins and its AT_END columns written when it ends.
 *
 * What held the memory is derived from the same records by a second sink
 * beside this one (analyzer/derive/holders.h); the store only records.
 */
#include "analyzer/store/timeline_parts.h"
#include "analyzer/store/holder_tables.h"

/* A column the holders' derivation writes with SQL (analyzer/derive/holders.h). */
#define DERIVED_COL(name, decl) { name, decl, COL_NONE, 0, AT_INSERT }

#define SN(field, kind, when) \
	{ #field, kind == COL_TEXT || kind == COL_JSON ? "TEXT" : "INTEGER", kind, \
	  offsetof(struct ol_snapshot, field), when }
static const struct col snapshot_cols[] = {
	ID_COLUMN,
	ARTIFACT_COLUMN("INTEGER REFERENCES artifact(id)"),
	SN(form, COL_TEXT, AT_INSERT),
	SN(protocol, COL_INT, AT_INSERT),
	SN(devices, COL_INT, AT_END),
	SN(trace_events, COL_INT, AT_END),
	SN(peak_allocated_bytes, COL_INT, AT_END),
	SN(settings, COL_JSON, AT_END),
	DERIVED_COL("recording", "TEXT"),
};
static const struct table snapshot_table = TABLE("snapshot", snapshot_cols, NULL, NULL, NULL);

#define SG(field) INT_COLUMN(struct ol_segment, field)
static const struct col segment_cols[] = {
	ID_COLUMN,
	PARENT_COLUMN("snapshot_id", "INTEGER NOT NULL REFERENCES snapshot(id)"),
	SG(device), SG(address), SG(total_size), SG(allocated_size), SG(active_size),
	SG(requested_size), SG(stream),
	TEXT_COLUMN(struct ol_segment, segment_type),
	TEXT_COLUMN(struct ol_segment, pool_id),
	SG(is_expandable), SG(stack_id),
};
static const struct table segment_table = TABLE("segment", segment_cols, NULL, NULL,
	"CREATE INDEX segment_snapshot ON segment(snapshot_id);\n");

#define BL(field) INT_COLUMN(struct ol_block, field)
static const struct col block_cols[] = {
	ID_COLUMN,
	PARENT_COLUMN("segment_id", "INTEGER NOT NULL REFERENCES segment(id)"),
	BL(address), BL(size), BL(requested_size),
	TEXT_COLUMN(struct ol_block, state),
	BL(stack_id),
	DERIVED_COL("holder_id", "INTEGER"),
};
static const struct table block_table = TABLE("block", block_cols, NULL, NULL,
	"CREATE INDEX block_segment ON block(segment_id);\n");

#define TR(field) INT_COLUMN(struct ol_trace, field)
#define TT(field) TEXT_COLUMN(struct ol_trace, field)
static const struct col trace_cols[] = {
	PARENT_COLUMN("snapshot_id", "INTEGER NOT NULL"),
	TR(device), TR(seq), TT(action), TR(addr), TR(size), TR(stream), TR(time_ns),
	TR(device_free), TT(compile_context), TT(user_metadata), TT(pool_id), TR(stack_id),
};
static const struct table trace_table = PACKED_TABLE("trace", trace_cols);

#define AL(field) INT_COLUMN(struct ol_alloc, field)
static const struct col alloc_cols[] = {
	PARENT_COLUMN("snapshot_id", "INTEGER NOT NULL"),
	AL(device), AL(addr), AL(size), AL(alloc_seq), AL(alloc_ns), AL(free_seq),
	AL(free_ns), TEXT_COLUMN(struct ol_alloc, state), AL(stack_id),
};
static const struct table alloc_table = PACKED_TABLE("alloc", alloc_cols);

const struct table *const timeline_snapshot_tables[] = {
	&snapshot_table, &segment_table, &block_table, &trace_table, &alloc_table,
	&timeline_holder_table, &timeline_holder_timeline_table, &timeline_pool_table, NULL
};

RECORD_OP(snapshot, struct ol_snapshot, snapshot_table)
CHILD_RECORD_OP(segment, struct ol_segment, segment_table)
CHILD_RECORD_OP(block, struct ol_block, block_table)
CHILD_BULK_OP(trace, struct ol_trace, trace_table)
CHILD_BULK_OP(alloc, struct ol_alloc, alloc_table)

/* The fields known only at the end of the file (devices, trace_events,
 * peak, settings). */
static int64_t op_snapshot_end(struct sink *s, int64_t id, const struct ol_snapshot *x)
{
	return tl_update(s->ctx, &snapshot_table, id, x) < 0 ? -1 : 1;
}

void timeline_bind_snapshot(struct sink *s)
{
	s->snapshot = op_snapshot;
	s->snapshot_end = op_snapshot_end;
	s->segment = op_segment;
	s->block = op_block;
	s->trace = op_trace;
	s->alloc = op_alloc;
}
