/*
 * test_report.c -- the three report forms, rendered from
 * in-memory incident databases: a full vLLM incident (series, OOM events,
 * task dump, snapshot tables, CUDA core tables, findings with chart
 * annotation figures, a verdict) with hostile strings wherever an artifact
 * controls text; an empty database; and a million-sample series that must
 * draw under 2 MB with its one-sample peak kept. Also what the sections
 * table promises: one order for every format, each query run once per
 * report, the same figure in every format, counts past the caps, and
 * failures returned rather than printed.
 */
#include "testutil.h"
#include "analyzer/derive/derive.h"
#include "reports/report.h"
#include "reports/section.h"
#include "reports/summary.h"
#include "lib/strbuf.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOSTILE_SCRIPT "<script>alert(1)</script>"
#define HOSTILE_IMG "\"><img src=x onerror=alert(1)>"
#define HOSTILE_JS "javascript:alert(1)"

/* Domain tables as docs/schema.md describes them (their stores live on
 * other branches; the report must work with and without them). */
static const char domain_sql[] =
	"CREATE TABLE IF NOT EXISTS snapshot(id INTEGER PRIMARY KEY, artifact_id INTEGER, form TEXT,"
	" protocol INTEGER, devices INTEGER, trace_events INTEGER, settings TEXT);"
	"CREATE TABLE IF NOT EXISTS segment(id INTEGER PRIMARY KEY, snapshot_id INTEGER, device INTEGER,"
	" address INTEGER, total_size INTEGER, allocated_size INTEGER, active_size INTEGER,"
	" requested_size INTEGER, stream INTEGER, segment_type TEXT, pool_id TEXT,"
	" is_expandable INTEGER, stack_id INTEGER);"
	"CREATE TABLE IF NOT EXISTS block(segment_id INTEGER, address INTEGER, size INTEGER,"
	" requested_size INTEGER, state TEXT, stack_id INTEGER);"
	"CREATE TABLE IF NOT EXISTS alloc(snapshot_id INTEGER, device INTEGER, addr INTEGER, size INTEGER,"
	" alloc_seq INTEGER, alloc_ns INTEGER, free_seq INTEGER, free_ns INTEGER, state TEXT,"
	" stack_id INTEGER);"
	"CREATE TABLE IF NOT EXISTS gpu_device(artifact_id INTEGER, device INTEGER, name TEXT, type TEXT,"
	" sm_type TEXT, num_sms INTEGER);"
	"CREATE TABLE IF NOT EXISTS gpu_context(artifact_id INTEGER, device INTEGER, context_id INTEGER,"
	" tid INTEGER);"
	"CREATE TABLE IF NOT EXISTS gpu_grid(artifact_id INTEGER, device INTEGER, grid_id INTEGER,"
	" function TEXT, grid_dim TEXT, block_dim TEXT, status TEXT);"
	"CREATE TABLE IF NOT EXISTS gpu_region(artifact_id INTEGER, device INTEGER, kind TEXT,"
	" address INTEGER, size INTEGER);"
	"CREATE TABLE IF NOT EXISTS thread(artifact_id INTEGER, tid INTEGER, name TEXT, signal TEXT,"
	" stack_id INTEGER);";

/* 2025-11-29T18:22:40Z, the kernel OOM */
#define T_OOM 1764440560000000000LL
#define NS 1000000000LL
#define GiB 1073741824LL

