/*
 * test_oom_fate.c -- whether the server survived a failure, derived once
 * into table oom (analyzer/derive/oom_fate.c) from the answers its own
 * log gives after it (parsers/serving/server_answers.c), on real pastes of
 * the tuning set:
 *  - Ollama 0.32 on Windows (BlazeFiresong18/Doraeon ollama_serve.log):
 *    the KV cache's CPU buffer of num_ctx 131072 failed to allocate, the
 *    request was answered `| 500 |` by GIN, then a new llama-server was
 *    started: died, by the error answer at line 253;
 *  - llama-server on a T4 whose multimodal projector's warm-up failed
 *    (cudaMalloc, non-fatal): a chat completion answered 200 later
 *    (`log_server_r: done request: POST ... 200`): survived, and the
 *    start-up finding and the answer say so;
 *  - vLLM (uvicorn) whose AWQ dequantize OOM was answered 500: died;
 *  - Ollama's journal pasted indented (ollama/ollama #9782: "    Apr 29
 *    12:31:50 gravitino ollama[1654667]: [GIN] ... | 500 | ..."): the
 *    journal header goes with its indent (server_unwrap.c strip_syslog),
 *    so the GIN answer is read: died by it (round 11, w-servphase);
 *  - ComfyUI's "Prompt executed in" ends failed prompts too: it is a
 *    prompt served only when no failure was told since the prompt began
 *    (server_answers.h); the GGUF paste's OOM prompt ends "Got an OOM,
 *    unloading all loaded models." then "Prompt executed in 36.63
 *    seconds": nothing served after the OOM, no serving stage reached.
 *  - one log holding two runs, SGLang's served answers then a re-launch
 *    (its "server_args=ServerArgs(" banner) whose graph capture failed:
 *    the failure is the new run's start-up (round 13, w-runs14);
 *  - the Ollama log's runners are runs with their own engine rows, and
 *    its failure is judged against its own runner's (round 13).
 * And the access-line formats one by one: a GET, a 4xx and Ollama's
 * management routes answer nothing; terminal colour codes around GIN's
 * status are skipped.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "analyzer/derive/oom.h"
#include "parsers/serving/server_answers.h"
#include "reports/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"
#define OLLAMA ANY "c-ollama-0.32-windows-vulkan-num-ctx-131072-kv-cache-cpu-buffer-alloc-fail/"
#define MMPROJ ANY "c-llamacpp-server-t4-qwen3.5-9b-mmproj-warmup-cudamalloc-nonfatal/"
#define AWQ ANY "a-vllm-llama31-awq-dequantize-oom-chat-completions-500/"
#define SGL_SERVED "tests/data/real/serving/sglang-0.5-prefill-decode-batch-trailing-comma.log"
#define SGL_RELAUNCH ANY "b-sglang-ascend910-dsr1-w4a8-decode-npu-graph-capture-oom/01-ci-test-output.txt"
#define RMLX ANY "b-mlx-rapid-mlx-qwen3.6-35b-metal-oom-three-running-85k-prefill/"

#define ANS(s) srv_answer_of(s, strlen(s))

/* The formats (server_answers.h), lines as the real logs print them. */
static void access_lines(void **state)
{
	(void)state;
	assert_int_equal(ANS("[GIN] 2026/07/29 - 22:23:22 | 500 |    8.2349373s |       127.0.0.1"
			     " | POST     \"/api/chat\""), SRV_ANS_FAILED);
	assert_int_equal(ANS("[GIN] 2026/07/29 - 22:05:46 | 200 |    188.3638ms |       127.0.0.1"
			     " | POST     \"/api/show\""), SRV_ANS_NONE);
	assert_int_equal(ANS("[GIN] 2026/07/29 - 22:05:25 | 401 |    342.5146ms |       127.0.0.1"
			     " | POST     \"/api/me\""), SRV_ANS_NONE);
	assert_int_equal(ANS("[GIN] 2026/07/29 - 22:23:25 | 200 |      1.0566ms |       127.0.0.1"
			     " | GET      \"/api/tags\""), SRV_ANS_NONE);
	/* gin's colours when its writer is a terminal (logger.go) */
	assert_int_equal(ANS("[GIN] 2024/03/29 - 10:00:01 |\033[97;42m 200 \033[0m|  1.5s |"
			     "  127.0.0.1 |\033[97;46m POST    \033[0m \"/api/generate\""),
			 SRV_ANS_SERVED);
	assert_int_equal(ANS("INFO:     10.96.202.56:41576 - \"POST /v1/chat/completions HTTP/1.1\""
			     " 500 Internal Server Error"), SRV_ANS_FAILED);
	assert_int_equal(ANS("INFO:     10.250.3.7:42662 - \"POST /v1/chat/completions HTTP/1.1\""
			     " 200 OK"), SRV_ANS_SERVED);
	assert_int_equal(ANS("INFO:     10.250.5.33:60428 - \"GET /metrics HTTP/1.1\" 200 OK"),
			 SRV_ANS_NONE);
	assert_int_equal(ANS("srv  log_server_r: request: POST /v1/embeddings 127.0.0.1 200"),
			 SRV_ANS_SERVED);
	assert_int_equal(ANS("srv  log_server_r: done request: POST /v1/chat/completions"
			     " 127.0.0.1 200"), SRV_ANS_SERVED);
	assert_int_equal(ANS("srv  log_server_r: request: POST /completion 127.0.0.1 500"),
			 SRV_ANS_FAILED);
	assert_int_equal(ANS("srv  log_server_r: request: GET /health 127.0.0.1 503"),
			 SRV_ANS_NONE);
	assert_int_equal(ANS("INFO:     Started server process [64287]"), SRV_ANS_RESTART);
}

