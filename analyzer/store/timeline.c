/*
 * timeline.c -- the SQLite store behind the sink interface: opening and
 * creating the database, the per-artifact transaction, the statement
 * cache, the generic insert and update of a described record, errors,
 * and clock alignment.
 *
 * Rows written by the million go through the bulk path and its writer
 * thread (timeline_bulk.c): every statement the cache hands out, and
 * timeline_exec, first takes the connection from the writer.
 *
 * The schema is the union of the record stores' table lists
 * (timeline_common.c, timeline_cores.c, timeline_snapshot.c,
 * timeline_engine.c), each table
 * created from its column descriptors (table.h). Statements are prepared
 * once and cached (by their SQL text's address, or by the table they
 * insert into), so every insert is a bind + step.
 */
#include "analyzer/store/timeline.h"
#include "analyzer/store/packed.h"
#include "analyzer/store/samples.h"
#include "analyzer/store/timeline_parts.h"
#include "lib/strbuf.h"
#include "lib/vocab.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Every table, in the order it is created. */
static const struct table *const *const schema_parts[] = {
	timeline_common_tables,
	timeline_cores_tables,
	timeline_snapshot_tables,
	timeline_engine_tables,
	NULL
};

/* ---- errors and statements ---- */

int tl_fail(struct timeline *tl, const char *msg)
{
	if (!msg)
		msg = "error";
	snprintf(tl->errmsg, sizeof(tl->errmsg), "%s", msg);
	if (tl->on_error)
		tl->on_error(tl->on_error_arg, msg);  /* whole, errmsg may be cut */
	return -1;
}

