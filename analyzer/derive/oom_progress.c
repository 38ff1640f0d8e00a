/*
 * oom_progress.c -- the derive pass `oom_progress`: how much work the
 * program completed before each failure, once, into columns progress,
 * progress_done and progress_unit of table oom (schema 10; docs/schema.md
 * says them). Rules (phase_inferred.c) and reports read the columns;
 * none recomputes them.
 *
 * What counts as a unit of work, and where it is read (every wording is
 * the readers' own; this pass adds no list of words):
 *  - a training or evaluation loop's progress: the train_progress event
 *    of the failure's own log at or before its line (server_progress.c:
 *    tqdm/Lightning/Keras bars `37/500 [`, a logger's `[ 940/3696]`,
 *    DeepSpeed's step lines, the HF Trainer's `{'loss': ...}` dicts):
 *    steps done 0 -> none; N > 0 -> some, N `step`; the Trainer's dicts
 *    alone -> some, N `logged_step`;
 *  - a served request: phase serving with a request served before it
 *    (phase_source request_served, another paste's serving stage, the
 *    engine's statistics lines with requests running at it, the server
 *    serving on after it) -> some, unit `request` (N NULL: the engines'
 *    lines rarely count them); a serving OOM placed by its traceback's
 *    frames alone says nothing of the requests before it (below);
 *  - a start-up phase (load_weights, profile, kv_alloc, graph_capture,
 *    warmup, startup): no unit of work can have finished -> none.
 * Else, with no progress of any loop in its log:
 *  - the log shows the program's life before the failure (a stage line
 *    at or before it: meta server.last_stage; an engine start-up row
 *    above it) and no unit finished -> none: the failure came at
 *    the first unit of work (the first step, the first evaluation batch,
 *    the first request);
 *  - the files hold the failure only (a one-line paste, a traceback
 *    alone) -> unknown.
 * progress none from "no progress seen" is inferred from what the log
 * does not show; the rule that reads it says so.
 */
#include "analyzer/derive/oom.h"
#include "analyzer/store/query.h"
#include "lib/strbuf.h"

#include <sqlite3.h>
#include <stdio.h>

#define JD(key) "json_extract(p.data, '$." key "')"

/* The last train_progress event of the row's log at or before its line
 * (any of that log when the failure has no line). */
#define LAST_PROGRESS \
	"(SELECT p.id FROM event p WHERE p.kind = 'train_progress' AND p.artifact_id IS oom.artifact_id" \
	" AND json_valid(p.data) AND (p.line IS NULL OR (SELECT e.line FROM event e" \
	"  WHERE e.id = oom.event_id) IS NULL OR p.line <= (SELECT e.line FROM event e" \
	"  WHERE e.id = oom.event_id)) ORDER BY p.id DESC LIMIT 1)"

/* a start-up phase: nothing of the work had begun */
static const char startup_sql[] =
	"UPDATE oom SET progress = 'none' WHERE phase IN ('load_weights', 'profile', 'kv_alloc',"
	" 'graph_capture', 'warmup', 'startup')";

/* a loop's progress in the failure's own log */
static const char loop_sql[] =
	"UPDATE oom SET (progress, progress_done, progress_unit) = (SELECT"
	" CASE WHEN " JD("steps_done") " = 0 THEN 'none' ELSE 'some' END,"
	" coalesce(" JD("steps_done") ", " JD("logged_steps") "),"
	" CASE WHEN " JD("steps_done") " IS NOT NULL THEN 'step' ELSE 'logged_step' END"
	" FROM event p WHERE p.id = " LAST_PROGRESS ")"
	" WHERE progress IS NULL AND phase IN ('training_step', 'eval', 'unknown')"
	" AND EXISTS (SELECT 1 FROM event p WHERE p.id = " LAST_PROGRESS
	" AND (" JD("steps_done") " IS NOT NULL OR " JD("logged_steps") " >= 1))";

/* serving, with a request served before it: the phase's own placement
 * by a request (request_served), another paste's serving stage,
 * requests running in the engine's statistics at it, or the server
 * serving on after it */
static const char serving_sql[] =
	"UPDATE oom SET progress = 'some', progress_unit = 'request'"
	" WHERE progress IS NULL AND phase = 'serving' AND (phase_source IN ('request_served',"
	" 'other_paste_time', 'other_paste_order') OR survival = 'survived'"
	" OR EXISTS (SELECT 1 FROM oom_load l WHERE l.oom_id = oom.id AND l.doing = 'serving'"
	"  AND l.running > 0))";

/* the log shows the program's life before the failure (a stage line at
 * or before it, an engine's start-up row above it), and no unit of work
 * finished */
static const char before_sql[] =
	"UPDATE oom SET progress = 'none' WHERE progress IS NULL AND ("
	" EXISTS (SELECT 1 FROM meta m WHERE m.artifact_id IS oom.artifact_id"
	"  AND m.key = 'server.last_stage' AND json_valid(m.value)"
	"  AND coalesce(json_extract(m.value, '$.line') <= (SELECT e.line FROM event e"
	"   WHERE e.id = oom.event_id), 1))"
	" OR EXISTS (SELECT 1 FROM engine g WHERE g.artifact_id IS oom.artifact_id"
	"  AND coalesce(g.line < (SELECT e.line FROM event e WHERE e.id = oom.event_id), 0)))";

/* the files hold the failure alone */
static const char rest_sql[] = "UPDATE oom SET progress = 'unknown' WHERE progress IS NULL";

/* In order: each fills only the rows the ones before left NULL. */
static const char *const passes[] = {
	startup_sql, loop_sql, serving_sql, before_sql, rest_sql, NULL
};

int derive_oom_progress(sqlite3 *db, struct strbuf *err)
{
	char *msg = NULL;
	int i;

	if (!q_has_table(db, "oom"))
		return 0;
	for (i = 0; passes[i]; i++)
		if (sqlite3_exec(db, passes[i], NULL, NULL, &msg) != SQLITE_OK) {
			if (err)
				strbuf_addf(err, "oom_progress: %s", msg ? msg : "failed");
			sqlite3_free(msg);
			return -1;
		}
	return 0;
}
