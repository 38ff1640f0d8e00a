/*
 * test_rules_history.c -- how history decides between a spike, a
 * misconfiguration and a leak (spike.c with history.c's rl_load_history),
 * and the misconfiguration rules of the configuration against the load it
 * admits, the memory at start-up and the container's limit: each case
 * just inside and just outside its threshold, on timelines built through
 * the sink API.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1795953600LL   /* 2026-11-29T12:00:00Z */
#define NS 1000000000LL

/* ---- building timelines ---- */

typedef double (*shape_fn)(int i, const double *p);

static void begin(struct timeline *tl)
{
	assert_true(timeline_artifact_begin(tl, "synthetic", "synthetic", 0, 0) > 0);
}

static void end(struct timeline *tl)
{
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", 0, 0), 0);
}

/* n samples every dt seconds from T0 of shape(i, p). */
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
		assert_true(sink_sample(&tl->sink, id, &t, shape(i, p)) > 0);
	}
	end(tl);
}

static void meta(struct timeline *tl, const char *k, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.17g", v);
	begin(tl);
	assert_true(sink_meta(&tl->sink, k, buf) > 0);
	end(tl);
}

/* torch_oom at T0 + at seconds, requesting req bytes of a total card. */
static void torch_oom(struct timeline *tl, double at, double req, double total)
{
	struct ol_event e = { "torch_oom", { OL_CLOCK_UTC, (T0 + (int64_t)at) * NS, OL_NULL, NULL },
			      4312, NULL, (int64_t)req, 1, "CUDA out of memory", NULL };

	e.data = json_pack("{s:I, s:I}", "requested_bytes", (json_int_t)req,
			   "total_bytes", (json_int_t)total);
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

/* p: level, noise, a hump of p[2] over samples [p[3], p[4]), a final rise
 * of p[5] from sample p[6] (over 3 samples) */
static double humps(int i, const double *p)
{
	double v = p[0] + p[1] * noise(i);

	if (i >= p[3] && i < p[4])
		v += p[2];
	if (i >= p[6])
		v += p[5] * (i - p[6] + 1 >= 3 ? 1 : (i - p[6] + 1) / 3.0);
	return v;
}

static const char *verdict(struct timeline *tl, const char *col)
{
	return t_text(tl, "SELECT %s FROM verdict", col);
}

static double figure(struct timeline *tl, const char *cause, const char *key)
{
	return t_real(tl, "SELECT json_extract(figures, '$.%s') FROM finding WHERE cause = '%s'"
		      " ORDER BY score DESC LIMIT 1", key, cause);
}

static double score(struct timeline *tl, const char *cause)
{
	return t_real(tl, "SELECT max(score) FROM finding WHERE cause = '%s'", cause);
}

/* ---- spike, misconfiguration or leak, by history ---- */

/* An 80 GiB card at 70 GiB for n samples of 10 s, rising 9.5 GiB three
 * samples from the end, the running requests going from 10 to 40 with
 * it after a hump of `carried` requests an hour before. */
static struct timeline *burst(int n, double carried)
{
	struct timeline *tl = t_open();
	double mem[7] = { 70 * GIB, 50 * MIB, 0, 0, 0, 9.5 * GIB, n - 10 };
	double run[7] = { 10, 0, carried - 10, 20, 40, 30, n - 10 };

	meta(tl, "gpu.total_bytes.gpu0", 80 * GIB);
	series(tl, "gpu.used_bytes", "gpu0", n, 10, humps, mem);
	series(tl, "server.running", "vllm", n, 10, humps, run);
	torch_oom(tl, n * 10 - 5, 300 * MIB, 80 * GIB);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

static void new_load_is_a_spike(void **state)
{
	struct timeline *tl;
	(void)state;

	/* carried 31 before: 40 > 31 x 1.2 + 2 = 39.2, new load */
	tl = burst(400, 31);
	assert_string_equal(verdict(tl, "class"), "spike");
	assert_string_equal(verdict(tl, "cause"), "burst");
	assert_float_equal(figure(tl, "burst", "load_novel"), 1, 0);
	assert_float_equal(figure(tl, "burst", "load_carried_before"), 31, 0);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'burst'"),
			       "new load"));
	t_close(tl);

	/* carried 32: 40 <= 32 x 1.2 + 2 = 40.4, admitted before: the
	 * configuration's, with the concurrency that fits */
	tl = burst(400, 32);
	assert_string_equal(verdict(tl, "class"), "misconfig");
	assert_string_equal(verdict(tl, "cause"), "admitted_load");
	assert_float_equal(figure(tl, "admitted_load", "load_novel"), 0, 0);
	assert_true(figure(tl, "admitted_load", "advice_value") >= 1);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause ="
				      " 'admitted_load'"), "not the traffic"));
	t_close(tl);
}

