/*
 * test_server_progress.c -- a training loop's progress in a plain log
 * (parsers/serving/server_progress.c), the load at the OOM derived from
 * it (table oom_load, analyzer/derive/load.c) and the rule that judges
 * by it (analyzer/rules/progress.c): real excerpts of
 * tests/data/real/any_stack (issue 27 item 3), and edge cases the corpus
 * has no line for (bars glued by carriage returns, a finished bar, an
 * engine's own bars); DeepSpeed's step lines and the HF Trainer's log
 * dicts (tests/data/real/healthy, any_stack).
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REAL "tests/data/real/any_stack/"

/* A file of the source tree read by the server-log parser (no detection). */
static int parse_log(struct timeline *tl, const char *rel)
{
	return t_parse_file_as(tl, "server_log", rel);
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

/* I-JEPA's descendants: '[1,    50/ 3843] ... [mem: 5.27e+04]', the
 * step padded after the '/' and the peak in scientific notation, rising
 * every 50 steps to the OOM at 2300: a creep, the verdict leak. */
static void ijepa_mem_creep(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_log(tl, REAL "c-pytorch-ijepa-vith14-fgdcc-plantnet-mem-rising-per-50-iters-"
			      "leak/01-slurm-2932.out") > 0);
	assert_int_equal(PROGRESS(tl, "steps_done"), 2300);
	assert_int_equal(PROGRESS(tl, "steps_total"), 3843);
	assert_int_equal(PROGRESS(tl, "first_step"), 0);
	assert_int_equal(PROGRESS(tl, "max_mem_first_mb"), 46400);
	assert_int_equal(PROGRESS(tl, "max_mem_last_mb"), 75900);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "step_memory_creep");
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
 * only, with 100 requests queued beside the 256 running and the KV pool
 * at 65%: more arrived than the engine runs at once, a likely spike
 * (rule queued; round 12: was a reading with no class; the thread
 * calls it a concurrency spike at max_num_seqs). */
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
	assert_int_equal(t_int(tl, "SELECT round(score * 100) FROM finding"
				   " WHERE rule = 'queued' AND class = 'spike'"), 62);
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.waiting') FROM finding"
				   " WHERE rule = 'queued'"), 100);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "spike");
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

#define HEALTHY "tests/data/real/healthy/"

/* T5-11B under the Trainer and DeepSpeed (a run that trains): the bar
 * glued to DeepSpeed's "step=2000" line gives the steps; the Trainer's
 * dicts the epoch and how many were logged. No OOM: no verdict but
 * no_oom, no oom_load row. */
static void trainer_dicts_and_deepspeed_step(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_log(tl, HEALTHY "hf-trainer-deepspeed-t5-11b-step-2000-loss-dicts.log") > 0);
	assert_int_equal(PROGRESS(tl, "steps_done"), 1999);
	assert_int_equal(PROGRESS(tl, "steps_total"), 24128);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.step_source') FROM event"
				   " WHERE kind = 'train_progress'"), "bar");
	assert_int_equal(PROGRESS(tl, "logged_steps"), 4);
	assert_int_equal(t_int(tl, "SELECT round(json_extract(data, '$.epoch') * 100) FROM event"
			       " WHERE kind = 'train_progress'"), 8);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom_load"), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	t_close(tl);
}

/* DeepSpeed's step line alone (the line of that thread without the bar
 * glued to it): the global step, no total; a "global_step=" of another
 * logger and a step line with no ", skipped=" are not it. */
static void deepspeed_step_alone(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_text(tl, "[2021-11-22 19:51:55,198] [INFO] [logging.py:69:log_dist]"
			       " [Rank 0] step=2000, skipped=1999, lr=[0.0, 0.0], mom=[0.0, 0.0]\n"
			       "[2021-11-22 19:51:55,199] [INFO] [timer.py:181:stop] 0/2000,"
			       " SamplesPerSec=9.546767962244255\n"
			       "epoch=0/micro_step=10/global_step=4000, skipped=3\n") > 0);
	assert_int_equal(PROGRESS(tl, "steps_done"), 2000);
	assert_int_equal(PROGRESS(tl, "first_step"), 2000);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.steps_total') IS NULL FROM event"
			       " WHERE kind = 'train_progress'"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.step_source') FROM event"
				   " WHERE kind = 'train_progress'"), "deepspeed");
	t_close(tl);
}

