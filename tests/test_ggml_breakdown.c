/*
 * test_ggml_breakdown.c -- llama.cpp's per-device "memory breakdown [MiB]"
 * table (src/llama-context.cpp llama_memory_breakdown_print, printed when
 * a context is freed; common_memory_breakdown_print for what the fitting
 * projects) read as the engine's memory facts (issue 27, round 13):
 *
 *  - the real exit of llama.cpp #19881 (tests/data/real/healthy): a
 *    llama-server router's Vulkan0 row gives the card's total and free
 *    memory, the weights, the context (KV cache) and the compute buffer,
 *    the host's row nothing, and the log no OOM;
 *  - the real table of intel/compute-runtime #984
 *    (tests/data/real/any_stack), pasted without the function's name:
 *    the rows under the header are read as the named ones, and the file
 *    is a server log;
 *  - what is no row: the header, a buffer type's row, a row without the
 *    GPU template's "(self = model + context + compute)", a table's rows
 *    when no header came before them.
 */
#include "testutil.h"
#include "parsers/serving/engine_lines.h"
#include "parsers/serving/server_log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MiB 1048576LL

#define EXIT_19881 "tests/data/real/healthy/llamacpp-2026-vulkan-server-exit-memory-breakdown.log"
#define SYCL_984 "tests/data/real/any_stack/" \
	"llamacpp-sycl-arc-b65-alloc-buffer-20gib-ze-out-of-device-memory/01-breakdown.log"

static double fact_of(const struct engine_line *el, enum engine_fact k)
{
	int i;

	for (i = 0; i < el->nfacts; i++)
		if (el->facts[i].key == k)
			return el->facts[i].value;
	return -1;
}

static int64_t engine_col(struct timeline *tl, const char *col)
{
	return t_int(tl, "SELECT %s FROM engine ORDER BY rowid LIMIT 1", col);
}

/* One line of each row shape, as the function prints them. */
static void rows(void **state)
{
	static const char gpu[] = "llama_memory_breakdown_print: |   - CUDA1 (RTX 3090)   | 24575"
				  " = 23332 + (17829 =  1177 +   15360 +    1292) +      -16586 |";
	static const char host[] = "llama_memory_breakdown_print: |   - Host               |"
				   "                  25094 =  1502 +   21504 +    2088                |";
	static const char other[] = "llama_memory_breakdown_print: |   - HTP0-REPACK        |"
				    "                  504 =   504 +       0 +       0                |";
	static const char head[] = "common_memory_breakdown_print: | memory breakdown [MiB] | total"
				   "    free     self   model   context   compute    unaccounted |";
	struct engine_line el;

	(void)state;
	assert_true(engine_line(gpu, sizeof(gpu) - 1, &el));
	assert_int_equal(el.engine, ENGINE_LLAMACPP);
	assert_int_equal(el.ggml_dev, 1);
	assert_true(fact_of(&el, EF_WEIGHTS) == 1177.0 * MiB);
	assert_true(fact_of(&el, EF_KV_CACHE) == 15360.0 * MiB);
	assert_true(fact_of(&el, EF_COMPUTE_BUFFER) == 1292.0 * MiB);
	/* the card's total and free come from the first GPU's row only */
	assert_true(fact_of(&el, EF_TOTAL) < 0);
	assert_int_equal(el.ggml_table, 0);

	assert_false(engine_line(host, sizeof(host) - 1, &el));
	assert_int_equal(el.nfacts, 0);
	assert_false(engine_line(other, sizeof(other) - 1, &el));
	assert_false(engine_line(head, sizeof(head) - 1, &el));
	assert_int_equal(el.ggml_table, 1);

	/* a row without the function's name is read only as a row */
	assert_true(engine_line_ggml_row(gpu + 30, sizeof(gpu) - 1 - 30, &el));
	assert_true(fact_of(&el, EF_KV_CACHE) == 15360.0 * MiB);
	assert_false(engine_line(gpu + 30, sizeof(gpu) - 1 - 30, &el));
	assert_false(engine_line_ggml_row(host + 30, sizeof(host) - 1 - 30, &el));
	assert_false(engine_line_ggml_row("| a | b |", 9, &el));
}

/* llama.cpp #19881: the server's exit, its table the only memory lines. */
static void real_exit_table(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_file(tl, EXIT_19881) >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM artifact WHERE kind = 'server_log'"), 1);
	assert_string_equal(t_text(tl, "SELECT engine FROM engine ORDER BY rowid LIMIT 1"), "llama.cpp");
	assert_int_equal(engine_col(tl, "total_bytes"), 12272 * MiB);
	assert_int_equal(engine_col(tl, "free_bytes"), 470 * MiB);
	assert_int_equal(engine_col(tl, "weights_bytes"), 7489 * MiB);
	assert_int_equal(engine_col(tl, "kv_cache_bytes"), 2560 * MiB);
	assert_int_equal(engine_col(tl, "compute_buffer_bytes"), 266 * MiB);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind IN"
			       " ('torch_oom', 'mem_failure', 'engine_error')"), 0);
	t_close(tl);
}

/* intel/compute-runtime #984: the reporter kept the table, not the
 * function's name before each row. */
static void real_bare_table(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *text = t_slurp(SYCL_984, &n);

	(void)state;
	assert_non_null(text);
	assert_true(server_log_sniff((const unsigned char *)text, n) >= 70);
	free(text);
	assert_true(t_parse_file(tl, SYCL_984) >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM artifact WHERE kind = 'server_log'"), 1);
	assert_int_equal(engine_col(tl, "total_bytes"), 32656 * MiB);
	assert_int_equal(engine_col(tl, "free_bytes"), 31827 * MiB);
	assert_int_equal(engine_col(tl, "weights_bytes"), 20583 * MiB);
	assert_int_equal(engine_col(tl, "kv_cache_bytes"), 142 * MiB);
	assert_int_equal(engine_col(tl, "compute_buffer_bytes"), 72 * MiB);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows),
		cmocka_unit_test(real_exit_table),
		cmocka_unit_test(real_bare_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
