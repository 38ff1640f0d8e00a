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
 */
#include "analyzer/store/timeline_parts.h"
#include "analyzer/derive/holders.h"

/* A column the holders' derivation writes with SQL (holders.h). */
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

/* Each op writes its record and hands it to the holders' collector. */
static int64_t op_snapshot(struct sink *s, const struct ol_snapshot *x)
{
	int64_t id = tl_insert(s->ctx, &snapshot_table, 0, x);

	if (id > 0)
		holders_begin(s->ctx, id, x->form);
	return id;
}

/* The fields known only at the end of the file (devices, trace_events,
 * peak, settings); then the snapshot's holders are derived. */
static int64_t op_snapshot_end(struct sink *s, int64_t id, const struct ol_snapshot *x)
{
	if (tl_update(s->ctx, &snapshot_table, id, x) < 0 || holders_end(s->ctx, id) < 0)
		return -1;
	return 1;
}

static int64_t op_segment(struct sink *s, int64_t snapshot_id, const struct ol_segment *x)
{
	int64_t id = tl_insert(s->ctx, &segment_table, snapshot_id, x);

	if (id > 0)
		holders_segment(s->ctx, x);
	return id;
}

static int64_t op_block(struct sink *s, int64_t segment_id, const struct ol_block *x)
{
	int64_t id = tl_insert(s->ctx, &block_table, segment_id, x);

	if (id > 0)
		holders_block(s->ctx, id, x);
	return id;
}

static int64_t op_trace(struct sink *s, int64_t snapshot_id, const struct ol_trace *x)
{
	holders_trace(s->ctx, x);
	return tl_insert_bulk(s->ctx, &trace_table, sizeof(*x), snapshot_id, x);
}

static int64_t op_alloc(struct sink *s, int64_t snapshot_id, const struct ol_alloc *x)
{
	holders_alloc(s->ctx, x);
	return tl_insert_bulk(s->ctx, &alloc_table, sizeof(*x), snapshot_id, x);
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
