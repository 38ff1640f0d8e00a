/*
 * test_report.c -- the report forms (HTML, Markdown, text, JSON) rendered
 * from one full vLLM incident database (testutil_report.c: series, OOM
 * events, task dump, snapshot tables, CUDA core tables, findings with
 * chart annotation figures, a verdict) with hostile strings wherever an
 * artifact controls text; figures in their units; the dump's victim the
 * same in every format.
 */
#include "testutil_report.h"
#include "reports/report.h"
#include "reports/section.h"
#include "reports/summary.h"
#include "lib/strbuf.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T_OOM T_REPORT_OOM
#define NS 1000000000LL
#define GiB 1073741824LL

static void html_full_incident(void **state)
{
	struct timeline *tl = t_open();
	char *h;
	size_t n;
	(void)state;

	t_build_incident(tl, 1);
	h = t_render(tl, REPORT_HTML, &n);
	/* header: verdict, confidence, three key figures */
	t_contains(h, "Content-Security-Policy");
	t_contains(h, "<span class=vclass>Memory leak</span>");
	t_contains(h, "cause: <b>retained_allocations</b>");
	t_contains(h, "confidence <b>86 %</b>");
	t_contains(h, "Peak memory</div><div class=kv>79.0 GiB");   /* peak: gpu.used at the OOM */
	t_contains(h, "of 79.6 GiB (gpu.total_bytes gpu0)");
	t_contains(h, "pid 4312, oom_kill, 27.0 GiB freed");
	t_contains(h, "growth rate</div><div class=kv>+7168.0 MiB/h");
	/* chart: panels, series, markers, annotations, UTC axis */
	t_contains(h, "<section id=timeline>");
	t_contains(h, "class=pt>memory</text>");
	t_contains(h, "class=pt>requests in flight</text>");
	t_contains(h, "class=pt>KV-cache usage</text>");
	t_contains(h, "stroke=\"#1f5fa8\"");                 /* gpu.used */
	t_contains(h, "</svg>x&lt;script&gt;alert(1)&lt;/script&gt;_bytes");  /* another byte series */
	t_contains(h, "<g class=leak>");
	t_contains(h, "leak +7168 MiB/h");
	t_contains(h, "<g class=spike>");
	t_contains(h, "<g class=headroom>");
	t_contains(h, "cgroup limit 64.0 GiB");
	t_contains(h, "<g class=mk><title>oom_kill at 2025-11-29T18:22:40.100000Z, pid 4312 (&lt;script&gt;");
	t_contains(h, "<g class=mk><title>torch_oom at");
	t_contains(h, "time (UTC) &#8212; 2025-11-29 16:22:40 to 2025-11-29 18:22:40");
	t_contains(h, "class=xl>17:00</text>");
	t_contains(h, "The 15 minutes before the first OOM event");
	/* sections */
	t_contains(h, "<section id=findings>");
	t_contains(h, "Requests rose 6x");
	t_contains(h, "<b>Advice:</b> Lower max_num_seqs to 128.");
	t_contains(h, "the victim <span class=muted>(event #3: oom_kill at 2025-11-29T18:22:40.100000Z");
	t_contains(h, "<tr class=victim><td class=n>4312</td>");
	t_contains(h, "<b class=killed>killed</b>");
	t_contains(h, "27.0 GiB</td>");                      /* 7085888 pages * 4096 */
	t_contains(h, "2.50 GiB live in 3 allocations from 2 stacks");
	t_contains(h, "<code>cache_kv</code> <span class=muted>myservice/cache.py:88</span>");
	t_contains(h, "2 segments reserve 2.02 GiB");
	t_contains(h, "the largest free block is 512 MiB");
	t_contains(h, "class=used");
	t_contains(h, "NVIDIA H100 80GB HBM3");
	t_contains(h, "<h3>Contexts per device</h3>");
	t_contains(h, "at byte 4096: ELF note segment truncated");
	t_contains(h, "a second snapshot an hour earlier");
	t_contains(h, "1 events are only on the boot clock");
	t_contains(h, "<li>1 samples have no UTC time and are not drawn.</li>");
	t_lacks(h, "early traceback");            /* server errors: the last 20 before the OOM */
	t_lacks(h, "traceback 4<");
	t_contains(h, "traceback 5<");
	t_contains(h, "traceback 24<");
	t_contains(h, "6 more OOM, kill and error events in the database");
	t_contains(h, "boot+99.000s");
	/* hostile strings: escaped in text, attributes and SVG */
	t_no_injection(h);
	t_contains(h, "&lt;script&gt;alert(1)&lt;/script&gt;");
	t_contains(h, "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
	assert_true(n < 200 * 1024);
	free(h);
	t_close(tl);
}

static void markdown_full_incident(void **state)
{
	struct timeline *tl = t_open();
	char *m;
	(void)state;

	t_build_incident(tl, 1);
	m = t_render(tl, REPORT_MD, NULL);
	t_contains(m, "## OOM incident: leak (retained_allocations)");
	t_contains(m, "**Verdict:** leak, confidence 86 %");
	/* escaped only where markup would start: the text reads as itself */
	t_contains(m, "- **Killed:** \\<script>alert(1)\\</script> (pid 4312), oom_kill,"
		    " 27.0 GiB freed");
	t_contains(m, "- **Peak memory:** 79.0 GiB (gpu.used_bytes gpu0, from nvidia-smi.csv),"
		   " 99.2 % of 79.6 GiB");   /* the file: schema 9 */
	t_contains(m, "1. **GPU memory grew 7168 MiB/h and was not returned** (leak,"
		    " retained_allocations, score 0.86)");
	t_contains(m, "growth rate +7168.0 MiB/h");
	assert_null(strstr(m, "slope_mb_per_hour"));   /* keys are words for people (issue 26) */
	t_contains(m, "*Advice:* Lower max_num_seqs to 128.");
	t_contains(m, "| 2025-11-29T18:22:40.100000Z | oom_kill | 4312 |");
	t_contains(m, "| incident/core.cuda | - | failed | 1 | 0 |");
	t_contains(m, "Missing evidence: a second snapshot an hour earlier");
	t_md_no_injection(m);
	free(m);
	t_close(tl);
}

/* The plain text says what the Markdown says, without markup: no "**",
 * no backslash escapes, no table bars; columns aligned. */
static void text_full_incident(void **state)
{
	struct timeline *tl = t_open();
	char *t;
	(void)state;

	t_build_incident(tl, 1);
	t = t_render(tl, REPORT_TEXT, NULL);
	t_contains(t, "OOM incident: leak (retained_allocations)\n=========");
	t_contains(t, "Verdict: leak, confidence 86 %");
	t_contains(t, "- Killed: <script>alert(1)</script> (pid 4312), oom_kill, 27.0 GiB freed");
	t_contains(t, "Advice: Lower max_num_seqs to 128.");
	t_contains(t, "2025-11-29T18:22:40.100000Z  oom_kill");
	t_lacks(t, "**");
	t_lacks(t, "\\");
	t_lacks(t, "| ");
	free(t);
	t_close(tl);
}

/* A Windows path in a finding (a snapshot's frame) reads as itself in
 * the text: only Markdown's escapes are undone, not every backslash. */
static void text_keeps_windows_paths(void **state)
{
	static const char path[] = "D:\\Dev\\cs336_basics\\.venv\\Lib\\einops\\_backends.py:291 einsum";
	struct timeline *tl = t_open();
	char sql[256], *t;
	(void)state;

	t_build_incident(tl, 1);
	snprintf(sql, sizeof(sql), "UPDATE finding SET title = '%s' WHERE id = (SELECT id FROM"
		 " finding ORDER BY score DESC LIMIT 1)", path);
	assert_int_equal(sqlite3_exec(tl->db, sql, NULL, NULL, NULL), SQLITE_OK);
	t = t_render(tl, REPORT_TEXT, NULL);
	t_contains(t, path);
	free(t);
	t_close(tl);
}

/* An event with no time at all (a log without stamps) is no event "on
 * the boot clock": the unknowns count it apart, in JSON and in words. */
static void untimed_is_not_boot_clock(void **state)
{
	struct timeline *tl = t_open();
	char *m, *s;
	json_t *j;
	(void)state;

	t_build_incident(tl, 1);
	assert_int_equal(sqlite3_exec(tl->db, "UPDATE event SET time_ns = NULL, boot_ns = NULL"
				      " WHERE id = (SELECT min(id) FROM event WHERE time_ns IS NOT"
				      " NULL)", NULL, NULL, NULL), SQLITE_OK);
	s = t_render(tl, REPORT_JSON, NULL);
	j = json_loads(s, 0, NULL);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "unknowns"),
							    "events_untimed")), 1);
	m = t_render(tl, REPORT_MD, NULL);
	t_contains(m, "1 event with no time at all");
	json_decref(j);
	free(s);
	free(m);
	t_close(tl);
}

