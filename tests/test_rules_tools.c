/*
 * test_rules_tools.c -- what the diagnostic tools' reports give the rules:
 * the allocator's counters over several memory_stats dumps (cudaMalloc
 * retries, inactive split memory) to the fragmentation rule, memray's
 * totals and top allocating locations to the leak rule, memory_stats
 * values without a time and the peaks to the ledger. Each case just
 * inside and just outside a threshold (analyzer/rules/fragmentation.c).
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "analyzer/rules/rulelib.h"

#include <stdio.h>
#include <string.h>

#define T0 1795953600LL   /* 2026-11-29T12:00:00Z */
#define NS 1000000000LL

static void begin(struct timeline *tl)
{
	assert_true(timeline_artifact_begin(tl, "synthetic", "synthetic", 0, 0) > 0);
}

static void end(struct timeline *tl)
{
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", 0, 0), 0);
}

/* Values of one torch.* series on entity "cuda", without a time (as
 * memory_stats dumps are stored), in that order. */
static void untimed(struct timeline *tl, const char *name, const char *unit, int n,
		    const double *v)
{
	struct ol_time none = ol_time_none();
	int64_t id;
	int i;

	begin(tl);
	id = sink_series(&tl->sink, name, unit, "cuda");
	assert_true(id > 0);
	for (i = 0; i < n; i++)
		assert_true(sink_sample(&tl->sink, id, &none, v[i]) > 0);
	end(tl);
}

/* Two dumps: retries r0 -> r1, inactive split s0 -> s1, reserved res at
 * the last (both dumps), one OOM counted by the last. */
static struct timeline *two_dumps(double r0, double r1, double s0, double s1, double res)
{
	struct timeline *tl = t_open();

	untimed(tl, "torch.num_alloc_retries", "count", 2, (double[]){ r0, r1 });
	untimed(tl, "torch.inactive_split_bytes", "bytes", 2, (double[]){ s0, s1 });
	untimed(tl, "torch.reserved_bytes", "bytes", 2, (double[]){ res, res });
	untimed(tl, "torch.num_ooms", "count", 2, (double[]){ 0, 1 });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

static double frag_score(struct timeline *tl)
{
	return t_real(tl, "SELECT max(score) FROM finding WHERE cause = 'fragmentation'");
}

static double figure(struct timeline *tl, const char *cause, const char *key)
{
	return t_real(tl, "SELECT json_extract(figures, '$.%s') FROM finding WHERE cause = '%s'"
		      " ORDER BY score DESC LIMIT 1", key, cause);
}

static int64_t findings(struct timeline *tl, const char *cause)
{
	return t_int(tl, "SELECT count(*) FROM finding WHERE cause = '%s'", cause);
}

static void fragmentation_from_the_counters(void **state)
{
	struct timeline *tl;
	(void)state;

	/* one more retry, 64 MiB more split memory, 10.6% of reserved: inside */
	tl = two_dumps(3, 4, 1 * GIB, 1 * GIB + 64 * MIB, 10 * GIB);
	assert_int_equal(findings(tl, "fragmentation"), 1);
	assert_true(frag_score(tl) >= 0.55);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "fragmentation");
	assert_float_equal(figure(tl, "fragmentation", "alloc_retries_first"), 3, 0);
	assert_float_equal(figure(tl, "fragmentation", "alloc_retries_last"), 4, 0);
	assert_float_equal(figure(tl, "fragmentation", "inactive_split_last_bytes"),
			   1 * GIB + 64 * MIB, 0);
	assert_float_equal(figure(tl, "fragmentation", "inactive_split_share"), 1.0625 / 10, 1e-3);
	assert_float_equal(figure(tl, "fragmentation", "num_ooms"), 1, 0);
	assert_float_equal(figure(tl, "fragmentation", "stats_dumps"), 2, 0);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'fragmentation'"),
			       "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM evidence e JOIN finding f ON"
			       " f.id = e.finding_id WHERE f.cause = 'fragmentation' AND"
			       " e.ref_table = 'series'"), 2);
	t_close(tl);

	/* no more retries: the split memory alone is shown, never counts */
	tl = two_dumps(3, 3, 1 * GIB, 2 * GIB, 10 * GIB);
	assert_float_equal(frag_score(tl), 0.25, 1e-9);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "inconclusive");
	t_close(tl);

	/* 63 MiB more split memory: the retries alone, contributing */
	tl = two_dumps(3, 4, 1 * GIB, 1 * GIB + 63 * MIB, 10 * GIB);
	assert_float_equal(frag_score(tl), 0.35, 1e-9);
	t_close(tl);

	/* split memory 5% of reserved at the last dump: inside; 4.9%: outside */
	tl = two_dumps(3, 9, 0.1 * GIB, 0.5 * GIB, 10 * GIB);
	assert_true(frag_score(tl) >= 0.55);
	t_close(tl);
	tl = two_dumps(3, 9, 0.1 * GIB, 0.49 * GIB, 10 * GIB);
	assert_float_equal(frag_score(tl), 0.35, 1e-9);
	t_close(tl);

	/* nothing rose: no finding */
	tl = two_dumps(3, 3, 1 * GIB, 1 * GIB, 10 * GIB);
	assert_int_equal(findings(tl, "fragmentation"), 0);
	t_close(tl);

	/* one dump is no trend */
	tl = t_open();
	untimed(tl, "torch.num_alloc_retries", "count", 1, (double[]){ 40 });
	untimed(tl, "torch.inactive_split_bytes", "bytes", 1, (double[]){ 5 * GIB });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "fragmentation"), 0);
	t_close(tl);
}

