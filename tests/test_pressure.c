/*
 * test_pressure.c -- memory pressure an engine states without failing,
 * and what it means beside a failure (round 12, slice "pressure"):
 *
 *  - Rapid-MLX / vllm-mlx's start-up "Memory pressure warning", the
 *    engine's own projection of the model's working set against the
 *    machine's RAM (vllm_mlx/cli.py _check_memory_capacity@v0.12.18),
 *    read as meta server.projection (parsers/serving/server_pressure.c);
 *    a later Metal OOM after a projection of >= 100 % is misconfig
 *    (analyzer/rules/projected.c); the projection alone is no OOM.
 *    Real: the llama-defender server log of tests/data/real/any_stack
 *    (three start-ups projecting 101 %, 81 % and 86 %, two Metal OOMs),
 *    whole and cut at its line boundaries.
 *  - SGLang's "Decode out of memory happened. #retracted_reqs" with no
 *    failure after it: a survived OOM, verdict no_oom in phase serving,
 *    the answer saying so with the count (analyzer/rules/retract.c,
 *    reports/answer_what.c). Real: sglang issue 2746's excerpt.
 *  - Requests queued at a serving OOM (vLLM's "Pending: M reqs" beside
 *    "Running: N reqs" on the load line at the failure): the engine at
 *    its admission cap, a spike of demand (analyzer/rules/queued.c).
 *    Real: the P/D decoder paste of tests/data/real/any_stack (256
 *    running, 100 pending, then the CUDA OOM).
 */
#include "testutil_report.h"
#include "testutil_rules.h"
#include "analyzer/rules/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MLX "tests/data/real/any_stack/b-mlx-rapid-mlx-qwen3.6-35b-metal-oom-three-running-85k-prefill/"
#define MLX_LOG MLX "01-llama-server.log"
#define SGL "tests/data/real/any_stack/sglang-decode-batch-token-usage-100-retract.log"
#define PENDING "tests/data/real/any_stack/vllm-v0-pd-decoder-256-running-100-pending-oom.log"
#define GIB 1073741824.0

/* Lines [from, to) (1-based; to 0: the end) of the file at relpath, as a
 * new string; the caller frees. A cut at line boundaries, as the corpus's
 * rules allow. */
static char *lines_of(const char *relpath, int from, int to)
{
	size_t n, i, start = 0, end;
	char *all = t_slurp(relpath, &n), *out;
	int line = 1;

	assert_non_null(all);
	for (i = 0; i < n && line < from; i++)
		if (all[i] == '\n' && ++line == from)
			start = i + 1;
	for (end = start; end < n && (to == 0 || line < to); end++)
		if (all[end] == '\n')
			line++;
	out = malloc(end - start + 1);
	assert_non_null(out);
	memcpy(out, all + start, end - start);
	out[end - start] = 0;
	free(all);
	return out;
}

/* Each start-up's projection is one server.projection row with its line:
 * the first is 28.5 GB working set + 20.0 GB in use of 48.0 GB, 101 %. */
static void the_projection_is_read_with_its_line(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file_as(tl, "server_log", MLX_LOG) > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key = 'server.projection'"), 3);
	assert_int_equal(t_int(tl, "SELECT json_extract(value, '$.line') FROM meta WHERE key ="
			       " 'server.projection' ORDER BY rowid LIMIT 1"), 16);
	assert_true(t_real(tl, "SELECT json_extract(value, '$.share') FROM meta WHERE key ="
			   " 'server.projection' ORDER BY rowid LIMIT 1") == 1.01);
	assert_int_equal(t_int(tl, "SELECT json_extract(value, '$.ram_bytes') FROM meta WHERE"
			       " key = 'server.projection' ORDER BY rowid LIMIT 1"),
			 (int64_t)(48.0 * GIB));
	assert_int_equal(t_int(tl, "SELECT json_extract(value, '$.projected_bytes') FROM meta"
			       " WHERE key = 'server.projection' ORDER BY rowid LIMIT 1"),
			 (int64_t)(48.5 * GIB));
	assert_true(t_real(tl, "SELECT json_extract(value, '$.share') FROM meta WHERE key ="
			   " 'server.projection' ORDER BY rowid DESC LIMIT 1") == 0.86);
	/* the block's advice ("--gpu-memory-utilization 0.75") is not the
	 * setting it runs with: no engine row, no utilization, from it */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key ="
			       " 'server.gpu_memory_utilization'"), 0);
	t_close(tl);
}

/* The warning and the first requests, before any failure (lines 1-100): a
 * projection is what the engine expected, not an OOM. */
