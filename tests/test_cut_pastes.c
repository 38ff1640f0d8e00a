/*
 * test_cut_pastes.c -- failures whose phase is in a paste cut short
 * (held-out set 9, spent round 9, branch w-spent9b), on the real folders
 * now under tests/data/real/any_stack:
 *
 *  - vLLM #3407 (34B AWQ, TP 2, V0's async engine): a lone OOM printed by
 *    asyncio ("Future exception was never retrieved" / "future: <Future
 *    finished exception=OutOfMemoryError(...)>"), then its traceback cut
 *    after the _raise_exception_on_finish frame, then asyncio's next
 *    heading "Exception in callback ...". The heading is no exception
 *    line, so the frames are the OOM's, and that frame (the background
 *    loop's done callback) places it in serving;
 *  - ArjunaUsers #52 (a CGCNN training under Slurm): Slurm's oom-kill
 *    notice in 01, the interactive run's "Epoch: [0][511/1736]" lines
 *    then the shell's "Killed" in 02. 02 is read as a training log whose
 *    loop stopped short of its total, and places the kill quoted before
 *    it in training_step; a loop that reached its total places nothing.
 */
#include "testutil_report.h"
#include "analyzer/derive/oom.h"
#include "analyzer/rules/rules.h"
#include "parsers/serving/server_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ASYNC "tests/data/real/any_stack/a-vllm-34b-awq-tp2-a2-long-request-oom-task-finished-unexpectedly"
#define SLURM "tests/data/real/any_stack/b-slurm-cgroup-oom-kill-cgcnn-epoch0-python-killed"

static void asyncio_heading_keeps_the_frames(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ASYNC "/01-server.log") >= 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.phase') FROM event"
				   " WHERE kind = 'torch_oom'"), "serving");
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "serving");
	t_close(tl);
}

/* The same paste whose traceback ends in another exception of its own:
 * a later, different failure's frames, which do not place the OOM. */
static void another_exception_does_not_place(void **state)
{
	static const char other[] = "RuntimeError: a different failure\n";
	struct timeline *tl = t_open();
	size_t n;
	char *text = t_slurp_with_line(ASYNC "/01-server.log", 6, other, &n);
	(void)state;
	assert_non_null(text);
	assert_true(t_parse_mem(tl, "server_log", "01-server.log", text, n) > 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.phase') FROM event"
				   " WHERE kind = 'torch_oom'"), "unknown");
	free(text);
	t_close(tl);
}

static void slurm_kill_placed_by_cut_training_loop(void **state)
{
	struct timeline *tl = t_open();
	char *want = strdup(t_src(SLURM "/02-interactive-output.txt"));
	size_t len;
	char *md;
	(void)state;
	assert_true(t_parse_file(tl, SLURM) >= 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(value, '$.phase') FROM meta"
				   " WHERE key = 'server.last_stage'"), "training_step");
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "training_step");
	assert_string_equal(t_text(tl, "SELECT phase_source FROM oom WHERE id = 1"),
			    "other_paste_order");
	assert_string_equal(t_text(tl, "SELECT a.path FROM oom o JOIN artifact a"
				   " ON a.id = o.phase_artifact WHERE o.id = 1"), want);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	md = t_render(tl, REPORT_MD, &len);
	t_contains(md, "02-interactive-output.txt, a later paste whose training loop did not finish");
	t_lacks(md, "whose start-up did not finish");
	free(md);
	free(want);
	t_close(tl);
}

/* A run's output whose only step line is its loop's last (the bar at its
 * total, then the shell's "Killed"): the stage is training, but no loop
 * was cut short, so it does not place the kill quoted before it. */
static void finished_loop_does_not_place(void **state)
{
	static const char run[] = "Epoch: [0][1736/1736]\t Loss 0.5117 MAE 0.6075 RMSE 0.7153\n"
				  "Killed\n";
	struct timeline *tl = t_open();
	size_t m;
	char *kill = t_slurp(SLURM "/01-job-stderr.txt", &m);
	(void)state;
	assert_non_null(kill);
	assert_true(t_parse_mem(tl, "kernel_log", "inc/01-job-stderr.txt", kill, m) > 0);
	assert_true(t_parse_mem(tl, "server_log", "inc/02-interactive-output.txt", run,
				sizeof(run) - 1) >= 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(value, '$.phase') FROM meta"
				   " WHERE key = 'server.last_stage'"), "training_step");
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "unknown");
	free(kill);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(asyncio_heading_keeps_the_frames),
		cmocka_unit_test(another_exception_does_not_place),
		cmocka_unit_test(slurm_kill_placed_by_cut_training_loop),
		cmocka_unit_test(finished_loop_does_not_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
