/*
 * test_server_deepspeed.c -- DeepSpeed's see_memory_usage lines read by
 * the server-log parser (parsers/serving/server_deepspeed.c, issue 27):
 * the allocator's MA / Max_MA / CA / Max_CA of each line become samples
 * of the torch.* series in bytes, a log of them alone is read (it was
 * "not a format oomlens reads"), and no OOM is made of it. Inputs are
 * the real excerpts of tests/data/real (healthy/ and any_stack/).
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <stdlib.h>

#define GiB 1073741824.0

/* A file of the source tree read by the server-log parser (no detection). */
static int parse_log(struct timeline *tl, const char *rel)
{
	return t_parse_file_as(tl, "server_log", rel);
}

/* The value of series name at its nth sample (0: the first). */
static double nth(struct timeline *tl, const char *name, int i)
{
	return t_real(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
		      " WHERE s.name = '%s' ORDER BY time_ns, sample.rowid LIMIT 1 OFFSET %d", name, i);
}

/* ZeRO-3 partitions being created: four device lines, no failure. */
static void partitions_log(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_log(tl, "tests/data/real/healthy/deepspeed-see-memory-usage-partitions.log") > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample JOIN series s ON s.id = series_id"
			       " WHERE s.name = 'torch.reserved_bytes'"), 4);
	assert_true(nth(tl, "torch.reserved_bytes", 0) == 0.77 * GiB);
	assert_true(nth(tl, "torch.reserved_peak_bytes", 0) == 1.0 * GiB);
	assert_true(nth(tl, "torch.allocated_bytes", 0) == 0.0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 0);
	t_close(tl);
}

/* A ZeRO-3 optimizer's set-up with CPU Adam offload: one device line. */
static void stage3_initialize(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_log(tl, "tests/data/real/any_stack/deepspeed-zero3-lora-stage3-initialize.log") > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample"), 4);
	assert_true(nth(tl, "torch.allocated_peak_bytes", 0) == 0.0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(partitions_log),
		cmocka_unit_test(stage3_initialize),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
