/*
 * timeline.h -- the incident database: one SQLite file per incident.
 *
 * The timeline owns the schema (docs/schema.md) and every write. Ingest
 * opens it, and for each artifact calls timeline_artifact_begin(), runs the
 * parser against timeline_sink(), then timeline_artifact_end(): one
 * transaction per artifact, so a parser that fails leaves only its
 * artifact row and diagnostics behind. Rules and reports read tl->db with
 * plain SQL.
 *
 * The database file is oomlens's own and nothing else: it carries
 * TIMELINE_APPLICATION_ID, and a path that holds anything else is never
 * replaced. A new database is built under a temporary name beside its
 * destination and put in place whole by timeline_commit (a crash or kill
 * leaves the old one or none, never half of one); one that is written to
 * is held by one process at a time (a lock file beside it), so a second
 * writer is refused rather than silently replacing the first's work.
 *
 * The timeline never prints. A failing call returns -1 and keeps SQLite's
 * message in tl->errmsg; an owner that wants to hear of every store error
 * as it happens (the command line prints them) sets tl->on_error after
 * timeline_open.
 */
#ifndef OOMLENS_TIMELINE_H
#define OOMLENS_TIMELINE_H

#include <sqlite3.h>
#include <stdint.h>

#include "parsers/common/sink.h"

#define TIMELINE_SCHEMA_VERSION 10
/* PRAGMA application_id of every oomlens database: "OOML". */
#define TIMELINE_APPLICATION_ID 0x4F4F4D4C

/* How a database is opened. */
enum timeline_mode {
	TL_READ,    /* an existing database, read only */
	TL_WRITE,   /* an existing database, written in place: locked for this
		     * process, rollback journal, full sync (--append, classify) */
	TL_CREATE,  /* a new one, built under a temporary name until
		     * timeline_commit; locked; ":memory:" builds in memory */
};

struct strbuf;
struct tl_bulks;
struct tl_samples;

#define TIMELINE_NSTMT 64
/* An artifact's hash as stored: 16 hex digits, after an 's' when it was
 * made from samples of a large file (lib/input.h), and the NUL. */
#define TIMELINE_HASH_LEN 18
#define TIMELINE_MAX_DIAGS 200

struct tl_pending_diag {
	uint64_t line, offset;
	enum ol_severity sev;
	char msg[512];
};

/* A cached prepared statement: for a SQL text (key: its address, which
 * -1) or for a described table's INSERT or UPDATE (key: the table). */
struct tl_stmt {
	const void *key;
	int which;
	sqlite3_stmt *st;
};

struct timeline {
	sqlite3 *db;
	struct sink sink;          /* bound to the current artifact */
	int64_t artifact_id;       /* 0 outside an artifact */
	struct ingest_opts opts;   /* set by the caller before ingest */
	struct tl_stmt stmts[TIMELINE_NSTMT]; /* statement cache, timeline.c */
	char errmsg[256];          /* the last store error ("" when none), cut to fit */
	/* Told of each store error (msg: SQLite's message) when set. */
	void (*on_error)(void *arg, const char *msg);
	void *on_error_arg;
	struct tl_pending_diag pending[TIMELINE_MAX_DIAGS]; /* this artifact's */
	unsigned n_pending, n_dropped;
	int64_t sample_block_begin; /* the last sample_block id when the artifact began */
	char artifact_hash[TIMELINE_HASH_LEN]; /* the current artifact's content hash, "" unknown */

	/* The file (dbfile.c); NULL paths for ":memory:". All owned. */
	enum timeline_mode mode;
	char *path;                /* the destination */
	char *tmp_path;            /* TL_CREATE: built under this until committed */
	char *lock_path;           /* the writer's lock file, while held */
	int tmp_fd, lock_fd;       /* -1 when none */
	struct tl_bulks *bulk;     /* rows waiting for a bulk insert (timeline_bulk.c) */
	struct tl_samples *samples; /* the series' open blocks (samples.c) */
};

