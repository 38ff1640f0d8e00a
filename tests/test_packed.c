/*
 * test_packed.c -- packed tables (analyzer/store/packed.c): what the
 * encoder writes reads back through the virtual table as the rows it was
 * given, with their rowids and in their order; the parent filter, SQL
 * INSERTs and the refusals; a hostile block ends its query with an
 * error. The bulk path's own use (the trace of a snapshot) is checked
 * against the snapshot's figures in test_snapshot.c.
 */
#include "testutil.h"
#include "analyzer/store/packed.h"
#include "lib/strbuf.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

static sqlite3 *open_db(void)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(packed_register(db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
		"CREATE TABLE t_block(id INTEGER PRIMARY KEY, parent INTEGER,"
		" first_rowid INTEGER NOT NULL, rows INTEGER NOT NULL, data BLOB NOT NULL);"
		"CREATE VIRTUAL TABLE t USING " PACKED_MODULE "(t_block, p INTEGER NOT NULL,"
		" n INTEGER, s TEXT, x)", NULL, NULL, NULL), SQLITE_OK);
	return db;
}

static int64_t one(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static const char *text(sqlite3 *db, const char *sql)
{
	static char buf[512];
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	snprintf(buf, sizeof(buf), "%s", sqlite3_step(st) == SQLITE_ROW &&
		 sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "(none)");
	sqlite3_finalize(st);
	return buf;
}

/* Encode rows of (p, n, s, x) given by column and append them. */
static void append(sqlite3 *db, sqlite3_stmt **ins, struct packed_enc *e,
		   const struct packed_val *vals, int nrows)
{
	struct strbuf blk = STRBUF_INIT;

	assert_int_equal(packed_encode(e, &blk, vals, nrows, 4), 0);
	assert_int_equal(packed_append(db, "t_block", ins, vals[0].i, nrows, blk.buf, blk.len),
			 SQLITE_OK);
	strbuf_release(&blk);
}

/* Extremes of every kind, NULLs among them, round-trip exactly. */
static void values_round_trip(void **state)
{
	enum { R = 300 };
	static struct packed_val v[4 * R];
	static char words[R][16];
	struct packed_enc e = { 0 };
	sqlite3_stmt *ins = NULL;
	sqlite3 *db = open_db();
	int r;
	(void)state;

	for (r = 0; r < R; r++) {
		struct packed_val *p = &v[r], *n = &v[R + r], *s = &v[2 * R + r], *x = &v[3 * R + r];
		p->type = PV_INT;
		p->i = 7;
		n->type = r % 5 == 0 ? PV_NULL : PV_INT;
		n->i = r % 2 ? INT64_MIN + r : INT64_MAX - r;   /* deltas that wrap */
		snprintf(words[r], sizeof(words[r]), "w%d", r % 40);   /* past the dictionary's search */
		s->type = r % 7 == 0 ? PV_NULL : PV_TEXT;
		s->p = words[r];
		s->n = strlen(words[r]);
		x->type = r % 3 == 0 ? PV_REAL : r % 3 == 1 ? PV_TEXT : PV_INT;
		x->d = r + 0.5;
		x->p = "";
		x->n = 0;
		x->i = -r;
	}
	append(db, &ins, &e, v, R);
	assert_int_equal(one(db, "SELECT count(*) FROM t"), R);
	assert_int_equal(one(db, "SELECT count(*) FROM t WHERE n IS NULL"), R / 5);
	assert_int_equal(one(db, "SELECT n FROM t WHERE rowid = 2"), INT64_MIN + 1);
	assert_int_equal(one(db, "SELECT n FROM t WHERE rowid = 3"), INT64_MAX - 2);
	assert_string_equal(text(db, "SELECT s FROM t WHERE rowid = 42"), "w1");
	assert_int_equal(one(db, "SELECT count(*) FROM t WHERE s IS NULL"), (R + 6) / 7);
	assert_int_equal(one(db, "SELECT count(DISTINCT s) FROM t"), 40);
	assert_string_equal(text(db, "SELECT typeof(x) || ':' || x FROM t WHERE rowid = 4"),
			    "real:3.5");
	assert_string_equal(text(db, "SELECT typeof(x) || ':' || x FROM t WHERE rowid = 5"),
			    "text:");
	assert_string_equal(text(db, "SELECT typeof(x) || ':' || x FROM t WHERE rowid = 6"),
			    "integer:-5");
	sqlite3_finalize(ins);
	packed_enc_release(&e);
	sqlite3_close(db);
}

/* Rowids run on across blocks; the parent filter and rowid order hold. */
static void blocks_keep_rowids_and_order(void **state)
{
	struct packed_val v[4 * 3];
	struct packed_enc e = { 0 };
	sqlite3_stmt *ins = NULL;
	sqlite3 *db = open_db();
	int b, r;
	(void)state;

	for (b = 0; b < 3; b++) {
		for (r = 0; r < 3; r++) {
			v[r] = (struct packed_val){ .type = PV_INT, .i = b == 1 ? 2 : 1 };
			v[3 + r] = (struct packed_val){ .type = PV_INT, .i = 10 * b + r };
			v[6 + r] = (struct packed_val){ .type = PV_NULL };
			v[9 + r] = (struct packed_val){ .type = PV_NULL };
		}
		append(db, &ins, &e, v, 3);
	}
	assert_int_equal(one(db, "SELECT group_concat(rowid || '=' || n, ' ') = '1=0 2=1 3=2 4=10"
			     " 5=11 6=12 7=20 8=21 9=22' FROM t"), 1);
	assert_int_equal(one(db, "SELECT count(*) FROM t WHERE p = 1"), 6);
	assert_int_equal(one(db, "SELECT sum(n) FROM t WHERE p = 2"), 33);
	assert_int_equal(one(db, "SELECT n FROM t WHERE p = 1 ORDER BY rowid LIMIT 1 OFFSET 3"), 20);
	assert_int_equal(one(db, "SELECT n FROM t ORDER BY rowid DESC LIMIT 1"), 22);
	/* a join with the filter inside: the planner gives the parent */
	assert_int_equal(one(db, "SELECT sum(t.n) FROM (SELECT 2 AS q) JOIN t ON t.p = q"), 33);
	/* an SQL INSERT is a block of one row, after the others */
	assert_int_equal(sqlite3_exec(db, "INSERT INTO t(p, n, s) VALUES(3, 99, 'z')",
				      NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(one(db, "SELECT rowid FROM t WHERE s = 'z'"), 10);
	assert_int_equal(one(db, "SELECT count(*) FROM t_block"), 4);
	/* rows are never changed */
	assert_int_not_equal(sqlite3_exec(db, "DELETE FROM t", NULL, NULL, NULL), SQLITE_OK);
	assert_int_not_equal(sqlite3_exec(db, "UPDATE t SET n = 0", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(one(db, "SELECT count(*) FROM t"), 10);
	sqlite3_finalize(ins);
	packed_enc_release(&e);
	sqlite3_close(db);
}

/* A block that lies (a length past its end, a dictionary index out of
 * range, a truncation) fails its query, naming the block. */
static void hostile_blocks_fail_cleanly(void **state)
{
	struct packed_val v[4] = {
		{ .type = PV_INT, .i = 1 }, { .type = PV_INT, .i = 5 },
		{ .type = PV_TEXT, .p = "abc", .n = 3 }, { .type = PV_NULL },
	};
	struct packed_enc e = { 0 };
	struct strbuf blk = STRBUF_INIT;
	size_t round;
	(void)state;

	assert_int_equal(packed_encode(&e, &blk, v, 1, 4), 0);
	/* rounds 0 .. len - 1 flip that byte; round len cuts the last byte
	 * off, round len + 1 stores an empty blob */
	for (round = 0; round <= blk.len + 1; round++) {
		sqlite3 *db = open_db();
		sqlite3_stmt *ins = NULL, *st;
		unsigned char bad[64];
		size_t n = round < blk.len ? blk.len : round == blk.len ? blk.len - 1 : 0;
		int rc;
		memcpy(bad, blk.buf, blk.len);
		if (round < blk.len)
			bad[round] ^= 0xff;
		assert_int_equal(packed_append(db, "t_block", &ins, 1, 1, bad, n), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(db, "SELECT p, n, s, x FROM t", -1, &st, NULL),
				 SQLITE_OK);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
		/* a flipped byte may still decode (a value changed); a cut never does */
		if (round >= blk.len) {
			assert_int_not_equal(rc, SQLITE_DONE);
			assert_non_null(strstr(sqlite3_errmsg(db), "t_block row 1"));
		}
		sqlite3_finalize(st);
		sqlite3_finalize(ins);
		sqlite3_close(db);
	}
	strbuf_release(&blk);
	packed_enc_release(&e);
}

/* packed_rows(...) writes from SQL the blocks the encoder writes. */
static void the_aggregate_writes_blocks(void **state)
{
	sqlite3 *db = open_db();
	(void)state;

	assert_int_equal(sqlite3_exec(db,
		"WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 599)"
		" INSERT INTO t_block(parent, first_rowid, rows, data)"
		" SELECT 4, 1 + g * 256, count(*), packed_rows(4, i * 3, 'a' || (i % 3), NULL)"
		" FROM (SELECT i, i / 256 AS g FROM c) GROUP BY g", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(one(db, "SELECT count(*) FROM t_block"), 3);
	assert_int_equal(one(db, "SELECT count(*) FROM t WHERE p = 4"), 600);
	assert_int_equal(one(db, "SELECT sum(n) FROM t"), 3 * 599 * 600 / 2);
	assert_int_equal(one(db, "SELECT n FROM t WHERE rowid = 300"), 3 * 299);
	assert_string_equal(text(db, "SELECT s FROM t WHERE rowid = 300"), "a2");
	assert_int_equal(one(db, "SELECT count(x) FROM t"), 0);
	sqlite3_close(db);
}

/* The constraints the cursor tests itself give what a plain table with
 * the same columns and rows gives, NULLs, affinities and collations
 * included. */
static void filters_agree_with_sqlite(void **state)
{
	static const char *const where[] = {
		"n = 5", "n > 7", "n >= 7", "n < 3", "n <= 3", "n IS NULL", "n IS NOT NULL",
		"s = 'b'", "s > 'a'", "s < 'b'", "s IS NULL", "x = 2", "x > 1.5", "x = 'q'",
		"n = '5'", "s = 5", "n = NULL", "s = 'B' COLLATE NOCASE", "n = 5 AND s = 'c'",
		"n > 2 AND n < 8 AND x IS NOT NULL", "n = 5.0", "x >= 'a'",
	};
	sqlite3 *db = open_db();
	size_t i;
	(void)state;

	assert_int_equal(sqlite3_exec(db,
		"WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 299)"
		" INSERT INTO t_block(parent, first_rowid, rows, data)"
		" SELECT 1, 1 + g * 100, count(*), packed_rows(1, iif(i % 11 = 0, NULL, i % 10),"
		" iif(i % 13 = 0, NULL, char(97 + i % 4)),"
		" CASE i % 5 WHEN 0 THEN 2 WHEN 1 THEN 2.5 WHEN 2 THEN 'q' WHEN 3 THEN NULL"
		" ELSE 'a' END) FROM (SELECT i, i / 100 AS g FROM c) GROUP BY g",
		NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE u(p INTEGER NOT NULL, n INTEGER, s TEXT, x);"
				      " INSERT INTO u(rowid, p, n, s, x) SELECT rowid, p, n, s, x FROM t",
				      NULL, NULL, NULL), SQLITE_OK);
	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		char a[256], b[256], want[64];
		snprintf(a, sizeof(a), "SELECT count(*) || ':' || total(rowid) FROM t WHERE %s", where[i]);
		snprintf(b, sizeof(b), "SELECT count(*) || ':' || total(rowid) FROM u WHERE %s", where[i]);
		snprintf(want, sizeof(want), "%s", text(db, b));
		if (strcmp(text(db, a), want))
			fail_msg("WHERE %s: %s, a plain table says %s", where[i], text(db, a), want);
	}
	assert_string_equal(text(db, "SELECT count(*) FROM t WHERE n = 5"), "27");
	sqlite3_close(db);
}

/* An SQL INSERT stores what a plain table with the same declared types
 * stores: the columns' affinities apply. */
static void inserts_apply_affinity(void **state)
{
	static const char rows[] = "(1, '5', 5, '5'), (1, '5.0', 2.5, 'a'), (1, 2.0, 'x', NULL),"
				   " (1, 'abc', 1e300, 2.5), (1, ' 7', -0.0, x'00')";
	char sql[512];
	sqlite3 *db = open_db();
	(void)state;

	snprintf(sql, sizeof(sql), "CREATE TABLE u(p INTEGER NOT NULL, n INTEGER, s TEXT, x);"
		 " INSERT INTO t VALUES %s; INSERT INTO u VALUES %s", rows, rows);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(one(db, "SELECT count(*) FROM t JOIN u ON t.rowid = u.rowid"
			     " AND t.n IS u.n AND typeof(t.n) = typeof(u.n)"
			     " AND t.s IS u.s AND typeof(t.s) = typeof(u.s)"
			     " AND t.x IS u.x AND typeof(t.x) = typeof(u.x)"), 5);
	assert_string_equal(text(db, "SELECT typeof(n) || ':' || typeof(s) FROM t WHERE rowid = 2"),
			    "integer:text");
	sqlite3_close(db);
}

/* The timeline's trace table is packed: a row the store is given reads
 * back, and its block is in trace_block. */
static void the_timeline_trace_is_packed(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_int(tl, "SELECT count(*) FROM sqlite_master WHERE name = 'trace'"
			       " AND sql LIKE 'CREATE VIRTUAL TABLE%%'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sqlite_master WHERE name = 'alloc'"
			       " AND sql LIKE 'CREATE VIRTUAL TABLE%%'"), 1);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(values_round_trip),
		cmocka_unit_test(blocks_keep_rowids_and_order),
		cmocka_unit_test(hostile_blocks_fail_cleanly),
		cmocka_unit_test(the_aggregate_writes_blocks),
		cmocka_unit_test(filters_agree_with_sqlite),
		cmocka_unit_test(inserts_apply_affinity),
		cmocka_unit_test(the_timeline_trace_is_packed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
