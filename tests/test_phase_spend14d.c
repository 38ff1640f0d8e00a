/*
 * test_phase_spend14d.c -- the evaluation placement learnt from held-out
 * set 14's spent folders (w-spend14d), on the real excerpt now in
 * tests/data/real/any_stack:
 *
 *  - a quoted OpenNMT-py traceback cut at trainer.py's train() frame,
 *    whose source line calls "self.validate(valid_iter)": the call names
 *    the validation pass, inner to "in train", so the OOM is eval (it was
 *    training_step at main).
 */
#include "testutil.h"

#define ANY "tests/data/real/any_stack/"
#define ONMT ANY "d-opennmt-conv2conv-validation-10000-steps-oom-valid-batch-size/01-train-log.txt"

static void validate_call_in_train_is_eval(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, ONMT), 0);
	assert_string_equal(t_first_phase(tl), "eval");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(validate_call_in_train_is_eval),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
