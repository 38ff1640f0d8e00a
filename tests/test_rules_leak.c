/*
 * test_rules_leak.c -- the statistics and the leak rules (growth, memory
 * not returned, the fit's series and request count, live allocations by
 * stack) on timelines built through the sink API and SQL inserts, each case
 * just inside and just outside a threshold.
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

/* ---- statistics ---- */

static void stats_theil_sen_ignores_outliers(void **state)
{
	double x[50], y[50];
	struct fit f;
	struct change c;
	int i;
	(void)state;
	for (i = 0; i < 50; i++) {
		x[i] = i;
		y[i] = 10 + 2 * i;
	}
	y[7] = 1000;    /* outliers a least-squares fit would follow */
	y[31] = -500;
	assert_int_equal(stats_theil_sen(x, y, 50, &f), 0);
	assert_float_equal(f.slope, 2.0, 1e-9);
	assert_float_equal(f.intercept, 10.0, 1e-9);
	assert_true(f.r2 < 0.5);   /* the outliers do count in the fit's R^2 */
	assert_int_equal(stats_theil_sen(x, y, 2, &f), -1);
	for (i = 0; i < 50; i++)
		y[i] = i < 40 ? 5 + t_noise(i) * 0.1 : 20;
	assert_int_equal(stats_change_point(y, 50, 10, &c), 0);
	assert_int_equal(c.at, 40);
	assert_float_equal(c.after, 20, 1e-9);
	assert_true(fabs(c.before - 5) < 0.1);
	assert_true(c.noise < 0.2);
	for (i = 0; i < 50; i++)
		x[i] = i % 5, y[i] = 3 * (i % 5) + 1;
	assert_float_equal(stats_pearson(x, y, 50), 1.0, 1e-9);
	assert_float_equal(stats_median(y, 0), 0, 0);
}

/* ---- leak ---- */

static void leak_steady_growth_is_a_leak(void **state)
{
	struct timeline *tl = t_open();
	/* 4 h of 30 s samples: 60 GiB + 20 MiB per sample (2400 MiB/h) */
	double p[3] = { 60 * GIB, 20 * MIB, 40 * MIB };
	(void)state;
	t_series(tl, "gpu.used_bytes", "gpu0", 480, 30, t_line, p);
	/* no OOM recorded: a memory profile, the growth a finding */
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "growth"), 1);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	/* the run then died of it */
	t_torch_oom(tl, 480 * 30, 64 * MIB, 80 * GIB, 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "growth"), 1);
	assert_true(fabs(t_figure(tl, "growth", "slope_mb_per_hour") - 2400) < 20);
	assert_true(t_figure(tl, "growth", "r2") > 0.9);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "growth");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM evidence e JOIN finding f ON f.id ="
			       " e.finding_id WHERE f.cause = 'growth' AND e.ref_table = 'series'"), 1);
	t_close(tl);
}

static void leak_thresholds(void **state)
{
	struct timeline *tl;
	/* growth 0.45 MiB x 480 = 216 MiB < 256 MiB: outside */
	double small[3] = { 10 * GIB, 0.45 * MIB, 1 * MIB };
	/* 0.6 MiB x 480 = 288 MiB, and 288 MiB > 5% of 10.3 GiB? no: 2.7% -> outside */
	double low_frac[3] = { 10 * GIB, 0.6 * MIB, 1 * MIB };
	/* 1.2 GiB over 10 GiB: 10.7% -> inside */
	double inside[3] = { 10 * GIB, 2.6 * MIB, 1 * MIB };
	/* same growth drowned in noise: R^2 < 0.7 -> outside */
	double noisy[3] = { 10 * GIB, 2.6 * MIB, 1.5 * GIB };
	(void)state;

	tl = t_open();
	t_series(tl, "proc.rss_bytes", "pid:1", 480, 30, t_line, small);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "growth"), 0);
	t_close(tl);

	tl = t_open();
	t_series(tl, "proc.rss_bytes", "pid:1", 480, 30, t_line, low_frac);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "growth"), 0);
	t_close(tl);

	tl = t_open();
	t_series(tl, "proc.rss_bytes", "pid:1", 480, 30, t_line, inside);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "growth"), 1);
	t_close(tl);

	tl = t_open();
	t_series(tl, "proc.rss_bytes", "pid:1", 480, 30, t_line, noisy);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "growth"), 0);
	t_close(tl);

	/* too short a window: 9 minutes of strong growth is not a trend yet */
	tl = t_open();
	t_series(tl, "proc.rss_bytes", "pid:1", 54, 10, t_line, (double[]){ 1 * GIB, 50 * MIB, 1 * MIB });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "growth"), 0);
	t_close(tl);
}

