/*
 * timeline_common.c -- the tables every artifact shares (docs/schema.md
 * "Core"): artifact, diagnostic, meta, event, task, series, sample,
 * stack, frame, anchor, capture, mapping, and the rules' finding,
 * evidence and verdict; with the sink ops that fill them.
 *
 * Each table is one column list (table.h); an op is then one
 * tl_insert of the parser's record. The ops that are more than an insert
 * say so: series (find or add), series_shift, stack (deduplicated by a
 * hash of its frames) and diag (buffered until the artifact ends).
 */
#include "analyzer/store/samples.h"
#include "analyzer/store/timeline_parts.h"

#include <stdio.h>

#include "lib/vocab.h"

/* A column the rules write with SQL: no field, never bound here. */
#define RULES_COL(name, decl) { name, decl, COL_NONE, 0, AT_INSERT }

/* ---- records that are not a sink struct ---- */

struct meta_row { const char *key, *value; };
struct series_row { const char *name, *unit, *entity; };
struct sample_row { struct ol_time t; double value; };   /* its columns' offsets */
struct stack_row { uint64_t hash; int64_t depth; };
struct frame_row { int64_t idx; struct ol_frame f; };
struct anchor_row { const char *boot_id; int64_t boot_ns, utc_ns; const char *how; };
struct diag_row { int64_t line, offset; const char *severity, *message; };

/* ---- the tables ---- */

static const struct col meta_cols[] = {
	ARTIFACT_COLUMN("INTEGER"),
	COLUMN(struct meta_row, key, "TEXT NOT NULL", COL_TEXT),
	TEXT_COLUMN(struct meta_row, value),
};
static const struct table meta_table = TABLE("meta", meta_cols, NULL, NULL,
	"CREATE INDEX meta_key ON meta(key);\n");

#define AR(field, decl, kind, when) { #field, decl, kind, offsetof(struct tl_artifact, field), when }
static const struct col artifact_cols[] = {
	ID_COLUMN,
	AR(path, "TEXT NOT NULL", COL_TEXT, AT_INSERT),
	AR(container, "TEXT", COL_TEXT, AT_INSERT),
	AR(kind, "TEXT", COL_TEXT, AT_INSERT),
	AR(size, "INTEGER", COL_U64, AT_INSERT),
	AR(compressed, "INTEGER", COL_CINT, AT_INSERT),
	AR(status, "TEXT", COL_TEXT, AT_BOTH),
	AR(hash, "TEXT", COL_TEXT, AT_END),
	AR(bytes_read, "INTEGER", COL_U64, AT_END),
	AR(seconds, "REAL", COL_REAL, AT_END),
	AR(errors, "INTEGER DEFAULT 0", COL_INT, AT_END),
	AR(warnings, "INTEGER DEFAULT 0", COL_INT, AT_END),
};
const struct table timeline_artifact_table = TABLE("artifact", artifact_cols, NULL, NULL,
	"CREATE INDEX artifact_size ON artifact(size, path);\n");

static const struct col diagnostic_cols[] = {
	ID_COLUMN,
	ARTIFACT_COLUMN("INTEGER REFERENCES artifact(id)"),
	INT_COLUMN(struct diag_row, line),
	INT_COLUMN(struct diag_row, offset),
	TEXT_COLUMN(struct diag_row, severity),
	TEXT_COLUMN(struct diag_row, message),
};
static const struct table diagnostic_table = TABLE("diagnostic", diagnostic_cols, NULL, NULL,
	"CREATE INDEX diagnostic_artifact ON diagnostic(artifact_id);\n");

