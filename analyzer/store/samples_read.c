/*
 * samples_read.c -- the store's reads of a series' samples as SQL
 * functions, answered from the series' blocks (samples.h) without a row
 * of `sample` going through SQLite's VDBE:
 *
 *     sample_first_ns(series_id)   the earliest time_ns, NULL when none
 *     sample_last_ns(series_id)    the latest time_ns, NULL when none
 *     sample_count(series_id)      the samples (of any clock)
 *
 * A reader that asks a series' span or size (the ingest's correlation of
 * artifacts by time, the rules' start-up checks, the charts' axes) calls
 * these instead of min(time_ns)/max(time_ns)/count(*) over `sample`:
 * they decode only the time column of the series' blocks (the count not
 * even that), where the virtual table would hand every row of the series
 * to SQLite. Registered on every connection the store opens, and by the
 * extension for the sqlite3 shell (packed_ext.c).
 */
#include "analyzer/store/packed_block.h"
#include "analyzer/store/samples.h"

#include <string.h>

/* One connection's state: a column's cells, reused. (The blocks' query
 * is prepared at each call: a statement kept would hold sqlite3_close.) */
struct sread {
	sqlite3 *db;
	struct pk_cell *cells, *dict;
	size_t cap;
};

/* Room for n cells; -1 out of memory. */
static int room(struct sread *r, size_t n)
{
	struct pk_cell *c, *d;

	if (n <= r->cap)
		return 0;
	if (!(c = sqlite3_realloc64(r->cells, n * sizeof(*c))))
		return -1;
	r->cells = c;
	if (!(d = sqlite3_realloc64(r->dict, n * sizeof(*d))))
		return -1;
	r->dict = d;
	r->cap = n;
	return 0;
}

enum { SR_FIRST, SR_LAST, SR_COUNT };

/* The answer of kind what for the series sid into ctx. */
static void answer(sqlite3_context *ctx, struct sread *r, int64_t sid, int what)
{
	sqlite3_stmt *blocks;
	int64_t lo = 0, hi = 0, count = 0;
	int any = 0, rc;

	rc = sqlite3_prepare_v2(r->db, what == SR_COUNT
				? "SELECT rows FROM sample_block WHERE parent = ?1"
				: "SELECT rows, data FROM sample_block WHERE parent = ?1",
				-1, &blocks, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_result_error(ctx, sqlite3_errmsg(r->db), -1);
		return;
	}
	sqlite3_bind_int64(blocks, 1, sid);
	while ((rc = sqlite3_step(blocks)) == SQLITE_ROW) {
		struct pk_block b;
		int i;
		count += sqlite3_column_int64(blocks, 0);
		if (what == SR_COUNT)
			continue;
		if (packed_block_open(&b, sqlite3_column_blob(blocks, 1),
				      (size_t)sqlite3_column_bytes(blocks, 1)) < 0 || b.ncols < 2 ||
		    room(r, (size_t)b.nrows) < 0 || packed_block_column(&b, 1, r->cells, r->dict) < 0) {
			sqlite3_finalize(blocks);
			sqlite3_result_error(ctx, "sample_block: a block that is not one of samples", -1);
			return;
		}
		for (i = 0; i < b.nrows; i++) {
			int64_t t;
			if (r->cells[i].type != PV_INT)
				continue;
			t = r->cells[i].u.i;
			if (!any || t < lo)
				lo = t;
			if (!any || t > hi)
				hi = t;
			any = 1;
		}
	}
	if (rc != SQLITE_DONE) {
		sqlite3_result_error(ctx, sqlite3_errmsg(r->db), -1);
		sqlite3_finalize(blocks);
		return;
	}
	sqlite3_finalize(blocks);
	if (what == SR_COUNT)
		sqlite3_result_int64(ctx, count);
	else if (any)
		sqlite3_result_int64(ctx, what == SR_FIRST ? lo : hi);
	else
		sqlite3_result_null(ctx);
}

static void fn_first(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return sqlite3_result_null(ctx);
	answer(ctx, sqlite3_user_data(ctx), sqlite3_value_int64(argv[0]), SR_FIRST);
}

static void fn_last(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return sqlite3_result_null(ctx);
	answer(ctx, sqlite3_user_data(ctx), sqlite3_value_int64(argv[0]), SR_LAST);
}

static void fn_count(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return sqlite3_result_int64(ctx, 0);
	answer(ctx, sqlite3_user_data(ctx), sqlite3_value_int64(argv[0]), SR_COUNT);
}

/* The connection's state goes with its last function. */
static void sread_free(void *p)
{
	struct sread *r = p;

	sqlite3_free(r->cells);
	sqlite3_free(r->dict);
	sqlite3_free(r);
}

int samples_register(sqlite3 *db)
{
	struct sread *r = sqlite3_malloc(sizeof(*r));
	int rc;

	if (!r)
		return SQLITE_NOMEM;
	memset(r, 0, sizeof(*r));
	r->db = db;
	/* one state for the three, freed with sample_count (by SQLite when
	 * its registration fails, too) */
	rc = sqlite3_create_function_v2(db, "sample_count", 1, SQLITE_UTF8, r, fn_count, NULL,
					NULL, sread_free);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sample_first_ns", 1, SQLITE_UTF8, r, fn_first,
						NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "sample_last_ns", 1, SQLITE_UTF8, r, fn_last,
						NULL, NULL, NULL);
	return rc;
}
