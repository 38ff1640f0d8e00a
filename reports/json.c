/*
 * json.c -- the machine-readable report (docs/json.md): one object, one
 * key per JSON row of the sections table (sections.c), in its order, each
 * the section's model loaded in full. Keys never disappear: an unknown
 * value is null and an empty family an empty array. Strings are UTF-8
 * cleaned (q_json) and escaped by jansson.
 *
 * Also the sections only the JSON report has: the version and schema, the
 * verdict and summary (from the report's summary), incident-wide meta,
 * the CUDA and host cores and the PyTorch snapshots (the time series:
 * series.c).
 */
#include "reports/report.h"
#include "reports/section.h"
#include "analyzer/store/query.h"
#include "lib/common.h"

#include <math.h>
#include <string.h>

json_t *load_version(struct report_ctx *c)
{
	(void)c;
	return json_string(OOMLENS_VERSION);
}

json_t *load_schema(struct report_ctx *c)
{
	return json_integer(r_int(c, "PRAGMA user_version", 0));
}

/* The first verdict row, as the summary read it. */
json_t *load_verdict(struct report_ctx *c)
{
	return c->sum.verdict ? json_incref(c->sum.verdict) : NULL;
}

static json_t *str_or_null(const struct strbuf *sb, int known)
{
	return known ? json_stringn(sb->buf, sb->len) : json_null();
}

static json_t *int_or_null(int64_t v)
{
	return v == OL_NULL ? json_null() : json_integer(v);
}

static json_t *time_or_null(int64_t ns)
{
	char buf[40];

	if (ns == OL_NULL)
		return json_null();
	fmt_time(buf, sizeof(buf), ns, OL_NULL);
	return json_string(buf);
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The kernel reading's sentences, or null. */
static json_t *kernel_reading(const struct report_summary *s)
{
	json_t *a;
	int i;

	if (!s->n_kernel)
		return json_null();
	a = json_array();
	for (i = 0; i < s->n_kernel; i++)
		json_array_append_new(a, json_stringn(s->kernel[i].buf, s->kernel[i].len));
	return a;
}

/* The card at a PyTorch OOM (the header's strip), or null. */
static json_t *card(const struct report_summary *s)
{
	if (!s->has_card)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
		"total_bytes", real_or_null(s->card_total),
		"requested_bytes", real_or_null(s->card_req),
		"allocated_bytes", real_or_null(s->card_alloc),
		"reserved_unallocated_bytes", real_or_null(s->card_cache),
		"non_pytorch_bytes", real_or_null(s->card_nonpt),
		"other_processes_bytes", real_or_null(s->card_others),
		"outside_bytes", real_or_null(s->card_outside),
		"free_bytes", real_or_null(s->card_free));
}

#define OOMS_SHOWN 100

/* The derived table oom (docs/schema.md), row 1 = the OOM first: [{time,
 * clock, kind, scope, device, cgroup, requested_bytes, total_bytes,
 * free_bytes, victim: {pid, comm, bytes} or null, phase, phase_source
 * (the rule that placed the phase), phase_from (the other paste that
 * placed it), family, survival: {state, by, line} (oom.survival:
 * analyzer/derive/oom_fate.c), source: {artifact, event_id,
 * evidence}, run, run_by (oom.run: analyzer/derive/oom_run.c), progress:
 * {state, done, unit} (the work completed before it: oom.progress,
 * analyzer/derive/oom_progress.c)}], the first OOMS_SHOWN. */