/* A figure reads in the unit its name says: bytes binary, durations in
 * seconds, minutes or hours as a reader counts them, KV usage percent. */
static void figures_in_their_units(void **state)
{
	static const struct { const char *key; json_t *(*make)(double); double v; const char *want; }
	cases[] = {
		{ "history_s", json_real, 18600, "5.2 h" },
		{ "rise_seconds", json_real, 100, "100 s" },
		{ "load_history_s", json_real, 119, "119 s" },
		{ "load_history_s", json_real, 120, "2 min" },
		{ "span_s", json_real, 7199, "120 min" },
		{ "baseline_bytes", json_real, 75.2 * 1073741824.0, "75.2 GiB" },
		{ "kv_usage_peak", json_real, 15.9, "15.9 %" },
	};
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		json_t *v = cases[i].make(cases[i].v);
		fmt_figure(&sb, cases[i].key, v);
		if (strcmp(sb.buf, cases[i].want))
			fail_msg("%s %g: %s, not %s", cases[i].key, cases[i].v, sb.buf, cases[i].want);
		json_decref(v);
		strbuf_release(&sb);
	}
}

static void json_full_incident(void **state)
{
	static const char *const keys[] = {
		"oomlens", "schema", "verdict", "summary", "findings", "events", "oom_tasks",
		"meta", "artifacts", "unknowns", NULL
	};
	struct timeline *tl = t_open();
	json_error_t err;
	json_t *j, *f, *ev;
	char *s;
	int i;
	(void)state;

	t_build_incident(tl, 1);
	s = t_render(tl, REPORT_JSON, NULL);
	j = json_loads(s, 0, &err);
	if (!j)
		fail_msg("invalid JSON: %s", err.text);
	for (i = 0; keys[i]; i++)
		assert_non_null(json_object_get(j, keys[i]));
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "verdict"),
							      "class")), "leak");
	/* hostile strings are data in JSON: kept as they were, escaped by the encoder */
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(j,
		"summary"), "victim"), "comm")), HOSTILE_SCRIPT);
	f = json_array_get(json_object_get(j, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(f, "rule")), "leak_slope");
	assert_true(json_real_value(json_object_get(json_object_get(f, "figures"),
						     "slope_mb_per_hour")) == 7168.0);
	assert_int_equal(json_array_size(json_object_get(f, "evidence")), 2);
	assert_int_equal(json_array_size(json_object_get(j, "events")), 30);
	ev = json_array_get(json_object_get(j, "events"), 28);   /* in time order */
	assert_string_equal(json_string_value(json_object_get(ev, "kind")), "oom_kill");
	assert_string_equal(json_string_value(json_object_get(ev, "time")),
			    "2025-11-29T18:22:40.100000Z");
	assert_int_equal(json_integer_value(json_object_get(ev, "anon_rss_kb")), 28311552);
	ev = json_array_get(json_object_get(j, "events"), 29);   /* not on UTC: last */
	assert_string_equal(json_string_value(json_object_get(ev, "kind")), "oom_reaper");
	assert_true(json_is_null(json_object_get(ev, "time")));
	assert_true(json_real_value(json_object_get(ev, "boot_s")) == 99.0);
	f = json_array_get(json_object_get(j, "oom_tasks"), 0);
	assert_int_equal(json_integer_value(json_object_get(f, "victim_pid")), 4312);
	assert_int_equal(json_array_size(json_object_get(f, "tasks")), 4);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "meta"),
							      "kernel.page_size")), "4096");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "unknowns"),
							    "events_not_on_utc")), 1);
	/* that one is on the boot clock (boot_s 99): no event lacks a time */
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "unknowns"),
							    "events_untimed")), 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "unknowns"),
							    "samples_not_on_utc")), 1);
	assert_int_equal(json_array_size(json_object_get(json_object_get(j, "unknowns"),
							 "artifacts_not_read")), 2);
	assert_false(strstr(s, "<script>") == NULL);  /* raw in a JSON string: it is data */
	json_decref(j);
	free(s);
	t_close(tl);
}

/* Without the domain tables, and with nothing at all. */
static void dump_victim_agrees_between_formats(void **state)
{
	struct timeline *tl = t_open();
	char *h, *s;
	json_t *j;
	(void)state;

	t_build_incident(tl, 0);
	t_exec(tl, "UPDATE event SET data = '{\"anon_rss_kb\":28311552}' WHERE id = 3");
	h = t_render(tl, REPORT_HTML, NULL);
	t_contains(h, "<tr class=victim><td class=n>4312</td>");
	free(h);
	s = t_render(tl, REPORT_JSON, NULL);
	j = json_loads(s, 0, NULL);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(j,
		"oom_tasks"), 0), "victim_pid")), 4312);
	json_decref(j);
	free(s);
	t_close(tl);
}

/* Past the caps every form says how many more rows the database holds;
 * the JSON has them all. */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(html_full_incident),
		cmocka_unit_test(markdown_full_incident),
		cmocka_unit_test(text_full_incident),
		cmocka_unit_test(text_keeps_windows_paths),
		cmocka_unit_test(untimed_is_not_boot_clock),
		cmocka_unit_test(figures_in_their_units),
		cmocka_unit_test(json_full_incident),
		cmocka_unit_test(dump_victim_agrees_between_formats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
