/*
 * timeline_holders.c -- the store of holders: the places a diagnostic tool
 * names as holding memory (memray's top allocating locations, the PyTorch
 * profiler's operators with memory columns). Table holder (docs/schema.md
 * "Diagnostic tools") and the sink op that fills it (parsers/sink.h).
 * One cached prepared statement inside the artifact's transaction.
 */
#include "analyzer/store/timeline_parts.h"

const char timeline_schema_holders[] =
	"CREATE TABLE holder(\n"
	"  id INTEGER PRIMARY KEY, artifact_id INTEGER REFERENCES artifact(id),\n"
	"  tool TEXT NOT NULL, scope TEXT, space TEXT, device INTEGER, bytes INTEGER,\n"
	"  allocations INTEGER, rank INTEGER, stack_id INTEGER, label TEXT,\n"
	"  line INTEGER, data TEXT);\n"
	"CREATE INDEX holder_artifact ON holder(artifact_id);\n";

static const char sql_holder[] =
	"INSERT INTO holder(artifact_id, tool, scope, space, device, bytes, allocations,"
	" rank, stack_id, label, line, data) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)";

/* One holder row of the current artifact; returns its id or -1. */
static int64_t op_holder(struct sink *s, const struct ol_holder *h)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_holder);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, tl->artifact_id);
	tl_bind_text(st, 2, h->tool);
	tl_bind_text(st, 3, h->scope);
	tl_bind_text(st, 4, h->space);
	tl_bind_int(st, 5, h->device);
	tl_bind_int(st, 6, h->bytes);
	tl_bind_int(st, 7, h->allocations);
	tl_bind_int(st, 8, h->rank);
	tl_bind_int(st, 9, h->stack_id);
	tl_bind_text(st, 10, h->label);
	sqlite3_bind_int64(st, 11, (int64_t)h->line);
	tl_bind_json(st, 12, h->data);
	return tl_step(tl, st);
}

void timeline_bind_holders(struct sink *s)
{
	s->holder = op_holder;
}