int timeline_exec(struct timeline *tl, const char *sql)
{
	char *msg = NULL;

	if (tl_bulk_sync(tl) < 0)
		return -1;
	if (sqlite3_exec(tl->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		tl_fail(tl, msg);
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* The cache entry of (key, which): the one holding its statement, else
 * the first free one (key NULL); NULL when the cache is full. */
static struct tl_stmt *cache_entry(struct timeline *tl, const void *key, int which)
{
	size_t i;

	if (tl_bulk_sync(tl) < 0)   /* the connection is the writer's until it is idle */
		return NULL;
	for (i = 0; i < TIMELINE_NSTMT; i++)
		if (!tl->stmts[i].key || (tl->stmts[i].key == key && tl->stmts[i].which == which))
			return &tl->stmts[i];
	tl_fail(tl, "too many statements");
	return NULL;
}

/* Prepare sql into the free cache entry e, for (key, which). */
static sqlite3_stmt *cache_prepare(struct timeline *tl, struct tl_stmt *e, const void *key,
				   int which, const char *sql)
{
	if (sqlite3_prepare_v3(tl->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &e->st,
			       NULL) != SQLITE_OK) {
		tl_fail(tl, sqlite3_errmsg(tl->db));
		sqlite3_finalize(e->st);
		e->st = NULL;
		return NULL;
	}
	e->key = key;
	e->which = which;
	return e->st;
}

sqlite3_stmt *timeline_stmt(struct timeline *tl, const char *sql)
{
	struct tl_stmt *e = cache_entry(tl, sql, -1);

	if (!e)
		return NULL;
	if (!e->key)
		return cache_prepare(tl, e, sql, -1, sql);
	sqlite3_reset(e->st);
	sqlite3_clear_bindings(e->st);
	return e->st;
}

/* The cached INSERT or UPDATE of table t, built from its descriptors.
 * Not unbound: table_bind binds every parameter. */
static sqlite3_stmt *table_stmt(struct timeline *tl, const struct table *t,
				enum table_stmt which)
{
	struct tl_stmt *e = cache_entry(tl, t, (int)which);
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *st = NULL;

	if (!e || e->key)
		return e ? e->st : NULL;
	table_stmt_sql(t, which, &sql);
	if (strbuf_failed(&sql))
		tl_fail(tl, "out of memory");
	else
		st = cache_prepare(tl, e, t, (int)which, sql.buf);
	strbuf_release(&sql);
	return st;
}

/* Step a bound statement; see timeline_parts.h. */
int64_t tl_step(struct timeline *tl, sqlite3_stmt *st)
{
	if (!st)
		return -1;
	if (sqlite3_step(st) != SQLITE_DONE) {
		tl_fail(tl, sqlite3_errmsg(tl->db));
		sqlite3_reset(st);
		return -1;
	}
	sqlite3_reset(st);
	return sqlite3_last_insert_rowid(tl->db);
}

int64_t tl_insert_in(struct timeline *tl, const struct table *t, int64_t artifact_id,
		     int64_t parent, const void *row)
{
	sqlite3_stmt *st = table_stmt(tl, t, TABLE_INSERT);
	int64_t id;

	if (!st)
		return -1;
	table_bind(st, t, TABLE_INSERT, artifact_id, parent, row, 0);
	id = tl_step(tl, st);
	return id < 0 ? -1 : table_has_id(t) ? id : 1;
}

int64_t tl_insert(struct timeline *tl, const struct table *t, int64_t parent,
		  const void *row)
{
	return tl_insert_in(tl, t, tl->artifact_id, parent, row);
}

int tl_update(struct timeline *tl, const struct table *t, int64_t id, const void *row)
{
	sqlite3_stmt *st = table_stmt(tl, t, TABLE_UPDATE);

	if (!st)
		return -1;
	table_bind(st, t, TABLE_UPDATE, tl->artifact_id, 0, row, id);
	return tl_step(tl, st) < 0 ? -1 : 0;
}

/* ---- lifecycle ---- */

/* Create every table of schema_parts and stamp the database as
 * oomlens's (application id) of this schema version, in one exec.
 * Returns 0, or -1 with the message in tl->errmsg. */
static int create_schema(struct timeline *tl)
{
	struct strbuf sql = STRBUF_INIT;
	size_t p, i;
	int r = 0;

	strbuf_addstr(&sql, "BEGIN;");
	for (p = 0; schema_parts[p]; p++)
		for (i = 0; schema_parts[p][i]; i++)
			table_create_sql(schema_parts[p][i], &sql);
	strbuf_addf(&sql, "PRAGMA application_id=%d; PRAGMA user_version=%d; COMMIT;",
		    TIMELINE_APPLICATION_ID, TIMELINE_SCHEMA_VERSION);
	if (strbuf_failed(&sql))
		r = tl_fail(tl, "out of memory");
	else
		r = timeline_exec(tl, sql.buf);
	strbuf_release(&sql);
	return r;
}

/* PRAGMA user_version of the open database, -1 when it cannot be read. */
static int schema_version(struct timeline *tl)
{
	sqlite3_stmt *st;
	int version = -1;

	if (sqlite3_prepare_v2(tl->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			version = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	return version;
}

/* The file checks and locks of mode before SQLite opens anything: the
 * path SQLite is to open (the temporary for TL_CREATE) in *file.
 * 0, or -1 with why in err. */
static int prepare_file(struct timeline *tl, const char *path, enum timeline_mode mode,
			const char **file, struct strbuf *err)
{
	int ours;

	*file = path;
	if (!strcmp(path, ":memory:")) {
		if (mode == TL_CREATE)
			return 0;
		strbuf_addstr(err, ":memory: holds no database to open");
		return -1;
	}
	if (!(tl->path = strdup(path))) {
		strbuf_addf(err, "%s: out of memory", path);
		return -1;
	}
	ours = timeline_file_is_ours(path, err);
	if (ours < 0)
		return -1;
	if (mode != TL_CREATE && !ours) {
		strbuf_addf(err, "%s: %s", path, access(path, F_OK) < 0 ? strerror(ENOENT)
			    : "not an oomlens database (an empty file)");
		return -1;
	}
	if (mode == TL_READ)
		return 0;
	if (dbfile_lock(tl, path, err) < 0)
		return -1;
	if (mode == TL_WRITE)
		return 0;
	if (dbfile_make_temp(tl, path, err) < 0)
		return -1;
	*file = tl->tmp_path;
	return 0;
}

/* The pragmas of mode: a new database is private until it is renamed, so
 * it needs neither journal on disk nor syncs (its savepoints still roll
 * back, in memory); one written in place keeps a rollback journal and
 * syncs every commit, so that a kill or a crash leaves it as it was. */
static const char *mode_pragmas(enum timeline_mode mode)
{
	if (mode == TL_CREATE)
		return "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF;"
		       " PRAGMA cache_size=-16000; PRAGMA temp_store=MEMORY";
	if (mode == TL_WRITE)
		return "PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL;"
		       " PRAGMA cache_size=-16000; PRAGMA temp_store=MEMORY";
	return "PRAGMA cache_size=-16000; PRAGMA temp_store=MEMORY";
}

int timeline_open(struct timeline *tl, const char *path, enum timeline_mode mode,
		  struct strbuf *err)
{
	const char *file;
	int version, flags, imaged = 0;

	memset(tl, 0, sizeof(*tl));
	tl->opts.boot_time_ns = OL_NULL;
	/* SQLite's memory statistics take a global mutex on every malloc and
	 * free (~5% of a bulk ingest); nothing here reads them. Refused, and
	 * harmless, once SQLite is initialized. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	tl->mode = mode;
	tl->tmp_fd = tl->lock_fd = -1;
	/* a new file starts as the build's empty database, when it has one:
	 * written before SQLite opens it */
	if (prepare_file(tl, path, mode, &file, err) < 0 ||
	    (mode == TL_CREATE && (imaged = dbfile_write_image(tl, err)) < 0)) {
		timeline_close(tl);
		return -1;
	}
	/* NOMUTEX: one thread per connection; the mutexes cost ~5% of a bulk
	 * ingest. A reader opens read-write when it may, so that it can roll
	 * back what a killed writer left in its journal. */
	flags = mode == TL_CREATE ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
		: mode == TL_WRITE || access(path, W_OK) == 0 ? SQLITE_OPEN_READWRITE
		: SQLITE_OPEN_READONLY;
	if (sqlite3_open_v2(file, &tl->db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		strbuf_addf(err, "%s: cannot open database: %s", path,
			    tl->db ? sqlite3_errmsg(tl->db) : "out of memory");
		timeline_close(tl);
		return -1;
	}
	if (packed_register(tl->db) != SQLITE_OK || samples_register(tl->db) != SQLITE_OK) {
		strbuf_addf(err, "%s: cannot open database: %s", path, sqlite3_errmsg(tl->db));
		timeline_close(tl);
		return -1;
	}
	sqlite3_busy_timeout(tl->db, 10000);
	sqlite3_exec(tl->db, mode_pragmas(mode), NULL, NULL, NULL);
	if (mode == TL_CREATE && !imaged && create_schema(tl) < 0) {
		strbuf_addf(err, "%s: cannot create schema: %s", path, tl->errmsg);
		timeline_close(tl);
		return -1;
	}
	version = schema_version(tl);
	if (version != TIMELINE_SCHEMA_VERSION) {
		if (version < 0)
			strbuf_addf(err, "%s: cannot read the database: %s", path,
				    sqlite3_errmsg(tl->db));
		else
			strbuf_addf(err, "%s: an oomlens database of schema version %d; this"
				    " oomlens reads version %d (ingest the artifacts again)",
				    path, version, TIMELINE_SCHEMA_VERSION);
		timeline_close(tl);
		return -1;
	}
	tl->sink.ctx = tl;
	tl->sink.opts = &tl->opts;
	timeline_bind_common(&tl->sink);
	timeline_bind_cores(&tl->sink);
	timeline_bind_snapshot(&tl->sink);
	timeline_bind_holders(&tl->sink);
	timeline_bind_engine(&tl->sink);
	return 0;
}

int timeline_begin(struct timeline *tl)
{
	return timeline_exec(tl, "BEGIN IMMEDIATE");
}

int timeline_commit(struct timeline *tl, struct strbuf *err)
{
	if (!sqlite3_get_autocommit(tl->db) && timeline_exec(tl, "COMMIT") < 0) {
		strbuf_addf(err, "%s: cannot commit: %s", tl->path ? tl->path : ":memory:",
			    tl->errmsg);
		return -1;
	}
	if (tl->mode == TL_CREATE && tl->tmp_path)
		return dbfile_commit(tl, err);
	return 0;
}

void timeline_close(struct timeline *tl)
{
	size_t i;

	tl_bulk_release(tl);
	samples_release(tl);
	for (i = 0; i < TIMELINE_NSTMT; i++)
		if (tl->stmts[i].st)
			sqlite3_finalize(tl->stmts[i].st);
	if (tl->db)
		sqlite3_close(tl->db);
	memset(tl->stmts, 0, sizeof(tl->stmts));
	tl->db = NULL;
	if (tl->mode == TL_CREATE) {
		dbfile_discard(tl);      /* not committed: nothing is left behind */
		if (tl->tmp_fd >= 0)
			close(tl->tmp_fd);   /* after SQLite's: see dbfile_commit */
		tl->tmp_fd = -1;
	}
	dbfile_unlock(tl);
	free(tl->path);
	tl->path = NULL;
}

int64_t timeline_artifact_begin(struct timeline *tl, const char *path, const char *kind,
				uint64_t size, int compressed)
{
	return timeline_artifact_begin_in(tl, NULL, path, kind, size, compressed);
}

int64_t timeline_artifact_begin_in(struct timeline *tl, const char *container, const char *path,
				   const char *kind, uint64_t size, int compressed)
{
	struct tl_artifact a = { path, container, kind, size, compressed, "reading", NULL, 0, 0,
				 0, 0 };

	tl->artifact_id = tl_insert_in(tl, &timeline_artifact_table, 0, 0, &a);
	if (tl->artifact_id < 0)
		return -1;
	if (timeline_exec(tl, "SAVEPOINT artifact") < 0)
		return -1;
	if ((tl->sample_block_begin = samples_last_block(tl)) < 0)
		return -1;
	tl->sink.path = path;
	tl->artifact_hash[0] = 0;
	tl->sink.n_errors = tl->sink.n_warnings = 0;
	tl->sink.first_error[0] = 0;
	tl->n_pending = tl->n_dropped = 0;
	return tl->artifact_id;
}

int timeline_artifact_end(struct timeline *tl, int ok, const char *status,
			  uint64_t bytes_read, double seconds)
{
	struct tl_artifact a = { NULL, NULL, NULL, 0, 0, status,
				 tl->artifact_hash[0] ? tl->artifact_hash : NULL, bytes_read, seconds,
				 tl->sink.n_errors, tl->sink.n_warnings };
	size_t i;
	int r = 0;

	if (ok && tl_bulk_flush(tl) < 0) {
		ok = 0;
		a.status = "failed";
	}
	tl_bulk_discard(tl);
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
	if (tl_update(tl, &timeline_artifact_table, tl->artifact_id, &a) < 0)
		r = -1;
	tl->artifact_id = 0;
	tl->n_pending = 0;
	return r;
}

void timeline_hash_text(uint64_t hash, int sampled, char out[TIMELINE_HASH_LEN])
{
	snprintf(out, TIMELINE_HASH_LEN, "%s%016llx", sampled ? "s" : "",
		 (unsigned long long)hash);
}

void timeline_artifact_hash(struct timeline *tl, uint64_t hash, int sampled)
{
	timeline_hash_text(hash, sampled, tl->artifact_hash);
}

/* Boot-relative times become UTC through an anchor: an artifact that saw
 * both clocks (journal JSON, smaps separators with mono=, dmesg -T with a
 * raw twin) or the user's --boot-time. With one boot id (or none given)
 * the single anchor applies to every boot-clock row; with several, rows
 * match on boot_id. The median anchor offset is used, so one bad anchor
 * does not move the rest. Samples carry no boot id: they move only when
 * there is one offset (their blocks rewritten, samples_align_boot). */
int timeline_align_clocks(struct timeline *tl)
{
	static const char one_off[] =
		"SELECT off FROM boot_offset WHERE (SELECT count(*) FROM boot_offset) = 1";
	sqlite3_stmt *q;
	int64_t off = 0;
	int found = 0;

	/* outside any artifact: the anchor's artifact_id is NULL */
	if (tl->opts.boot_time_ns != OL_NULL &&
	    sink_anchor(&tl->sink, NULL, 0, tl->opts.boot_time_ns, "--boot-time") < 0)
		return -1;
	if (timeline_exec(tl,
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
		"       OR (event.boot_id IS NULL AND (SELECT count(*) FROM boot_offset) = 1));") < 0)
		return -1;
	/* prepared here, not cached: boot_offset is a temporary table */
	if (sqlite3_prepare_v2(tl->db, one_off, -1, &q, NULL) != SQLITE_OK)
		return tl_fail(tl, sqlite3_errmsg(tl->db));
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) == SQLITE_INTEGER) {
		off = sqlite3_column_int64(q, 0);
		found = 1;
	}
	sqlite3_finalize(q);
	return found ? samples_align_boot(tl, off) : 0;
}
