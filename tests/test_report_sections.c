/*
 * test_report_sections.c -- what the sections table promises, on the
 * incident database of testutil_report.c and an empty one: missing data
 * said, a million-sample series drawn under 2 MB with its one-sample peak
 * kept, hostile times and figures, one order for every format, each query
 * run once per report, counts past the caps, and failures returned rather
 * than printed; a leak verdict's answer led by its growth rate.
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

static void html_missing_data_is_said(void **state)
{
	struct timeline *tl = t_open();
	char *h, *m, *s;
	json_t *j;
	(void)state;

	t_build_incident(tl, 0);
	h = t_render(tl, REPORT_HTML, NULL);
	t_contains(h, "Not available: no PyTorch memory snapshot with an allocation trace");
	t_contains(h, "Not available: no PyTorch memory snapshot was ingested.");
	t_contains(h, "Not available: no CUDA or host core dump was ingested.");
	t_lacks(h, "<h3>Devices</h3>");
	t_contains(h, "<g class=leak>");                    /* the rest is still there */
	free(h);
	t_close(tl);

	tl = t_open();
	h = t_render(tl, REPORT_HTML, NULL);
	t_contains(h, "<span class=vclass>No verdict</span>");
	t_contains(h, "Nothing to draw: the database holds no time series");
	t_contains(h, "No rule produced a finding");
	t_contains(h, "No events were found in the artifacts.");
	t_contains(h, "No kernel OOM task dump in the artifacts");
	t_contains(h, "No verdict is recorded");
	t_contains(h, "No memory time series");
	t_lacks(h, "<svg xmlns");
	free(h);
	m = t_render(tl, REPORT_MD, NULL);
	t_contains(m, "## OOM incident: no verdict");
	/* nothing records an OOM: said as such, no "kill unknown" */
	t_contains(m, "- **OOM:** none recorded");
	t_lacks(m, "Killed:");
	t_contains(m, "No rule found enough evidence");
	free(m);
	s = t_render(tl, REPORT_JSON, NULL);
	j = json_loads(s, 0, NULL);
	assert_non_null(j);
	assert_true(json_is_null(json_object_get(j, "verdict")));
	assert_int_equal(json_array_size(json_object_get(j, "findings")), 0);
	assert_int_equal(json_array_size(json_object_get(j, "events")), 0);
	assert_true(json_is_null(json_object_get(json_object_get(j, "summary"), "victim")));
	json_decref(j);
	free(s);
	t_close(tl);
}

/* The y pixels of the path drawn with stroke color, lowest (highest
 * value) and highest (lowest value) and the number of points. */
static int path_extent(const char *h, const char *color, double *ymin, double *ymax)
{
	char key[64];
	const char *p, *end;
	int n = 0;

	snprintf(key, sizeof(key), "<path class=s stroke=\"%s\"", color);
	p = strstr(h, key);
	assert_non_null(p);
	p = strstr(p, " d=\"");
	assert_non_null(p);
	p += 4;
	end = strchr(p, '"');
	*ymin = 1e9;
	*ymax = -1e9;
	while (p < end) {
		char c = *p++;
		double y;
		char *q;
		if (c == 'M' || c == 'L') {
			strtod(p, &q);
			y = strtod(q, &q);
		} else if (c == 'V') {
			y = strtod(p, &q);
		} else {
			continue;
		}
		p = q;
		n++;
		if (y < *ymin)
			*ymin = y;
		if (y > *ymax)
			*ymax = y;
	}
	return n;
}

static void large_series_is_downsampled_with_its_peak(void **state)
{
	struct timeline *tl = t_open();
	sqlite3_stmt *st;
	double ymin, ymax;
	char *h;
	size_t n;
	int i, pts;
	(void)state;

	t_exec(tl, "INSERT INTO series(id, name, unit, entity) VALUES (1, 'gpu.used_bytes', 'bytes',"
		 " 'gpu0')");
	assert_int_equal(sqlite3_prepare_v2(tl->db, "INSERT INTO sample(series_id, time_ns, value)"
					    " VALUES (1, ?, ?)", -1, &st, NULL), SQLITE_OK);
	t_exec(tl, "BEGIN");
	for (i = 0; i < 1000000; i++) {          /* 1M samples, every 100 ms: 27.8 hours */
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, T_OOM - 100000 * NS + (int64_t)i * (NS / 10));
		/* 10 GiB with a sawtooth, and one sample of 50 GiB */
		sqlite3_bind_double(st, 2, i == 612345 ? 50.0 * GiB
					   : 10.0 * GiB + (double)(i % 1000) * 1048576);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	}
	t_exec(tl, "COMMIT");
	sqlite3_finalize(st);
	h = t_render(tl, REPORT_HTML, &n);
	assert_true(n < 2 * 1024 * 1024);
	pts = path_extent(h, "#1f5fa8", &ymin, &ymax);
	assert_true(pts <= 4 * 900);
	assert_true(pts > 900);
	/* axis 0..60 GiB over 290 px from y=60: 50 GiB at 60 + 290/6 = 108.3 */
	assert_true(ymin > 107.5 && ymin < 109.5);
	assert_true(ymax > 297);                 /* the 10 GiB floor: 60 + 290 * 5/6 */
	t_contains(h, "peak 50.0 GiB");
	free(h);
	t_close(tl);
}

