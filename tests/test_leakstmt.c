/*
 * test_leakstmt.c -- a program's own leak statement (parsers/host/
 * leakstmt.c, hooked into the server-log reader; rule leak_stated):
 * PyTorch's CudaMemoryLeakCheck as pytorch/pytorch#84529's CI log prints
 * it, the allocator-only warning (a reading, never a verdict), test_mps's
 * "Detected N bytes leak of GPU memory" with the repro's driver_before /
 * driver_after lines above it (pytorch/pytorch#132332), and the lines
 * that must stay clean: resource_tracker's "leaked semaphore objects",
 * leaky_relu, "no leak", NCCL's "can leak resources", macOS leaks' "448
 * total leaked bytes", a sanitizer's small leak.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "parsers/host/leakstmt.h"

#include <math.h>
#include <string.h>

static void check_line(void **state)
{
	struct leak_stated o;
	const char *l = "RuntimeError: CUDA driver API confirmed a leak in __main__.TestPrimsCUDA."
			"test_nvfuser_no_args_cuda! Caching allocator allocated memory was 2048 and is"
			" now reported as 2560 on device 0. CUDA driver allocated memory was 520880128"
			" and is now 522977280.";
	(void)state;
	assert_int_equal(leakstmt_line(l, strlen(l), &o), 1);
	assert_string_equal(o.said_by, "cuda_check");
	assert_int_equal(o.confirmed, 1);
	assert_int_equal(o.device, 0);
	assert_true(o.alloc_before == 2048 && o.alloc_after == 2560);
	assert_true(o.driver_before == 520880128 && o.driver_after == 522977280);
	assert_true(o.leaked == 522977280.0 - 520880128.0);
	assert_string_equal(o.name, "__main__.TestPrimsCUDA.test_nvfuser_no_args_cuda");
}

static void not_statements(void **state)
{
	static const char *const l[] = {
		"UserWarning: resource_tracker: There appear to be 344 leaked semaphore objects",
		"    291 x = F.leaky_relu(x, self.negative_slope)  # 512 MB",
		"no memory leak: 0 bytes",
		"Process 30066: 7 leaks for 448 total leaked bytes.",
		"destroy_process_group() was not called before program exit, which can leak resources.",
		NULL };
	struct leak_stated o;
	int i;
	(void)state;
	for (i = 0; l[i]; i++)
		assert_int_equal(leakstmt_line(l[i], strlen(l[i]), &o), 0);
}

static void mps_repro_verdict(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "text", "out.txt", "driver_before = 1102823424\n"
				"driver_after = 3787177984\n"
				"Detected 2684354560 bytes (predicted: 2684354560) leak of GPU memory\n",
				0) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class || '/' || cause FROM verdict"),
			    "leak/stated_leak");
	assert_int_equal(t_int(tl, "SELECT CAST(json_extract(figures, '$.driver_after_bytes')"
			       " AS INTEGER) FROM finding WHERE rule = 'leak_stated'"), 3787177984LL);
	t_close(tl);
}

static void allocator_only_is_a_reading(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "text", "t.log", "UserWarning: CUDA caching allocator reports a"
				" memory leak not verified by the driver API in T! Caching allocator"
				" allocated memory was 0 and is now reported as 512 on device 0. CUDA"
				" driver allocated memory was 100 and is now 100.\n", 0) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	assert_string_equal(t_text(tl, "SELECT class FROM finding WHERE rule = 'leak_stated'"),
			    "reading");
	t_close(tl);
}

static void small_stated_leak_no_verdict(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "text", "asan.log", "SUMMARY: AddressSanitizer: 24 byte(s)"
				" leaked in 1 allocation(s).\n", 0) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check_line),
		cmocka_unit_test(not_statements),
		cmocka_unit_test(mps_repro_verdict),
		cmocka_unit_test(allocator_only_is_a_reading),
		cmocka_unit_test(small_stated_leak_no_verdict),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
