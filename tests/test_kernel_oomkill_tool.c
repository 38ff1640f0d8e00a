/*
 * test_kernel_oomkill_tool.c -- the eBPF OOM-kill tracers' line (bcc
 * tools/oomkill.py and libbpf-tools oomkill, bpftrace tools/oomkill.bt)
 * read by the kernel log parser (kernel_oom_kill.c m_oomkill_tool), on the
 * real pastes of tests/data/real/any_stack:
 *
 *  - libbpf-tools' "Triggered by PID 636163 ("perf"), OOM kill of PID
 *    636163 ("mysql"), 321382 pages, loadavg: ..." is an oom_kill event
 *    of mysql, its invoker perf, the pages kept as the OOM context's
 *    total (not the victim's RSS), and an OOM row of the host;
 *  - bpftrace's memcg variant names the cgroup that hit its limit
 *    ("unified:/oom-test"), kept as the kill's oom_memcg;
 *  - a line that names a trigger but no kill (an edge case: the paste
 *    cut before ", OOM kill of PID") is no kill.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <stdlib.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"
#define BCC ANY "bcc-libbpf-oomkill-mysql-triggered-by-perf.log"
#define BPFTRACE ANY "bpftrace-oomkill-memcg-cgroup-v2-2mib-oom-minimal/02-oomkill-bt.log"

static void libbpf_tools_line_is_a_kill(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, BCC), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'oom_kill'"), 1);
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind = 'oom_kill'"), 636163);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind = 'oom_kill'"), "mysql");
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.invoker.comm') FROM event"
				   " WHERE kind = 'oom_kill'"), "perf");
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.oom_total_pages') FROM event"
			       " WHERE kind = 'oom_kill'"), 321382);
	/* the pages are the context's, not what the kill freed */
	assert_int_equal(t_int(tl, "SELECT bytes IS NULL FROM event WHERE kind = 'oom_kill'"), 1);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT scope FROM oom WHERE id = 1"), "host");
	t_close(tl);
}

static void bpftrace_memcg_variant_names_the_cgroup(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_file_as(tl, "kernel_log", BPFTRACE) > 0);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind = 'oom_kill'"),
			    "oom_minimal");
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.oom_memcg') FROM event"
				   " WHERE kind = 'oom_kill'"), "unified:/oom-test");
	t_close(tl);
}

static void a_trigger_without_a_kill_is_none(void **state)
{
	size_t n;
	char *text = t_slurp(BCC, &n), *cut = strstr(text, ", OOM kill of PID");
	struct timeline *tl = t_open();

	(void)state;
	assert_non_null(cut);
	t_parse_mem(tl, "kernel_log", "cut.log", text, (size_t)(cut - text));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'oom_kill'"), 0);
	t_close(tl);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(libbpf_tools_line_is_a_kill),
		cmocka_unit_test(bpftrace_memcg_variant_names_the_cgroup),
		cmocka_unit_test(a_trigger_without_a_kill_is_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
