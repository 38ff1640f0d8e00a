/*
 * test_json_writer.c -- the JSON text writer of the query layer (q_jw),
 * which the JSON report streams its rows with, against what it replaces:
 * q_row() objects dumped by jansson. Every value and every row must come
 * out byte for byte as jansson writes it: reals over every magnitude and
 * next to rounding ties, text of any bytes (invalid UTF-8, NUL, control
 * characters), stored JSON as the store writes it and damaged in every
 * way a database can hold it (whitespace, keys twice, a key the row has,
 * numbers out of range, escapes, lone surrogates, trailing bytes), rows
 * compact and indented, with a column left out or made a boolean.
 */
#include "testutil.h"
#include "analyzer/store/query.h"
#include "analyzer/rules/rules.h"
#include "lib/strbuf.h"
#include "reports/report.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLAGS_REAL (JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12))

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* What a writer wrote, as a NUL-terminated string (caller frees). */
struct capture {
	FILE *f;
	char *text;
	size_t len;
};

static void cap_open(struct capture *c)
{
	c->text = NULL;
	c->len = 0;
	c->f = open_memstream(&c->text, &c->len);
	assert_non_null(c->f);
}

static char *cap_close(struct capture *c)
{
	fclose(c->f);
	return c->text;
}

/* One real through q_jw against jansson's dump of json_real. */
static void check_real(double v)
{
	struct capture c;
	struct q_jw w;
	json_t *j = json_real(v);
	char *want = json_dumps(j, JSON_ENCODE_ANY | FLAGS_REAL), *got;

	cap_open(&c);
	q_jw_init(&w, c.f, 0, 0);
	assert_int_equal(q_jw_real(&w, v), 0);
	assert_int_equal(q_jw_finish(&w), 0);
	got = cap_close(&c);
	if (strcmp(want, got))
		fail_msg("real %.17g: jansson %s, q_jw %s", v, want, got);
	free(got);
	free(want);
	json_decref(j);
}

static void reals_as_jansson_prints_them(void **state)
{
	static const double fixed[] = {
		0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 1e-4, 1e-5, 9.99999999999e-5, 0.000099999999999995,
		1e15, 1e16, 999999999999999.0, 999999999999.5, 999999999999.4999, 99999999999.95,
		123456789012.5, 1234567890125.0, 4600.000002, 7.70289989305e-5, 1e12, 1e11,
		123.0, 12345678901234.0, 0.30000000000000004, 2.5e-4, 1.5, 2.5, 1e300, -1e-300,
		5e-324, 1.7976931348623157e308, 0.000416976999986, 4000.10009,
		3.2e-5, -3.2e-5, 1.0000000000005e-7, 9.999999999995e-10, 1e-20, 9.99999999999e-21,
		1e-21, 1.23456789012e-13, 0.99999999999949e-4, 9.9999999999951e-5,
	};
	size_t i;
	int e;

	(void)state;
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		check_real(fixed[i]);
	/* every magnitude, random mantissas */
	for (i = 0; i < 1000; i++) {
		uint64_t bits = next_rand();
		double v;
		memcpy(&v, &bits, sizeof(v));
		if (isfinite(v))
			check_real(v);
		e = (int)(next_rand() % 44) - 22;
		check_real((double)(int64_t)(next_rand() % 2000000000000001ULL) * pow(10.0, e - 12));
	}
	/* next to the ties of the twelfth digit: d.ddddddddddd5 and its neighbours */
	for (i = 0; i < 100000; i++) {
		double m = (double)(100000000000ULL + next_rand() % 900000000000ULL) + 0.5;
		double v = m * pow(10.0, (int)(next_rand() % 30) - 25);
		check_real(v);
		check_real(nextafter(v, 0));
		check_real(nextafter(v, INFINITY));
		check_real((double)(int64_t)(next_rand() % 100000) / 1e9 + 4600.0);
	}
	assert_int_equal(q_jw_real(&(struct q_jw){ 0 }, INFINITY), -1);
}

