/*
 * test_phase_epochs.c -- a loop's own header lines place a failure (round
 * 17, w-phase18), on set 17's spent excerpts in tests/data/incoming:
 *
 *  - Keras's fit prints "Epoch N/M" alone on a line as each epoch begins
 *    (ProgbarLogger.on_epoch_begin): a failure under it, before any bar of
 *    the epoch, is in the training step (Keras 3 on JAX: the jitted
 *    compiled_train_step's first run). Only the whole-line header counts;
 *  - LAVIS's MetricLogger lines of its evaluation loop ("Evaluation
 *    [ 570/1872]  eta: ...") are the evaluation's: no training progress,
 *    and a failure under them is in eval;
 *  - MMEngine's loop lines name their mode ("Epoch(train)", "Epoch(val)",
 *    "Iter(test)"): as mmengine/runner/log_processor.py@b06234c prints
 *    them.
 */
#include "testutil.h"
#include "parsers/serving/memfail.h"

#include <stdlib.h>
#include <string.h>

#define INC "tests/data/incoming/any_stack/"
#define KERAS3 INC "c-keras3-jax-gemma-7b-lora-fit-gpu-bfc-resource-exhausted-3.72gib/01-fit-cell-output.txt"
#define LAVIS INC "c-lavis-sevila-flant5xl-videoqa-eval-sigkill-exitcode-9-no-memory-line/01-output_mixtral_inf.log"

static enum oom_phase line_phase(const char *l)
{
	return memfail_phase_line(l, strlen(l));
}

static void keras_epoch_header_lines(void **state)
{
	(void)state;
	assert_int_equal(line_phase("Epoch 1/10"), OOM_PHASE_TRAINING_STEP);
	assert_int_equal(line_phase("  Epoch 12/100  \r"), OOM_PHASE_TRAINING_STEP);
	/* other lines that hold the phrase name nothing */
	assert_int_equal(line_phase("Epoch 1/10 finished"), OOM_PHASE_UNKNOWN);
	assert_int_equal(line_phase("Epoch 1/"), OOM_PHASE_UNKNOWN);
	assert_int_equal(line_phase("Epoch 3 of 10"), OOM_PHASE_UNKNOWN);
	/* the tqdm bar the row was made for still counts */
	assert_int_equal(line_phase("Epoch 0:   4%|4         | 2/50 [00:03<01:10]"),
			 OOM_PHASE_TRAINING_STEP);
}

static void keras3_fit_under_epoch_header(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_file_as(tl, "server_log", KERAS3) > 0);
	assert_string_equal(t_first_phase(tl), "training_step");
	t_close(tl);
}

/* the same paste with the header line made prose: nothing places it */
static void keras3_without_header_is_unplaced(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *text = t_slurp(KERAS3, &n), *at;

	(void)state;
	assert_non_null(text);
	assert_non_null(at = strstr(text, "Epoch 1/10\n"));
	memcpy(at, "Epoch 1/1x", 10);
	assert_true(t_parse_mem(tl, "server_log", "keras3-edge.txt", text, n) > 0);
	assert_string_equal(t_first_phase(tl), "unknown");
	free(text);
	t_close(tl);
}

static void lavis_evaluation_lines(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(line_phase("Evaluation  [ 570/1872]  eta: 3:12:57    time: 9.6318  "
				    "data: 0.1369  max mem: 17330"),
			 OOM_PHASE_EVAL);
	/* the evaluation's MetricLogger lines are no training loop's bar */
	assert_true(t_parse_file_as(tl, "server_log", LAVIS) >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'train_progress'"), 0);
	t_close(tl);
}

/* an edge case made from the real log: a CUDA OOM line in the evaluation
 * loop's item lines, where the SIGKILL stood */
static void lavis_failure_in_evaluation(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *text = t_slurp_with_line(LAVIS, 238,
				       "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to "
				       "allocate 20.00 MiB (GPU 0; 23.69 GiB total capacity; 22.10 GiB "
				       "already allocated; 19.06 MiB free; 22.80 GiB reserved in total "
				       "by PyTorch)\n",
				       &n);

	(void)state;
	assert_non_null(text);
	assert_true(t_parse_mem(tl, "server_log", "lavis-edge.log", text, n) > 0);
	assert_string_equal(t_first_phase(tl), "eval");
	free(text);
	t_close(tl);
}

static void mmengine_loop_modes(void **state)
{
	struct timeline *tl = t_open();
	static const char log[] =
		"2024/01/05 10:00:01 - mmengine - INFO - Epoch(train)  [1][ 50/500]  "
		"lr: 1.0000e-02  eta: 1:02:03  time: 0.5000  data_time: 0.0100  "
		"memory: 9000  loss: 1.2345\n"
		"2024/01/05 10:05:01 - mmengine - INFO - Epoch(val)  [1][ 50/200]    "
		"eta: 0:01:00  time: 0.2000  data_time: 0.0100  memory: 9100\n"
		"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB "
		"(GPU 0; 23.69 GiB total capacity; 20.10 GiB already allocated; 1.06 GiB "
		"free; 21.80 GiB reserved in total by PyTorch)\n";

	(void)state;
	assert_int_equal(line_phase("2024/01/05 10:00:01 - mmengine - INFO - Epoch(train) "
				    " [1][ 50/500]  lr: 1.0000e-02"),
			 OOM_PHASE_TRAINING_STEP);
	assert_int_equal(line_phase("Iter(train) [  50/1000]  lr: 1.0000e-02"),
			 OOM_PHASE_TRAINING_STEP);
	assert_int_equal(line_phase("Epoch(test) [ 50/500]    eta: 0:01:00"), OOM_PHASE_EVAL);
	assert_int_equal(line_phase("Iter(val) [50/500]    eta: 0:01:00"), OOM_PHASE_EVAL);
	/* a failure under the validation loop's line is the evaluation's */
	assert_true(t_parse_mem(tl, "server_log", "mmengine.log", log, 0) > 0);
	assert_string_equal(t_first_phase(tl), "eval");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keras_epoch_header_lines),
		cmocka_unit_test(keras3_fit_under_epoch_header),
		cmocka_unit_test(keras3_without_header_is_unplaced),
		cmocka_unit_test(lavis_evaluation_lines),
		cmocka_unit_test(lavis_failure_in_evaluation),
		cmocka_unit_test(mmengine_loop_modes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
