/*
 * query.h -- small helpers the reports use to read the database: run a
 * query and turn a column into JSON, one scalar, or a time string.
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

/* Prepare sql or print why and return NULL. */
sqlite3_stmt *q_prepare(sqlite3 *db, const char *sql);
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

/* --- reading that returns its failure instead of printing it --------------
 * For callers that must say why a query failed without printing (library
 * code): the first failure's message goes into err, later ones keep it. */
struct strbuf;

/* Prepare sql. NULL when it does not compile; then, unless err already
 * holds a message, err gets SQLite's (err may be NULL). Caller finalizes. */
sqlite3_stmt *q_prepare_err(sqlite3 *db, const char *sql, struct strbuf *err);
/* First column of the first row of sql as int64, or dflt when there is no
 * row, the value is NULL or the query failed (err says why, as above). */
int64_t q_int_err(sqlite3 *db, const char *sql, int64_t dflt, struct strbuf *err);
/* The same as a double. */
double q_real_err(sqlite3 *db, const char *sql, double dflt, struct strbuf *err);
/* First column of st's next row as int64, or dflt; st (prepared and bound
 * by the caller) is reset afterwards, ready to be bound again. */
int64_t q_int_next(sqlite3_stmt *st, int64_t dflt);
/* st's next rows, at most max (max < 0: all), as q_row builds them, in a
 * new array (caller decrefs; NULL only when out of memory); st is reset
 * afterwards, ready to be bound again. */
json_t *q_rows_next(sqlite3_stmt *st, int64_t max);

#endif
