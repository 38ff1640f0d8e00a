/*
 * test_oom_same_line.c -- one line read by two readers is one OOM row
 * (analyzer/derive/oom_same.c, derive_oom_same_line; issue 27, round 15,
 * fallback16). A training job's output ending in slurmstepd's "Job N
 * exceeded memory limit (A > B), being killed" is read by the kernel
 * reader's Slurm row (slurm_oom: the job, the limit, the peak) and by
 * the server reader's generic memory-failure words (mem_failure, family
 * host, placed in the training step by the loop's lines above it): two
 * rows of one failure before, one now, the Slurm row's own fields kept
 * and the phase the other placed it in taken. Real paste:
 * coqui-ai/STT (tests/data/real/any_stack, its MANIFEST row).
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#define COQUI "tests/data/real/any_stack/d-slurm-coqui-stt-train-job-exceeded-memory-limit-512mb/"

static void slurm_kill_read_twice_is_one_row(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, COQUI "01-train-slurm.log"), 0);
	/* both readers read the file and each kept its record of the line */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM artifact"), 2);
	assert_int_equal(t_int(tl, "SELECT count(DISTINCT kind) FROM event WHERE line = 4"
			       " AND kind IN ('slurm_oom', 'mem_failure')"), 2);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 1);
	assert_string_equal(t_text(tl, "SELECT kind FROM oom"), "slurm_oom");
	assert_string_equal(t_text(tl, "SELECT phase FROM oom"), "training_step");
	assert_string_equal(t_text(tl, "SELECT family FROM oom"), "host");
	assert_int_equal(t_int(tl, "SELECT json_array_length(evidence) FROM oom"), 2);
	/* the Slurm row's own figures stay: the job and its limit */
	assert_string_equal(t_text(tl, "SELECT json_extract(e.data, '$.job_id') FROM oom o"
				   " JOIN event e ON e.id = o.event_id"), "7518");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(slurm_kill_read_twice_is_one_row),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
