/*
 * test_bfc_summary.c -- the BFC allocator's summary alone read as the
 * failure it reports (issue 27, round 14, killed15; memfail_words.c).
 * TensorFlow's, XLA's and EXLA's BFC allocator prints "total_region_
 * allocated_bytes_: N memory_limit_: L available bytes: A ..." only when
 * an allocation failed (BFCAllocator::DumpMemoryLog, bfc_allocator.cc).
 * The real paste of elixir-nx/bumblebee #203 keeps the summary and cuts
 * the failure's own line: it was read as nothing. Now one mem_failure of
 * family tf_bfc with the limit (total) and what was left (free); where
 * the failure's line is there (TensorFlow 1.x, the c3d Keras job), the
 * summary continues it and adds no second failure.
 */
#include "testutil.h"

#include <stdint.h>
#include <stdlib.h>

static void summary_alone_is_the_failure(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	t_parse_file_as(tl, "server_log", "tests/data/incoming/any_stack/"
			"a-bumblebee-finetune-t4-exla-bfc-exhausted-epoch2/01-iex-snippet.txt");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'mem_failure'"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.family') FROM event"
				   " WHERE kind = 'mem_failure'"), "tf_bfc");
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.total_bytes') FROM event"
			       " WHERE kind = 'mem_failure'"), 14019467673LL);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.free_bytes') FROM event"
			       " WHERE kind = 'mem_failure'"), 153);
	t_close(tl);
}

/* The c3d job's log with the summary's region line as later releases
 * print it between "Sum Total" and "Stats:" (line 202 of the real file;
 * bfc_allocator.cc@v2.4.0): still the one failure held, two in all. */
static void summary_after_its_failure_adds_none(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *text = t_slurp_with_line("tests/data/real/any_stack/"
				       "c-keras-tf1-c3d-fit-generator-titanxp-oom-2.39gib/01-job.err", 202,
				       "2019-05-09 14:49:11.318440: I tensorflow/core/common_runtime/"
				       "bfc_allocator.cc:646] total_region_allocated_bytes_: 11916971213"
				       " memory_limit_: 11916971213 available bytes: 0"
				       " curr_region_allocation_bytes_: 23833942426\n", &n);

	(void)state;
	t_parse_mem(tl, "server_log", "c3d", text, n);
	free(text);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'mem_failure'"), 2);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summary_alone_is_the_failure),
		cmocka_unit_test(summary_after_its_failure_adds_none),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
