/*
 * timeline_engine.c -- the store of serving-engine instances: table
 * engine (docs/schema.md "Serving engines"), one row per instance a
 * server log names, with the memory accounting the log states for it,
 * and the sink op that fills it (parsers/common/sink.h).
 *
 * The fact columns come from the one list of facts (ENGINE_FACTS in
 * parsers/serving/engine_lines.h), so a new fact is a new column without a second
 * spelling. Sizes and counts are INTEGER columns: the parser rounds them
 * and SQLite stores an integral REAL bound to an INTEGER column as an
 * integer; an unsaid fact (NaN) is NULL.
 *
 * Column run (schema 10) has no field: analyzer/derive/oom_run.c writes
 * it (which run of its log the instance is of, 1 = the first), from the
 * run starts the parser recorded (meta server.answers, engine_runs).
 */
#include "analyzer/store/timeline_parts.h"

#define FACT_COLUMN(key, name, integer) \
	{ #name, (integer) ? "INTEGER" : "REAL", COL_REAL, \
	  offsetof(struct ol_engine, fact) + (key) * sizeof(double), AT_INSERT },
static const struct col engine_cols[] = {
	ID_COLUMN,
	ARTIFACT_COLUMN("INTEGER REFERENCES artifact(id)"),
	COLUMN(struct ol_engine, engine, "TEXT NOT NULL", COL_TEXT),
	COLUMN(struct ol_engine, instance, "TEXT NOT NULL", COL_TEXT),
	TEXT_COLUMN(struct ol_engine, version),
	ENGINE_FACTS(FACT_COLUMN)
	COLUMN(struct ol_engine, errors, "TEXT", COL_JSON),
	INT_COLUMN(struct ol_engine, errors_dropped),
	COLUMN(struct ol_engine, line, "INTEGER", COL_U64),
	/* written by the derivation (oom_run.c derive_engine_runs) */
	{ "run", "INTEGER", COL_NONE, 0, AT_INSERT },
};
#undef FACT_COLUMN
static const struct table engine_table = TABLE("engine", engine_cols, NULL, NULL, NULL);

const struct table *const timeline_engine_tables[] = { &engine_table, NULL };

RECORD_OP(engine, struct ol_engine, engine_table)

void timeline_bind_engine(struct sink *s)
{
	s->engine = op_engine;
}
