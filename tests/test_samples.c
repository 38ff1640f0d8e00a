/*
 * test_samples.c -- the samples' blocks per series (analyzer/store/
 * samples.c, schema 5): what a parser gives comes back through `sample`
 * as written (order, values, their type, NULLs), each block holds one
 * series, a series' shift moves only its current artifact's samples, the
 * boot clock's alignment places boot-only samples, and the span and size
 * functions (samples_read.c) agree with SQL over `sample`. Real inputs
 * (the vllm log and nvidia-smi CSV of a fixture) for the layout; the sink
 * directly for the edge cases (values, NaN, blocks past 1024).
 */
#include "testutil.h"
#include "analyzer/store/samples.h"
#include "lib/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse(struct timeline *tl, const char *kind, const char *rel)
{
	size_t n;
	char *text = t_slurp(rel, &n);
	int r = t_parse_mem(tl, kind, rel, text, n);

	free(text);
	return r;
}

static struct ol_time utc(int64_t ns)
{
	struct ol_time t = { OL_CLOCK_UTC, ns, OL_NULL, NULL };
	return t;
}

/* 1. a real server log and nvidia-smi CSV: every block is one series,
 * holds at most SAMPLES_BLOCK_ROWS samples, and a series' rowids climb
 * with its times (both files write in time order) */
static void blocks_hold_one_series(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_true(parse(tl, "server_log", "fixtures/spike_gpu_vllm/vllm.log") > 0);
	assert_true(parse(tl, "nvidia_smi", "fixtures/spike_gpu_vllm/nvidia-smi.csv") > 0);
	assert_true(t_int(tl, "SELECT count(*) FROM sample") > 1000);
	assert_int_equal(t_int(tl, "SELECT sum(rows) FROM sample_block"),
			 t_int(tl, "SELECT count(*) FROM sample"));
	assert_int_equal(t_int(tl, "SELECT max(rows) <= %d FROM sample_block", SAMPLES_BLOCK_ROWS), 1);
	/* the rows of a block are of its parent's series */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample p JOIN sample_block b ON p.rowid"
			       " BETWEEN b.first_rowid AND b.first_rowid + b.rows - 1"
			       " WHERE p.series_id IS NOT b.parent"), 0);
	/* rowids of a block follow its first; blocks do not overlap */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample_block b JOIN sample_block c"
			       " ON c.id = b.id + 1 WHERE c.first_rowid != b.first_rowid + b.rows"), 0);
	/* within a series, time follows rowid */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample p, sample q WHERE"
			       " q.series_id = p.series_id AND q.rowid = (SELECT min(rowid) FROM sample r"
			       " WHERE r.series_id = p.series_id AND r.rowid > p.rowid)"
			       " AND q.time_ns < p.time_ns"), 0);
	/* the span and size functions agree with SQL over the rows */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM series s WHERE"
			       " sample_count(s.id) != (SELECT count(*) FROM sample p WHERE p.series_id = s.id)"
			       " OR sample_first_ns(s.id) IS NOT (SELECT min(time_ns) FROM sample p"
			       "   WHERE p.series_id = s.id)"
			       " OR sample_last_ns(s.id) IS NOT (SELECT max(time_ns) FROM sample p"
			       "   WHERE p.series_id = s.id)"), 0);
	assert_int_equal(t_int(tl, "SELECT sample_count(987654)"), 0);
	assert_int_equal(t_int(tl, "SELECT sample_first_ns(987654)"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT sample_last_ns(NULL)"), OL_NULL);
	t_close(tl);
}

/* 2. values as given, read as REAL: integral ones are kept as integers in
 * the block, the others as reals; NaN is NULL; more than a block's worth
 * of one series interleaved with another */
static void values_come_back_as_written(void **state)
{
	static const double v[] = { 1.0, 2.5, -0.0, 1e300, 9.3e18, -4096.0, 85520809984.0,
				    0.1, -7.25e-3 };
	struct timeline *tl = t_open();
	struct ol_time t;
	int64_t a, b;
	int i;

	(void)state;
	assert_true(timeline_artifact_begin(tl, "edge", "nvidia_smi", 1, 0) > 0);
	a = sink_series(&tl->sink, "gpu.used_bytes", "bytes", "gpu0");
	b = sink_series(&tl->sink, "server.running", "requests", "vllm");
	assert_true(a > 0 && b > 0);
	for (i = 0; i < 2500; i++) {
		t = utc(1764440000000000000LL + (int64_t)i * 1000000000);
		assert_int_equal(sink_sample(&tl->sink, a, &t, i < 9 ? v[i] : (double)i), 1);
		if (i % 2 == 0)
			assert_int_equal(sink_sample(&tl->sink, b, &t, i == 10 ? NAN : i / 2.0), 1);
	}
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", 1, 0), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample WHERE series_id = %lld", a), 2500);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample_block WHERE parent = %lld", a), 3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample_block WHERE parent = %lld", b), 2);
	for (i = 0; i < 9; i++)
		assert_true(t_real(tl, "SELECT value FROM sample WHERE series_id = %lld"
				   " ORDER BY rowid LIMIT 1 OFFSET %d", a, i) == v[i]);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample WHERE typeof(value) != 'real'"
			       " AND value IS NOT NULL"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample WHERE value IS NULL"), 1);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM sample WHERE value IS NULL"),
			 1764440000000000000LL + 10 * 1000000000LL);
	assert_int_equal(t_int(tl, "SELECT CAST(sum(value) AS INTEGER) FROM sample WHERE series_id"
			       " = %lld AND rowid > (SELECT min(rowid) + 8 FROM sample WHERE series_id"
			       " = %lld)", a, a), (9 + 2499) * 2491 / 2);
	/* a comparison the virtual table tests itself, on a REAL column:
	 * 2000..2499, and 1e300, 9.3e18, 85520809984 */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample WHERE series_id = %lld"
			       " AND value >= 2000", a), 503);
	t_close(tl);
}

