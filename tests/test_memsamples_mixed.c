/*
 * test_memsamples_mixed.c -- memory prints inside a mixed log
 * (parsers/host/memsamples_mixed.c, hooked into the server-log reader):
 * a server's per-request "Used memory (before request): 5.65GB" between
 * access lines (the shape of microsoft/onnxruntime#8047, whose two
 * pasted requests are below, verbatim, too few for a series), a training
 * log's "mem: N MB" beside its loss, and the logs that must stay clean:
 * a plateau after warm-up, a running maximum ("max memory"), memory free,
 * a per-request sawtooth, and an OOM message's own figures.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Build a log of n requests shaped as onnxruntime#8047 prints them, the
 * memory before each request starting at gb0 and growing by step GB. */
static char *onnx_log(int n, double gb0, double step)
{
	size_t cap = 512 + (size_t)n * 512, o = 0;
	char *b = malloc(cap);
	int i;

	o += (size_t)snprintf(b + o, cap - o, "INFO:     Started server process [4121]\n");
	for (i = 0; i < n; i++) {
		double m = gb0 + step * i;
		o += (size_t)snprintf(b + o, cap - o,
				      "127.0.0.1 - - [15/Jun/2021:01:45:%02d] \"POST /detect/ HTTP/1.1\""
				      " 200 934 \"\" \"curl/7.71.1\"\n"
				      "INFO [-36] : Used  memory (before request): %.2fGB\n"
				      "INFO [-39] : Image shape : (4160, 3120, 3)\n"
				      "INFO [-114] : Used  memory (after prediction): %.2fGB\n"
				      "INFO [-99] : Total request time - 2.6114 s\n",
				      i % 60, m, m + 0.5);
	}
	return b;
}

static const char *series(struct timeline *tl, int k)
{
	return t_text(tl, "SELECT value FROM meta WHERE key = 'samples.series.%d'", k);
}

/* Memory before each request keeps rising: a leak in progress, no OOM. */
static void per_request_rising(void **state)
{
	struct timeline *tl = t_open();
	char *log = onnx_log(8, 5.65, 0.39);
	(void)state;
	assert_true(t_parse_mem(tl, "text", "server.log", log, 0) >= 0);
	assert_true(strncmp(series(tl, 0), "memory before request|sample||", 30) == 0);
	assert_true(strncmp(series(tl, 1), "memory after prediction|sample||", 32) == 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "untimed_growth");
	assert_true(strstr(t_text(tl, "SELECT title FROM finding WHERE rule = 'samples'"),
			   "Memory (memory before request) rose over 8") != NULL);
	free(log);
	t_close(tl);
}

/* The thread's own two requests, verbatim: two samples a label are
 * fewer than MEMSAMPLES_MIN: no series, no verdict. */
static void two_requests_too_few(void **state)
{
	static const char *real =
		"127.0.0.1 - - [15/Jun/2021:01:45:56] \"POST /detect/ HTTP/1.1\" 200 934 \"\" \"curl/7.71.1\"\n"
		"[15/Jun/2021:01:45:56]  \n"
		"INFO [-36] : Used  memory (before request): 5.65GB\n"
		"INFO [-39] : Image shape : (4160, 3120, 3)\n"
		"INFO [-105] : Used  memory (before prediction): 5.69GB\n"
		"INFO [-114] : Used  memory (after prediction): 6.22GB\n"
		"INFO [-50] : Detection time - 2.3656 s,\n"
		"INFO [-51] : Total Object found - 9\n"
		"INFO [-99] : Total request time - 2.6114 s\n"
		"INFO [-43] : Used  memory (after request): 6.04GB\n"
		"127.0.0.1 - - [15/Jun/2021:01:45:58] \"POST /detect/ HTTP/1.1\" 200 934 \"\" \"curl/7.71.1\"\n"
		"[15/Jun/2021:01:45:58]  \n"
		"INFO [-36] : Used  memory (before request): 6.04GB\n"
		"INFO [-39] : Image shape : (4160, 3120, 3)\n"
		"INFO [-105] : Used  memory (before prediction): 6.08GB\n"
		"INFO [-114] : Used  memory (after prediction): 6.37GB\n"
		"INFO [-50] : Detection time - 2.2305 s,\n"
		"INFO [-51] : Total Object found - 9\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "text", "server.log", real, 0) >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key LIKE 'samples.series.%%'"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	t_close(tl);
}

/* A training log's "mem" beside its loss, numbered by step: rising is a
 * leak per step; rising in warm-up then flat is none. */
static void training_mem_beside_loss(void **state)
{
	static const char *rising =
		"[train] epoch 0 step 10 loss 2.31 lr 1e-4 mem: 10240MB\n"
		"[train] grad norm 1.2\n"
		"[train] epoch 0 step 20 loss 2.10 lr 1e-4 mem: 10650MB\n"
		"[eval] skipped\n"
		"[train] epoch 0 step 30 loss 1.95 lr 1e-4 mem: 11020MB\n"
		"[train] grad norm 1.1\n"
		"[train] epoch 0 step 40 loss 1.90 lr 1e-4 mem: 11480MB\n"
		"[train] epoch 0 step 50 loss 1.88 lr 1e-4 mem: 11890MB\n";
	static const char *plateau =
		"[train] epoch 0 step 10 loss 2.31 lr 1e-4 mem: 8200MB\n"
		"[train] grad norm 1.2\n"
		"[train] epoch 0 step 20 loss 2.10 lr 1e-4 mem: 10650MB\n"
		"[train] epoch 0 step 30 loss 1.95 lr 1e-4 mem: 10652MB\n"
		"[train] grad norm 1.1\n"
		"[train] epoch 0 step 40 loss 1.90 lr 1e-4 mem: 10650MB\n"
		"[train] epoch 0 step 50 loss 1.88 lr 1e-4 mem: 10651MB\n"
		"[train] epoch 0 step 60 loss 1.86 lr 1e-4 mem: 10650MB\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "text", "train.log", rising, 0) >= 0);
	assert_true(strncmp(series(tl, 0), "mem|step|10,20,30,40,50|", 24) == 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	assert_string_equal(t_text(tl, "SELECT phase FROM verdict"), "training_step");
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "text", "train.log", plateau, 0) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	t_close(tl);
}

