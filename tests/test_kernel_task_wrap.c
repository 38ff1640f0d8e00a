/*
 * test_kernel_task_wrap.c -- the kernel's OOM task table folded by a
 * collector at 80 or 120 columns (issue 27, round 14, killed15;
 * parsers/kernel/kernel_oom_wrap.c KW_TASK). A fold cuts nearly every row
 * "[  pid]   uid  tgid total_vm rss ... oom_score_adj name" before its
 * name, often inside a figure ("-1" / "000 systemd-udevd"), and puts the
 * rest in column 0 with no stamp. Before, the folded table of the real
 * 3.12 report (lore.kernel.org, linux-mm 2013-11-15) read no row and the
 * Triton memcg report's none either. Now each row is joined back: the
 * same rows (pid, name, rss) as the unfolded report, and no false row.
 * Only the wrapping is made here (as fold -w does, byte for byte); the
 * reports are real (tests/data/real/gpu_host, MANIFEST.tsv).
 */
#include "testutil.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define R "tests/data/real/gpu_host/"

/* text (n bytes) with every line cut into pieces of width bytes, as
 * fold -w width does for ASCII; caller frees. */
static char *fold(const char *text, size_t n, size_t width, size_t *on)
{
	char *o = malloc(n + n / width + 2);
	size_t i, k = 0, col = 0;

	assert_non_null(o);
	for (i = 0; i < n; i++) {
		if (text[i] == '\n') {
			col = 0;
		} else if (col == width) {
			o[k++] = '\n';
			col = 0;
		}
		if (text[i] != '\n')
			col++;
		o[k++] = text[i];
	}
	*on = k;
	return o;
}

/* The rows read from text, as one line: count, pids, names, rss. */
static void rows(const char *text, size_t n, char *out, size_t cap)
{
	struct timeline *tl = t_open();

	assert_true(t_parse_mem(tl, "kernel_log", "k", text, n) >= 0);
	snprintf(out, cap, "%s", t_text(tl, "SELECT count(*) || ':' || group_concat(pid || '/' ||"
					 " name || '/' || rss_pages, ' ') FROM (SELECT * FROM task"
					 " ORDER BY pid, name)"));
	t_close(tl);
}

static void folded_table_reads_as_unfolded(const char *path, size_t width, int nrows)
{
	char want[8192], got[8192], count[16];
	size_t n, fn;
	char *text = t_slurp(path, &n), *f = fold(text, n, width, &fn);

	rows(text, n, want, sizeof(want));
	rows(f, fn, got, sizeof(got));
	free(text);
	free(f);
	snprintf(count, sizeof(count), "%d:", nrows);
	assert_true(!strncmp(want, count, strlen(count)));
	assert_string_equal(got, want);
}

static void sacrifice_child_3_12_at_80(void **state)
{
	(void)state;
	folded_table_reads_as_unfolded(R "kernel-oom-3.12-sacrifice-child-bash-sudo.log", 80, 29);
}

static void sacrifice_child_3_12_at_120(void **state)
{
	(void)state;
	folded_table_reads_as_unfolded(R "kernel-oom-3.12-sacrifice-child-bash-sudo.log", 120, 29);
}

/* An excerpt with no "invoked oom-killer" header: at 120 columns the
 * table's header keeps its "oom_score_adj" and opens the report. (At 80
 * it loses it, and the kernel reader's line filter drops the table: a
 * known limit.) */
static void triton_memcg_at_120(void **state)
{
	(void)state;
	folded_table_reads_as_unfolded(R "kernel-oom-memcg-tritonserver-k8s.log", 120, 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sacrifice_child_3_12_at_80),
		cmocka_unit_test(sacrifice_child_3_12_at_120),
		cmocka_unit_test(triton_memcg_at_120),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