/* Random bytes, biased to what text escaping cares about. */
static size_t random_text(unsigned char *buf, size_t max)
{
	static const unsigned char pick[] = { 0, 1, 0x1f, '"', '\\', '/', '\n', '\t', 0x7f,
					      0x80, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef,
					      0xf0, 0xf4, 0xf5, 0xff, 'a', ' ', 0xa0, 0x9f };
	size_t n = next_rand() % max, i;

	for (i = 0; i < n; i++)
		buf[i] = next_rand() % 3 ? pick[next_rand() % sizeof(pick)]
			 : (unsigned char)next_rand();
	return n;
}

static void text_as_q_json_and_jansson(void **state)
{
	unsigned char buf[64];
	int i;

	(void)state;
	for (i = 0; i < 200000; i++) {
		size_t n = random_text(buf, sizeof(buf));
		struct strbuf sb = STRBUF_INIT;
		struct capture c;
		struct q_jw w;
		json_t *j;
		char *want, *got;

		strbuf_add_utf8(&sb, (const char *)buf, n);
		j = json_stringn(sb.buf, sb.len);
		assert_non_null(j);
		want = json_dumps(j, JSON_ENCODE_ANY);
		cap_open(&c);
		q_jw_init(&w, c.f, 0, 0);
		q_jw_text(&w, (const char *)buf, n);
		assert_int_equal(q_jw_finish(&w), 0);
		got = cap_close(&c);
		assert_string_equal(got, want);
		free(got);
		free(want);
		json_decref(j);
		strbuf_release(&sb);
	}
}

/* ---- rows ---- */

/* A random jansson value, depth at most d, as the store's data holds. */
static json_t *random_value(int d)
{
	static const char *const keys[] = { "pid", "a", "b", "order", "gfp_mask", "tasks", "x",
					    "\xc3\xa9t\xc3\xa9", "k\"q", "id", "kind", "data" };
	unsigned char buf[16];
	json_t *o;
	size_t n, i;

	switch (next_rand() % (d > 0 ? 9 : 6)) {
	case 0:
		return json_integer((json_int_t)next_rand() >> (next_rand() % 64));
	case 1:
		return json_real((double)(int64_t)next_rand() / 1e9 / (double)(1 + next_rand() % 1000));
	case 2:
		n = random_text(buf, sizeof(buf));
		{
			struct strbuf sb = STRBUF_INIT;
			strbuf_add_utf8(&sb, (const char *)buf, n);
			o = json_stringn(sb.buf, sb.len);
			strbuf_release(&sb);
			return o;
		}
	case 3:
		return json_null();
	case 4:
		return json_boolean(next_rand() & 1);
	case 5:
		return json_integer(-(json_int_t)(next_rand() % 1000));
	case 6:
	case 7:
		o = json_object();
		n = next_rand() % 6;
		for (i = 0; i < n; i++)
			json_object_set_new(o, keys[next_rand() % (sizeof(keys) / sizeof(keys[0]))],
					    random_value(d - 1));
		return o;
	default:
		o = json_array();
		n = next_rand() % 4;
		for (i = 0; i < n; i++)
			json_array_append_new(o, random_value(d - 1));
		return o;
	}
}

/* Stored JSON text: as the store writes it, or damaged in one of the ways
 * a database may hold it. Caller frees. */
