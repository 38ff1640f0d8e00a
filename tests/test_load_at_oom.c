/*
 * test_load_at_oom.c -- the serving load the engines state at an OOM and
 * before it (issue 27, progress): V1's SchedulerStats dump and TGI's
 * batch span read as the load (parsers/serving/engine_lines.c), the
 * typical load and the KV usage's trend derived into oom_load
 * (analyzer/derive/load.c), and the spike and leak rules that judge by
 * them (analyzer/rules/spike.c load_spike, leak.c load_leak). Real
 * excerpts where the corpus has them (tests/data/real/any_stack,
 * serving, healthy); the rules' cases put real statistics lines before
 * an OOM in vLLM's own format, with the load at the failure the case
 * needs, since no thread pastes both.
 */
#include "testutil.h"
#include "analyzer/ingest/ingest.h"
#include "analyzer/rules/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REAL "tests/data/real/any_stack/"

/* A file of the source tree read by the server-log parser (no detection). */
static int parse_log(struct timeline *tl, const char *rel)
{
	return t_parse_file_as(tl, "server_log", rel);
}


#define LAST(tl, name) t_real(tl, "SELECT p.value FROM series s JOIN sample p ON" \
			      " p.series_id = s.id WHERE s.name = '" name "'" \
			      " ORDER BY p.time_ns DESC, p.rowid DESC LIMIT 1")

/* V1's dump at a fatal EngineCore error under DP/EP: 809 running, none
 * waiting, the KV pool 47.5 % used (a ratio in the dump). */
static void scheduler_stats_dump(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_log(tl, REAL "vllm-v1-dp-ep-scheduler-stats-809-running-oom.log") > 0);
	assert_int_equal((int)LAST(tl, "server.running"), 809);
	assert_int_equal((int)LAST(tl, "server.waiting"), 0);
	assert_int_equal((int)(LAST(tl, "server.gpu_kv_usage") * 10 + 0.5), 475);
	t_close(tl);
}

/* TGI's router error under the batch span "batch{batch_size=1}": one
 * request running at the OOM, the serving row's. */
static void tgi_batch_span(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_log(tl, "tests/data/real/serving/"
			      "tgi-1.3-torch21-capacty-router-prefill-echo.log") > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT doing FROM oom_load"), "serving");
	assert_int_equal(t_int(tl, "SELECT running FROM oom_load"), 1);
	t_close(tl);
}

/* vLLM V1's statistics lines of a chunked-prefill ramp (vllm PR 21809:
 * running 2, 3, 4, 6, 7, 8), then text (the OOM and the load at it). */
static char *ramp_then(const char *tail)
{
	size_t n, m = strlen(tail);
	char *ramp = t_slurp("tests/data/real/healthy/vllm-v1-stats-ramp-kv-97pct-chunked-prefill-no-oom.log", &n);
	char *text = ramp ? malloc(n + m + 1) : NULL;

	if (text) {
		memcpy(text, ramp, n);
		memcpy(text + n, tail, m + 1);
	}
	free(ramp);
	return text;
}

#define OOM_LINE "ERROR 07-28 09:06:50 [core.py:588] torch.OutOfMemoryError: CUDA out of" \
	" memory. Tried to allocate 1.15 GiB. GPU 0 has a total capacity of 79.19 GiB of" \
	" which 200.00 MiB is free. Including non-PyTorch memory, this process has 78.98 GiB" \
	" memory in use. Of the allocated memory 76.10 GiB is allocated by PyTorch, and" \
	" 1.20 GiB is reserved by PyTorch but unallocated.\n"

/* 64 running in the dump at the OOM against a typical 5 (the median of
 * the six lines before): a spike, with both figures. */
