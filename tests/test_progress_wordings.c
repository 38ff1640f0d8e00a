/*
 * test_progress_wordings.c -- the progress and stage lines training and
 * evaluation programs print (round 15, w-wordings16): bars that load or
 * prepare are no work done (server_progress.c load_bar), trainers' step
 * reports (OpenNMT-py, Coqui TTS) are a training loop's progress, the
 * trainers' stage lines place a bare failure (phase_rows_training.inc:
 * transformers' Trainer, Lightning's evaluation bars, Coqui's console
 * logger), and a later statement at Python's prompt ends the stage the
 * earlier one set (server_memfail.c). The shard bar is a real paste
 * (tests/data/real/any_stack); the other lines are each program's own
 * format string filled in (the source cited beside the code), with a
 * PyTorch OOM line under them.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REAL "tests/data/real/any_stack/"

#define TORCH_OOM "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB." \
	" GPU 0 has a total capacity of 23.65 GiB of which 11.56 MiB is free.\n"

static int parse_text(struct timeline *tl, const char *text)
{
	return t_parse_mem(tl, "server_log", "x.log", text, strlen(text));
}

static long long progress_events(struct timeline *tl)
{
	return t_int(tl, "SELECT count(*) FROM event WHERE kind = 'train_progress'");
}

/* LLaMA-Factory #5491: transformers' "Loading checkpoint shards:  42%|
 * ... | 16/38" above the failure is the model's load, not 16 steps of a
 * loop (before: a train_progress event, steps_done 16). */
static void shard_bar_is_no_progress(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(t_parse_file_as(tl, "server_log",
				    REAL "llamafactory-5491-npu-load-state-dict-386mib.log") > 0);
	assert_int_equal(progress_events(tl), 0);
	t_close(tl);
}

/* huggingface_hub's "Fetching N files", datasets' "Map" (its rate in
 * examples/s) and "Generating train split", a tokenisation bar: none is
 * a loop's step; a bar with no such description still is. */
static void preparation_bars_are_no_progress(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_text(tl,
		"Fetching 4 files:  50%|#####     | 2/4 [00:01<00:01,  1.20it/s]\n"
		"Map:  40%|####      | 400/1000 [00:00<00:00, 5000.00 examples/s]\n"
		"Map (num_proc=4):  40%|####      | 400/1000 [00:00<00:00, 5000.00 examples/s]\n"
		"Generating train split:  12%|#         | 120/1000 [00:00<00:01, 800.00 examples/s]\n"
		"Running tokenizer on dataset:  30%|###       | 3/10 [00:01<00:02,  2.9ba/s]\n"
		"Loading safetensors checkpoint shards:  50% Completed | 1/2 [00:03<00:03,  3.1s/it]\n"
		TORCH_OOM) >= 0);
	assert_int_equal(progress_events(tl), 0);
	t_close(tl);
	tl = t_open();
	assert_true(parse_text(tl,
		"Map:  40%|####      | 400/1000 [00:00<00:00, 5000.00 examples/s]\n"
		" 12%|#2        | 60/500 [00:19<02:20,  3.13it/s]\n" TORCH_OOM) >= 0);
	assert_int_equal(progress_events(tl), 1);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.steps_done') FROM event"
			       " WHERE kind = 'train_progress'"), 60);
	t_close(tl);
}

/* OpenNMT-py's "Step %2d/%5d; acc: ..." (onmt/utils/statistics.py
 * Statistics.output) and Coqui TTS's "--> STEP: N/M -- GLOBAL_STEP: G"
 * (TTS/utils/console_logger.py print_train_step): the training loop's
 * own step report, so a bare failure after one is a training step's. */
