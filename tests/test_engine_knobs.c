/*
 * test_engine_knobs.c -- each engine's own knobs (lib/engine_knobs.c, the
 * review set's TensorRT-LLM case): the table and docs/rules.md "Knobs"
 * say the same in both directions; the names a log or a meta key uses
 * find their engine; and the advice of a real TensorRT-LLM start-up
 * failure and of an SGLang engine row names that engine's flags, never
 * vLLM's.
 */
#include "testutil.h"
#include "lib/engine_knobs.h"
#include "analyzer/rules/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* docs/rules.md's columns, in order, as engine kinds. */
static const enum engine_kind doc_columns[] = {
	ENGINE_VLLM, ENGINE_SGLANG, ENGINE_TGI, ENGINE_TRTLLM, ENGINE_TRITON, ENGINE_OLLAMA,
	ENGINE_LLAMACPP, ENGINE_LMDEPLOY,
};
#define NCOLS (sizeof(doc_columns) / sizeof(doc_columns[0]))

/* The cell's flag: the text between the first pair of backquotes, "" for
 * "none". */
static void cell_flag(const char *s, const char *e, char *out, size_t n)
{
	const char *a = memchr(s, '`', (size_t)(e - s)), *b;

	out[0] = '\0';
	if (!a || !(b = memchr(a + 1, '`', (size_t)(e - a - 1))))
		return;
	snprintf(out, n, "%.*s", (int)(b - a - 1), a + 1);
}

static void table_matches_docs(void **state)
{
	char *doc = t_slurp("docs/rules.md", NULL), *p, *line;
	int rows = 0;
	(void)state;

	assert_non_null(doc);
	p = strstr(doc, "### Knobs");
	assert_non_null(p);
	for (line = strtok(p, "\n"); line; line = strtok(NULL, "\n")) {
		const char *cells[NCOLS + 2], *q = line;
		char key[64] = "", flag[80];
		size_t c = 0, k;
		int r = -1;
		if (!strncmp(line, "## ", 3))
			break;   /* the next section */
		if (line[0] != '|' || !strstr(line, "(`"))
			continue;
		while (c < NCOLS + 2 && (q = strchr(q, '|')) && q[1])
			cells[c++] = ++q;
		assert_int_equal(c, NCOLS + 1);
		/* the role's key: "(`key`)" in the first cell */
		sscanf(strstr(cells[0], "(`") + 2, "%63[^`]", key);
		for (k = 0; k < KR__COUNT; k++)
			if (!strcmp(knob_role_key((enum knob_role)k), key))
				r = (int)k;
		assert_true(r >= 0);
		for (k = 0; k < NCOLS; k++) {
			const char *want = engine_knob_flag(doc_columns[k], (enum knob_role)r);
			const char *end = k + 2 < c ? cells[k + 2] - 1 : cells[k + 1] + strlen(cells[k + 1]);
			cell_flag(cells[k + 1], end, flag, sizeof(flag));
			assert_string_equal(flag, want ? want : "");
		}
		rows++;
	}
	assert_int_equal(rows, KR__COUNT);
	free(doc);
}

static void names_and_fallback(void **state)
{
	(void)state;
	assert_int_equal(engine_kind_from_name("tensorrt-llm"), ENGINE_TRTLLM);
	assert_int_equal(engine_kind_from_name("trtllm"), ENGINE_TRTLLM);
	assert_int_equal(engine_kind_from_name("SGLang"), ENGINE_SGLANG);
	assert_int_equal(engine_kind_from_name("llama-server"), ENGINE_LLAMACPP);
	assert_int_equal(engine_kind_from_name("server"), ENGINE_NONE);
	assert_int_equal(engine_kind_from_name(NULL), ENGINE_NONE);
	/* no engine named: vLLM's spelling, the default reading */
	assert_string_equal(engine_knob_flag(ENGINE_NONE, KR_MAX_SEQS), "--max-num-seqs");
	assert_string_equal(engine_knob_flag(ENGINE_PYTORCH, KR_MEM_FRACTION),
			    "--gpu-memory-utilization");
	assert_null(engine_knob_flag(ENGINE_OLLAMA, KR_MEM_FRACTION));
	assert_string_equal(engine_knob_flag(engine_kind_from_name("lmdeploy"), KR_MAX_SEQS),
			    "--max-batch-size");
	assert_null(engine_knob_flag(ENGINE_VLLM, KR__COUNT));
}

