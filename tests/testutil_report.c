/*
 * testutil_report.c -- the incident database the report tests render: a
 * leak on an 80 GiB card with a spike and the kernel OOM that ended it,
 * hostile strings wherever an artifact controls text; and the checks they
 * share on a rendered report (contains, lacks, no injected markup). See
 * testutil_report.h.
 */
#include "analyzer/derive/derive.h"
#include "testutil_report.h"
#include "analyzer/derive/oom.h"
#include "analyzer/store/query.h"
#include "reports/report.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T_OOM T_REPORT_OOM
#define NS 1000000000LL
#define GiB 1073741824LL

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
void t_exec(struct timeline *tl, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(tl->db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("SQL failed: %s\n%s", err, sql);
}

void t_execf(struct timeline *tl, const char *fmt, ...)
{
	char sql[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	t_exec(tl, sql);
}

/* A leak on an 80 GiB card over two hours, a request spike in its last
 * 8 minutes, the kernel OOM that killed the server. Strings an artifact
 * controls carry markup. */
void t_build_incident(struct timeline *tl, int with_domain)
{
	sqlite3_stmt *st;
	int i;

	t_exec(tl, "INSERT INTO artifact(id, path, kind, size, compressed, status, bytes_read,"
		 " seconds, errors, warnings) VALUES"
		 " (1, 'incident/nvidia-smi.csv', 'nvidia_smi', 41200, 0, 'ok', 41200, 0.01, 0, 0),"
		 " (2, 'incident/kern.log" HOSTILE_SCRIPT "', 'kernel_oom', 18400, 1, 'partial',"
		 "  18400, 0.02, 1, 0),"
		 " (3, 'incident/vllm.log', 'vllm_log', 230000, 0, 'ok', 230000, 0.03, 0, 0),"
		 " (4, 'incident/core.cuda', NULL, 9000, 0, 'failed', 0, 0.0, 1, 0)");
	t_exec(tl, "INSERT INTO diagnostic(artifact_id, line, offset, severity, message) VALUES"
		 " (2, 731, NULL, 'error', 'expected the task dump columns, got ''" HOSTILE_IMG "'''),"
		 " (4, NULL, 4096, 'error', 'ELF note segment truncated: expected 212 bytes')");
	t_exec(tl, "INSERT INTO meta(artifact_id, key, value) VALUES"
		 " (NULL, 'cgroup.max_bytes', '68719476736'), (NULL, 'kernel.page_size', '4096'),"
		 " (NULL, 'server.model', 'meta-llama/Llama-3.1-8B-Instruct')");
	t_exec(tl, "INSERT INTO series(id, artifact_id, name, unit, entity) VALUES"
		 " (1, 1, 'gpu.used_bytes', 'bytes', 'gpu0'),"
		 " (2, 1, 'gpu.total_bytes', 'bytes', 'gpu0'),"
		 " (3, 3, 'server.running', 'requests', 'vllm'),"
		 " (4, 3, 'server.gpu_kv_usage', 'ratio', 'vllm'),"
		 " (5, 2, 'cgroup.current_bytes', 'bytes', '/sys" HOSTILE_IMG "'),"
		 " (6, 2, 'x" HOSTILE_SCRIPT "_bytes', 'bytes', '')");
	t_exec(tl, "INSERT INTO sample(series_id, time_ns, value) VALUES (6, 1764440000000000000, 1e9)");
	t_exec(tl, "INSERT INTO sample(series_id, time_ns, boot_ns, value) VALUES (1, NULL, 5, 1e9)");
	assert_int_equal(sqlite3_prepare_v2(tl->db, "INSERT INTO sample(series_id, time_ns, value)"
					    " VALUES (?, ?, ?)", -1, &st, NULL), SQLITE_OK);
	t_exec(tl, "BEGIN");
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
	t_exec(tl, "COMMIT");
	sqlite3_finalize(st);
	t_execf(tl, "INSERT INTO event(id, artifact_id, kind, time_ns, clock, boot_ns, pid, comm,"
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
	t_execf(tl, "INSERT INTO event(artifact_id, kind, time_ns, clock, pid, comm, line, summary)"
		  " VALUES (3, 'server_error', %lld, 'utc', 4312, 'python3', 10, 'early traceback')",
		  (long long)(T_OOM - 7000 * NS));
	for (i = 0; i < 25; i++)
		t_execf(tl, "INSERT INTO event(artifact_id, kind, time_ns, clock, pid, comm, line,"
		      " summary) VALUES (3, 'server_error', %lld, 'utc', 4312, 'python3', %d,"
		      " 'traceback %d')", (long long)(T_OOM - (int64_t)(25 - i) * 10 * NS), 100 + i, i);
	t_exec(tl, "INSERT INTO task(event_id, pid, uid, tgid, total_vm_pages, rss_pages,"
		 " rss_anon_pages, rss_file_pages, rss_shmem_pages, swapents, oom_score_adj, name)"
		 " VALUES (2, 4312, 1000, 4312, 67250000, 7085888, 7083888, 1500, 500, 0, 0, '"
		 HOSTILE_SCRIPT "'),"
		 " (2, 4401, 1000, 4401, 1900000, 420000, 418000, 1500, 500, 0, 0, 'python3'),"
		 " (2, 5120, 65534, 5120, 180000, 9000, 7000, 1500, 500, 0, 0, 'node_exporter'),"
		 " (2, 1, 0, 1, 42000, 3000, 1000, 1500, 500, 0, -1000, 'systemd')");
	/* the derived table the reports read, as analyze makes it */
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	t_execf(tl, "INSERT INTO finding(id, rule, class, cause, score, title, advice, figures) VALUES"
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
	t_exec(tl, "INSERT INTO evidence(finding_id, ref_table, ref_id, note) VALUES"
		 " (1, 'series', 1, 'gpu.used_bytes fit over 2 h'), (1, 'event', 3, 'the victim')");
	t_exec(tl, "INSERT INTO verdict(class, cause, confidence, summary, missing) VALUES"
		 " ('leak', 'retained_allocations', 0.86, 'GPU memory leaked 7 GiB/h until the card"
		 " was full.', 'a second snapshot an hour earlier')");
	if (!with_domain)
		return;
	t_exec(tl, domain_sql);
	t_exec(tl, "INSERT INTO stack(id, hash, depth) VALUES (1, 11, 2), (2, 12, 2)");
	t_exec(tl, "INSERT INTO frame(stack_id, idx, name, file, line) VALUES"
		 " (1, 0, 'cache_kv', 'myservice/cache.py', 88),"
		 " (1, 1, '" HOSTILE_IMG "', 'myservice/" HOSTILE_SCRIPT ".py', 12),"
		 " (2, 0, 'forward', 'vllm/model_executor/models/llama.py', 301),"
		 " (2, 1, '_prefill', 'vllm/worker/model_runner.py', 77)");
	t_exec(tl, "INSERT INTO snapshot(id, artifact_id, form, protocol, devices, trace_events)"
		 " VALUES (1, 3, 'dict', 4, 1, 5)");
	t_exec(tl, "INSERT INTO alloc(snapshot_id, device, addr, size, alloc_seq, state, stack_id)"
		 " VALUES (1, 0, 4096, 1073741824, 1, 'live', 1), (1, 0, 8192, 1073741824, 2, 'live', 1),"
		 " (1, 0, 12288, 536870912, 3, 'live', 2), (1, 0, 16384, 999, 4, 'freed', 2)");
	t_exec(tl, "INSERT INTO segment(id, snapshot_id, device, address, total_size, allocated_size,"
		 " segment_type) VALUES (1, 1, 0, 0, 2147483648, 1610612736, 'large'),"
		 " (2, 1, 0, 2147483648, 20971520, 2097152, 'small')");
	t_exec(tl, "INSERT INTO block(segment_id, address, size, state) VALUES"
		 " (1, 0, 1073741824, 'active_allocated'), (1, 1073741824, 536870912, 'inactive'),"
		 " (1, 1610612736, 536870912, 'active_allocated'),"
		 " (2, 2147483648, 2097152, 'active_allocated'), (2, 2149580800, 18874368, 'inactive')");
	t_exec(tl, "INSERT INTO gpu_device(artifact_id, device, name, type, sm_type, num_sms) VALUES (4, 0, 'NVIDIA H100 80GB HBM3', 'GH100', 'sm_90', 132);"
		 "INSERT INTO gpu_context(artifact_id, device, context_id, tid) VALUES (4, 0, 1, 4312), (4, 0, 2, 4313);"
		 "INSERT INTO gpu_grid(artifact_id, device, grid_id, function, grid_x, grid_y, grid_z, block_x, block_y, block_z, status) VALUES (4, 0, 77, 'flash_fwd_kernel" HOSTILE_IMG "',"
		 " 1024, 1, 1, 256, 1, 1, 'active');"
		 "INSERT INTO gpu_region(artifact_id, device, kind, address, size) VALUES (4, 0, 'global', 0, 84825604096);"
		 "INSERT INTO thread(artifact_id, tid, name, signal, stack_id) VALUES (4, 4312, 'python3', 'SIGABRT', 1)");
}

/* Render db in format f into a malloc'd NUL-terminated string; every
 * query of the report must have worked. */
char *t_render(struct timeline *tl, enum report_format f, size_t *len)
{
	struct strbuf err = STRBUF_INIT;
	char *buf = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&buf, &n);

	assert_non_null(out);
	/* the derived tables the reports read, as analyze derives them (the
	 * test built the rest; t_build_incident made oom already) */
	if (!q_has_table(tl->db, "oom"))
		assert_int_equal(derive_one(tl, "oom", &err), 0);
	assert_int_equal(derive_one(tl, "peak", &err), 0);
	assert_int_equal(report_write(tl->db, f, out, &err), 0);
	if (err.len)
		fail_msg("the report said: %s", err.buf);
	strbuf_release(&err);
	fclose(out);
	if (len)
		*len = n;
	return buf;
}

void t_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("expected to find: %s", needle);
}

void t_lacks(const char *hay, const char *needle)
{
	const char *p = strstr(hay, needle);
	if (p)
		fail_msg("did not expect: %s\nat: %.120s", needle, p);
}

/* No markup from the artifacts survives in an HTML or Markdown text: no
 * tag of theirs, and no tag of ours carries an event handler or a
 * javascript: URL (escaped text may still read "onerror=", as text). */
void t_no_injection(const char *out)
{
	const char *p = out;

	t_lacks(out, "<script");
	t_lacks(out, "<img");
	t_lacks(out, "<svg onload");
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

/* No markup from the artifacts survives in Markdown: every '<', '[', ']'
 * and '`' is backslash-escaped (CommonMark then shows it as a character),
 * so there is no tag, link, image or code span of theirs; our own markup
 * uses none of them. */
void t_md_no_injection(const char *out)
{
	const char *p;

	for (p = out; *p; p++)
		if (strchr("<[]`", *p) && (p == out || p[-1] != '\\'))
			fail_msg("unescaped '%c' in Markdown at: %.60s", *p, p);
	t_lacks(out, "](");
}
