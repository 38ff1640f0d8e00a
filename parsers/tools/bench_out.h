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
 *   - the command lines that start them: `vllm bench serve`,
 *     `benchmark_serving.py`, `sglang.bench_serving` with
 *     --max-concurrency / --request-rate / --num-prompts, and `ab`,
 *     `wrk` with -c N (not hey, locust, genai-perf, guidellm, llmperf:
 *     their reports are not read yet, and a command whose report is
 *     unread would stand as a run cut short).
 *
 * Records: one meta bench.run.<i> a run, in file order, valued
 * "tool|concurrency|rate|prompts|successful|failed|state" ("-" where
 * the paste does not say; rate "inf" when unbounded); state is "done"
 * when the tool printed its result block, "cmd" when only the command
 * line is there (a run the failure cut short, or a paste of the command
 * alone). No OOM, no event: a benchmark that completed is no failure.
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
