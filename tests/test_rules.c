/*
 * test_rules.c -- the rule modules and the verdict on timelines built
 * through the sink API (series, samples, meta, events, task rows) and SQL
 * inserts (the snapshot and core tables of other issues), each case just
 * inside and just outside a rule's threshold. Also the statistics.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "analyzer/rules/rulelib.h"
#include "analyzer/derive/stats.h"
#include "lib/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define T0 1795953600LL   /* 2026-11-29T12:00:00Z */
#define NS 1000000000LL

/* ---- building timelines ---- */

typedef double (*shape_fn)(int i, int n, const double *p);

static void begin(struct timeline *tl)
{
	assert_true(timeline_artifact_begin(tl, "synthetic", "synthetic", 0, 0) > 0);
}

static void end(struct timeline *tl)
{
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", 0, 0), 0);
}

/* n samples every dt seconds from T0 of shape(i, n, p). */
static void series(struct timeline *tl, const char *name, const char *entity, int n, double dt,
		   shape_fn shape, const double *p)
{
	int64_t id;
	int i;

	begin(tl);
	id = sink_series(&tl->sink, name, "bytes", entity);
	assert_true(id > 0);
	for (i = 0; i < n; i++) {
		struct ol_time t = { OL_CLOCK_UTC, (T0 + (int64_t)(i * dt)) * NS, OL_NULL, NULL };
		assert_true(sink_sample(&tl->sink, id, &t, shape(i, n, p)) > 0);
	}
	end(tl);
}

static void meta(struct timeline *tl, const char *k, const char *v)
{
	begin(tl);
	assert_true(sink_meta(&tl->sink, k, v) > 0);
	end(tl);
}

/* torch_oom at T0 + at seconds, requesting req bytes (data as the vLLM log
 * parser writes it, docs/json.md). */
static void torch_oom(struct timeline *tl, double at, double req, double total, double unalloc)
{
	struct ol_event e = { "torch_oom", { OL_CLOCK_UTC, (T0 + (int64_t)at) * NS, OL_NULL, NULL },
			      4312, NULL, (int64_t)req, 1, "CUDA out of memory", NULL };

	e.data = json_pack("{s:I, s:I, s:I}", "requested_bytes", (json_int_t)req,
			   "total_bytes", (json_int_t)total,
			   "reserved_unallocated_bytes", (json_int_t)unalloc);
	begin(tl);
	assert_true(sink_event(&tl->sink, &e) > 0);
	end(tl);
	json_decref(e.data);
}

/* deterministic noise in [-1, 1] */
static double noise(int i)
{
	uint32_t x = (uint32_t)i * 2654435761u;
	x ^= x >> 13;
	x *= 0x5bd1e995u;
	x ^= x >> 15;
	return (double)(x % 20001) / 10000.0 - 1.0;
}

/* p: start, slope per sample, noise amplitude */
static double line(int i, int n, const double *p)
{
	(void)n;
	return p[0] + p[1] * i + p[2] * noise(i);
}

/* p: level, noise, rise, rise starts at sample p[3] (ramp over p[4] samples) */
static double step(int i, int n, const double *p)
{
	double r = i < p[3] ? 0 : i >= p[3] + p[4] ? p[2] : p[2] * (i - p[3]) / p[4];
	(void)n;
	return p[0] + p[1] * noise(i) + r;
}

static int64_t findings(struct timeline *tl, const char *cause)
{
	return t_int(tl, "SELECT count(*) FROM finding WHERE cause = '%s'", cause);
}