static json_t *ooms(struct report_ctx *c)
{
	sqlite3_stmt *st = r_prepare(c, "SELECT o.time_ns, o.clock, o.kind, o.scope, o.device,"
				     " o.cgroup, o.requested_bytes, o.victim_event IS NOT NULL OR"
				     " o.victim_pid IS NOT NULL, o.victim_pid, o.victim_comm, o.victim_bytes,"
				     " o.phase, o.family, a.path, o.event_id, o.evidence, o.total_bytes,"
				     " o.free_bytes, o.phase_source, (SELECT p.path FROM artifact p"
				     "  WHERE p.id = o.phase_artifact), o.survival, o.survival_by,"
				     " o.survival_line, o.run, o.run_by, o.progress, o.progress_done,"
				     " o.progress_unit FROM oom o"
				     " LEFT JOIN artifact a ON a.id = o.artifact_id ORDER BY o.id LIMIT ?");
	json_t *a = json_array();

	if (!st)
		return a;
	sqlite3_bind_int(st, 1, OOMS_SHOWN);
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *ev = json_loads((const char *)sqlite3_column_text(st, 15) ?
					(const char *)sqlite3_column_text(st, 15) : "[]", 0, NULL);
		json_t *victim = sqlite3_column_int(st, 7) ? json_pack("{s:o, s:o, s:o}",
			"pid", q_json(st, 8), "comm", q_json(st, 9), "bytes", q_json(st, 10))
			: json_null();
		json_array_append_new(a, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o,"
			" s:o, s:o, s:o, s:o, s:{s:o, s:o, s:o}, s:{s:o, s:o, s:o}, s:o, s:o,"
			" s:{s:o, s:o, s:o}}",
			"time", q_json_time(st, 0), "clock", q_json(st, 1), "kind", q_json(st, 2),
			"scope", q_json(st, 3), "device", q_json(st, 4), "cgroup", q_json(st, 5),
			"requested_bytes", q_json(st, 6), "total_bytes", q_json(st, 16),
			"free_bytes", q_json(st, 17), "victim", victim, "phase", q_json(st, 11),
			"phase_source", q_json(st, 18), "phase_from", q_json(st, 19), "family", q_json(st, 12), "source", "artifact", q_json(st, 13),
			"event_id", q_json(st, 14), "evidence", ev ? ev : json_array(),
			"survival", "state", q_json(st, 20), "by", q_json(st, 21), "line", q_json(st, 22),
			"run", q_json(st, 23), "run_by", q_json(st, 24),
			"progress", "state", q_json(st, 25), "done", q_json(st, 26),
			"unit", q_json(st, 27)));
	}
	sqlite3_finalize(st);
	return a;
}

/* The key figures of the report's header (summary.h). */
json_t *load_summary(struct report_ctx *c)
{
	const struct report_summary *s = &c->sum;
	json_t *o;

	if (!c->has_summary)
		return NULL;
	o = json_object();
	json_object_set_new(o, "first_oom", s->has_oom ? json_pack("{s:o, s:o, s:o}",
		"kind", json_stringn(s->oom_kind.buf, s->oom_kind.len),
		"time", time_or_null(s->oom_ns),
		"boot_s", s->oom_boot_ns == OL_NULL ? json_null()
			  : json_real((double)s->oom_boot_ns / 1e9)) : json_null());
	json_object_set_new(o, "victim", s->has_victim ? json_pack("{s:o, s:o, s:o, s:o}",
		"kind", json_stringn(s->victim_kind.buf, s->victim_kind.len),
		"pid", int_or_null(s->victim_pid),
		"comm", str_or_null(&s->victim_comm, s->victim_comm.len > 0),
		"bytes", int_or_null(s->victim_bytes)) : json_null());
	json_object_set_new(o, "ooms", ooms(c));
	json_object_set_new(o, "peak", s->has_peak ? json_pack("{s:o, s:o, s:o, s:o, s:f, s:o, s:o, s:o}",
		"account", str_or_null(&s->peak_account, s->peak_account.len > 0),
		"measure", str_or_null(&s->peak_measure, s->peak_measure.len > 0),
		"series", json_stringn(s->peak_series.buf, s->peak_series.len),
		"file", str_or_null(&s->peak_file, s->peak_file.len > 0),
		"bytes", s->peak_bytes,
		"time", time_or_null(s->peak_ns),
		"limit_bytes", isfinite(s->limit_bytes) ? json_real(s->limit_bytes) : json_null(),
		"limit", str_or_null(&s->limit_what, s->limit_what.len > 0)) : json_null());
	json_object_set_new(o, "kernel_reading", kernel_reading(s));
	json_object_set_new(o, "card", card(s));
	json_object_set_new(o, "top_finding", s->n_findings ? json_pack("{s:o, s:o, s:o}",
		"title", json_stringn(s->top_title.buf, s->top_title.len),
		"figure", str_or_null(&s->top_key, s->top_key.len > 0),
		"value", str_or_null(&s->top_value, s->top_key.len > 0)) : json_null());
	return o;
}

