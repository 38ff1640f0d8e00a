/*
 * timeline.c -- the SQLite store behind the sink interface.
 *
 * Owns the schema (core tables here; domain tables in timeline_*.c register
 * theirs in schema_parts[]), the per-artifact transaction and the core
 * sink ops. Statements are prepared once and cached by their SQL text's
 * address (timeline_stmt), so every insert is a bind + step.
 */
#include "analyzer/store/timeline.h"
#include "analyzer/store/timeline_parts.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char schema_core[] =
	"CREATE TABLE meta(artifact_id INTEGER, key TEXT NOT NULL, value TEXT);\n"
	"CREATE INDEX meta_key ON meta(key);\n"
	"CREATE TABLE artifact(\n"
	"  id INTEGER PRIMARY KEY, path TEXT NOT NULL, kind TEXT, size INTEGER,\n"
	"  compressed INTEGER, status TEXT, bytes_read INTEGER, seconds REAL,\n"
	"  errors INTEGER DEFAULT 0, warnings INTEGER DEFAULT 0);\n"
	"CREATE TABLE diagnostic(\n"
	"  id INTEGER PRIMARY KEY, artifact_id INTEGER REFERENCES artifact(id),\n"
	"  line INTEGER, offset INTEGER, severity TEXT, message TEXT);\n"
	"CREATE TABLE event(\n"
	"  id INTEGER PRIMARY KEY, artifact_id INTEGER REFERENCES artifact(id),\n"
	"  kind TEXT NOT NULL, time_ns INTEGER, clock TEXT, boot_ns INTEGER,\n"
	"  boot_id TEXT, pid INTEGER, comm TEXT, bytes INTEGER, line INTEGER,\n"
	"  summary TEXT, data TEXT);\n"
	"CREATE INDEX event_time ON event(time_ns);\n"
	"CREATE INDEX event_kind ON event(kind);\n"
	"CREATE TABLE task(\n"
	"  id INTEGER PRIMARY KEY, event_id INTEGER REFERENCES event(id),\n"
	"  pid INTEGER, uid INTEGER, tgid INTEGER, total_vm_pages INTEGER,\n"
	"  rss_pages INTEGER, rss_anon_pages INTEGER, rss_file_pages INTEGER,\n"
	"  rss_shmem_pages INTEGER, pgtables_bytes INTEGER, nr_ptes INTEGER,\n"
	"  nr_pmds INTEGER, swapents INTEGER, oom_adj INTEGER,\n"
	"  oom_score_adj INTEGER, name TEXT);\n"
	"CREATE INDEX task_event ON task(event_id);\n"
	"CREATE TABLE series(\n"
	"  id INTEGER PRIMARY KEY, artifact_id INTEGER, name TEXT NOT NULL,\n"
	"  unit TEXT, entity TEXT NOT NULL DEFAULT '', UNIQUE(name, entity));\n"
	"CREATE TABLE sample(\n"
	"  series_id INTEGER NOT NULL REFERENCES series(id), time_ns INTEGER,\n"
	"  boot_ns INTEGER, value REAL);\n"
	"CREATE INDEX sample_series_time ON sample(series_id, time_ns);\n"
	"CREATE TABLE stack(id INTEGER PRIMARY KEY, hash INTEGER UNIQUE, depth INTEGER);\n"
	"CREATE TABLE frame(\n"
	"  stack_id INTEGER NOT NULL REFERENCES stack(id), idx INTEGER NOT NULL,\n"
	"  name TEXT, file TEXT, line INTEGER, build_id TEXT,\n"
	"  PRIMARY KEY(stack_id, idx)) WITHOUT ROWID;\n"
	"CREATE TABLE anchor(\n"
	"  id INTEGER PRIMARY KEY, artifact_id INTEGER, boot_id TEXT,\n"
	"  boot_ns INTEGER, utc_ns INTEGER, how TEXT);\n"
	"CREATE TABLE capture(\n"
	"  id INTEGER PRIMARY KEY, artifact_id INTEGER, source TEXT, time_ns INTEGER,\n"
	"  clock TEXT, boot_ns INTEGER, pid INTEGER, comm TEXT, status TEXT);\n"
	"CREATE TABLE mapping(\n"
	"  id INTEGER PRIMARY KEY, capture_id INTEGER NOT NULL REFERENCES capture(id),\n"
	"  start INTEGER, end INTEGER, perms TEXT, offset INTEGER, dev TEXT,\n"
	"  inode INTEGER, path TEXT, kind TEXT, size_kb INTEGER, rss_kb INTEGER,\n"
	"  pss_kb INTEGER, anon_kb INTEGER, swap_kb INTEGER, vmflags TEXT, extra TEXT);\n"
	"CREATE INDEX mapping_capture ON mapping(capture_id);\n"
	"CREATE TABLE finding(\n"
	"  id INTEGER PRIMARY KEY, rule TEXT NOT NULL, class TEXT NOT NULL,\n"
	"  cause TEXT, score REAL, title TEXT, advice TEXT, figures TEXT);\n"
	"CREATE TABLE evidence(\n"
	"  finding_id INTEGER NOT NULL REFERENCES finding(id), ref_table TEXT,\n"
	"  ref_id INTEGER, note TEXT);\n"
	"CREATE TABLE verdict(\n"
	"  id INTEGER PRIMARY KEY, class TEXT NOT NULL, cause TEXT,\n"
	"  confidence REAL, summary TEXT, missing TEXT);\n";