static double figure(struct timeline *tl, const char *cause, const char *key)
{
	return t_real(tl, "SELECT json_extract(figures, '$.%s') FROM finding WHERE cause = '%s'"
		      " ORDER BY score DESC LIMIT 1", key, cause);
}

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
		y[i] = i < 40 ? 5 + noise(i) * 0.1 : 20;
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
	series(tl, "gpu.used_bytes", "gpu0", 480, 30, line, p);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "growth"), 1);
	assert_true(fabs(figure(tl, "growth", "slope_mb_per_hour") - 2400) < 20);
	assert_true(figure(tl, "growth", "r2") > 0.9);
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
	series(tl, "proc.rss_bytes", "pid:1", 480, 30, line, small);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "growth"), 0);
	t_close(tl);

	tl = t_open();
	series(tl, "proc.rss_bytes", "pid:1", 480, 30, line, low_frac);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "growth"), 0);
	t_close(tl);

	tl = t_open();
	series(tl, "proc.rss_bytes", "pid:1", 480, 30, line, inside);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "growth"), 1);
	t_close(tl);

	tl = t_open();
	series(tl, "proc.rss_bytes", "pid:1", 480, 30, line, noisy);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "growth"), 0);
	t_close(tl);

	/* too short a window: 9 minutes of strong growth is not a trend yet */
	tl = t_open();
	series(tl, "proc.rss_bytes", "pid:1", 54, 10, line, (double[]){ 1 * GIB, 50 * MIB, 1 * MIB });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "growth"), 0);
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
	meta(tl, "cgroup.max_bytes", "17179869184");
	series(tl, "cgroup.current_bytes", "/app", 480, 30, line, out);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "growth"), 0);
	t_close(tl);

	tl = t_open();
	meta(tl, "cgroup.max_bytes", "17179869184");
	series(tl, "cgroup.current_bytes", "/app", 480, 30, line, in);
	/* 10 requests per sample: per request = 1.1 GiB / 4790 */
	series(tl, "server.requests_total", "vllm", 480, 30, line, (double[]){ 0, 10, 0 });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "growth"), 1);
	assert_true(fabs(figure(tl, "growth", "per_request_bytes") - 1.1 * GIB / 4790) <
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
	series(tl, "proc.anon_bytes", "pid:1", 480, 30, line, mem);
	series(tl, "server.running", "vllm", 480, 30, step, run);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "growth"), 1);
	assert_true(figure(tl, "growth", "retained_fraction") >= 1.0);
	assert_true(figure(tl, "growth", "running_low") <= 3);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'growth'"),
			       "not given back"));
	t_close(tl);

	/* the load does not fall: no such figure */
	tl = t_open();
	series(tl, "proc.anon_bytes", "pid:1", 480, 30, line, mem);
	series(tl, "server.running", "vllm", 480, 30, line, (double[]){ 40, 0, 1 });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "growth"), 1);
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
	series(tl, "gpu.used_bytes", "gpu0", 480, 30, line, (double[]){ 40 * GIB, 20 * MIB, 4 * MIB });
	begin(tl);
	id = sink_series(&tl->sink, "gpu.used_bytes", "bytes", "gpu1");
	for (i = 0; i < 360; i++)
		sample_at(tl, id, (T0 + 3600 + i * 30LL) * NS, 20 * GIB + MIB * noise(i));
	end(tl);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'growth'"),
			       "gpu.used_bytes gpu0 grows"));
	assert_float_equal(figure(tl, "growth", "fit_start_time_ns"), (double)(T0 * NS), 0);
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

	begin(tl);
	mem = sink_series(&tl->sink, "proc.rss_bytes", "bytes", "pid:1");
	req = sink_series(&tl->sink, "server.requests_total", "requests", "vllm");
	sample_at(tl, req, t0 - 30 * NS, 503);
	sample_at(tl, req, t0, 1000);
	for (i = 0; i < 480; i++) {
		sample_at(tl, mem, t0 + i * 30 * NS, 10 * GIB + 2.6 * MIB * i + MIB * noise(i));
		sample_at(tl, req, t0 + (i * 30 + 7) * NS, 1010 + 10 * i);
	}
	end(tl);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "growth"), 1);
	end_ns = figure(tl, "growth", "fit_end_time_ns");
	at_end = t_real(tl, "SELECT value FROM sample WHERE series_id = %lld AND time_ns <= %lld"
			" ORDER BY time_ns DESC LIMIT 1", (long long)req, (long long)end_ns);
	assert_float_equal(figure(tl, "growth", "requests_served"), at_end - 1000, 0);
	t_close(tl);
}

