/*
 * test_size_units.c -- one table of byte units for every reader of sizes
 * (parsers/common/seriesutil.c size_unit_at; issue 27 round 19 review):
 * parse_size reads units as the engines print them ("MiB", "GB"), the
 * leak-statement reader (parsers/host/leakstmt.c) reads the same units in
 * a person's prose, any case and as a whole word. Before, leakstmt kept
 * its own table (no TB, TiB), which this test guards against coming back.
 */
#include "testutil.h"
#include "parsers/common/seriesutil.h"
#include "parsers/host/leakstmt.h"

#include <string.h>

static double unit(const char *s, unsigned flags, size_t *len)
{
	return size_unit_at(s, strlen(s), flags, len);
}

static void units_as_printed(void **state)
{
	size_t len, used;

	(void)state;
	assert_true(unit("MiB free", 0, &len) == 1048576.0 && len == 3);
	assert_true(unit("bytes", 0, &len) == 1 && len == 5);
	assert_true(unit("byte", 0, &len) == 1 && len == 4);
	assert_true(unit("TiB", 0, &len) == 1099511627776.0 && len == 3);
	assert_true(unit("B/s", 0, &len) == 1 && len == 1);
	assert_true(unit("mb", 0, &len) == 0 && len == 0);       /* as written */
	assert_true(unit("Bar", 0, &len) == 1);                  /* no word edge */
	assert_true(unit("", 0, &len) == 0);
	assert_int_equal(parse_size("2.00 GiB", 8, &used), 2147483648LL);
	assert_int_equal(used, 8);
	assert_int_equal(parse_size(" 512 bytes)", 11, &used), 512);
	assert_int_equal(used, 10);
	assert_true(parse_size("12 mb", 5, &used) == OL_NULL && used == 0);
}

static void units_in_prose(void **state)
{
	const unsigned f = SU_ANY_CASE | SU_WHOLE_WORD;
	size_t len;

	(void)state;
	assert_true(unit("mb.", f, &len) == 1048576.0 && len == 2);
	assert_true(unit("Gb", f, &len) == 1073741824.0);
	assert_true(unit("BYTES leaked", f, &len) == 1 && len == 5);
	assert_true(unit("tb", f, &len) == 1099511627776.0);
	assert_true(unit("Bar", f, &len) == 0 && len == 0);     /* a word, not a unit */
	assert_true(unit("kbps", f, &len) == 0);
}

static void a_leak_stated_in_any_unit(void **state)
{
	struct leak_stated o;
	const char *a = "Error: detected a memory leak of 3 Mb after 100 requests";
	const char *b = "the process leaked 1.5 TiB over the run";

	(void)state;
	assert_int_equal(leakstmt_line(a, strlen(a), &o), 1);
	assert_true(o.leaked == 3.0 * 1048576.0);
	assert_int_equal(leakstmt_line(b, strlen(b), &o), 1);
	assert_true(o.leaked == 1.5 * 1099511627776.0);   /* not read before the table was one */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(units_as_printed),
		cmocka_unit_test(units_in_prose),
		cmocka_unit_test(a_leak_stated_in_any_unit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