/* A running maximum, memory free, a per-request sawtooth and an OOM
 * message's figures are no samples of memory held: no leak. */
static void not_memory_held(void **state)
{
	/* max memory never falls: a running maximum, not growth */
	static const char *maxmem =
		"step 1 loss 2.3 max memory: 10.1 GB\nstep 2 loss 2.2 max memory: 10.9 GB\n"
		"step 3 loss 2.1 max memory: 11.6 GB\nstep 4 loss 2.0 max memory: 12.4 GB\n"
		"step 5 loss 1.9 max memory: 13.1 GB\n";
	/* free memory rising is memory returned */
	static const char *freemem =
		"req 1 done, free memory: 10.1 GB\nreq 2 done, free memory: 10.9 GB\n"
		"req 3 done, free memory: 11.6 GB\nreq 4 done, free memory: 12.4 GB\n"
		"req 5 done, free memory: 13.1 GB\n";
	/* up during a request, back after it: a sawtooth */
	static const char *saw =
		"req 1 memory: 5.0 GB\nreq 1 memory: 6.5 GB\nreq 2 memory: 5.0 GB\n"
		"req 2 memory: 6.5 GB\nreq 3 memory: 5.0 GB\nreq 3 memory: 6.5 GB\n";
	/* the failure's own figures, repeated */
	static const char *oom =
		"RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB; 3.10 GiB memory in use\n"
		"RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB; 3.50 GiB memory in use\n"
		"RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB; 3.90 GiB memory in use\n"
		"RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB; 4.30 GiB memory in use\n";
	const char *const logs[] = { maxmem, freemem, saw, oom, NULL };
	int i;
	(void)state;
	for (i = 0; logs[i]; i++) {
		struct timeline *tl = t_open();
		assert_true(t_parse_mem(tl, "text", "run.log", logs[i], 0) >= 0);
		assert_int_equal(analyze_timeline(tl, NULL), 0);
		assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"), 0);
		t_close(tl);
	}
}

/* Memory printed at the stages of a start-up rises as the model loads:
 * DeepSpeed's see_memory_usage (deepspeed runtime/utils.py@v0.14.0) logs
 * the stage's message, "MA .. GB Max_MA .. GB CA .. GB Max_CA .. GB" and
 * "CPU Virtual Memory:  used = X GB, percent = P%" before and after each
 * ZeRO-3 set-up stage, then the steps run without it. The figures below
 * are made up in that printed form. No sample is numbered and the label
 * names no work: no series, no leak. */
static void startup_stages_not_a_leak(void **state)
{
	static const char *const stage[] = { "Stage 3 initialize beginning",
		"DeepSpeedZeRoOffload initialize [begin]", "DeepSpeedZeRoOffload initialize [end]",
		"Before creating fp16 partitions", "After creating fp16 partitions: 1",
		"Before creating fp32 partitions", "After creating fp32 partitions",
		"Before initializing optimizer states", "After initializing optimizer states",
		"After initializing ZeRO optimizer", NULL };
	char log[8192];
	size_t o = 0;
	int i;
	struct timeline *tl = t_open();
	(void)state;
	for (i = 0; stage[i]; i++)
		o += (size_t)snprintf(log + o, sizeof(log) - o,
				      "[2025-01-01 08:11:%02d,914] [INFO] [utils.py:781:see_memory_usage] %s\n"
				      "[2025-01-01 08:11:%02d,915] [INFO] [utils.py:782:see_memory_usage] MA 0.0 GB"
				      "         Max_MA 1.2 GB         CA 0.0 GB         Max_CA 1 GB \n"
				      "[2025-01-01 08:11:%02d,916] [INFO] [utils.py:789:see_memory_usage] CPU Virtual"
				      " Memory:  used = %.2f GB, percent = %.1f%%\n",
				      i, stage[i], i, i, 7.0 + 12.0 * i, 2.8 + 4.9 * i);
	o += (size_t)snprintf(log + o, sizeof(log) - o,
			      "{'loss': 2.31, 'learning_rate': 1e-05, 'epoch': 0.01}\n"
			      "{'loss': 2.12, 'learning_rate': 1e-05, 'epoch': 0.02}\n");
	assert_true(t_parse_mem(tl, "text", "train.log", log, 0) >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key LIKE 'samples.series.%%'"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(per_request_rising),
		cmocka_unit_test(two_requests_too_few),
		cmocka_unit_test(training_mem_beside_loss),
		cmocka_unit_test(not_memory_held),
		cmocka_unit_test(startup_stages_not_a_leak),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