static void trainer_step_reports(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_text(tl,
		"[2019-05-13 10:01:02,123 INFO] Step  50/ 1000; acc:  10.50; ppl: 900.12; xent: 6.80;"
		" lr: 1.00000; 3000/3100 tok/s;     50 sec\n"
		"[2019-05-13 10:01:52,123 INFO] Step 100/ 1000; acc:  12.50; ppl: 700.12; xent: 6.50;"
		" lr: 1.00000; 3000/3100 tok/s;    100 sec\n" TORCH_OOM) >= 0);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.steps_done') FROM event"
			       " WHERE kind = 'train_progress'"), 100);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.steps_total') FROM event"
			       " WHERE kind = 'train_progress'"), 1000);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE rowid = 1"), "training_step");
	t_close(tl);

	tl = t_open();
	assert_true(parse_text(tl,
		" > TRAINING (2021-06-23 02:52:10) \n"
		"\n"
		"   --> STEP: 24/406 -- GLOBAL_STEP: 25\n"
		"     | > loss: 3.21  (3.40)\n" TORCH_OOM) >= 0);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.steps_done') FROM event"
			       " WHERE kind = 'train_progress'"), 24);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE rowid = 1"), "training_step");
	t_close(tl);

	/* fairseq's SimpleProgressBar.log; its validation's prefix is
	 * another ("valid on 'valid' subset") */
	tl = t_open();
	assert_true(parse_text(tl,
		"2020-11-02 10:01:02 | INFO | train_inner | epoch 001:    100 / 1000 loss=9.21,"
		" ppl=592.1, wps=12000, ups=3.1, wpb=3900, bsz=128, num_updates=100, lr=0.0001\n"
		TORCH_OOM) >= 0);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.steps_done') FROM event"
			       " WHERE kind = 'train_progress'"), 100);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE rowid = 1"), "training_step");
	t_close(tl);
}

/* The trainers' stage lines: a bare failure after an evaluation began is
 * the evaluation's (transformers' "***** Running Evaluation *****",
 * Lightning's "Validation DataLoader 0:" bar, Coqui's " > EVALUATION "). */
static void assert_eval(const char *log)
{
	struct timeline *tl = t_open();

	assert_true(parse_text(tl, log) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE rowid = 1"), "eval");
	t_close(tl);
}

static void evaluation_stage_lines(void **state)
{
	(void)state;
	assert_eval("***** Running training *****\n"
		    "  Num examples = 1000\n"
		    "***** Running Evaluation *****\n"
		    "  Num examples = 200\n"
		    "  Batch size = 8\n" TORCH_OOM);
	assert_eval("Epoch 0: 100%|##########| 50/50 [00:20<00:00,  2.50it/s, v_num=0]\n"
		    "Validation DataLoader 0:  45%|####5     | 45/100 [00:10<00:12,  4.50it/s]\n"
		    TORCH_OOM);
	assert_eval(" > TRAINING (2021-06-23 02:52:10) \n"
		    "   --> STEP: 405/406 -- GLOBAL_STEP: 406\n"
		    " > EVALUATION \n"
		    "\n" TORCH_OOM);
}

/* Python's prompt: the load a first statement named is over once a
 * second statement was typed (CPython prints sys.ps1 only after the one
 * before returned); the failure under the second is not the load's. */
static void repl_next_statement_ends_stage(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_text(tl,
		">>> model = AutoModelForCausalLM.from_pretrained(\"gpt2-xl\", device_map=\"cuda\")\n"
		">>> out = model(**batch)\n" TORCH_OOM) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_not_equal(t_text(tl, "SELECT phase FROM oom WHERE rowid = 1"), "load_weights");
	t_close(tl);
	tl = t_open();
	assert_true(parse_text(tl,
		">>> import torch\n"
		">>> model = AutoModelForCausalLM.from_pretrained(\"gpt2-xl\", device_map=\"cuda\")\n"
		TORCH_OOM) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE rowid = 1"), "load_weights");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shard_bar_is_no_progress),
		cmocka_unit_test(preparation_bars_are_no_progress),
		cmocka_unit_test(trainer_step_reports),
		cmocka_unit_test(evaluation_stage_lines),
		cmocka_unit_test(repl_next_statement_ends_stage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