/* a snapshot and two stacks in the snapshot store's tables */
static void alloc_tables(struct timeline *tl)
{
	assert_int_equal(timeline_exec(tl,
		"INSERT INTO snapshot(id, form) VALUES(1, 'pickle');"
		"INSERT INTO stack(id, hash, depth) VALUES(1, 11, 2), (2, 22, 1);"
		"INSERT INTO frame(stack_id, idx, name, file, line) VALUES"
		" (1, 0, 'record_hidden_states', 'metrics_hook.py', 41),"
		" (1, 1, 'forward', 'llama.py', 316), (2, 0, 'forward_cuda', 'activation.py', 84);"), 0);
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
	alloc_tables(tl);
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
	assert_int_equal(findings(tl, "alloc_stack"), 1);
	assert_float_equal(figure(tl, "alloc_stack", "live_allocations"), 40, 0);
	assert_float_equal(figure(tl, "alloc_stack", "live_bytes"), 40 * 25165824.0, 0);
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'alloc_stack'"),
			       "record_hidden_states <- forward"));
	assert_int_equal(t_int(tl, "SELECT ref_id FROM evidence e JOIN finding f ON f.id ="
			       " e.finding_id WHERE f.cause = 'alloc_stack'"), 1);
	t_close(tl);

	/* the same 40 born within 2 minutes (a cache filled at start-up) */
	tl = t_open();
	alloc_tables(tl);
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
	assert_int_equal(findings(tl, "alloc_stack"), 0);
	t_close(tl);
}

/* ---- spike ---- */

static void spike_rise_before_oom(void **state)
{
	struct timeline *tl;
	/* GPU of 80 GiB, baseline 70 GiB: room 10 GiB. 400 samples of 10 s; the
	 * rise starts at sample 390 and takes 3 samples */
	double in[5] = { 70 * GIB, 50 * MIB, 5.5 * GIB, 390, 3 };   /* 55% of the room */
	double out[5] = { 70 * GIB, 50 * MIB, 4.5 * GIB, 390, 3 };  /* 45% */
	double early[5] = { 70 * GIB, 50 * MIB, 8 * GIB, 100, 3 };  /* long before the OOM */
	(void)state;

	tl = t_open();
	meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	series(tl, "gpu.used_bytes", "gpu0", 400, 10, step, in);
	series(tl, "server.running", "vllm", 400, 10, step, (double[]){ 10, 1, 30, 390, 3 });
	torch_oom(tl, 3995, 300 * MIB, 80 * GIB, 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "burst"), 1);
	assert_true(fabs(figure(tl, "burst", "rise_bytes") - 5.5 * GIB) < 0.3 * GIB);
	assert_true(figure(tl, "burst", "rise_seconds") <= 40);
	assert_float_equal(figure(tl, "burst", "running_peak"), 40, 1.5);
	assert_true(figure(tl, "burst", "running_correlation") > 0.8);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "spike");
	t_close(tl);

	tl = t_open();
	meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	series(tl, "gpu.used_bytes", "gpu0", 400, 10, step, out);
	torch_oom(tl, 3995, 300 * MIB, 80 * GIB, 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "burst"), 0);
	t_close(tl);

	tl = t_open();
	meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	series(tl, "gpu.used_bytes", "gpu0", 400, 10, step, early);
	torch_oom(tl, 3995, 300 * MIB, 80 * GIB, 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "burst"), 0);
	t_close(tl);
}

static void spike_of_concurrency_behind_cached_memory(void **state)
{
	struct timeline *tl;
	/* nvidia-smi flat at the allocator's high-water mark; running goes
	 * from 10 to 40 (inside: >= 2x and +8) or to 17 (outside) */
	(void)state;

	tl = t_open();
	series(tl, "gpu.used_bytes", "gpu0", 400, 10, line, (double[]){ 78 * GIB, 0, 0 });
	series(tl, "server.running", "vllm", 400, 10, step, (double[]){ 10, 1, 30, 392, 3 });
	torch_oom(tl, 3995, 300 * MIB, 80 * GIB, 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "burst"), 0);
	assert_int_equal(findings(tl, "concurrency"), 1);
	assert_float_equal(figure(tl, "concurrency", "running_peak"), 40, 1.5);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "spike");
	t_close(tl);

	tl = t_open();
	series(tl, "gpu.used_bytes", "gpu0", 400, 10, line, (double[]){ 78 * GIB, 0, 0 });
	series(tl, "server.running", "vllm", 400, 10, step, (double[]){ 10, 0.3, 7, 392, 3 });
	torch_oom(tl, 3995, 300 * MIB, 80 * GIB, 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "concurrency"), 0);
	t_close(tl);
}

