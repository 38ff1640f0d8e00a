/*
 * test_rl_first_row.c -- the rules' prepare-and-first-row helper
 * (analyzer/derive/dctx.c, issue 27 round 17 review): the idiom the
 * rules wrote by hand (prepare, step, "no row: finalize and return")
 * as one call. A row: 1 and the statement on it, for the caller to read
 * and finalize; no row: 0, nothing to finalize, no failure recorded; a
 * query that does not prepare: -1 with the failure recorded, as
 * rl_prepare records it; a query that prepares but whose step fails
 * (round 19 review: it read as "no row", the error lost): -1 with the
 * step's error recorded.
 */
#include "testutil.h"
#include "analyzer/rules/rulelib.h"

#include <stdlib.h>
#include <string.h>

static struct rule_ctx *ctx_on(sqlite3 *db)
{
	struct rule_ctx *c = calloc(1, sizeof(*c));   /* large: the series cache */

	assert_non_null(c);
	c->db = db;
	return c;
}

static void a_row_no_row_and_a_failure(void **state)
{
	sqlite3 *db;
	sqlite3_stmt *st = (sqlite3_stmt *)1;
	struct rule_ctx *c;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE oom(id INTEGER, phase TEXT);"
				      "INSERT INTO oom VALUES (1, 'serving'), (2, 'kv_alloc');",
				      NULL, NULL, NULL), SQLITE_OK);
	c = ctx_on(db);
	assert_int_equal(rl_first_row(c, "SELECT phase FROM oom ORDER BY id", &st), 1);
	assert_non_null(st);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "serving");
	sqlite3_finalize(st);
	assert_int_equal(rl_first_row(c, "SELECT phase FROM oom WHERE id = 3", &st), 0);
	assert_null(st);
	assert_int_equal(c->failed, 0);
	assert_int_equal(rl_first_row(c, "SELECT phase FROM no_such_table", &st), -1);
	assert_null(st);
	assert_int_equal(c->failed, 1);
	assert_non_null(strstr(c->err, "no_such_table"));
	free(c);
	sqlite3_close(db);
}

/* json_extract over a column that holds no JSON fails at its step, as a
 * rule's json_extract(e.data, ...) would on an event whose data is not
 * JSON: the rule must see a failure, not "nothing found". */
static void a_step_failure_is_recorded(void **state)
{
	sqlite3 *db;
	sqlite3_stmt *st = (sqlite3_stmt *)1;
	struct rule_ctx *c;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE event(id INTEGER, data TEXT);"
				      "INSERT INTO event VALUES (1, 'not json');",
				      NULL, NULL, NULL), SQLITE_OK);
	c = ctx_on(db);
	assert_int_equal(rl_first_row(c, "SELECT json_extract(data, '$.phase') FROM event"
				      " WHERE json_extract(data, '$.phase') IS NOT NULL", &st), -1);
	assert_null(st);
	assert_int_equal(c->failed, 1);
	assert_non_null(strstr(c->err, "JSON"));
	free(c);
	sqlite3_close(db);
}

/* A loop of steps that ends on an error, not on the last row: rl_finalize
 * records it (leak_stated's loop over its meta rows, round 19 review). */
static void a_loop_ended_by_an_error(void **state)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	struct rule_ctx *c;
	int rows = 0;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE event(id INTEGER, data TEXT);"
				      "INSERT INTO event VALUES (1, '{\"a\": 1}'), (2, 'not json');",
				      NULL, NULL, NULL), SQLITE_OK);
	c = ctx_on(db);
	st = rl_prepare(c, "SELECT json_extract(data, '$.a') FROM event");
	assert_non_null(st);
	while (sqlite3_step(st) == SQLITE_ROW)
		rows++;
	assert_int_equal(rows, 1);
	assert_int_equal(c->failed, 0);
	assert_int_equal(rl_finalize(c, st), -1);
	assert_int_equal(c->failed, 1);
	assert_non_null(strstr(c->err, "JSON"));
	st = rl_prepare(c, "SELECT id FROM event");
	while (sqlite3_step(st) == SQLITE_ROW)
		;
	assert_int_equal(rl_finalize(c, st), 0);
	assert_int_equal(rl_finalize(c, NULL), 0);
	free(c);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_row_no_row_and_a_failure),
		cmocka_unit_test(a_step_failure_is_recorded),
		cmocka_unit_test(a_loop_ended_by_an_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