static char *random_json_text(int top_object)
{
	static const char *const odd[] = {
		"{\"a\":1,\"a\":2}", "{\"pid\":5}", "{\"id\":7,\"z\":1}", "{\"a\": 1}", " {}",
		"{}", "[1,2]", "{\"a\":1} ", "{\"a\":1}x", "not json", "",
		"{\"big\":9223372036854775807,\"neg\":-9223372036854775808}",
		"{\"over\":9223372036854775808}", "{\"r\":1e400}", "{\"r\":1e-400}",
		"{\"r\":-0,\"s\":-0.0,\"t\":0.1e1,\"u\":1E+2,\"v\":12.50}", "{\"l\":01}",
		"{\"u\":\"\\u00e9\\ud83d\\ude00\\u001b\\u001F\\/\\b\\f\\n\\r\\t\\\"\\\\\"}",
		"{\"u\":\"\\u0000\"}", "{\"u\":\"\\ud800\"}", "{\"u\":\"\\udc00x\"}",
		"{\"u\":\"\\u0041\\u007f\\u0080\"}", "{\"c\":\"\x01\"}", "{\"bad\":\"\xff\"}",
		"{\"n\":{\"a\":1,\"a\":2}}", "{\"n\":[{\"q\":1},{\"q\":1}]}", "{\"t\":tru}",
		"{\"t\":true,\"f\":false,\"n\":null}", "{\"e\":\"\\x\"}", "{\"k\":1,}", "{,}",
		"{\"deep\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
		"{\"m\":-}", "{\"m\":1.}", "{\"m\":1e}", "{\"m\":.5}", "[]", "{\"a\":[]}",
	};
	json_t *v;
	char *s;

	if (next_rand() % 3 == 0)
		return strdup(odd[next_rand() % (sizeof(odd) / sizeof(odd[0]))]);
	v = random_value(3);
	if (top_object && !json_is_object(v)) {
		json_t *o = json_object();
		json_object_set_new(o, "v", v);
		v = o;
	}
	s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
	json_decref(v);
	return s;
}

static void exec_sql(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err);
}

/* A table of rows whose every column is random, of every SQLite type. */
static sqlite3 *random_rows(int n)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	unsigned char buf[48];
	int i, c;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	exec_sql(db, "CREATE TABLE r(id INTEGER PRIMARY KEY, kind TEXT, time_ns INTEGER,"
		 " compressed INTEGER, v, data TEXT, frame TEXT)");
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO r VALUES (?, ?, ?, ?, ?, ?, ?)", -1,
					    &st, NULL), SQLITE_OK);
	for (i = 0; i < n; i++) {
		sqlite3_bind_int(st, 1, i + 1);
		sqlite3_bind_text(st, 2, next_rand() & 1 ? "oom_kill" : "k\xc3\xa9\x01", -1,
				  SQLITE_STATIC);
		if (next_rand() % 4)
			sqlite3_bind_int64(st, 3, (int64_t)next_rand());
		else
			sqlite3_bind_null(st, 3);
		sqlite3_bind_int64(st, 4, (int64_t)(next_rand() % 3));
		for (c = 5; c <= 7; c++) {
			char *json;
			switch (next_rand() % (c == 5 ? 6 : 4)) {
			case 0:
				sqlite3_bind_null(st, c);
				break;
			case 1:
				sqlite3_bind_int64(st, c, (int64_t)next_rand());
				break;
			case 2:
			case 3:
				json = random_json_text(c == 6);
				sqlite3_bind_text(st, c, json, -1, SQLITE_TRANSIENT);
				free(json);
				break;
			case 4:
				sqlite3_bind_double(st, c, next_rand() % 8 ? (double)(int64_t)next_rand() / 1e7
						    : (next_rand() & 1 ? INFINITY : -INFINITY));
				break;
			default:
				sqlite3_bind_blob(st, c, buf, (int)random_text(buf, sizeof(buf)),
						  SQLITE_TRANSIENT);
				break;
			}
		}
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return db;
}

