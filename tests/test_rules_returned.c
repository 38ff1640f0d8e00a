/*
 * test_rules_returned.c -- memory not returned between failures
 * (returned.c) and the load at an untimed failure (derive/load.c).
 *
 * On real pastes: sd-webui #3280's two OOMs, the later asking less with
 * 0.64 GiB more reserved, are a leak whose order only the file names give
 * (inferred, no rate); Fooocus #602's weight-merge errors of one log, a
 * few MiB apart, are no pair; TGI #801's router error at batch_size=1 is
 * the load at the failure and keeps "fewer concurrent requests" out of
 * the advice. On a timeline built through the sink (the one edge no real
 * paste in the corpus has: two timed failures of one card), the rate.
 */
#include "testutil.h"
#include "testutil_rules.h"
#include "analyzer/rules/rules.h"

#include <jansson.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"
#define SD ANY "sdwebui-3280-first-oom-then-0mib-not-released/"
#define GIB_ (1024.0 * 1024.0 * 1024.0)
#define NS 1000000000LL

static void order_inferred_from_names(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, SD "01-first-oom.log"), 0);
	assert_int_equal(t_parse_file(tl, SD "02-second-oom-512px.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "not_returned");
	/* the later failure's phase (sd-webui's progress bar), not the bare first's */
	assert_string_equal(t_text(tl, "SELECT phase FROM verdict"), "serving");
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.order_inferred') FROM finding"
			       " WHERE cause = 'not_returned'"), 1);
	/* 7.99 - 7.35 GiB reserved */
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.not_returned_bytes') FROM"
				  " finding WHERE cause = 'not_returned'") / GIB_, 0.64, 0.001);
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.leak_rate_mib_per_hour') IS NULL"
			       " FROM finding WHERE cause = 'not_returned'"), 1);
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'not_returned'"),
			       "order inferred from the file names"));
	t_close(tl);
}

static void one_log_few_mib_apart_is_no_pair(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, ANY "b-fooocus-second-generation-weights.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(t_int(tl, "SELECT count(*) FROM oom WHERE kind = 'torch_oom'") >= 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'not_returned'"), 0);
	t_close(tl);
}

static void batch_of_one_is_the_load(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, ANY "tgi-1.0.1-801-v100-long-run-batch1-prefill-oom/"
				      "01-router-prefill-oom.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT doing FROM oom_load"), "serving");
	assert_float_equal(t_real(tl, "SELECT running FROM oom_load"), 1.0, 1e-9);
	assert_int_equal(t_int(tl, "SELECT at_ns IS NULL FROM oom_load"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE advice LIKE"
			       " '%%fewer concurrent requests%%'"), 0);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'capacity'"),
			       "a lower concurrency would not help"));
	t_close(tl);
}

static int64_t oom_pid = 4312;   /* the failing process's pid */

/* A PyTorch OOM at T0 + at s asking req with reserved held (old wording's
 * figures, as torch_oom_text.c writes them), from a log of its own. */
static void oom_at(struct timeline *tl, double at, double req, double reserved)
{
	struct ol_event e = { "torch_oom", { OL_CLOCK_UTC, (T_RULES_T0 + (int64_t)at) * NS,
					     OL_NULL, NULL },
			      oom_pid, NULL, (int64_t)req, 1, "CUDA out of memory", NULL };

	e.data = json_pack("{s:I, s:I, s:I, s:I, s:I}", "device", (json_int_t)0,
			   "requested_bytes", (json_int_t)req, "total_bytes", (json_int_t)(24 * GIB_),
			   "reserved_bytes", (json_int_t)reserved,
			   "allocated_bytes", (json_int_t)(reserved - GIB_));
	t_begin(tl);
	assert_true(sink_event(&tl->sink, &e) > 0);
	t_end(tl);
	json_decref(e.data);
}

static void timed_pair_gives_a_rate(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	/* two hours apart, the same 20 MiB ask, 2 GiB more reserved */
	oom_at(tl, 0, 20 << 20, 20 * GIB_);
	oom_at(tl, 7200, 20 << 20, 22 * GIB_);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.order_inferred') FROM finding"
			       " WHERE cause = 'not_returned'"), 0);
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.leak_rate_mib_per_hour')"
				  " FROM finding WHERE cause = 'not_returned'"), 1024.0, 0.5);
	assert_float_equal(t_real(tl, "SELECT score FROM finding WHERE cause = 'not_returned'"),
			   0.75, 1e-9);
	t_close(tl);
}

static void ranks_side_by_side_are_no_pair(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	/* one moment: two ranks' messages, different figures */
	oom_at(tl, 0, 20 << 20, 20 * GIB_);
	oom_at(tl, 0, 20 << 20, 22 * GIB_);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'not_returned'"), 0);
	t_close(tl);
}

static void another_process_is_no_pair(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	/* the second failure is another pid's: a restart, not memory kept */
	oom_at(tl, 0, 20 << 20, 20 * GIB_);
	oom_pid = 5120;
	oom_at(tl, 3600, 20 << 20, 22 * GIB_);
	oom_pid = 4312;
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'not_returned'"), 0);
	t_close(tl);
}

static void larger_later_ask_is_no_pair(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	/* the later failure asked four times as much: a bigger request, not
	 * memory kept */
	oom_at(tl, 0, 1 << 30, 20 * GIB_);
	oom_at(tl, 600, 4.0 * GIB_, 22 * GIB_);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'not_returned'"), 0);
	t_close(tl);
}

/* Another stack's failure (the generic recogniser's mem_failure) at
 * T0 + at s, asking req with free left of a 16 GiB card. */
static void failure_at(struct timeline *tl, double at, double req, double free_)
{
	struct ol_event e = { "mem_failure", { OL_CLOCK_UTC, (T_RULES_T0 + (int64_t)at) * NS,
					       OL_NULL, NULL },
			      977, NULL, (int64_t)req, 1, "failed to allocate", NULL };

	e.data = json_pack("{s:I, s:I, s:I, s:I, s:s}", "device", (json_int_t)0,
			   "requested_bytes", (json_int_t)req, "total_bytes", (json_int_t)(16 * GIB_),
			   "free_bytes", (json_int_t)free_, "family", "xla");
	t_begin(tl);
	assert_true(sink_event(&tl->sink, &e) > 0);
	t_end(tl);
	json_decref(e.data);
}

static void other_stack_less_free(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	/* the same 512 MiB ask an hour apart, 3 GiB less free the second time */
	failure_at(tl, 0, 512 << 20, 4.0 * GIB_);
	failure_at(tl, 3600, 512 << 20, 1.0 * GIB_);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.not_returned_bytes') FROM"
				  " finding WHERE cause = 'not_returned'") / GIB_, 3.0, 1e-6);
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.leak_rate_mib_per_hour')"
				  " FROM finding WHERE cause = 'not_returned'"), 3072.0, 0.5);
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'not_returned'"),
			       "total less free"));
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(order_inferred_from_names),
		cmocka_unit_test(one_log_few_mib_apart_is_no_pair),
		cmocka_unit_test(batch_of_one_is_the_load),
		cmocka_unit_test(timed_pair_gives_a_rate),
		cmocka_unit_test(ranks_side_by_side_are_no_pair),
		cmocka_unit_test(another_process_is_no_pair),
		cmocka_unit_test(larger_later_ask_is_no_pair),
		cmocka_unit_test(other_stack_less_free),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
