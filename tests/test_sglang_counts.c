/*
 * test_sglang_counts.c -- SGLang's decode/prefill OOM keeps the counts
 * its message goes on with (parsers/serving/server_engine.c
 * srv_engine_counts: "Try to allocate N tokens.", "Available tokens: M",
 * SGLang's own "Avaliable" too) in the error's entry of the engine table,
 * and rule engine weighs them (analyzer/rules/engine.c): more available
 * than asked is a pool that was not full (sglang#4602, the paged
 * allocator), fewer is a pool that ran out. Real excerpts of
 * tests/data/real/any_stack; one edge case with the counts reversed.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <stdlib.h>
#include <string.h>

#define REAL "tests/data/real/any_stack/"
#define ERR_FIELD(tl, key) t_int(tl, "SELECT json_extract(j.value, '$." key "') FROM engine," \
				 " json_each(engine.errors) j WHERE json_extract(j.value, '$.kind')" \
				 " = 'decode_oom'")

static int parse_text(struct timeline *tl, const char *name, const char *text, size_t n)
{
	return t_parse_mem(tl, "server_log", name, text, n ? n : strlen(text));
}

/* sglang#4602: a traceback's RuntimeError over five lines: 148 asked,
 * 2048 available: not full, the lower score, no knob. */
static void page_size_not_full(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *text = t_slurp(REAL "sglang-decode-oom-page-size-64-counts.log", &n);
	(void)state;

	assert_true(parse_text(tl, "4602.log", text, n) > 0);
	free(text);
	assert_int_equal(ERR_FIELD(tl, "asked_tokens"), 148);
	assert_int_equal(ERR_FIELD(tl, "available_tokens"), 2048);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(t_real(tl, "SELECT max(score) FROM finding WHERE cause = 'kv_pool'") < 0.5);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'kv_pool'"
			       " AND title LIKE '%%not full%%'"), 1);
	t_close(tl);
}

/* The same message with fewer available than asked: the pool ran out. */
static void pool_ran_out(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_true(parse_text(tl, "out.log", "RuntimeError: Decode out of memory. Try to lower your"
			       " batch size.\nTry to allocate 4096 tokens.\nAvailable tokens: 512"
			       " (available_size=512 + evictable_size=0)\n", 0) > 0);
	assert_int_equal(ERR_FIELD(tl, "asked_tokens"), 4096);
	assert_int_equal(ERR_FIELD(tl, "available_tokens"), 512);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(t_real(tl, "SELECT max(score) FROM finding WHERE cause = 'kv_pool'") >= 0.6);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'kv_pool'"
			       " AND title LIKE '%%not full%%'"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(page_size_not_full),
		cmocka_unit_test(pool_ran_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
