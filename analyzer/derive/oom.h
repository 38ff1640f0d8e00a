/*
 * oom.h -- the incident's OOMs and memory failures, derived once into
 * table `oom` (analyzer/derive/oom.c; docs/schema.md says its columns and
 * the rule that makes the row with id 1 "the OOM"). Rules and reports
 * read that table: none of them decides what "the OOM", its moment or its
 * victim is.
 */
#ifndef OOMLENS_DERIVE_OOM_H
#define OOMLENS_DERIVE_OOM_H

#include <sqlite3.h>

struct strbuf;

/* Drop and rebuild table oom (and its view oom_victim) from the store's
 * tables. 0, or -1 with why in err (may be NULL).
 * An empty table means no artifact records an OOM, a kill or a memory
 * failure (the verdict is then no_oom). */
int derive_oom(sqlite3 *db, struct strbuf *err);

/* Cross-paste placement (oom_paste.c): every candidate of temp.oom_cand
 * whose phase is unknown takes the last stage of a server log of the same
 * folder, by time (phase_source other_paste_time) or by the pastes'
 * numbered file names (other_paste_order), when that is unambiguous;
 * phase_artifact names that log. 0, or -1 with why in err. */
int derive_oom_paste(sqlite3 *db, struct strbuf *err);

/* The paste number a file name (the path's last component) starts with:
 * its leading digits followed by '-', '_', '.' or ' ' ("01-server.log"
 * -> 1); -1 when it has none (oom_paste.c; oom_run.c trusts it too). */
long oom_paste_number(const char *path);

/* Runs of the service (oom_run.c): every candidate of temp.oom_cand
 * takes run (1 = the earliest) and run_by (`clock`, or `file_order`:
 * inferred) when the folder holds two runs or more with a failure each
 * (a server log with its own engine start-up, a new engine process inside
 * a log); NULL otherwise. "The OOM" is then the latest run's. 0, or -1
 * with why in err. */
int derive_oom_runs(sqlite3 *db, struct strbuf *err);

/* The run of its log each engine row is of (oom_run.c): column
 * engine.run (schema 10) = 1 + the later runs the log began at or before
 * the row's first line (meta server.answers "engine_runs": the lines of
 * the start-up banners the parser took for a new engine process after a
 * failure or a request served, parsers/serving/server_log.c
 * new_run_line); 1 in a log of one run; NULL for a row of no artifact.
 * The instance's text may say "run N" for people; no code reads it.
 * 0, or -1 with why in err. */
int derive_engine_runs(sqlite3 *db, struct strbuf *err);

/* SQL, true for a row of table engine (named engine) of another run of
 * its log than the one its artifact's last failure happened in: the run
 * (engine.run) of the latest row begun at or before that failure's line
 * (every row of the log when none failed in it: its last run). A failure
 * is judged against its own run's facts, not the flags and capacity
 * another start-up of the same file stated (round 13, w-runs14; the
 * column since schema 10). False in a log of one run. */
#define OOM_OTHER_LOG_RUN \
	"coalesce((SELECT max(lg.run) FROM engine lg WHERE lg.artifact_id = engine.artifact_id) > 1" \
	" AND engine.run <> (SELECT max(lg.run) FROM engine lg" \
	"  WHERE lg.artifact_id = engine.artifact_id AND lg.line <= coalesce((SELECT max(le.line)" \
	"   FROM oom lo JOIN event le ON le.id = lo.event_id WHERE lo.artifact_id = engine.artifact_id)," \
	"   9000000000000000000)), 0)"

/* One Kubernetes kill told by two pastes (oom_same.c): k8s_oom_kill
 * candidates of temp.oom_cand from different files that agree on the
 * pod, namespace, container, restart count and time become one row whose
 * evidence lists each record. 0, or -1 with why in err. */
int derive_oom_same_kill(sqlite3 *db, struct strbuf *err);

/* One line read by two readers (oom_same.c): the generic recogniser's
 * mem_failure candidate of a file's line that a specific reader's
 * candidate also comes from (same path and container, same line, another
 * artifact row) folds into that one, which takes the phase, family and
 * figures it lacks. 0, or -1 with why in err. */
int derive_oom_same_line(sqlite3 *db, struct strbuf *err);

/* What became of each row (oom_fate.c, pass oom_fate): columns
 * survival, survival_by, survival_line (whether the failure's own server
 * log served a request after it) and build_tool (a kernel OOM's process
 * that lib/build_tools.c names). 0, or -1 with why in err. */
int derive_oom_fate(sqlite3 *db, struct strbuf *err);

/* How much work each row's program completed before it (oom_progress.c,
 * pass oom_progress, after oom_load): columns progress (`none`, `some`,
 * `unknown`), progress_done (N units, NULL when the lines do not count
 * them) and progress_unit (`step`, `logged_step`, `request`; NULL). 0,
 * or -1 with why in err. */
int derive_oom_progress(sqlite3 *db, struct strbuf *err);

/* The words of an engine's error text (the SQL expression T, text or
 * NULL) that say the engine never started: vLLM's "EngineCore failed to
 * start", "Engine core initialization failed", TGI's "Shard 0 failed to
 * start", a model that failed to load. One definition for derive (the
 * `startup` phase of an OOM nothing placed) and the rules' engine facts
 * (failed_start), so the two cannot disagree. */
#define DERIVE_FAILED_START(T) \
	"(lower(" T ") LIKE '%failed to start%' OR lower(" T ") LIKE '%initialization failed%'" \
	" OR lower(" T ") LIKE '%loading failed%' OR lower(" T ") LIKE '%failed to load%')"

#endif
