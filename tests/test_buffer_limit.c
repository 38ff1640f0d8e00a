/*
 * test_buffer_limit.c -- a request above the per-buffer ceiling the
 * allocator states (parsers/serving/memfail_limit.c, analyzer/rules/
 * buffer_limit.c): MLX's Metal allocator refusing a 16 GiB buffer of a
 * final evaluation on a 24 GB Mac (autoresearch-mlx#2, tuning set), and
 * the reader's edges on the same wording.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "parsers/serving/memfail_limit.h"

#include <stdio.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"
#define MLX_LINE "RuntimeError: [metal::malloc] Attempting to allocate 17179869184 bytes" \
	" which is greater than the maximum allowed buffer size of 14302248960 bytes."

/* The ceiling read from MLX's words; nothing from other or cut text. */
static void reader(void **state)
{
	const char *cut = "greater than the maximum allowed buffer size of 14302248960";
	const char *huge = "greater than the maximum allowed buffer size of"
			   " 1234567890123456789012 bytes.";
	(void)state;
	assert_int_equal(memfail_buffer_limit(MLX_LINE, strlen(MLX_LINE)), 14302248960LL);
	assert_int_equal(memfail_buffer_limit(cut, strlen(cut)), -1);
	assert_int_equal(memfail_buffer_limit(huge, strlen(huge)), -1);
	assert_int_equal(memfail_buffer_limit("CUDA out of memory.", 19), -1);
	assert_int_equal(memfail_buffer_limit(NULL, 0), -1);
}

/* The final evaluation's traceback: misconfig in eval, both figures, the
 * share computed by oomlens and said so. */
static void mlx_final_eval(void **state)
{
	struct timeline *tl = t_open();
	const char *advice;
	(void)state;
	assert_true(t_parse_file(tl, ANY "mlx-autoresearch-final-eval-metal-malloc-over-max-buffer.log") >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class || '/' || cause || '/' || phase FROM verdict"),
			    "misconfig/request_exceeds_buffer_limit/eval");
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.buffer_limit_bytes') FROM finding"
			       " WHERE rule = 'buffer_limit'"), 14302248960LL);
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.requested_bytes') FROM finding"
			       " WHERE rule = 'buffer_limit'"), 17179869184LL);
	advice = t_text(tl, "SELECT advice FROM finding WHERE rule = 'buffer_limit'");
	assert_non_null(strstr(advice, "Computed by oomlens"));
	assert_non_null(strstr(advice, "83%"));
	t_close(tl);
}

/* The same words below the ceiling would not be this rule's: a request
 * that fits one buffer is left to the others. */
static void under_limit(void **state)
{
	static const char log[] = "RuntimeError: [metal::malloc] Attempting to allocate"
		" 1000 bytes which is greater than the maximum allowed buffer size of 2000 bytes.\n";
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "server_log", "edge.log", log, sizeof(log) - 1) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.buffer_limit_bytes') FROM event"
			       " WHERE kind = 'mem_failure'"), 2000);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'buffer_limit'"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reader),
		cmocka_unit_test(mlx_final_eval),
		cmocka_unit_test(under_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
