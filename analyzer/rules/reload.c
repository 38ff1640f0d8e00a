/*
 * reload.c -- a model load that failed after the same process had served.
 *
 * The phase rule (startup.c) names a load_weights OOM a misconfiguration
 * because it came "before any request was served": the configuration
 * never fitted. When the failure's own log shows requests served earlier
 * in the same run of the process (meta server.answers, written by
 * parsers/serving/server_answers.c: a served run ending before the
 * failure's line, and no new engine process started between them -- the
 * log's engine_runs, or a restart run such as uvicorn's "Started server
 * process"), that premise is false: a configuration loaded and
 * served, then the process loaded again and ran out. A careful reader
 * sees memory the earlier load still held -- the model or its buffers
 * not given back before the new load (a multi-model server switching
 * models, a node re-instantiating its model when a setting changes):
 * memory not returned, a leak of the process, however short. The other
 * reading is a switch to a different, larger model that does not fit on
 * its own (a misconfiguration); the log rarely tells which model the
 * earlier requests used, so the finding says both and scores below the
 * readings that measure growth (RELOAD_SCORE), and startup.c, asked
 * through rl_served_before_load, stops claiming "before any request".
 *
 * Calibration (round 15, w-cause16): over the tuning set
 * (tests/data/real/any_stack, 526 rows) and incoming (219 rows), the
 * predicate holds for one row, and that row's thread establishes a leak
 * (d-comfyui-nunchaku-flux-reload-on-cache-threshold-change-oom-4090:
 * ComfyUI's "Prompt executed in" then nunchaku's "Loading weights from"
 * failing; the fix, nunchaku PR #40, stops the second copy being built
 * beside the first): 1 named, 1 right. One row is little: the score
 * stays modest (0.6) so any measured growth or load outranks it.
 */
#include "analyzer/rules/rulelib.h"
#include "analyzer/rules/startup_phase.h"

#include <stdio.h>

#define RELOAD_SCORE 0.6

/* Requests served earlier in the same run of the log of the OOM (oom row
 * 1) whose phase is load_weights: the served runs of its artifact's meta
 * server.answers that end before the failure's line with no engine run
 * nor restart run (a new process) starting between them and it. Fills
 * *count (requests) and *line (the last served line). 1 when some were, 0 none (or the OOM
 * is not a load, or its line is unknown), -1 failed (recorded in c). */
int rl_served_before_load(struct rule_ctx *c, double *count, double *line)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT sum(json_extract(j.value, '$.count')),"
		" max(json_extract(j.value, '$.last'))"
		" FROM oom o JOIN event e ON e.id = o.event_id"
		" JOIN meta m ON m.artifact_id = o.artifact_id AND m.key = 'server.answers'"
		" AND json_valid(m.value), json_each(m.value, '$.runs') j"
		" WHERE o.id = 1 AND o.phase = 'load_weights' AND e.line IS NOT NULL"
		" AND json_extract(j.value, '$.what') = 'served'"
		" AND json_extract(j.value, '$.last') < e.line"
		" AND NOT EXISTS (SELECT 1 FROM json_each(m.value, '$.engine_runs') r"
		"  WHERE r.value > json_extract(j.value, '$.last') AND r.value <= e.line)"
		" AND NOT EXISTS (SELECT 1 FROM json_each(m.value, '$.runs') k"
		"  WHERE json_extract(k.value, '$.what') = 'restart'"
		"  AND json_extract(k.value, '$.first') > json_extract(j.value, '$.last')"
		"  AND json_extract(k.value, '$.first') <= e.line)");
	int r = 0;

	*count = *line = 0;
	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL &&
	    sqlite3_column_double(st, 0) > 0) {
		*count = sqlite3_column_double(st, 0);
		*line = sqlite3_column_double(st, 1);
		r = 1;
	}
	sqlite3_finalize(st);
	return c->failed ? -1 : r;
}

int rule_reload(struct rule_ctx *c)
{
	struct rl_finding f;
	struct rl_phase ph;
	double n, line;
	int64_t fid;
	int r = rl_served_before_load(c, &n, &line);

	if (r <= 0)
		return r;
	if (rl_oom_phase(c, &ph) <= 0)
		return c->failed ? -1 : 0;
	rl_finding_init(&f, "reload", "leak", "reload_after_serving");
	f.phase = "load_weights";
	f.score = RELOAD_SCORE;
	rl_fig(&f, "served_before", n);
	rl_fig(&f, "last_served_line", line);
	snprintf(f.title, sizeof(f.title), "A model load failed after the same process had served"
		 " %.0f request%s (the last at line %.0f, no restart between): the earlier load's"
		 " memory was likely still held -- not returned -- unless a larger model was being"
		 " loaded", n, n == 1 ? "" : "s", line);
	rl_advice(&f, "The configuration loaded and served before, so it fits: free what the"
		  " earlier load holds before loading again (unload the previous model or its"
		  " node's cache; ComfyUI's --disable-smart-memory or a restart returns it), and"
		  " check whether the new load is a different, larger model -- then it is that"
		  " model's size that does not fit.");
	fid = rl_finding_write(c, &f);
	if (fid < 0 || (ph.event_id &&
	    rl_evidence(c, fid, "event", ph.event_id, "the load that failed after serving") < 0))
		return -1;
	return 1;
}