/* Times and figures no parser should produce, but a corrupt database or a
 * buggy rule might: no overflow (UBSan), no crash, still a page. */
static void hostile_times_and_figures(void **state)
{
	struct timeline *tl = t_open();
	char *h, *m, *s;
	(void)state;

	t_exec(tl, "INSERT INTO series(id, name, unit, entity) VALUES (1, 'gpu.used_bytes', 'bytes', 'gpu0'),"
		 " (2, 'server.running', 'requests', 'vllm');"
		 "INSERT INTO sample(series_id, time_ns, value) VALUES (1, 9223372036854775807, 1e308),"
		 " (1, -9223372036854775807, -5), (1, 0, 1), (2, 5, 9e18), (2, 6, -1);"
		 "INSERT INTO event(kind, time_ns, clock, pid, comm, bytes) VALUES"
		 " ('oom_kill', -9223372036854775807, 'utc', -1, '', -9223372036854775807),"
		 " ('torch_oom', 9223372036854775806, 'utc', NULL, NULL, 9223372036854775807);"
		 "INSERT INTO finding(rule, class, score, figures) VALUES"
		 " ('x', 'leak', 1e308, '{\"slope_mb_per_hour\":1e308,\"fit_start_time_ns\":-1e300,"
		 "   \"intercept_bytes\":-1e308,\"spike_start_ns\":1e300,\"spike_end_ns\":-1,"
		 "   \"baseline_bytes\":1e308,\"total_bytes\":1e307}'),"
		 " ('y', 'spike', NULL, 'not json'), ('z', 'misconfig', NULL, '[1,2]');"
		 "INSERT INTO verdict(class, confidence) VALUES ('" HOSTILE_SCRIPT "', 7.5)");
	h = t_render(tl, REPORT_HTML, NULL);
	t_contains(h, "<svg xmlns");
	t_contains(h, "confidence <b>100 %</b>");    /* clamped to 0..1 */
	t_no_injection(h);
	free(h);
	m = t_render(tl, REPORT_MD, NULL);
	t_md_no_injection(m);
	t_contains(m, "confidence 100 %");         /* the same clamp as the HTML's */
	free(m);
	s = t_render(tl, REPORT_JSON, NULL);
	assert_non_null(strstr(s, "\"verdict\""));
	free(s);
	t_close(tl);
}


/* A leak verdict's first screen leads with its growth rate, though the
 * finding's figures are stored sorted by name ("end_bytes" and the fit's
 * times come first alphabetically): round 5, leakspike. */
static void answer_leads_with_the_deciding_figures(void **state)
{
	struct timeline *tl = t_open();
	char *m;
	(void)state;

	t_exec(tl, "INSERT INTO event(kind, time_ns, clock, bytes) VALUES ('torch_oom', 1000, 'utc', 1024);"
		 "INSERT INTO finding(rule, class, cause, score, title, figures) VALUES"
		 " ('leak', 'leak', 'growth', 0.7, 'grows', '{\"end_bytes\":80851705856,"
		 "\"fit_end_time_ns\":1.8e18,\"fit_start_time_ns\":1.7e18,\"growth_bytes\":4112000000,"
		 "\"r2\":0.97,\"slope_mb_per_hour\":759.3,\"span_hours\":5.169}');"
		 "INSERT INTO verdict(class, confidence) VALUES ('leak', 0.73)");
	m = t_render(tl, REPORT_MD, NULL);
	t_contains(m, "**Evidence:** growth rate +759.3 MiB/h");
	assert_null(strstr(m, "**Evidence:** end"));
	free(m);
	t_close(tl);
}

/* The HTML navigation, the HTML sections, the Markdown sections and the
 * JSON keys all follow the one table, in its order. */
