/*
 * test_sched_dump.c -- the batch an engine dumps at its failure read as
 * the load at the OOM (issue 27, spike19): vLLM V1's SchedulerOutput
 * ("num_scheduled_tokens={id: n, ...}", one entry per request scheduled
 * in the failing step; parsers/serving/engine_readers_sched.c) and V0's
 * "Batch info: requests_count=", which the spike rule (spike.c
 * load_spike) weighs against the statistics lines before the failure.
 * The real excerpt tt-inference-server#2886 (incoming set) gives the
 * dump's shape as pasted; the spike case puts the real statistics ramp
 * of vllm#21809 (healthy set) before an OOM and a dump in vLLM's own
 * format (dump_input.py, SchedulerOutput), since no thread pastes both.
 */
#include "testutil.h"
#include "analyzer/ingest/ingest.h"
#include "analyzer/rules/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LAST(tl, name) t_real(tl, "SELECT p.value FROM series s JOIN sample p ON" \
			      " p.series_id = s.id WHERE s.name = '" name "'" \
			      " ORDER BY p.time_ns DESC, p.rowid DESC LIMIT 1")
#define COUNT(tl, name) t_int(tl, "SELECT count(*) FROM series s JOIN sample p ON" \
			      " p.series_id = s.id WHERE s.name = '" name "'")


#define DUMP_HEAD "(EngineCore_DP0 pid=1168) ERROR 07-28 09:06:50 [dump_input.py:79] Dumping" \
	" scheduler output for model execution: SchedulerOutput(scheduled_new_reqs=[],"     \
	" scheduled_cached_reqs=CachedRequestData(req_ids=[]), num_scheduled_tokens={"

#define OOM_LINE "(EngineCore_DP0 pid=1168) ERROR 07-28 09:06:50 [core.py:588]"             \
	" torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.15 GiB. GPU 0 has a" \
	" total capacity of 79.19 GiB of which 200.00 MiB is free. Including non-PyTorch"     \
	" memory, this process has 78.98 GiB memory in use.\n"

/* A SchedulerOutput dump of n decoding requests into buf; closed: the
 * dict ends on the line. */
static void dump(char *buf, size_t cap, int n, int closed)
{
	size_t k = (size_t)snprintf(buf, cap, "%s", DUMP_HEAD);
	int i;

	for (i = 0; i < n && k < cap; i++)
		k += (size_t)snprintf(buf + k, cap - k, "%schatcmpl-%032x: 1", i ? ", " : "", i);
	if (k < cap)
		snprintf(buf + k, cap - k, "%s", closed ? "}, total_num_scheduled_tokens=40,"
			 " scheduled_spec_decode_tokens={}, finished_req_ids=[])\n" : "\n");
}

/* The six 16384-token prefills of tt-inference-server#2886 as pasted
 * (request ids elided by the reporter): six running at the failure. */
static void tt_dump_six_prefills(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(t_parse_file_as(tl, "server_log", "tests/data/incoming/any_stack/"
				    "d-tt-vllm-t3k-mistral-small-24b-batched-prefill-6x16k-dram-oom/"
				    "02-scheduler-dump.log") > 0);
	assert_int_equal((int)LAST(tl, "server.running"), 6);
	t_close(tl);
}

/* The vllm#21809 ramp (running 2 to 8), then the failing step's dump of
 * 40 requests and the OOM: 40 running at the OOM against a typical 5, a
 * spike (load_spike) with its load ratio. */
static void dump_after_ramp_is_spike(void **state)
{
	struct timeline *tl = t_open();
	size_t n, cap = 8192;
	char *ramp = t_slurp("tests/data/real/healthy/vllm-v1-stats-ramp-kv-97pct-chunked-prefill-no-oom.log", &n);
	char *text = ramp ? malloc(n + cap + sizeof(OOM_LINE)) : NULL;
	(void)state;

	assert_non_null(text);
	memcpy(text, ramp, n);
	dump(text + n, cap, 40, 1);
	strcat(text, OOM_LINE);
	assert_true(t_parse_text(tl, text) > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT running FROM oom_load"), 40);
	assert_int_equal(t_int(tl, "SELECT running_typical FROM oom_load"), 5);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'spike'"
			       " AND class = 'spike' AND title LIKE '40 requests running%%typical 5%%'"), 1);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "spike");
	free(text);
	free(ramp);
	t_close(tl);
}

/* A dump whose dict a paste cut (no closing brace): no count at all, not
 * a count too small. */
static void cut_dump_no_count(void **state)
{
	struct timeline *tl = t_open();
	char text[4096];
	(void)state;

	dump(text, sizeof(text), 12, 0);
	assert_true(t_parse_mem(tl, "server_log", "cut.log", text, 0) >= 0);
	assert_int_equal(COUNT(tl, "server.running"), 0);
	t_close(tl);
}

/* V0's batch line at a failure (dump_engine_exception_v0): its count. */
static void v0_batch_info(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(t_parse_mem(tl, "server_log", "v0.log", "ERROR 10-11 12:27:29 [dump_input.py:97]"
				    " Batch info: requests_count=256, requests_prompt_token_ids_lenghts="
				    "({0: 512}, {1: 498}), requests_ids=(cmpl-1, cmpl-2)\n", 0) >= 0);
	assert_int_equal((int)LAST(tl, "server.running"), 256);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tt_dump_six_prefills),
		cmocka_unit_test(dump_after_ramp_is_spike),
		cmocka_unit_test(cut_dump_no_count),
		cmocka_unit_test(v0_batch_info),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
