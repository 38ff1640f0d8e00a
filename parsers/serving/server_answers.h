/*
 * server_answers.h -- how a server log's requests were answered, in the
 * order the log tells it: a request served (an access line of an
 * inference POST answered 2xx, a generation the engine says it finished)
 * or failed (the same access line answered 5xx, an error answer), and
 * the lines where a new engine process started (a PM_RESTART row of
 * phase_table.h, or uvicorn's "Started server process [N]": a Python
 * server started again, as a supervisor restarts a crashed one). Consecutive answers of one outcome are one run, so a
 * busy log costs a handful of runs; written at the end of the log as meta
 * server.answers, from which analyzer/derive/oom_fate.c decides, for each
 * failure of the log, whether the server served a request after it.
 *
 * The access-line formats, learnt from each stack's source:
 *   uvicorn (vLLM, SGLang, TabbyAPI, Aphrodite's API servers):
 *     uvicorn/config.py@0.30 LOGGING_CONFIG "access" formatter,
 *     '%(levelprefix)s %(client_addr)s - "%(request_line)s" %(status_code)s'
 *     -> 'INFO:     10.0.0.7:51234 - "POST /v1/completions HTTP/1.1" 200 OK'
 *   GIN (Ollama): gin-gonic/gin logger.go@v1.10.0 defaultLogFormatter,
 *     "[GIN] %v |%s %3d %s| %13v | %15s |%s %-7s %s %#v"
 *     -> '[GIN] 2025/04/29 - 12:31:50 | 500 |  2.27s |  127.0.0.1 | POST     "/api/generate"'
 *     (Ollama's own management routes, server/routes.go@v0.12.6: /api/show,
 *     /api/pull, /api/push, /api/create, /api/copy, /api/delete, /api/me,
 *     /api/blobs, /api/signin, /api/signout answer no inference)
 *   llama-server: tools/server/server.cpp@b5000 log_server_request,
 *     SRV_INF("request: %s %s %s %d\n", method, path, remote_addr, status)
 *     -> 'srv  log_server_r: request: POST /v1/embeddings 127.0.0.1 200'
 *     (2026 builds: 'srv  log_server_r: done request: POST ... 200')
 *   TGI's router: router/src/server.rs@v2.0.0 generate(): "Success" on
 *     an answered request (a span's line ending ": Success"), and
 *     "Request failed during generation: ..." on an error answer.
 *   vLLM's "Finished request <id>." (vllm/engine/async_llm_engine.py@v0.4.0,
 *     logged per request unless --disable-log-requests).
 *   ComfyUI: main.py prompt_worker logs "Prompt executed in N seconds"
 *     (later "in HH:MM:SS") when PromptExecutor.execute returns, whether
 *     the prompt succeeded or failed. A failed prompt says so first:
 *     execution.py execute() logs "!!! Exception during processing !!!
 *     <ex>" and its traceback, then, for an OOM, "Got an OOM, unloading
 *     all loaded models." (comfyanonymous/ComfyUI execution.py, 2023-2025
 *     indexed copies); an interrupted one "Processing interrupted"
 *     (execution.py interrupt_processing). server.py post_prompt logs
 *     "got prompt" as a prompt is queued. So "Prompt executed in" is a
 *     prompt served only when none of those failure lines, no
 *     traceback and no memory failure's words came since the last
 *     prompt began or ended (round 11, w-servphase); a failed prompt's
 *     end is kept in unserved_line for the phase reader.
 * A 4xx (a client's error: bad request, unauthorised) and any GET
 * (health, metrics, model lists) answer nothing about the model's memory
 * and are not counted.
 */
#ifndef OOMLENS_SERVER_ANSWERS_H
#define OOMLENS_SERVER_ANSWERS_H

#include <stddef.h>
#include <stdint.h>
#include "parsers/common/sink.h"

#define SRV_ANSWER_RUNS 48
#define SRV_ENGINE_RUNS 32   /* in-log run starts kept; past it, not split */

enum srv_answer {
	SRV_ANS_NONE = 0,
	SRV_ANS_SERVED,     /* a request answered 2xx, a generation finished */
	SRV_ANS_FAILED,     /* a request answered 5xx, an error answer */
	SRV_ANS_RESTART,    /* a new engine process started (PM_RESTART) */
	/* ComfyUI's prompt lines (above), never stored as runs: */
	SRV_ANS_PROMPT_START,   /* "got prompt" */
	SRV_ANS_PROMPT_FAILED,  /* a failure told inside the prompt */
	SRV_ANS_PROMPT_DONE     /* "Prompt executed in": SERVED unless it failed */
};

struct srv_answers {
	struct {
		uint64_t first, last;   /* its first and last line */
		int64_t count;
		enum srv_answer what;
	} run[SRV_ANSWER_RUNS];
	int n;
	int truncated;              /* 1: runs past SRV_ANSWER_RUNS were dropped */
	int prompt_failed;          /* 1: a failure since the prompt began */
	uint64_t unserved_line;     /* the last "Prompt executed in" of a
				     * failed prompt (0: none) */
	/* the lines where a later run of the log began (the start-up
	 * banner srv_engine_new_run was called for, server_log.c
	 * new_run_line): run k + 2 begins at run_line[k]. Stored as
	 * "engine_runs" so that analyzer/derive/oom_run.c numbers each
	 * engine row's run (engine.run, schema 10). */
	uint64_t run_line[SRV_ENGINE_RUNS];
	int n_run_lines;
};

/* What line m[0..n) (a message, wrappers removed) says of a request's
 * answer: SRV_ANS_SERVED, SRV_ANS_FAILED or SRV_ANS_NONE. Looks at the
 * first bytes only, and at the end of a line that starts like none of
 * the formats above only when it ends in "Success", so it costs no pass
 * over the line. */
enum srv_answer srv_answer_of(const char *m, size_t n);

/* 1 when path[0..n), past leading spaces, is the quoted path of one of
 * Ollama's routes that answer no inference ("\"/api/show\"", "\"/api/pull\"",
 * server/routes.go): a 200 there serves no model (set 18, w-spend18d:
 * memfail_phase.c's access-log rows skip it too). */
int srv_answer_admin_route(const char *path, size_t n);

/* srv_answer_of() of a line the caller knows starts "INFO:  " (uvicorn's
 * own lines, most of a busy server's log): the same answer, without
 * testing the start again. */
enum srv_answer srv_answer_of_info(const char *m, size_t n);

/* Note answer what (not SRV_ANS_NONE) at line lineno: it extends the
 * last run when of the same outcome, else opens a new one (dropped, and
 * truncated set, past SRV_ANSWER_RUNS). */
void srv_answers_note(struct srv_answers *a, enum srv_answer what, uint64_t lineno);

/* Line lineno begins a later run of the log (a new engine process after
 * a failure or a request served: server_log.c new_run_line). Past
 * SRV_ENGINE_RUNS starts the rest are dropped and truncated is set. */
void srv_answers_new_run(struct srv_answers *a, uint64_t lineno);

/* Write the runs as meta server.answers when any was noted: {"runs":
 * [{"first", "last", "what" (served, failed, restart), "count"}],
 * "engine_runs": [line of each later run's start, in order] (only when
 * the log holds two runs or more), "truncated"}. 0, or -1 when the sink
 * failed. */
int srv_answers_finish(const struct srv_answers *a, struct sink *s);

#endif