static const char *const schema_parts[] = {
	schema_core,
	TIMELINE_SCHEMA_PARTS
	NULL
};

int timeline_exec(struct timeline *tl, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(tl->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "oomlens: sqlite: %s\n", msg ? msg : "error");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

sqlite3_stmt *timeline_stmt(struct timeline *tl, const char *sql)
{
	size_t i;

	for (i = 0; i < TIMELINE_NSTMT && tl->stmt_sql[i]; i++)
		if (tl->stmt_sql[i] == sql) {
			sqlite3_reset(tl->stmts[i]);
			sqlite3_clear_bindings(tl->stmts[i]);
			return tl->stmts[i];
		}
	if (i == TIMELINE_NSTMT)
		return NULL;
	if (sqlite3_prepare_v3(tl->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &tl->stmts[i],
			       NULL) != SQLITE_OK) {
		fprintf(stderr, "oomlens: sqlite: %s\n", sqlite3_errmsg(tl->db));
		return NULL;
	}
	tl->stmt_sql[i] = sql;
	return tl->stmts[i];
}

void tl_bind_int(sqlite3_stmt *st, int col, int64_t v)
{
	if (v == OL_NULL)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_int64(st, col, v);
}

void tl_bind_text(sqlite3_stmt *st, int col, const char *s)
{
	if (s)
		sqlite3_bind_text(st, col, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, col);
}

void tl_bind_json(sqlite3_stmt *st, int col, json_t *j)
{
	char *s;

	if (!j) {
		sqlite3_bind_null(st, col);
		return;
	}
	s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (s)
		sqlite3_bind_text(st, col, s, -1, free);
	else
		sqlite3_bind_null(st, col);
}

const char *tl_clock_name(enum ol_clock c)
{
	switch (c) {
	case OL_CLOCK_UTC: return "utc";
	case OL_CLOCK_LOCAL: return "local";
	case OL_CLOCK_BOOT: return "boot";
	default: return NULL;
	}
}

/* Step a bound insert; returns the new rowid or -1. */
int64_t tl_step(struct timeline *tl, sqlite3_stmt *st)
{
	if (!st)
		return -1;
	if (sqlite3_step(st) != SQLITE_DONE) {
		fprintf(stderr, "oomlens: sqlite: %s\n", sqlite3_errmsg(tl->db));
		sqlite3_reset(st);
		return -1;
	}
	sqlite3_reset(st);
	return sqlite3_last_insert_rowid(tl->db);
}

/* Bind the three time columns (time_ns, clock, boot_ns) from col on. */
void tl_bind_time(sqlite3_stmt *st, int col, const struct ol_time *t)
{
	tl_bind_int(st, col, t->clock == OL_CLOCK_UTC || t->clock == OL_CLOCK_LOCAL
			     ? t->utc_ns : OL_NULL);
	tl_bind_text(st, col + 1, tl_clock_name(t->clock));
	tl_bind_int(st, col + 2, t->boot_ns);
}

/* ---- core sink ops ---- */

static const char sql_event[] =
	"INSERT INTO event(artifact_id, kind, time_ns, clock, boot_ns, boot_id, pid,"
	" comm, bytes, line, summary, data) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)";

static int64_t op_event(struct sink *s, const struct ol_event *e)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_event);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, tl->artifact_id);
	tl_bind_text(st, 2, e->kind);
	tl_bind_time(st, 3, &e->t);
	tl_bind_text(st, 6, e->t.boot_id);
	tl_bind_int(st, 7, e->pid);
	tl_bind_text(st, 8, e->comm);
	tl_bind_int(st, 9, e->bytes);
	sqlite3_bind_int64(st, 10, (int64_t)e->line);
	tl_bind_text(st, 11, e->summary);
	tl_bind_json(st, 12, e->data);
	return tl_step(tl, st);
}

