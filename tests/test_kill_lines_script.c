/*
 * test_kill_lines_script.c -- a "Killed process N" line the kernel did
 * not print (parsers/kernel/kernel_oom_kill.c victim_is_kernels): the
 * kernel names the victim's comm in parentheses after its pid in every
 * version (mm/oom_kill.c "Killed process %d (%s)"), after its own prefix.
 * Set 13's healthy c-leanagent paste (spent round 12, w-spend13a): a
 * user's ppl_gpus.py printing "Killed process PID" for each GPU process
 * it kill(2)ed, beside nvidia-smi tables, was read as nine OOM kills and
 * named misconfig (cuda_context_explosion).
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <string.h>

/* A script's bare lines: no OOM kill. */
static void bare_lines_no_kill(void **state)
{
	static const char log[] = "Killed process 2277299\n"
				  "Killed process 2277848\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "kernel_log", "script.txt", log, sizeof(log) - 1) >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'oom_kill'"), 0);
	t_close(tl);
}

/* The kernel's lines still are kills: with the comm, and without it
 * after the kernel's own prefix (a paste that lost the rest). */
static void kernel_lines_kill(void **state)
{
	static const char log[] =
		"[ 4600.100000] Out of memory: Killed process 4312 (python3) total-vm:36000000kB,"
		" anon-rss:28000000kB, file-rss:0kB, shmem-rss:0kB\n"
		"[ 9600.100000] Out of memory: Killed process 5120\n"
		"[ 9900.100000] Killed process 6144 (java)\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "kernel_log", "dmesg.txt", log, sizeof(log) - 1) >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'oom_kill'"), 3);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind = 'oom_kill' AND pid = 4312"),
			    "python3");
	t_close(tl);
}

/* The real paste, whole: no OOM row, verdict no_oom. */
static void leanagent_paste_healthy(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, "tests/data/real/healthy/"
				 "c-leanagent-ppl-gpus-script-killed-process-lines-nvidia-smi.txt") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bare_lines_no_kill),
		cmocka_unit_test(kernel_lines_kill),
		cmocka_unit_test(leanagent_paste_healthy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
