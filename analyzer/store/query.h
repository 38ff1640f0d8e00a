/*
 * query.h -- small helpers the reports use to read the database: run a
 * query and turn a column into JSON, one scalar, or a time string. They
 * never print.
 */
#ifndef OOMLENS_QUERY_H
#define OOMLENS_QUERY_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdint.h>

/* Samples not on UTC, counted with one index seek per series (the index
 * is (series_id, time_ns): a plain "WHERE time_ns IS NULL" scans it all). */
#define Q_UNTIMED_SAMPLES "SELECT sum((SELECT count(*) FROM sample m" \
	" WHERE m.series_id = s.id AND m.time_ns IS NULL)) FROM series s"

/* Prepare sql; NULL when it does not compile, after telling the error
 * callback why (SQLite's message). */
sqlite3_stmt *q_prepare(sqlite3 *db, const char *sql);
/* Who q_prepare tells: the command line prints "report query failed".
 * NULL (the default): no one. One setting for the process, made before
 * any report is written (as sqlite3_config(SQLITE_CONFIG_LOG) is). */
void q_on_error(void (*fn)(void *arg, const char *msg), void *arg);
/* Column as JSON: NULL -> null, integer, real, text (UTF-8 cleaned). */
json_t *q_json(sqlite3_stmt *st, int col);
/* Column as JSON time: ISO 8601 UTC string, or null when NULL. */
json_t *q_json_time(sqlite3_stmt *st, int col);
/* Every row of sql as an object keyed by column name; q_json per value.
 * Columns named "*_time" go through q_json_time; a column named "data"
 * holding a JSON object is merged into the row; a column "x_json" holding
 * JSON text becomes key "x" with that value. */
json_t *q_rows(sqlite3 *db, const char *sql);
/* The current row of st as q_rows builds it; caller decrefs. */
json_t *q_row(sqlite3_stmt *st);
/* For each row of rows (from q_rows, with an "id" column): run sql, a
 * printf format with one %lld for that id, store its rows under key, and
 * drop "id" from the row. */
void q_attach(sqlite3 *db, json_t *rows, const char *key, const char *sql);
/* First column of the first row as int64, or dflt. */
int64_t q_int(sqlite3 *db, const char *sql, int64_t dflt);
/* First column of the first row as double, or dflt. */
double q_real(sqlite3 *db, const char *sql, double dflt);
/* 1 when the database has a table (or view) of that name, else 0. Domain
 * tables (snapshot, segment, alloc, gpu_device...) are created by their
 * parsers' stores and may be missing from a given database. */
int q_has_table(sqlite3 *db, const char *name);
/* Prepare sql quietly: NULL (no message) when it does not compile, e.g. a
 * domain table with other columns than expected. */
sqlite3_stmt *q_try(sqlite3 *db, const char *sql);

/* Reads that tell "nothing there" from "could not ask", for callers (the
 * rules) that must not take a failed query for absent evidence. Nothing
 * is printed: on -1, sqlite3_errmsg(db) says why. */

/* First column of the first row of sql as a double into *out: 1; 0 when
 * there is no row, the value is NULL or the step fails (json_extract on
 * malformed JSON: the value is not there); -1 when sql does not prepare. */
int q_number(sqlite3 *db, const char *sql, double *out);
/* Value of meta key as text into buf (cut to n): 1, 0 absent, -1 failed.
 * Values recorded by artifacts come first (the first recorded), the
 * run-wide one (artifact_id NULL) last. */
int q_meta(sqlite3 *db, const char *key, char *buf, size_t n);
/* Column i of st's current row as text, "?" when NULL (titles, listings). */
const char *q_text(sqlite3_stmt *st, int i);

#endif
