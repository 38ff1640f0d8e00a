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
 *
 * The serving row also says what the load was before the OOM, from the
 * same samples (serving_history): the typical running requests (the
 * median of the running samples of the window before the one at the
 * OOM) and the KV cache usage's trend over the window (Theil-Sen slope
 * in points a minute and its R^2), which rules spike.c and leak.c judge.
 * An OOM with no time whose engine lines have none (a pasted excerpt)
 * gets the last untimed sample as its load (untimed_sql): no window.
 */
#include "analyzer/derive/load.h"
#include "analyzer/derive/stats.h"
#include "analyzer/store/query.h"
#include "analyzer/store/samples.h"
#include "lib/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOAD_MAX_POINTS 512   /* the last samples of a window kept for the figures */

static const char load_schema[] =
	"DROP TABLE IF EXISTS oom_load;"
	"CREATE TABLE oom_load(oom_id INTEGER PRIMARY KEY, doing TEXT NOT NULL,"
	" steps_done INTEGER, steps_total INTEGER, first_step INTEGER, bars INTEGER,"
	" at_start INTEGER, max_mem_first_mb REAL, max_mem_last_mb REAL,"
	" entity TEXT, running REAL, waiting REAL, kv_usage_pct REAL, running_before REAL,"
	" waiting_before REAL, kv_usage_before_pct REAL, window_s REAL, samples INTEGER,"
	" event_id INTEGER, epoch REAL, logged_steps INTEGER, step_source TEXT, at_ns INTEGER,"
	" running_typical REAL, samples_before INTEGER, kv_slope_pct_min REAL, kv_r2 REAL,"
	" kv_samples INTEGER);";

#define AFTER_STARTUP "o.phase IN ('training_step', 'eval', 'serving', 'unknown')"
#define JD(key) "json_extract(e.data, '$." key "')"

/* The training row: the last train_progress event of the OOM's log, for
 * an OOM in a training step or of no known phase (an evaluation's bar is
 * the evaluation loop's, not the training's progress). */
static const char training_sql[] =
	"INSERT INTO oom_load(oom_id, doing, steps_done, steps_total, first_step, bars, at_start,"
	" max_mem_first_mb, max_mem_last_mb, event_id, epoch, logged_steps, step_source)"
	" SELECT o.id, 'training', " JD("steps_done") ", " JD("steps_total") ", "
	JD("first_step") ", " JD("bars") ","
	/* the Trainer's dicts alone: two logged steps are past the first */
	" CASE WHEN " JD("steps_done") " IS NOT NULL THEN " JD("steps_done") " <= %d"
	" WHEN " JD("logged_steps") " >= 2 THEN 0 END, "
	JD("max_mem_first_mb") ", " JD("max_mem_last_mb") ", e.id, " JD("epoch") ", "
	JD("logged_steps") ", " JD("step_source")
	" FROM oom o JOIN event e ON e.kind = 'train_progress' AND e.artifact_id IS o.artifact_id"
	" AND json_valid(e.data) WHERE o.id = 1 AND o.phase IN ('training_step', 'unknown')"
	" ORDER BY e.id DESC LIMIT 1";

/* A series' value at the OOM (the last sample at or before it) and at the
 * start of the window (its first sample in the window); %s: the name. */
#define AT(name) "(SELECT p.value * CASE s.unit WHEN 'ratio' THEN 100 ELSE 1 END FROM series s" \
	" JOIN sample p ON p.series_id = s.id WHERE s.name = '" name "' AND s.entity IS r.entity" \
	" AND p.time_ns <= t.t ORDER BY p.time_ns DESC, p.rowid DESC LIMIT 1)"
#define BEFORE(name) "(SELECT p.value * CASE s.unit WHEN 'ratio' THEN 100 ELSE 1 END FROM series s" \
	" JOIN sample p ON p.series_id = s.id WHERE s.name = '" name "' AND s.entity IS r.entity" \
	" AND p.time_ns BETWEEN t.t - %lld AND t.t ORDER BY p.time_ns LIMIT 1)"

/* The serving row: the load at the OOM (its time, else the running
 * series' last sample) and at the window's start. */
