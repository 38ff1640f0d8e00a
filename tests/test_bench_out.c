/*
 * test_bench_out.c -- load generators' outputs pasted beside an OOM
 * (parsers/tools/bench_out.c) and the spike they show when a lower load
 * completed (analyzer/rules/benchload.c). The benchmark outputs are
 * real (tests/data/real/healthy: vLLM's block from sglang#4305, a vLLM
 * sweep from vllm#9722, SGLang's block from sglang PR 14123; the
 * `vllm bench serve --max-concurrency 64` command from
 * tenstorrent/tt-inference-server#4681). The incidents put them beside a
 * real vLLM V1 serving OOM of the tuning set: an assembled case, since
 * no thread read so far pastes both runs and the failure.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "parsers/tools/bench_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEALTHY "tests/data/real/healthy/"
#define OOM_LOG "tests/data/real/any_stack/vllm-v1-enginecore-serving-oom-run-busy-loop.log"

/* tt-inference-server#4681, verbatim */
static const char cmd64[] = "vllm bench serve     --model 'moonshotai/Kimi-K2.7-Code'     "
	"--backend openai-chat     --endpoint /v1/chat/completions     --base-url "
	"http://localhost:8080  --dataset-name random     --random-input-len 128     "
	"--random-output-len 1024   --trust_remote_code  --num-prompts 256     "
	"--max-concurrency 64\n";

/* The three real blocks: one run each, concurrency and successes read. */
static void blocks_read(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, HEALTHY "vllm-bench-serve-qwq32b-concurrency16-result.txt") >= 0);
	assert_true(t_parse_file(tl, HEALTHY "vllm-benchmark-serving-sweep-concurrency-30-40.txt") >= 0);
	assert_true(t_parse_file(tl, HEALTHY "sglang-bench-serving-vlm-concurrency-100-result.txt") >= 0);
	assert_string_equal(t_text(tl, "SELECT group_concat(value, ';') FROM meta WHERE key"
				   " LIKE 'bench.run.%%' ORDER BY rowid"),
			    "serving_benchmark|16|-|-|16|-|done;"
			    "serving_benchmark|30|inf|-|100|-|done;"
			    "serving_benchmark|100|inf|-|100|-|done");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	t_close(tl);
}

/* A command, then two runs of one paste; ab's report; a line that only
 * mentions a label is no run. */
static void commands_and_ab(void **state)
{
	static const char ab[] = "$ ab -n 500 -c 20 http://127.0.0.1:8000/\n"
		"Concurrency Level:      20\nTime taken for tests:   3.1 seconds\n"
		"Complete requests:      500\nFailed requests:        12\n";
	static const char prose[] = "Successful requests: 5\nFailed requests: 1\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(bench_out_sniff((const unsigned char *)cmd64, strlen(cmd64)), 25);
	assert_int_equal(bench_out_sniff((const unsigned char *)prose, strlen(prose)), 0);
	assert_true(t_parse_mem(tl, "bench_output", "cmd.sh", cmd64, strlen(cmd64)) >= 0);
	assert_true(t_parse_mem(tl, "bench_output", "ab.txt", ab, strlen(ab)) >= 0);
	assert_true(t_parse_mem(tl, "bench_output", "prose.txt", prose, strlen(prose)) >= 0);
	assert_string_equal(t_text(tl, "SELECT group_concat(value, ';') FROM meta WHERE key"
				   " LIKE 'bench.run.%%' ORDER BY rowid"),
			    "vllm|64|-|256|-|-|cmd;ab|20|-|500|500|12|done");
	t_close(tl);
}

/* wrk's report (src/wrk.c@4.2.0), verbatim from a public README's
 * paste: 100 connections, 519 responses, 1 socket timeout and 147
 * non-2xx: a run with failures. */
static void wrk_report(void **state)
{
	static const char wrk[] = "$ wrk -t16 -c100 -d30s --latency --timeout 30s"
		" http://localhost:8080/future\n"
		"Running 30s test @ http://localhost:8080/future\n"
		"  16 threads and 100 connections\n"
		"  Thread Stats   Avg      Stdev     Max   +/- Stdev\n"
		"    Latency     4.60s     4.32s   29.34s    85.61%\n"
		"    Req/Sec     4.22      7.37    50.00     95.31%\n"
		"  Latency Distribution\n"
		"     50%    3.63s \n     75%    7.09s \n     90%   10.85s \n     99%   17.11s \n"
		"  519 requests in 30.55s, 386.49KB read\n"
		"  Socket errors: connect 0, read 0, write 0, timeout 1\n"
		"  Non-2xx or 3xx responses: 147\n"
		"Requests/sec:     16.99\n"
		"Transfer/sec:     12.65KB\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(bench_out_sniff((const unsigned char *)wrk, strlen(wrk)), 25);
	assert_true(t_parse_mem(tl, "bench_output", "wrk.txt", wrk, strlen(wrk)) >= 0);
	assert_string_equal(t_text(tl, "SELECT group_concat(value, ';') FROM meta WHERE key"
				   " LIKE 'bench.run.%%' ORDER BY rowid"),
			    "wrk|100|-|-|519|148|done");
	t_close(tl);
}

/* The OOM under the 64-client run beside a 16-client run that completed:
 * a spike with both figures. */
static void oom_over_completed_run(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, OOM_LOG) >= 0);
	assert_true(t_parse_mem(tl, "bench_output", "bench-cmd.sh", cmd64, strlen(cmd64)) >= 0);
	assert_true(t_parse_file(tl, HEALTHY "vllm-bench-serve-qwq32b-concurrency16-result.txt") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "spike");
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.bench_concurrency') FROM"
			       " finding WHERE rule = 'benchload'"), 64);
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.bench_concurrency_completed')"
			       " FROM finding WHERE rule = 'benchload'"), 16);
	t_close(tl);
}