/* pyreft's Trainer dicts, epoch 0.06 to 0.13: no bar, no step; eight
 * logged training steps. */
static void trainer_dicts_alone(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_log(tl, REAL "hf-trainer-pyreft-loss-dicts-epoch-0.13-memory-issue.log") > 0);
	assert_int_equal(PROGRESS(tl, "logged_steps"), 8);
	assert_int_equal(t_int(tl, "SELECT round(json_extract(data, '$.epoch') * 100) FROM event"
			       " WHERE kind = 'train_progress'"), 13);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.steps_done') IS NULL FROM event"
			       " WHERE kind = 'train_progress'"), 1);
	t_close(tl);
}

/* The Trainer's dicts then an OOM (pyreft's dicts, the OOM message of
 * haotian-liu/LLaVA#1152, a Trainer finetune): past the first steps, so
 * not "the first step does not fit"; a reading that says the epoch. */
static void trainer_dicts_then_oom(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *dicts = t_slurp(REAL "hf-trainer-pyreft-loss-dicts-epoch-0.13-memory-issue.log", &n);
	char *text = malloc(n + 512);
	(void)state;

	assert_non_null(dicts);
	assert_non_null(text);
	snprintf(text, n + 512, "%s\nTraceback (most recent call last):\n"
		 "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 284.00 MiB"
		 " (GPU 0; 31.75 GiB total capacity; 27.12 GiB already allocated; 99.50 MiB"
		 " free; 30.44 GiB reserved in total by PyTorch)\n", dicts);
	assert_true(parse_text(tl, text) > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT doing FROM oom_load"), "training");
	assert_int_equal(t_int(tl, "SELECT at_start FROM oom_load"), 0);
	assert_int_equal(t_int(tl, "SELECT logged_steps FROM oom_load"), 8);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'progress'"
			       " AND cause = 'late_step' AND title LIKE '%%epoch 0.13%%'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding"
			       " WHERE cause = 'first_step_does_not_fit'"), 0);
	free(dicts);
	free(text);
	t_close(tl);
}

/* text-generation-webui's training tab ("Running… 128 / 7296 …",
 * modules/training.py do_train) is drawn by a training loop only: the
 * OOM after it is placed in the training step without a launch config
 * (round 10); tqdm's bar alone says only that a loop ran. */
static void trainer_own_bar_places_step(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_log(tl, REAL "textgen-lora-training-128-of-7296-checkpoint-oom.log") > 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.loop') FROM event"
				   " WHERE kind = 'train_progress'"), "training");
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE rowid = 1"), "training_step");
	t_close(tl);
	tl = t_open();
	assert_true(parse_log(tl, REAL "torch-gpt2-finetune-iteration-989-of-5070-glued-oom.log") > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'train_progress'"
			       " AND json_extract(data, '$.loop') IS NOT NULL"), 0);
	t_close(tl);
}

/* A load, then the failure's traceback, then a bar of another process
 * of the same run (lm-evaluation-harness's "Running generate_until
 * requests", lm_eval/evaluator.py@v0.4.2, drawn by tqdm) printed just
 * after it: the bar does not end the load the failure happened in.
 * The shape of set 15's BitDistiller row (a model quantised as it loads
 * while another process evaluates), written here in the printed forms
 * with made-up paths and figures. */
static void bar_after_traceback_keeps_load(void **state)
{
	struct timeline *tl = t_open();
	static const char *log =
		"Loading checkpoint shards:   0%|          | 0/4 [00:00<?, ?it/s]"
		"Loading checkpoint shards: 100%|##########| 4/4 [00:04<00:00,  1.05s/it]\n"
		"Quantizing:   0%|          | 0/32 [00:00<?, ?it/s]"
		"Quantizing:  16%|#6        | 5/32 [00:00<00:03,  7.92it/s]\n"
		"Traceback (most recent call last):\n"
		"  File \"/srv/q/test_task.py\", line 217, in main\n"
		"    quant_model(model)\n"
		"  File \"/srv/q/qlinear.py\", line 136, in quant_tensor\n"
		"    x = torch.ones_like(x) * 15.0\n"
		"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB."
		" GPU 1 has a total capacty of 23.64 GiB of which 45.69 MiB is free.\n"
		"Running generate_until requests:   2%|2         | 7/300 [01:38<1:18:21, 16.05s/it]\n";
	(void)state;
	assert_true(parse_text(tl, log) > 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.phase') FROM event"
				   " WHERE kind = 'torch_oom'"), "load_weights");
	t_close(tl);
}

