/*
 * test_chart.c -- the HTML report's timeline chart is honest, on small
 * realistic timelines: a 71 -> 75 GiB leak on an 80 GiB card fills the
 * byte axis (which starts near the data, ticks in GiB) under the card's
 * labelled capacity; a cgroup's limit comes from the memory ledger; KV-cache
 * usage is a percentage whether a series holds percent (engine statistics
 * lines) or a ratio (Prometheus), in the legend and in the findings; samples
 * with no time are listed apart and never drawn, while the legend's peak
 * and the header's stay one figure; and an incident known only on the boot
 * clock is drawn on a boot-relative axis rather than not at all.
 */
#include "analyzer/derive/oom.h"
#include "testutil.h"
#include "analyzer/derive/derive.h"
#include "reports/report.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 2026-11-29T12:00:00Z */
#define T0 1795953600000000000LL
#define NS 1000000000LL
#define GiB 1073741824.0

static void exec(struct timeline *tl, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(tl->db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("SQL failed: %s\n%s", err, sql);
}

/* n samples of series id every step_s seconds from T0, rising linearly
 * from v0 to v1; time_ns NULL with boot set: on the boot clock only. */
static void samples(struct timeline *tl, int id, int n, int step_s, double v0, double v1,
		    int boot)
{
	char sql[256];
	int i;

	exec(tl, "BEGIN");
	for (i = 0; i < n; i++) {
		int64_t t = (boot ? 600 * NS : T0) + (int64_t)i * step_s * NS;
		double v = v0 + (v1 - v0) * i / (n > 1 ? n - 1 : 1);
		if (boot)
			snprintf(sql, sizeof(sql), "INSERT INTO sample(series_id, time_ns, boot_ns,"
				 " value) VALUES (%d, NULL, %lld, %.17g)", id, (long long)t, v);
		else
			snprintf(sql, sizeof(sql), "INSERT INTO sample(series_id, time_ns, value)"
				 " VALUES (%d, %lld, %.17g)", id, (long long)t, v);
		exec(tl, sql);
	}
	exec(tl, "COMMIT");
}

/* The HTML report of tl (every query of it must have worked). */
static char *render_html(struct timeline *tl)
{
	struct strbuf err = STRBUF_INIT;
	char *buf = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&buf, &n);

	assert_non_null(out);
	/* the derived tables the reports read, as analyze derives them (the
	 * test built the rest) */
	assert_int_equal(derive_one(tl, "oom", &err), 0);
	assert_int_equal(derive_one(tl, "peak", &err), 0);
	assert_int_equal(report_write(tl->db, REPORT_HTML, out, &err), 0);
	if (err.len)
		fail_msg("the report said: %s", err.buf);
	strbuf_release(&err);
	fclose(out);
	if (getenv("TEST_CHART_DUMP")) {   /* to look at a failing case */
		FILE *f = fopen(getenv("TEST_CHART_DUMP"), "a");
		if (f) {
			fputs(buf, f);
			fclose(f);
		}
	}
	return buf;
}

/* The timeline section of HTML h, cut in place (h is changed). */
static char *timeline_of(char *h)
{
	char *s = strstr(h, "<section id=timeline>"), *e;

	assert_non_null(s);
	e = strstr(s, "</section>");
	assert_non_null(e);
	*e = '\0';
	return s;
}

static void contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("expected to find: %s", needle);
}

static void lacks(const char *hay, const char *needle)
{
	const char *p = strstr(hay, needle);
	if (p)
		fail_msg("did not expect: %s\nat: %.160s", needle, p);
}

/* A slow leak, 71 -> 75 GiB over five hours, on a card of 80 GiB known
 * only from PyTorch's message (meta gpu.total_bytes.gpu0): the axis
 * starts at 70 GiB, not at 0, and the card's total is a labelled line. */
