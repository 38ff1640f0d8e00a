/*
 * packed.h -- tables written by the million, stored as blocks of rows.
 *
 * A snapshot's trace is a million rows; as SQLite rows they cost more to
 * write than the whole pickle costs to decode. A packed table keeps its
 * rows in blocks instead: NAME_block holds one row per block (its parent
 * id, its first rowid, its row count and the rows encoded column by
 * column, see packed.c), and NAME itself is a virtual table of the module
 * "oomlens_packed" that decodes the blocks as they are read, so every
 * query, join and index-free scan of NAME reads as it would a plain table
 * with the same columns and rowids. Rows are appended only (an INSERT
 * into NAME is one block of one row); they are never changed.
 *
 * The module is registered on every connection the store opens; the
 * sqlite3 shell gets it with `.load` of the extension built beside
 * oomlens (docs/schema.md).
 */
#ifndef OOMLENS_PACKED_H
#define OOMLENS_PACKED_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;

#define PACKED_MODULE "oomlens_packed"
#define PACKED_MAX_ROWS 65536   /* rows in one block, at most */
#define PACKED_MAX_COLS 64

/* One value of a row given to the encoder; text and blobs borrowed. */
struct packed_val {
	enum { PV_NULL, PV_INT, PV_REAL, PV_TEXT, PV_BLOB } type;
	int64_t i;
	double d;
	const void *p;
	size_t n;              /* bytes of p (text without its NUL) */
};

/* Reused buffers of an encoder; zero-initialise, packed_enc_release. */
struct packed_enc {
	int nrows, ncols, cols_done;   /* the block being encoded */
	size_t lens[PACKED_MAX_COLS];  /* bytes of each column done */
	unsigned char *col;    /* the columns' encoding */
	size_t col_len, col_cap;
	const struct packed_val **dict;
	size_t dict_cap;
	uint32_t *idx;
	size_t idx_cap;
};

/* Append to out the block of nrows rows of ncols values each, given by
 * column: row r's value of column c is vals[c * nrows + r]. Returns 0, or -1 when out of memory
 * (out's failed flag is set) or the sizes exceed the limits above. */
int packed_encode(struct packed_enc *e, struct strbuf *out, const struct packed_val *vals,
		  int nrows, int ncols);
void packed_enc_release(struct packed_enc *e);

/* The same, a column at a time, for values where they lie: packed_start,
 * then one packed_put_* per column in order, then packed_finish appends
 * the block to out. packed_put_vals takes a column of nrows values;
 * packed_put_ints the int64_t at base + r * stride for row r, NULL where
 * it equals null. Each returns 0, or -1 out of memory or out of turn. */
int packed_start(struct packed_enc *e, int nrows, int ncols);
int packed_put_vals(struct packed_enc *e, const struct packed_val *v);
int packed_put_ints(struct packed_enc *e, const void *base, size_t stride, int64_t null);
int packed_finish(struct packed_enc *e, struct strbuf *out);

/* Append a block to the backing table `backing` (NAME_block): its rows
 * get the rowids after the table's last. *ins caches the statement
 * (finalize it when done). Returns SQLite's result code. */
int packed_append(sqlite3 *db, const char *backing, sqlite3_stmt **ins, int64_t parent,
		  int nrows, const void *data, size_t n);

/* packed_append, with the block's artifact_id column (table.c: every
 * NAME_block has one) set to artifact, the artifact whose reading wrote
 * the block (INT64_MIN: NULL). *ins caches its own statement, not one of
 * packed_append's. Returns SQLite's result code. */
int packed_append_from(sqlite3 *db, const char *backing, sqlite3_stmt **ins, int64_t parent,
		       int64_t artifact, int nrows, const void *data, size_t n);

/* Register the module on db, and the aggregate packed_rows(v1, ..., vN)
 * that encodes the rows it is given (in the order given; at most
 * PACKED_MAX_ROWS, all of one width) as the data of a block: how SQL
 * (the sqlite3 shell with the extension) writes blocks in bulk. Returns
 * SQLite's result code. */
int packed_register(sqlite3 *db);

#endif