static void leak_against_capacity_and_per_request(void **state)
{
	struct timeline *tl;
	/* cgroup limit 16 GiB, start 12 GiB: room 4 GiB. 0.9 GiB growth = 22%
	 * of the room (outside), 1.1 GiB = 27% (inside) */
	double out[3] = { 12 * GIB, 0.9 * GIB / 479, 1 * MIB };
	double in[3] = { 12 * GIB, 1.1 * GIB / 479, 1 * MIB };
	(void)state;

	tl = t_open();
	t_meta(tl, "cgroup.max_bytes", "17179869184");
	t_series(tl, "cgroup.current_bytes", "/app", 480, 30, t_line, out);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "growth"), 0);
	t_close(tl);

	tl = t_open();
	t_meta(tl, "cgroup.max_bytes", "17179869184");
	t_series(tl, "cgroup.current_bytes", "/app", 480, 30, t_line, in);
	/* 10 requests per sample: per request = 1.1 GiB / 4790 */
	t_series(tl, "server.requests_total", "vllm", 480, 30, t_line, (double[]){ 0, 10, 0 });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "growth"), 1);
	assert_true(fabs(t_figure(tl, "growth", "per_request_bytes") - 1.1 * GIB / 4790) <
		    0.05 * 1.1 * GIB / 4790);
	t_close(tl);
}

static void leak_memory_not_returned(void **state)
{
	struct timeline *tl = t_open();
	/* anon memory grows 8 MiB a sample; the load falls from 40 to 2
	 * running requests at sample 300 and memory does not come back */
	double mem[3] = { 4 * GIB, 8 * MIB, 2 * MIB };
	double run[5] = { 40, 1, -38, 300, 1 };
	(void)state;
	t_series(tl, "proc.anon_bytes", "pid:1", 480, 30, t_line, mem);
	t_series(tl, "server.running", "vllm", 480, 30, t_step, run);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "growth"), 1);
	assert_true(t_figure(tl, "growth", "retained_fraction") >= 1.0);
	assert_true(t_figure(tl, "growth", "running_low") <= 3);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'growth'"),
			       "not given back"));
	t_close(tl);

	/* the load does not fall: no such figure */
	tl = t_open();
	t_series(tl, "proc.anon_bytes", "pid:1", 480, 30, t_line, mem);
	t_series(tl, "server.running", "vllm", 480, 30, t_line, (double[]){ 40, 0, 1 });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "growth"), 1);
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.retained_fraction') IS NULL"
			       " FROM finding WHERE cause = 'growth'"), 1);
	t_close(tl);
}

/* One sample of series id at ns (UTC). */
static void sample_at(struct timeline *tl, int64_t id, int64_t ns, double v)
{
	struct ol_time t = { OL_CLOCK_UTC, ns, OL_NULL, NULL };

	assert_true(sink_sample(&tl->sink, id, &t, v) > 0);
}

static void leak_fit_is_the_picked_series(void **state)
{
	struct timeline *tl = t_open();
	int64_t id;
	int i;
	(void)state;

	/* gpu0 leaks from T0; gpu1, loaded after it, is flat and starts an
	 * hour later: the fitted line starts where gpu0 does */
	t_series(tl, "gpu.used_bytes", "gpu0", 480, 30, t_line, (double[]){ 40 * GIB, 20 * MIB, 4 * MIB });
	t_begin(tl);
	id = sink_series(&tl->sink, "gpu.used_bytes", "bytes", "gpu1");
	for (i = 0; i < 360; i++)
		sample_at(tl, id, (T0 + 3600 + i * 30LL) * NS, 20 * GIB + MIB * t_noise(i));
	t_end(tl);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'growth'"),
			       "GPU 0's memory in use grew"));
	assert_float_equal(t_figure(tl, "growth", "fit_start_time_ns"), (double)(T0 * NS), 0);
	t_close(tl);
}