/* The integer sql's first row gives. */
static uint64_t t_rows(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	uint64_t n;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Every row of sql through q_jw and through q_row + jansson (with the
 * caller's changes: skip deleted, boolean made true/false), compact or
 * indented at depth 1 as the report streams them. Returns how many rows
 * q_jw wrote itself, without jansson. */
static uint64_t rows_agree(sqlite3 *db, const char *sql, const char *skip, const char *boolean,
			   int indent)
{
	uint64_t fast = 0;
	size_t flags = FLAGS_REAL | (indent ? JSON_INDENT(indent) : JSON_COMPACT);
	sqlite3_stmt *st;
	struct q_jw_cols cols;
	int rows = 0;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(q_jw_cols_init(&cols, st, skip, boolean), 0);
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *o = q_row(st);
		struct capture c;
		struct q_jw w;
		char *got, *want;

		if (boolean)
			json_object_set_new(o, boolean,
				json_boolean(json_integer_value(json_object_get(o, boolean))));
		if (skip)
			json_object_del(o, skip);
		cap_open(&c);
		q_write_json_at(c.f, o, flags, indent);
		want = cap_close(&c);
		cap_open(&c);
		q_jw_init(&w, c.f, indent, indent ? 1 : 0);
		q_jw_open(&w, '{');
		assert_int_equal(q_jw_row(&w, &cols), 0);
		q_jw_close(&w, '}');
		assert_int_equal(w.rows_fast + w.rows_slow, 1);
		fast += w.rows_fast;
		assert_int_equal(q_jw_finish(&w), 0);
		got = cap_close(&c);
		if (strcmp(got, want))
			fail_msg("row %d of %s:\njansson: %s\nq_jw:    %s", rows, sql, want, got);
		free(got);
		free(want);
		json_decref(o);
		rows++;
	}
	assert_true(rows > 0);
	q_jw_cols_release(&cols);
	sqlite3_finalize(st);
	return fast;
}

static void rows_as_q_row_dumped(void **state)
{
	sqlite3 *db = random_rows(20000);
	uint64_t fast;

	(void)state;
	/* stored JSON as the store writes it goes without jansson; damaged
	 * or clashing, through it (a third of the data is damaged) */
	fast = rows_agree(db, "SELECT id, kind, time_ns AS time, v, data FROM r", NULL, NULL, 0);
	assert_true(fast > 20000 / 4 && fast < 20000);
	fast = rows_agree(db, "SELECT id, kind, time_ns AS time, v, data FROM r", NULL, NULL, 2);
	assert_true(fast > 20000 / 4 && fast < 20000);
	fast = rows_agree(db, "SELECT id, kind, compressed, v AS value, frame AS frame_json"
			  " FROM r", "id", "compressed", 2);
	assert_true(fast > 20000 / 4 && fast < 20000);
	fast = rows_agree(db, "SELECT id, v AS data, frame AS x_json, time_ns AS first_time FROM r",
			  NULL, NULL, 0);
	assert_true(fast > 20000 / 4);
	/* two data columns: the second's keys against the first's */
	fast = rows_agree(db, "SELECT kind, data, v AS data FROM r", NULL, NULL, 0);
	assert_true(fast > 20000 / 4 && fast < 20000);
	/* no stored JSON: every row without jansson, but the infinite reals
	 * (jansson has none: the member is left out) */
	fast = rows_agree(db, "SELECT id, kind, time_ns AS time, compressed, v AS value FROM r",
			  NULL, NULL, 2);
	assert_int_equal(fast, t_rows(db, "SELECT count(*) FROM r WHERE typeof(v) <> 'real'"
				      " OR abs(v) < 1e308"));
	/* a name twice, a boolean key the row lacks, a key beyond ASCII, a
	 * boolean from a time column, data with a column left out: every row
	 * through jansson */
	assert_int_equal(rows_agree(db, "SELECT id, kind, v AS kind FROM r", NULL, NULL, 2), 0);
	assert_int_equal(rows_agree(db, "SELECT id, kind, v FROM r", "id", "missing", 2), 0);
	assert_int_equal(rows_agree(db, "SELECT id, kind AS \"k\xc3\xa9\" FROM r", NULL, NULL, 0),
			 0);
	assert_int_equal(rows_agree(db, "SELECT id, time_ns AS time FROM r", NULL, "time", 0), 0);
	assert_int_equal(rows_agree(db, "SELECT id, kind, data FROM r", "id", NULL, 0), 0);
	sqlite3_close(db);
}

/* A row's nested array (q_jw_rows) as q_rows_next dumped, and the
 * separators of the containers around them. */
static void nested_rows_as_jansson(void **state)
{
	sqlite3 *db = random_rows(300);
	sqlite3_stmt *st, *kids;
	struct q_jw_cols cols, kc;
	struct capture c;
	struct q_jw w;
	json_t *o;
	char *got, *want;

	(void)state;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT id, kind FROM r WHERE id <= 3", -1,
					    &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT v, data, time_ns AS time FROM r"
					    " WHERE id % 3 = ?1 % 3 AND id < ?1 * 40", -1, &kids,
					    NULL), SQLITE_OK);
	assert_int_equal(q_jw_cols_init(&cols, st, "id", NULL), 0);
	assert_int_equal(q_jw_cols_init(&kc, kids, NULL, NULL), 0);
	cap_open(&c);
	q_jw_init(&w, c.f, 2, 0);
	q_jw_open(&w, '[');
	o = json_array();
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *r = q_row(st);
		sqlite3_bind_int64(kids, 1, sqlite3_column_int64(st, 0));
		json_object_set_new(r, "kids", q_rows_next(kids, -1));
		json_object_del(r, "id");
		json_array_append_new(o, r);
		q_jw_elem(&w);
		q_jw_open(&w, '{');
		q_jw_row(&w, &cols);
		q_jw_key(&w, "kids");
		q_jw_rows(&w, &kc);
		q_jw_close(&w, '}');
	}
	q_jw_close(&w, ']');
	assert_int_equal(q_jw_finish(&w), 0);
	got = cap_close(&c);
	want = json_dumps(o, JSON_INDENT(2) | FLAGS_REAL);
	assert_string_equal(got, want);
	free(got);
	free(want);
	json_decref(o);
	q_jw_cols_release(&cols);
	q_jw_cols_release(&kc);
	sqlite3_finalize(st);
	sqlite3_finalize(kids);
	sqlite3_close(db);
}


