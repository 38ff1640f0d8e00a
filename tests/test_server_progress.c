/*
 * test_server_progress.c -- a training loop's progress in a plain log
 * (parsers/serving/server_progress.c), the load at the OOM derived from
 * it (table oom_load, analyzer/derive/load.c) and the rule that judges
 * by it (analyzer/rules/progress.c): real excerpts of
 * tests/data/real/any_stack (issue 27 item 3), and edge cases the corpus
 * has no line for (bars glued by carriage returns, a finished bar, an
 * engine's own bars).
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <stdlib.h>
#include <string.h>

#define REAL "tests/data/real/any_stack/"

static int parse_log(struct timeline *tl, const char *rel)
{
	size_t n;
	char *text = t_slurp(rel, &n);
	int r = t_parse_mem(tl, "server_log", rel, text, n);

	free(text);
	return r;
}

static int parse_text(struct timeline *tl, const char *text)
{
	return t_parse_mem(tl, "server_log", "x.log", text, strlen(text));
}

#define PROGRESS(tl, key) t_int(tl, "SELECT json_extract(data, '$." key "') FROM event" \
				" WHERE kind = 'train_progress'")

/* tqdm's 'Iteration: 20% 989/5070 [...]' glued to 'Traceback': the last
 * of three bars, the OOM in backward after 989 steps: not the start. */
static void glued_bar_late_oom(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_log(tl, REAL "torch-gpt2-finetune-iteration-989-of-5070-glued-oom.log") > 0);
	assert_int_equal(PROGRESS(tl, "steps_done"), 989);
	assert_int_equal(PROGRESS(tl, "steps_total"), 5070);
	assert_int_equal(PROGRESS(tl, "first_step"), 967);
	assert_int_equal(PROGRESS(tl, "bars"), 3);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT at_start FROM oom_load"), 0);
	/* no memory trend in the log: a reading, not a class */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'late_step'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding"
			       " WHERE cause = 'first_step_does_not_fit'"), 0);
	t_close(tl);
}

/* The first step of 9565: the configuration never fit (the thread: batch
 * size), the verdict's cause. */
static void first_step_misconfig(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_log(tl, REAL "torch-cylinder3d-first-step-oom-tqdm-1-of-9565.log") > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT steps_done FROM oom_load"), 1);
	assert_int_equal(t_int(tl, "SELECT at_start FROM oom_load"), 1);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "first_step_does_not_fit");
	t_close(tl);
}

/* A logger's '[1330/3696] ... max mem: 29528' on six lines: flat. */
static void logger_max_mem(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_log(tl, REAL "torch-pix2seq-epoch0-1330-of-3696-max-mem-flat.log") > 0);
	assert_int_equal(PROGRESS(tl, "steps_done"), 1330);
	assert_int_equal(PROGRESS(tl, "first_step"), 1280);
	assert_int_equal(PROGRESS(tl, "bars"), 6);
	assert_int_equal(PROGRESS(tl, "max_mem_first_mb"), 29528);
	assert_int_equal(PROGRESS(tl, "max_mem_last_mb"), 29528);
	t_close(tl);
}

/* Bars a terminal overwrote, one line with carriage returns: the last
 * wins; then a finished bar, which is no loop that failed. */
static void carriage_returns_and_finished(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_text(tl, "  0%|          | 0/500 [00:00<?, ?it/s]\r"
			       "  0%|          | 1/500 [00:02<19:55,  2.40s/it]\r"
			       "  0%|          | 2/500 [00:04<19:40,  2.37s/it]\n"
			       "Loading checkpoint shards: 100%|##########| 2/2 [00:01<00:00,"
			       "  1.20it/s]\n") > 0);
	assert_int_equal(PROGRESS(tl, "steps_done"), 2);
	assert_int_equal(PROGRESS(tl, "steps_total"), 500);
	assert_int_equal(PROGRESS(tl, "bars"), 1);
	t_close(tl);
}

/* A serving engine's log: its bars (a CUDA-graph capture) are start-up's,
 * not a training loop's; paths and dates with '/' are no bars. */
static void engine_bars_dropped(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_text(tl, "INFO 04-28 07:15:31 [metrics.py:489] Avg prompt throughput:"
			       " 86.7 tokens/s, Avg generation throughput: 4154.2 tokens/s,"
			       " Running: 256 reqs, Swapped: 0 reqs, Pending: 100 reqs,"
			       " GPU KV cache usage: 64.7%, CPU KV cache usage: 0.0%.\n"
			       "Capturing CUDA graph shapes:  49%|####9     | 33/67 [00:10<00:10]\n"
			       "  File \"/usr/lib/python3/site-packages/a/b.py\", line 12/3\n") > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'train_progress'"), 0);
	t_close(tl);
}

/* vLLM's statistics line then the OOM: the load at the OOM, one line
 * only: a reading that states it, no class. */
static void serving_load_one_line(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	/* from the file: its time gives the year vLLM's "04-28 07:15:31" leaves out */
	assert_int_equal(t_parse_file(tl, REAL "vllm-v0-pd-decoder-256-running-100-pending-oom.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT doing FROM oom_load"), "serving");
	assert_int_equal(t_int(tl, "SELECT running FROM oom_load"), 256);
	assert_int_equal(t_int(tl, "SELECT waiting FROM oom_load"), 100);
	assert_int_equal(t_int(tl, "SELECT round(kv_usage_pct * 10) FROM oom_load"), 647);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'load_at_oom'"), 1);
	t_close(tl);
}

/* SGLang-JAX: token usage 0.98 with 167 running at the OOM: the pool
 * full at the load it had (one line: the lower score). */
static void serving_kv_full(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_log(tl, REAL "sgljax-prefill-098-running-167-decode-oom-counts.log") > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT round(kv_usage_pct) FROM oom_load"), 98);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'progress'"
			       " AND cause = 'kv_pool' AND class = 'misconfig'"), 1);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(glued_bar_late_oom),
		cmocka_unit_test(first_step_misconfig),
		cmocka_unit_test(logger_max_mem),
		cmocka_unit_test(carriage_returns_and_finished),
		cmocka_unit_test(engine_bars_dropped),
		cmocka_unit_test(serving_load_one_line),
		cmocka_unit_test(serving_kv_full),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