#define META_SQL "SELECT key, value FROM meta WHERE artifact_id IS NULL ORDER BY key, rowid"

/* Incident-wide meta keys (no artifact) as an object of strings. */
json_t *load_meta(struct report_ctx *c)
{
	json_t *rows = r_rows(c, META_SQL, -1);
	json_t *o = json_object(), *r;
	size_t i;

	json_array_foreach(rows, i, r) {
		const char *k = json_string_value(json_object_get(r, "key"));
		if (k)
			json_object_set(o, k, json_object_get(r, "value"));
	}
	json_decref(rows);
	return o;
}

/* Write the member k: v of the meta object (the first when n is 0). */
static int meta_member(FILE *out, const json_t *k, const json_t *v, int n)
{
	const size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY |
			     JSON_REAL_PRECISION(12);

	fputs(n ? ",\n  " : "\n  ", out);
	if (q_write_json(out, k, flags) < 0)
		return -1;
	fputs(": ", out);
	return q_write_json_at(out, v, flags, 2);
}

/* load_meta's object written row by row, one row held ahead: a key
 * repeated (its rows adjacent, the query being ordered by key) keeps its
 * first place and its last value, as json_object_set does in the model.
 * {} when the query fails (r_prepare records why). 0 or -1 (out of
 * memory, a write failed). */
int stream_meta(struct report_ctx *c, FILE *out)
{
	sqlite3_stmt *st = r_prepare(c, META_SQL);
	json_t *held = NULL;
	int n = 0, r = 0;

	fputc('{', out);
	while (r == 0 && st && sqlite3_step(st) == SQLITE_ROW) {
		json_t *row = q_row(st);
		const json_t *k = json_object_get(row, "key");

		if (!row) {
			r = -1;
			break;
		}
		if (!json_is_string(k)) {
			json_decref(row);
			continue;
		}
		if (held && strcmp(json_string_value(json_object_get(held, "key")),
				   json_string_value(k)))
			r = meta_member(out, json_object_get(held, "key"),
					json_object_get(held, "value"), n++);
		json_decref(held);
		held = row;
	}
	if (r == 0 && held)
		r = meta_member(out, json_object_get(held, "key"), json_object_get(held, "value"),
				n++);
	json_decref(held);
	sqlite3_finalize(st);
	fputs(n ? "\n}" : "}", out);
	return r;
}

/* ---- core dumps ---- */

/* Per CUDA core: devices, contexts per device, grids, the first exception
 * (or null), and the recorded memory regions. */
json_t *load_gpu_cores(struct report_ctx *c)
{
	return r_rows(c,
		"SELECT a.path,"
		" (SELECT json_group_array(json_object('device', device, 'name', name,"
		"   'sm_type', sm_type, 'num_sms', num_sms, 'contexts', contexts))"
		"  FROM (SELECT * FROM gpu_device WHERE artifact_id = a.id ORDER BY device))"
		"  AS devices_json,"
		" (SELECT json_group_array(json_object('device', device, 'count', contexts,"
		"   'threads', (SELECT count(DISTINCT tid) FROM gpu_context c"
		"     WHERE c.artifact_id = a.id AND c.device = d.device)))"
		"  FROM (SELECT * FROM gpu_device WHERE artifact_id = a.id ORDER BY device) d)"
		"  AS contexts_json,"
		" (SELECT count(*) FROM gpu_module WHERE artifact_id = a.id) AS modules,"
		" (SELECT json_group_array(json_object('device', device, 'grid_id', grid_id,"
		"   'function', function, 'grid_dim', json_array(grid_x, grid_y, grid_z),"
		"   'block_dim', json_array(block_x, block_y, block_z), 'status', status,"
		"   'exception', exception))"
		"  FROM (SELECT * FROM gpu_grid WHERE artifact_id = a.id ORDER BY id)) AS grids_json,"
		" (SELECT json_object('name', data ->> 'exception', 'code', data ->> 'code',"
		"   'device', data ->> 'device', 'sm', data ->> 'sm', 'block', data -> 'block',"
		"   'thread', data -> 'thread', 'function', data ->> 'function',"
		"   'pc', data ->> 'pc', 'error_pc', data ->> 'error_pc', 'lanes', data ->> 'lanes')"
		"  FROM event WHERE artifact_id = a.id AND kind = 'cuda_exception'"
		"  ORDER BY id LIMIT 1) AS exception_json,"
		" (SELECT count(*) FROM gpu_region WHERE artifact_id = a.id) AS regions,"
		" (SELECT coalesce(sum(size), 0) FROM gpu_region WHERE artifact_id = a.id)"
		"  AS region_bytes"
		" FROM artifact a WHERE a.kind = 'cuda_core' ORDER BY a.id", -1);
}