/* Times written by one writer, which keeps the date of the day it wrote
 * last, as q_json_time() gives each alone: runs within a day, across
 * midnight and a leap day, before 1970, at random over every year an
 * int64 of nanoseconds reaches, and at its ends. */
static void times_as_format_iso8601(void **state)
{
	static const int64_t fixed[] = {
		0, -1, 1, 999, -999999999, -1000000000, -1000000001, -86400000000000,
		-86400000000001, 86399999999999, 86400000000000, INT64_MAX, INT64_MIN,
		INT64_MIN + 1, INT64_MAX - 1, 1764440000000000000, 1764440000000000000,
		1764460799999999999, 1764460800000000000, 1764460799999999999,
		951782400000000000, 951868799999999999, 951868800000000000,  /* 29 Feb 2000 */
	};
	sqlite3 *db;
	sqlite3_stmt *ins, *st;
	struct q_jw_cols cols;
	struct capture c;
	struct q_jw w;
	json_t *o;
	char *got, *want;
	int64_t t = 1764440000000000000;
	size_t i;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	exec_sql(db, "CREATE TABLE r(id INTEGER PRIMARY KEY, time_ns INTEGER)");
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO r(time_ns) VALUES (?)", -1, &ins,
					    NULL), SQLITE_OK);
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]) + 3000; i++) {
		int64_t v;
		if (i < sizeof(fixed) / sizeof(fixed[0]))
			v = fixed[i];
		else if (i % 7 == 0)
			v = (int64_t)next_rand();               /* any year */
		else
			v = t += (int64_t)(next_rand() % 4000000000000) - 200000000000;
		sqlite3_bind_int64(ins, 1, v);
		assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT time_ns AS time FROM r ORDER BY id", -1,
					    &st, NULL), SQLITE_OK);
	assert_int_equal(q_jw_cols_init(&cols, st, NULL, NULL), 0);
	cap_open(&c);
	q_jw_init(&w, c.f, 0, 0);
	assert_int_equal(q_jw_rows(&w, &cols), 0);
	assert_int_equal(w.rows_slow, 0);
	assert_int_equal(q_jw_finish(&w), 0);
	got = cap_close(&c);
	o = q_rows_next(st, -1);
	want = json_dumps(o, JSON_COMPACT | FLAGS_REAL);
	assert_string_equal(got, want);
	free(got);
	free(want);
	json_decref(o);
	q_jw_cols_release(&cols);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* Rows ordered by the writer (q_jw_rows_sorted) as SQLite's ORDER BY a
 * DESC, b orders them, NULLs included; a tie on both keys or a key that
 * is not an integer is left to SQLite (1, nothing written). */
