/*
 * answer_runs.c -- the answer's sentence about the runs of the service a
 * folder holds (oom.run and oom.run_by, analyzer/derive/oom_run.c): the
 * verdict is the latest run's, and each earlier run's first failure is
 * named with its phase and its file, so the retries the user made stay
 * in view. Read from the database only; nothing when the folder holds
 * one run.
 *
 * Inside one log, a new engine process after a failure or a request
 * served begins a run of its own (engine.run, analyzer/derive/oom_run.c
 * derive_engine_runs): when the OOM's log holds several, the answer says
 * which run failed, as its facts are that run's rows.
 */
#include "reports/section.h"
#include "analyzer/store/query.h"
#include "lib/strbuf.h"

#include <string.h>

#define RUNS_NAMED 3   /* earlier runs named; the rest are counted */

/* The last path component of path. */
static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Contract: a failure's kind (oom.kind) in words for the answer; the
 * kind itself where it has none here, so nothing is hidden. */
static const char *kind_words(const char *kind)
{
	static const struct { const char *kind, *words; } w[] = {
		{ "torch_oom", "PyTorch's out-of-memory error" },
		{ "torch_oom_count", "PyTorch's out-of-memory error" },
		{ "engine_oom", "the serving engine's out-of-memory error" },
		{ "mem_failure", "a memory-allocation failure" },
		{ "alloc_failure", "a memory-allocation failure" },
		{ "oom_kill", "the kernel's OOM kill" },
		{ "userspace_kill", "a kill by a user-space OOM killer" },
		{ "cuda_exception", "a CUDA out-of-memory error" },
	};

	if (!kind)
		return "a failure";
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
		if (!strcmp(kind, w[i].kind))
			return w[i].words;
	return kind;
}

/* Contract: appends to out one sentence when the log of row 1 of oom
 * holds two runs or more (engine.run): how many, and which one the OOM
 * is of (the run of its log's latest engine row begun at or before the
 * OOM's line, the same choice as oom.h OOM_OTHER_LOG_RUN). */
static void answer_log_runs(struct report_ctx *c, struct strbuf *out)
{
	sqlite3_stmt *st;
	int runs, run;

	if (!q_has_table(c->db, "engine") || !q_has_table(c->db, "oom"))
		return;
	st = r_prepare(c, "SELECT (SELECT max(g.run) FROM engine g WHERE g.artifact_id = o.artifact_id),"
		       " (SELECT g.run FROM engine g WHERE g.artifact_id = o.artifact_id"
		       "  AND g.line <= coalesce((SELECT e.line FROM event e WHERE e.id = o.event_id),"
		       "  9000000000000000000) ORDER BY g.line DESC, g.id DESC LIMIT 1)"
		       " FROM oom o WHERE o.id = 1 AND o.artifact_id IS NOT NULL");
	if (!st)
		return;
	if (sqlite3_step(st) == SQLITE_ROW && (runs = sqlite3_column_int(st, 0)) > 1 &&
	    (run = sqlite3_column_int(st, 1)) > 0)
		strbuf_addf(out, " Its log holds %d runs of the engine (a new engine process"
			    " started after a failure or a request served); the OOM is of run %d,"
			    " judged against that run's settings.", runs, run);
	sqlite3_finalize(st);
}

/* Contract: appends to out (may be empty) one or more sentences when row
 * 1 of oom has a run and an earlier run exists: how many runs, how they
 * were ordered (`file_order` said inferred), and each earlier run's first
 * failure (kind, phase, file), latest first, at most RUNS_NAMED. */
void answer_earlier_runs(struct report_ctx *c, struct strbuf *out)
{
	sqlite3_stmt *st = r_prepare(c, "SELECT o.run, o.run_by, o.kind, o.phase, a.path,"
				     " (SELECT max(run) FROM oom) FROM oom o"
				     " LEFT JOIN artifact a ON a.id = o.artifact_id"
				     " WHERE o.run IS NOT NULL AND o.run < (SELECT run FROM oom WHERE id = 1)"
				     " AND o.id = (SELECT min(p.id) FROM oom p WHERE p.run = o.run)"
				     " ORDER BY o.run DESC");
	int n = 0;

	answer_log_runs(c, out);
	if (!st)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *by = (const char *)sqlite3_column_text(st, 1);
		const char *kind = (const char *)sqlite3_column_text(st, 2);
		const char *phase = (const char *)sqlite3_column_text(st, 3);
		const char *path = (const char *)sqlite3_column_text(st, 4);

		if (n == 0)
			strbuf_addf(out, " The folder holds %d runs of the service; this verdict is"
				    " the latest run's (%s).", sqlite3_column_int(st, 5),
				    by && !strcmp(by, "clock") ? "runs ordered by their clocks"
				    : "order inferred from the files' order");
		if (n++ >= RUNS_NAMED)
			continue;
		if (phase && strcmp(phase, "unknown"))
			strbuf_addf(out, " An earlier run (run %d) failed in %s: %s",
				    sqlite3_column_int(st, 0), phase, kind_words(kind));
		else
			strbuf_addf(out, " An earlier run (run %d) failed, its phase unknown: %s",
				    sqlite3_column_int(st, 0), kind_words(kind));
		if (path) {
			strbuf_addstr(out, " in ");
			strbuf_add_utf8(out, base_name(path), strlen(base_name(path)));
		}
		strbuf_addch(out, '.');
	}
	if (n > RUNS_NAMED)
		strbuf_addf(out, " %d earlier runs more are in the OOM list.", n - RUNS_NAMED);
	sqlite3_finalize(st);
}
