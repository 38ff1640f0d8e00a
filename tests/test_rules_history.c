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

/* An 80 GiB card at 70 GiB for n samples of 10 s, rising 6 GiB three
 * samples from the end, the running requests going from 10 to 40 with
 * it after a hump of `carried` requests an hour before. */
static struct timeline *burst(int n, double carried)
{
	struct timeline *tl = t_open();
	double mem[7] = { 70 * GIB, 50 * MIB, 0, 0, 0, 6 * GIB, n - 10 };
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
	assert_true(score(tl, "burst") <= 0.6);
	assert_true(t_real(tl, "SELECT confidence FROM verdict") < 0.7);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'burst'"),
			       "would settle it"));
	t_close(tl);

	/* 71 samples: 610 s of history, the load is new: a spike, scored in full */
	tl = burst(71, 10);
	assert_string_equal(verdict(tl, "class"), "spike");
	full = score(tl, "burst");
	assert_true(full > 0.6);
	assert_float_equal(figure(tl, "burst", "load_novel"), 1, 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(new_load_is_a_spike),
		cmocka_unit_test(short_history_is_likely_not_sure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