static void sections_table_orders_every_format(void **state)
{
	struct timeline *tl = t_open();
	char *h, *m, *s, *p;
	const char *md_heads[] = { "### Findings", "### Processes killed or failed",
				   "### Artifacts", "### Not determined", NULL };
	const char *after = NULL;
	json_t *j;
	int i, keys = 0;
	(void)state;

	t_build_incident(tl, 1);
	h = t_render(tl, REPORT_HTML, NULL);
	p = strstr(h, "<nav>");
	assert_non_null(p);
	for (i = 0; report_sections[i].id; i++) {
		char link[80], sect[80];
		if (!report_sections[i].html)
			continue;
		snprintf(link, sizeof(link), "<a href=\"#%s\">", section_anchor(&report_sections[i]));
		snprintf(sect, sizeof(sect), "<section id=%s>", section_anchor(&report_sections[i]));
		p = strstr(p, link);                  /* the links, in table order */
		assert_non_null(p);
		assert_non_null(strstr(h, sect));
		if (after)
			assert_true(strstr(h, sect) > strstr(h, after));   /* the body too */
		after = strstr(h, sect);
	}
	t_contains(h, "<a href=\"#tasks\">Processes</a>");
	t_contains(h, "<section id=tasks><h2>Processes at the kernel OOM</h2>");
	free(h);
	m = t_render(tl, REPORT_MD, NULL);
	for (i = 0, p = m; md_heads[i]; i++) {
		p = strstr(p, md_heads[i]);
		if (!p)
			fail_msg("Markdown section missing or out of order: %s", md_heads[i]);
	}
	free(m);
	s = t_render(tl, REPORT_JSON, NULL);
	j = json_loads(s, JSON_PRESERVE_ORDER, NULL);
	assert_non_null(j);
	{
		void *it = json_object_iter(j);
		for (i = 0; report_sections[i].id; i++) {
			if (!report_sections[i].json)
				continue;
			assert_non_null(it);
			assert_string_equal(json_object_iter_key(it), report_sections[i].id);
			it = json_object_iter_next(j, it);
			keys++;
		}
		assert_null(it);                      /* no key outside the table */
	}
	assert_int_equal(keys, 24);   /* ledger, tool_holders, peaks, profile, serving_whatif, answer, partial, oom_load added */
	json_decref(j);
	free(s);
	t_close(tl);
}

/* Statements run by one report: a query without parameters that runs
 * twice read the same rows twice. */
struct runs {
	char *sql[512];
	int n[512], count;
};

static int trace_run(unsigned type, void *ctx, void *p, void *x)
{
	struct runs *r = ctx;
	const char *sql = x;
	int i;

	(void)type;
	(void)p;
	/* SQLite shows a statement run inside another (a packed table reading
	 * its blocks) as "-- SQL": it reads for the outer one, counted already */
	if (!strncmp(sql, "-- ", 3))
		return 0;
	for (i = 0; i < r->count; i++)
		if (!strcmp(r->sql[i], sql)) {
			r->n[i]++;
			return 0;
		}
	if (r->count < 512) {
		r->sql[r->count] = strdup(sql);
		r->n[r->count++] = 1;
	}
	return 0;
}

static void each_query_runs_once_per_report(void **state)
{
	static const enum report_format forms[] = { REPORT_HTML, REPORT_MD, REPORT_JSON };
	struct timeline *tl = t_open();
	int f, i;
	(void)state;

	t_build_incident(tl, 1);
	for (f = 0; f < 3; f++) {
		struct runs r;
		memset(&r, 0, sizeof(r));
		sqlite3_trace_v2(tl->db, SQLITE_TRACE_STMT, trace_run, &r);
		free(t_render(tl, forms[f], NULL));
		sqlite3_trace_v2(tl->db, 0, NULL, NULL);
		assert_true(r.count > 10);            /* the trace saw the report */
		for (i = 0; i < r.count; i++) {
			if (!strchr(r.sql[i], '?') && r.n[i] > 1)
				fail_msg("format %d ran %d times: %s", f, r.n[i], r.sql[i]);
			free(r.sql[i]);
		}
	}
	t_close(tl);
}

/* The victim of a task dump whose kill does not name its invoker (older
 * kernels, lost lines): the next kill of the same log. The HTML
 * highlighted it and the JSON said null; both take it from one model. */