static void leak_fills_the_axis_under_the_capacity(void **state)
{
	struct timeline *tl = t_open();
	char *h, *tlsec;
	(void)state;

	exec(tl, "INSERT INTO series(id, name, unit, entity) VALUES"
		 " (1, 'gpu.used_bytes', 'bytes', 'gpu0')");
	exec(tl, "INSERT INTO meta(key, value) VALUES ('gpu.total_bytes.gpu0', '85899345920')");
	samples(tl, 1, 301, 60, 71 * GiB, 75 * GiB, 0);
	h = render_html(tl);
	tlsec = timeline_of(h);
	contains(tlsec, "class=yl>70 GiB</text>");
	contains(tlsec, "class=yl>72 GiB</text>");
	contains(tlsec, "class=yl>80 GiB</text>");
	contains(tlsec, "axis from 70 GiB");
	lacks(tlsec, "class=yl>0 </text>");           /* not from zero */
	lacks(tlsec, "class=yl>10 GiB</text>");
	/* the capacity: a dashed line with its figure, where it came from */
	contains(tlsec, "<g class=cap><title>gpu0 total 80.0 GiB: meta gpu.total_bytes.gpu0</title>"
		 "<line x1=74 x2=974");
	contains(tlsec, "class=als fill=\"#1f5fa8\">gpu0 total 80.0 GiB</text>");
	contains(tlsec, "gpu0 total <span class=muted>80.0 GiB (capacity)</span>");
	/* one figure for the peak: header and legend */
	contains(h, "Peak memory</div><div class=kv>75.0 GiB");
	contains(tlsec, "peak 75.0 GiB</span>");
	free(h);
	t_close(tl);
}

/* The ledger's capacity of the host (a memory cgroup's limit) is the
 * line drawn, named as the ledger names its source; a card's total far
 * above the data is named above the plot instead of flattening it. */
static void ledger_capacity_and_far_capacity(void **state)
{
	struct timeline *tl = t_open();
	char *h, *tlsec;
	(void)state;

	exec(tl, "CREATE TABLE ledger(id INTEGER PRIMARY KEY, scope TEXT, entity TEXT, device"
		 " INTEGER, line TEXT, label TEXT, bytes INTEGER, part INTEGER, certainty TEXT,"
		 " moment TEXT, how TEXT, source TEXT, ref_table TEXT, ref_id INTEGER)");
	exec(tl, "INSERT INTO ledger(scope, entity, device, line, label, bytes, part, source)"
		 " VALUES ('host', '/kubepods/pod1', NULL, 'capacity', 'capacity', 17179869184, 0,"
		 " 'cgroup files memory.max (/sys/fs/cgroup/memory.max)'),"
		 " ('gpu', 'gpu0', 0, 'capacity', 'capacity', 85899345920, 0,"
		 " 'PyTorch''s out-of-memory message (worker.err line 12)')");
	exec(tl, "INSERT INTO series(id, name, unit, entity) VALUES"
		 " (1, 'cgroup.current_bytes', 'bytes', '/kubepods/pod1')");
	samples(tl, 1, 120, 30, 2 * GiB, 15.5 * GiB, 0);
	h = render_html(tl);
	tlsec = timeline_of(h);
	contains(tlsec, "<g class=cap><title>cgroup limit 16.0 GiB: cgroup files memory.max"
		 " (/sys/fs/cgroup/memory.max)</title><line ");
	contains(tlsec, ">cgroup limit 16.0 GiB</text>");
	contains(tlsec, "&#8593; gpu0 total 80.0 GiB, above the axis</text>");
	contains(tlsec, "class=yl>0 </text>");   /* 2 -> 15.5 GiB: from zero */
	lacks(tlsec, "axis from");
	free(h);
	t_close(tl);
}

/* KV-cache usage is stored in percent by the engine's statistics lines
 * and as a ratio by Prometheus: both read as a percentage, in the legend,
 * on the axis and in a finding's figures; never 2190 %. */