static void short_history_is_likely_not_sure(void **state)
{
	struct timeline *tl;
	double full;
	(void)state;

	/* 69 samples: the rise starts at 590 s, under ten minutes of history */
	tl = burst(69, 10);
	assert_string_equal(verdict(tl, "class"), "spike");
	assert_true(score(tl, "burst") <= RL_LONE_MAX_SCORE);
	assert_true(t_real(tl, "SELECT confidence FROM verdict") < 0.7);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'burst'"),
			       "would settle it"));
	t_close(tl);

	/* 71 samples: 610 s of history, the load is new: a spike, scored in full */
	tl = burst(71, 10);
	assert_string_equal(verdict(tl, "class"), "spike");
	full = score(tl, "burst");
	assert_true(full > RL_LONE_MAX_SCORE);
	assert_float_equal(figure(tl, "burst", "load_novel"), 1, 0);
	t_close(tl);
}

/* The load as the KV cache's usage, no running counts: percent from the
 * engine's lines, a ratio from Prometheus (unit "ratio"), the same
 * reading and the same figures, in percent. */
static struct timeline *kv_burst(const char *unit, double scale, double carried)
{
	struct timeline *tl = t_open();
	double mem[7] = { 70 * GIB, 50 * MIB, 0, 0, 0, 9.5 * GIB, 390 };
	double kv[7] = { 20 * scale, 0, (carried - 20) * scale, 20, 40, 65 * scale, 390 };
	int64_t id;
	int i;

	meta(tl, "gpu.total_bytes.gpu0", 80 * GIB);
	series(tl, "gpu.used_bytes", "gpu0", 400, 10, humps, mem);
	begin(tl);
	id = sink_series(&tl->sink, "server.gpu_kv_usage", unit, "vllm");
	for (i = 0; i < 400; i++) {
		struct ol_time t = { OL_CLOCK_UTC, (T0 + (int64_t)i * 10) * NS, OL_NULL, NULL };
		assert_true(sink_sample(&tl->sink, id, &t, humps(i, kv)) > 0);
	}
	end(tl);
	torch_oom(tl, 3995, 300 * MIB, 80 * GIB);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

static void kv_usage_in_percent_whatever_its_unit(void **state)
{
	struct timeline *pct, *ratio;
	(void)state;

	/* carried 40% before, 85% at the end: new load (85 > 40 x 1.2 + 5) */
	pct = kv_burst("percent", 1, 40);
	ratio = kv_burst("ratio", 0.01, 40);
	assert_string_equal(verdict(pct, "cause"), "burst");
	assert_string_equal(verdict(ratio, "cause"), "burst");
	assert_float_equal(figure(pct, "burst", "kv_usage_peak"), 85, 1e-6);
	assert_float_equal(figure(ratio, "burst", "kv_usage_peak"), 85, 1e-6);
	/* the hump's 40%, or the rise's first sample when it falls before its start */
	assert_true(figure(pct, "burst", "load_carried_before") >= 40);
	assert_true(figure(pct, "burst", "load_carried_before") < 45);
	assert_float_equal(figure(ratio, "burst", "load_carried_before"),
			   figure(pct, "burst", "load_carried_before"), 1e-6);
	assert_non_null(strstr(t_text(pct, "SELECT advice FROM finding WHERE cause = 'burst'"),
			       "KV cache 85% used"));
	t_close(pct);
	t_close(ratio);

	/* carried 70%: 85 <= 70 x 1.2 + 5, admitted before */
	pct = kv_burst("percent", 1, 70);
	assert_float_equal(figure(pct, "admitted_load", "load_novel"), 0, 0);
	t_close(pct);
}

/* ---- the configuration against the start-up and the load it admits ---- */

/* vLLM's own error (verbatim, tests/data/real/serving/
 * vllm-0.9.1-free-memory-below-utilization.log), then the same from the
 * engine's figures alone, just under and just over what it asks for. */
static void free_memory_below_utilization(void **state)
{
	struct timeline *tl;
	(void)state;

	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "vllm",
		"ERROR 06-30 13:53:19 [multiproc_executor.py:492] ValueError: Free memory on device"
		" (31.44/47.38 GiB) on startup is less than desired GPU memory utilization (0.95,"
		" 45.01 GiB). Decrease GPU memory utilization or reduce GPU memory used by other"
		" processes.\n", 0) > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(verdict(tl, "cause"), "free_below_utilization");
	assert_float_equal(score(tl, "free_below_utilization"), 0.9, 1e-9);
	/* 31.44 / 47.38 = 0.664, less 2%: 0.64 */
	assert_float_equal(figure(tl, "free_below_utilization", "advice_value"), 0.64, 1e-9);
	t_close(tl);