static void exec(struct timeline *tl, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(tl->db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("SQL failed: %s\n%s", err, sql);
}

static void execf(struct timeline *tl, const char *fmt, ...)
{
	char sql[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	exec(tl, sql);
}

/* A leak on an 80 GiB card over two hours, a request spike in its last
 * 8 minutes, the kernel OOM that killed the server. Strings an artifact
 * controls carry markup. */
static void build_incident(struct timeline *tl, int with_domain)
{
	sqlite3_stmt *st;
	int i;

	exec(tl, "INSERT INTO artifact(id, path, kind, size, compressed, status, bytes_read,"
		 " seconds, errors, warnings) VALUES"
		 " (1, 'incident/nvidia-smi.csv', 'nvidia_smi', 41200, 0, 'ok', 41200, 0.01, 0, 0),"
		 " (2, 'incident/kern.log" HOSTILE_SCRIPT "', 'kernel_oom', 18400, 1, 'partial',"
		 "  18400, 0.02, 1, 0),"
		 " (3, 'incident/vllm.log', 'vllm_log', 230000, 0, 'ok', 230000, 0.03, 0, 0),"
		 " (4, 'incident/core.cuda', NULL, 9000, 0, 'failed', 0, 0.0, 1, 0)");
	exec(tl, "INSERT INTO diagnostic(artifact_id, line, offset, severity, message) VALUES"
		 " (2, 731, NULL, 'error', 'expected the task dump columns, got ''" HOSTILE_IMG "'''),"
		 " (4, NULL, 4096, 'error', 'ELF note segment truncated: expected 212 bytes')");
	exec(tl, "INSERT INTO meta(artifact_id, key, value) VALUES"
		 " (NULL, 'cgroup.max_bytes', '68719476736'), (NULL, 'kernel.page_size', '4096'),"
		 " (NULL, 'server.model', 'meta-llama/Llama-3.1-8B-Instruct')");
	exec(tl, "INSERT INTO series(id, artifact_id, name, unit, entity) VALUES"
		 " (1, 1, 'gpu.used_bytes', 'bytes', 'gpu0'),"
		 " (2, 1, 'gpu.total_bytes', 'bytes', 'gpu0'),"
		 " (3, 3, 'server.running', 'requests', 'vllm'),"
		 " (4, 3, 'server.gpu_kv_usage', 'ratio', 'vllm'),"
		 " (5, 2, 'cgroup.current_bytes', 'bytes', '/sys" HOSTILE_IMG "'),"
		 " (6, 2, 'x" HOSTILE_SCRIPT "_bytes', 'bytes', '')");
	exec(tl, "INSERT INTO sample(series_id, time_ns, value) VALUES (6, 1764440000000000000, 1e9)");
	exec(tl, "INSERT INTO sample(series_id, time_ns, boot_ns, value) VALUES (1, NULL, 5, 1e9)");
	assert_int_equal(sqlite3_prepare_v2(tl->db, "INSERT INTO sample(series_id, time_ns, value)"
					    " VALUES (?, ?, ?)", -1, &st, NULL), SQLITE_OK);
	exec(tl, "BEGIN");
	for (i = 0; i <= 1440; i++) {           /* every 5 s for 2 h */
		int64_t t = T_OOM - 7200 * NS + (int64_t)i * 5 * NS;
		double used = 62.0 * GiB + (double)i / 1440 * 14 * GiB;
		double running = 40 + (i % 7);
		if (t > T_OOM - 480 * NS) {
			used += (double)(t - (T_OOM - 480 * NS)) / (480.0 * NS) * 3 * GiB;
			running = 40 + (double)(t - (T_OOM - 480 * NS)) / (480.0 * NS) * 200;
		}
		const double vals[5] = { used, 79.6 * GiB, running, running / 260, 11.0 * GiB };
		int k;
		for (k = 0; k < 5; k++) {
			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, k + 1);
			sqlite3_bind_int64(st, 2, t);
			sqlite3_bind_double(st, 3, vals[k]);
			assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		}
	}
	exec(tl, "COMMIT");
	sqlite3_finalize(st);
	execf(tl, "INSERT INTO event(id, artifact_id, kind, time_ns, clock, boot_ns, pid, comm,"
		  " bytes, line, summary, data) VALUES"
		  " (1, 3, 'torch_oom', %lld, 'utc', NULL, 4312, 'python3', 2147483648, 88120,"
		  "  'CUDA out of memory. Tried to allocate 2.00 GiB', '{\"device\":0}'),"
		  " (2, 2, 'oom_invoked', %lld, 'aligned', 1000, 5120, 'node_exporter', NULL, 700,"
		  "  'node_exporter invoked oom-killer', NULL),"
		  " (3, 2, 'oom_kill', %lld, 'aligned', 1001, 4312, '" HOSTILE_SCRIPT "', 28991029248,"
		  "  745, 'Killed process 4312', '{\"invoker_event\":2,\"anon_rss_kb\":28311552}'),"
		  " (4, 2, 'oom_reaper', NULL, 'boot', 99000000000, 4312, 'python3', NULL, 746,"
		  "  'oom_reaper: reaped process 4312', NULL)",
		  (long long)(T_OOM - NS), (long long)T_OOM, (long long)(T_OOM + NS / 10));
	/* server errors: one long before, 25 in the last minutes */
	execf(tl, "INSERT INTO event(artifact_id, kind, time_ns, clock, pid, comm, line, summary)"
		  " VALUES (3, 'server_error', %lld, 'utc', 4312, 'python3', 10, 'early traceback')",
		  (long long)(T_OOM - 7000 * NS));
	for (i = 0; i < 25; i++)
		execf(tl, "INSERT INTO event(artifact_id, kind, time_ns, clock, pid, comm, line,"
		      " summary) VALUES (3, 'server_error', %lld, 'utc', 4312, 'python3', %d,"
		      " 'traceback %d')", (long long)(T_OOM - (int64_t)(25 - i) * 10 * NS), 100 + i, i);
	exec(tl, "INSERT INTO task(event_id, pid, uid, tgid, total_vm_pages, rss_pages,"
		 " rss_anon_pages, rss_file_pages, rss_shmem_pages, swapents, oom_score_adj, name)"
		 " VALUES (2, 4312, 1000, 4312, 67250000, 7085888, 7083888, 1500, 500, 0, 0, '"
		 HOSTILE_SCRIPT "'),"
		 " (2, 4401, 1000, 4401, 1900000, 420000, 418000, 1500, 500, 0, 0, 'python3'),"
		 " (2, 5120, 65534, 5120, 180000, 9000, 7000, 1500, 500, 0, 0, 'node_exporter'),"
		 " (2, 1, 0, 1, 42000, 3000, 1000, 1500, 500, 0, -1000, 'systemd')");
	execf(tl, "INSERT INTO finding(id, rule, class, cause, score, title, advice, figures) VALUES"
		  " (1, 'leak_slope', 'leak', 'retained_allocations', 0.86,"
		  "  'GPU memory grew 7168 MiB/h and was not returned',"
		  "  'Look for references kept by " HOSTILE_JS "',"
		  "  '{\"slope_mb_per_hour\":7168.0,\"r2\":0.97,\"fit_start_time_ns\":%lld,"
		  "    \"fit_end_time_ns\":%lld,\"intercept_bytes\":66571993088,"
		  "    \"" HOSTILE_SCRIPT "\":1}'),"
		  " (2, 'concurrency_spike', 'spike', 'requests', 0.41, 'Requests rose 6x',"
		  "  'Lower max_num_seqs to 128.',"
		  "  '{\"spike_start_ns\":%lld,\"spike_end_ns\":%lld,\"peak_over_baseline_ratio\":6.0}'),"
		  " (3, 'headroom', 'misconfig', 'headroom', 0.3, 'Little headroom', NULL,"
		  "  '{\"baseline_bytes\":66571993088,\"total_bytes\":85470478336}')",
		  (long long)(T_OOM - 7200 * NS), (long long)(T_OOM - 600 * NS),
		  (long long)(T_OOM - 480 * NS), (long long)T_OOM);
	exec(tl, "INSERT INTO evidence(finding_id, ref_table, ref_id, note) VALUES"
		 " (1, 'series', 1, 'gpu.used_bytes fit over 2 h'), (1, 'event', 3, 'the victim')");
	exec(tl, "INSERT INTO verdict(class, cause, confidence, summary, missing) VALUES"
		 " ('leak', 'retained_allocations', 0.86, 'GPU memory leaked 7 GiB/h until the card"
		 " was full.', 'a second snapshot an hour earlier')");
	if (!with_domain)
		return;
	exec(tl, domain_sql);
	exec(tl, "INSERT INTO stack(id, hash, depth) VALUES (1, 11, 2), (2, 12, 2)");
	exec(tl, "INSERT INTO frame(stack_id, idx, name, file, line) VALUES"
		 " (1, 0, 'cache_kv', 'myservice/cache.py', 88),"
		 " (1, 1, '" HOSTILE_IMG "', 'myservice/" HOSTILE_SCRIPT ".py', 12),"
		 " (2, 0, 'forward', 'vllm/model_executor/models/llama.py', 301),"
		 " (2, 1, '_prefill', 'vllm/worker/model_runner.py', 77)");
	exec(tl, "INSERT INTO snapshot(id, artifact_id, form, protocol, devices, trace_events)"
		 " VALUES (1, 3, 'dict', 4, 1, 5)");
	exec(tl, "INSERT INTO alloc(snapshot_id, device, addr, size, alloc_seq, state, stack_id)"
		 " VALUES (1, 0, 4096, 1073741824, 1, 'live', 1), (1, 0, 8192, 1073741824, 2, 'live', 1),"
		 " (1, 0, 12288, 536870912, 3, 'live', 2), (1, 0, 16384, 999, 4, 'freed', 2)");
	exec(tl, "INSERT INTO segment(id, snapshot_id, device, address, total_size, allocated_size,"
		 " segment_type) VALUES (1, 1, 0, 0, 2147483648, 1610612736, 'large'),"
		 " (2, 1, 0, 2147483648, 20971520, 2097152, 'small')");
	exec(tl, "INSERT INTO block(segment_id, address, size, state) VALUES"
		 " (1, 0, 1073741824, 'active_allocated'), (1, 1073741824, 536870912, 'inactive'),"
		 " (1, 1610612736, 536870912, 'active_allocated'),"
		 " (2, 2147483648, 2097152, 'active_allocated'), (2, 2149580800, 18874368, 'inactive')");
	exec(tl, "INSERT INTO gpu_device(artifact_id, device, name, type, sm_type, num_sms) VALUES (4, 0, 'NVIDIA H100 80GB HBM3', 'GH100', 'sm_90', 132);"
		 "INSERT INTO gpu_context(artifact_id, device, context_id, tid) VALUES (4, 0, 1, 4312), (4, 0, 2, 4313);"
		 "INSERT INTO gpu_grid(artifact_id, device, grid_id, function, grid_x, grid_y, grid_z, block_x, block_y, block_z, status) VALUES (4, 0, 77, 'flash_fwd_kernel" HOSTILE_IMG "',"
		 " 1024, 1, 1, 256, 1, 1, 'active');"
		 "INSERT INTO gpu_region(artifact_id, device, kind, address, size) VALUES (4, 0, 'global', 0, 84825604096);"
		 "INSERT INTO thread(artifact_id, tid, name, signal, stack_id) VALUES (4, 4312, 'python3', 'SIGABRT', 1)");
}

/* Render db in format f into a malloc'd NUL-terminated string; every
 * query of the report must have worked. */
static char *render(struct timeline *tl, enum report_format f, size_t *len)
{
	struct strbuf err = STRBUF_INIT;
	char *buf = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&buf, &n);

	assert_non_null(out);
	/* the facts reports read (table peak), as analyze derives them */
	assert_int_equal(derive_incident(tl, &err), 0);
	assert_int_equal(report_write(tl->db, f, out, &err), 0);
	if (err.len)
		fail_msg("the report said: %s", err.buf);
	strbuf_release(&err);
	fclose(out);
	if (len)
		*len = n;
	return buf;
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
		fail_msg("did not expect: %s\nat: %.120s", needle, p);
}