static const struct col event_cols[] = {
	ID_COLUMN,
	ARTIFACT_COLUMN("INTEGER REFERENCES artifact(id)"),
	COLUMN(struct ol_event, kind, "TEXT NOT NULL", COL_TEXT),
	TIME_COLUMNS(struct ol_event, t),
	{ "boot_id", "TEXT", COL_TEXT, offsetof(struct ol_event, t.boot_id), AT_INSERT },
	INT_COLUMN(struct ol_event, pid),
	TEXT_COLUMN(struct ol_event, comm),
	INT_COLUMN(struct ol_event, bytes),
	COLUMN(struct ol_event, line, "INTEGER", COL_U64),
	TEXT_COLUMN(struct ol_event, summary),
	COLUMN(struct ol_event, data, "TEXT", COL_JSON),
};
static const struct table event_table = TABLE("event", event_cols, NULL, NULL,
	"CREATE INDEX event_time ON event(time_ns);\n"
	/* the events not on UTC in boot order (time_ns IS NULL, then boot_ns):
	 * reports walk it instead of sorting them all in memory */
	"CREATE INDEX event_clock ON event(time_ns, boot_ns);\n"
	"CREATE INDEX event_kind ON event(kind);\n"
	/* the kill of each OOM report, found by the report it names */
	"CREATE INDEX event_invoker ON event(json_extract(data, '$.invoker_event'))"
	" WHERE kind = 'oom_kill';\n");

#define TK(field) INT_COLUMN(struct ol_task, field)
static const struct col task_cols[] = {
	ID_COLUMN,
	PARENT_COLUMN("event_id", "INTEGER REFERENCES event(id)"),
	TK(pid), TK(uid), TK(tgid), TK(total_vm_pages), TK(rss_pages),
	TK(rss_anon_pages), TK(rss_file_pages), TK(rss_shmem_pages),
	TK(pgtables_bytes), TK(nr_ptes), TK(nr_pmds), TK(swapents), TK(oom_adj),
	TK(oom_score_adj),
	TEXT_COLUMN(struct ol_task, name),
};
static const struct table task_table = TABLE("task", task_cols, NULL, NULL,
	"CREATE INDEX task_event ON task(event_id);\n");

static const struct col series_cols[] = {
	ID_COLUMN,
	ARTIFACT_COLUMN("INTEGER"),
	COLUMN(struct series_row, name, "TEXT NOT NULL", COL_TEXT),
	TEXT_COLUMN(struct series_row, unit),
	COLUMN(struct series_row, entity, "TEXT NOT NULL DEFAULT ''", COL_TEXT),
};
static const struct table series_table = TABLE("series", series_cols,
	"UNIQUE(name, entity)", NULL, NULL);

static const struct col sample_cols[] = {
	PARENT_COLUMN("series_id", "INTEGER NOT NULL REFERENCES series(id)"),
	{ "time_ns", "INTEGER", COL_TIME_NS, offsetof(struct sample_row, t), AT_INSERT },
	{ "boot_ns", "INTEGER", COL_BOOT_NS, offsetof(struct sample_row, t), AT_INSERT },
	COLUMN(struct sample_row, value, "REAL", COL_REAL),
};
/* Packed, in blocks of one series each (samples.c writes them): no
 * index; a series' reads find its blocks by their parent. */
static const struct table sample_table = PACKED_TABLE("sample", sample_cols);

static const struct col stack_cols[] = {
	ID_COLUMN,
	COLUMN(struct stack_row, hash, "INTEGER UNIQUE", COL_U64),
	INT_COLUMN(struct stack_row, depth),
};
static const struct table stack_table = TABLE("stack", stack_cols, NULL, NULL, NULL);

static const struct col frame_cols[] = {
	PARENT_COLUMN("stack_id", "INTEGER NOT NULL REFERENCES stack(id)"),
	COLUMN(struct frame_row, idx, "INTEGER NOT NULL", COL_INT),
	{ "name", "TEXT", COL_TEXT, offsetof(struct frame_row, f.name), AT_INSERT },
	{ "file", "TEXT", COL_TEXT, offsetof(struct frame_row, f.file), AT_INSERT },
	{ "line", "INTEGER", COL_INT, offsetof(struct frame_row, f.line), AT_INSERT },
	{ "build_id", "TEXT", COL_TEXT, offsetof(struct frame_row, f.build_id), AT_INSERT },
};
static const struct table frame_table = TABLE("frame", frame_cols,
	"PRIMARY KEY(stack_id, idx)", "WITHOUT ROWID", NULL);

