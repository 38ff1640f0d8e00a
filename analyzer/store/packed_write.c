/*
 * packed_write.c -- writing a packed table's blocks (see packed.h): the
 * append of an encoded block to its backing table (packed_append*), and
 * the aggregate packed_rows(v1, ..., vN) that packs its rows into one
 * block from SQL; with the value conversions the reading side
 * (packed.c, the virtual table) shares through packed_int.h.
 */
#include "analyzer/store/packed_block.h"
#include "analyzer/store/packed_int.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The INSERT of a block, with the artifact column when art. */
static int append_stmt(sqlite3 *db, const char *backing, int art, sqlite3_stmt **ins)
{
	char *sql = sqlite3_mprintf(
		"INSERT INTO \"%w\"(parent, first_rowid, rows, data%s) VALUES(?1,"
		" coalesce((SELECT first_rowid + rows FROM \"%w\" ORDER BY id DESC LIMIT 1),"
		" 1), ?2, ?3%s)", backing, art ? ", artifact_id" : "", backing, art ? ", ?4" : "");
	int rc;

	if (!sql)
		return SQLITE_NOMEM;
	rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, ins, NULL);
	sqlite3_free(sql);
	return rc;
}

/* Bind and step *ins (append_stmt's); art: whether it has ?4. */
static int append_step(sqlite3_stmt *ins, int64_t parent, int art, int64_t artifact,
		       int nrows, const void *data, size_t n)
{
	int rc;

	if (parent == INT64_MIN)
		sqlite3_bind_null(ins, 1);
	else
		sqlite3_bind_int64(ins, 1, parent);
	sqlite3_bind_int(ins, 2, nrows);
	sqlite3_bind_blob64(ins, 3, data, n, SQLITE_STATIC);
	if (art && artifact != INT64_MIN)
		sqlite3_bind_int64(ins, 4, artifact);
	else if (art)
		sqlite3_bind_null(ins, 4);
	rc = sqlite3_step(ins);
	sqlite3_reset(ins);
	sqlite3_clear_bindings(ins);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int packed_append(sqlite3 *db, const char *backing, sqlite3_stmt **ins, int64_t parent,
		  int nrows, const void *data, size_t n)
{
	int rc;

	if (!*ins && (rc = append_stmt(db, backing, 0, ins)) != SQLITE_OK)
		return rc;
	return append_step(*ins, parent, 0, 0, nrows, data, n);
}

int packed_append_from(sqlite3 *db, const char *backing, sqlite3_stmt **ins, int64_t parent,
		       int64_t artifact, int nrows, const void *data, size_t n)
{
	int rc;

	if (!*ins && (rc = append_stmt(db, backing, 1, ins)) != SQLITE_OK)
		return rc;
	return append_step(*ins, parent, 1, artifact, nrows, data, n);
}

/* ---- values ---- */

/* A copy of p[0..n) with a NUL after it (sqlite3_malloc), NULL when out
 * of memory: a value kept past the call that gave it. */
void *packed_copy_bytes(const void *p, size_t n)
{
	unsigned char *copy = sqlite3_malloc64(n + 1);

	if (copy) {
		if (n)
			memcpy(copy, p, n);
		copy[n] = 0;
	}
	return copy;
}

/* ---- packed_rows(v1, ..., vN): an aggregate that packs its rows ---- */

/* The rows an aggregate was given so far, by row; text and blobs copied. */
struct pk_agg {
	struct packed_val *v;
	size_t n, cap;
	int ncols, nrows;
	int failed;
};

static void agg_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct pk_agg *a = sqlite3_aggregate_context(ctx, sizeof(*a));
	int i;

	if (!a || a->failed)
		return;
	if ((a->nrows && argc != a->ncols) || a->nrows == PACKED_MAX_ROWS) {
		a->failed = 1;
		sqlite3_result_error(ctx, "packed_rows: at most 65536 rows of one width", -1);
		return;
	}
	if (a->n + (size_t)argc > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 256 * (size_t)argc;
		struct packed_val *v = sqlite3_realloc64(a->v, cap * sizeof(*v));
		if (!v) {
			a->failed = 1;
			sqlite3_result_error_nomem(ctx);
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	for (i = 0; i < argc; i++) {
		struct packed_val *p = &a->v[a->n++];
		packed_val_of(argv[i], p);
		if ((p->type == PV_TEXT || p->type == PV_BLOB) &&   /* kept past this row */
		    !(p->p = packed_copy_bytes(p->p, p->n))) {
			p->type = PV_NULL;
			a->failed = 1;
			sqlite3_result_error_nomem(ctx);
			return;
		}
	}
	a->ncols = argc;
	a->nrows++;
}

static void agg_final(sqlite3_context *ctx)
{
	struct pk_agg *a = sqlite3_aggregate_context(ctx, 0);
	struct packed_val *byc;
	struct packed_enc e = { 0 };
	struct strbuf blk = STRBUF_INIT;
	size_t i;
	int r, c;

	if (!a || !a->nrows) {
		sqlite3_result_null(ctx);
		return;
	}
	if (!a->failed && (byc = sqlite3_malloc64(a->n * sizeof(*byc)))) {
		for (r = 0; r < a->nrows; r++)
			for (c = 0; c < a->ncols; c++)
				byc[(size_t)c * a->nrows + r] = a->v[(size_t)r * a->ncols + c];
		if (packed_encode(&e, &blk, byc, a->nrows, a->ncols) == 0)
			sqlite3_result_blob64(ctx, blk.buf, blk.len, SQLITE_TRANSIENT);
		else
			sqlite3_result_error_nomem(ctx);
		sqlite3_free(byc);
	} else if (!a->failed) {
		sqlite3_result_error_nomem(ctx);
	}
	for (i = 0; i < a->n; i++)
		if (a->v[i].type == PV_TEXT || a->v[i].type == PV_BLOB)
			sqlite3_free((void *)a->v[i].p);
	sqlite3_free(a->v);
	strbuf_release(&blk);
	packed_enc_release(&e);
}

int packed_rows_register(sqlite3 *db)
{
	return sqlite3_create_function(db, "packed_rows", -1, SQLITE_UTF8, NULL, NULL, agg_step,
				       agg_final);
}