	for (int over = 0; over < 2; over++) {
		tl = t_open();
		tl->opts.year = 2025;
		assert_true(t_parse_mem(tl, "server_log", "vllm", "INFO 08-19 07:51:03"
			" model_runner.py:732] Loading model weights took 2.3463 GB\n", 0) > 0);
		/* 0.9 x 80 GiB = 72 GiB asked: 71.9 GiB free is short, 72.1 is not */
		assert_int_equal(timeline_exec(tl, over ?
			"UPDATE engine SET total_bytes = 85899345920, gpu_memory_utilization = 0.9,"
			" free_bytes = 77416067891" :
			"UPDATE engine SET total_bytes = 85899345920, gpu_memory_utilization = 0.9,"
			" free_bytes = 77201319526"), 0);
		assert_int_equal(analyze_timeline(tl, NULL), 0);
		if (over) {
			assert_float_equal(t_real(tl, "SELECT count(*) FROM finding WHERE cause ="
						  " 'free_below_utilization'"), 0, 0);
		} else {
			assert_float_equal(score(tl, "free_below_utilization"), 0.8, 1e-9);
			assert_float_equal(figure(tl, "free_below_utilization", "advice_value"),
					   0.87, 1e-9);
		}
		t_close(tl);
	}
}

/* With nvidia-smi's history (the fixture of that name: the query-gpu log
 * without a uuid column, the compute-apps list by uuid), the tenant that
 * took the card during a redeploy is named, and the ledger of the only
 * card counts it as another process, not as unexplained. */
static void free_memory_taken_by_a_tenant(void **state)
{
	static const char *const files[] = { "nvidia-smi.csv", "compute-apps.csv", "vllm.log",
					     "vllm-restart.log" };
	struct timeline *tl = t_open();
	char path[200];
	size_t i;
	(void)state;

	tl->opts.year = 2026;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "fixtures/misconfig_free_below_utilization_history/%s",
			 files[i]);
		assert_int_equal(t_parse_file(tl, path), 0);
	}
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(verdict(tl, "cause"), "free_below_utilization");
	assert_float_equal(figure(tl, "free_below_utilization", "other_tenant_pid"), 9120, 0);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause ="
				      " 'free_below_utilization'"), "pid 9120 (python train.py)"));
	/* nvidia-smi's times have no zone: the advice says the time was read as UTC */
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause ="
				      " 'free_below_utilization'"), "no zone in it: read as UTC"));
	assert_float_equal(t_real(tl, "SELECT bytes FROM ledger WHERE line = 'other_processes'"),
			   22 * GIB + 310 * MIB, MIB);
	assert_true(t_real(tl, "SELECT bytes FROM ledger WHERE line = 'unexplained'") < GIB);
	t_close(tl);
}

/* 80 GiB card, weights + KV cache 70 GiB: 10 GiB of room, 500 MiB per
 * request (the failed allocation): 20 requests fill it. */