/* The failing run alone: shown, below the verdict's bar; the verdict is
 * what it was without it. */
static void oom_with_load_alone(void **state)
{
	struct timeline *tl = t_open(), *ref = t_open();
	char was[64];
	(void)state;
	assert_true(t_parse_file(ref, OOM_LOG) >= 0);
	assert_int_equal(analyze_timeline(ref, NULL), 0);
	snprintf(was, sizeof(was), "%s", t_text(ref, "SELECT class FROM verdict"));
	assert_true(t_parse_file(tl, OOM_LOG) >= 0);
	assert_true(t_parse_mem(tl, "bench_output", "bench-cmd.sh", cmd64, strlen(cmd64)) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(t_real(tl, "SELECT score FROM finding WHERE rule = 'benchload'") < 0.3);
	assert_true(strstr(t_text(tl, "SELECT title FROM finding WHERE rule = 'benchload'"),
			   "ran 64 concurrent requests") != NULL);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), was);
	t_close(ref);
	t_close(tl);
}

/* round 9: hey, k6 (legacy and compact), locust (2.17 and 0.9),
 * genai-perf, llmperf and guidellm, each a real paste (tests/data/real/healthy,
 * MANIFEST.tsv): one run each, read into the same record. */
static void more_tools_read(void **state)
{
	static const struct { const char *file, *run; } cases[] = {
		{ "hey-0.1-summary-c50-apt-mirror-gist.txt", "hey|50|-|-|34930|0|done" },
		{ "k6-0.47-legacy-end-of-test-summary-docs.txt", "k6|-|-|-|180|0|done" },
		{ "k6-1.0-compact-summary-docs-partial.txt", "k6|-|-|-|45|0|done" },
		{ "locust-2.17-headless-aggregated-stats-pr2410.txt", "locust|-|-|-|58125|0|done" },
		/* the run goes on below the paste: its users, no final table */
		{ "locust-0.9-no-web-c800-total-stats-issue846.txt", "locust|800|-|-|0|0|cmd" },
		/* the command over 18 lines ending in a backslash; no request count yet */
		{ "genai-perf-24.06-readme-concurrency1-llm-metrics.txt", "genai-perf|1|-|-|-|-|done" },
		{ "llmperf-summary-json-yi34b-vllm-concurrency16.json", "llmperf|16|-|112|112|0|done" },
		/* a sweep: a run a row, wrapped rows' tails skipped */
		{ "guidellm-0.2-sweep-benchmarks-info-wrapped-80-cols.txt",
		  "guidellm|1|-|-|231|0|done;guidellm|-|inf|-|62308|2|done;"
		  "guidellm|-|26.21|-|7848|2|done" },
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct timeline *tl = t_open();
		char path[160];

		snprintf(path, sizeof(path), HEALTHY "%s", cases[i].file);
		assert_true(t_parse_file(tl, path) >= 0);
		assert_string_equal(t_text(tl, "SELECT group_concat(value, ';') FROM meta WHERE key"
					   " LIKE 'bench.run.%%' ORDER BY rowid"), cases[i].run);
		assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 0);
		assert_int_equal(analyze_timeline(tl, NULL), 0);
		assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
		t_close(tl);
	}
}

/* hey's failures: non-2xx codes and the error distribution, from
 * print.go@v0.1.4's lines (an edge case: the real paste had none). */
static void hey_failures(void **state)
{
	static const char hey[] = "$ hey -n 200 -c 32 -m POST http://127.0.0.1:8000/v1/completions\n"
		"\nSummary:\n  Total:\t12.3 secs\n  Requests/sec:\t16.2\n\n"
		"Status code distribution:\n  [200]\t150 responses\n  [500]\t38 responses\n\n"
		"Error distribution:\n  [12]\tPost \"http://127.0.0.1:8000/v1/completions\": EOF\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(bench_out_sniff((const unsigned char *)hey, strlen(hey)), 25);
	assert_true(t_parse_mem(tl, "bench_output", "hey.txt", hey, strlen(hey)) >= 0);
	assert_string_equal(t_text(tl, "SELECT group_concat(value, ';') FROM meta WHERE key"
				   " LIKE 'bench.run.%%' ORDER BY rowid"), "hey|32|-|200|150|50|done");
	t_close(tl);
}

/* benchload judges an llmperf run like any other: the OOM under the
 * 64-client run beside llmperf's 16 concurrent requests that all
 * completed is a spike with both figures, no rule of its own. */
static void oom_over_llmperf_run(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, OOM_LOG) >= 0);
	assert_true(t_parse_mem(tl, "bench_output", "bench-cmd.sh", cmd64, strlen(cmd64)) >= 0);
	assert_true(t_parse_file(tl, HEALTHY "llmperf-summary-json-yi34b-vllm-concurrency16.json") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "spike");
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.bench_concurrency_completed')"
			       " FROM finding WHERE rule = 'benchload'"), 16);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(blocks_read),
		cmocka_unit_test(commands_and_ab),
		cmocka_unit_test(wrk_report),
		cmocka_unit_test(oom_over_completed_run),
		cmocka_unit_test(oom_with_load_alone),
		cmocka_unit_test(more_tools_read),
		cmocka_unit_test(hey_failures),
		cmocka_unit_test(oom_over_llmperf_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