/* The gpu_cores section written row by row (load_gpu_cores' members in
 * its order): a core's grids can be millions, so they go out one per row
 * from SQL, never held. 0, or -1 when a query or a write failed. */
#define GPU_CORE_HEAD \
	"SELECT a.id, a.path," \
	" (SELECT json_group_array(json_object('device', device, 'name', name," \
	"   'sm_type', sm_type, 'num_sms', num_sms, 'contexts', contexts))" \
	"  FROM (SELECT * FROM gpu_device WHERE artifact_id = a.id ORDER BY device))" \
	"  AS devices_json," \
	" (SELECT json_group_array(json_object('device', device, 'count', contexts," \
	"   'threads', (SELECT count(DISTINCT tid) FROM gpu_context c" \
	"     WHERE c.artifact_id = a.id AND c.device = d.device)))" \
	"  FROM (SELECT * FROM gpu_device WHERE artifact_id = a.id ORDER BY device) d)" \
	"  AS contexts_json," \
	" (SELECT count(*) FROM gpu_module WHERE artifact_id = a.id) AS modules" \
	" FROM artifact a WHERE a.kind = 'cuda_core' ORDER BY a.id"
#define GPU_CORE_GRIDS \
	"SELECT device, grid_id, function, json_array(grid_x, grid_y, grid_z) AS grid_dim_json," \
	" json_array(block_x, block_y, block_z) AS block_dim_json, status, exception" \
	" FROM gpu_grid WHERE artifact_id = ?1 ORDER BY id"
#define GPU_CORE_TAIL \
	"SELECT (SELECT json_object('name', data ->> 'exception', 'code', data ->> 'code'," \
	"   'device', data ->> 'device', 'sm', data ->> 'sm', 'block', data -> 'block'," \
	"   'thread', data -> 'thread', 'function', data ->> 'function'," \
	"   'pc', data ->> 'pc', 'error_pc', data ->> 'error_pc', 'lanes', data ->> 'lanes')" \
	"  FROM event WHERE artifact_id = ?1 AND kind = 'cuda_exception'" \
	"  ORDER BY id LIMIT 1) AS exception_json," \
	" (SELECT count(*) FROM gpu_region WHERE artifact_id = ?1) AS regions," \
	" (SELECT coalesce(sum(size), 0) FROM gpu_region WHERE artifact_id = ?1)" \
	"  AS region_bytes"

/* The grids of core id as the members' array, one row at a time. */
static int stream_grids(struct q_jw *w, struct q_jw_cols *gc, int64_t id)
{
	int r = 0, n = 0;

	sqlite3_bind_int64(gc->st, 1, id);
	q_jw_key(w, "grids");
	q_jw_open(w, '[');
	while (r == 0 && sqlite3_step(gc->st) == SQLITE_ROW) {
		q_jw_elem(w);
		q_jw_open(w, '{');
		r = q_jw_row(w, gc);
		q_jw_close(w, '}');
		if (++n % 256 == 0)
			q_jw_flush(w);
	}
	q_jw_close(w, ']');
	sqlite3_reset(gc->st);
	return r;
}

