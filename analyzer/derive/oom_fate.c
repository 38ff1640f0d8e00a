/*
 * oom_fate.c -- what became of each failure of table oom, derived once
 * (pass oom_fate, after oom): whether the server its log belongs to
 * served a request after it, and whether a kernel OOM took a process of
 * a build step. The rules (startup.c, buildkill.c) and the reports read
 * these columns; none asks the parser's meta or another rule's finding.
 *
 * survival (docs/schema.md, table oom):
 *   survived -- the failure's own log answers a request with 2xx, or
 *     says a generation finished, after the failure's line and before
 *     any new engine process (meta server.answers, written by
 *     parsers/serving/server_answers.c; survival_by request_served), or,
 *     with no answer there, goes on to its serving stage by a stage line
 *     (meta server.last_stage by stage_line: "main: model loaded",
 *     "Application startup complete"; survival_by serving_stage);
 *   died -- the requests it answered after the failure, before any new
 *     engine process or the log's end, were all errors (5xx, an error
 *     answer; survival_by error_answer): what the failure hit did not
 *     come back (Ollama's 500 after "error loading llama server");
 *   survived by batch_fallback -- with neither, the failure's own
 *     message says the program caught it on one batch and goes on with a
 *     smaller one (lib/fallback_words.c: bio_embeddings' "Will try to
 *     embed each sequence in the set individually"); survival_line is
 *     the failure's own line;
 *   unknown -- the log says none of these (no line after it, or the
 *     failure was read from another kind of artifact).
 * survival_line is the line that shows it (a served run's first line
 * after the failure, else its last).
 * build_tool: the comm of a kernel OOM's victim (else, with no kill
 * line, its invoker) when lib/build_tools.c names it a compiler,
 * assembler or linker; NULL otherwise.
 */
#include "analyzer/derive/derive.h"
#include "analyzer/derive/oom.h"
#include "lib/build_tools.h"
#include "lib/fallback_words.h"
#include "lib/strbuf.h"

#include <stdint.h>
#include <string.h>

static const char rows_sql[] =
	"SELECT o.id, e.artifact_id, e.line, CASE WHEN json_valid(e.data) THEN"
	" coalesce(json_extract(e.data, '$.exception'), json_extract(e.data, '$.text')) END"
	" FROM oom o JOIN event e ON e.id = o.event_id"
	" WHERE e.line IS NOT NULL AND e.artifact_id IS NOT NULL";
/* the runs of an artifact that end after a line, in the log's order */
static const char runs_sql[] =
	"SELECT json_extract(j.value, '$.first'), json_extract(j.value, '$.last'),"
	" json_extract(j.value, '$.what') FROM meta m, json_each(m.value, '$.runs') j"
	" WHERE m.artifact_id = ?1 AND m.key = 'server.answers' AND json_valid(m.value)"
	" AND json_extract(j.value, '$.last') > ?2 ORDER BY j.key";
/* the log's serving stage reached by a stage line after the failure */
static const char stage_sql[] =
	"SELECT json_extract(m.value, '$.line') FROM meta m WHERE m.artifact_id = ?1"
	" AND m.key = 'server.last_stage' AND json_valid(m.value)"
	" AND json_extract(m.value, '$.phase') = 'serving'"
	" AND json_extract(m.value, '$.by') = 'stage_line'"
	" AND json_extract(m.value, '$.line') > ?2";
static const char set_sql[] =
	"UPDATE oom SET survival = ?2, survival_by = ?3, survival_line = ?4 WHERE id = ?1";
static const char kernel_sql[] =
	"SELECT id, coalesce(victim_comm, invoker_comm) FROM oom"
	" WHERE kind IN ('kernel_oom', 'memcg_oom')";
static const char tool_sql[] = "UPDATE oom SET build_tool = ?2 WHERE id = ?1";

struct fate {
	const char *survival, *by;
	int64_t line;               /* 0: none */
};

/* The fate of a failure at line `line` of artifact art: from its log's
 * answers, else its serving stage. 0, or -1 (a statement failed). */