static const char sql_task[] =
	"INSERT INTO task(event_id, pid, uid, tgid, total_vm_pages, rss_pages,"
	" rss_anon_pages, rss_file_pages, rss_shmem_pages, pgtables_bytes, nr_ptes,"
	" nr_pmds, swapents, oom_adj, oom_score_adj, name)"
	" VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";

static int64_t op_task(struct sink *s, int64_t event_id, const struct ol_task *t)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_task);

	if (!st)
		return -1;
	tl_bind_int(st, 1, event_id);
	tl_bind_int(st, 2, t->pid);
	tl_bind_int(st, 3, t->uid);
	tl_bind_int(st, 4, t->tgid);
	tl_bind_int(st, 5, t->total_vm_pages);
	tl_bind_int(st, 6, t->rss_pages);
	tl_bind_int(st, 7, t->rss_anon_pages);
	tl_bind_int(st, 8, t->rss_file_pages);
	tl_bind_int(st, 9, t->rss_shmem_pages);
	tl_bind_int(st, 10, t->pgtables_bytes);
	tl_bind_int(st, 11, t->nr_ptes);
	tl_bind_int(st, 12, t->nr_pmds);
	tl_bind_int(st, 13, t->swapents);
	tl_bind_int(st, 14, t->oom_adj);
	tl_bind_int(st, 15, t->oom_score_adj);
	tl_bind_text(st, 16, t->name);
	return tl_step(tl, st);
}

static const char sql_series_find[] = "SELECT id FROM series WHERE name = ? AND entity = ?";
static const char sql_series_add[] =
	"INSERT INTO series(artifact_id, name, unit, entity) VALUES(?,?,?,?)";

static int64_t op_series(struct sink *s, const char *name, const char *unit,
			 const char *entity)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_series_find);
	int64_t id = 0;

	if (!st)
		return -1;
	tl_bind_text(st, 1, name);
	sqlite3_bind_text(st, 2, entity ? entity : "", -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (id)
		return id;
	st = timeline_stmt(tl, sql_series_add);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, tl->artifact_id);
	tl_bind_text(st, 2, name);
	tl_bind_text(st, 3, unit);
	sqlite3_bind_text(st, 4, entity ? entity : "", -1, SQLITE_TRANSIENT);
	return tl_step(tl, st);
}

static const char sql_sample[] =
	"INSERT INTO sample(series_id, time_ns, boot_ns, value) VALUES(?,?,?,?)";