/* Open the database at path in mode (see enum timeline_mode). Clears *tl
 * first (on_error included). TL_CREATE refuses a path that holds anything
 * but an oomlens database or an empty file; TL_WRITE and TL_CREATE refuse
 * a database another process is writing. Returns 0, or -1 with a message
 * naming the file and the reason in err. */
int timeline_open(struct timeline *tl, const char *path, enum timeline_mode mode,
		  struct strbuf *err);
/* Open one transaction around everything written until timeline_commit
 * (an append is then all or nothing). 0 or -1. */
int timeline_begin(struct timeline *tl);
/* Make what was written durable: commit the transaction timeline_begin
 * opened; for TL_CREATE, sync the temporary and rename it over the
 * destination. The connection stays open for reading. 0, or -1 with the
 * reason in err. */
int timeline_commit(struct timeline *tl, struct strbuf *err);
/* Close; a TL_CREATE database that was not committed is removed (nothing
 * is left behind), and the lock is released. */
void timeline_close(struct timeline *tl);

/* What the file at path is: 1 an oomlens database (by application id),
 * 0 absent or empty, -1 something else or unreadable (why in err, with
 * the path). */
int timeline_file_is_ours(const char *path, struct strbuf *err);
/* 1 when the first n bytes of a file are the header of an oomlens
 * database (SQLite's magic and TIMELINE_APPLICATION_ID). */
int timeline_header_is_ours(const unsigned char *head, size_t n);

/* hash as stored (see TIMELINE_HASH_LEN) into out. */
void timeline_hash_text(uint64_t hash, int sampled, char out[TIMELINE_HASH_LEN]);
/* Set the current artifact's content hash (written when it ends). */
void timeline_artifact_hash(struct timeline *tl, uint64_t hash, int sampled);
/* The id of an artifact read before (ok, partial, no_records) with this
 * path, kind and size, its stored hash into hash (what the new one is to
 * be compared with); with kind NULL, of a file of no known format noted
 * as skipped with this path and size (hash untouched, may be NULL). 0
 * when none, -1 on error. */
int64_t timeline_find_artifact(struct timeline *tl, const char *path, const char *kind,
			       uint64_t size, char hash[TIMELINE_HASH_LEN]);
/* The same for a member of an archive: container is the archive it is
 * in (artifact.container), NULL for a file on disk. */
int64_t timeline_find_artifact_in(struct timeline *tl, const char *container, const char *path,
				  const char *kind, uint64_t size, char hash[TIMELINE_HASH_LEN]);
/* Forget the findings and verdict (the artifacts changed). 0 or -1. */
int timeline_forget_verdict(struct timeline *tl);

/* Start an artifact: inserts its row, opens the transaction, binds the sink.
 * Returns the artifact id (> 0) or -1. */
int64_t timeline_artifact_begin(struct timeline *tl, const char *path, const char *kind,
				uint64_t size, int compressed);
/* The same for a member of an archive: container is the archive it is in
 * (stored in artifact.container), path its path inside. */
int64_t timeline_artifact_begin_in(struct timeline *tl, const char *container, const char *path,
				   const char *kind, uint64_t size, int compressed);
/* End it. ok=0: roll back everything the parser wrote, keep the artifact
 * row (status 'failed') and its diagnostics. status: "ok", "partial",
 * "failed", "skipped". Returns 0 or -1. */
int timeline_artifact_end(struct timeline *tl, int ok, const char *status,
			  uint64_t bytes_read, double seconds);
/* Record a diagnostic for an artifact outside its parse (open failures...). */
int timeline_diag(struct timeline *tl, int64_t artifact_id, uint64_t line,
		  uint64_t offset, enum ol_severity sev, const char *msg);
/* Set a meta key outside any artifact (artifact_id NULL). */
int timeline_meta(struct timeline *tl, const char *key, const char *value);

/* Place boot-relative times on UTC using the anchors found (and
 * --boot-time); marks what could not be placed. Run after ingest. */
int timeline_align_clocks(struct timeline *tl);

/* Run SQL statements that return no rows. Returns 0, or -1 with the
 * message in tl->errmsg. */
int timeline_exec(struct timeline *tl, const char *sql);

#endif
