/*
 * query.h -- reading the incident database: the one set of helpers the
 * rules and the reports share. A query that does not compile (a domain
 * table missing or of another shape) or fails is returned as such, never
 * printed: the *_err forms keep the first failure's message in a strbuf,
 * the others leave it in sqlite3_errmsg(db).
 */
#ifndef OOMLENS_QUERY_H
#define OOMLENS_QUERY_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/strbuf.h"

/* Samples not on UTC, counted series by series (each series' blocks
 * found by their parent: a plain "WHERE time_ns IS NULL" reads them all). */
#define Q_UNTIMED_SAMPLES "SELECT sum(sample_untimed(id, 'time_ns', 'count')) FROM series"

/* ---- statements ---- */

/* Prepare sql; NULL when it does not compile. Caller finalizes. */
sqlite3_stmt *q_try(sqlite3 *db, const char *sql);
/* The same; on failure, unless err already holds a message, err gets
 * SQLite's (err may be NULL). */
sqlite3_stmt *q_prepare_err(sqlite3 *db, const char *sql, struct strbuf *err);

/* ---- rows as JSON ---- */

/* Column as JSON: NULL -> null, integer, real, text (UTF-8 cleaned). */
json_t *q_json(sqlite3_stmt *st, int col);
/* Column as JSON time: ISO 8601 UTC string, or null when NULL. */
json_t *q_json_time(sqlite3_stmt *st, int col);
/* The current row of st as an object keyed by column name, q_json per
 * value. Columns named "*time" go through q_json_time; a column named
 * "data" holding a JSON object is merged into the row; a column "x_json"
 * holding JSON text becomes key "x" with that value. Caller decrefs. */
json_t *q_row(sqlite3_stmt *st);
/* st's next rows, at most max (max < 0: all), as q_row builds them, in a
 * new array (caller decrefs; NULL only when out of memory); st is reset
 * afterwards, ready to be bound again. While a report is written
 * (q_rows_bound), rows are taken only while the run's memory budget is
 * not low (ol_budget_low, lib/budget.h): the rows after that are stepped
 * over, counted into q_rows_cut(), and not kept; so are, always, any a
 * failed allocation lost. The rules and derive passes always get every
 * row: a verdict is never made from rows the budget left out. */
json_t *q_rows_next(sqlite3_stmt *st, int64_t max);
/* The rows q_rows_next (and the report's other row readers, through
 * q_rows_cut_add) left out since the process began because the memory
 * budget was low: a report compares it before and after loading a
 * section to say that section is partial. */
uint64_t q_rows_cut(void);
void q_rows_cut_add(uint64_t n);
/* 1: a report is being written and its row readers draw on the budget
 * (report_write sets it around the writing); 0: every row is taken. */
void q_rows_bound(int on);

/* Write v to out as json_dumpf would (flags alike), through a buffer:
 * jansson hands each token to its output apart, and a stdio call per
 * token is most of the time of a large report. 0, or -1 when writing
 * failed. */
int q_write_json(FILE *out, const json_t *v, size_t flags);
/* The same, each line after the first indented by indent more spaces: an
 * element of an array streamed row by row then reads exactly as the
 * whole array dumped with JSON_INDENT would (JSON strings hold no raw
 * newline, so every newline is jansson's). */
int q_write_json_at(FILE *out, const json_t *v, size_t flags, int indent);

/* ---- rows as JSON text (query_json.c, query_json_scan.c) ---- */

/* A writer of JSON text that goes from SQLite rows to the bytes jansson
 * would dump for the q_row() objects (JSON_PRESERVE_ORDER,
 * JSON_REAL_PRECISION(12); compact, or JSON_INDENT(indent)) without
 * building them: for reports of millions of rows. Containers are opened
 * and closed by the caller, members and elements announced with
 * q_jw_key / q_jw_elem (which write the separators and indentation);
 * text between top-level values goes through q_jw_raw. Nothing reaches
 * the FILE until q_jw_flush (call it between rows) or q_jw_finish. Out of
 * memory or a failed write is sticky and returned by q_jw_finish. */
#define Q_JW_DEPTH 48
#define Q_JW_COLS 64
struct q_jw_key;
struct q_jw {
	FILE *out;
	char *buf;              /* text not yet written: len bytes of cap */
	size_t len, cap;
	int failed;             /* out of memory, or a write failed */
	int indent;             /* spaces per level, 0: compact */
	int base;               /* levels the whole text stands indented by */
	int depth;              /* containers open */
	unsigned char members[Q_JW_DEPTH]; /* each open container has a member yet */
	struct q_jw_key *keys;  /* the current row's keys (repeats go through jansson) */
	struct q_jw_sorted *sorted; /* q_jw_rows_sorted's rows: nsorted of capsorted */
	size_t nsorted, capsorted;
	char *held;             /* q_jw_rows_sorted's texts, while they are reordered */
	size_t heldcap;
	uint32_t row, nkeys, objects;
	int64_t day;            /* the day of the last time written, whose date */
	char day_text[12];      /* day_text is ("YYYY-MM-DDT"; day_len 0: none) */
	unsigned char day_len;
	uint64_t rows_fast;     /* rows written without jansson (q_jw_row) */
	uint64_t rows_slow;     /* rows that went through q_row() and jansson */
};
void q_jw_init(struct q_jw *w, FILE *out, int indent, int base);
/* Write what is held out once it is large (between rows). */
void q_jw_flush(struct q_jw *w);
/* Write the rest out and free the writer: 0, or -1 when a write or an
 * allocation failed. */