static struct timeline *admitting(double max_seqs, double running)
{
	struct timeline *tl = t_open();

	meta(tl, "gpu.total_bytes.gpu0", 80 * GIB);
	meta(tl, "server.weights_bytes", 16 * GIB);
	meta(tl, "server.kv_cache_bytes", 54 * GIB);
	if (max_seqs > 0)
		meta(tl, "server.max_num_seqs", max_seqs);
	series(tl, "server.running", "vllm", 100, 10, humps,
	       (double[]){ running, 0, 0, 0, 0, 0, 1000 });
	torch_oom(tl, 995, 500 * MIB, 80 * GIB);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

static void admitted_concurrency_against_the_room(void **state)
{
	struct timeline *tl;
	(void)state;

	/* no max_num_seqs: 21 running x 500 MiB > 10 GiB, 20 do not */
	tl = admitting(0, 21);
	assert_float_equal(figure(tl, "max_num_seqs", "admitted_concurrency"), 21, 0);
	assert_float_equal(figure(tl, "max_num_seqs", "safe_concurrency"), 14, 0);
	assert_float_equal(score(tl, "max_num_seqs"), 0.45, 1e-9);
	t_close(tl);
	tl = admitting(0, 20);
	assert_float_equal(t_real(tl, "SELECT count(*) FROM finding WHERE cause = 'max_num_seqs'"),
			   0, 0);
	t_close(tl);

	/* max_num_seqs 64 admits it; 21 running at the OOM overflowed the
	 * room themselves (the configuration's), 19 did not (contributing) */
	tl = admitting(64, 21);
	assert_float_equal(score(tl, "max_num_seqs"), 0.6, 1e-9);
	assert_float_equal(figure(tl, "max_num_seqs", "running_at_oom"), 21, 0);
	t_close(tl);
	tl = admitting(64, 19);
	assert_float_equal(score(tl, "max_num_seqs"), 0.45, 1e-9);
	t_close(tl);
}

/* server.running for n samples of 10 s, 0 until sample busy, then 5; the
 * OOM at the last sample. */
static struct timeline *starting(int n, int busy)
{
	struct timeline *tl = t_open();

	meta(tl, "server.gpu_memory_utilization", 0.9);
	meta(tl, "gpu.total_bytes.gpu0", 80 * GIB);
	series(tl, "server.running", "vllm", n, 10, humps,
	       (double[]){ 0, 0, 5, busy, n + 1, 0, n + 1 });
	torch_oom(tl, (n - 1) * 10, 2 * GIB, 80 * GIB);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

static void oom_before_any_steady_load(void **state)
{
	struct timeline *tl;
	(void)state;

	/* no request ever ran */
	tl = starting(100, 1000);
	assert_string_equal(verdict(tl, "cause"), "startup_oom");
	assert_float_equal(score(tl, "startup_oom"), 0.75, 1e-9);
	/* 0.9 - 2 GiB / 80 GiB - 0.02 = 0.855: 0.85 */
	assert_float_equal(figure(tl, "startup_oom", "advice_value"), 0.85, 1e-9);
	t_close(tl);

	/* the first request 590 s before the OOM: the first ramp */
	tl = starting(100, 40);
	assert_float_equal(score(tl, "startup_oom"), 0.7, 1e-9);
	t_close(tl);
	/* 610 s before: it had held a load */
	tl = starting(100, 38);
	assert_float_equal(t_real(tl, "SELECT count(*) FROM finding WHERE cause = 'startup_oom'"),
			   0, 0);
	t_close(tl);
}

/* A host process starting in the capture: RSS from `from` of its peak
 * to a 10 GiB limit over span seconds, then the kernel's kill. */
static struct timeline *host_start(double from, double span)
{
	struct timeline *tl = t_open();
	struct ol_event kill = { "oom_kill", { OL_CLOCK_UTC, (T0 + (int64_t)span) * NS, OL_NULL,
					       NULL }, 20, "python3", 0, 1, "Killed process 20", NULL };
	int64_t id;
	int i;