/* 3. a series' shift moves the samples of the artifact being read, not
 * those an earlier artifact wrote to the same series */
static void shift_moves_this_artifact_only(void **state)
{
	struct timeline *tl = t_open();
	struct ol_time t;
	int64_t a;
	int i;

	(void)state;
	assert_true(timeline_artifact_begin(tl, "first", "nvidia_smi", 1, 0) > 0);
	a = sink_series(&tl->sink, "gpu.used_bytes", "bytes", "gpu0");
	for (i = 0; i < 3; i++) {
		t = utc(1000000000LL * (i + 1));
		assert_int_equal(sink_sample(&tl->sink, a, &t, 100.0), 1);
	}
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", 1, 0), 0);
	assert_true(timeline_artifact_begin(tl, "second", "nvidia_smi", 1, 0) > 0);
	assert_int_equal(sink_series(&tl->sink, "gpu.used_bytes", "bytes", "gpu0"), a);
	for (i = 0; i < 1500; i++) {
		t = utc(1000000000LL * (i + 10));
		assert_int_equal(sink_sample(&tl->sink, a, &t, i == 7 ? NAN : 200.0), 1);
	}
	assert_int_equal(sink_series_shift(&tl->sink, a, 0.5), 1);
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", 1, 0), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample WHERE value = 100"), 3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample WHERE value = 200.5"), 1499);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample WHERE value IS NULL"), 1);
	t_close(tl);
}

/* 4. boot-only samples are placed on UTC by the one anchor there is;
 * with anchors of two boots they stay as they are */