static void spike_on_a_leak_is_both(void **state)
{
	struct timeline *tl = t_open();
	/* host: 4 GiB growing 3 MiB/sample for 600 samples, then +6 GiB;
	 * no capacity known: rise must be 10% of the baseline */
	static double p[3] = { 4 * GIB, 3 * MIB, 5 * MIB };
	int64_t id;
	int i;
	(void)state;
	begin(tl);
	id = sink_series(&tl->sink, "proc.rss_bytes", "bytes", "pid:7");
	for (i = 0; i < 600; i++) {
		struct ol_time t = { OL_CLOCK_UTC, (T0 + i * 30LL) * NS, OL_NULL, NULL };
		double v = line(i, 600, p) + (i >= 596 ? 6.0 * GIB * (i - 595) / 4 : 0);
		assert_true(sink_sample(&tl->sink, id, &t, v) > 0);
	}
	end(tl);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "growth"), 1);
	assert_int_equal(findings(tl, "burst"), 1);
	/* the trend is measured without the final rise */
	assert_true(fabs(figure(tl, "growth", "slope_mb_per_hour") - 3 * 120) < 10);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	assert_non_null(strstr(t_text(tl, "SELECT summary FROM verdict"), "burst (spike)"));
	t_close(tl);
}

/* ---- misconfiguration ---- */

static void headroom_one_request(void **state)
{
	struct timeline *tl;
	/* 80 GiB GPU, weights + KV = 77 GiB: 3 GiB left */
	(void)state;

	tl = t_open();
	meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	meta(tl, "server.weights_bytes", "72477573120");     /* 67.5 GiB */
	meta(tl, "server.kv_cache_bytes", "10200547328");    /* 9.5 GiB */
	meta(tl, "server.gpu_memory_utilization", "0.98");
	torch_oom(tl, 600, 3.2 * GIB, 80 * GIB, 0);          /* needs 3.2 GiB: inside */
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "headroom"), 1);
	assert_float_equal(figure(tl, "headroom", "headroom_bytes"), 3 * GIB, 1);
	assert_float_equal(figure(tl, "headroom", "safe_concurrency"), 0, 0);
	/* (3.2/0.7 - 3) GiB = 1.571 GiB of 80 GiB: 0.98 - 0.0196 -> 0.96 */
	assert_float_equal(figure(tl, "headroom", "suggested_gpu_memory_utilization"), 0.96, 1e-9);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'headroom'"),
			       "from 0.98 to 0.96"));
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "headroom");
	t_close(tl);

	tl = t_open();
	meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	meta(tl, "server.weights_bytes", "72477573120");
	meta(tl, "server.kv_cache_bytes", "10200547328");
	torch_oom(tl, 600, 2.0 * GIB, 80 * GIB, 0);  /* 2.0 / 0.7 = 2.86 GiB fits: outside */
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "headroom"), 0);
	t_close(tl);

	tl = t_open();
	meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	meta(tl, "server.weights_bytes", "72477573120");
	meta(tl, "server.kv_cache_bytes", "10200547328");
	torch_oom(tl, 600, 2.2 * GIB, 80 * GIB, 0);  /* 2.2 / 0.7 = 3.14 GiB: inside, no margin */
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "headroom"), 1);
	assert_float_equal(t_real(tl, "SELECT score FROM finding WHERE cause = 'headroom'"), 0.65, 1e-9);
	t_close(tl);
}