/* uvicorn's lines take server_log.c's fast path, which asks
 * srv_answer_of_info() (the start known): the same answer as
 * srv_answer_of() for each, the shortest included (round 13, speed14). */
static void info_fast_path_same_answer(void **state)
{
	static const char *const lines[] = {
		"INFO:     10.96.202.56:41576 - \"POST /v1/chat/completions HTTP/1.1\" 500 Internal",
		"INFO:     10.250.3.7:42662 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
		"INFO:     10.250.5.33:60428 - \"GET /metrics HTTP/1.1\" 200 OK",
		"INFO:     Started server process [64287]",
		"INFO:     Started server process",
		"INFO:     Application startup complete.",
		"INFO:  \"",
		"INFO:  \"POST",
		"INFO:  - \"POST /v1/x\" 200",
		"INFO:  a - \"POST /v1/x\" 200",
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		assert_int_equal(srv_answer_of_info(lines[i], strlen(lines[i])), ANS(lines[i]));
	assert_int_equal(srv_answer_of_info(lines[1], strlen(lines[1])), SRV_ANS_SERVED);
	assert_int_equal(srv_answer_of_info(lines[3], strlen(lines[3])), SRV_ANS_RESTART);
}

/* Runs: one outcome after another is one run; past the cap, dropped. */
static void runs(void **state)
{
	struct srv_answers a;
	int i;
	(void)state;
	memset(&a, 0, sizeof(a));
	srv_answers_note(&a, SRV_ANS_SERVED, 3);
	srv_answers_note(&a, SRV_ANS_SERVED, 9);
	srv_answers_note(&a, SRV_ANS_NONE, 10);
	srv_answers_note(&a, SRV_ANS_FAILED, 12);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.run[0].first, 3);
	assert_int_equal(a.run[0].last, 9);
	assert_int_equal(a.run[0].count, 2);
	for (i = 0; i < 2 * SRV_ANSWER_RUNS; i++)
		srv_answers_note(&a, i % 2 ? SRV_ANS_FAILED : SRV_ANS_SERVED, 20 + (uint64_t)i);
	assert_int_equal(a.n, SRV_ANSWER_RUNS);
	assert_true(a.truncated);
}

