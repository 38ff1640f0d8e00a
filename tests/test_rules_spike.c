/*
 * test_rules_spike.c -- the spike rules: a rise before the OOM, concurrency
 * behind cached memory, and a spike on a leak reported as both; each case
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
	t_meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	t_series(tl, "gpu.used_bytes", "gpu0", 400, 10, t_step, in);
	t_series(tl, "server.running", "vllm", 400, 10, t_step, (double[]){ 10, 1, 30, 390, 3 });
	t_torch_oom(tl, 3995, 300 * MIB, 80 * GIB, 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "burst"), 1);
	assert_true(fabs(t_figure(tl, "burst", "rise_bytes") - 5.5 * GIB) < 0.3 * GIB);
	assert_true(t_figure(tl, "burst", "rise_seconds") <= 40);
	assert_float_equal(t_figure(tl, "burst", "running_peak"), 40, 1.5);
	assert_true(t_figure(tl, "burst", "running_correlation") > 0.8);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "spike");
	t_close(tl);

	tl = t_open();
	t_meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	t_series(tl, "gpu.used_bytes", "gpu0", 400, 10, t_step, out);
	t_torch_oom(tl, 3995, 300 * MIB, 80 * GIB, 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "burst"), 0);
	t_close(tl);

	tl = t_open();
	t_meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	t_series(tl, "gpu.used_bytes", "gpu0", 400, 10, t_step, early);
	t_torch_oom(tl, 3995, 300 * MIB, 80 * GIB, 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "burst"), 0);
	t_close(tl);
}

static void spike_of_concurrency_behind_cached_memory(void **state)
{
	struct timeline *tl;
	/* nvidia-smi flat at the allocator's high-water mark; running goes
	 * from 10 to 40 (inside: >= 2x and +8) or to 17 (outside) */
	(void)state;

	tl = t_open();
	t_series(tl, "gpu.used_bytes", "gpu0", 400, 10, t_line, (double[]){ 78 * GIB, 0, 0 });
	t_series(tl, "server.running", "vllm", 400, 10, t_step, (double[]){ 10, 1, 30, 392, 3 });
	t_torch_oom(tl, 3995, 300 * MIB, 80 * GIB, 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "burst"), 0);
	assert_int_equal(t_findings(tl, "concurrency"), 1);
	assert_float_equal(t_figure(tl, "concurrency", "running_peak"), 40, 1.5);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "spike");
	t_close(tl);

	tl = t_open();
	t_series(tl, "gpu.used_bytes", "gpu0", 400, 10, t_line, (double[]){ 78 * GIB, 0, 0 });
	t_series(tl, "server.running", "vllm", 400, 10, t_step, (double[]){ 10, 0.3, 7, 392, 3 });
	t_torch_oom(tl, 3995, 300 * MIB, 80 * GIB, 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "concurrency"), 0);
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
	t_begin(tl);
	id = sink_series(&tl->sink, "proc.rss_bytes", "bytes", "pid:7");
	for (i = 0; i < 600; i++) {
		struct ol_time t = { OL_CLOCK_UTC, (T0 + i * 30LL) * NS, OL_NULL, NULL };
		double v = t_line(i, 600, p) + (i >= 596 ? 6.0 * GIB * (i - 595) / 4 : 0);
		assert_true(sink_sample(&tl->sink, id, &t, v) > 0);
	}
	t_end(tl);
	t_oom_kill(tl, 600 * 30, 7);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "growth"), 1);
	assert_int_equal(t_findings(tl, "burst"), 1);
	/* the trend is measured without the final rise */
	assert_true(fabs(t_figure(tl, "growth", "slope_mb_per_hour") - 3 * 120) < 10);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	assert_non_null(strstr(t_text(tl, "SELECT summary FROM verdict"), "burst (spike)"));
	t_close(tl);
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spike_rise_before_oom),
		cmocka_unit_test(spike_of_concurrency_behind_cached_memory),
		cmocka_unit_test(spike_on_a_leak_is_both),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