static const char serving_sql[] =
	"INSERT INTO oom_load(oom_id, doing, entity, at_ns, running, waiting, kv_usage_pct,"
	" running_before, waiting_before, kv_usage_before_pct, window_s, samples)"
	" SELECT o.id, 'serving', r.entity, t.t, " AT("server.running") ", " AT("server.waiting") ", "
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

/* The serving row of an OOM with no time whose engine lines had none
 * either (a pasted excerpt: TGI's router prints "batch{batch_size=1}"
 * on the failing prefill's own line): the load at the failure is the
 * last untimed sample in the order read; no window, no "before". */
#define UNTIMED(name) "(SELECT p.value * CASE s.unit WHEN 'ratio' THEN 100 ELSE 1 END FROM series s" \
	" JOIN sample p ON p.series_id = s.id WHERE s.name = '" name "' AND s.entity IS r.entity" \
	" AND p.time_ns IS NULL ORDER BY p.rowid DESC LIMIT 1)"
static const char untimed_sql[] =
	"INSERT INTO oom_load(oom_id, doing, entity, running, waiting, kv_usage_pct, samples)"
	" SELECT o.id, 'serving', r.entity, " UNTIMED("server.running") ", "
	UNTIMED("server.waiting") ", " UNTIMED("server.gpu_kv_usage") ","
	" (SELECT count(*) FROM sample p WHERE p.series_id = r.id AND p.time_ns IS NULL)"
	" FROM oom o, (SELECT id, entity FROM series WHERE name = 'server.running'"
	"  ORDER BY id LIMIT 1) r"
	" WHERE o.id = 1 AND " AFTER_STARTUP " AND o.phase <> 'training_step' AND o.time_ns IS NULL"
	" AND EXISTS (SELECT 1 FROM sample p WHERE p.series_id = r.id AND p.time_ns IS NULL)"
	" AND NOT EXISTS (SELECT 1 FROM sample p WHERE p.series_id = r.id AND p.time_ns IS NOT NULL)"
	" AND NOT EXISTS (SELECT 1 FROM oom_load)";

/* why into err (may be NULL); returns -1. */
static int failed(struct strbuf *err, const char *why, char *msg)
{
	if (err)
		strbuf_addf(err, "%s: %s", why, msg ? msg : "failed");
	sqlite3_free(msg);
	return -1;
}

/* Up to LOAD_MAX_POINTS of the last samples of series sid in [from, to]
 * into t[] (s after from) and v[] (times mult); *n their number, *seen
 * how many the window held. 0, or -1 with why in err. */
static int window_points(sqlite3 *db, int64_t sid, int64_t from, int64_t to, double mult,
			 double *t, double *v, size_t *n, size_t *seen, struct strbuf *err)
{
	struct samples_iter it;
	const struct sample_rec *r;
	size_t k = 0, i;

	*n = *seen = 0;
	if (samples_iter_open(&it, db, sid, SI_VALUED | SI_BOUNDED, from, to) < 0)
		return failed(err, "oom_load samples", sqlite3_mprintf("%s", it.err));
	while ((r = samples_iter_next(&it))) {   /* a ring of the last ones */
		t[k % LOAD_MAX_POINTS] = (double)(r->time_ns - from) / 1e9;
		v[k % LOAD_MAX_POINTS] = r->value * mult;
		k++;
	}
	if (it.err) {
		int rc = failed(err, "oom_load samples", sqlite3_mprintf("%s", it.err));
		samples_iter_close(&it);
		return rc;
	}
	samples_iter_close(&it);
	*seen = k;
	*n = k < LOAD_MAX_POINTS ? k : LOAD_MAX_POINTS;
	if (k > LOAD_MAX_POINTS) {   /* unroll the ring into time order */
		double tt[LOAD_MAX_POINTS], vv[LOAD_MAX_POINTS];
		for (i = 0; i < LOAD_MAX_POINTS; i++) {
			tt[i] = t[(k + i) % LOAD_MAX_POINTS];
			vv[i] = v[(k + i) % LOAD_MAX_POINTS];
		}
		memcpy(t, tt, sizeof(tt));
		memcpy(v, vv, sizeof(vv));
	}
	return 0;
}

