/*
 * test_samples_iter.c -- a series' samples row by row from its blocks
 * (analyzer/store/samples_iter.c): the iterator gives exactly the rows,
 * in the order, that `SELECT rowid, time_ns, boot_ns, value FROM sample
 * WHERE series_id = ? [bounds] [AND value IS NOT NULL] ORDER BY clock,
 * rowid` gives -- on a real server log and nvidia-smi CSV (a fixture's),
 * and on samples given out of time order, with ties, NULL values, no
 * time and the boot clock (the sink directly, for those edge cases) --
 * and a block that is not one is an error, not a read out of bounds.
 */
#include "testutil.h"
#include "analyzer/store/samples.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse(struct timeline *tl, const char *kind, const char *rel)
{
	size_t n;
	char *text = t_slurp(rel, &n);
	int r = t_parse_mem(tl, kind, rel, text, n);

	free(text);
	return r;
}

/* Compare the iterator over series sid (flags, from, to) with SQL's
 * answer; returns the rows compared. */
static int agree(struct timeline *tl, int64_t sid, int flags, int64_t from, int64_t to)
{
	const char *clk = flags & SI_BOOT ? "boot_ns" : "time_ns";
	char sql[400];
	sqlite3_stmt *st;
	struct samples_iter it;
	const struct sample_rec *r;
	int n = 0;

	snprintf(sql, sizeof(sql), "SELECT rowid, time_ns, boot_ns, value FROM sample"
		 " WHERE series_id = ?1 %s %s%s%s ORDER BY %s, rowid",
		 flags & SI_VALUED ? "AND value IS NOT NULL" : "",
		 flags & SI_BOUNDED ? "AND " : "", flags & SI_BOUNDED ? clk : "",
		 flags & SI_BOUNDED ? " BETWEEN ?2 AND ?3" : "", clk);
	assert_int_equal(sqlite3_prepare_v2(tl->db, sql, -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, sid);
	sqlite3_bind_int64(st, 2, from);
	sqlite3_bind_int64(st, 3, to);
	assert_int_equal(samples_iter_open(&it, tl->db, sid, flags, from, to), 0);
	while (sqlite3_step(st) == SQLITE_ROW) {
		assert_non_null(r = samples_iter_next(&it));
		assert_int_equal(r->rowid, sqlite3_column_int64(st, 0));
		assert_int_equal(r->has_time, sqlite3_column_type(st, 1) != SQLITE_NULL);
		assert_int_equal(r->time_ns, sqlite3_column_int64(st, 1));
		assert_int_equal(r->has_boot, sqlite3_column_type(st, 2) != SQLITE_NULL);
		assert_int_equal(r->boot_ns, sqlite3_column_int64(st, 2));
		assert_int_equal(r->has_value, sqlite3_column_type(st, 3) != SQLITE_NULL);
		assert_true(r->value == sqlite3_column_double(st, 3));
		n++;
	}
	assert_null(samples_iter_next(&it));
	samples_iter_close(&it);
	sqlite3_finalize(st);
	return n;
}

/* 1. a real server log and nvidia-smi CSV: every series, whole and
 * bounded to its middle */
static void real_series_read_as_sql_reads_them(void **state)
{
	struct timeline *tl = t_open();
	sqlite3_stmt *st;
	int series = 0, rows = 0;

	(void)state;
	assert_true(parse(tl, "server_log", "fixtures/spike_gpu_vllm/vllm.log") > 0);
	assert_true(parse(tl, "nvidia_smi", "fixtures/spike_gpu_vllm/nvidia-smi.csv") > 0);
	assert_int_equal(sqlite3_prepare_v2(tl->db, "SELECT id, sample_first_ns(id),"
					    " sample_last_ns(id) FROM series", -1, &st, NULL),
			 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), lo = sqlite3_column_int64(st, 1),
			hi = sqlite3_column_int64(st, 2);
		rows += agree(tl, id, 0, 0, 0);
		agree(tl, id, SI_VALUED | SI_BOUNDED, lo + (hi - lo) / 4, hi - (hi - lo) / 4);
		series++;
	}
	sqlite3_finalize(st);
	assert_true(series >= 2);
	assert_int_equal(rows, t_int(tl, "SELECT count(*) FROM sample"));
	t_close(tl);
}

/* 2. out of time order across blocks, ties, NULL values, samples with
 * no time and with only a boot time: the order is the clock's, ties in
 * the order given, the ones without the clock first */