static const struct col anchor_cols[] = {
	ID_COLUMN,
	ARTIFACT_COLUMN("INTEGER"),
	TEXT_COLUMN(struct anchor_row, boot_id),
	INT_COLUMN(struct anchor_row, boot_ns),
	INT_COLUMN(struct anchor_row, utc_ns),
	TEXT_COLUMN(struct anchor_row, how),
};
static const struct table anchor_table = TABLE("anchor", anchor_cols, NULL, NULL, NULL);

static const struct col capture_cols[] = {
	ID_COLUMN,
	ARTIFACT_COLUMN("INTEGER"),
	TEXT_COLUMN(struct ol_capture, source),
	TIME_COLUMNS(struct ol_capture, t),
	INT_COLUMN(struct ol_capture, pid),
	TEXT_COLUMN(struct ol_capture, comm),
	TEXT_COLUMN(struct ol_capture, status),
};
static const struct table capture_table = TABLE("capture", capture_cols, NULL, NULL, NULL);

#define MP(field, kind) COLUMN(struct ol_mapping, field, kind == COL_TEXT ? "TEXT" : "INTEGER", kind)
static const struct col mapping_cols[] = {
	ID_COLUMN,
	PARENT_COLUMN("capture_id", "INTEGER NOT NULL REFERENCES capture(id)"),
	MP(start, COL_U64), MP(end, COL_U64), MP(perms, COL_TEXT), MP(offset, COL_U64),
	MP(dev, COL_TEXT), MP(inode, COL_INT), MP(path, COL_TEXT), MP(kind, COL_TEXT),
	MP(size_kb, COL_INT), MP(rss_kb, COL_INT), MP(pss_kb, COL_INT), MP(anon_kb, COL_INT),
	MP(swap_kb, COL_INT), MP(vmflags, COL_TEXT),
	COLUMN(struct ol_mapping, extra, "TEXT", COL_JSON),
};
static const struct table mapping_table = TABLE("mapping", mapping_cols, NULL, NULL,
	"CREATE INDEX mapping_capture ON mapping(capture_id);\n");

/* The rules' tables: written with SQL by analyzer/rules, never by a sink. */
static const struct col finding_cols[] = {
	ID_COLUMN,
	RULES_COL("rule", "TEXT NOT NULL"), RULES_COL("class", "TEXT NOT NULL"),
	RULES_COL("cause", "TEXT"), RULES_COL("score", "REAL"), RULES_COL("title", "TEXT"),
	RULES_COL("advice", "TEXT"), RULES_COL("figures", "TEXT"), RULES_COL("phase", "TEXT"),
};
static const struct table finding_table = TABLE("finding", finding_cols, NULL, NULL, NULL);

static const struct col evidence_cols[] = {
	RULES_COL("finding_id", "INTEGER NOT NULL REFERENCES finding(id)"),
	RULES_COL("ref_table", "TEXT"), RULES_COL("ref_id", "INTEGER"), RULES_COL("note", "TEXT"),
};
static const struct table evidence_table = TABLE("evidence", evidence_cols, NULL, NULL, NULL);

static const struct col verdict_cols[] = {
	ID_COLUMN,
	RULES_COL("class", "TEXT NOT NULL"), RULES_COL("cause", "TEXT"),
	RULES_COL("confidence", "REAL"), RULES_COL("summary", "TEXT"), RULES_COL("missing", "TEXT"),
	RULES_COL("phase", "TEXT"),
	/* schema 10: what the class rests on, `evidence` (a finding's
	 * figures) or `phase` (inferred from the phase alone:
	 * rules/phase_inferred.c); NULL for inconclusive and no_oom */
	RULES_COL("basis", "TEXT"),
};
static const struct table verdict_table = TABLE("verdict", verdict_cols, NULL, NULL, NULL);

const struct table *const timeline_common_tables[] = {
	&meta_table, &timeline_artifact_table, &diagnostic_table, &event_table, &task_table,
	&series_table, &sample_table, &stack_table, &frame_table, &anchor_table,
	&capture_table, &mapping_table, &finding_table, &evidence_table, &verdict_table,
	NULL
};

/* ---- looking artifacts up (ingest --append) ---- */

/* A file of no known format noted before with this path and size. */
static const char sql_find_skipped[] = "SELECT id FROM artifact WHERE size = ?1 AND path = ?2"
	" AND container IS ?4 AND kind IS NULL AND status = 'skipped' ORDER BY id LIMIT 1";