/* With an OOM message that holds the request, the counters are more
 * evidence on its finding, not a second finding. */
static void fragmentation_counters_join_the_message(void **state)
{
	struct ol_event e = { "torch_oom", { OL_CLOCK_UTC, (T0 + 100) * NS, OL_NULL, NULL },
			      4312, NULL, (int64_t)(2 * GIB), 1, "CUDA out of memory", NULL };
	struct timeline *tl = t_open();
	double plain;
	(void)state;

	e.data = json_pack("{s:I, s:I, s:I}", "requested_bytes", (json_int_t)(2 * GIB),
			   "total_bytes", (json_int_t)(80 * GIB),
			   "reserved_unallocated_bytes", (json_int_t)(2.1 * GIB));
	begin(tl);
	assert_true(sink_event(&tl->sink, &e) > 0);
	end(tl);
	json_decref(e.data);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	plain = frag_score(tl);
	untimed(tl, "torch.num_alloc_retries", "count", 2, (double[]){ 0, 12 });
	untimed(tl, "torch.inactive_split_bytes", "bytes", 2, (double[]){ 0.5 * GIB, 2 * GIB });
	untimed(tl, "torch.reserved_bytes", "bytes", 2, (double[]){ 30 * GIB, 30 * GIB });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "fragmentation"), 1);
	assert_float_equal(frag_score(tl), plain + 0.05, 1e-9);
	assert_float_equal(figure(tl, "fragmentation", "requested_bytes"), 2 * GIB, 0);
	assert_float_equal(figure(tl, "fragmentation", "alloc_retries_last"), 12, 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM evidence e JOIN finding f ON"
			       " f.id = e.finding_id WHERE f.cause = 'fragmentation'"), 3);
	t_close(tl);
}

/* n samples every 30 s from T0: level + slope * i. */
static void rising(struct timeline *tl, const char *name, const char *entity, int n,
		   double level, double slope)
{
	int64_t id;
	int i;

	begin(tl);
	id = sink_series(&tl->sink, name, "bytes", entity);
	for (i = 0; i < n; i++) {
		struct ol_time t = { OL_CLOCK_UTC, (T0 + 30LL * i) * NS, OL_NULL, NULL };
		assert_true(sink_sample(&tl->sink, id, &t, level + slope * i + (i % 3) * MIB) > 0);
	}
	end(tl);
}

#define MEMRAY "tests/data/real/tools/memray-stats-1.13-full-tabs-prompt-top-by-size-partial.txt"

