/*
 * json.c -- the machine-readable report (docs/json.md). One object, one
 * key per section, each built by its own json_<section>() function listed
 * in sections[] below: to add a section, write its function and add one
 * row (keep the order of the table: it is the order of the keys). Keys
 * never disappear: an unknown value is null and an empty family an empty
 * array. Strings are UTF-8 cleaned (q_json) and escaped by jansson.
 */
#include "reports/report.h"
#include "analyzer/store/query.h"
#include "reports/summary.h"
#include "lib/common.h"

#include <math.h>

static json_t *json_version(sqlite3 *db)
{
	(void)db;
	return json_string(OOMLENS_VERSION);
}

static json_t *json_schema(sqlite3 *db)
{
	return json_integer(q_int(db, "PRAGMA user_version", 0));
}

static json_t *json_verdict(sqlite3 *db)
{
	json_t *rows = q_rows(db,
		"SELECT class, cause, confidence, summary, missing FROM verdict"
		" ORDER BY id LIMIT 1");
	json_t *v = json_array_get(rows, 0);

	v = v ? json_incref(v) : json_null();
	json_decref(rows);
	return v;
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

/* The key figures of the report's header (summary.h). */
static json_t *json_summary(sqlite3 *db)
{
	struct report_summary s;
	json_t *o;

	if (report_summary_load(db, &s) < 0) {
		report_summary_release(&s);
		return json_null();
	}
	o = json_object();
	json_object_set_new(o, "first_oom", s.has_oom ? json_pack("{s:o, s:o, s:o}",
		"kind", json_stringn(s.oom_kind.buf, s.oom_kind.len),
		"time", time_or_null(s.oom_ns),
		"boot_s", s.oom_boot_ns == OL_NULL ? json_null()
			  : json_real((double)s.oom_boot_ns / 1e9)) : json_null());
	json_object_set_new(o, "victim", s.has_victim ? json_pack("{s:o, s:o, s:o, s:o}",
		"kind", json_stringn(s.victim_kind.buf, s.victim_kind.len),
		"pid", int_or_null(s.victim_pid),
		"comm", str_or_null(&s.victim_comm, s.victim_comm.len > 0),
		"bytes", int_or_null(s.victim_bytes)) : json_null());
	json_object_set_new(o, "peak", s.has_peak ? json_pack("{s:o, s:f, s:o, s:o, s:o}",
		"series", json_stringn(s.peak_series.buf, s.peak_series.len),
		"bytes", s.peak_bytes,
		"time", time_or_null(s.peak_ns),
		"limit_bytes", isfinite(s.limit_bytes) ? json_real(s.limit_bytes) : json_null(),
		"limit", str_or_null(&s.limit_what, s.limit_what.len > 0)) : json_null());
	json_object_set_new(o, "top_finding", s.n_findings ? json_pack("{s:o, s:o, s:o}",
		"title", json_stringn(s.top_title.buf, s.top_title.len),
		"figure", str_or_null(&s.top_key, s.top_key.len > 0),
		"value", str_or_null(&s.top_value, s.top_key.len > 0)) : json_null());
	report_summary_release(&s);
	return o;
}

static json_t *json_findings(sqlite3 *db)
{
	json_t *fs = q_rows(db,
		"SELECT id, rule, class, cause, score, title, advice, figures AS figures_json"
		" FROM finding ORDER BY score DESC, id");
	q_attach(db, fs, "evidence", "SELECT ref_table AS \"table\", ref_id AS id, note"
		 " FROM evidence WHERE finding_id = %lld");
	return fs;
}

/* Events: the common columns, then the kind's own fields from data; in
 * time order, then those not on UTC by boot time. Two queries, so that
 * the first walks the time index instead of sorting millions of rows. */
#define EVENT_COLUMNS \
	"SELECT e.id, e.kind, e.time_ns AS time, e.clock," \
	" CASE WHEN e.boot_ns IS NULL THEN NULL ELSE e.boot_ns / 1e9 END AS boot_s," \
	" e.pid, e.comm, e.bytes, e.summary, a.path AS artifact, e.line, e.data" \
	" FROM event e LEFT JOIN artifact a ON a.id = e.artifact_id"
static const char *const events_sql[] = {
	EVENT_COLUMNS " WHERE e.time_ns IS NOT NULL ORDER BY e.time_ns, e.id",
	EVENT_COLUMNS " WHERE e.time_ns IS NULL ORDER BY e.boot_ns, e.id",
};

static json_t *json_events(sqlite3 *db)
{
	json_t *a = q_rows(db, events_sql[0]), *b = q_rows(db, events_sql[1]);

	json_array_extend(a, b);
	json_decref(b);
	return a;
}

/* The same array written row by row: memory stays bounded with millions
 * of events. One event per line. */
static int stream_events(sqlite3 *db, FILE *out)
{
	int n = 0, r = 0, q;

	fputc('[', out);
	for (q = 0; q < 2 && r == 0; q++) {
		sqlite3_stmt *st = q_prepare(db, events_sql[q]);
		if (!st)
			r = -1;
		while (st && r == 0 && sqlite3_step(st) == SQLITE_ROW) {
			json_t *o = q_row(st);
			fputs(n++ ? ",\n  " : "\n  ", out);
			r = json_dumpf(o, out, JSON_COMPACT | JSON_PRESERVE_ORDER |
				       JSON_REAL_PRECISION(12));
			json_decref(o);
		}
		sqlite3_finalize(st);
	}
	fputs(n ? "\n]" : "]", out);
	return r;
}

/* Each kernel OOM with a task dump: when, who invoked it, the victim, and
 * the tasks (largest RSS first). */
static json_t *json_oom_tasks(sqlite3 *db)
{
	json_t *ooms = q_rows(db,
		"SELECT e.id, e.time_ns AS time, e.pid AS invoked_by_pid, e.comm AS invoked_by,"
		" (SELECT k.pid FROM event k WHERE k.kind = 'oom_kill' AND json_valid(k.data)"
		"  AND json_extract(k.data, '$.invoker_event') = e.id LIMIT 1) AS victim_pid"
		" FROM event e WHERE e.kind = 'oom_invoked'"
		" AND EXISTS (SELECT 1 FROM task t WHERE t.event_id = e.id)"
		" ORDER BY e.time_ns, e.boot_ns, e.id");

	q_attach(db, ooms, "tasks",
		 "SELECT pid, uid, tgid, name, total_vm_pages, rss_pages, rss_anon_pages,"
		 " rss_file_pages, rss_shmem_pages, pgtables_bytes, swapents, oom_score_adj"
		 " FROM task WHERE event_id = %lld ORDER BY rss_pages DESC, pid");
	return ooms;
}

static json_t *json_meta(sqlite3 *db)
{
	json_t *rows = q_rows(db, "SELECT key, value FROM meta WHERE artifact_id IS NULL"
				  " ORDER BY key, rowid");
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

static json_t *json_artifacts(sqlite3 *db)
{
	json_t *arts = q_rows(db,
		"SELECT id, path, kind, size, compressed, status, bytes_read, seconds,"
		" errors, warnings FROM artifact ORDER BY id");
	size_t i;
	json_t *a;

	json_array_foreach(arts, i, a)
		json_object_set_new(a, "compressed",
			json_boolean(json_integer_value(json_object_get(a, "compressed"))));
	q_attach(db, arts, "diagnostics", "SELECT line, offset, severity, message FROM"
		 " diagnostic WHERE artifact_id = %lld ORDER BY id");
	return arts;
}

/* What the report could not determine (the HTML's last section). */
static json_t *json_unknowns(sqlite3 *db)
{
	json_t *o = json_object();
	json_t *v = json_verdict(db);

	json_object_set(o, "missing", json_is_object(v) ? json_object_get(v, "missing") : json_null());
	json_decref(v);
	json_object_set_new(o, "events_not_on_utc",
		json_integer(q_int(db, "SELECT count(*) FROM event WHERE time_ns IS NULL", 0)));
	json_object_set_new(o, "events_local_time",
		json_integer(q_int(db, "SELECT count(*) FROM event WHERE clock = 'local'", 0)));
	json_object_set_new(o, "samples_not_on_utc",
		json_integer(q_int(db, Q_UNTIMED_SAMPLES, 0)));
	json_object_set_new(o, "artifacts_not_read", q_rows(db,
		"SELECT path, status, errors FROM artifact WHERE status IN ('failed', 'partial',"
		" 'empty') ORDER BY id"));
	json_object_set_new(o, "tables_absent", json_array());
	{
		static const char *const domain[] = {
			"snapshot", "segment", "block", "trace", "alloc", "gpu_device", "gpu_context",
			"gpu_module", "gpu_grid", "gpu_region", "thread", NULL
		};
		int i;
		for (i = 0; domain[i]; i++)
			if (!q_has_table(db, domain[i]))
				json_array_append_new(json_object_get(o, "tables_absent"),
						      json_string(domain[i]));
	}
	return o;
}

/* ---- core dumps ---- */

/* Per CUDA core: devices, contexts per device, grids, the first exception
 * (or null), and the recorded memory regions. */
static json_t *json_gpu_cores(sqlite3 *db)
{
	return q_rows(db,
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
		" FROM artifact a WHERE a.kind = 'cuda_core' ORDER BY a.id");
}

/* Per host core: process, signal, threads with their frames. */
static json_t *json_host_cores(sqlite3 *db)
{
	return q_rows(db,
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
		" FROM artifact a WHERE a.kind = 'host_core' ORDER BY a.id");
}

/* --- time series and the clock anchors used to place them --- */

/* One row per series: its size and time span. clock: "local" when the
 * writing artifact stored wall-clock times of unknown zone (meta
 * time.clock), "boot" when no point could be placed on UTC, null when no
 * point has any time, else "utc". */
static json_t *json_series(sqlite3 *db)
{
	return q_rows(db,
		"SELECT s.name, s.unit, s.entity, count(p.value) AS points,"
		" min(p.value) AS min, max(p.value) AS max,"
		" min(p.time_ns) AS first_time, max(p.time_ns) AS last_time,"
		" CASE WHEN count(p.time_ns) = 0 AND count(p.boot_ns) > 0 THEN 'boot'"
		"  WHEN count(p.time_ns) = 0 THEN NULL"
		"  WHEN EXISTS (SELECT 1 FROM meta m WHERE m.artifact_id = s.artifact_id"
		"   AND m.key = 'time.clock' AND m.value = 'local') THEN 'local'"
		"  ELSE 'utc' END AS clock,"
		" count(p.value) - count(p.time_ns) AS unplaced_points,"
		" a.path AS artifact"
		" FROM series s LEFT JOIN sample p ON p.series_id = s.id"
		" LEFT JOIN artifact a ON a.id = s.artifact_id"
		" GROUP BY s.id ORDER BY s.name, s.entity");
}

static json_t *json_anchors(sqlite3 *db)
{
	return q_rows(db,
		"SELECT a.path AS artifact, n.boot_id,"
		" CASE WHEN n.boot_ns IS NULL THEN NULL ELSE n.boot_ns / 1e9 END AS boot_s,"
		" n.utc_ns AS utc_time, n.how FROM anchor n"
		" LEFT JOIN artifact a ON a.id = n.artifact_id ORDER BY n.id");
}

/* PyTorch memory snapshots: one object per snapshot file, sizes
 * at snapshot time from segments, figures from the trace, and its OOMs. */
static json_t *json_snapshots(sqlite3 *db)
{
	json_t *snaps = q_rows(db,
		"SELECT s.id, a.path AS artifact, s.form, s.protocol, s.devices,"
		" (SELECT count(*) FROM segment g WHERE g.snapshot_id = s.id) AS segments,"
		" (SELECT sum(total_size) FROM segment g WHERE g.snapshot_id = s.id) AS reserved_bytes,"
		" (SELECT sum(allocated_size) FROM segment g WHERE g.snapshot_id = s.id)"
		"   AS allocated_bytes,"
		" s.trace_events,"
		" (SELECT count(*) FROM alloc l WHERE l.snapshot_id = s.id"
		"   AND l.state <> 'orphan_free') AS allocs,"
		" s.peak_allocated_bytes"
		" FROM snapshot s LEFT JOIN artifact a ON a.id = s.artifact_id ORDER BY s.id");

	q_attach(db, snaps, "ooms",
		 "SELECT device, size AS requested_bytes, device_free AS device_free_bytes,"
		 " time_ns AS time FROM trace WHERE snapshot_id = %lld AND action = 'oom'"
		 " ORDER BY device, seq");
	return snaps;
}

/* The sections, in key order. Other issues add theirs here (snapshots,
 * gpu_cores, host_cores, series): one function and one row each. */
static const struct {
	const char *key;
	json_t *(*fn)(sqlite3 *db);
	int (*stream)(sqlite3 *db, FILE *out); /* for unbounded sections, or NULL */
} sections[] = {
	{ "oomlens", json_version, NULL },
	{ "schema", json_schema, NULL },
	{ "verdict", json_verdict, NULL },
	{ "summary", json_summary, NULL },
	{ "findings", json_findings, NULL },
	{ "events", json_events, stream_events },
	{ "oom_tasks", json_oom_tasks, NULL },
	{ "meta", json_meta, NULL },
	{ "artifacts", json_artifacts, NULL },
	{ "unknowns", json_unknowns, NULL },
	{ "gpu_cores", json_gpu_cores, NULL },
	{ "host_cores", json_host_cores, NULL },
	{ "series", json_series, NULL },
	{ "anchors", json_anchors, NULL },
	{ "snapshots", json_snapshots, NULL },
	{ NULL, NULL, NULL }
};

json_t *report_json(sqlite3 *db)
{
	json_t *o = json_object();
	int i;

	if (!o)
		return NULL;
	for (i = 0; sections[i].key; i++) {
		json_t *v = sections[i].fn(db);
		json_object_set_new(o, sections[i].key, v ? v : json_null());
	}
	return o;
}

int report_json_write(sqlite3 *db, FILE *out)
{
	int i, r = 0;

	fputc('{', out);
	for (i = 0; sections[i].key && r == 0; i++) {
		fprintf(out, "%s\n\"%s\": ", i ? "," : "", sections[i].key);
		if (sections[i].stream) {
			r = sections[i].stream(db, out);
		} else {
			json_t *v = sections[i].fn(db);
			r = json_dumpf(v ? v : json_null(), out,
				       JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY |
				       JSON_REAL_PRECISION(12));
			json_decref(v);
		}
	}
	fputs("\n}\n", out);
	return r == 0 && !ferror(out) ? 0 : -1;
}