static int64_t op_sample(struct sink *s, int64_t series_id, const struct ol_time *t,
			 double value)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_sample);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, series_id);
	tl_bind_int(st, 2, t->clock == OL_CLOCK_UTC || t->clock == OL_CLOCK_LOCAL
			   ? t->utc_ns : OL_NULL);
	tl_bind_int(st, 3, t->boot_ns);
	sqlite3_bind_double(st, 4, value);
	return tl_step(tl, st) < 0 ? -1 : 1;
}

static const char sql_shift[] =
	"UPDATE sample SET value = value + ? WHERE series_id = ? AND rowid > ?";

/* Only this artifact's samples move: rowids above those at its start. */
static int64_t op_series_shift(struct sink *s, int64_t series_id, double delta)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_shift);

	if (!st)
		return -1;
	sqlite3_bind_double(st, 1, delta);
	sqlite3_bind_int64(st, 2, series_id);
	sqlite3_bind_int64(st, 3, tl->sample_rowid_begin);
	return tl_step(tl, st) < 0 ? -1 : 1;
}

static const char sql_meta[] = "INSERT INTO meta(artifact_id, key, value) VALUES(?,?,?)";

static int64_t op_meta(struct sink *s, const char *key, const char *value)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_meta);

	if (!st)
		return -1;
	tl_bind_int(st, 1, tl->artifact_id ? tl->artifact_id : OL_NULL);
	tl_bind_text(st, 2, key);
	tl_bind_text(st, 3, value);
	return tl_step(tl, st);
}

int timeline_meta(struct timeline *tl, const char *key, const char *value)
{
	int64_t saved = tl->artifact_id;
	int64_t r;

	tl->artifact_id = 0;
	r = op_meta(&tl->sink, key, value);
	tl->artifact_id = saved;
	return r < 0 ? -1 : 0;
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

static const char sql_stack_find[] = "SELECT id FROM stack WHERE hash = ?";
static const char sql_stack_add[] = "INSERT INTO stack(hash, depth) VALUES(?,?)";
static const char sql_frame_add[] =
	"INSERT INTO frame(stack_id, idx, name, file, line, build_id) VALUES(?,?,?,?,?,?)";

static int64_t op_stack(struct sink *s, const struct ol_frame *f, size_t n)
{
	struct timeline *tl = s->ctx;
	uint64_t h = 14695981039346656037ull;
	sqlite3_stmt *st;
	int64_t id = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		h = hash_str(h, f[i].name);
		h = hash_str(h, f[i].file);
		h = (h ^ (uint64_t)f[i].line) * 1099511628211ull;
		h = hash_str(h, f[i].build_id);
	}
	h = (h ^ n) * 1099511628211ull;
	st = timeline_stmt(tl, sql_stack_find);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, (int64_t)h);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (id)
		return id;
	st = timeline_stmt(tl, sql_stack_add);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, (int64_t)h);
	sqlite3_bind_int64(st, 2, (int64_t)n);
	id = tl_step(tl, st);
	for (i = 0; id > 0 && i < n; i++) {
		st = timeline_stmt(tl, sql_frame_add);
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		tl_bind_text(st, 3, f[i].name);
		tl_bind_text(st, 4, f[i].file);
		tl_bind_int(st, 5, f[i].line);
		tl_bind_text(st, 6, f[i].build_id);
		if (tl_step(tl, st) < 0)
			return -1;
	}
	return id;
}

static const char sql_anchor[] =
	"INSERT INTO anchor(artifact_id, boot_id, boot_ns, utc_ns, how) VALUES(?,?,?,?,?)";

static int64_t op_anchor(struct sink *s, const char *boot_id, int64_t boot_ns,
			 int64_t utc_ns, const char *how)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_anchor);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, tl->artifact_id);
	tl_bind_text(st, 2, boot_id);
	tl_bind_int(st, 3, boot_ns);
	tl_bind_int(st, 4, utc_ns);
	tl_bind_text(st, 5, how);
	return tl_step(tl, st);
}