static void caps_say_how_many_more(void **state)
{
	struct timeline *tl = t_open();
	char *h, *m, *s;
	json_t *j;
	int i;
	(void)state;

	t_exec(tl, "BEGIN");
	for (i = 0; i < 60; i++)
		t_execf(tl, "INSERT INTO finding(id, rule, class, score, title) VALUES"
		      " (%d, 'r%d', 'leak', %f, 'finding %d')", i + 1, i, 1.0 - i / 100.0, i);
	for (i = 0; i < 25; i++)
		t_execf(tl, "INSERT INTO evidence(finding_id, ref_table, ref_id, note) VALUES"
		      " (1, 'series', %d, 'row %d')", i, i);
	for (i = 0; i < 510; i++)
		t_execf(tl, "INSERT INTO artifact(id, path, kind, status) VALUES (%d, 'a%d.log',"
		      " 'kernel_log', 'ok')", i + 1, i);
	for (i = 0; i < 23; i++)
		t_execf(tl, "INSERT INTO diagnostic(artifact_id, line, severity, message) VALUES"
		      " (1, %d, 'warning', 'odd line')", i + 1);
	t_exec(tl, "COMMIT");
	h = t_render(tl, REPORT_HTML, NULL);
	t_contains(h, "<p class=more>10 more findings in the database.</p>");
	t_contains(h, "<p class=more>5 more evidence rows in the database.</p>");
	t_contains(h, "<li class=more>3 more diagnostics in the database</li>");
	t_contains(h, "<p class=more>10 more artifacts in the database.</p>");
	t_contains(h, "(+59 more findings)");
	t_lacks(h, "finding 50<");
	free(h);
	m = t_render(tl, REPORT_MD, NULL);
	t_contains(m, "55 more findings in the full report.");
	t_contains(m, "480 more artifacts in the database.");
	free(m);
	s = t_render(tl, REPORT_JSON, NULL);
	j = json_loads(s, 0, NULL);
	assert_int_equal(json_array_size(json_object_get(j, "findings")), 60);
	assert_int_equal(json_array_size(json_object_get(json_array_get(json_object_get(j,
		"findings"), 0), "evidence")), 25);
	assert_int_equal(json_array_size(json_object_get(j, "artifacts")), 510);
	assert_int_equal(json_array_size(json_object_get(json_array_get(json_object_get(j,
		"artifacts"), 0), "diagnostics")), 23);
	assert_null(json_object_get(json_array_get(json_object_get(j, "findings"), 0),
				    "evidence_total"));  /* counts past caps are for people only */
	json_decref(j);
	free(s);
	t_close(tl);
}

/* Run report_write with stderr sent to a file; returns what it returned,
 * fills err, and fails if anything was printed. */
static int write_quietly(struct timeline *tl, enum report_format f, struct strbuf *err)
{
	char path[] = "/tmp/oomlens-test-stderr.XXXXXX";
	int fd = mkstemp(path), saved = dup(2), r;
	FILE *out = fopen("/dev/null", "w");

	assert_true(fd >= 0 && saved >= 0 && out);
	fflush(stderr);
	dup2(fd, 2);
	r = report_write(tl->db, f, out, err);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fclose(out);
	if (lseek(fd, 0, SEEK_END) != 0)
		fail_msg("the report printed on stderr");
	close(fd);
	unlink(path);
	return r;
}

/* A query that fails is returned with SQLite's message, never printed:
 * without the verdict table no HTML or Markdown can be written (its
 * header is the verdict), the JSON is written with null there; without a
 * table one section reads, the report is written and says which query
 * failed. */
static void failures_are_returned_not_printed(void **state)
{
	struct timeline *tl = t_open();
	struct strbuf err = STRBUF_INIT;
	(void)state;

	t_build_incident(tl, 1);
	t_exec(tl, "DROP TABLE anchor");
	assert_int_equal(write_quietly(tl, REPORT_HTML, &err), 0);
	t_contains(err.buf, "report query failed: no such table: anchor");
	strbuf_reset(&err);
	t_exec(tl, "DROP TABLE verdict");
	assert_int_equal(write_quietly(tl, REPORT_HTML, &err), -1);
	t_contains(err.buf, "report query failed: no such table: verdict");
	strbuf_reset(&err);
	assert_int_equal(write_quietly(tl, REPORT_MD, &err), -1);
	t_contains(err.buf, "no such table: verdict");
	strbuf_reset(&err);
	assert_int_equal(write_quietly(tl, REPORT_JSON, &err), 0);
	t_contains(err.buf, "no such table: verdict");
	strbuf_release(&err);
	t_close(tl);
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(html_missing_data_is_said),
		cmocka_unit_test(large_series_is_downsampled_with_its_peak),
		cmocka_unit_test(hostile_times_and_figures),
		cmocka_unit_test(answer_leads_with_the_deciding_figures),
		cmocka_unit_test(sections_table_orders_every_format),
		cmocka_unit_test(each_query_runs_once_per_report),
		cmocka_unit_test(caps_say_how_many_more),
		cmocka_unit_test(failures_are_returned_not_printed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