static int fate_of(sqlite3 *db, int64_t art, int64_t line, struct fate *f)
{
	sqlite3_stmt *st;
	int64_t first, last, restart = 0;
	const char *what;
	int rc;

	f->survival = "unknown";
	f->by = NULL;
	f->line = 0;
	if (sqlite3_prepare_v2(db, runs_sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, art);
	sqlite3_bind_int64(st, 2, line);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		first = sqlite3_column_int64(st, 0);
		last = sqlite3_column_int64(st, 1);
		what = (const char *)sqlite3_column_text(st, 2);
		if (!what)
			continue;
		if (!strcmp(what, "restart")) {
			restart = first > line ? first : line + 1;
			break;
		}
		if (!strcmp(what, "served")) {
			f->survival = "survived";
			f->by = "request_served";
			f->line = first > line ? first : last;
			break;
		}
		if (!strcmp(what, "failed") && !f->line) {
			f->survival = "died";
			f->by = "error_answer";
			f->line = first > line ? first : last;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return -1;
	if (f->line)
		return 0;
	if (sqlite3_prepare_v2(db, stage_sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, art);
	sqlite3_bind_int64(st, 2, line);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    (!restart || sqlite3_column_int64(st, 0) < restart)) {
		f->survival = "survived";
		f->by = "serving_stage";
		f->line = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return 0;
}

/* Set survival on every row whose main event has a line. 0 or -1. */
static int survival(sqlite3 *db)
{
	sqlite3_stmt *rows, *set = NULL;
	struct fate f;
	int rc;

	if (sqlite3_prepare_v2(db, rows_sql, -1, &rows, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(db, set_sql, -1, &set, NULL) != SQLITE_OK)
		goto failed;
	while ((rc = sqlite3_step(rows)) == SQLITE_ROW) {
		if (fate_of(db, sqlite3_column_int64(rows, 1), sqlite3_column_int64(rows, 2), &f) < 0)
			goto failed;
		if (!f.line && fallback_word_in((const char *)sqlite3_column_text(rows, 3))) {
			f.survival = "survived";
			f.by = "batch_fallback";
			f.line = sqlite3_column_int64(rows, 2);
		}
		if (!f.line)
			continue;
		sqlite3_reset(set);
		sqlite3_bind_int64(set, 1, sqlite3_column_int64(rows, 0));
		sqlite3_bind_text(set, 2, f.survival, -1, SQLITE_STATIC);
		sqlite3_bind_text(set, 3, f.by, -1, SQLITE_STATIC);
		sqlite3_bind_int64(set, 4, f.line);
		if (sqlite3_step(set) != SQLITE_DONE)
			goto failed;
	}
	if (rc != SQLITE_DONE)
		goto failed;
	sqlite3_finalize(rows);
	sqlite3_finalize(set);
	return 0;
failed:
	sqlite3_finalize(rows);
	sqlite3_finalize(set);
	return -1;
}

/* Set build_tool on the kernel rows whose process was a build tool. */
static int build_tools(sqlite3 *db)
{
	sqlite3_stmt *rows, *set = NULL;
	const char *comm;
	int rc;

	if (sqlite3_prepare_v2(db, kernel_sql, -1, &rows, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(db, tool_sql, -1, &set, NULL) != SQLITE_OK)
		goto failed;
	while ((rc = sqlite3_step(rows)) == SQLITE_ROW) {
		comm = (const char *)sqlite3_column_text(rows, 1);
		if (!build_tool_of(comm))
			continue;
		sqlite3_reset(set);
		sqlite3_bind_int64(set, 1, sqlite3_column_int64(rows, 0));
		sqlite3_bind_text(set, 2, comm, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(set) != SQLITE_DONE)
			goto failed;
	}
	if (rc != SQLITE_DONE)
		goto failed;
	sqlite3_finalize(rows);
	sqlite3_finalize(set);
	return 0;
failed:
	sqlite3_finalize(rows);
	sqlite3_finalize(set);
	return -1;
}

int derive_oom_fate(sqlite3 *db, struct strbuf *err)
{
	if (survival(db) < 0 || build_tools(db) < 0) {
		if (err)
			strbuf_addstr(err, sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}
