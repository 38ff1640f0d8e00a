/*
 * test_phase_spend15d.c -- the training-step placements learnt from
 * held-out set 15's spent folders (w-spend15d), on the real excerpts now
 * in tests/data/real/any_stack:
 *
 *  - a CoreNet training log that prints torch.cuda.memory_summary() when
 *    it catches the OOM, then the traceback through train_epoch and
 *    backward: the summary's "CUDA OOMs" count row, which says no when,
 *    takes the phase the same file's traceback names (it was unknown at
 *    main, and came first);
 *  - a TensorFlow 1.x cifar10 training's last step line ("step N, loss =
 *    X (N examples/sec; N sec/batch)") pasted apart from the
 *    ResourceExhaustedError: the step line is read, and places the
 *    failure in a training step (unknown at main: the paste was skipped).
 */
#include "testutil.h"

#include "analyzer/derive/oom.h"

#define ANY "tests/data/real/any_stack/"
#define CORENET ANY "c-corenet-vit-pretrain-1gpu-24gib-batch1024-checkpoint-recompute-oom/01-ouput_1gpu_1024.log"
#define CIFAR ANY "d-tf-models-cifar10-train-win10-step941580-oom-batch128"

static void oom_count_takes_traceback_phase(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, CORENET), 0);
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE kind = 'torch_oom_count'"),
			    "training_step");
	assert_string_equal(t_text(tl, "SELECT phase_source FROM oom WHERE kind = 'torch_oom_count'"),
			    "same_failure");
	assert_string_equal(t_text(tl, "SELECT group_concat(DISTINCT phase) FROM oom"),
			    "training_step");
	t_close(tl);
}

static void tf_step_line_places_other_paste(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, CIFAR), 0);
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "training_step");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(oom_count_takes_traceback_phase),
		cmocka_unit_test(tf_step_line_places_other_paste),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
