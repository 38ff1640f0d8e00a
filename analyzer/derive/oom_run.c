/*
 * oom_run.c -- which run of the service each failure belongs to, so that
 * a folder holding several runs is judged by its latest one.
 *
 * An incident folder often holds several runs of the same service: the
 * user retried with another setting and pasted each attempt's log
 * (tests/data/real/any_stack/vllm-0.8.3-gemma3-...: a KV-cache error
 * with max_model_len 4096, then a CUDA-graph capture OOM with 128), or
 * one log holds two start-ups (Ollama starting a new runner for a load).
 * The thread and the on-call engineer mean the latest run; the earlier
 * runs' failures stay listed.
 *
 * A run starts where the evidence shows a service start-up of its own:
 *   - a server log whose engine row holds start-up figures (table
 *     engine: the engine printed its own start-up accounting in that
 *     file, ENGINE_STARTUP_FIGURES) starts a run at its first line;
 *   - inside a log, each new engine process (meta server.answers, a run
 *     with what "restart": a PM_RESTART phase row, parsers/serving/
 *     phase_table.c) starts another.
 * Only starts followed by a failure of temp.oom_cand count; with fewer
 * than two such runs every candidate keeps run NULL and the order of
 * "the OOM" is unchanged.
 *
 * Order of the runs: by the clock when every run's start is timed on one
 * clock (all UTC or all local wall clock; run_by `clock`), where a log
 * that starts before the previous run's last failure is the same run (two
 * ranks, two replicas, a second paste of one run); else by the order the
 * files were read (their names) and the lines (run_by `file_order`, an
 * inferred order the reports say is inferred) and only between files
 * whose names number the pastes ("01-", "2_"), where a file whose
 * failures only repeat the previous run's words (the same failure pasted
 * twice, a note quoting it) is that run. A failure of a file that
 * starts no run (a kernel log, a pasted traceback) joins, by the clock
 * only, the latest run started at or before it; else it keeps run NULL.
 *
 * Contract: derive_oom_runs reads temp.oom_cand, event, engine and meta,
 * and sets temp.oom_cand.run (1 = earliest) and run_by. 0, or -1 with
 * why in err.
 *
 * Inside one log the runs are also numbered for its engine rows
 * (derive_engine_runs, column engine.run, schema 10), so that a failure
 * is judged against its own run's flags and capacity (oom.h
 * OOM_OTHER_LOG_RUN, the ledger, the rules' facts) from a column, not
 * from the instance's text.
 */
#include "analyzer/derive/oom.h"
#include "analyzer/store/query.h"
#include "lib/strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_STARTS 64    /* run starts weighed; past it the runs are not split */
#define RUN_CANDS 256    /* failures weighed; past it the runs are not split */
#define RUN_SAYS 160     /* bytes of a failure's words compared across files */

struct run_start {
	int64_t artifact, line, time_ns;   /* time_ns: INT64_MIN when untimed */
	int local;                         /* its time is a local wall clock */
	int numbered;                      /* its file name numbers the paste ("02-") */
	int cands;                         /* failures it holds */
	int64_t last_fail;                 /* its latest timed failure, INT64_MIN none */
	int run;                           /* its run number, 0 before numbering */
};

struct run_cand {
	int64_t rowid, artifact, line, time_ns;
	int local;
	int start;                         /* index into the starts, -1 none */
	char says[RUN_SAYS];               /* kind, bytes asked and message, cut */
};

/* The figures an engine prints while it starts (its memory accounting:
 * capacity, the share asked for, weights, the profile's peaks, the KV
 * cache, the limits it was started with, llama.cpp/Ollama's offload
 * plan). An engine row holding only errors (a pasted traceback) shows no
 * start-up and starts no run. */
#define ENGINE_STARTUP_FIGURES "n.total_bytes, n.gpu_memory_utilization, n.requested_bytes," \
	" n.weights_bytes, n.activation_peak_bytes, n.torch_peak_bytes, n.non_torch_bytes," \
	" n.cuda_graph_bytes, n.kv_cache_bytes, n.kv_cache_tokens, n.gpu_blocks, n.max_num_seqs," \
	" n.max_model_len, n.max_batch_prefill_tokens, n.gpu_layers, n.model_layers," \
	" n.compute_buffer_bytes, n.required_full_bytes, n.planned_total_bytes"

/* Where runs start: each server log with an engine's start-up figures
 * and a failure at
 * its line 0, and each new engine process a log's answers record, with
 * the time of that file's first timed event at or after the start. */