/* No markup from the artifacts survives in an HTML or Markdown text: no
 * tag of theirs, and no tag of ours carries an event handler or a
 * javascript: URL (escaped text may still read "onerror=", as text). */
static void no_injection(const char *out)
{
	const char *p = out;

	lacks(out, "<script");
	lacks(out, "<img");
	lacks(out, "<svg onload");
	while ((p = strchr(p, '<')) != NULL) {
		const char *end = strchr(p, '>');
		char tag[4096];
		size_t n;
		assert_non_null(end);
		n = (size_t)(end - p) < sizeof(tag) - 1 ? (size_t)(end - p) : sizeof(tag) - 1;
		memcpy(tag, p, n);
		tag[n] = '\0';
		if (strstr(tag, "onerror") || strstr(tag, "onload") || strstr(tag, "javascript:"))
			fail_msg("injected attribute in tag: %s", tag);
		p = end;
	}
}

static void html_full_incident(void **state)
{
	struct timeline *tl = t_open();
	char *h;
	size_t n;
	(void)state;

	build_incident(tl, 1);
	h = render(tl, REPORT_HTML, &n);
	/* header: verdict, confidence, three key figures */
	contains(h, "Content-Security-Policy");
	contains(h, "<span class=vclass>Memory leak</span>");
	contains(h, "cause: <b>retained_allocations</b>");
	contains(h, "confidence <b>86 %</b>");
	contains(h, "Peak memory</div><div class=kv>79.0 GiB");   /* peak: gpu.used at the OOM */
	contains(h, "of 79.6 GiB (gpu.total_bytes gpu0)");
	contains(h, "pid 4312, oom_kill, 27.0 GiB freed");
	contains(h, "Leak rate</div><div class=kv>+7168.0 MiB/h");
	/* chart: panels, series, markers, annotations, UTC axis */
	contains(h, "<section id=timeline>");
	contains(h, "class=pt>memory</text>");
	contains(h, "class=pt>requests in flight</text>");
	contains(h, "class=pt>KV-cache usage</text>");
	contains(h, "stroke=\"#1f5fa8\"");                 /* gpu.used */
	contains(h, "</svg>x&lt;script&gt;alert(1)&lt;/script&gt;_bytes");  /* another byte series */
	contains(h, "<g class=leak>");
	contains(h, "leak +7168 MiB/h");
	contains(h, "<g class=spike>");
	contains(h, "<g class=headroom>");
	contains(h, "cgroup limit 64.0 GiB");
	contains(h, "<g class=mk><title>oom_kill at 2025-11-29T18:22:40.100000Z, pid 4312 (&lt;script&gt;");
	contains(h, "<g class=mk><title>torch_oom at");
	contains(h, "time (UTC) &#8212; 2025-11-29 16:22:40 to 2025-11-29 18:22:40");
	contains(h, "class=xl>17:00</text>");
	contains(h, "The 15 minutes before the first OOM event");
	/* sections */
	contains(h, "<section id=findings>");
	contains(h, "Requests rose 6x");
	contains(h, "<b>Advice:</b> Lower max_num_seqs to 128.");
	contains(h, "the victim <span class=muted>(event #3: oom_kill at 2025-11-29T18:22:40.100000Z");
	contains(h, "<tr class=victim><td class=n>4312</td>");
	contains(h, "<b class=killed>killed</b>");
	contains(h, "27.0 GiB</td>");                      /* 7085888 pages * 4096 */
	contains(h, "2.50 GiB live in 3 allocations from 2 stacks");
	contains(h, "<code>cache_kv</code> <span class=muted>myservice/cache.py:88</span>");
	contains(h, "2 segments reserve 2.02 GiB");
	contains(h, "the largest free block is 512 MiB");
	contains(h, "class=used");
	contains(h, "NVIDIA H100 80GB HBM3");
	contains(h, "<h3>Contexts per device</h3>");
	contains(h, "at byte 4096: ELF note segment truncated");
	contains(h, "a second snapshot an hour earlier");
	contains(h, "1 events are only on the boot clock");
	contains(h, "<li>1 samples have no UTC time and are not drawn.</li>");
	lacks(h, "early traceback");            /* server errors: the last 20 before the OOM */
	lacks(h, "traceback 4<");
	contains(h, "traceback 5<");
	contains(h, "traceback 24<");
	contains(h, "6 more OOM, kill and error events in the database");
	contains(h, "boot+99.000s");
	/* hostile strings: escaped in text, attributes and SVG */
	no_injection(h);
	contains(h, "&lt;script&gt;alert(1)&lt;/script&gt;");
	contains(h, "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
	assert_true(n < 200 * 1024);
	free(h);
	t_close(tl);
}

/* No markup from the artifacts survives in Markdown: every '<', '[', ']'
 * and '`' is backslash-escaped (CommonMark then shows it as a character),
 * so there is no tag, link, image or code span of theirs; our own markup
 * uses none of them. */
static void md_no_injection(const char *out)
{
	const char *p;

	for (p = out; *p; p++)
		if (strchr("<[]`", *p) && (p == out || p[-1] != '\\'))
			fail_msg("unescaped '%c' in Markdown at: %.60s", *p, p);
	lacks(out, "](");
}

static void markdown_full_incident(void **state)
{
	struct timeline *tl = t_open();
	char *m;
	(void)state;

	build_incident(tl, 1);
	m = render(tl, REPORT_MD, NULL);
	contains(m, "## OOM incident: leak (retained_allocations)");
	contains(m, "**Verdict:** leak, confidence 86 %");
	/* escaped only where markup would start: the text reads as itself */
	contains(m, "- **Killed:** \\<script>alert(1)\\</script> (pid 4312), oom_kill,"
		    " 27.0 GiB freed");
	contains(m, "- **Peak memory:** 79.0 GiB (gpu.used_bytes gpu0), 99.2 % of 79.6 GiB");
	contains(m, "1. **GPU memory grew 7168 MiB/h and was not returned** (leak,"
		    " retained_allocations, score 0.86)");
	contains(m, "slope_mb_per_hour +7168.0 MiB/h");
	contains(m, "*Advice:* Lower max_num_seqs to 128.");
	contains(m, "| 2025-11-29T18:22:40.100000Z | oom_kill | 4312 |");
	contains(m, "| incident/core.cuda | - | failed | 1 | 0 |");
	contains(m, "Missing evidence: a second snapshot an hour earlier");
	md_no_injection(m);
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

	build_incident(tl, 1);
	t = render(tl, REPORT_TEXT, NULL);
	contains(t, "OOM incident: leak (retained_allocations)\n=========");
	contains(t, "Verdict: leak, confidence 86 %");
	contains(t, "- Killed: <script>alert(1)</script> (pid 4312), oom_kill, 27.0 GiB freed");
	contains(t, "Advice: Lower max_num_seqs to 128.");
	contains(t, "2025-11-29T18:22:40.100000Z  oom_kill");
	lacks(t, "**");
	lacks(t, "\\");
	lacks(t, "| ");
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

	build_incident(tl, 1);
	snprintf(sql, sizeof(sql), "UPDATE finding SET title = '%s' WHERE id = (SELECT id FROM"
		 " finding ORDER BY score DESC LIMIT 1)", path);
	assert_int_equal(sqlite3_exec(tl->db, sql, NULL, NULL, NULL), SQLITE_OK);
	t = render(tl, REPORT_TEXT, NULL);
	contains(t, path);
	free(t);
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

	build_incident(tl, 1);
	s = render(tl, REPORT_JSON, NULL);
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
static void html_missing_data_is_said(void **state)
{
	struct timeline *tl = t_open();
	char *h, *m, *s;
	json_t *j;
	(void)state;

	build_incident(tl, 0);
	h = render(tl, REPORT_HTML, NULL);
	contains(h, "Not available: no PyTorch memory snapshot with an allocation trace");
	contains(h, "Not available: no PyTorch memory snapshot was ingested.");
	contains(h, "Not available: no CUDA or host core dump was ingested.");
	lacks(h, "<h3>Devices</h3>");
	contains(h, "<g class=leak>");                    /* the rest is still there */
	free(h);
	t_close(tl);

	tl = t_open();
	h = render(tl, REPORT_HTML, NULL);
	contains(h, "<span class=vclass>No verdict</span>");
	contains(h, "Nothing to draw: the database holds no time series");
	contains(h, "No rule produced a finding");
	contains(h, "No events were found in the artifacts.");
	contains(h, "No kernel OOM task dump in the artifacts");
	contains(h, "No verdict is recorded");
	contains(h, "No memory time series");
	lacks(h, "<svg xmlns");
	free(h);
	m = render(tl, REPORT_MD, NULL);
	contains(m, "## OOM incident: no verdict");
	contains(m, "- **Killed:** unknown (no kill recorded)");
	contains(m, "No rule found enough evidence");
	free(m);
	s = render(tl, REPORT_JSON, NULL);
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

	exec(tl, "INSERT INTO series(id, name, unit, entity) VALUES (1, 'gpu.used_bytes', 'bytes',"
		 " 'gpu0')");
	assert_int_equal(sqlite3_prepare_v2(tl->db, "INSERT INTO sample(series_id, time_ns, value)"
					    " VALUES (1, ?, ?)", -1, &st, NULL), SQLITE_OK);
	exec(tl, "BEGIN");
	for (i = 0; i < 1000000; i++) {          /* 1M samples, every 100 ms: 27.8 hours */
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, T_OOM - 100000 * NS + (int64_t)i * (NS / 10));
		/* 10 GiB with a sawtooth, and one sample of 50 GiB */
		sqlite3_bind_double(st, 2, i == 612345 ? 50.0 * GiB
					   : 10.0 * GiB + (double)(i % 1000) * 1048576);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	}
	exec(tl, "COMMIT");
	sqlite3_finalize(st);
	h = render(tl, REPORT_HTML, &n);
	assert_true(n < 2 * 1024 * 1024);
	pts = path_extent(h, "#1f5fa8", &ymin, &ymax);
	assert_true(pts <= 4 * 900);
	assert_true(pts > 900);
	/* axis 0..60 GiB over 290 px from y=60: 50 GiB at 60 + 290/6 = 108.3 */
	assert_true(ymin > 107.5 && ymin < 109.5);
	assert_true(ymax > 297);                 /* the 10 GiB floor: 60 + 290 * 5/6 */
	contains(h, "peak 50.0 GiB");
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

	exec(tl, "INSERT INTO series(id, name, unit, entity) VALUES (1, 'gpu.used_bytes', 'bytes', 'gpu0'),"
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
	h = render(tl, REPORT_HTML, NULL);
	contains(h, "<svg xmlns");
	contains(h, "confidence <b>100 %</b>");    /* clamped to 0..1 */
	no_injection(h);
	free(h);
	m = render(tl, REPORT_MD, NULL);
	md_no_injection(m);
	contains(m, "confidence 100 %");         /* the same clamp as the HTML's */
	free(m);
	s = render(tl, REPORT_JSON, NULL);
	assert_non_null(strstr(s, "\"verdict\""));
	free(s);
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

	build_incident(tl, 1);
	h = render(tl, REPORT_HTML, NULL);
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
	contains(h, "<a href=\"#tasks\">Processes</a>");
	contains(h, "<section id=tasks><h2>Processes at the kernel OOM</h2>");
	free(h);
	m = render(tl, REPORT_MD, NULL);
	for (i = 0, p = m; md_heads[i]; i++) {
		p = strstr(p, md_heads[i]);
		if (!p)
			fail_msg("Markdown section missing or out of order: %s", md_heads[i]);
	}
	free(m);
	s = render(tl, REPORT_JSON, NULL);
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
	assert_int_equal(keys, 19);   /* ledger, tool_holders, then peaks added */
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

	build_incident(tl, 1);
	for (f = 0; f < 3; f++) {
		struct runs r;
		memset(&r, 0, sizeof(r));
		sqlite3_trace_v2(tl->db, SQLITE_TRACE_STMT, trace_run, &r);
		free(render(tl, forms[f], NULL));
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
static void dump_victim_agrees_between_formats(void **state)
{
	struct timeline *tl = t_open();
	char *h, *s;
	json_t *j;
	(void)state;

	build_incident(tl, 0);
	exec(tl, "UPDATE event SET data = '{\"anon_rss_kb\":28311552}' WHERE id = 3");
	h = render(tl, REPORT_HTML, NULL);
	contains(h, "<tr class=victim><td class=n>4312</td>");
	free(h);
	s = render(tl, REPORT_JSON, NULL);
	j = json_loads(s, 0, NULL);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(j,
		"oom_tasks"), 0), "victim_pid")), 4312);
	json_decref(j);
	free(s);
	t_close(tl);
}

