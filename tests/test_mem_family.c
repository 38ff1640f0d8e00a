/*
 * test_mem_family.c -- the wording families' one table (lib/mem_family.c,
 * issue 27 round 14, family15): every family the recogniser can name
 * (memfail_family_name) has its row; the table's scope column is the one
 * memfail_scope gives a line that names no device; and the facts the
 * reports and rules read come from it (the accelerators' memory and
 * monitors, the graph words, PyTorch's per-backend words), including
 * Gaudi's HPU Graphs, which the answer's clause had no word for.
 */
#include "testutil.h"
#include "lib/mem_family.h"
#include "lib/vocab.h"
#include "parsers/serving/memfail.h"
#include "parsers/serving/memfail_limit.h"

#include <stdlib.h>

#include <string.h>

static void every_family_has_a_row(void **state)
{
	int f;

	(void)state;
	for (f = MF_NONE + 1; f < MF__COUNT; f++) {
		const char *key = memfail_family_name((enum memfail_family)f);
		if (!mem_family_find(key))
			fail_msg("family %s has no row in lib/mem_family.c", key);
	}
	assert_null(mem_family_find(NULL));
	assert_null(mem_family_find(""));
	assert_null(mem_family_find("no-such-family"));
}

static void scope_column_is_memfail_scope(void **state)
{
	int f;

	(void)state;
	for (f = MF_NONE + 1; f < MF__COUNT; f++) {
		const char *key = memfail_family_name((enum memfail_family)f);
		const struct mem_family *mf = mem_family_find(key);
		enum vocab_scope s = memfail_scope((enum memfail_family)f, 0, "", 0, VSC_GPU);
		const char *want = mf && mf->scope ? mf->scope : "gpu";
		if (strcmp(vocab_scope(s), want))
			fail_msg("family %s: memfail_scope %s, table %s", key, vocab_scope(s), want);
	}
	/* the line's words still decide for XLA and ggml */
	assert_int_equal(memfail_scope(MF_XLA, 0, "Out of memory in memory space hbm", 33, VSC_GPU),
			 VSC_TPU);
	assert_int_equal(memfail_scope(MF_GGML, 0, "ggml_metal_graph_compute", 24, VSC_GPU),
			 VSC_UNIFIED);
	assert_int_equal(memfail_scope(MF_CUDA, 1, "", 0, VSC_GPU), VSC_HOST);
}

static void rows_hold_the_facts(void **state)
{
	unsigned n, i;
	const struct mem_family *rows = mem_family_rows(&n);

	(void)state;
	for (i = 0; i < n; i++) {
		/* an accelerator's memory and monitor are named; a family
		 * whose platform is another accelerator is of that scope */
		if (rows[i].scope && !strcmp(rows[i].scope, "accelerator")) {
			assert_non_null(rows[i].memory);
			assert_non_null(rows[i].monitor);
			assert_int_equal(rows[i].platform, MEM_PLAT_ACCEL);
		}
		if (rows[i].platform == MEM_PLAT_ACCEL)
			assert_non_null(rows[i].monitor);
	}
	assert_string_equal(mem_family_find("npu")->graphs, "NPU graphs");
	assert_string_equal(mem_family_find("hip")->graphs, "HIP graphs");
	assert_string_equal(mem_family_find("torch")->graphs, "CUDA graphs");
	/* Habana's captured graphs are HPU Graphs (wrap_in_hpu_graph) */
	assert_string_equal(mem_family_find("hpu")->graphs, "HPU graphs");
	assert_null(mem_family_find("xla")->graphs);
	assert_string_equal(mem_family_find("mps")->torch_words, "MPS backend out of memory");
	assert_int_equal(mem_family_find("nvmap")->platform, MEM_PLAT_JETSON);
	assert_int_equal(mem_family_find("metal")->platform, MEM_PLAT_GGML);
	assert_int_equal(mem_family_find("mlx")->platform, MEM_PLAT_MLX);
}

/* Line at (1-based) of the real paste relpath: its memfail_line reading. */
static int read_line_of(const char *relpath, int at, struct memfail *mf, int64_t *limit)
{
	size_t n;
	char *t = t_slurp(relpath, &n), *p = t, *e;
	int ok;

	assert_non_null(t);
	while (--at > 0 && (e = memchr(p, '\n', (size_t)(t + n - p))))
		p = e + 1;
	e = memchr(p, '\n', (size_t)(t + n - p));
	if (!e)
		e = t + n;
	ok = memfail_line(p, (size_t)(e - p), mf);
	*limit = memfail_buffer_limit(p, (size_t)(e - p));
	free(t);
	return ok;
}

/* OpenVINO's GPU plugin, read from the paste (openvino.genai
 * #2406): one object above the device's max_alloc_mem_size is family
 * openvino, of the plugin's one pool (its budget is the host's RAM), and
 * states the device's per-object ceiling; the table names its monitor. */
static void openvino_gpu_plugin(void **state)
{
	struct memfail mf;
	int64_t limit;

	(void)state;
	assert_true(read_line_of("tests/data/real/any_stack/"
				 "openvino-genai-gpu-exceeded-max-object-allocation.log", 3, &mf, &limit));
	assert_string_equal(memfail_family_name(mf.family), "openvino");
	assert_int_equal(mf.scope, VSC_UNIFIED);
	assert_int_equal(limit, 4294959104LL);
	/* the plugin's preamble lines are no failure of their own */
	assert_false(read_line_of("tests/data/real/any_stack/"
				  "openvino-genai-gpu-exceeded-max-object-allocation.log", 1, &mf, &limit));
	assert_non_null(mem_family_find("openvino")->monitor);
	assert_int_equal(mem_family_find("openvino")->platform, MEM_PLAT_ACCEL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_family_has_a_row),
		cmocka_unit_test(scope_column_is_memfail_scope),
		cmocka_unit_test(rows_hold_the_facts),
		cmocka_unit_test(openvino_gpu_plugin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