static const char starts_sql[] =
	"WITH s(artifact, line) AS ("
	" SELECT DISTINCT c.artifact_id, 0 FROM temp.oom_cand c"
	"  WHERE c.artifact_id IS NOT NULL AND EXISTS (SELECT 1 FROM engine n"
	"   WHERE n.artifact_id = c.artifact_id AND coalesce(" ENGINE_STARTUP_FIGURES ") IS NOT NULL)"
	" UNION SELECT m.artifact_id, json_extract(j.value, '$.first') FROM meta m,"
	"  json_each(m.value, '$.runs') j WHERE m.key = 'server.answers' AND json_valid(m.value)"
	"  AND json_extract(j.value, '$.what') = 'restart'"
	"  AND EXISTS (SELECT 1 FROM temp.oom_cand c WHERE c.artifact_id = m.artifact_id))"
	" SELECT s.artifact, s.line, (SELECT e.time_ns FROM event e WHERE e.artifact_id = s.artifact"
	"  AND e.time_ns IS NOT NULL AND coalesce(e.line, 0) >= s.line ORDER BY e.line, e.id LIMIT 1),"
	" (SELECT e.clock = 'local' FROM event e WHERE e.artifact_id = s.artifact"
	"  AND e.time_ns IS NOT NULL AND coalesce(e.line, 0) >= s.line ORDER BY e.line, e.id LIMIT 1),"
	" (SELECT a.path FROM artifact a WHERE a.id = s.artifact)"
	" FROM s ORDER BY s.artifact, s.line";

/* The failures: their file, line (of their main event), time, and what
 * they say (kind, bytes asked, the event's summary). */
static const char cands_sql[] =
	"SELECT c.rowid, c.artifact_id, (SELECT e.line FROM event e WHERE e.id = c.event_id),"
	" c.time_ns, c.clock = 'local', c.kind || '|' || coalesce(c.requested_bytes, '') || '|'"
	" || coalesce((SELECT e.summary FROM event e WHERE e.id = c.event_id), '')"
	" FROM temp.oom_cand c";

static const char set_sql[] = "UPDATE temp.oom_cand SET run = ?2, run_by = ?3 WHERE rowid = ?1";

static int failed(struct strbuf *err, sqlite3 *db)
{
	if (err)
		strbuf_addstr(err, sqlite3_errmsg(db));
	return -1;
}

/* engine.run of every row: 1 + the later runs its log began at or
 * before the row's first line (meta server.answers "engine_runs", the
 * parser's run starts: parsers/serving/server_answers.h); a row of no
 * artifact keeps NULL. A value that is not JSON counts no start. */
static const char engine_runs_sql[] =
	"UPDATE engine SET run = 1 + coalesce((SELECT count(*) FROM meta m,"
	" json_each(CASE WHEN json_valid(m.value) THEN m.value ELSE '{}' END, '$.engine_runs') j"
	" WHERE m.key = 'server.answers' AND m.artifact_id = engine.artifact_id"
	" AND j.value <= coalesce(engine.line, 0)), 0) WHERE artifact_id IS NOT NULL";

int derive_engine_runs(sqlite3 *db, struct strbuf *err)
{
	if (!q_has_table(db, "engine"))
		return 0;
	if (sqlite3_exec(db, q_has_table(db, "meta") ? engine_runs_sql
			 : "UPDATE engine SET run = 1 WHERE artifact_id IS NOT NULL", NULL, NULL, NULL) != SQLITE_OK)
		return failed(err, db);
	return 0;
}

static int64_t col_time(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? INT64_MIN : sqlite3_column_int64(st, i);
}

/* The start (index) a failure of file a at line `line` belongs to: the
 * last start of that file at or before the line; -1 when none. */
static int start_of(const struct run_start *s, int ns, int64_t a, int64_t line)
{
	int i, best = -1;

	for (i = 0; i < ns; i++)
		if (s[i].artifact == a && s[i].line <= line)
			best = i;
	return best;
}