/* An artifact read before (ok, partial, no_records) with this path, kind
 * and size, and its hash. */
static const char sql_find_read[] = "SELECT id, hash FROM artifact WHERE size = ?1"
	" AND path = ?2 AND kind = ?3 AND container IS ?4 AND hash IS NOT NULL"
	" AND status IN ('ok', 'partial', 'no_records') ORDER BY id LIMIT 1";

int64_t timeline_find_artifact(struct timeline *tl, const char *path, const char *kind,
			       uint64_t size, char hash[TIMELINE_HASH_LEN])
{
	return timeline_find_artifact_in(tl, NULL, path, kind, size, hash);
}

int64_t timeline_find_artifact_in(struct timeline *tl, const char *container, const char *path,
				  const char *kind, uint64_t size, char hash[TIMELINE_HASH_LEN])
{
	sqlite3_stmt *st = timeline_stmt(tl, kind ? sql_find_read : sql_find_skipped);
	int64_t id = 0;
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)size);
	sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
	if (kind)
		sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
	if (container)
		sqlite3_bind_text(st, 4, container, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 4);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		if (kind)
			snprintf(hash, TIMELINE_HASH_LEN, "%s", sqlite3_column_text(st, 1));
	} else if (rc != SQLITE_DONE) {
		id = tl_fail(tl, sqlite3_errmsg(tl->db));
	}
	sqlite3_reset(st);
	return id;
}

int timeline_forget_verdict(struct timeline *tl)
{
	return timeline_exec(tl, "DELETE FROM evidence; DELETE FROM finding; DELETE FROM verdict");
}

/* ---- sink ops ---- */

/* The vocabulary's check (lib/vocab.h): a kind, series name or meta key
 * the declaration does not hold is a programmer error (every name a
 * parser writes is declared, or input-driven by a documented rule), so the
 * write fails with a message naming it: the artifact is rolled back and
 * every test that reads one fails. 0 declared, -1 not. */
static int tl_declared(struct timeline *tl, enum vocab_set set, const char *name)
{
	char msg[200];

	if (vocab_writable(set, name))
		return 0;
	snprintf(msg, sizeof(msg), "oomlens bug: \"%.80s\" is not declared in lib/vocab.h (%s)",
		 name ? name : "(null)", vocab_set_title(set));
	return tl_fail(tl, msg);
}

static int64_t op_event(struct sink *s, const struct ol_event *r)
{
	if (tl_declared(s->ctx, VOCAB_EVENT, r->kind) < 0)
		return -1;
	return tl_insert(s->ctx, &event_table, 0, r);
}

CHILD_RECORD_OP(task, struct ol_task, task_table)
RECORD_OP(capture, struct ol_capture, capture_table)
CHILD_RECORD_OP(mapping, struct ol_mapping, mapping_table)

static int64_t op_sample(struct sink *s, int64_t series_id, const struct ol_time *t,
			 double value)
{
	/* samples come by the hundred thousand: blocks per series (samples.c) */
	return samples_add(s->ctx, series_id, t, value);
}

static int64_t op_meta(struct sink *s, const char *key, const char *value)
{
	struct meta_row r = { key, value };

	if (tl_declared(s->ctx, VOCAB_META, key) < 0)
		return -1;
	return tl_insert(s->ctx, &meta_table, 0, &r);
}

int timeline_meta(struct timeline *tl, const char *key, const char *value)
{
	struct meta_row r = { key, value };

	if (tl_declared(tl, VOCAB_META, key) < 0)
		return -1;
	return tl_insert_in(tl, &meta_table, 0, 0, &r) < 0 ? -1 : 0;
}

static int64_t op_anchor(struct sink *s, const char *boot_id, int64_t boot_ns,
			 int64_t utc_ns, const char *how)
{
	struct anchor_row r = { boot_id, boot_ns, utc_ns, how };

	return tl_insert(s->ctx, &anchor_table, 0, &r);
}

static const char sql_series_find[] = "SELECT id FROM series WHERE name = ? AND entity = ?";

/* A series is one row per (name, entity) across artifacts: the first
 * artifact that writes it adds it, the later ones find it. */
