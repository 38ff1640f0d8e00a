/*
 * timeline_parts.h -- internals shared by timeline.c and the record stores
 * (timeline_*.c): the statement cache, the generic insert and update of a
 * described record (table.h), and each store's list of tables and sink
 * ops. Not for parsers, rules or reports.
 */
#ifndef OOMLENS_TIMELINE_PARTS_H
#define OOMLENS_TIMELINE_PARTS_H

#include "analyzer/store/table.h"
#include "analyzer/store/timeline.h"

/* The prepared statement for sql, a static string (cached by its
 * address), reset and unbound. NULL on error (tl->errmsg says why). */
sqlite3_stmt *timeline_stmt(struct timeline *tl, const char *sql);
/* Step a bound statement that returns no rows, and reset it. Returns the
 * last inserted rowid, or -1 on error (tl->errmsg says why). */
int64_t tl_step(struct timeline *tl, sqlite3_stmt *st);
/* Record a store error: keep msg in tl->errmsg, tell tl->on_error.
 * Returns -1. */
int tl_fail(struct timeline *tl, const char *msg);

/* Insert the record at row into table t: artifact_id is the current
 * artifact (tl_insert) or the one given (tl_insert_in: 0 = none), parent
 * the id a COL_PARENT column takes. Returns the new row's id when the
 * table has one, else 1; -1 on error. */
int64_t tl_insert(struct timeline *tl, const struct table *t, int64_t parent,
		  const void *row);
int64_t tl_insert_in(struct timeline *tl, const struct table *t, int64_t artifact_id,
		     int64_t parent, const void *row);
/* The bulk path (timeline_bulk.c) of a table without an id column:
 * the record (size bytes, strings copied) waits in its table's batch, and
 * a full batch is written by the writer thread while the caller goes on.
 * Returns 1, or -1 when a write failed (tl->errmsg says why). */
int64_t tl_insert_bulk(struct timeline *tl, const struct table *t, size_t size,
		       int64_t parent, const void *row);
/* Write every waiting record: before a batched table is read, and before
 * the artifact's transaction ends. 0 or -1. */
int tl_bulk_flush(struct timeline *tl);
/* Take the connection from the writer thread so that the caller may use
 * it: wait for the INSERT it is running, if any; it starts no other until
 * the caller hands it a batch. Batched rows it was given may still be
 * waiting (tl_bulk_flush writes them). 0, or -1 when one of its writes
 * failed (tl->errmsg says why). timeline_stmt and timeline_exec call it. */
int tl_bulk_sync(struct timeline *tl);
/* Forget the waiting records (the artifact is rolled back). */
void tl_bulk_discard(struct timeline *tl);
/* Free the batches and their statements (timeline_close). */
void tl_bulk_release(struct timeline *tl);
/* Define op_NAME like CHILD_RECORD_OP, through the bulk path. */
#define CHILD_BULK_OP(name, type, table) \
	static int64_t op_##name(struct sink *s, int64_t parent, const type *r) \
	{ return tl_insert_bulk(s->ctx, &(table), sizeof(type), parent, r); }

/* Write the AT_END and AT_BOTH columns of the record at row to row id of
 * table t. Returns 0 or -1. */
int tl_update(struct timeline *tl, const struct table *t, int64_t id, const void *row);

/* Define op_NAME, the sink op that inserts its record into table:
 * RECORD_OP for op(sink, record), CHILD_RECORD_OP for op(sink, parent
 * id, record). */
#define RECORD_OP(name, type, table) \
	static int64_t op_##name(struct sink *s, const type *r) \
	{ return tl_insert(s->ctx, &(table), 0, r); }
#define CHILD_RECORD_OP(name, type, table) \
	static int64_t op_##name(struct sink *s, int64_t parent, const type *r) \
	{ return tl_insert(s->ctx, &(table), parent, r); }

/* The record stores: each lists its tables (NULL-terminated, in the order
 * they are created) and binds its sink ops. */
extern const struct table *const timeline_common_tables[];    /* timeline_common.c */
void timeline_bind_common(struct sink *s);
extern const struct table *const timeline_cores_tables[];     /* timeline_cores.c */
void timeline_bind_cores(struct sink *s);
extern const struct table *const timeline_snapshot_tables[];  /* timeline_snapshot.c */
void timeline_bind_snapshot(struct sink *s);
/* the tools' holders into the holder table (timeline_holders.c) */
void timeline_bind_holders(struct sink *s);
extern const struct table *const timeline_engine_tables[];    /* timeline_engine.c */
void timeline_bind_engine(struct sink *s);

/* The database file (dbfile.c). Each returns 0, or -1 with why in err. */
/* Take the writer's lock beside path into tl (lock_fd, lock_path). */
int dbfile_lock(struct timeline *tl, const char *path, struct strbuf *err);
void dbfile_unlock(struct timeline *tl);
/* Create the temporary a new database at path is built under (tmp_fd, tmp_path). */
int dbfile_make_temp(struct timeline *tl, const char *path, struct strbuf *err);
/* Fill the new temporary (tmp_fd) with the schema image, if one was
 * given (schema_image.h): 1 when written, 0 when there is none (create
 * the schema), -1 with why in err. */
int dbfile_write_image(struct timeline *tl, struct strbuf *err);
/* Sync the temporary and rename it over tl->path. */
int dbfile_commit(struct timeline *tl, struct strbuf *err);
/* Remove the temporary, if any. */
void dbfile_discard(struct timeline *tl);

/* The artifact row, inserted by timeline_artifact_begin and closed
 * (AT_END columns) by timeline_artifact_end. */
struct tl_artifact {
	const char *path, *container, *kind;
	uint64_t size;
	int compressed;
	const char *status;     /* "reading", then the final status */
	const char *hash;       /* content hash, 16 hex digits; NULL unknown */
	uint64_t bytes_read;
	double seconds;
	int64_t errors, warnings;
};
extern const struct table timeline_artifact_table;           /* timeline_common.c */

#endif