static const char sql_capture[] =
	"INSERT INTO capture(artifact_id, source, time_ns, clock, boot_ns, pid, comm,"
	" status) VALUES(?,?,?,?,?,?,?,?)";

static int64_t op_capture(struct sink *s, const struct ol_capture *c)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_capture);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, tl->artifact_id);
	tl_bind_text(st, 2, c->source);
	tl_bind_time(st, 3, &c->t);
	tl_bind_int(st, 6, c->pid);
	tl_bind_text(st, 7, c->comm);
	tl_bind_text(st, 8, c->status);
	return tl_step(tl, st);
}

static const char sql_mapping[] =
	"INSERT INTO mapping(capture_id, start, end, perms, offset, dev, inode, path,"
	" kind, size_kb, rss_kb, pss_kb, anon_kb, swap_kb, vmflags, extra)"
	" VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";

static int64_t op_mapping(struct sink *s, int64_t capture_id, const struct ol_mapping *m)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_mapping);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, capture_id);
	sqlite3_bind_int64(st, 2, (int64_t)m->start);
	sqlite3_bind_int64(st, 3, (int64_t)m->end);
	tl_bind_text(st, 4, m->perms);
	sqlite3_bind_int64(st, 5, (int64_t)m->offset);
	tl_bind_text(st, 6, m->dev);
	tl_bind_int(st, 7, m->inode);
	tl_bind_text(st, 8, m->path);
	tl_bind_text(st, 9, m->kind);
	tl_bind_int(st, 10, m->size_kb);
	tl_bind_int(st, 11, m->rss_kb);
	tl_bind_int(st, 12, m->pss_kb);
	tl_bind_int(st, 13, m->anon_kb);
	tl_bind_int(st, 14, m->swap_kb);
	tl_bind_text(st, 15, m->vmflags);
	tl_bind_json(st, 16, m->extra);
	return tl_step(tl, st);
}

static const char *severity_name(enum ol_severity sev)
{
	return sev == OL_ERROR ? "error" : sev == OL_WARN ? "warning" : "info";
}

static const char sql_diag[] =
	"INSERT INTO diagnostic(artifact_id, line, offset, severity, message)"
	" VALUES(?,?,?,?,?)";

int timeline_diag(struct timeline *tl, int64_t artifact_id, uint64_t line,
		  uint64_t offset, enum ol_severity sev, const char *msg)
{
	sqlite3_stmt *st = timeline_stmt(tl, sql_diag);

	if (!st)
		return -1;
	tl_bind_int(st, 1, artifact_id ? artifact_id : OL_NULL);
	tl_bind_int(st, 2, line ? (int64_t)line : OL_NULL);
	tl_bind_int(st, 3, line ? OL_NULL : (int64_t)offset);
	tl_bind_text(st, 4, severity_name(sev));
	tl_bind_text(st, 5, msg);
	return tl_step(tl, st) < 0 ? -1 : 0;
}

/* Diagnostics are kept in memory during a parse and written after the
 * artifact's transaction ends, so that a rollback does not lose them. */
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

/* ---- lifecycle ---- */