/* Round 18 (w-phase19): diffusers' DiffusionPipeline.from_pretrained
 * draws "Loading pipeline components...: N%|" while it loads the
 * pipeline's modules (src/diffusers/pipelines/pipeline_utils.py); a
 * failure under that bar, no other bar after it, is the load. Once the
 * denoising loop's bar was drawn, even finished ("100%| 50/50"), the
 * load is over: a failure in the VAE's decode after it is not the
 * load's. The printed forms, with made-up paths and figures. */
static void diffusers_pipeline_load_then_loop(void **state)
{
	static const char *load =
		"Loading pipeline components...:  57%|#####7    | 4/7 [00:02<00:01,  1.91it/s]\n"
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 90.00 MiB."
		" GPU 0 has a total capacity of 23.55 GiB of which 61.50 MiB is free.\n";
	static const char *loop =
		"Loading pipeline components...: 100%|##########| 7/7 [00:03<00:00,  2.01it/s]\n"
		"100%|##########| 50/50 [00:12<00:00,  4.01it/s]\n"
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 8.00 GiB."
		" GPU 0 has a total capacity of 23.55 GiB of which 3.50 GiB is free.\n";
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_text(tl, load) > 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.phase') FROM event"
				   " WHERE kind = 'torch_oom'"), "load_weights");
	t_close(tl);
	tl = t_open();
	assert_true(parse_text(tl, loop) > 0);
	assert_string_equal(t_text(tl, "SELECT coalesce(json_extract(data, '$.phase'), 'none')"
				   " FROM event WHERE kind = 'torch_oom'"), "unknown");
	t_close(tl);
}

/* Round 18 (w-phase19): a script's loop over a dataset calling
 * transformers' generate: under a bare bar it is inference, serving-like;
 * under a bar whose words say an evaluation ("Evaluating: 37%|"), the
 * evaluation's. Printed forms, made-up paths and figures. */
static void generate_loop_bar_words(void **state)
{
	static const char *tail =
		"Traceback (most recent call last):\n"
		"  File \"/home/u/run_dataset.py\", line 58, in <module>\n"
		"    outputs = model.generate(**inputs, max_new_tokens=512)\n"
		"  File \"/venv/lib/python3.10/site-packages/transformers/generation/utils.py\","
		" line 1758, in generate\n"
		"    result = self._sample(\n"
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
		" GPU 0 has a total capacity of 23.55 GiB of which 1.50 GiB is free.\n";
	static const char *const bars[] = {
		" 37%|###7      | 370/1000 [12:31<21:20,  2.03s/it]\n",
		"Evaluating:  37%|###7      | 370/1000 [12:31<21:20,  2.03s/it]\n",
	};
	static const char *const want[] = { "serving", "eval" };
	char text[2048];
	size_t i;
	(void)state;

	for (i = 0; i < 2; i++) {
		struct timeline *tl = t_open();
		snprintf(text, sizeof(text), "%s%s", bars[i], tail);
		assert_true(parse_text(tl, text) > 0);
		assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.phase') FROM event"
					   " WHERE kind = 'torch_oom'"), want[i]);
		t_close(tl);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(glued_bar_late_oom),
		cmocka_unit_test(first_step_misconfig),
		cmocka_unit_test(logger_max_mem),
		cmocka_unit_test(ijepa_mem_creep),
		cmocka_unit_test(carriage_returns_and_finished),
		cmocka_unit_test(engine_bars_dropped),
		cmocka_unit_test(serving_load_one_line),
		cmocka_unit_test(serving_kv_full),
		cmocka_unit_test(trainer_dicts_and_deepspeed_step),
		cmocka_unit_test(deepspeed_step_alone),
		cmocka_unit_test(trainer_dicts_alone),
		cmocka_unit_test(trainer_dicts_then_oom),
		cmocka_unit_test(trainer_own_bar_places_step),
		cmocka_unit_test(bar_after_traceback_keeps_load),
		cmocka_unit_test(diffusers_pipeline_load_then_loop),
		cmocka_unit_test(generate_loop_bar_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