static void sorted_rows_as_order_by(void **state)
{
	sqlite3 *db = random_rows(200);
	sqlite3_stmt *un, *by;
	struct q_jw_cols uc, bc;
	int g, sorted = 0, refused = 0;

	(void)state;
	exec_sql(db, "CREATE TABLE t(g INTEGER, a, b INTEGER, kind TEXT, v);"
		 "INSERT INTO t SELECT id % 50, CASE WHEN id % 17 = 0 THEN NULL"
		 " WHEN id % 101 = 0 THEN 1.5 ELSE (id * 7919) % 13 - 6 END,"
		 " CASE WHEN id % 13 = 0 THEN NULL ELSE (id * 104729) % 1000003 END, kind, v"
		 " FROM r;"
		 "INSERT INTO t VALUES (7, 3, 5, 'x', 1), (7, 3, 5, 'y', 2),"
		 " (8, 9223372036854775807, -9223372036854775808, 'z', 0), (8, NULL, NULL, 'n', 0),"
		 " (9, 'text', 1, 't', 0);");
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT kind, a, b, v FROM t WHERE g = ?1", -1,
					    &un, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT kind, a, b, v FROM t WHERE g = ?1"
					    " ORDER BY a DESC, b", -1, &by, NULL), SQLITE_OK);
	assert_int_equal(q_jw_cols_init(&uc, un, NULL, NULL), 0);
	assert_int_equal(q_jw_cols_init(&bc, by, NULL, NULL), 0);
	for (g = 0; g < 51; g++) {
		struct capture c1, c2;
		struct q_jw w1, w2;
		char *got, *want;
		int r;

		sqlite3_bind_int(un, 1, g);
		sqlite3_bind_int(by, 1, g);
		cap_open(&c1);
		cap_open(&c2);
		q_jw_init(&w1, c1.f, 2, 1);
		q_jw_init(&w2, c2.f, 2, 1);
		q_jw_open(&w1, '{');
		q_jw_open(&w2, '{');
		q_jw_key(&w1, "rows");
		q_jw_key(&w2, "rows");
		r = q_jw_rows_sorted(&w1, &uc, 1, 2);
		assert_true(r == 0 || r == 1);
		if (r == 1) {
			refused++;
			q_jw_rows(&w1, &bc);
		} else {
			sorted++;
		}
		q_jw_rows(&w2, &bc);
		q_jw_close(&w1, '}');
		q_jw_close(&w2, '}');
		assert_int_equal(q_jw_finish(&w1), 0);
		assert_int_equal(q_jw_finish(&w2), 0);
		got = cap_close(&c1);
		want = cap_close(&c2);
		if (strcmp(got, want))
			fail_msg("group %d (%s):\nORDER BY: %s\nq_jw:     %s", g,
				 r ? "refused" : "sorted", want, got);
		free(got);
		free(want);
	}
	/* group 1 holds 1.5 (id 101), 7 a tie, 9 text: refused; the others
	 * sorted, 8 with the extremes and NULLs */
	assert_int_equal(refused, 3);
	assert_int_equal(sorted, 48);
	q_jw_cols_release(&uc);
	q_jw_cols_release(&bc);
	sqlite3_finalize(un);
	sqlite3_finalize(by);
	sqlite3_close(db);
}