int stream_gpu_cores(struct report_ctx *c, FILE *out)
{
	sqlite3_stmt *hd = r_prepare(c, GPU_CORE_HEAD);
	sqlite3_stmt *gr = r_prepare(c, GPU_CORE_GRIDS);
	sqlite3_stmt *tl = r_prepare(c, GPU_CORE_TAIL);
	struct q_jw_cols hc, gc, tc;
	struct q_jw w;
	int n = 0, r = hd && gr && tl ? 0 : -1;

	q_jw_init(&w, out, 2, 1);
	if (q_jw_cols_init(&hc, hd, "id", NULL) < 0 || q_jw_cols_init(&gc, gr, NULL, NULL) < 0 ||
	    q_jw_cols_init(&tc, tl, NULL, NULL) < 0)
		r = -1;
	q_jw_raw(&w, "[", 1);
	while (r == 0 && sqlite3_step(hd) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(hd, 0);
		q_jw_raw(&w, n ? ",\n  " : "\n  ", n ? 4 : 3);
		n++;
		q_jw_open(&w, '{');
		r = q_jw_row(&w, &hc);
		if (r == 0)
			r = stream_grids(&w, &gc, id);
		sqlite3_bind_int64(tl, 1, id);
		if (r == 0 && sqlite3_step(tl) == SQLITE_ROW)
			r = q_jw_row(&w, &tc);
		sqlite3_reset(tl);
		q_jw_close(&w, '}');
		q_jw_flush(&w);
	}
	q_jw_cols_release(&hc);
	q_jw_cols_release(&gc);
	q_jw_cols_release(&tc);
	sqlite3_finalize(hd);
	sqlite3_finalize(gr);
	sqlite3_finalize(tl);
	q_jw_raw(&w, n ? "\n]" : "]", n ? 2 : 1);
	return q_jw_finish(&w) < 0 ? -1 : r;
}

/* Per host core: process, signal, threads with their frames. */
json_t *load_host_cores(struct report_ctx *c)
{
	return r_rows(c,
		"SELECT a.path,"
		" (SELECT pid FROM capture WHERE artifact_id = a.id AND source = 'core' LIMIT 1)"
		"  AS pid,"
		" (SELECT comm FROM capture WHERE artifact_id = a.id AND source = 'core' LIMIT 1)"
		"  AS comm,"
		" (SELECT data ->> 'signal' FROM event WHERE artifact_id = a.id"
		"  AND kind = 'process_crash') AS signal,"
		" (SELECT data ->> 'signal_name' FROM event WHERE artifact_id = a.id"
		"  AND kind = 'process_crash') AS signal_name,"
		" (SELECT json_group_array(json_object('tid', t.tid, 'crashed', json(CASE"
		"   WHEN t.crashed THEN 'true' ELSE 'false' END), 'signal', t.signal,"
		"   'frames', json(coalesce((SELECT json_group_array(json_object('name', f.name,"
		"     'file', f.file, 'line', f.line, 'build_id', f.build_id))"
		"     FROM (SELECT * FROM frame WHERE stack_id = t.stack_id ORDER BY idx) f),"
		"    '[]'))))"
		"  FROM (SELECT * FROM thread WHERE artifact_id = a.id ORDER BY crashed DESC, id) t)"
		"  AS threads_json"
		" FROM artifact a WHERE a.kind = 'host_core' ORDER BY a.id", -1);
}

/* A holder row of the JSON report (docs/json.md "snapshots"): ?1 the
 * snapshot, LIMIT ?2. */
#define HOLDER_ROW(scope) \
	"SELECT device, bytes, allocations, largest_bytes, requested_bytes, share, kind," \
	" label, CASE WHEN frame_file IS NULL THEN NULL ELSE json_object('filename'," \
	" frame_file, 'line', frame_line, 'name', frame_name) END AS frame_json, stack_id" \
	" FROM holder WHERE snapshot_id = ?1 AND tool = 'torch_snapshot' AND scope = '" \
	scope "' ORDER BY bytes DESC, device, rank LIMIT ?2"

/* Each snapshot's holders at the snapshot, the peak and the OOM, its
 * pools and its recording (the rows carry their id as "snapshot_id"). */
