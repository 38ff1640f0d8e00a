/*
 * test_rules_retract.c -- SGLang's retractions (retract.c, the review
 * set's tp16 case): its own preemption is pressure, not a crash. On real
 * logs: alone, a warning under a no_oom verdict, counted once per moment
 * however many tensor-parallel ranks repeat it; with the Decode batch
 * lines, the cap on running requests; followed by an OOM, a spike; and
 * an SGLang log without retractions says nothing of them.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <string.h>

#define SERVING "tests/data/real/serving/"

static struct timeline *analyzed(const char *a, const char *b)
{
	struct timeline *tl = t_open();

	assert_int_equal(t_parse_file(tl, a), 0);
	if (b)
		assert_int_equal(t_parse_file(tl, b), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

static void warning_without_oom(void **state)
{
	struct timeline *tl = analyzed(SERVING "sglang-0.4-decode-out-of-memory-happened-tp16.log",
				       NULL);
	(void)state;

	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'kv_retract'"), 1);
	assert_float_equal(t_real(tl, "SELECT score FROM finding WHERE cause = 'kv_retract'"),
			   0.4, 1e-9);
	/* 11 lines from 8 ranks: two moments of retraction */
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.retracted_requests') FROM"
			       " finding WHERE cause = 'kv_retract'"), 2);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'kv_retract'"),
			       "--mem-fraction-static"));
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'kv_retract'"),
			       "not a crash"));
	t_close(tl);
}

static void cap_from_decode_batches(void **state)
{
	struct timeline *tl = analyzed(SERVING "sglang-0.5.18-retract-requests-decode-batch.log",
				       NULL);
	(void)state;

	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	/* 67 ran at once at most: x 0.7 */
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.advice_value') FROM finding"
			       " WHERE cause = 'kv_retract'"), 46);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'kv_retract'"),
			       "Lower --max-running-requests to 46"));
	t_close(tl);
}

static void spike_before_oom(void **state)
{
	struct timeline *tl = analyzed(SERVING "sglang-0.4-decode-out-of-memory-happened-tp16.log",
				       SERVING "sglang-0.4-decode-out-of-memory-runtimeerror-backticks.log");
	(void)state;

	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "spike");
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "kv_retract");
	assert_float_equal(t_real(tl, "SELECT score FROM finding WHERE cause = 'kv_retract'"),
			   0.65, 1e-9);
	t_close(tl);
}

static void none_without_retractions(void **state)
{
	struct timeline *tl = analyzed(SERVING "sglang-decode-batch-stripped-tp0.log", NULL);
	(void)state;

	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'kv_retract'"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(warning_without_oom),
		cmocka_unit_test(cap_from_decode_batches),
		cmocka_unit_test(spike_before_oom),
		cmocka_unit_test(none_without_retractions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