int timeline_open(struct timeline *tl, const char *path, int create, struct strbuf *err)
{
	int i, version = -1;
	sqlite3_stmt *st;

	memset(tl, 0, sizeof(*tl));
	tl->opts.boot_time_ns = OL_NULL;
	if (create && strcmp(path, ":memory:") != 0)
		unlink(path);
	/* NOMUTEX: one thread per connection; the mutexes cost ~5% of a bulk ingest */
	if (sqlite3_open_v2(path, &tl->db, (create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
						   : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		strbuf_addf(err, "%s: cannot open database: %s", path,
			    tl->db ? sqlite3_errmsg(tl->db) : "out of memory");
		sqlite3_close(tl->db);
		tl->db = NULL;
		return -1;
	}
	sqlite3_exec(tl->db, "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF;"
		     " PRAGMA cache_size=-16000; PRAGMA temp_store=MEMORY", NULL, NULL, NULL);
	if (create) {
		char sql[64];
		for (i = 0; schema_parts[i]; i++)
			if (timeline_exec(tl, schema_parts[i]) < 0)
				goto bad_schema;
		snprintf(sql, sizeof(sql), "PRAGMA user_version=%d", TIMELINE_SCHEMA_VERSION);
		timeline_exec(tl, sql);
	}
	if (sqlite3_prepare_v2(tl->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			version = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	if (version != TIMELINE_SCHEMA_VERSION) {
		strbuf_addf(err, "%s: not an oomlens database of schema version %d (found %d)",
			    path, TIMELINE_SCHEMA_VERSION, version);
		timeline_close(tl);
		return -1;
	}
	tl->sink.ctx = tl;
	tl->sink.opts = &tl->opts;
	tl->sink.event = op_event;
	tl->sink.task = op_task;
	tl->sink.series = op_series;
	tl->sink.sample = op_sample;
	tl->sink.series_shift = op_series_shift;
	tl->sink.meta = op_meta;
	tl->sink.stack = op_stack;
	tl->sink.anchor = op_anchor;
	tl->sink.capture = op_capture;
	tl->sink.mapping = op_mapping;
	tl->sink.diag = op_diag;
	TIMELINE_BIND_PARTS(&tl->sink);
	return 0;

bad_schema:
	strbuf_addf(err, "%s: cannot create schema: %s", path, sqlite3_errmsg(tl->db));
	timeline_close(tl);
	return -1;
}

void timeline_close(struct timeline *tl)
{
	size_t i;

	for (i = 0; i < TIMELINE_NSTMT; i++)
		if (tl->stmts[i])
			sqlite3_finalize(tl->stmts[i]);
	if (tl->db)
		sqlite3_close(tl->db);
	memset(tl->stmts, 0, sizeof(tl->stmts));
	memset(tl->stmt_sql, 0, sizeof(tl->stmt_sql));
	tl->db = NULL;
}

static const char sql_sample_max[] = "SELECT coalesce(max(rowid), 0) FROM sample";
static const char sql_artifact_add[] =
	"INSERT INTO artifact(path, kind, size, compressed, status) VALUES(?,?,?,?,'reading')";

int64_t timeline_artifact_begin(struct timeline *tl, const char *path, const char *kind,
				uint64_t size, int compressed)
{
	sqlite3_stmt *st = timeline_stmt(tl, sql_artifact_add);

	if (!st)
		return -1;
	tl_bind_text(st, 1, path);
	tl_bind_text(st, 2, kind);
	sqlite3_bind_int64(st, 3, (int64_t)size);
	sqlite3_bind_int(st, 4, compressed);
	tl->artifact_id = tl_step(tl, st);
	if (tl->artifact_id < 0)
		return -1;
	if (timeline_exec(tl, "SAVEPOINT artifact") < 0)
		return -1;
	{
		sqlite3_stmt *q = timeline_stmt(tl, sql_sample_max);
		tl->sample_rowid_begin = 0;
		if (q && sqlite3_step(q) == SQLITE_ROW)
			tl->sample_rowid_begin = sqlite3_column_int64(q, 0);
		if (q)
			sqlite3_reset(q);
	}
	tl->sink.path = path;
	tl->sink.n_errors = tl->sink.n_warnings = 0;
	tl->n_pending = tl->n_dropped = 0;
	return tl->artifact_id;
}

static const char sql_artifact_end[] =
	"UPDATE artifact SET status = ?, bytes_read = ?, seconds = ?, errors = ?,"
	" warnings = ? WHERE id = ?";

int timeline_artifact_end(struct timeline *tl, int ok, const char *status,
			  uint64_t bytes_read, double seconds)
{
	sqlite3_stmt *st;
	size_t i;
	int r = 0;

	if (!ok)
		timeline_exec(tl, "ROLLBACK TO artifact");
	if (timeline_exec(tl, "RELEASE artifact") < 0)
		r = -1;
	for (i = 0; i < tl->n_pending; i++) {
		struct tl_pending_diag *d = &tl->pending[i];
		if (timeline_diag(tl, tl->artifact_id, d->line, d->offset, d->sev, d->msg) < 0)
			r = -1;
	}
	if (tl->n_dropped) {
		char msg[96];
		snprintf(msg, sizeof(msg), "%u more diagnostics not recorded", tl->n_dropped);
		timeline_diag(tl, tl->artifact_id, 0, 0, OL_WARN, msg);
	}
	st = timeline_stmt(tl, sql_artifact_end);
	if (!st)
		return -1;
	tl_bind_text(st, 1, status);
	sqlite3_bind_int64(st, 2, (int64_t)bytes_read);
	sqlite3_bind_double(st, 3, seconds);
	sqlite3_bind_int(st, 4, (int)tl->sink.n_errors);
	sqlite3_bind_int(st, 5, (int)tl->sink.n_warnings);
	sqlite3_bind_int64(st, 6, tl->artifact_id);
	if (tl_step(tl, st) < 0)
		r = -1;
	tl->artifact_id = 0;
	tl->n_pending = 0;
	return r;
}

/* Boot-relative times become UTC through an anchor: an artifact that saw
 * both clocks (journal JSON, smaps separators with mono=, dmesg -T with a
 * raw twin) or the user's --boot-time. With one boot id (or none given)
 * the single anchor applies to every boot-clock row; with several, rows
 * match on boot_id. The median anchor offset is used, so one bad anchor
 * does not move the rest. */
int timeline_align_clocks(struct timeline *tl)
{
	char sql[512];

	if (tl->opts.boot_time_ns != OL_NULL) {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO anchor(artifact_id, boot_id, boot_ns, utc_ns, how)"
			 " VALUES(NULL, NULL, 0, %lld, '--boot-time')",
			 (long long)tl->opts.boot_time_ns);
		if (timeline_exec(tl, sql) < 0)
			return -1;
	}
	return timeline_exec(tl,
		"CREATE TEMP TABLE IF NOT EXISTS boot_offset(boot_id TEXT, off INTEGER, how TEXT);"
		"DELETE FROM boot_offset;"
		/* median offset per boot id (NULL boot id = any boot) */
		"INSERT INTO boot_offset SELECT boot_id, off, how FROM ("
		"  SELECT boot_id, utc_ns - boot_ns AS off, how,"
		"    row_number() OVER (PARTITION BY boot_id ORDER BY utc_ns - boot_ns) AS rn,"
		"    count(*) OVER (PARTITION BY boot_id) AS n"
		"  FROM anchor WHERE boot_ns IS NOT NULL AND utc_ns IS NOT NULL)"
		" WHERE rn = (n + 1) / 2;"
		"UPDATE event SET time_ns = boot_ns + (SELECT off FROM boot_offset b"
		"    WHERE b.boot_id IS event.boot_id OR b.boot_id IS NULL"
		"       OR (event.boot_id IS NULL AND (SELECT count(*) FROM boot_offset) = 1)"
		"    ORDER BY b.boot_id IS NULL LIMIT 1),"
		"  clock = 'aligned'"
		" WHERE clock = 'boot' AND boot_ns IS NOT NULL AND EXISTS (SELECT 1 FROM boot_offset b"
		"    WHERE b.boot_id IS event.boot_id OR b.boot_id IS NULL"
		"       OR (event.boot_id IS NULL AND (SELECT count(*) FROM boot_offset) = 1));"
		"UPDATE sample SET time_ns = boot_ns + (SELECT off FROM boot_offset ORDER BY boot_id IS NULL LIMIT 1)"
		" WHERE time_ns IS NULL AND boot_ns IS NOT NULL AND (SELECT count(*) FROM boot_offset) = 1;");
}