static void snapshot_holders(struct report_ctx *c, json_t *snaps)
{
	static const char *const keys[] = { "holders", "holders_at_peak", "holders_at_oom",
					    "pools" };
	static const char *const sql[] = {
		HOLDER_ROW("snapshot"), HOLDER_ROW("peak"), HOLDER_ROW("oom"),
		"SELECT device, pool_id, private_pool AS private, segments, expandable_segments,"
		" reserved_bytes, allocated_bytes, requested_bytes, pending_free_bytes,"
		" inactive_bytes, largest_free_bytes, top_bytes, top_allocations, top_label"
		" FROM pool WHERE snapshot_id = ?1 ORDER BY device, private_pool, pool_id LIMIT ?2",
	};
	sqlite3_stmt *st = r_prepare(c, "SELECT recording FROM snapshot WHERE id = ?");
	json_t *s;
	size_t i, k;

	json_array_foreach(snaps, i, s) {
		json_t *rec = NULL;
		if (st) {
			sqlite3_bind_int64(st, 1, jv_int(json_object_get(s, "snapshot_id")));
			if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
				rec = json_loads((const char *)sqlite3_column_text(st, 0), 0, NULL);
			sqlite3_reset(st);
		}
		json_object_set_new(s, "recording", rec ? rec : json_null());
	}
	sqlite3_finalize(st);
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		json_array_foreach(snaps, i, s)
			json_object_set(s, "id", json_object_get(s, "snapshot_id"));
		r_attach(c, snaps, keys[k], sql[k], -1, NULL);
	}
}

/* PyTorch memory snapshots: one object per snapshot file, sizes
 * at snapshot time from segments, figures from the trace, and its OOMs. */
json_t *load_snapshots(struct report_ctx *c)
{
	json_t *snaps = r_rows(c,
		"SELECT s.id, a.path AS artifact, s.form, s.protocol, s.devices,"
		" (SELECT count(*) FROM segment g WHERE g.snapshot_id = s.id) AS segments,"
		" (SELECT sum(total_size) FROM segment g WHERE g.snapshot_id = s.id) AS reserved_bytes,"
		" (SELECT sum(allocated_size) FROM segment g WHERE g.snapshot_id = s.id)"
		"   AS allocated_bytes,"
		" s.trace_events,"
		" (SELECT count(*) FROM alloc l WHERE l.snapshot_id = s.id"
		"   AND l.state <> 'orphan_free') AS allocs,"
		" s.peak_allocated_bytes"
		" FROM snapshot s LEFT JOIN artifact a ON a.id = s.artifact_id ORDER BY s.id", -1);

	json_t *s;
	size_t i;

	/* r_attach drops each row's id: kept aside for the next attaches */
	json_array_foreach(snaps, i, s)
		json_object_set(s, "snapshot_id", json_object_get(s, "id"));
	r_attach(c, snaps, "ooms",
		 "SELECT device, size AS requested_bytes, device_free AS device_free_bytes,"
		 " time_ns AS time FROM trace WHERE snapshot_id = ?1 AND action = 'oom'"
		 " ORDER BY device, seq LIMIT ?2", -1, NULL);
	if (r_has_table(c, "holder"))
		snapshot_holders(c, snaps);
	whatif_attach(c, snaps);
	json_array_foreach(snaps, i, s)
		json_object_del(s, "snapshot_id");
	return snaps;
}

/* --- the report --- */

json_t *report_json(sqlite3 *db)
{
	struct report_ctx c;
	struct strbuf err = STRBUF_INIT;
	json_t *o = json_object();
	int i;

	report_ctx_open(&c, db, 0, &err);
	for (i = 0; o && report_sections[i].id; i++) {
		const json_t *v;
		if (!report_sections[i].json)
			continue;
		v = report_model(&c, report_sections[i].id);
		json_object_set_new(o, report_sections[i].id, v ? json_incref((json_t *)v) : json_null());
	}
	report_ctx_close(&c);
	strbuf_release(&err);
	return o;
}

/* The JSON rows of the table in order, each dumped from its full model
 * (and freed) or streamed. */
int report_json_write(struct report_ctx *c, FILE *out)
{
	int i, r = 0, n = 0;

	fputc('{', out);
	for (i = 0; report_sections[i].id && r == 0; i++) {
		const struct section *s = &report_sections[i];
		if (!s->json)
			continue;
		fprintf(out, "%s\n\"%s\": ", n++ ? "," : "", s->id);
		if (s->stream) {
			r = s->stream(c, out);
		} else {
			const json_t *v = report_model(c, s->id);
			r = q_write_json(out, v ? v : json_null(),
					 JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY |
					 JSON_REAL_PRECISION(12));
			report_model_drop(c, s->id);
		}
	}
	fputs("\n}\n", out);
	return r == 0 && !ferror(out) ? 0 : -1;
}
