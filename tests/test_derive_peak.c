/*
 * test_derive_peak.c -- the derive pass `peak` (analyzer/derive/peak.c)
 * and the one byte formatter (lib/bytes.c), issue 25: one peak per
 * account, what it measures, the other measures beside it, and the same
 * figure in every report format.
 *
 * Inputs are real formats: an nvidia-smi CSV history of one card
 * (fixtures/mixed_gpu_leak_spike), a PyTorch snapshot of cuda:0 with a
 * trace (tests/data/snapshot/holders_history.p4.pickle), and a container's
 * cgroup v2 files with a smaps_rollup capture
 * (fixtures/misconfig_cgroup_limit_host).
 */
#include "testutil.h"
#include "analyzer/derive/derive.h"
#include "analyzer/rules/rulelib.h"
#include "reports/report.h"
#include "reports/summary.h"
#include "lib/bytes.h"
#include "lib/strbuf.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB (1024.0 * 1024.0)
#define GiB (1024.0 * MiB)

static void derive(struct timeline *tl)
{
	struct strbuf err = STRBUF_INIT;

	if (derive_incident(tl, &err) < 0)
		fail_msg("derive: %s", err.buf);
	strbuf_release(&err);
}

static char *render(struct timeline *tl, enum report_format f)
{
	struct strbuf err = STRBUF_INIT;
	char *buf = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&buf, &n);

	assert_non_null(out);
	assert_int_equal(report_write(tl->db, f, out, &err), 0);
	if (err.len)
		fail_msg("the report said: %s", err.buf);
	strbuf_release(&err);
	fclose(out);
	return buf;
}

static void contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("expected to find: %s", needle);
}

/* One card seen three ways: the driver's figure (nvidia-smi), the
 * snapshot's segments (reserved) and its trace's peak (allocated). Three
 * rows, one account, one headline: the card's own, the highest. */
static struct timeline *one_card(void)
{
	struct timeline *tl = t_open();

	assert_int_equal(t_parse_file(tl, "fixtures/mixed_gpu_leak_spike/nvidia-smi.csv"), 0);
	assert_int_equal(t_parse_file(tl, "tests/data/snapshot/holders_history.p4.pickle"), 0);
	derive(tl);
	return tl;
}

static void card_rows_and_headline(void **state)
{
	struct timeline *tl = one_card();
	double used = t_real(tl, "SELECT max(m.value) FROM series s JOIN sample m ON"
				 " m.series_id = s.id WHERE s.name = 'gpu.used_bytes' AND s.entity = 'gpu0'");
	double total = t_real(tl, "SELECT max(m.value) FROM series s JOIN sample m ON"
				  " m.series_id = s.id WHERE s.name = 'gpu.total_bytes' AND s.entity = 'gpu0'");
	(void)state;

	assert_true(used > 70 * GiB && total > used);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM peak WHERE account = 'gpu0'"), 3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM peak"), 3);
	/* the driver's figure: the highest sample, with its time and series */
	assert_true(t_real(tl, "SELECT bytes FROM peak WHERE measure = 'card_used'") == used);
	assert_int_equal(t_int(tl, "SELECT time_ns IS NOT NULL AND series_id IS NOT NULL"
				   " FROM peak WHERE measure = 'card_used'"), 1);
	assert_string_equal(t_text(tl, "SELECT source FROM peak WHERE measure = 'card_used'"),
			    "gpu.used_bytes gpu0");
	/* the snapshot's: segments at the snapshot (untimed), live bytes at
	 * its trace's peak */
	assert_true(t_real(tl, "SELECT bytes FROM peak WHERE measure = 'reserved'") == 20 * MiB);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM peak WHERE measure = 'reserved'"), OL_NULL);
	assert_true(t_real(tl, "SELECT bytes FROM peak WHERE measure = 'allocated'") == 7 * MiB);
	assert_string_equal(t_text(tl, "SELECT source FROM peak WHERE measure = 'allocated'"),
			    "allocated at the trace's peak, cuda:0 (snapshot, event 1)");
	/* every row of the card against the card's total, device 0 */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM peak WHERE limit_bytes = %.0f"
				   " AND limit_source = 'gpu.total_bytes gpu0' AND device = 0", total), 3);
	/* one headline: the card's own figure */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM peak WHERE headline = 1"), 1);
	assert_string_equal(t_text(tl, "SELECT measure FROM peak WHERE headline = 1"), "card_used");
	/* derived twice, the same table */
	derive(tl);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM peak"), 3);
	t_close(tl);
}

/* Without the driver's figure the headline is the snapshot's highest:
 * its segments (20 MiB) over its trace's live peak (7 MiB). */
static void snapshot_alone_headline_is_its_highest(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, "tests/data/snapshot/holders_history.p4.pickle"), 0);
	derive(tl);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM peak"), 2);
	assert_string_equal(t_text(tl, "SELECT measure FROM peak WHERE headline = 1"), "reserved");
	assert_int_equal(t_int(tl, "SELECT headline FROM peak WHERE measure = 'allocated'"), 0);
	t_close(tl);
}

/* A container: the cgroup's usage against its limit, and the process's
 * RSS on the host account, each the headline of its own account. */
