/*
 * test_progress_epoch.c -- a training OOM after a whole epoch (rule
 * progress, after_whole_epoch): the HF Trainer's log dicts past epoch
 * 1.0 lean leak at 0.35, with the epoch and the logged steps as its
 * figures; before a whole epoch they stay the late_step reading.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <stdio.h>

static const char *const oom =
	"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 256.00 MiB. GPU 0 has a"
	" total capacity of 23.64 GiB of which 101.06 MiB is free. Including non-PyTorch memory,"
	" this process has 23.53 GiB memory in use. Of the allocated memory 22.10 GiB is"
	" allocated by PyTorch, and 1.01 GiB is reserved by PyTorch but unallocated.\n";

static struct timeline *run(double e0, double e1)
{
	char log[2048];
	struct timeline *tl = t_open();

	snprintf(log, sizeof(log),
		 "{'loss': 2.31, 'grad_norm': 4.1, 'learning_rate': 4e-05, 'epoch': %.2f}\n"
		 "{'loss': 2.12, 'grad_norm': 3.9, 'learning_rate': 3e-05, 'epoch': %.2f}\n%s",
		 e0, e1, oom);
	assert_true(t_parse_mem(tl, "text", "train.log", log, 0) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

static void after_whole_epoch(void **state)
{
	struct timeline *tl = run(1.0, 1.5);
	(void)state;
	assert_string_equal(t_text(tl, "SELECT class || ' ' || score FROM finding WHERE rule ="
				   " 'progress'"), "leak 0.35");
	assert_int_equal(t_int(tl, "SELECT CAST(10 * json_extract(figures, '$.epoch') AS INTEGER)"
			       " FROM finding WHERE cause = 'after_whole_epoch'"), 15);
	t_close(tl);
}

static void within_first_epoch(void **state)
{
	struct timeline *tl = run(0.25, 0.5);
	(void)state;
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'after_whole_epoch'"),
			 0);
	assert_string_equal(t_text(tl, "SELECT cause FROM finding WHERE rule = 'progress'"),
			    "late_step");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(after_whole_epoch),
		cmocka_unit_test(within_first_epoch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
