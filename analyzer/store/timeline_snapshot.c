/*
 * timeline_snapshot.c -- the store of PyTorch memory snapshots: tables
 * snapshot, segment, block, trace, alloc (docs/schema.md "PyTorch
 * snapshots") and the sink ops that fill them (parsers/sink.h).
 * Every insert is a cached prepared statement inside the artifact's
 * transaction.
 */
#include "analyzer/store/timeline_parts.h"

const char timeline_schema_snapshot[] =
	"CREATE TABLE snapshot(\n"
	"  id INTEGER PRIMARY KEY, artifact_id INTEGER REFERENCES artifact(id),\n"
	"  form TEXT, protocol INTEGER, devices INTEGER, trace_events INTEGER,\n"
	"  peak_allocated_bytes INTEGER, settings TEXT);\n"
	"CREATE TABLE segment(\n"
	"  id INTEGER PRIMARY KEY, snapshot_id INTEGER NOT NULL REFERENCES snapshot(id),\n"
	"  device INTEGER, address INTEGER, total_size INTEGER, allocated_size INTEGER,\n"
	"  active_size INTEGER, requested_size INTEGER, stream INTEGER,\n"
	"  segment_type TEXT, pool_id TEXT, is_expandable INTEGER, stack_id INTEGER);\n"
	"CREATE INDEX segment_snapshot ON segment(snapshot_id);\n"
	"CREATE TABLE block(\n"
	"  id INTEGER PRIMARY KEY, segment_id INTEGER NOT NULL REFERENCES segment(id),\n"
	"  address INTEGER, size INTEGER, requested_size INTEGER, state TEXT,\n"
	"  stack_id INTEGER);\n"
	"CREATE INDEX block_segment ON block(segment_id);\n"
	"CREATE TABLE trace(\n"
	"  snapshot_id INTEGER NOT NULL, device INTEGER, seq INTEGER, action TEXT,\n"
	"  addr INTEGER, size INTEGER, stream INTEGER, time_ns INTEGER,\n"
	"  device_free INTEGER, compile_context TEXT, user_metadata TEXT,\n"
	"  pool_id TEXT, stack_id INTEGER);\n"
	"CREATE INDEX trace_oom ON trace(snapshot_id) WHERE action = 'oom';\n"
	"CREATE TABLE alloc(\n"
	"  snapshot_id INTEGER NOT NULL, device INTEGER, addr INTEGER, size INTEGER,\n"
	"  alloc_seq INTEGER, alloc_ns INTEGER, free_seq INTEGER, free_ns INTEGER,\n"
	"  state TEXT, stack_id INTEGER);\n";

/* Bind borrowed text without a copy: the string outlives the step, which
 * comes in the same op (SQLITE_STATIC), and the next use of the cached
 * statement rebinds every column first. Saves a malloc per text column of
 * millions of trace rows. */
static void bind_text_static(sqlite3_stmt *st, int col, const char *s)
{
	if (s)
		sqlite3_bind_text(st, col, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, col);
}

static const char sql_snapshot[] =
	"INSERT INTO snapshot(artifact_id, form, protocol) VALUES(?,?,?)";

static int64_t op_snapshot(struct sink *s, const struct ol_snapshot *x)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_snapshot);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, tl->artifact_id);
	tl_bind_text(st, 2, x->form);
	tl_bind_int(st, 3, x->protocol);
	return tl_step(tl, st);
}

static const char sql_snapshot_end[] =
	"UPDATE snapshot SET devices = ?, trace_events = ?, peak_allocated_bytes = ?,"
	" settings = ? WHERE id = ?";

static int64_t op_snapshot_end(struct sink *s, int64_t id, const struct ol_snapshot *x)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_snapshot_end);

	if (!st)
		return -1;
	tl_bind_int(st, 1, x->devices);
	tl_bind_int(st, 2, x->trace_events);
	tl_bind_int(st, 3, x->peak_allocated_bytes);
	tl_bind_json(st, 4, x->settings);
	sqlite3_bind_int64(st, 5, id);
	return tl_step(tl, st) < 0 ? -1 : 1;
}

static const char sql_segment[] =
	"INSERT INTO segment(snapshot_id, device, address, total_size, allocated_size,"
	" active_size, requested_size, stream, segment_type, pool_id, is_expandable,"
	" stack_id) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)";

static int64_t op_segment(struct sink *s, int64_t snap, const struct ol_segment *x)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_segment);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, snap);
	tl_bind_int(st, 2, x->device);
	tl_bind_int(st, 3, x->address);
	tl_bind_int(st, 4, x->total_size);
	tl_bind_int(st, 5, x->allocated_size);
	tl_bind_int(st, 6, x->active_size);
	tl_bind_int(st, 7, x->requested_size);
	tl_bind_int(st, 8, x->stream);
	tl_bind_text(st, 9, x->segment_type);
	tl_bind_text(st, 10, x->pool_id);
	tl_bind_int(st, 11, x->is_expandable);
	tl_bind_int(st, 12, x->stack_id);
	return tl_step(tl, st);
}

static const char sql_block[] =
	"INSERT INTO block(segment_id, address, size, requested_size, state, stack_id)"
	" VALUES(?,?,?,?,?,?)";

static int64_t op_block(struct sink *s, int64_t seg, const struct ol_block *x)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_block);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, seg);
	tl_bind_int(st, 2, x->address);
	tl_bind_int(st, 3, x->size);
	tl_bind_int(st, 4, x->requested_size);
	tl_bind_text(st, 5, x->state);
	tl_bind_int(st, 6, x->stack_id);
	return tl_step(tl, st);
}

static const char sql_trace[] =
	"INSERT INTO trace(snapshot_id, device, seq, action, addr, size, stream, time_ns,"
	" device_free, compile_context, user_metadata, pool_id, stack_id)"
	" VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)";

static int64_t op_trace(struct sink *s, int64_t snap, const struct ol_trace *x)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_trace);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, snap);
	tl_bind_int(st, 2, x->device);
	tl_bind_int(st, 3, x->seq);
	bind_text_static(st, 4, x->action);
	tl_bind_int(st, 5, x->addr);
	tl_bind_int(st, 6, x->size);
	tl_bind_int(st, 7, x->stream);
	tl_bind_int(st, 8, x->time_ns);
	tl_bind_int(st, 9, x->device_free);
	bind_text_static(st, 10, x->compile_context);
	bind_text_static(st, 11, x->user_metadata);
	bind_text_static(st, 12, x->pool_id);
	tl_bind_int(st, 13, x->stack_id);
	return tl_step(tl, st) < 0 ? -1 : 1;
}

static const char sql_alloc[] =
	"INSERT INTO alloc(snapshot_id, device, addr, size, alloc_seq, alloc_ns,"
	" free_seq, free_ns, state, stack_id) VALUES(?,?,?,?,?,?,?,?,?,?)";

static int64_t op_alloc(struct sink *s, int64_t snap, const struct ol_alloc *x)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_alloc);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, snap);
	tl_bind_int(st, 2, x->device);
	tl_bind_int(st, 3, x->addr);
	tl_bind_int(st, 4, x->size);
	tl_bind_int(st, 5, x->alloc_seq);
	tl_bind_int(st, 6, x->alloc_ns);
	tl_bind_int(st, 7, x->free_seq);
	tl_bind_int(st, 8, x->free_ns);
	bind_text_static(st, 9, x->state);
	tl_bind_int(st, 10, x->stack_id);
	return tl_step(tl, st) < 0 ? -1 : 1;
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
