/*
 * bench_out.h -- the output of a load generator pasted beside an OOM:
 * the load a client put on the server, run by run. What users paste to
 * say "it died under this load, it held at that one":
 *
 *   - vLLM's serving benchmark (benchmarks/benchmark_serving.py, later
 *     `vllm bench serve`, vllm/benchmarks/serve.py@009e6d4): the lines
 *     "Traffic request rate: inf" / "Maximum request concurrency: 16"
 *     printed before the run, then the block
 *     "============ Serving Benchmark Result ============" with
 *     "Successful requests:", "Failed requests:", "Maximum request
 *     concurrency:", "Request rate configured (RPS):" (the last three
 *     only in newer versions);
 *   - SGLang's bench_serving (python/sglang/bench_serving.py@50a6136):
 *     the same block title with "Backend:", "Traffic request rate:",
 *     "Max request concurrency:", "Successful requests:";
 *   - ApacheBench (httpd support/ab.c@2.4.x): "Concurrency Level:",
 *     "Complete requests:", "Failed requests:";
 *   - wrk (wg/wrk src/wrk.c@4.2.0): "Running 30s test @ URL", "  N threads
 *     and M connections", "  K requests in ...", the optional "Socket
 *     errors:" and "Non-2xx or 3xx responses:" lines (printed only when
 *     not zero), "Requests/sec:" ending the report;
 *   - hey (rakyll/hey requester/print.go@v0.1.4): "Summary:", "Status
 *     code distribution:" ("[200] N responses"; other codes failed),
 *     "Error distribution:" ("[N] error", only when some failed);
 *   - locust (locust/stats.py@2.17, 0.9): the stats table's header
 *     ("# reqs", "# fails") and its "Aggregated" (0.x "Total") row,
 *     printed again while the run goes on (the last holds), then
 *     "Response time percentiles" once it ended; the users from the
 *     command or "Hatching and swarming N clients" / "Ramping to N users";
 *   - k6 (grafana/k6 end-of-test summary, legacy @v0.47 and compact
 *     @v1.0): "http_reqs", "http_req_failed" ("✓ N" legacy, "N out of M"
 *     compact: the failed), "vus_max" the virtual users;
 *   - genai-perf (perf_analyzer genai-perf@r24.06 and later): its "LLM
 *     Metrics" table (printed once the profile completed), "Request
 *     Count (count)" (the requests completed, 2025-), "Request
 *     throughput (per sec)"; the same rows in its CSV export;
 *   - llmperf (ray-project/llmperf token_benchmark_ray.py@f1d6bed):
 *     "Number Of Errored Requests:", "Number Of Completed Requests:" and
 *     its *_summary.json keys num_concurrent_requests,
 *     results_num_requests_started, results_number_errors,
 *     results_num_completed_requests;
 *   - guidellm (src/guidellm/benchmark/output.py, 0.2-0.3 consoles): the
 *     "Benchmarks Info" table, a row a benchmark of a sweep
 *     ("synchronous", "concurrent@N", "throughput", "constant@R",
 *     "poisson@R"; requests Comp / Inc / Err), its first seven fields on
 *     the row's first line even when a terminal wrapped it;
 *   - the command lines that start them: `vllm bench serve`,
 *     `benchmark_serving.py`, `sglang.bench_serving` with
 *     --max-concurrency / --request-rate / --num-prompts, `ab`, `wrk`,
 *     `hey` with -c N, `locust` with -u/--users (0.x -c), `k6 run` with
 *     --vus, `genai-perf profile` with --concurrency / --request-rate /
 *     --request-count, `token_benchmark_ray.py` with
 *     --num-concurrent-requests; a command continued over lines ending in
 *     '\' is read to its end (not guidellm's: a sweep's command is many
 *     runs, its table says each).
 *
 * Records: one meta bench.run.<i> a run, in file order, valued
 * "tool|concurrency|rate|prompts|successful|failed|state" ("-" where
 * the paste does not say; rate "inf" when unbounded); state is "done"
 * when the tool printed its result block, "cmd" when only the command
 * line is there (a run the failure cut short, or a paste of the command
 * alone). Where a tool counts the requests sent and the failed ones (k6,
 * locust), successful is their difference. No OOM, no event: a
 * benchmark that completed is no failure.
 */
#ifndef OOMLENS_BENCH_OUT_H
#define OOMLENS_BENCH_OUT_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* The most runs one file records (a sweep over concurrencies). */
#define BENCH_OUT_MAX_RUNS 64

/* How sure (0..100) that head holds a load generator's output: 25 when a
 * result block's title or an ab report's "Concurrency Level:" is there;
 * low and a line log, so that a server log in the same paste is read as
 * well. */
int bench_out_sniff(const unsigned char *head, size_t n);

/* Read the runs into meta bench.run.<i>. Returns the records stored
 * (>= 0), or -1 when the sink failed. */
int bench_out_parse(struct input *in, struct sink *s);

#endif