/* Ollama answered the failed load 500, then started a new llama-server. */
static void ollama_died(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, OLLAMA "01-ollama-serve.log") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT survival || '/' || survival_by || '/' ||"
				   " survival_line FROM oom WHERE id = 1"), "died/error_answer/253");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta m, json_each(m.value, '$.runs') j"
			       " WHERE m.key = 'server.answers' AND json_extract(j.value, '$.what')"
			       " = 'restart' AND json_extract(j.value, '$.first') = 266"), 1);
	t_close(tl);
}

/* Rapid-MLX aborted on a Metal failure (libc++abi terminating) and its
 * supervisor started the server again (uvicorn's "Started server
 * process" at line 169): the requests answered after it are the new
 * process's, so the failed one is not said to have survived (round 12:
 * it was "survived" by line 244's answer). */
static void uvicorn_restart_not_survived(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, RMLX "01-llama-server.log") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta m, json_each(m.value, '$.runs') j"
			       " WHERE m.key = 'server.answers' AND json_extract(j.value, '$.what')"
			       " = 'restart' AND json_extract(j.value, '$.first') = 169"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom WHERE survival = 'survived'"), 0);
	t_close(tl);
}

/* The projector's warm-up failed; a chat completion was served after. */
static void llama_server_survived(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, MMPROJ "01-llama-server.log") >= 0);
	assert_true(t_parse_file(tl, MMPROJ "02-repo-config.yaml") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT survival || '/' || survival_by || '/' ||"
				   " survival_line FROM oom WHERE id = 1"),
			    "survived/request_served/273");
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.serving_from_line')"
			       " FROM finding WHERE rule = 'startup'"), 273);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE rule = 'startup'"),
			       "not the incident's end"));
	t_close(tl);
}

/* uvicorn answered the request the OOM failed with 500, nothing after. */
static void vllm_500_died(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, AWQ "01-server.log") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT survival || '/' || survival_line FROM oom"
				   " WHERE id = 1"), "died/10");
	t_close(tl);
}

/* The journal indented as a whole: its 500 answer is read all the same,
 * and the failure's own line is Ollama's record, not the journal's. */
static void ollama_indented_journal_died(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "ollama-runner-terminated-cudamalloc-journal.log") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT survival || '/' || survival_by || '/' ||"
				   " survival_line FROM oom WHERE id = 1"), "died/error_answer/6");
	assert_null(strstr(t_text(tl, "SELECT summary FROM event WHERE id = 1"), "gravitino"));
	t_close(tl);
}

/* ComfyUI's prompts, as main.py and execution.py log them. */
static void comfy_prompts(void **state)
{
	struct srv_answers a;
	(void)state;
	memset(&a, 0, sizeof(a));
	srv_answers_note(&a, ANS("got prompt"), 1);
	srv_answers_note(&a, ANS("!!! Exception during processing !!! Allocation on device "), 2);
	srv_answers_note(&a, ANS("Prompt executed in 3.14 seconds"), 3);
	assert_int_equal(a.n, 0);
	assert_int_equal(a.unserved_line, 3);
	srv_answers_note(&a, ANS("got prompt"), 4);
	srv_answers_note(&a, ANS("- Prompt executed in 00:20:05"), 5);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.run[0].what, SRV_ANS_SERVED);
	assert_int_equal(a.run[0].first, 5);
	srv_answers_note(&a, ANS("Processing interrupted"), 6);
	srv_answers_note(&a, ANS("Prompt executed in 175.70 seconds"), 7);
	assert_int_equal(a.run[0].last, 5);
	assert_int_equal(a.unserved_line, 7);
}

/* The OOM's own prompt ended: no request served after it, no stage. */
static void comfy_failed_prompt_not_served(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "comfyui-gguf-model-patcher-load-to-device-"
				 "allocation-on-device.log") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT survival || '/' || phase FROM oom WHERE id = 1"),
			    "unknown/load_weights");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key = 'server.last_stage'"
			       " AND json_extract(value, '$.by') = 'request_served'"), 0);
	t_close(tl);
}