static void cgroup_limit_over_baseline(void **state)
{
	struct timeline *tl;
	/* limit 8 GiB: baseline 7.3 GiB leaves 8.75% (inside, < 10%), 7.1 GiB 11% */
	(void)state;

	tl = t_open();
	meta(tl, "cgroup.max_bytes", "8589934592");
	series(tl, "cgroup.current_bytes", "/app", 100, 10, line, (double[]){ 7.3 * GIB, 0, 10 * MIB });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "limit"), 1);
	assert_true(fabs(figure(tl, "limit", "headroom_fraction") - 0.0875) < 0.005);
	assert_float_equal(figure(tl, "limit", "suggested_limit_bytes"), 11.0 * GIB, 0);
	t_close(tl);

	tl = t_open();
	meta(tl, "cgroup.max_bytes", "8589934592");
	series(tl, "cgroup.current_bytes", "/app", 100, 10, line, (double[]){ 7.1 * GIB, 0, 10 * MIB });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "limit"), 0);
	t_close(tl);
}

static void gpu_utilization_and_max_num_seqs(void **state)
{
	struct timeline *tl;
	(void)state;

	/* 0.95 x 80 GiB = 76 GiB + 5 GiB held by another process > 80 GiB */
	tl = t_open();
	meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	meta(tl, "server.gpu_memory_utilization", "0.95");
	series(tl, "gpu.proc_used_bytes", "gpu0/pid:100", 20, 10, line, (double[]){ 76 * GIB, 0, 0 });
	series(tl, "gpu.proc_used_bytes", "gpu0/pid:200", 20, 10, line, (double[]){ 5 * GIB, 0, 0 });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "limit"), 1);
	assert_float_equal(figure(tl, "limit", "other_processes_bytes"), 5 * GIB, 0);
	assert_float_equal(figure(tl, "limit", "suggested_gpu_memory_utilization"), 0.91, 1e-9);
	t_close(tl);

	/* 3 GiB held by the other: fits */
	tl = t_open();
	meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	meta(tl, "server.gpu_memory_utilization", "0.95");
	series(tl, "gpu.proc_used_bytes", "gpu0/pid:100", 20, 10, line, (double[]){ 76 * GIB, 0, 0 });
	series(tl, "gpu.proc_used_bytes", "gpu0/pid:200", 20, 10, line, (double[]){ 3 * GIB, 0, 0 });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "limit"), 0);
	t_close(tl);

	/* max_num_seqs 64 x 500 MiB = 31 GiB > 10 GiB left; safe = 10 GiB / 500 MiB x 0.7 */
	tl = t_open();
	meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	meta(tl, "server.max_num_seqs", "64");
	meta(tl, "server.weights_bytes", "16106127360");
	meta(tl, "server.kv_cache_bytes", "59055800320");
	torch_oom(tl, 100, 500 * MIB, 80 * GIB, 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "max_num_seqs"), 1);
	assert_float_equal(figure(tl, "max_num_seqs", "safe_concurrency"), 14, 0);
	t_close(tl);
}

static void fragmentation_from_message_and_segments(void **state)
{
	struct timeline *tl;
	char sql[300];
	int i;
	(void)state;

	/* the message alone: 2.1 GiB cached vs 2 GiB asked (inside), 1.9 (outside) */
	tl = t_open();
	torch_oom(tl, 100, 2 * GIB, 80 * GIB, 2.1 * GIB);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "fragmentation"), 1);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'fragmentation'"),
			       "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"));
	t_close(tl);
	tl = t_open();
	torch_oom(tl, 100, 2 * GIB, 80 * GIB, 1.9 * GIB);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "fragmentation"), 0);
	t_close(tl);

	/* segments: 64 x 128 MiB each with a 40 MiB hole = 2.5 GiB free, the
	 * largest piece 40 MiB, a 1 GiB request fails; expandable already on */
	tl = t_open();
	alloc_tables(tl);
	meta(tl, "torch.allocator.expandable_segments", "true");
	for (i = 0; i < 64; i++) {
		snprintf(sql, sizeof(sql), "INSERT INTO segment(id, snapshot_id, device, total_size,"
			 " allocated_size) VALUES(%d, 1, 0, 134217728, 92274688);"
			 "INSERT INTO block(segment_id, size, state) VALUES(%d, 92274688,"
			 " 'active_allocated'), (%d, 41943040, 'inactive')", i + 1, i + 1, i + 1);
		assert_int_equal(timeline_exec(tl, sql), 0);
	}
	assert_int_equal(timeline_exec(tl, "INSERT INTO trace(snapshot_id, seq, action, size)"
				       " VALUES(1, 1, 'oom', 1073741824)"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "fragmentation"), 1);
	assert_float_equal(figure(tl, "fragmentation", "largest_free_block_bytes"), 41943040, 0);
	assert_float_equal(figure(tl, "fragmentation", "reserved_unallocated_bytes"), 64 * 41943040.0, 0);
	assert_float_equal(figure(tl, "fragmentation", "expandable_segments"), 1, 0);
	assert_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'fragmentation'"),
			   "PYTORCH_CUDA_ALLOC_CONF"));
	t_close(tl);
}