int q_jw_finish(struct q_jw *w);
void q_jw_raw(struct q_jw *w, const char *s, size_t n);
void q_jw_open(struct q_jw *w, int c);    /* '{' or '[' */
void q_jw_close(struct q_jw *w, int c);   /* '}' or ']' */
void q_jw_key(struct q_jw *w, const char *key);
void q_jw_elem(struct q_jw *w);
void q_jw_int(struct q_jw *w, int64_t v);
/* 0, or -1 (nothing written) when v is not finite: jansson has no such
 * real. */
int q_jw_real(struct q_jw *w, double v);
/* n bytes of text as q_json() gives them: invalid UTF-8 and NUL as
 * U+FFFD, escaped as jansson escapes. */
void q_jw_text(struct q_jw *w, const char *s, size_t n);

/* How the columns of st become the members of a row (q_row's rules),
 * worked out once per statement. skip: the key left out (as
 * json_object_del after q_row), boolean: the key whose value becomes
 * true/false (as json_boolean(json_integer_value(v))); either NULL. */
struct q_jw_cols {
	sqlite3_stmt *st;
	const char *skip, *boolean;
	int n;
	int slow;               /* every row through q_row() and jansson */
	int has_data;           /* a "data" column: its keys checked against the others */
	unsigned char kind[Q_JW_COLS];
	uint32_t key_off[Q_JW_COLS], key_len[Q_JW_COLS];
	struct strbuf keytext;  /* each column's key, quoted and escaped */
};
/* 0, or -1 when out of memory; release it either way. */
int q_jw_cols_init(struct q_jw_cols *c, sqlite3_stmt *st, const char *skip,
		   const char *boolean);
void q_jw_cols_release(struct q_jw_cols *c);
/* The members of st's current row into the object the caller opened:
 * 0, or -1 when jansson failed on it. */
int q_jw_row(struct q_jw *w, const struct q_jw_cols *c);
/* An array of st's remaining rows, each an object (q_rows_next dumped);
 * st is reset afterwards. 0 or -1. */
int q_jw_rows(struct q_jw *w, const struct q_jw_cols *c);
/* The same array, st's rows put in the order of SQLite's "ORDER BY
 * <column desc> DESC, <column asc>" (column indexes of st) by this
 * writer rather than by SQLite's sorter, which costs more than the rows
 * do for a few dozen rows per statement. 0 or -1 as q_jw_rows; 1 when
 * it cannot vouch for SQLite's order (a key that is neither an integer
 * nor NULL, two rows equal on both keys, rows whose text would not fit
 * the run's memory budget: ol_budget_fits): then nothing is written, st
 * is reset, and the caller runs its query with the ORDER BY. */
int q_jw_rows_sorted(struct q_jw *w, const struct q_jw_cols *c, int desc, int asc);

/* ---- one value ---- */

/* First column of st's next row as int64, or dflt when there is no row or
 * it is NULL; st (prepared and bound by the caller) is reset afterwards. */
int64_t q_int_next(sqlite3_stmt *st, int64_t dflt);
/* First column of the first row of sql as int64 / double, or dflt when
 * there is no row, the value is NULL or the query failed (err says why). */
int64_t q_int_err(sqlite3 *db, const char *sql, int64_t dflt, struct strbuf *err);
double q_real_err(sqlite3 *db, const char *sql, double dflt, struct strbuf *err);
/* For callers (the rules) that must not take a failed query for absent
 * evidence: the first column of the first row of sql as a double into
 * *out: 1; 0 when there is no row, the value is NULL or the step fails
 * (json_extract on malformed JSON: the value is not there); -1 when sql
 * does not prepare. */
int q_number(sqlite3 *db, const char *sql, double *out);
/* Value of meta key as text into buf (cut to n): 1, 0 absent, -1 failed.
 * Values recorded by artifacts come first (the first recorded), the
 * run-wide one (artifact_id NULL) last. */
int q_meta(sqlite3 *db, const char *key, char *buf, size_t n);
/* 1 when the database has a table (or view) of that name, else 0. Domain
 * tables (snapshot, segment, alloc, gpu_device...) are created by their
 * stores and may be missing from a database an older oomlens wrote. */
int q_has_table(sqlite3 *db, const char *name);
/* Column i of st's current row as text, "?" when NULL (titles, listings). */
const char *q_text(sqlite3_stmt *st, int i);

#endif
