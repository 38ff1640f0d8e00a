/*
 * test_inference_runs.c -- the phase of a failure in a program that only
 * runs inference (issue 27, set 12 spent, w-spend12d):
 *
 *  - a launch command of an inference-only CLI (OpenNMT-py's translate.py,
 *    parsers/serving/launch_table.c) pasted beside a bare OOM places it
 *    in eval (analyzer/derive/oom_paste.c, phase_source launch_command):
 *    the real folder tests/data/real/any_stack/d-opennmt-py-translate-
 *    batch-size-oom-12gb (OpenNMT/OpenNMT-py#1473); a trainer's command
 *    (torchrun) places nothing;
 *  - a later numbered paste of a translation pass (transformers'
 *    TranslationPipeline warnings, phase_rows_frameworks.inc) that ends in
 *    eval, holds no failure and no training loop places the untimed OOM
 *    pasted before it: the real folder d-machinepy-nllb-pretranslate-
 *    3090-batch-oom-backoff (sillsdev/machine.py#52); with a training
 *    loop's progress in that paste it does not;
 *  - a generate() called by a function that takes a chat's messages is a
 *    conversation's turn, serving, not the generic evaluation.
 */
#include "testutil.h"
#include "analyzer/derive/oom.h"
#include "parsers/serving/memfail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"
#define ONMT ANY "d-opennmt-py-translate-batch-size-oom-12gb"
#define MPY ANY "d-machinepy-nllb-pretranslate-3090-batch-oom-backoff"

/* the real OOM line of ONMT's 01-error.txt */
static const char oom[] =
	"RuntimeError: CUDA out of memory. Tried to allocate 8.76 GiB (GPU 0; 11.91 GiB total"
	" capacity; 10.59 GiB already allocated; 505.06 MiB free; 234.02 MiB cached)\n";
/* a real warning line of MPY's 02-more-errors.txt */
static const char warn[] =
	"Your input_length: 200 is bigger than 0.9 * max_length: 200. You might consider"
	" increasing your max_length manually, e.g. translator('...', max_length=400)\n";

static void translate_command_places_eval(void **state)
{
	struct timeline *tl = t_open();
	char *want = strdup(t_src(ONMT "/02-command.sh"));

	(void)state;
	assert_true(t_parse_file(tl, ONMT) >= 0);
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key = 'launch.phase'"), "eval");
	t_expect_oom(tl, "eval", "launch_command", want);
	free(want);
	t_close(tl);
}

static void trainer_command_places_nothing(void **state)
{
	static const char cmd[] = "torchrun --nproc_per_node 1 train.py --batch_size 64\n";
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_mem(tl, "launch_config", "inc/02-command.sh", cmd, strlen(cmd)) >= 0);
	assert_true(t_parse_mem(tl, "server_log", "inc/01-error.txt", oom, strlen(oom)) > 0);
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "unknown");
	t_close(tl);
}

static void translation_pass_pasted_after(void **state)
{
	struct timeline *tl = t_open();
	char *want = strdup(t_src(MPY "/02-more-errors.txt"));

	(void)state;
	assert_true(t_parse_file(tl, MPY) >= 0);
	t_expect_oom(tl, "eval", "other_paste_order", want);
	free(want);
	t_close(tl);
}

static void pass_with_training_places_nothing(void **state)
{
	static const char log[] =
		"{'loss': 2.1042, 'learning_rate': 4.9e-05, 'epoch': 0.12}\n"
		"{'loss': 1.8731, 'learning_rate': 4.8e-05, 'epoch': 0.24}\n";
	char text[512];
	struct timeline *tl = t_open();

	(void)state;
	snprintf(text, sizeof(text), "%s%s", log, warn);
	assert_true(t_parse_mem(tl, "server_log", "inc/01-error.txt", oom, strlen(oom)) > 0);
	assert_true(t_parse_mem(tl, "server_log", "inc/02-run.log", text, strlen(text)) >= 0);
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "unknown");
	t_close(tl);
}

static void chat_turn_is_serving(void **state)
{
	static const char t[] =
		"Cell In[106], line 15, in get_response(messages)\n"
		"---> 15     outputs = model.generate(input_ids=inputs[\"input_ids\"].to(\"cuda\"))\n"
		"File /venv/lib/python3.8/site-packages/transformers/generation/utils.py:2048,"
		" in GenerationMixin.generate(self, inputs)\n"
		"-> 2048     result = self._sample(\n"
		"OutOfMemoryError: CUDA out of memory. Tried to allocate 2.68 GiB.\n";
	static const char alone[] =
		"Cell In[106], line 15, in run_batch(batch)\n"
		"---> 15     outputs = model.generate(input_ids=inputs[\"input_ids\"].to(\"cuda\"))\n"
		"File /venv/lib/python3.8/site-packages/transformers/generation/utils.py:2048,"
		" in GenerationMixin.generate(self, inputs)\n"
		"-> 2048     result = self._sample(\n"
		"OutOfMemoryError: CUDA out of memory. Tried to allocate 2.68 GiB.\n";

	/* round 18 (w-phase19): generate() under a frame that says an
	 * evaluation is the evaluation's; under no such word (an offline
	 * batch loop, run_batch above) it is inference, serving-like (set
	 * 18's offline generation loops) -- it was eval before */
	static const char in_eval[] =
		"Cell In[106], line 15, in evaluate_batch(batch)\n"
		"---> 15     outputs = model.generate(input_ids=inputs[\"input_ids\"].to(\"cuda\"))\n"
		"File /venv/lib/python3.8/site-packages/transformers/generation/utils.py:2048,"
		" in GenerationMixin.generate(self, inputs)\n"
		"-> 2048     result = self._sample(\n"
		"OutOfMemoryError: CUDA out of memory. Tried to allocate 2.68 GiB.\n";
	static const char harness[] =
		"  File \"/usr/lib/python3/site-packages/lm_eval/evaluator.py\", line 415, in evaluate\n"
		"    resps = getattr(lm, reqtype)(cloned_reqs)\n"
		"  File \"/usr/lib/python3/site-packages/lm_eval/models/huggingface.py\", line 1270, in generate_until\n"
		"    cont = self._model_generate(\n"
		"  File \"/usr/lib/python3/site-packages/transformers/generation/utils.py\", line 1758, in generate\n"
		"    result = self._sample(\n"
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n";

	(void)state;
	assert_int_equal(memfail_phase_hint(t, strlen(t)), OOM_PHASE_SERVING);
	assert_int_equal(memfail_phase_hint(alone, strlen(alone)), OOM_PHASE_SERVING);
	assert_int_equal(memfail_phase_hint(in_eval, strlen(in_eval)), OOM_PHASE_EVAL);
	assert_int_equal(memfail_phase_hint(harness, strlen(harness)), OOM_PHASE_EVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(translate_command_places_eval),
		cmocka_unit_test(trainer_command_places_nothing),
		cmocka_unit_test(translation_pass_pasted_after),
		cmocka_unit_test(pass_with_training_places_nothing),
		cmocka_unit_test(chat_turn_is_serving),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