/* The series of that name and entity (the serving row's) and its unit's
 * factor to percent; 0 when none. */
static int64_t entity_series(sqlite3 *db, const char *name, const char *entity, double *mult)
{
	sqlite3_stmt *st;
	int64_t id = 0;
	const unsigned char *u;

	*mult = 1;
	if (sqlite3_prepare_v2(db, "SELECT id, unit FROM series WHERE name = ?1 AND entity IS ?2"
			       " ORDER BY id LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (entity)
		sqlite3_bind_text(st, 2, entity, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		u = sqlite3_column_text(st, 1);
		*mult = u && !strcmp((const char *)u, "ratio") ? 100 : 1;
	}
	sqlite3_finalize(st);
	return id;
}

/* The serving row's history (see the head): running_typical and
 * samples_before from the running samples of the window before the last
 * one, the KV usage's slope and fit over the window. 0, or -1 with why
 * in err. */
static int serving_history(sqlite3 *db, struct strbuf *err)
{
	double t[LOAD_MAX_POINTS], v[LOAD_MAX_POINTS];
	sqlite3_stmt *st;
	char entity[128] = "";
	int has_entity = 0, rc = 0;
	int64_t at, sid, w = (int64_t)LOAD_WINDOW_S * 1000000000LL;
	size_t n, seen;
	double mult, typical = NAN;
	struct fit kv = { NAN, NAN, NAN, 0 };

	if (sqlite3_prepare_v2(db, "SELECT at_ns, entity FROM oom_load WHERE doing = 'serving'"
			       " AND at_ns IS NOT NULL", -1, &st, NULL) != SQLITE_OK)
		return failed(err, "oom_load history", sqlite3_mprintf("%s", sqlite3_errmsg(db)));
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return 0;
	}
	at = sqlite3_column_int64(st, 0);
	if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
		snprintf(entity, sizeof(entity), "%s", (const char *)sqlite3_column_text(st, 1));
		has_entity = 1;
	}
	sqlite3_finalize(st);
	if ((sid = entity_series(db, "server.running", has_entity ? entity : NULL, &mult)) < 0)
		return failed(err, "oom_load history", sqlite3_mprintf("%s", sqlite3_errmsg(db)));
	if (sid && window_points(db, sid, at - w, at, mult, t, v, &n, &seen, err) < 0)
		return -1;
	if (!sid)
		n = seen = 0;
	if (n >= 2)   /* all but the sample at the OOM */
		typical = stats_median(v, n - 1);
	if ((sid = entity_series(db, "server.gpu_kv_usage", has_entity ? entity : NULL, &mult)) < 0)
		return failed(err, "oom_load history", sqlite3_mprintf("%s", sqlite3_errmsg(db)));
	if (sid && window_points(db, sid, at - w, at, mult, t, v, &n, &seen, err) < 0)
		return -1;
	if (!sid)
		n = 0;
	if (n < 3 || stats_theil_sen(t, v, n, &kv) < 0)
		kv.slope = kv.r2 = NAN;
	if (sqlite3_prepare_v2(db, "UPDATE oom_load SET running_typical = ?1, samples_before ="
			       " max(samples - 1, 0), kv_slope_pct_min = ?2, kv_r2 = ?3,"
			       " kv_samples = ?4 WHERE doing = 'serving'", -1, &st, NULL) != SQLITE_OK)
		return failed(err, "oom_load history", sqlite3_mprintf("%s", sqlite3_errmsg(db)));
	if (!isnan(typical))
		sqlite3_bind_double(st, 1, typical);
	if (!isnan(kv.slope)) {
		sqlite3_bind_double(st, 2, kv.slope * 60);
		sqlite3_bind_double(st, 3, kv.r2);
	}
	sqlite3_bind_int64(st, 4, (sqlite3_int64)n);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = failed(err, "oom_load history", sqlite3_mprintf("%s", sqlite3_errmsg(db)));
	sqlite3_finalize(st);
	return rc;
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
	if (sqlite3_exec(db, untimed_sql, NULL, NULL, &msg) != SQLITE_OK)
		return failed(err, "oom_load untimed", msg);
	return serving_history(db, err);
}
