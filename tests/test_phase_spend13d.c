/*
 * test_phase_spend13d.c -- the training and evaluation placements learnt
 * from held-out set 13's spent folders (w-spend13d), on the real excerpts
 * now in tests/data/real/any_stack:
 *
 *  - a traceback cut to torch/optim/adamw.py is an optimizer's step:
 *    training_step;
 *  - torch.compile's CUDA graph trees capturing lazily inside a policy's
 *    eval hook: eval, not graph_capture;
 *  - IPython's 280-line verbose traceback: its header and its message are
 *    one failure, placed by the frames (training_step), one OOM event.
 */
#include "testutil.h"

#define ANY "tests/data/real/any_stack/"
#define SWIFT ANY "d-swift-full-sft-mistral-7b-one-a100-adamw-oom-79gib/02-error.txt"
#define OPENPI ANY "c-pytorch-openpi-pi0-robotwin-eval-4-gpus-cudagraph-capture-oom/01-rollout.out"
#define PYG ANY "c-lightning-pyg-gatv2-notebook-rtx3090-training-step-oom-1.32gib/01-GATv2Conv-outputs.txt"

static void optimizer_frame_is_training(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, SWIFT), 0);
	assert_string_equal(t_first_phase(tl), "training_step");
	t_close(tl);
}

static void lazy_graph_capture_is_callers(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, OPENPI), 0);
	assert_string_equal(t_first_phase(tl), "eval");
	t_close(tl);
}

static void ipython_header_and_message_one_failure(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, PYG), 0);
	assert_string_equal(t_first_phase(tl), "training_step");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind IN ('torch_oom', 'mem_failure')"), 1);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(optimizer_frame_is_training),
		cmocka_unit_test(lazy_graph_capture_is_callers),
		cmocka_unit_test(ipython_header_and_message_one_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
