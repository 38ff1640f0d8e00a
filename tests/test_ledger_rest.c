/*
 * test_ledger_rest.c -- the host's ledger says nothing of "the rest" it
 * cannot break down (analyzer/derive/ledger_lines.c ledger_balance).
 *
 * A cgroup account with only a usage figure (a pod's `kubectl top`
 * MEMORY(bytes), no memory.stat) used to print "the rest (kernel memory,
 * sockets, page tables)" equal to all the memory in use: a breakdown
 * claimed where none was read. Real pastes: the healthy corpus's
 * `kubectl top pod --containers` table and hmcts/cnp-flux-config#28772's
 * describe Last State (the OOMKilled kill that makes the incident). With
 * a slice read (a kernel report's task dump) the rest is still told:
 * kubedirector#356's memcg report keeps its "not in any task's RSS" line.
 *
 * Each figure names the paste it came from: a series is one row across
 * artifacts (its artifact_id the first's), so a later paste's sample was
 * credited to the first paste. The kubectl top table pasted again later
 * (its repolite figure edited, 1545Mi to 1890Mi) gives the in-use line,
 * and the source names that later file (sample_block.artifact_id).
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <stdlib.h>
#include <string.h>

#define TOP "tests/data/real/healthy/kubectl-top-pod-containers-go-app-one-table.txt"
#define DESCRIBE "tests/data/real/any_stack/k8s-get-pods-oomkilled-restarts-and-last-state/" \
	"02-describe-last-state.txt"
#define MEMCG "tests/data/real/any_stack/kernel-memcg-oom-kubepods-sacrifice-child-wrapped.log"

static void usage_alone_has_no_rest(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, TOP) >= 0);
	assert_true(t_parse_file(tl, DESCRIBE) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM ledger WHERE scope = 'host'"
			       " AND line = 'in_use'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM ledger WHERE scope = 'host'"
			       " AND line = 'unexplained'"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM ledger WHERE label LIKE '%%the rest%%'"), 0);
	t_close(tl);
}

static void task_dump_keeps_its_rest(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, MEMCG) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT label FROM ledger WHERE scope = 'host'"
				   " AND line = 'unexplained'"),
			    "not in any task's RSS (page cache, kernel memory, shared memory)");
	t_close(tl);
}

static void later_paste_names_itself(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *top = t_slurp(TOP, &n), *fig = strstr(top, "1545Mi");
	(void)state;
	assert_non_null(fig);
	assert_true(t_parse_mem(tl, "stats_table", "inc/01-top.txt", top, n) > 0);
	memcpy(fig, "1890Mi", 6);
	assert_true(t_parse_file(tl, DESCRIBE) >= 0);
	assert_true(t_parse_mem(tl, "stats_table", "inc/03-top-later.txt", top, n) > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT bytes FROM ledger WHERE scope = 'host' AND line = 'in_use'"),
			 1890ll << 20);
	assert_non_null(strstr(t_text(tl, "SELECT source FROM ledger WHERE scope = 'host'"
				      " AND line = 'in_use'"), "(03-top-later.txt)"));
	free(top);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(usage_alone_has_no_rest),
		cmocka_unit_test(task_dump_keeps_its_rest),
		cmocka_unit_test(later_paste_names_itself),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