/* All the advice of the incident's findings, joined. */
static const char *advice(struct timeline *tl)
{
	return t_text(tl, "SELECT group_concat(advice, ' ') FROM finding");
}

static void trtllm_start_up_advice(void **state)
{
	struct timeline *tl = t_open();
	const char *a;
	(void)state;

	assert_int_equal(t_parse_file(tl, "tests/data/real/serving/"
				      "trtllm-0.6-max-tokens-in-paged-kv-cache-error.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'kv_cache_none'"), 1);
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause ="
				      " 'kv_cache_none'"), "maxTokensInPagedKvCache"));
	a = advice(tl);
	assert_non_null(strstr(a, "kv_cache_config.free_gpu_memory_fraction"));
	assert_non_null(strstr(a, "max_seq_len"));
	assert_null(strstr(a, "--gpu-memory-utilization"));
	assert_null(strstr(a, "--max-num-seqs"));
	assert_null(strstr(a, "--max-num-batched-tokens"));
	t_close(tl);
}

/* The same check under Triton's TensorRT-LLM backend, two real logs (the
 * second in the 0.8+ wording with its figures): the engine's own knobs. */
static void triton_start_up_advice(void **state)
{
	static const char *const logs[] = {
		"tests/data/real/serving/triton-trtllm-23.10-max-tokens-paged-kv-693-tokens.log",
		"tests/data/real/serving/triton-trtllm-max-tokens-paged-kv-29184-mistral.log",
	};
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		struct timeline *tl = t_open();
		const char *a;
		assert_int_equal(t_parse_file(tl, logs[i]), 0);
		assert_int_equal(analyze_timeline(tl, NULL), 0);
		assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "kv_cache_none");
		a = advice(tl);
		assert_non_null(strstr(a, "kv_cache_free_gpu_mem_fraction"));
		assert_null(strstr(a, "--gpu-memory-utilization"));
		assert_null(strstr(a, "--max-num-seqs"));
		assert_null(strstr(a, "--max-model-len"));
		t_close(tl);
	}
}

/* An SGLang row with no room for the KV cache: the share to set is its
 * --mem-fraction-static, with the same value vLLM's would get. */
static void sglang_row_advice(void **state)
{
	struct timeline *tl = t_open();
	const char *a;
	(void)state;

	tl->opts.year = 2025;
	assert_true(t_parse_mem(tl, "server_log", "vllm", "INFO 08-19 07:51:03"
		" model_runner.py:732] Loading model weights took 2.3463 GB\n", 0) > 0);
	assert_int_equal(timeline_exec(tl, "UPDATE engine SET engine = 'sglang',"
		" total_bytes = 85899345920, weights_bytes = 75161927680,"
		" activation_peak_bytes = 4294967296, non_torch_bytes = 1073741824,"
		" gpu_memory_utilization = 0.9, gpu_blocks = 0"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.advice_value') FROM finding"
				  " WHERE cause = 'kv_cache_none'"), 0.95, 1e-9);
	a = advice(tl);
	assert_non_null(strstr(a, "Set --mem-fraction-static to 0.95"));
	assert_non_null(strstr(a, "--chunked-prefill-size"));
	assert_null(strstr(a, "--gpu-memory-utilization"));
	assert_null(strstr(a, "--max-num-seqs"));
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_matches_docs),
		cmocka_unit_test(names_and_fallback),
		cmocka_unit_test(trtllm_start_up_advice),
		cmocka_unit_test(triton_start_up_advice),
		cmocka_unit_test(sglang_row_advice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