/* Ollama's log of three runners (BlazeFiresong18/Doraeon ollama_serve.log):
 * the one started at line 57 offloaded 2 of 29 layers and failed its
 * KV cache's CPU buffer (line 242); the user then loaded the model
 * again with a smaller context, a runner at line 267 offloading 22.
 * Each runner start after a request answered is a run of its own
 * (srv_engine_new_run): its facts are its own row, and the failure is
 * judged against its own runner's (OOM_OTHER_LOG_RUN), not the 22 layers
 * a later runner stated (main kept one row holding the later values).
 * The desktop app's POST /api/show before the first runner is an admin
 * route, no request served (set 18 spent, w-spend18d): the server's
 * start and that runner are run 1, the failing runner run 2. */
static void ollama_runs_own_rows(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, OLLAMA "01-ollama-serve.log") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT gpu_layers FROM engine WHERE instance = 'run 2'"), 2);
	assert_int_equal(t_int(tl, "SELECT gpu_layers FROM engine WHERE instance = 'run 3'"), 22);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine WHERE NOT " OOM_OTHER_LOG_RUN), 1);
	assert_string_equal(t_text(tl, "SELECT instance FROM engine WHERE NOT " OOM_OTHER_LOG_RUN),
			    "run 2");
	/* the run is a column the derivation set (schema 10), from the
	 * parser's run starts, not the instance's text */
	assert_int_equal(t_int(tl, "SELECT run FROM engine WHERE NOT " OOM_OTHER_LOG_RUN), 2);
	assert_int_equal(t_int(tl, "SELECT run FROM engine WHERE instance = 'run 3'"), 3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine WHERE run IS NULL"), 0);
	assert_int_equal(t_int(tl, "SELECT json_array_length(value, '$.engine_runs') FROM meta"
			       " WHERE key = 'server.answers'"), 2);
	{   /* the answer says which run of the log failed */
		json_t *j = report_json(tl->db);
		const char *what = json_string_value(json_object_get(json_object_get(j, "answer"),
								     "what"));
		assert_non_null(what);
		assert_non_null(strstr(what, "Its log holds 3 runs of the engine"));
		assert_non_null(strstr(what, "the OOM is of run 2"));
		json_decref(j);
	}
	t_close(tl);
}

/* A log holding two runs (round 13, w-runs14): SGLang served requests
 * (two "POST /generate ... 200 OK" answers), then the same file goes on
 * with a re-launch (the Ascend CI paste, its own "server_args=
 * ServerArgs(" banner at its line 151) whose decode CUDA-graph capture
 * ran out of NPU memory. The banner is a new engine process (PM_RESTART,
 * phase_rows_startup.inc): the failure is the new run's start-up, a
 * configuration that does not fit, not a failure while serving (it was
 * serving/inconclusive, judged against the earlier process's answers). */
static void relaunch_after_serving_is_startup(void **state)
{
	struct timeline *tl = t_open();
	size_t n1, n2;
	char *a = t_slurp(SGL_SERVED, &n1), *b = t_slurp(SGL_RELAUNCH, &n2);
	char *both = malloc(n1 + n2);
	(void)state;
	assert_non_null(both);
	memcpy(both, a, n1);
	memcpy(both + n1, b, n2);
	assert_true(t_parse_mem(tl, "server_log", "two-runs.log", both, n1 + n2) >= 0);
	free(a);
	free(b);
	free(both);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta m, json_each(m.value, '$.runs') j"
			       " WHERE m.key = 'server.answers' AND json_extract(j.value, '$.what')"
			       " = 'restart' AND json_extract(j.value, '$.first') = 160"), 1);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "graph_capture");
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(access_lines),
		cmocka_unit_test(info_fast_path_same_answer),
		cmocka_unit_test(runs),
		cmocka_unit_test(ollama_died),
		cmocka_unit_test(llama_server_survived),
		cmocka_unit_test(uvicorn_restart_not_survived),
		cmocka_unit_test(vllm_500_died),
		cmocka_unit_test(ollama_indented_journal_died),
		cmocka_unit_test(comfy_prompts),
		cmocka_unit_test(comfy_failed_prompt_not_served),
		cmocka_unit_test(relaunch_after_serving_is_startup),
		cmocka_unit_test(ollama_runs_own_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
