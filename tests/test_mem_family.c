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
			assert_string_equal(rows[i].scope, "accelerator");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_family_has_a_row),
		cmocka_unit_test(scope_column_is_memfail_scope),
		cmocka_unit_test(rows_hold_the_facts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