static void cuda_contexts(void **state)
{
	struct timeline *tl;
	(void)state;

	/* three ranks with a 500 MiB stray context on gpu0 */
	tl = t_open();
	series(tl, "gpu.proc_used_bytes", "gpu0/pid:1", 10, 10, line, (double[]){ 70 * GIB, 0, 0 });
	series(tl, "gpu.proc_used_bytes", "gpu1/pid:2", 10, 10, line, (double[]){ 70 * GIB, 0, 0 });
	series(tl, "gpu.proc_used_bytes", "gpu0/pid:2", 10, 10, line, (double[]){ 500 * MIB, 0, 0 });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "cuda_context_explosion"), 1);
	assert_float_equal(figure(tl, "cuda_context_explosion", "stray_contexts"), 1, 0);
	assert_float_equal(figure(tl, "cuda_context_explosion", "contexts_per_device"), 2, 0);
	t_close(tl);

	/* two processes sharing a GPU as equals (MPS-style): no stray */
	tl = t_open();
	series(tl, "gpu.proc_used_bytes", "gpu0/pid:1", 10, 10, line, (double[]){ 30 * GIB, 0, 0 });
	series(tl, "gpu.proc_used_bytes", "gpu0/pid:2", 10, 10, line, (double[]){ 30 * GIB, 0, 0 });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "cuda_context_explosion"), 0);
	t_close(tl);

	/* a core dump with 3 contexts on device 0 */
	tl = t_open();
	assert_int_equal(timeline_exec(tl, "INSERT INTO gpu_context(artifact_id, device,"
				       " context_id, tid) VALUES(1, 0, 1, 10), (1, 0, 2, 11),"
				       " (1, 0, 3, 12), (1, 1, 4, 13)"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "cuda_context_explosion"), 1);
	assert_float_equal(figure(tl, "cuda_context_explosion", "contexts_per_device"), 3, 0);
	assert_int_equal(timeline_exec(tl, "DELETE FROM gpu_context WHERE context_id IN (2, 3)"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "cuda_context_explosion"), 0);
	t_close(tl);
}