static void spike_over_typical(void **state)
{
	struct timeline *tl = t_open();
	char *text = ramp_then(OOM_LINE "ERROR 07-28 09:06:50 [dump_input.py:81] Dumping scheduler"
			       " stats: SchedulerStats(num_running_reqs=64, num_waiting_reqs=0,"
			       " kv_cache_usage=0.99)\n");
	(void)state;

	assert_non_null(text);
	assert_true(t_parse_text(tl, text) > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT running FROM oom_load"), 64);
	assert_int_equal(t_int(tl, "SELECT running_typical FROM oom_load"), 5);
	assert_int_equal(t_int(tl, "SELECT samples_before FROM oom_load"), 6);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'spike'"
			       " AND class = 'spike' AND title LIKE '64 requests running%%typical 5%%'"), 1);
	/* the verdict states its load ratio: 64 over the typical 5 */
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.load_ratio') FROM finding"
				  " WHERE rule = 'spike' AND class = 'spike'"), 12.8, 1e-9);
	free(text);
	t_close(tl);
}

/* The dump alone, no statistics line before it: no typical load, so no
 * spike is claimed from the 809 running. */
static void no_spike_without_history(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(t_parse_text(tl, OOM_LINE "ERROR 07-28 09:06:50 [dump_input.py:81] Dumping"
			       " scheduler stats: SchedulerStats(num_running_reqs=809,"
			       " num_waiting_reqs=0, kv_cache_usage=0.47516605700935377)\n") > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT running FROM oom_load"), 809);
	assert_int_equal(t_int(tl, "SELECT running_typical IS NULL FROM oom_load"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule IN ('spike', 'leak')"), 0);
	t_close(tl);
}

/* The ramp's KV usage climbs with the running requests (2 to 8): no
 * steady load, so no leak; and the load at the OOM (8, the last line)
 * against a typical 4 (the median of the five before): twice it, but
 * only 4 requests more where a spike needs 8 (spike.c's RUN_MIN_RISE):
 * no spike either. */
static void ramp_is_no_leak(void **state)
{
	struct timeline *tl = t_open();
	char *text = ramp_then(OOM_LINE);
	(void)state;

	assert_non_null(text);
	assert_true(t_parse_text(tl, text) > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(t_real(tl, "SELECT kv_slope_pct_min FROM oom_load") > 50);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule IN ('spike', 'leak')"), 0);
	free(text);
	t_close(tl);
}

/* Eight running on every line while the KV usage climbs 40 -> 91 % over
 * seven lines: memory held at a steady load leans leak, with the slope. */
static void steady_load_kv_climb(void **state)
{
	struct timeline *tl = t_open();
	char text[4096];
	size_t k = 0;
	int i;
	const double kv[] = { 40.2, 48.9, 57.1, 65.8, 74.0, 82.6, 91.3 };
	(void)state;

	for (i = 0; i < 7; i++)
		k += (size_t)snprintf(text + k, sizeof(text) - k, "INFO 07-28 09:0%d:%02d"
				      " [loggers.py:118] Engine 000: Avg prompt throughput: 412.5"
				      " tokens/s, Avg generation throughput: 310.2 tokens/s,"
				      " Running: 8 reqs, Waiting: 0 reqs, GPU KV cache usage: %.1f%%,"
				      " Prefix cache hit rate: 0.0%%\n", 5 + i / 6, (i % 6) * 10, kv[i]);
	snprintf(text + k, sizeof(text) - k, "%s", "ERROR 07-28 09:06:05 [core.py:588]"
		 " torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.15 GiB. GPU 0"
		 " has a total capacity of 79.19 GiB of which 200.00 MiB is free.\n");
	assert_true(t_parse_text(tl, text) > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT running_typical FROM oom_load"), 8);
	assert_true(t_real(tl, "SELECT kv_r2 FROM oom_load") > 0.95);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'leak'"
			       " AND cause = 'kv_growth_steady_load'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'spike'"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scheduler_stats_dump),
		cmocka_unit_test(tgi_batch_span),
		cmocka_unit_test(spike_over_typical),
		cmocka_unit_test(no_spike_without_history),
		cmocka_unit_test(ramp_is_no_leak),
		cmocka_unit_test(steady_load_kv_climb),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