static void kv_usage_is_a_percentage(void **state)
{
	struct timeline *tl = t_open();
	char *h, *tlsec;
	(void)state;

	exec(tl, "INSERT INTO series(id, name, unit, entity) VALUES"
		 " (1, 'server.gpu_kv_usage', 'percent', 'vllm'),"
		 " (2, 'server.gpu_kv_usage', 'ratio', 'vllm model_name=\"llama\"'),"
		 " (3, 'server.running', 'requests', 'vllm')");
	samples(tl, 1, 100, 10, 11.9, 21.9, 0);
	samples(tl, 2, 100, 10, 0.25, 0.5, 0);
	samples(tl, 3, 100, 10, 20, 44, 0);
	exec(tl, "INSERT INTO finding(rule, class, cause, score, title, figures) VALUES"
		 " ('concurrency_spike', 'spike', 'requests', 0.5, 'Requests rose',"
		 " '{\"kv_usage_before\": 11.939, \"kv_usage_peak\": 21.9}')");
	h = render_html(tl);
	contains(h, "<th title=\"kv_usage_peak\">KV-cache usage at its peak</th><td class=n title=\"21.899999999999999\">21.9 %</td>");
	contains(h, "<th title=\"kv_usage_before\">KV-cache usage before</th><td class=n title=\"11.939\">11.9 %</td>");
	tlsec = timeline_of(h);
	contains(tlsec, "GPU KV cache <span class=ent>vllm</span> <span class=muted"
		 " title=\"server.gpu_kv_usage: 100 samples, drawn as 100 pixel columns\">peak 21.9 %");
	contains(tlsec, "peak 50.0 %");
	contains(tlsec, "class=yl>100 %</text>");
	lacks(tlsec, "2190");
	lacks(tlsec, "class=yl>200 %");
	lacks(tlsec, "peak 0.5 %");
	free(h);
	t_close(tl);
}

/* A bare memory.current (no time inside) and a GPU sample without a time:
 * listed apart under "Time unknown", never drawn; the legend's peak of
 * gpu.used is the header's, said to be of unknown time. */
static void untimed_samples_are_shown_apart(void **state)
{
	struct timeline *tl = t_open();
	char *h, *tlsec;
	(void)state;

	exec(tl, "INSERT INTO series(id, name, unit, entity) VALUES"
		 " (1, 'gpu.used_bytes', 'bytes', 'gpu0'),"
		 " (2, 'cgroup.current_bytes', 'bytes', '/system.slice/vllm.service')");
	samples(tl, 1, 60, 60, 40 * GiB, 60 * GiB, 0);
	exec(tl, "INSERT INTO sample(series_id, time_ns, value) VALUES (1, NULL, 75161927680),"
		 " (2, NULL, 14173392076)");
	exec(tl, "INSERT INTO sample(series_id, time_ns, boot_ns, value) VALUES"
		 " (2, NULL, 5000000000, 1e9)");
	h = render_html(tl);
	contains(h, "Peak memory</div><div class=kv>70.0 GiB");
	contains(h, "gpu.used_bytes gpu0, time unknown (<a href=\"#time-unknown\">not on the chart</a>)");
	tlsec = timeline_of(h);
	contains(tlsec, "peak 70.0 GiB (time unknown: not drawn)</span>");
	contains(tlsec, "<h3 id=time-unknown>Time unknown</h3>");
	contains(tlsec, "2 series have samples with no time on UTC: they are not placed on the chart.");
	contains(tlsec, "<tr><td><code>cgroup.current_bytes</code></td><td>/system.slice/vllm.service"
		 "</td><td class=n>2</td><td class=n>13.2 GiB</td><td>1 on the boot clock only, the"
		 " others none</td></tr>");
	contains(tlsec, "<tr><td><code>gpu.used_bytes</code></td><td>gpu0</td><td class=n>1</td>"
		 "<td class=n>70.0 GiB</td><td>none</td></tr>");
	/* not drawn: the series with no time has no line, and the axis tops
	 * out over the timed data (60 GiB), not at the untimed 70 GiB */
	lacks(tlsec, "cgroup usage");
	contains(tlsec, "class=yl>60 GiB</text>");
	lacks(tlsec, "class=yl>70 GiB</text>");
	free(h);
	t_close(tl);
}