/* ---- the JSON report ---- */

/* The JSON report as it was written from jansson objects: report_json()'s
 * model, each section dumped indented, but the events one a line and
 * compact (the streamed form). Caller frees. */
static char *report_from_model(sqlite3 *db)
{
	size_t flags = JSON_PRESERVE_ORDER | JSON_ENCODE_ANY | JSON_REAL_PRECISION(12);
	json_t *o = report_json(db), *v, *e;
	struct capture c;
	const char *key;
	size_t i;
	int n = 0;

	assert_non_null(o);
	cap_open(&c);
	fputc('{', c.f);
	json_object_foreach(o, key, v) {
		fprintf(c.f, "%s\n\"%s\": ", n++ ? "," : "", key);
		if (strcmp(key, "events") || !json_is_array(v)) {
			assert_int_equal(json_dumpf(v, c.f, flags | JSON_INDENT(2)), 0);
			continue;
		}
		fputc('[', c.f);
		json_array_foreach(v, i, e) {
			fputs(i ? ",\n  " : "\n  ", c.f);
			assert_int_equal(json_dumpf(e, c.f, flags | JSON_COMPACT), 0);
		}
		fputs(json_array_size(v) ? "\n]" : "]", c.f);
	}
	fputs("\n}\n", c.f);
	json_decref(o);
	return cap_close(&c);
}

/* The report of the timeline written (streamed) against its model. */
static void report_agrees(struct timeline *tl, const char *what)
{
	struct strbuf err = STRBUF_INIT;
	struct capture c;
	char *got, *want;

	assert_int_equal(analyze_timeline(tl, NULL), 0);
	cap_open(&c);
	assert_int_equal(report_write(tl->db, REPORT_JSON, c.f, &err), 0);
	got = cap_close(&c);
	want = report_from_model(tl->db);
	if (strcmp(got, want)) {
		size_t i = 0;
		while (got[i] && got[i] == want[i])
			i++;
		fail_msg("%s: the JSON report differs from its model at byte %zu:\n"
			 "written: %.200s\nmodel:   %.200s", what, i, got + (i > 80 ? i - 80 : 0),
			 want + (i > 80 ? i - 80 : 0));
	}
	assert_true(strlen(got) > 1000);
	free(got);
	free(want);
	strbuf_release(&err);
}

/* Every fixture's JSON report (events with their data, task dumps,
 * artifacts with diagnostics, reals, times) byte for byte as the jansson
 * objects of report_json() dump, which is how the report was written
 * before q_jw. */
static void fixture_reports_as_their_model(void **state)
{
	static const char *const cases[] = {
		"fixtures/demo", "fixtures/global_oom_swap", "fixtures/leak_gpu_vllm",
		"fixtures/leak_host_smaps", "fixtures/misconfig_fragmentation_snapshot",
		"fixtures/misconfig_cgroup_limit_host", "fixtures/mixed_gpu_leak_spike",
		"fixtures/real_memcg_tritonserver", "tests/data/real/serving",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct timeline *tl = t_open();
		t_parse_file(tl, cases[i]);
		report_agrees(tl, cases[i]);
		t_close(tl);
	}
}

/* Text no parser cleaned: invalid UTF-8, NUL, control characters in
 * names, paths and stored JSON, as a damaged database may hold them. */
