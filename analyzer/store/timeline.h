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
 * The timeline never prints. A failing call returns -1 and keeps SQLite's
 * message in tl->errmsg; an owner that wants to hear of every store error
 * as it happens (the command line prints them) sets tl->on_error after
 * timeline_open.
 */
#ifndef OOMLENS_TIMELINE_H
#define OOMLENS_TIMELINE_H

#include <sqlite3.h>
#include <stdint.h>

#include "parsers/sink.h"

#define TIMELINE_SCHEMA_VERSION 1

struct strbuf;
struct tl_bulks;
struct tl_holders;

#define TIMELINE_NSTMT 64
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
	int64_t sample_rowid_begin; /* max sample rowid when the artifact began */
	struct tl_bulks *bulk;     /* rows waiting for a bulk insert (timeline_bulk.c) */
	struct tl_holders *holders; /* the open snapshot's, until it ends (holders.h) */
};

/* Open (create=1: create fresh, replacing an existing file) the database at
 * path. Clears *tl first (on_error included). Returns 0, or -1 with a
 * message in err. */
int timeline_open(struct timeline *tl, const char *path, int create, struct strbuf *err);
void timeline_close(struct timeline *tl);

/* Start an artifact: inserts its row, opens the transaction, binds the sink.
 * Returns the artifact id (> 0) or -1. */
int64_t timeline_artifact_begin(struct timeline *tl, const char *path, const char *kind,
				uint64_t size, int compressed);
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