/* qsort order of start indexes by time, then file order. */
static const struct run_start *sort_base;
static int by_time(const void *x, const void *y)
{
	const struct run_start *a = &sort_base[*(const int *)x], *b = &sort_base[*(const int *)y];

	if (a->time_ns != b->time_ns)
		return a->time_ns < b->time_ns ? -1 : 1;
	if (a->artifact != b->artifact)
		return a->artifact < b->artifact ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* 1 when every failure of start k says what some failure of run `run`
 * said (an untimed second paste of the same failure, a report quoting
 * it), so start k is not a run of its own. */
static int repeats(const struct run_start *s, const struct run_cand *c, int nc, int k, int run)
{
	int i, j, found;

	for (i = 0; i < nc; i++) {
		if (c[i].start != k)
			continue;
		for (found = 0, j = 0; j < nc && !found; j++)
			found = c[j].start >= 0 && s[c[j].start].run == run &&
				!strcmp(c[i].says, c[j].says);
		if (!found)
			return 0;
	}
	return 1;
}

/* Without clocks, may start b (after start a in file order) be a run of
 * its own? Inside one log (a new engine process), yes; across files only
 * when both file names number the pastes, so a note quoting the log, or
 * two files of unstated order, stay one run. */
static int untimed_split(const struct run_start *s, int a, int b)
{
	return s[a].artifact == s[b].artifact || (s[a].numbered && s[b].numbered);
}

/* Number the starts holding failures into runs (s[i].run); the number of
 * runs. clocked: order by time, merging a start before the previous run's
 * last failure into that run; else file order, merging a start whose
 * failures only repeat the previous run's (repeats). */
static int number_runs(struct run_start *s, int ns, const struct run_cand *c, int nc,
		       int clocked)
{
	int order[RUN_STARTS], n = 0, i, run = 0;
	int64_t last = INT64_MIN;

	for (i = 0; i < ns; i++)
		if (s[i].cands)
			order[n++] = i;
	if (clocked) {
		sort_base = s;
		qsort(order, (size_t)n, sizeof(order[0]), by_time);
	}
	for (i = 0; i < n; i++) {
		struct run_start *r = &s[order[i]];

		if (!run || (clocked ? last == INT64_MIN || r->time_ns > last
			     : untimed_split(s, order[i - 1], order[i])
			       && !repeats(s, c, nc, order[i], run)))
			run++;
		r->run = run;
		if (r->last_fail > last)
			last = r->last_fail;
	}
	return run;
}

int derive_oom_runs(sqlite3 *db, struct strbuf *err)
{
	struct run_start s[RUN_STARTS];
	struct run_cand *c = NULL;
	sqlite3_stmt *st;
	int ns = 0, nc = 0, i, runs, clocked = 1, local = -1, rc = 0;

	if (!q_has_table(db, "engine") || !q_has_table(db, "meta"))
		return 0;
	if (sqlite3_prepare_v2(db, starts_sql, -1, &st, NULL) != SQLITE_OK)
		return failed(err, db);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (ns == RUN_STARTS) {
			sqlite3_finalize(st);
			return 0;
		}
		s[ns].artifact = sqlite3_column_int64(st, 0);
		s[ns].line = sqlite3_column_int64(st, 1);
		s[ns].time_ns = col_time(st, 2);
		s[ns].local = sqlite3_column_int(st, 3);
		s[ns].numbered = oom_paste_number((const char *)sqlite3_column_text(st, 4)) >= 0;
		s[ns].cands = 0;
		s[ns].last_fail = INT64_MIN;
		s[ns].run = 0;
		ns++;
	}
	sqlite3_finalize(st);
	if (ns < 2)
		return 0;
	c = calloc(RUN_CANDS, sizeof(*c));
	if (!c) {
		if (err)
			strbuf_addstr(err, "out of memory");
		return -1;
	}
	if (sqlite3_prepare_v2(db, cands_sql, -1, &st, NULL) != SQLITE_OK) {
		free(c);
		return failed(err, db);
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (nc == RUN_CANDS) {
			nc = -1;
			break;
		}
		c[nc].rowid = sqlite3_column_int64(st, 0);
		c[nc].artifact = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1
			: sqlite3_column_int64(st, 1);
		c[nc].line = sqlite3_column_type(st, 2) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 2);
		c[nc].time_ns = col_time(st, 3);
		c[nc].local = sqlite3_column_int(st, 4);
		snprintf(c[nc].says, sizeof(c[nc].says), "%s",
			 sqlite3_column_text(st, 5) ? (const char *)sqlite3_column_text(st, 5) : "");
		c[nc].start = start_of(s, ns, c[nc].artifact, c[nc].line);
		if (c[nc].start >= 0) {
			struct run_start *r = &s[c[nc].start];

			r->cands++;
			if (c[nc].time_ns != INT64_MIN && c[nc].time_ns > r->last_fail)
				r->last_fail = c[nc].time_ns;
		}
		nc++;
	}
	sqlite3_finalize(st);
	if (nc < 0)
		goto done;
	/* one clock for every start holding a failure, or file order */
	for (i = 0; i < ns; i++) {
		if (!s[i].cands)
			continue;
		if (s[i].time_ns == INT64_MIN || (local >= 0 && local != s[i].local))
			clocked = 0;
		local = s[i].local;
	}
	runs = number_runs(s, ns, c, nc, clocked);
	if (runs < 2)
		goto done;
	if (sqlite3_prepare_v2(db, set_sql, -1, &st, NULL) != SQLITE_OK) {
		rc = failed(err, db);
		goto done;
	}
	for (i = 0; i < nc && rc == 0; i++) {
		int run = c[i].start >= 0 ? s[c[i].start].run : 0, k;

		/* a file that starts no run: the latest run started at or
		 * before it, on the runs' own clock */
		if (!run && clocked && c[i].time_ns != INT64_MIN && c[i].local == local)
			for (k = 0; k < ns; k++)
				if (s[k].run > run && s[k].time_ns <= c[i].time_ns)
					run = s[k].run;
		if (!run)
			continue;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, c[i].rowid);
		sqlite3_bind_int(st, 2, run);
		sqlite3_bind_text(st, 3, clocked ? "clock" : "file_order", -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = failed(err, db);
	}
	sqlite3_finalize(st);
done:
	free(c);
	return rc;
}