static void leak_names_memray_top_location(void **state)
{
	struct timeline *tl;
	const char *title;
	(void)state;

	/* a host-side leak: memray's totals and its top location with a frame */
	tl = t_open();
	assert_true(t_parse_file(tl, MEMRAY) >= 0);
	rising(tl, "proc.rss_bytes", "pid:1", 480, 10 * GIB, 2.6 * MIB);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	/* nothing records an OOM: the growth is a finding, the verdict no_oom */
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	title = t_text(tl, "SELECT title FROM finding WHERE cause = 'growth'");
	assert_non_null(strstr(title, "memray's top allocating location: get_data:<frozen"
			       " importlib._bootstrap_external>:1073"));
	assert_float_equal(figure(tl, "growth", "memray_total_allocations"), 41426, 0);
	assert_float_equal(figure(tl, "growth", "memray_top_location_bytes"), 43426414330.0, 0);
	assert_float_equal(figure(tl, "growth", "memray_top_python_location_bytes"), 372256014, 0);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'growth'"),
			       "<stack trace unavailable>"));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM evidence e JOIN finding f ON"
			       " f.id = e.finding_id WHERE f.cause = 'growth' AND e.ref_table ="
			       " 'holder'"), 1);
	t_close(tl);

	/* a GPU-side leak: memray watches the host heap, it is not quoted */
	tl = t_open();
	assert_true(t_parse_file(tl, MEMRAY) >= 0);
	rising(tl, "gpu.used_bytes", "gpu0", 480, 10 * GIB, 2.6 * MIB);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "growth"), 1);
	assert_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'growth'"), "memray"));
	assert_true(figure(tl, "growth", "memray_total_allocations") == -1e300);  /* NULL */
	t_close(tl);

	/* memray alone: totals over a run are not growth */
	tl = t_open();
	assert_true(t_parse_file(tl, MEMRAY) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(findings(tl, "growth"), 0);
	t_close(tl);
}

/* memory_stats values carry no time: the ledger takes the last dump's,
 * and the allocator's peaks as notes with its OOM and retry counts. */
static void ledger_reads_untimed_dumps_and_peaks(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	untimed(tl, "torch.allocated_bytes", "bytes", 2, (double[]){ 5 * GIB, 6 * GIB });
	untimed(tl, "torch.reserved_bytes", "bytes", 2, (double[]){ 8 * GIB, 11 * GIB });
	untimed(tl, "torch.allocated_peak_bytes", "bytes", 2, (double[]){ 9 * GIB, 9.5 * GIB });
	untimed(tl, "torch.reserved_peak_bytes", "bytes", 2, (double[]){ 14 * GIB, 15 * GIB });
	untimed(tl, "torch.num_ooms", "count", 2, (double[]){ 1, 7 });
	untimed(tl, "torch.num_alloc_retries", "count", 2, (double[]){ 31, 41 });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_float_equal(t_real(tl, "SELECT bytes FROM ledger WHERE line = 'activations'"),
			   6 * GIB, 0);
	assert_float_equal(t_real(tl, "SELECT bytes FROM ledger WHERE line = 'pytorch_cache'"),
			   5 * GIB, 0);
	assert_string_equal(t_text(tl, "SELECT moment FROM ledger WHERE line = 'activations'"),
			    "last sample");
	assert_float_equal(t_real(tl, "SELECT bytes FROM ledger WHERE line = 'allocated_peak'"
				  " AND part = 0"), 9.5 * GIB, 0);
	assert_float_equal(t_real(tl, "SELECT bytes FROM ledger WHERE line = 'reserved_peak'"
				  " AND part = 0"), 15 * GIB, 0);
	assert_string_equal(t_text(tl, "SELECT label FROM ledger WHERE line = 'reserved_peak'"),
			    "PyTorch's peak reserved; 7 OOMs counted; 41 cudaMalloc retries");
	assert_int_equal(t_int(tl, "SELECT device FROM ledger WHERE line = 'reserved_peak'"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fragmentation_from_the_counters),
		cmocka_unit_test(fragmentation_counters_join_the_message),
		cmocka_unit_test(leak_names_memray_top_location),
		cmocka_unit_test(ledger_reads_untimed_dumps_and_peaks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