static void edge_series_in_clock_order(void **state)
{
	struct timeline *tl = t_open();
	struct samples_iter it;
	int64_t a, b;
	int i;

	(void)state;
	assert_true(timeline_artifact_begin(tl, "edge", "nvidia_smi", 1, 0) > 0);
	a = sink_series(&tl->sink, "gpu.used_bytes", "bytes", "gpu0");
	b = sink_series(&tl->sink, "server.running", "requests", "vllm");
	assert_true(a > 0 && b > 0);
	for (i = 0; i < 2600; i++) {   /* in order, three blocks, ties in pairs */
		struct ol_time t = { OL_CLOCK_UTC, 1764440000000000000LL + (int64_t)(i / 2) * 1000000,
				     OL_NULL, NULL };
		assert_int_equal(sink_sample(&tl->sink, b, &t, i % 13 == 5 ? NAN : i % 100), 1);
	}
	for (i = 0; i < 3000; i++) {
		/* times go back every 700 samples, repeat in threes */
		struct ol_time t = { OL_CLOCK_UTC, 1764440000000000000LL +
				     (int64_t)((i % 700) / 3) * 1000000000, OL_NULL, NULL };
		if (i % 97 == 0) {
			t.clock = OL_CLOCK_BOOT;
			t.utc_ns = OL_NULL;
			t.boot_ns = 5000000000LL - i;
		}
		assert_int_equal(sink_sample(&tl->sink, a, &t, i % 11 == 0 ? NAN : (double)i), 1);
	}
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", 1, 0), 0);
	assert_int_equal(agree(tl, a, 0, 0, 0), 3000);
	assert_true(agree(tl, a, SI_VALUED, 0, 0) < 3000);
	assert_true(agree(tl, a, SI_VALUED | SI_BOUNDED, 1764440050000000000LL,
			  1764440150000000000LL) > 100);
	assert_true(agree(tl, a, SI_BOOT, 0, 0) == 3000);
	assert_true(agree(tl, a, SI_BOOT | SI_BOUNDED, 0, 5000000000LL) > 10);
	assert_int_equal(agree(tl, 987654, 0, 0, 0), 0);
	/* the series in order is read a block at a time, the other sorted */
	assert_int_equal(agree(tl, b, 0, 0, 0), 2600);
	assert_int_equal(agree(tl, b, SI_VALUED | SI_BOUNDED, 1764440000100000000LL,
			       1764440001200000000LL), 2032);
	assert_int_equal(samples_iter_open(&it, tl->db, b, 0, 0, 0), 0);
	assert_int_equal(it.streaming, 1);
	samples_iter_close(&it);
	assert_int_equal(samples_iter_open(&it, tl->db, a, SI_VALUED, 0, 0), 0);
	assert_int_equal(it.streaming, 0);
	samples_iter_close(&it);
	/* the block-aware functions agree with SQL over the rows */
	assert_int_equal(t_int(tl, "SELECT sample_min(%lld) IS (SELECT min(value) FROM sample"
			       " WHERE series_id = %lld) AND sample_min(%lld) = 1", a, a, a), 1);
	assert_int_equal(t_int(tl, "SELECT sample_first_boot(%lld)", a),
			 t_int(tl, "SELECT min(boot_ns) FROM sample WHERE series_id = %lld", a));
	assert_int_equal(t_int(tl, "SELECT sample_last_boot(%lld)", a), 5000000000LL);
	assert_int_equal(t_int(tl, "SELECT sample_untimed(%lld, 'time_ns', 'count')", a),
			 t_int(tl, "SELECT count(*) FROM sample WHERE series_id = %lld"
			       " AND time_ns IS NULL", a));
	assert_int_equal(t_int(tl, "SELECT sample_untimed(%lld, 'time_ns', 'count')", a), 31);
	assert_int_equal(t_int(tl, "SELECT sample_untimed(%lld, 'time_ns', 'valued')", a),
			 t_int(tl, "SELECT count(value) FROM sample WHERE series_id = %lld"
			       " AND time_ns IS NULL", a));
	assert_int_equal(t_int(tl, "SELECT sample_untimed(%lld, 'boot_ns', 'other')", a),
			 t_int(tl, "SELECT count(value) FROM sample WHERE series_id = %lld"
			       " AND boot_ns IS NULL AND time_ns IS NOT NULL", a));
	assert_int_equal(t_int(tl, "SELECT sample_untimed(%lld, 'time_ns', 'max')", a), 2910);
	assert_int_equal(t_int(tl, "SELECT sample_untimed(%lld, 'boot_ns', 'max') ="
			       " (SELECT max(value) FROM sample WHERE series_id = %lld"
			       " AND boot_ns IS NULL)", a, a), 1);
	assert_int_equal(t_int(tl, "SELECT sample_untimed(987654, 'time_ns', 'max')"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT sample_untimed(NULL, 'time_ns', 'count')"), 0);
	assert_int_equal(sqlite3_exec(tl->db, "SELECT sample_untimed(1, 'utc', 'count')", NULL,
				      NULL, NULL), SQLITE_ERROR);
	t_close(tl);
}

/* 3. a block that is not one fails the open with its reason */
static void a_bad_block_fails_the_open(void **state)
{
	struct timeline *tl = t_open();
	struct ol_time t = { OL_CLOCK_UTC, 1000000000LL, OL_NULL, NULL };
	struct samples_iter it;
	int64_t a;

	(void)state;
	assert_true(timeline_artifact_begin(tl, "x", "nvidia_smi", 1, 0) > 0);
	a = sink_series(&tl->sink, "gpu.used_bytes", "bytes", "gpu0");
	assert_int_equal(sink_sample(&tl->sink, a, &t, 1.0), 1);
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", 1, 0), 0);
	assert_int_equal(timeline_exec(tl, "UPDATE sample_block SET data = x'4f5001ff'"), 0);
	assert_int_equal(samples_iter_open(&it, tl->db, a, 0, 0, 0), -1);
	assert_non_null(strstr(it.err, "sample_block"));
	assert_null(it.row);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(real_series_read_as_sql_reads_them),
		cmocka_unit_test(edge_series_in_clock_order),
		cmocka_unit_test(a_bad_block_fails_the_open),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