static void memcg_and_host_accounts(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, "fixtures/misconfig_cgroup_limit_host/cgroup/memory.current"), 0);
	assert_int_equal(t_parse_file(tl, "fixtures/misconfig_cgroup_limit_host/cgroup/memory.max"), 0);
	assert_int_equal(t_parse_file(tl, "fixtures/misconfig_cgroup_limit_host/smaps_rollup.4312.cap"), 0);
	derive(tl);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM peak WHERE scope = 'memcg'"
				   " AND measure = 'cgroup_usage' AND headline = 1"), 1);
	assert_true(t_real(tl, "SELECT limit_bytes FROM peak WHERE scope = 'memcg'") == 8 * GiB);
	assert_string_equal(t_text(tl, "SELECT limit_source FROM peak WHERE scope = 'memcg'"),
			    "cgroup.max_bytes");
	assert_true(t_real(tl, "SELECT bytes FROM peak WHERE scope = 'memcg'") ==
		    t_real(tl, "SELECT max(m.value) FROM series s JOIN sample m ON m.series_id = s.id"
			       " WHERE s.name = 'cgroup.current_bytes'"));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM peak WHERE account = 'host'"
				   " AND measure = 'rss' AND headline = 1 AND source = 'proc.rss_bytes pid:4312'"), 1);
	t_close(tl);
}

/* The headline figure reads the same in text, Markdown, HTML and JSON,
 * with the other measures beside it, never as a second peak. */
static void every_format_names_the_same_peak(void **state)
{
	struct timeline *tl = one_card();
	double used = t_real(tl, "SELECT bytes FROM peak WHERE headline = 1");
	char want[64], line[256];
	char *t = render(tl, REPORT_TEXT), *m = render(tl, REPORT_MD), *h = render(tl, REPORT_HTML);
	char *j = render(tl, REPORT_JSON);
	json_t *doc = json_loads(j, 0, NULL), *peaks, *sp;
	size_t i, headlines = 0;
	(void)state;

	ol_fmt_bytes(want, sizeof(want), used);
	/* the file the figure came from after the source (schema 9) */
	snprintf(line, sizeof(line), "Peak memory: %s (gpu.used_bytes gpu0, from nvidia-smi.csv)",
		 want);
	contains(t, line);
	snprintf(line, sizeof(line), "- **Peak memory:** %s (gpu.used_bytes gpu0, from"
		 " nvidia-smi.csv)", want);
	contains(m, line);
	snprintf(line, sizeof(line), "Peak memory</div><div class=kv>%s</div>", want);
	contains(h, line);
	/* the other measures, side by side, as what they measure */
	snprintf(line, sizeof(line), "allocated 7.00 MiB \xc2\xb7 reserved 20.0 MiB \xc2\xb7 card %s",
		 want);
	contains(t, line);
	contains(m, line);
	contains(h, line);
	assert_null(strstr(m, "Other accounts"));
	/* JSON: the summary's peak and the peaks key, the same bytes */
	assert_non_null(doc);
	sp = json_object_get(json_object_get(doc, "summary"), "peak");
	assert_true(json_real_value(json_object_get(sp, "bytes")) == used);
	assert_string_equal(json_string_value(json_object_get(sp, "measure")), "card_used");
	assert_string_equal(json_string_value(json_object_get(sp, "account")), "gpu0");
	peaks = json_object_get(doc, "peaks");
	assert_int_equal(json_array_size(peaks), 3);
	for (i = 0; i < json_array_size(peaks); i++) {
		json_t *r = json_array_get(peaks, i);
		if (json_integer_value(json_object_get(r, "headline")) != 1)
			continue;
		headlines++;
		assert_true(json_number_value(json_object_get(r, "bytes")) == used);
	}
	assert_int_equal(headlines, 1);
	json_decref(doc);
	free(t);
	free(m);
	free(h);
	free(j);
	t_close(tl);
}

/* One precision rule (three significant digits): the 51.12 GiB
 * reads 51.1 GiB wherever it is printed, by the rules' helper, the
 * reports' one and a finding figure's formatter (HTML, Markdown, text and
 * the JSON summary's top_finding value all use fmt_figure/fmt_bytes). */
static void one_byte_format_everywhere(void **state)
{
	static const struct {
		double bytes;
		const char *text;
	} cases[] = {
		{ 512, "512 B" },
		{ 1024, "1.00 KiB" },
		{ 51.12 * GiB, "51.1 GiB" },
		{ 9.87 * GiB, "9.87 GiB" },
		{ 112.89 * GiB, "113 GiB" },
		{ 300 * MiB, "300 MiB" },
		{ 99.97 * MiB, "100 MiB" },
		{ 9.996 * MiB, "10.0 MiB" },
		{ -3 * MiB, "-3.00 MiB" },
	};
	char a[64], b[64], c[64];
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf fig = STRBUF_INIT;
		json_t *v = json_real(cases[i].bytes);

		ol_fmt_bytes(a, sizeof(a), cases[i].bytes);
		assert_string_equal(a, cases[i].text);
		rl_bytes(cases[i].bytes, b, sizeof(b));
		assert_string_equal(b, cases[i].text);
		fmt_bytes(c, sizeof(c), cases[i].bytes);
		assert_string_equal(c, cases[i].text);
		fmt_figure(&fig, "rise_top_bytes", v);
		assert_string_equal(fig.buf, cases[i].text);
		strbuf_release(&fig);
		json_decref(v);
	}
	assert_string_equal(ol_fmt_bytes(a, sizeof(a), NAN), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(card_rows_and_headline),
		cmocka_unit_test(snapshot_alone_headline_is_its_highest),
		cmocka_unit_test(memcg_and_host_accounts),
		cmocka_unit_test(every_format_names_the_same_peak),
		cmocka_unit_test(one_byte_format_everywhere),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
