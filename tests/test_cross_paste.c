/*
 * test_cross_paste.c -- cross-paste placement (issue 27 round 7,
 * analyzer/derive/oom_paste.c): an OOM its own paste leaves `unknown`
 * takes the last stage of a server log of the same incident folder, by
 * time when both are timed on one clock, else by the pastes' numbered
 * file names (inferred), never when that is ambiguous.
 *
 *  - the real folder tests/data/real/any_stack/vllm-v1-opt27b-tp4-200-
 *    running-worker-oom-40mib (vllm-project/vllm: the profiling line, the
 *    engine's stats "Running: 200 reqs" before the crash, the TP worker's
 *    OOM in a third paste): serving, by the stats paste's time;
 *  - edge cases built from real lines (that folder's stats line, timed,
 *    and the untimed systemd notice of llama.cpp #20509, now under
 *    tests/data/real/any_stack/llamacpp-gemma4-cache-ram-systemd-oom-kill):
 *    the notice numbered after the log is
 *    placed by order; numbered before it, in another folder, without
 *    numbers, or beside two logs that end in different stages, it is not.
 *  - one traceback split over two pastes (set 12 spent, w-spend12a: the
 *    real folder a-rlswarm-mps-grpo-follower-train-oom, gensyn-ai/
 *    rl-swarm #355): the head, cut before its exception line, names
 *    transformers' Trainer.train, and that is the stage its log leaves
 *    (server_memfail.c srv_mem_cut_traceback) for the MPS OOM of the next
 *    paste; a cut head whose frames name nothing, or a log that told a
 *    failure of its own, leaves none.
 */
#include "testutil.h"
#include "analyzer/derive/oom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPT27B "tests/data/real/any_stack/vllm-v1-opt27b-tp4-200-running-worker-oom-40mib"

/* a real stats line of that folder's 02 paste (a request being served) */
static const char stats[] =
	"INFO 11-19 21:10:23 [v1/metrics/loggers.py:127] Engine 000: Avg prompt throughput: 0.0"
	" tokens/s, Avg generation throughput: 447.0 tokens/s, Running: 200 reqs, Waiting: 0"
	" reqs, GPU KV cache usage: 49.2%, Prefix cache hit rate: 0.5%\n";
/* the real untimed notice of llama.cpp #20509's 03-systemd.txt */
static const char notice[] = "A process of this unit has been killed by the OOM killer.\n";

static void real_folder_by_time(void **state)
{
	struct timeline *tl = t_open();
	char *want = strdup(t_src(OPT27B "/02-kv-usage-before-crash.log"));
	(void)state;
	assert_true(t_parse_file(tl, OPT27B) >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM artifact WHERE kind = 'server_log'"), 3);
	t_expect_oom(tl, "serving", "other_paste_time", want);
	free(want);
	t_close(tl);
}

/* Parse the stats line as log and the notice as fail, then derive. */
static struct timeline *pair(const char *log, const char *fail)
{
	struct timeline *tl = t_open();

	assert_true(t_parse_mem(tl, "server_log", log, stats, strlen(stats)) >= 0);
	assert_true(t_parse_mem(tl, "kernel_log", fail, notice, strlen(notice)) > 0);
	return tl;
}

static void order_from_file_names(void **state)
{
	struct timeline *tl = pair("inc/01-server.log", "inc/02-journal.txt");
	(void)state;
	t_expect_oom(tl, "serving", "other_paste_order", "inc/01-server.log");
	t_close(tl);
}

static void later_paste_does_not_place(void **state)
{
	struct timeline *tl = pair("inc/02-server.log", "inc/01-journal.txt");
	(void)state;
	t_expect_oom(tl, "unknown", "(null)", "(null)");
	t_close(tl);
}

static void other_folder_or_no_numbers(void **state)
{
	struct timeline *tl = pair("a/01-server.log", "b/02-journal.txt");
	(void)state;
	t_expect_oom(tl, "unknown", "(null)", "(null)");
	t_close(tl);
	tl = pair("inc/server.log", "inc/journal.txt");
	t_expect_oom(tl, "unknown", "(null)", "(null)");
	t_close(tl);
}

/* Two logs ending in different stages (the real profiling paste: kv_alloc;
 * the stats line: serving): ambiguous, the untimed notice stays unknown. */
static void two_stages_ambiguous(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *prof = t_slurp(OPT27B "/01-memory-profiling.log", &n);
	(void)state;
	assert_non_null(prof);
	assert_true(t_parse_mem(tl, "server_log", "inc/01-profile.log", prof, n) > 0);
	assert_true(t_parse_mem(tl, "server_log", "inc/02-stats.log", stats, strlen(stats)) >= 0);
	assert_true(t_parse_mem(tl, "kernel_log", "inc/03-journal.txt", notice,
				strlen(notice)) > 0);
	t_expect_oom(tl, "unknown", "(null)", "(null)");
	free(prof);
	t_close(tl);
}

#define RLSWARM "tests/data/real/any_stack/a-rlswarm-mps-grpo-follower-train-oom"

static void split_traceback_head_places_tail(void **state)
{
	struct timeline *tl = t_open();
	char *want = strdup(t_src(RLSWARM "/01-traceback-head.log"));
	(void)state;
	assert_true(t_parse_file(tl, RLSWARM) >= 0);
	t_expect_oom(tl, "training_step", "other_paste_order", want);
	free(want);
	t_close(tl);
}

/* a cut head whose frames name no stage; the real tail of that folder */
static void split_traceback_head_without_stage(void **state)
{
	static const char head[] =
		"Traceback (most recent call last):\n"
		"  File \"/home/u/run.py\", line 12, in main\n"
		"    go()\n";
	struct timeline *tl = t_open();
	size_t n;
	char *tail = t_slurp(RLSWARM "/02-traceback-tail.log", &n);
	(void)state;
	assert_non_null(tail);
	assert_true(t_parse_mem(tl, "server_log", "inc/01-head.log", head, strlen(head)) >= 0);
	assert_true(t_parse_mem(tl, "server_log", "inc/02-tail.log", tail, n) > 0);
	t_expect_oom(tl, "unknown", "(null)", "(null)");
	free(tail);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(real_folder_by_time),
		cmocka_unit_test(order_from_file_names),
		cmocka_unit_test(later_paste_does_not_place),
		cmocka_unit_test(other_folder_or_no_numbers),
		cmocka_unit_test(two_stages_ambiguous),
		cmocka_unit_test(split_traceback_head_places_tail),
		cmocka_unit_test(split_traceback_head_without_stage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
