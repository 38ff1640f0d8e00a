/*
 * test_rules.c -- the rules as a whole and the verdict: hostile values in
 * the timeline, a failing rule's message and rollback, an inconclusive
 * verdict naming what is missing, confidence reflecting agreement.
 */
#include "testutil_rules.h"
#include "analyzer/rules/rules.h"
#include "analyzer/rules/rulelib.h"
#include "analyzer/derive/stats.h"
#include "lib/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define T0 T_RULES_T0
#define NS 1000000000LL

/* ---- hostile timelines ---- */

static void rules_survive_hostile_values(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	/* times at the ends of the range, infinities, duplicates, bad JSON */
	assert_int_equal(timeline_exec(tl,
		"INSERT INTO series(id, name, unit, entity) VALUES(1, 'gpu.used_bytes', 'bytes', 'gpu0'),"
		" (2, 'proc.rss_bytes', 'bytes', 'pid:1'), (3, 'server.running', 'requests', 'x');"
		"INSERT INTO sample(series_id, time_ns, value) VALUES"
		" (1, -9223372036854775807, 1), (1, 9223372036854775807, 2), (1, 5, 1e308),"
		" (2, 10, 9e999), (2, 10, -9e999), (2, 10, 0), (2, 11, 1), (2, 12, 1), (2, 13, 1),"
		" (2, 14, 1), (2, 15, 1), (2, 16, 1), (2, 17, 1e300), (3, 1, -5), (3, 2, 1e300);"
		"INSERT INTO meta(key, value) VALUES('gpu.total_bytes.gpu0', 'lots'),"
		" ('cgroup.max_bytes', '-1'), ('server.gpu_memory_utilization', 'nan'),"
		" ('server.max_num_seqs', '1e308');"
		"INSERT INTO event(kind, time_ns, pid, bytes, data) VALUES"
		" ('torch_oom', 20, 1, -5, 'not json'), ('oom_kill', 21, NULL, NULL, '[]'),"
		" ('oom_invoked', 19, 1, NULL, '{}');"
		"INSERT INTO task(event_id, pid, rss_pages, oom_score_adj, name) VALUES"
		" (3, 1, NULL, NULL, NULL), (3, 2, 9223372036854775807, -1000, NULL)"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM verdict"), 1);
	/* whatever was found, every score is a number in [0, 1] */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE NOT (score BETWEEN 0 AND 1)"), 0);
	t_close(tl);
}

/* ---- failures ---- */

static void rules_fail_with_a_message_and_roll_back(void **state)
{
	struct timeline *tl = t_open();
	struct strbuf err = STRBUF_INIT;
	(void)state;

	t_series(tl, "gpu.used_bytes", "gpu0", 480, 30, t_line, (double[]){ 60 * GIB, 20 * MIB, 40 * MIB });
	t_torch_oom(tl, 480 * 30, 64 * MIB, 80 * GIB, 0);
	assert_int_equal(analyze_timeline(tl, &err), 0);
	assert_int_equal(err.len, 0);
	/* an alloc table of another shape: the leak rule cannot index it */
	assert_int_equal(timeline_exec(tl, "DROP TABLE alloc; CREATE TABLE alloc(x)"), 0);
	assert_int_equal(analyze_timeline(tl, &err), -1);
	assert_non_null(strstr(err.buf, "rule leak failed: sqlite: "));
	/* rolled back: the findings and the verdict of the run before stay */
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	assert_int_equal(t_findings(tl, "growth"), 1);
	strbuf_release(&err);
	t_close(tl);

	/* a read that cannot be prepared is a failure, not absent evidence:
	 * the fragmentation rule reads the oom size from a trace table that
	 * has no such column */
	tl = t_open();
	t_alloc_tables(tl);
	assert_int_equal(timeline_exec(tl, "DROP TABLE trace; CREATE TABLE trace(x)"), 0);
	assert_int_equal(analyze_timeline(tl, &err), -1);
	assert_non_null(strstr(err.buf, "rule fragmentation failed: sqlite: "));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM verdict"), 0);
	strbuf_release(&err);
	t_close(tl);
}

/* ---- verdict ---- */

static void verdict_inconclusive_names_missing(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	/* no domain tables at all: every rule skips quietly; nothing records
	 * an OOM, so that is the answer, and the OOM itself is not asked for */
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM verdict"), 1);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	assert_null(strstr(t_text(tl, "SELECT missing FROM verdict"), "OOM"));
	/* an OOM with nothing around it: inconclusive, what would decide it named */
	t_oom_kill(tl, 60, 4312);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "inconclusive");
	assert_float_equal(t_real(tl, "SELECT confidence FROM verdict"), 0, 0);
	assert_non_null(strstr(t_text(tl, "SELECT missing FROM verdict"), "memory in use over time"));
	assert_non_null(strstr(t_text(tl, "SELECT missing FROM verdict"), "allocator snapshot"));
	/* analyze twice: findings and verdict are replaced, not added */
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM verdict"), 1);
	t_close(tl);
}

static void verdict_confidence_reflects_agreement(void **state)
{
	struct timeline *tl;
	double alone, together;
	(void)state;

	/* agreement through real rules: headroom alone, then with max_num_seqs */
	tl = t_open();
	t_meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	t_meta(tl, "server.weights_bytes", "72477573120");
	t_meta(tl, "server.kv_cache_bytes", "10200547328");
	t_torch_oom(tl, 600, 3.2 * GIB, 80 * GIB, 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	alone = t_real(tl, "SELECT confidence FROM verdict");
	t_meta(tl, "server.max_num_seqs", "64");
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	together = t_real(tl, "SELECT confidence FROM verdict");
	assert_true(alone > 0.5 && alone <= 1);
	assert_true(together > alone);
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "headroom");
	t_close(tl);
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rules_survive_hostile_values),
		cmocka_unit_test(rules_fail_with_a_message_and_roll_back),
		cmocka_unit_test(verdict_inconclusive_names_missing),
		cmocka_unit_test(verdict_confidence_reflects_agreement),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