static void alignment_places_boot_samples(void **state)
{
	int boots;

	(void)state;
	for (boots = 1; boots <= 2; boots++) {
		struct timeline *tl = t_open();
		struct ol_time t = { OL_CLOCK_BOOT, OL_NULL, 0, NULL };
		int64_t a;
		int i;
		assert_true(timeline_artifact_begin(tl, "cgroup", "cgroup", 1, 0) > 0);
		a = sink_series(&tl->sink, "cgroup.current_bytes", "bytes", "");
		assert_true(sink_anchor(&tl->sink, "b1", 5000000000LL, 1764440000000000000LL,
					"test") > 0);
		if (boots == 2)
			assert_true(sink_anchor(&tl->sink, "b2", 7000000000LL,
						1764450000000000000LL, "test") > 0);
		for (i = 0; i < 1100; i++) {
			t.boot_ns = 6000000000LL + i * 1000000LL;
			assert_int_equal(sink_sample(&tl->sink, a, &t, 1048576.0 * i), 1);
		}
		t = utc(1764440009000000000LL);   /* one already on UTC: left as it is */
		assert_int_equal(sink_sample(&tl->sink, a, &t, 1.0), 1);
		assert_int_equal(timeline_artifact_end(tl, 1, "ok", 1, 0), 0);
		assert_int_equal(timeline_align_clocks(tl), 0);
		if (boots == 1) {
			assert_int_equal(t_int(tl, "SELECT count(*) FROM sample WHERE time_ns ="
					       " boot_ns + 1764439995000000000"), 1100);
			assert_int_equal(t_int(tl, "SELECT sample_first_ns(%lld)", a),
					 1764440001000000000LL);
		} else {
			assert_int_equal(t_int(tl, "SELECT count(*) FROM sample WHERE time_ns IS NULL"),
					 1100);
		}
		assert_int_equal(t_int(tl, "SELECT count(*) FROM sample WHERE boot_ns IS NULL"
				       " AND time_ns = 1764440009000000000"), 1);
		t_close(tl);
	}
}

/* 5. a block that is not one is an error of the query, not a read out
 * of bounds */
static void a_bad_block_is_an_error(void **state)
{
	struct timeline *tl = t_open();
	struct ol_time t = utc(1000000000LL);
	sqlite3_stmt *st;
	int64_t a;

	(void)state;
	assert_true(timeline_artifact_begin(tl, "x", "nvidia_smi", 1, 0) > 0);
	a = sink_series(&tl->sink, "gpu.used_bytes", "bytes", "gpu0");
	assert_int_equal(sink_sample(&tl->sink, a, &t, 1.0), 1);
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", 1, 0), 0);
	assert_int_equal(timeline_exec(tl, "UPDATE sample_block SET data = x'4f5001ff'"), 0);
	assert_int_equal(sqlite3_prepare_v2(tl->db, "SELECT sample_first_ns(1)", -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ERROR);
	assert_non_null(strstr(sqlite3_errmsg(tl->db), "sample_block"));
	sqlite3_finalize(st);
	assert_int_equal(t_int(tl, "SELECT sample_count(1)"), 1);   /* the count is the block's */
	t_close(tl);
}

/* 6. a database of schema 4 (samples as rows) is refused, for reading
 * and for --append, with its version named: never read as packed */
static void an_older_schema_is_refused(void **state)
{
	char path[] = "/tmp/test_samples_XXXXXX";
	struct timeline tl;
	struct strbuf err = STRBUF_INIT;
	sqlite3 *db;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(timeline_open(&tl, path, TL_CREATE, &err), 0);
	assert_int_equal(timeline_commit(&tl, &err), 0);
	timeline_close(&tl);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 4", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(timeline_open(&tl, path, TL_WRITE, &err), -1);
	assert_non_null(strstr(err.buf, "schema version 4"));
	strbuf_reset(&err);
	assert_int_equal(timeline_open(&tl, path, TL_READ, &err), -1);
	{
		char want[40];
		snprintf(want, sizeof(want), "reads version %d", TIMELINE_SCHEMA_VERSION);
		assert_non_null(strstr(err.buf, want));
	}
	/* schema 9, the version before engine.run (schema 10): such a
	 * database lacks the column the rules read, so it is refused too,
	 * with its version named (docs/schema.md) */
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 9", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	strbuf_reset(&err);
	assert_int_equal(timeline_open(&tl, path, TL_READ, &err), -1);
	assert_non_null(strstr(err.buf, "schema version 9"));
	assert_non_null(strstr(err.buf, "reads version 10"));
	strbuf_release(&err);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(blocks_hold_one_series),
		cmocka_unit_test(values_come_back_as_written),
		cmocka_unit_test(shift_moves_this_artifact_only),
		cmocka_unit_test(alignment_places_boot_samples),
		cmocka_unit_test(a_bad_block_is_an_error),
		cmocka_unit_test(an_older_schema_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
