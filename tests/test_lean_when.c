/*
 * test_lean_when.c -- when it failed, as cause evidence (rule lean_when,
 * issue 27 round 18): a training loop's own epoch counter past the first
 * epochs above a failure leans leak at 0.35 (the incoming Chainer 5.0
 * ResNet-50 row, "Epoch: [3]" then "out of memory to allocate", whose
 * thread found a leak); the same failure under "Epoch: [0]" stays the
 * first step that does not fit (rule progress). Also the counter reader
 * (parsers/serving/stage_epoch.c) on the loops' wordings.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "parsers/serving/stage_epoch.h"

#include <stdio.h>
#include <string.h>

static struct timeline *run(int epoch)
{
	char log[1024];
	struct timeline *tl = t_open();

	snprintf(log, sizeof(log),
		 "Epoch: [%d] \t Batch_speed: 3158.273 samples/sec\n"
		 "Epoch: [%d] \t Speed: 3099.142 samples/sec \t Time cost=0.323\n"
		 "Exception in main training loop: out of memory to allocate 205520896 bytes"
		 " (total 16068929536 bytes)\n", epoch, epoch);
	assert_true(t_parse_mem(tl, "server_log", "train.log", log, 0) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

static void epoch_three_leans_leak(void **state)
{
	struct timeline *tl = run(3);
	(void)state;
	assert_string_equal(t_text(tl, "SELECT class || ' ' || score FROM finding WHERE rule ="
				   " 'lean_when'"), "leak 0.35");
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.epoch') FROM finding"
			       " WHERE rule = 'lean_when'"), 3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause ="
			       " 'first_step_does_not_fit'"), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	t_close(tl);
}

static void epoch_zero_is_the_first_step(void **state)
{
	struct timeline *tl = run(0);
	(void)state;
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'lean_when'"), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	t_close(tl);
}

static long ep(const char *l)
{
	return stage_epoch(l, strlen(l));
}

static void counter_wordings(void **state)
{
	(void)state;
	assert_int_equal(ep("Epoch: [3] \t Speed: 3099.142 samples/sec"), 3);
	assert_int_equal(ep("Epoch 12/50"), 12);
	assert_int_equal(ep("Epoch 0:   4%|"), 0);
	assert_int_equal(ep("train epoch 7 loss 0.2"), 7);
	assert_int_equal(ep("epochs: 10"), -1);
	assert_int_equal(ep("num_epochs=3"), -1);
	assert_int_equal(ep("Epoch:"), -1);
	assert_int_equal(ep("Starting training"), -1);
	assert_int_equal(ep("Epoch 99999999999"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(epoch_three_leans_leak),
		cmocka_unit_test(epoch_zero_is_the_first_step),
		cmocka_unit_test(counter_wordings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
