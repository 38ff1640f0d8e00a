/*
 * test_strci.c -- phrases found whatever their letters' case
 * (lib/strci.c, issue 27 round 17 review): the one helper the readers
 * and rules share instead of their own tolower loops. Log lines are not
 * NUL-terminated (a span of the input), so a phrase cut by the span's
 * end is not there; bytes that are not ASCII letters (UTF-8 months,
 * CJK progress-bar words) compare as they are.
 */
#include "testutil.h"
#include "lib/strci.h"

#include <string.h>

static void finds_a_phrase_in_any_case(void **state)
{
	const char *l = "RuntimeError: CUDA OUT OF MEMORY. Tried To Allocate 2.00 GiB";

	(void)state;
	assert_ptr_equal(mem_find_ci(l, strlen(l), "out of memory"), l + 19);
	assert_ptr_equal(mem_find_ci(l, strlen(l), "Out Of Memory"), l + 19);
	assert_non_null(mem_find_ci(l, strlen(l), "tried to allocate"));
	assert_null(mem_find_ci(l, strlen(l), "failed to allocate"));
	assert_true(str_has_ci("gpu0_FB_Used", "fb_used"));
	assert_true(str_has_ci("DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB"));
	assert_false(str_has_ci("container_memory_rss", "vram"));
	assert_false(str_has_ci("", "rss"));
}

static void a_span_ends_where_its_length_says(void **state)
{
	const char *l = "killed: out of memoryXYZ";

	(void)state;
	/* "out of memory" cut by the span's end is not there */
	assert_null(mem_find_ci(l, 20, "out of memory"));
	assert_non_null(mem_find_ci(l, 21, "out of memory"));
	assert_null(mem_find_ci(l, 0, "o"));
	assert_null(mem_find_ci(l, strlen(l), ""));
	/* the first place wins */
	assert_ptr_equal(mem_find_ci(l, strlen(l), "O"), l + 8);
}

static void any_of_a_list(void **state)
{
	static const char *const w[] = { "out of memory", "to allocate", NULL };
	static const char *const none[] = { NULL };
	const char *a = "Failed TO ALLOCATE 512 MiB", *b = "mem: 6.9Gi used";

	(void)state;
	assert_true(mem_has_any_ci(a, strlen(a), w));
	assert_false(mem_has_any_ci(b, strlen(b), w));
	assert_false(mem_has_any_ci(a, strlen(a), none));
}

static void whole_words_and_other_bytes(void **state)
{
	(void)state;
	assert_true(mem_is_ci("Backward", 8, "backward"));
	assert_false(mem_is_ci("Backwards", 9, "backward"));
	assert_false(mem_is_ci("Back", 4, "backward"));
	/* UTF-8 compares as it is: "AOÛT" is not "août" (only ASCII folds) */
	assert_true(mem_eq_ci("AO\xc3\xbbT", "ao\xc3\xbbt", 5));
	assert_false(mem_eq_ci("AO\xc3\x9bT", "ao\xc3\xbbt", 5));
	assert_true(mem_eq_ci("\xe8\xae\xad\xe7\xbb\x83", "\xe8\xae\xad\xe7\xbb\x83", 6));
	assert_int_equal(ascii_lower('Q'), 'q');
	assert_int_equal(ascii_lower('['), '[');
	assert_int_equal((unsigned char)ascii_lower('\xc3'), 0xc3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(finds_a_phrase_in_any_case),
		cmocka_unit_test(a_span_ends_where_its_length_says),
		cmocka_unit_test(any_of_a_list),
		cmocka_unit_test(whole_words_and_other_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
