/*
 * json.c -- the machine-readable report (docs/json.md). One object:
 * verdict, findings, events, artifacts (with diagnostics), and one
 * section per artifact family. Keys never disappear: an unknown value is
 * null and an empty family is an empty array.
 */
#include "report.h"
#include "query.h"
#include "../analyzer/cli.h"

/* Events: the common columns, then the kind's own fields from data. */
static json_t *json_events(sqlite3 *db)
{
	return q_rows(db,
		"SELECT e.kind, e.time_ns AS time, e.clock,"
		" CASE WHEN e.boot_ns IS NULL THEN NULL ELSE e.boot_ns / 1e9 END AS boot_s,"
		" e.pid, e.comm, e.bytes, e.summary, a.path AS artifact, e.line, e.data"
		" FROM event e LEFT JOIN artifact a ON a.id = e.artifact_id"
		" ORDER BY e.time_ns IS NULL, e.time_ns, e.boot_ns, e.id");
}

static json_t *json_artifacts(sqlite3 *db)
{
	json_t *arts = q_rows(db,
		"SELECT id, path, kind, size, compressed, status, bytes_read, seconds,"
		" errors, warnings FROM artifact ORDER BY id");
	size_t i;
	json_t *a;

	json_array_foreach(arts, i, a) {
		char sql[200];
		snprintf(sql, sizeof(sql),
			 "SELECT line, offset, severity, message FROM diagnostic"
			 " WHERE artifact_id = %lld ORDER BY id",
			 (long long)json_integer_value(json_object_get(a, "id")));
		json_object_set_new(a, "compressed",
			json_boolean(json_integer_value(json_object_get(a, "compressed"))));
		json_object_set_new(a, "diagnostics", q_rows(db, sql));
		json_object_del(a, "id");
	}
	return arts;
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

static json_t *json_findings(sqlite3 *db)
{
	json_t *fs = q_rows(db,
		"SELECT id, rule, class, cause, score, title, advice, figures AS figures_json"
		" FROM finding ORDER BY score DESC, id");
	size_t i;
	json_t *f;

	json_array_foreach(fs, i, f) {
		char sql[200];
		snprintf(sql, sizeof(sql),
			 "SELECT ref_table AS \"table\", ref_id AS id, note FROM evidence"
			 " WHERE finding_id = %lld",
			 (long long)json_integer_value(json_object_get(f, "id")));
		json_object_set_new(f, "evidence", q_rows(db, sql));
		json_object_del(f, "id");
	}
	return fs;
}

/* ---- core dumps (issue 4) ---- */

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

/* --- issue 5: time series and the clock anchors used to place them --- */

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

json_t *report_json(sqlite3 *db)
{
	json_t *o = json_object();

	json_object_set_new(o, "oomlens", json_string(OOMLENS_VERSION));
	json_object_set_new(o, "schema", json_integer(q_int(db, "PRAGMA user_version", 0)));
	json_object_set_new(o, "verdict", json_verdict(db));
	json_object_set_new(o, "findings", json_findings(db));
	json_object_set_new(o, "events", json_events(db));
	json_object_set_new(o, "artifacts", json_artifacts(db));
	json_object_set_new(o, "gpu_cores", json_gpu_cores(db));     /* issue 4 */
	json_object_set_new(o, "host_cores", json_host_cores(db));   /* issue 4 */
	json_object_set_new(o, "series", json_series(db));     /* issue 5 */
	json_object_set_new(o, "anchors", json_anchors(db));   /* issue 5 */
	return o;
}