/* A kernel OOM in a dmesg without wall-clock times, and RSS samples on
 * the boot clock: drawn against seconds since boot, said so. */
static void boot_clock_only_incident_is_drawn(void **state)
{
	struct timeline *tl = t_open();
	char *h, *tlsec;
	(void)state;

	exec(tl, "INSERT INTO series(id, name, unit, entity) VALUES"
		 " (1, 'proc.rss_bytes', 'bytes', 'pid:4312')");
	samples(tl, 1, 40, 15, 20 * GiB, 30 * GiB, 1);
	exec(tl, "INSERT INTO event(kind, time_ns, clock, boot_ns, pid, comm, summary) VALUES"
		 " ('oom_invoked', NULL, 'boot', 1190000000000, 5120, 'node_exporter', 'invoked'),"
		 " ('oom_kill', NULL, 'boot', 1190100000000, 4312, 'python3', 'Killed process 4312')");
	h = render_html(tl);
	tlsec = timeline_of(h);
	lacks(tlsec, "Nothing to draw");
	contains(tlsec, "<svg xmlns");
	contains(tlsec, "seconds since boot (boot clock: no UTC time known)");
	contains(tlsec, "<g class=mk><title>oom_kill at boot+1190.100 s, pid 4312 (python3)");
	contains(tlsec, "class=xl>960</text>");
	contains(tlsec, "process RSS <span class=ent>pid:4312</span>");
	contains(tlsec, "the chart is on the boot clock, in seconds since boot.");
	lacks(tlsec, "time (UTC)");
	contains(tlsec + strlen(tlsec) + 1, "listed as boot+seconds and drawn on the chart against"
		 " seconds since boot");
	free(h);
	t_close(tl);
}

/* A Grafana panel the leak rule read as memory in use (its unit unsaid,
 * its name no _bytes): drawn, and the header's peak, said to be the
 * series the finding read; a Grafana panel no finding read is not. */
static void a_series_a_finding_read_is_drawn(void **state)
{
	struct timeline *tl = t_open();
	char *h, *tlsec;
	(void)state;

	exec(tl, "INSERT INTO series(id, name, unit, entity) VALUES"
		 " (1, 'grafana.series', NULL, 'worker-0 rss'),"
		 " (2, 'grafana.series', NULL, 'worker-0 cpu')");
	samples(tl, 1, 73, 300, 2.9 * GiB, 4.3 * GiB, 0);
	samples(tl, 2, 73, 300, 0.5, 0.9, 0);
	exec(tl, "INSERT INTO finding(id, rule, class, cause, score, title) VALUES"
		 " (1, 'leak', 'leak', 'growth', 0.9, 'grafana.series worker-0 rss grows')");
	exec(tl, "INSERT INTO evidence(finding_id, ref_table, ref_id, note) VALUES"
		 " (1, 'series', 1, 'memory in use, trend fitted')");
	h = render_html(tl);
	contains(h, "Peak memory</div><div class=kv>4.30 GiB");
	contains(h, "grafana.series worker-0 rss, the series the finding read");
	tlsec = timeline_of(h);
	lacks(tlsec, "Nothing to draw");
	contains(tlsec, "peak 4.30 GiB</span>");
	lacks(tlsec, "worker-0 cpu");
	free(h);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(leak_fills_the_axis_under_the_capacity),
		cmocka_unit_test(ledger_capacity_and_far_capacity),
		cmocka_unit_test(kv_usage_is_a_percentage),
		cmocka_unit_test(untimed_samples_are_shown_apart),
		cmocka_unit_test(boot_clock_only_incident_is_drawn),
		cmocka_unit_test(a_series_a_finding_read_is_drawn),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
