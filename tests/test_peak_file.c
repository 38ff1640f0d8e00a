/*
 * test_peak_file.c -- a peak names the paste it came from (schema 9:
 * sample_block.artifact_id, peak.file).
 *
 * A series is one row across the pastes of an incident (its own
 * artifact_id the first paste's), so a figure read in a later paste used
 * to be credited to the first one: the `peak` row and every report named
 * the wrong file. Each block of samples now carries the artifact whose
 * reading wrote it, and the peak, the ledger, the samples rule and the
 * reports name that.
 *
 * Real pastes: vllm-project/vllm#2345 (tests/data/real/any_stack/
 * a-vllm-0.2.7-ray-worker-rss-grows-over-hours: three `ps aux` pastes,
 * start, +2 h, +3 h; the Ray worker pid 1166's RSS rises 5179612 ->
 * 6284616 -> 6919976 KiB, so its peak is the third paste's).
 */
#include "testutil.h"
#include "testutil_report.h"
#include "analyzer/rules/rules.h"
#include "reports/report.h"

#include <stdlib.h>
#include <string.h>

#define RAY "tests/data/real/any_stack/a-vllm-0.2.7-ray-worker-rss-grows-over-hours/"
#define LAST "03-ps-three-hours-later.txt"

/* The three pastes, read in the folder's order, then analysed. */
static struct timeline *ray_incident(void)
{
	struct timeline *tl = t_open();

	assert_true(t_parse_file(tl, RAY "01-ps.txt") >= 0);
	assert_true(t_parse_file(tl, RAY "02-ps-two-hours-later.txt") >= 0);
	assert_true(t_parse_file(tl, RAY LAST) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

static void each_block_names_its_paste(void **state)
{
	struct timeline *tl = ray_incident();
	(void)state;
	/* pid 1166's series spans the three pastes: a block each, each its own */
	assert_int_equal(t_int(tl, "SELECT count(DISTINCT b.artifact_id) FROM sample_block b"
			       " JOIN series s ON s.id = b.parent WHERE s.name = 'proc.rss_bytes'"
			       " AND s.entity = 'pid:1166'"), 3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample_block WHERE artifact_id IS NULL"), 0);
	t_close(tl);
}

static void peak_names_the_later_paste(void **state)
{
	struct timeline *tl = ray_incident();
	(void)state;
	assert_int_equal(t_int(tl, "SELECT bytes FROM peak WHERE account = 'host'"
			       " AND measure = 'rss'"), 6919976ll * 1024);
	assert_string_equal(t_text(tl, "SELECT file FROM peak WHERE account = 'host'"
				   " AND measure = 'rss'"), LAST);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM peak p JOIN artifact a"
			       " ON a.id = p.artifact_id WHERE p.account = 'host'"
			       " AND a.path LIKE '%%/" LAST "'"), 1);
	t_close(tl);
}

/* The samples rule judges pid 1166 across the three pastes and names the
 * first and the last of them, not "these ps/top tables" alone. */
static void samples_finding_names_the_pastes(void **state)
{
	struct timeline *tl = ray_incident();
	(void)state;
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'samples'"
			       " AND advice LIKE '%%these ps/top tables (01-ps.txt to " LAST ")%%'"), 1);
	t_close(tl);
}

static void every_format_names_the_paste(void **state)
{
	static const enum report_format f[] = { REPORT_HTML, REPORT_MD, REPORT_TEXT,
						REPORT_JSON };
	static const char *const want[] = { ", from " LAST, ", from " LAST, ", from " LAST,
					    "\"file\": \"" LAST "\"" };
	struct timeline *tl = ray_incident();
	size_t i, n;
	(void)state;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		char *r = t_render(tl, f[i], &n);
		char *first;
		assert_non_null(r);
		if (!strstr(r, want[i]))
			fail_msg("format %zu does not name %s", i, LAST);
		first = strstr(r, "01-ps.txt");
		/* the first paste may be listed among the artifacts, never as the peak's */
		if (first && f[i] != REPORT_JSON && strstr(r, ", from 01-ps.txt"))
			fail_msg("format %zu names the first paste for the peak", i);
		free(r);
	}
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_block_names_its_paste),
		cmocka_unit_test(peak_names_the_later_paste),
		cmocka_unit_test(samples_finding_names_the_pastes),
		cmocka_unit_test(every_format_names_the_paste),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