static void leak_requests_counted_from_the_series_start(void **state)
{
	struct timeline *tl = t_open();
	/* memory from T0 + 1 ns (a time a double cannot hold: it reads back
	 * as T0); the request counter stands at 503 30 s before, at 1000 at
	 * that first memory sample, then 10 more every 30 s. Served over the
	 * fit: the counter at its end minus 1000, not minus 503. */
	int64_t t0 = T0 * NS + 1, mem, req;
	double end_ns, at_end;
	int i;
	(void)state;

	t_begin(tl);
	mem = sink_series(&tl->sink, "proc.rss_bytes", "bytes", "pid:1");
	req = sink_series(&tl->sink, "server.requests_total", "requests", "vllm");
	sample_at(tl, req, t0 - 30 * NS, 503);
	sample_at(tl, req, t0, 1000);
	for (i = 0; i < 480; i++) {
		sample_at(tl, mem, t0 + i * 30 * NS, 10 * GIB + 2.6 * MIB * i + MIB * t_noise(i));
		sample_at(tl, req, t0 + (i * 30 + 7) * NS, 1010 + 10 * i);
	}
	t_end(tl);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "growth"), 1);
	end_ns = t_figure(tl, "growth", "fit_end_time_ns");
	at_end = t_real(tl, "SELECT value FROM sample WHERE series_id = %lld AND time_ns <= %lld"
			" ORDER BY time_ns DESC LIMIT 1", (long long)req, (long long)end_ns);
	assert_float_equal(t_figure(tl, "growth", "requests_served"), at_end - 1000, 0);
	t_close(tl);
}

static void leak_alloc_stack_spread(void **state)
{
	struct timeline *tl;
	char sql[300];
	int i;
	(void)state;

	/* 40 live allocations of stack 1 born over 30 minutes; 400 freed
	 * activations of stack 2 */
	tl = t_open();
	t_alloc_tables(tl);
	for (i = 0; i < 400; i++) {
		snprintf(sql, sizeof(sql), "INSERT INTO alloc(snapshot_id, device, addr, size, alloc_ns,"
			 " free_ns, state, stack_id) VALUES(1, 0, %d, 104857600, %lld, %lld, 'freed', 2)",
			 i, (T0 + i * 4) * NS, (T0 + i * 4 + 3) * NS);
		assert_int_equal(timeline_exec(tl, sql), 0);
	}
	for (i = 0; i < 40; i++) {
		snprintf(sql, sizeof(sql), "INSERT INTO alloc(snapshot_id, device, addr, size, alloc_ns,"
			 " state, stack_id) VALUES(1, 0, %d, 25165824, %lld, 'live', 1)",
			 1000 + i, (T0 + 20 + i * 40) * NS);
		assert_int_equal(timeline_exec(tl, sql), 0);
	}
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "alloc_stack"), 1);
	assert_float_equal(t_figure(tl, "alloc_stack", "live_allocations"), 40, 0);
	assert_float_equal(t_figure(tl, "alloc_stack", "live_bytes"), 40 * 25165824.0, 0);
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'alloc_stack'"),
			       "metrics_hook.py:41 record_hidden_states"));
	assert_int_equal(t_int(tl, "SELECT ref_id FROM evidence e JOIN finding f ON f.id ="
			       " e.finding_id WHERE f.cause = 'alloc_stack'"), 1);
	t_close(tl);

	/* the same 40 born within 2 minutes (a cache filled at start-up) */
	tl = t_open();
	t_alloc_tables(tl);
	for (i = 0; i < 400; i++) {
		snprintf(sql, sizeof(sql), "INSERT INTO alloc(snapshot_id, device, addr, size, alloc_ns,"
			 " free_ns, state, stack_id) VALUES(1, 0, %d, 104857600, %lld, %lld, 'freed', 2)",
			 i, (T0 + i * 4) * NS, (T0 + i * 4 + 3) * NS);
		assert_int_equal(timeline_exec(tl, sql), 0);
	}
	for (i = 0; i < 40; i++) {
		snprintf(sql, sizeof(sql), "INSERT INTO alloc(snapshot_id, device, addr, size, alloc_ns,"
			 " state, stack_id) VALUES(1, 0, %d, 25165824, %lld, 'live', 1)",
			 1000 + i, (T0 + 20 + i * 3) * NS);
		assert_int_equal(timeline_exec(tl, sql), 0);
	}
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "alloc_stack"), 0);
	t_close(tl);
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stats_theil_sen_ignores_outliers),
		cmocka_unit_test(leak_steady_growth_is_a_leak),
		cmocka_unit_test(leak_thresholds),
		cmocka_unit_test(leak_against_capacity_and_per_request),
		cmocka_unit_test(leak_memory_not_returned),
		cmocka_unit_test(leak_fit_is_the_picked_series),
		cmocka_unit_test(leak_requests_counted_from_the_series_start),
		cmocka_unit_test(leak_alloc_stack_spread),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