	meta(tl, "cgroup.max_bytes", 10 * GIB);
	begin(tl);
	id = sink_series(&tl->sink, "proc.rss_bytes", "bytes", "pid:20");
	for (i = 0; i <= 10; i++) {
		struct ol_time t = { OL_CLOCK_UTC, (T0 + (int64_t)(span * i / 10)) * NS, OL_NULL, NULL };
		assert_true(sink_sample(&tl->sink, id, &t, 10 * GIB * (from + (1 - from) * i / 10)) > 0);
	}
	assert_true(sink_event(&tl->sink, &kill) > 0);
	end(tl);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

static void host_start_up_beyond_the_limit(void **state)
{
	struct timeline *tl;
	(void)state;

	tl = host_start(0.2, 590);
	assert_float_equal(score(tl, "startup_oom"), 0.6, 1e-9);
	/* a quarter above the 10 GiB peak: 12.5 GiB, up to 13 GiB */
	assert_float_equal(figure(tl, "startup_oom", "suggested_limit_bytes"), 13 * GIB, 0);
	assert_true(t_real(tl, "SELECT confidence FROM verdict") < 0.7);
	t_close(tl);
	/* ten minutes of it: not a start-up */
	tl = host_start(0.2, 610);
	assert_float_equal(t_real(tl, "SELECT count(*) FROM finding WHERE cause = 'startup_oom'"),
			   0, 0);
	t_close(tl);
	/* from 30% of the peak: a capture started late, not a process */
	tl = host_start(0.3, 590);
	assert_float_equal(t_real(tl, "SELECT count(*) FROM finding WHERE cause = 'startup_oom'"),
			   0, 0);
	t_close(tl);
}

/* TGI's shard (verbatim, tests/data/real/serving/
 * tgi-1.0-torch-oom-old-format-shard-cannot-start.log): the engine's word
 * that it never started, with the card it needs. */
static void engine_never_started(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *log = t_slurp("tests/data/real/serving/tgi-1.0-torch-oom-old-format-shard-cannot-start.log", &n);
	(void)state;

	assert_non_null(log);
	assert_true(t_parse_mem(tl, "server_log", "tgi", log, n) > 0);
	free(log);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(verdict(tl, "cause"), "startup_oom");
	assert_float_equal(score(tl, "startup_oom"), 0.8, 1e-9);
	assert_float_equal(figure(tl, "startup_oom", "advice_value"), 2, 0);
	t_close(tl);
}

/* p: a level p[0] growing by p[1] a sample, noise p[2] */
static double ramp(int i, const double *p)
{
	return p[0] + p[1] * i + p[2] * noise(i);
}

/* What the caching allocator reserved ratchets up with each new peak: a
 * growing torch.reserved_bytes beside a flat torch.allocated_bytes is no
 * leak; alone (no allocated series to say what is live), it is one. */
static void reserved_ratchet_is_not_a_leak(void **state)
{
	static const double reserved[] = { 60.0 * GIB, 70.0 * MIB, 8.0 * MIB };
	static const double allocated[] = { 55.0 * GIB, 0, 200.0 * MIB };
	struct timeline *tl;
	(void)state;

	tl = t_open();
	series(tl, "torch.reserved_bytes", "cuda:0", 120, 30, ramp, reserved);
	series(tl, "torch.allocated_bytes", "cuda:0", 120, 30, ramp, allocated);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_float_equal(score(tl, "growth"), 0, 0);
	t_close(tl);

	tl = t_open();
	series(tl, "torch.reserved_bytes", "cuda:0", 120, 30, ramp, reserved);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(score(tl, "growth") > 0.5);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(new_load_is_a_spike),
		cmocka_unit_test(short_history_is_likely_not_sure),
		cmocka_unit_test(kv_usage_in_percent_whatever_its_unit),
		cmocka_unit_test(free_memory_below_utilization),
		cmocka_unit_test(free_memory_taken_by_a_tenant),
		cmocka_unit_test(admitted_concurrency_against_the_room),
		cmocka_unit_test(oom_before_any_steady_load),
		cmocka_unit_test(host_start_up_beyond_the_limit),
		cmocka_unit_test(engine_never_started),
		cmocka_unit_test(reserved_ratchet_is_not_a_leak),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
