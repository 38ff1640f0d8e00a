/*
 * table.h -- one description per stored record.
 *
 * A table is a list of column descriptors: the column's name, its SQL
 * declaration, and where its value lives in the record's C struct (an
 * offsetof) with how to bind it. From that one list the store builds the
 * table's CREATE TABLE, its INSERT and the binds of every insert, so a
 * field is spelled once beside its struct (parsers/common/sink.h), and the
 * schema users query (docs/schema.md) cannot drift from what is written.
 *
 * This module knows SQLite and the descriptors, not the timeline: the
 * timeline (timeline.c) caches the statements and steps them.
 */
#ifndef OOMLENS_TABLE_H
#define OOMLENS_TABLE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;

/* How a column gets its value. The field at col.off is of the C type said. */
enum col_kind {
	COL_ID,        /* INTEGER PRIMARY KEY: SQLite assigns it; never bound */
	COL_NONE,      /* no field: created here, written with SQL by others (rules) */
	COL_ARTIFACT,  /* the current artifact's id; NULL outside an artifact */
	COL_PARENT,    /* the id the op was given (event_id, snapshot_id...); OL_NULL -> NULL */
	COL_INT,       /* int64_t; OL_NULL -> NULL */
	COL_U64,       /* uint64_t, stored as its int64 bit pattern (addresses, hashes) */
	COL_CINT,      /* int (flags: 0/1) */
	COL_REF,       /* int64_t row id; NULL unless > 0 */
	COL_REAL,      /* double; NaN -> NULL */
	COL_TEXT,      /* const char *, borrowed; NULL -> NULL */
	COL_JSON,      /* json_t *, borrowed, stored as compact JSON text; NULL -> NULL */
	COL_TIME_NS,   /* struct ol_time: utc_ns when on the UTC or local clock, else NULL */
	COL_CLOCK,     /* struct ol_time: the clock's name ("utc", "local", "boot"), or NULL */
	COL_BOOT_NS,   /* struct ol_time: boot_ns; OL_NULL -> NULL */
};

/* When a column is written by tl_insert / tl_update (timeline_parts.h). */
enum col_when {
	AT_INSERT = 0, /* in the INSERT (the default) */
	AT_END,        /* only in the UPDATE that closes the record (known at its end) */
	AT_BOTH,       /* in both: a first value, then the final one */
};

struct col {
	const char *name;
	const char *decl;      /* SQL type and constraints: "TEXT NOT NULL" */
	enum col_kind kind;
	size_t off;            /* offset of the field in the record (unused for
				* COL_ID, COL_NONE, COL_ARTIFACT, COL_PARENT) */
	enum col_when when;
};

struct table {
	const char *name;
	const struct col *cols;
	size_t ncols;
	const char *constraints; /* table constraints after the columns, or NULL */
	const char *options;     /* after the closing parenthesis ("WITHOUT ROWID"), or NULL */
	const char *indexes;     /* CREATE INDEX statements run after it, or NULL */
	int packed;              /* stored as blocks (packed.h): name is a virtual
				  * table over name_block; no id, no indexes */
};

#define TABLE(name, cols, constraints, options, indexes) \
	{ name, cols, sizeof(cols) / sizeof((cols)[0]), constraints, options, indexes, 0 }

/* A table of the bulk path stored as blocks of rows (packed.h): its first
 * column is the parent id its blocks are found by. */
#define PACKED_TABLE(name, cols) \
	{ name, cols, sizeof(cols) / sizeof((cols)[0]), NULL, NULL, NULL, 1 }

/* Shorthands for descriptor lists. COLUMN: a column named as its field
 * of the record type (a member of a member needs the long form). */
#define COLUMN(type, field, decl, kind) { #field, decl, kind, offsetof(type, field), AT_INSERT }
#define INT_COLUMN(type, field) COLUMN(type, field, "INTEGER", COL_INT)
#define TEXT_COLUMN(type, field) COLUMN(type, field, "TEXT", COL_TEXT)
#define ID_COLUMN { "id", "INTEGER PRIMARY KEY", COL_ID, 0, AT_INSERT }
#define ARTIFACT_COLUMN(decl) { "artifact_id", decl, COL_ARTIFACT, 0, AT_INSERT }
#define PARENT_COLUMN(name, decl) { name, decl, COL_PARENT, 0, AT_INSERT }
/* time_ns, clock, boot_ns from a struct ol_time member. */
#define TIME_COLUMNS(type, member) \
	{ "time_ns", "INTEGER", COL_TIME_NS, offsetof(type, member), AT_INSERT }, \
	{ "clock", "TEXT", COL_CLOCK, offsetof(type, member), AT_INSERT }, \
	{ "boot_ns", "INTEGER", COL_BOOT_NS, offsetof(type, member), AT_INSERT }

/* Which statement of a table. */
enum table_stmt { TABLE_INSERT, TABLE_UPDATE };

/* Append to sql the table's CREATE TABLE and CREATE INDEX statements.
 * Check strbuf_failed(sql) once, where the text is used. */
void table_create_sql(const struct table *t, struct strbuf *sql);
/* Append to sql the table's INSERT (every column but COL_ID and COL_NONE,
 * AT_INSERT and AT_BOTH, in order), or its UPDATE ... WHERE id = ? (the
 * AT_END and AT_BOTH columns). */
void table_stmt_sql(const struct table *t, enum table_stmt which, struct strbuf *sql);
/* Bind the record at row (and the artifact and parent ids) to st, which
 * was prepared from table_stmt_sql(t, which); for TABLE_UPDATE, id is the
 * row to update. Text is bound without a copy (SQLITE_STATIC): the caller
 * steps st before the borrowed strings go, and every later use of st
 * binds every parameter again. */
void table_bind(sqlite3_stmt *st, const struct table *t, enum table_stmt which,
		int64_t artifact_id, int64_t parent, const void *row, int64_t id);
/* Append to sql the INSERT of rows records in one statement (VALUES
 * (...),(...)), the bulk path of tables written by the million. */
void table_insert_rows_sql(const struct table *t, int rows, struct strbuf *sql);
/* A column's value in a record, as it is bound. */
struct table_value {
	enum { TV_NULL, TV_INT, TV_REAL, TV_TEXT, TV_JSON } type;
	int64_t i;
	double d;
	const char *s;         /* borrowed from the record */
	struct json_t *j;      /* borrowed; bound as compact text */
};
/* The value column c takes from the record at row (with the artifact and
 * parent ids of the insert). */
void table_value(const struct col *c, int64_t artifact_id, int64_t parent, const void *row,
		 struct table_value *v);
/* Bind v to parameter i (text without a copy, as table_bind). */
void table_value_bind(sqlite3_stmt *st, int i, const struct table_value *v);
/* 1 when column c is one of the INSERT's (table_stmt_sql). */
int table_col_in_insert(const struct col *c);
/* 1 when the table has an id column (its first, COL_ID). */
int table_has_id(const struct table *t);

#endif