static void hostile_report_as_its_model(void **state)
{
	static const char kern[] =
		"Nov 29 13:30:00 h kernel: [ 100.000000] py\xff\x01thon invoked oom-killer:"
		" gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), order=0,"
		" oom_score_adj=0\n"
		"Nov 29 13:30:00 h kernel: [ 100.000001] Tasks state (memory values in pages):\n"
		"Nov 29 13:30:00 h kernel: [ 100.000002] [  pid  ]   uid  tgid total_vm      rss"
		" pgtables_bytes swapents oom_score_adj name\n"
		"Nov 29 13:30:00 h kernel: [ 100.000003] [   4312]  1000  4312  9000000  7000000"
		"  60000000        0             0 p\xc3\xa9\xed\xa0\x80\n"
		"Nov 29 13:30:00 h kernel: [ 100.000004] Out of memory: Killed process 4312"
		" (p\xc3\xa9) total-vm:36000000kB, anon-rss:28000000kB, file-rss:0kB,"
		" shmem-rss:0kB, UID:1000 pgtables:60000kB oom_score_adj:0\n";
	struct timeline *tl = t_open();

	(void)state;
	t_parse_mem(tl, "kernel_log", "k\xe9rn\x01\"el.log", kern, sizeof(kern) - 1);
	t_parse_file(tl, "fixtures/global_oom_swap");
	assert_int_equal(sqlite3_exec(tl->db,
		"UPDATE event SET summary = 'a' || char(0) || 'b' || char(1, 0xfffd, 0x7f) || x'ff'"
		" WHERE id % 3 = 0;"
		"UPDATE event SET data = json_set(coalesce(data, '{}'), '$.r', -0.0, '$.big',"
		" 9223372036854775807, '$.tiny', 1e-300, '$.u', 'x' || char(0x2028, 0x1f600))"
		" WHERE id % 2 = 0;"
		"UPDATE event SET data = '{\"pid\":1, \"a\":0.1}' WHERE id % 5 = 0;"
		"INSERT INTO diagnostic(artifact_id, severity, message) SELECT id, 'warning',"
		" 'bad ' || x'c0af' || char(10) FROM artifact;"
		/* ids the artifacts' merge must step over as the look-up did:
		 * a real never equals an id, text sorts after every number */
		"INSERT INTO diagnostic(artifact_id, severity, message) VALUES (1.5, 'error', 'r'),"
		" ('2', 'error', 'text 2'), ('zz', 'error', 't'), (NULL, 'error', 'none'),"
		" (-1, 'error', 'n');"
		/* the streamed meta, anchors and unknowns: a repeated key keeps
		 * its place and its last value, values of every type */
		"INSERT INTO meta(artifact_id, key, value) VALUES (NULL, 'b', '1'),"
		" (NULL, 'a', 'x' || x'ff' || char(0)), (NULL, 'b', '2'), (NULL, 'c', 3),"
		" (NULL, 'c', NULL), (NULL, 'z' || char(10, 0x1f600), 4.5),"
		" (NULL, 'incident.apart', 'k' || char(0) || 'z' || x'c0'),"
		" (NULL, 'incident.apart', 'second'), (1, 'time.year_basis', 'mtime' || x'ff');"
		"INSERT INTO anchor(artifact_id, boot_id, boot_ns, utc_ns, how) VALUES"
		" (1, 'b' || x'ff', 123456789012, 1764423000123456789, 'h\"ow' || char(1)),"
		" (NULL, NULL, NULL, NULL, NULL), (99, '7', -5, 0, '');"
		"UPDATE artifact SET status = 'partial' WHERE id = 1;",
		NULL, NULL, NULL), SQLITE_OK);
	report_agrees(tl, "hostile text");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reals_as_jansson_prints_them),
		cmocka_unit_test(text_as_q_json_and_jansson),
		cmocka_unit_test(rows_as_q_row_dumped),
		cmocka_unit_test(nested_rows_as_jansson),
		cmocka_unit_test(times_as_format_iso8601),
		cmocka_unit_test(sorted_rows_as_order_by),
		cmocka_unit_test(fixture_reports_as_their_model),
		cmocka_unit_test(hostile_report_as_its_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
