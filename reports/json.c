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

/* PyTorch memory snapshots (issue 3): one object per snapshot file, sizes
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
	size_t i;
	json_t *o;

	json_array_foreach(snaps, i, o) {
		char sql[300];
		snprintf(sql, sizeof(sql),
			 "SELECT device, size AS requested_bytes, device_free AS device_free_bytes,"
			 " time_ns AS time FROM trace WHERE snapshot_id = %lld AND action = 'oom'"
			 " ORDER BY device, seq",
			 (long long)json_integer_value(json_object_get(o, "id")));
		json_object_set_new(o, "ooms", q_rows(db, sql));
		json_object_del(o, "id");
	}
	return snaps;
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
	json_object_set_new(o, "snapshots", json_snapshots(db));
	return o;
}