static void a_projection_alone_is_no_oom(void **state)
{
	struct timeline *tl = t_open();
	char *text = lines_of(MLX_LOG, 1, 101);
	(void)state;
	assert_true(t_parse_mem(tl, "server_log", "01-llama-server.log", text, 0) > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	assert_int_equal(t_findings(tl, "projected_over_ram"), 0);
	free(text);
	t_close(tl);
}

/* The whole folder: the Metal OOM of line 162 came after the start-up that
 * projected 101 %: misconfig, in the phase it failed in, with the
 * engine's figures on the first screen. */
static void the_oom_after_a_full_projection_is_misconfig(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *md;
	(void)state;
	assert_true(t_parse_file_as(tl, "server_log", MLX_LOG) > 0);
	assert_true(t_parse_file_as(tl, "launch_config", MLX "02-rapid-mlx-35b.conf") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class || '/' || cause || '/' || phase FROM verdict"),
			    "misconfig/projected_over_ram/serving");
	assert_true(t_figure(tl, "projected_over_ram", "projected_share") == 1.01);
	md = t_render(tl, REPORT_MD, &n);
	t_contains(md, "48.5 GiB");
	t_contains(md, "101 %");
	t_contains(md, "--gpu-memory-utilization");
	free(md);
	/* MLX's "[METAL] Command buffer execution failed" (family mlx) asks
	 * for MLX's memory API, not for llama.cpp's or Ollama's load lines */
	assert_string_equal(t_text(tl, "SELECT family FROM oom WHERE id = 1"), "mlx");
	t_contains(t_text(tl, "SELECT missing FROM verdict"), "mx.get_active_memory()");
	assert_null(strstr(t_text(tl, "SELECT missing FROM verdict"), "OLLAMA_DEBUG"));
	t_close(tl);
}

/* From the first crash on (lines 170-): the start-up above the second
 * Metal OOM projected 81 %, so the 101 % of a run before it is not this
 * failure's: nothing is claimed from it. */
static void a_projection_below_the_ram_names_nothing(void **state)
{
	struct timeline *tl = t_open();
	char *text = lines_of(MLX_LOG, 170, 0);
	(void)state;
	assert_true(t_parse_mem(tl, "server_log", "01-llama-server.log", text, 0) > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(t_int(tl, "SELECT count(*) FROM oom") > 0);
	assert_int_equal(t_findings(tl, "projected_over_ram"), 0);
	free(text);
	t_close(tl);
}

/* SGLang ran its KV pool full (token usage 1.00) and retracted a request:
 * a survived OOM, in serving, said with its count. */
static void sglang_retract_is_survived_in_serving(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *md;
	(void)state;
	assert_true(t_parse_file_as(tl, "server_log", SGL) > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class || '/' || phase FROM verdict"), "no_oom/serving");
	assert_true(t_figure(tl, "kv_retract", "kv_usage_pct") >= 99);
	md = t_render(tl, REPORT_MD, &n);
	t_contains(md, "it survived: 1 retraction (1 request");
	t_contains(md, "--max-total-tokens");
	t_lacks(md, "No artifact records an OOM, a kill or a memory failure");
	free(md);
	t_close(tl);
}

/* 100 requests pending beside 256 running at the OOM: a spike of demand,
 * ahead of the full card rule capacity reads; the knob at x 0.7. */
static void requests_queued_at_the_oom_are_a_spike(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file_as(tl, "server_log", PENDING) > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class || '/' || cause || '/' || phase FROM verdict"),
			    "spike/concurrency/serving");
	assert_true(t_figure(tl, "concurrency", "waiting") == 100);
	assert_true(t_figure(tl, "concurrency", "advice_value") == 179);
	t_close(tl);
}

/* The same load line with nobody waiting (its "Pending: 100" made
 * "Pending: 0", an edge case made from the real paste): no queue, no
 * spike from it. */
static void no_queue_no_queued_spike(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *text = t_slurp(PENDING, &n), *p = strstr(text, "Pending: 100 reqs");
	(void)state;
	assert_non_null(p);
	memcpy(p, "Pending: 0   reqs", 17);
	assert_true(t_parse_mem(tl, "server_log", "pending.log", text, n) > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'queued'"), 0);
	free(text);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_projection_is_read_with_its_line),
		cmocka_unit_test(a_projection_alone_is_no_oom),
		cmocka_unit_test(the_oom_after_a_full_projection_is_misconfig),
		cmocka_unit_test(a_projection_below_the_ram_names_nothing),
		cmocka_unit_test(sglang_retract_is_survived_in_serving),
		cmocka_unit_test(requests_queued_at_the_oom_are_a_spike),
		cmocka_unit_test(no_queue_no_queued_spike),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
