/*
 * timeline_holders.c -- the store of holders: the places a diagnostic tool
 * names as holding memory (memray's top allocating locations, the PyTorch
 * profiler's operators with memory columns). Table holder (docs/schema.md
 * "Diagnostic tools"), one column list (table.h), and the sink op that
 * inserts the parser's record (parsers/sink.h).
 */
#include "analyzer/store/timeline_parts.h"

#define HI(field) INT_COLUMN(struct ol_holder, field)
#define HT(field) TEXT_COLUMN(struct ol_holder, field)
static const struct col holder_cols[] = {
	ID_COLUMN,
	ARTIFACT_COLUMN("INTEGER REFERENCES artifact(id)"),
	COLUMN(struct ol_holder, tool, "TEXT NOT NULL", COL_TEXT),
	HT(scope), HT(space), HI(device), HI(bytes), HI(allocations), HI(rank),
	HI(stack_id), HT(label),
	COLUMN(struct ol_holder, line, "INTEGER", COL_U64),
	COLUMN(struct ol_holder, data, "TEXT", COL_JSON),
};
static const struct table holder_table = TABLE("holder", holder_cols, NULL, NULL,
	"CREATE INDEX holder_artifact ON holder(artifact_id);\n");

const struct table *const timeline_holders_tables[] = { &holder_table, NULL };

RECORD_OP(holder, struct ol_holder, holder_table)

void timeline_bind_holders(struct sink *s)
{
	s->holder = op_holder;
}