static void oom_victim_and_score_adj(void **state)
{
	struct timeline *tl = t_open();
	struct ol_event inv = { "oom_invoked", { OL_CLOCK_UTC, T0 * NS, OL_NULL, NULL }, 10,
				"python3", OL_NULL, 1, "invoked", NULL };
	struct ol_event kill = { "oom_kill", { OL_CLOCK_UTC, T0 * NS + 1000, OL_NULL, NULL }, 20,
				 "node_exporter", OL_NULL, 30, "killed", NULL };
	struct ol_task big = { 10, 1000, 10, 9000000, 8000000, 7900000, 100000, 0, OL_NULL,
			       OL_NULL, OL_NULL, 0, OL_NULL, -1000, "python3" };
	struct ol_task small = { 20, 0, 20, 500000, 150000, 140000, 10000, 0, OL_NULL, OL_NULL,
				 OL_NULL, 0, OL_NULL, 1000, "node_exporter" };
	int64_t ev;
	(void)state;

	begin(tl);
	ev = sink_event(&tl->sink, &inv);
	assert_true(sink_task(&tl->sink, ev, &big) > 0);
	assert_true(sink_task(&tl->sink, ev, &small) > 0);
	assert_true(sink_event(&tl->sink, &kill) > 0);
	end(tl);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "oom_score_adj"), 1);
	assert_float_equal(figure(tl, "oom_score_adj", "largest_rss_bytes"), 8000000 * 4096.0, 0);
	assert_float_equal(figure(tl, "oom_score_adj", "victim_oom_score_adj"), 1000, 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	/* no adjustment in the task rows (old kernels): the kill line's counts */
	assert_int_equal(timeline_exec(tl, "UPDATE task SET oom_score_adj = NULL;"
				       " UPDATE event SET data = '{\"oom_score_adj\": 900}'"
				       " WHERE kind = 'oom_kill'"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_float_equal(figure(tl, "oom_score_adj", "victim_oom_score_adj"), 900, 0);
	/* the killer took the largest: nothing to say */
	assert_int_equal(timeline_exec(tl, "UPDATE event SET pid = 10 WHERE kind = 'oom_kill'"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding"), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "inconclusive");
	t_close(tl);
}

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

	series(tl, "gpu.used_bytes", "gpu0", 480, 30, line, (double[]){ 60 * GIB, 20 * MIB, 40 * MIB });
	assert_int_equal(analyze_timeline(tl, &err), 0);
	assert_int_equal(err.len, 0);
	/* an alloc table of another shape: the leak rule cannot index it */
	assert_int_equal(timeline_exec(tl, "DROP TABLE alloc; CREATE TABLE alloc(x)"), 0);
	assert_int_equal(analyze_timeline(tl, &err), -1);
	assert_non_null(strstr(err.buf, "rule leak failed: sqlite: "));
	/* rolled back: the findings and the verdict of the run before stay */
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	assert_int_equal(findings(tl, "growth"), 1);
	strbuf_release(&err);
	t_close(tl);

	/* a read that cannot be prepared is a failure, not absent evidence:
	 * the fragmentation rule reads the oom size from a trace table that
	 * has no such column */
	tl = t_open();
	alloc_tables(tl);
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
	/* no domain tables at all: every rule skips quietly */
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM verdict"), 1);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "inconclusive");
	assert_float_equal(t_real(tl, "SELECT confidence FROM verdict"), 0, 0);
	assert_non_null(strstr(t_text(tl, "SELECT missing FROM verdict"), "memory in use over time"));
	assert_non_null(strstr(t_text(tl, "SELECT missing FROM verdict"), "allocator snapshot"));
	assert_non_null(strstr(t_text(tl, "SELECT missing FROM verdict"), "the OOM event"));
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
	meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	meta(tl, "server.weights_bytes", "72477573120");
	meta(tl, "server.kv_cache_bytes", "10200547328");
	torch_oom(tl, 600, 3.2 * GIB, 80 * GIB, 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	alone = t_real(tl, "SELECT confidence FROM verdict");
	meta(tl, "server.max_num_seqs", "64");
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
		cmocka_unit_test(stats_theil_sen_ignores_outliers),
		cmocka_unit_test(leak_steady_growth_is_a_leak),
		cmocka_unit_test(leak_thresholds),
		cmocka_unit_test(leak_against_capacity_and_per_request),
		cmocka_unit_test(leak_memory_not_returned),
		cmocka_unit_test(leak_fit_is_the_picked_series),
		cmocka_unit_test(leak_requests_counted_from_the_series_start),
		cmocka_unit_test(leak_alloc_stack_spread),
		cmocka_unit_test(spike_rise_before_oom),
		cmocka_unit_test(spike_of_concurrency_behind_cached_memory),
		cmocka_unit_test(spike_on_a_leak_is_both),
		cmocka_unit_test(headroom_one_request),
		cmocka_unit_test(cgroup_limit_over_baseline),
		cmocka_unit_test(gpu_utilization_and_max_num_seqs),
		cmocka_unit_test(fragmentation_from_message_and_segments),
		cmocka_unit_test(cuda_contexts),
		cmocka_unit_test(oom_victim_and_score_adj),
		cmocka_unit_test(rules_survive_hostile_values),
		cmocka_unit_test(rules_fail_with_a_message_and_roll_back),
		cmocka_unit_test(verdict_inconclusive_names_missing),
		cmocka_unit_test(verdict_confidence_reflects_agreement),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
