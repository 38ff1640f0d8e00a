/*
 * load.c -- the derive pass `oom_load` (load.h): the training progress
 * or the serving load at the OOM, from what the parsers kept: the
 * train_progress event of the OOM's own log (server_progress.c), the
 * server.running / server.waiting / server.gpu_kv_usage series (the
 * engine's statistics lines, server_stats.c). Only an OOM after start-up
 * (phase training_step, eval, serving or unknown) gets a row: a start-up
 * OOM's class is its phase's (startup_phase.c). A log holds the
 * statistics of one engine mostly; with several entities (TP ranks, V1
 * engines) the one the running series of lowest id names is read, and
 * the waiting and KV series of that entity.
 */
#include "analyzer/derive/load.h"
#include "analyzer/store/query.h"
#include "lib/strbuf.h"

#include <stdio.h>

static const char load_schema[] =
	"DROP TABLE IF EXISTS oom_load;"
	"CREATE TABLE oom_load(oom_id INTEGER PRIMARY KEY, doing TEXT NOT NULL,"
	" steps_done INTEGER, steps_total INTEGER, first_step INTEGER, bars INTEGER,"
	" at_start INTEGER, max_mem_first_mb REAL, max_mem_last_mb REAL,"
	" entity TEXT, running REAL, waiting REAL, kv_usage_pct REAL, running_before REAL,"
	" waiting_before REAL, kv_usage_before_pct REAL, window_s REAL, samples INTEGER,"
	" event_id INTEGER);";

#define AFTER_STARTUP "o.phase IN ('training_step', 'eval', 'serving', 'unknown')"
#define JD(key) "json_extract(e.data, '$." key "')"

/* The training row: the last train_progress event of the OOM's log, for
 * an OOM in a training step or of no known phase (an evaluation's bar is
 * the evaluation loop's, not the training's progress). */
static const char training_sql[] =
	"INSERT INTO oom_load(oom_id, doing, steps_done, steps_total, first_step, bars, at_start,"
	" max_mem_first_mb, max_mem_last_mb, event_id)"
	" SELECT o.id, 'training', " JD("steps_done") ", " JD("steps_total") ", "
	JD("first_step") ", " JD("bars") ", " JD("steps_done") " <= %d, "
	JD("max_mem_first_mb") ", " JD("max_mem_last_mb") ", e.id"
	" FROM oom o JOIN event e ON e.kind = 'train_progress' AND e.artifact_id IS o.artifact_id"
	" AND json_valid(e.data) WHERE o.id = 1 AND o.phase IN ('training_step', 'unknown')"
	" ORDER BY e.id DESC LIMIT 1";

/* A series' value at the OOM (the last sample at or before it) and at the
 * start of the window (its first sample in the window); %s: the name. */
#define AT(name) "(SELECT p.value * CASE s.unit WHEN 'ratio' THEN 100 ELSE 1 END FROM series s" \
	" JOIN sample p ON p.series_id = s.id WHERE s.name = '" name "' AND s.entity IS r.entity" \
	" AND p.time_ns <= t.t ORDER BY p.time_ns DESC LIMIT 1)"
#define BEFORE(name) "(SELECT p.value * CASE s.unit WHEN 'ratio' THEN 100 ELSE 1 END FROM series s" \
	" JOIN sample p ON p.series_id = s.id WHERE s.name = '" name "' AND s.entity IS r.entity" \
	" AND p.time_ns BETWEEN t.t - %lld AND t.t ORDER BY p.time_ns LIMIT 1)"

/* The serving row: the load at the OOM (its time, else the running
 * series' last sample) and at the window's start. */
static const char serving_sql[] =
	"INSERT INTO oom_load(oom_id, doing, entity, running, waiting, kv_usage_pct, running_before,"
	" waiting_before, kv_usage_before_pct, window_s, samples)"
	" SELECT o.id, 'serving', r.entity, " AT("server.running") ", " AT("server.waiting") ", "
	AT("server.gpu_kv_usage") ", " BEFORE("server.running") ", " BEFORE("server.waiting") ", "
	BEFORE("server.gpu_kv_usage") ","
	" (SELECT (max(p.time_ns) - min(p.time_ns)) / 1e9 FROM sample p WHERE p.series_id = r.id"
	"  AND p.time_ns BETWEEN t.t - %lld AND t.t),"
	" (SELECT count(*) FROM sample p WHERE p.series_id = r.id"
	"  AND p.time_ns BETWEEN t.t - %lld AND t.t)"
	" FROM oom o, (SELECT id, entity FROM series WHERE name = 'server.running'"
	"  ORDER BY id LIMIT 1) r,"
	" (SELECT coalesce((SELECT time_ns FROM oom WHERE id = 1), (SELECT max(p.time_ns)"
	"  FROM sample p WHERE p.series_id = (SELECT min(id) FROM series"
	"  WHERE name = 'server.running'))) AS t) t"
	" WHERE o.id = 1 AND " AFTER_STARTUP " AND o.phase <> 'training_step' AND t.t IS NOT NULL"
	" AND NOT EXISTS (SELECT 1 FROM oom_load)";

/* why into err (may be NULL); returns -1. */
static int failed(struct strbuf *err, const char *why, char *msg)
{
	if (err)
		strbuf_addf(err, "%s: %s", why, msg ? msg : "failed");
	sqlite3_free(msg);
	return -1;
}

int derive_load(sqlite3 *db, struct strbuf *err)
{
	long long w = (long long)LOAD_WINDOW_S * 1000000000LL;
	char *msg = NULL;
	char *sql;

	if (sqlite3_exec(db, load_schema, NULL, NULL, &msg) != SQLITE_OK)
		return failed(err, "oom_load table", msg);
	if (!q_has_table(db, "oom"))
		return 0;
	if (!(sql = sqlite3_mprintf(training_sql, LOAD_FIRST_STEPS)))
		return failed(err, "oom_load", NULL);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		sqlite3_free(sql);
		return failed(err, "oom_load training", msg);
	}
	sqlite3_free(sql);
	if (!(sql = sqlite3_mprintf(serving_sql, w, w, w, w, w)))
		return failed(err, "oom_load", NULL);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		sqlite3_free(sql);
		return failed(err, "oom_load serving", msg);
	}
	sqlite3_free(sql);
	return 0;
}