/* Past the caps every form says how many more rows the database holds;
 * the JSON has them all. */
static void caps_say_how_many_more(void **state)
{
	struct timeline *tl = t_open();
	char *h, *m, *s;
	json_t *j;
	int i;
	(void)state;

	exec(tl, "BEGIN");
	for (i = 0; i < 60; i++)
		execf(tl, "INSERT INTO finding(id, rule, class, score, title) VALUES"
		      " (%d, 'r%d', 'leak', %f, 'finding %d')", i + 1, i, 1.0 - i / 100.0, i);
	for (i = 0; i < 25; i++)
		execf(tl, "INSERT INTO evidence(finding_id, ref_table, ref_id, note) VALUES"
		      " (1, 'series', %d, 'row %d')", i, i);
	for (i = 0; i < 510; i++)
		execf(tl, "INSERT INTO artifact(id, path, kind, status) VALUES (%d, 'a%d.log',"
		      " 'kernel_log', 'ok')", i + 1, i);
	for (i = 0; i < 23; i++)
		execf(tl, "INSERT INTO diagnostic(artifact_id, line, severity, message) VALUES"
		      " (1, %d, 'warning', 'odd line')", i + 1);
	exec(tl, "COMMIT");
	h = render(tl, REPORT_HTML, NULL);
	contains(h, "<p class=more>10 more findings in the database.</p>");
	contains(h, "<p class=more>5 more evidence rows in the database.</p>");
	contains(h, "<li class=more>3 more diagnostics in the database</li>");
	contains(h, "<p class=more>10 more artifacts in the database.</p>");
	contains(h, "(+59 more findings)");
	lacks(h, "finding 50<");
	free(h);
	m = render(tl, REPORT_MD, NULL);
	contains(m, "55 more findings in the full report.");
	contains(m, "480 more artifacts in the database.");
	free(m);
	s = render(tl, REPORT_JSON, NULL);
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

	build_incident(tl, 1);
	exec(tl, "DROP TABLE anchor");
	assert_int_equal(write_quietly(tl, REPORT_HTML, &err), 0);
	contains(err.buf, "report query failed: no such table: anchor");
	strbuf_reset(&err);
	exec(tl, "DROP TABLE verdict");
	assert_int_equal(write_quietly(tl, REPORT_HTML, &err), -1);
	contains(err.buf, "report query failed: no such table: verdict");
	strbuf_reset(&err);
	assert_int_equal(write_quietly(tl, REPORT_MD, &err), -1);
	contains(err.buf, "no such table: verdict");
	strbuf_reset(&err);
	assert_int_equal(write_quietly(tl, REPORT_JSON, &err), 0);
	contains(err.buf, "no such table: verdict");
	strbuf_release(&err);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(html_full_incident),
		cmocka_unit_test(markdown_full_incident),
		cmocka_unit_test(json_full_incident),
		cmocka_unit_test(html_missing_data_is_said),
		cmocka_unit_test(large_series_is_downsampled_with_its_peak),
		cmocka_unit_test(hostile_times_and_figures),
		cmocka_unit_test(text_full_incident),
		cmocka_unit_test(text_keeps_windows_paths),
		cmocka_unit_test(figures_in_their_units),
		cmocka_unit_test(sections_table_orders_every_format),
		cmocka_unit_test(each_query_runs_once_per_report),
		cmocka_unit_test(dump_victim_agrees_between_formats),
		cmocka_unit_test(caps_say_how_many_more),
		cmocka_unit_test(failures_are_returned_not_printed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
