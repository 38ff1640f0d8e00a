/*
 * test_pasted_notices.c -- failure notices as users paste them with their
 * prefixes changed or cut, and documentation that only talks about them
 * (held-out set 6, spent round 7, branch w-spent6r): Slurm's step daemon
 * under its node-qualified name ("slurmstepd-NODE: error: Detected N
 * oom-kill event(s) ..."), systemd's unit notice pasted from `systemctl
 * status` without its prefix, MIOpen's "Memory not available to allocate
 * buffer: N", and a reStructuredText page's diff that quotes "CUDA out of
 * memory" and "Killed" to explain them, which is never a log. The lines
 * are those of the threads named beside each test (now under
 * tests/data/incoming/any_stack and tests/data/real/).
 */
#include "testutil.h"
#include "parsers/serving/memfail.h"
#include "parsers/serving/server_log.h"

#include <stdio.h>
#include <string.h>

static int64_t nevents(struct timeline *tl, const char *kind)
{
	return t_int(tl, "SELECT count(*) FROM event WHERE kind = '%s'", kind);
}

/* K-Net #30: a Slurm job log whose step daemon names its node. */
static void slurmstepd_node_prefix(void **state)
{
	static const char text[] =
		"slurmstepd-gpu20-15: error: Detected 1 oom-kill event(s) in StepId=9411285.0. Some of your processes may have been killed by the cgroup out-of-memory handler.\n"
		"srun: error: gpu20-15: task 0: Out Of Memory\n"
		"srun: launch/slurm: _step_signal: Terminating StepId=9411285.0\n"
		"slurmstepd-gpu20-15: error: *** STEP 9411285.0 ON gpu20-15 CANCELLED AT 2022-05-17T17:58:10 ***\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "kernel_log", "s", text, 0) > 0);
	assert_int_equal(nevents(tl, "slurm_oom"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.step') FROM event"
				   " WHERE kind = 'slurm_oom'"), "9411285.0");
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.tasks') FROM event"
				   " WHERE kind = 'slurm_oom'"), "0");
	/* the CANCELLED line, read under the node-qualified name, gave the time */
	assert_true(t_int(tl, "SELECT time_ns FROM event WHERE kind = 'slurm_oom'") > 0);
	t_close(tl);
}

/* A name that only starts like slurmstepd's is not its prefix. */
static void slurmstepd_prefix_needs_colon(void **state)
{
	static const char text[] =
		"slurmstepd-gpu20-15 error Detected 1 oom-kill event(s) in StepId=1.0.\n";
	struct timeline *tl = t_open();
	(void)state;
	t_parse_mem(tl, "kernel_log", "s", text, 0);
	assert_int_equal(nevents(tl, "slurm_oom"), 0);
	t_close(tl);
}

/* llama.cpp #20509: the unit's notice pasted from `systemctl status`,
 * its prefix and unit name cut. */
static void systemd_unit_notice_bare(void **state)
{
	static const char text[] = "A process of this unit has been killed by the OOM killer.\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "kernel_log", "u", text, 0) > 0);
	assert_int_equal(nevents(tl, "systemd_unit_oom"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.killer') FROM event"), "kernel");
	t_close(tl);
}

/* ROCm TensorFlow #30: MIOpen's allocator refusing a buffer over the free
 * memory, the size in bytes after the words. */
static void miopen_memory_not_available(void **state)
{
	static const char line[] =
		"    MIOpen Error: /data/repo/MIOpen/src/hip/handlehip.cpp:68: Memory not available to allocate buffer: 528515072";
	struct memfail mf;
	(void)state;
	assert_int_equal(memfail_line(line, strlen(line), &mf), 1);
	assert_int_equal(mf.family, MF_HIP);
	assert_int_equal(mf.requested_bytes, 528515072);
	assert_int_equal(mf.scope, VSC_GPU);
}

/* monai-physio #126: a troubleshooting page's diff quoting the failures
 * it explains; and the same words in a log with no directive are read. */
static void rst_documentation_is_no_log(void **state)
{
	static const char doc[] =
		"+**Problem**: a run stops with a bare ``Killed`` and no traceback, typically just\n"
		"+after a line of ICON finetuning output:\n"
		"+\n"
		"+.. code-block:: text\n"
		"+\n"
		"+   Killed\n"
		"+\n"
		"+``RuntimeError: CUDA out of memory`` with a Python traceback; ``Killed`` is the\n";
	static const char log[] =
		"RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity)\n";
	(void)state;
	assert_int_equal(server_log_sniff((const unsigned char *)doc, sizeof(doc) - 1), 0);
	assert_true(server_log_sniff((const unsigned char *)log, sizeof(log) - 1) >= 70);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(slurmstepd_node_prefix),
		cmocka_unit_test(slurmstepd_prefix_needs_colon),
		cmocka_unit_test(systemd_unit_notice_bare),
		cmocka_unit_test(miopen_memory_not_available),
		cmocka_unit_test(rst_documentation_is_no_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