static int64_t op_series(struct sink *s, const char *name, const char *unit,
			 const char *entity)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_series_find);
	struct series_row r = { name, unit, entity ? entity : "" };
	int64_t id = 0;

	if (!st || tl_declared(tl, VOCAB_SERIES_NAME, name) < 0)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, r.entity, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return id ? id : tl_insert(tl, &series_table, 0, &r);
}

/* Only this artifact's samples move: those of the blocks written since
 * it began. */
static int64_t op_series_shift(struct sink *s, int64_t series_id, double delta)
{
	struct timeline *tl = s->ctx;

	return samples_shift(tl, series_id, delta, tl->sample_block_begin) < 0 ? -1 : 1;
}

/* FNV-1a over a frame list; the stack's identity. */
static uint64_t hash_str(uint64_t h, const char *s)
{
	if (!s)
		return (h ^ 0xff) * 1099511628211ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (h ^ 0xfe) * 1099511628211ull;
}

static uint64_t hash_frames(const struct ol_frame *f, size_t n)
{
	uint64_t h = 14695981039346656037ull;
	size_t i;

	for (i = 0; i < n; i++) {
		h = hash_str(h, f[i].name);
		h = hash_str(h, f[i].file);
		h = (h ^ (uint64_t)f[i].line) * 1099511628211ull;
		h = hash_str(h, f[i].build_id);
	}
	return (h ^ n) * 1099511628211ull;
}

static const char sql_stack_find[] = "SELECT id FROM stack WHERE hash = ?";

/* A stack is stored once: the same frames give the same id. */
static int64_t op_stack(struct sink *s, const struct ol_frame *f, size_t n)
{
	struct timeline *tl = s->ctx;
	struct stack_row r = { hash_frames(f, n), (int64_t)n };
	struct frame_row fr;
	sqlite3_stmt *st = timeline_stmt(tl, sql_stack_find);
	int64_t id = 0;
	size_t i;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, (int64_t)r.hash);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (id)
		return id;
	id = tl_insert(tl, &stack_table, 0, &r);
	for (i = 0; id > 0 && i < n; i++) {
		fr.idx = (int64_t)i;
		fr.f = f[i];
		if (tl_insert(tl, &frame_table, id, &fr) < 0)
			return -1;
	}
	return id;
}

static const char *severity_name(enum ol_severity sev)
{
	return sev == OL_ERROR ? "error" : sev == OL_WARN ? "warning" : "info";
}

int timeline_diag(struct timeline *tl, int64_t artifact_id, uint64_t line,
		  uint64_t offset, enum ol_severity sev, const char *msg)
{
	struct diag_row r = { line ? (int64_t)line : OL_NULL, line ? OL_NULL : (int64_t)offset,
			      severity_name(sev), msg };

	return tl_insert_in(tl, &diagnostic_table, artifact_id, 0, &r) < 0 ? -1 : 0;
}

/* Diagnostics are kept in memory during a parse and written after the
 * artifact's transaction ends, so that a rollback does not lose them.
 * Nothing here touches SQLite, which is what lets a snapshot's decoder
 * thread report through sink_diagf while the caller's thread inserts
 * (parsers/torch/torch_pipe.c); one thread at a time may report. */
static int64_t op_diag(struct sink *s, uint64_t line, uint64_t offset,
		       enum ol_severity sev, const char *msg)
{
	struct timeline *tl = s->ctx;
	struct tl_pending_diag *d;

	if (tl->n_pending == TIMELINE_MAX_DIAGS) {
		tl->n_dropped++;
		return 1;
	}
	d = &tl->pending[tl->n_pending++];
	d->line = line;
	d->offset = offset;
	d->sev = sev;
	snprintf(d->msg, sizeof(d->msg), "%s", msg);
	return 1;
}

void timeline_bind_common(struct sink *s)
{
	s->event = op_event;
	s->task = op_task;
	s->series = op_series;
	s->sample = op_sample;
	s->series_shift = op_series_shift;
	s->meta = op_meta;
	s->stack = op_stack;
	s->anchor = op_anchor;
	s->capture = op_capture;
	s->mapping = op_mapping;
	s->diag = op_diag;
}
