/*
 * test_phase_request_lines.c -- the lines two programs print while they
 * serve a request place an OOM in the serving phase (w-spent6c, held-out
 * set 6 spent; rows in parsers/serving/phase_table_apps.h).
 *
 *  - KoboldCpp prints "Processing Prompt [BLAS] (n / N tokens)" with a
 *    carriage return while it evaluates a request's prompt
 *    (gpttype_adapter.cpp), so a CUDA failure lands on the same line: the
 *    real console paste of koboldcpp issue 1711 is placed in serving; the
 *    same paste with that progress text taken out (an edge case: the
 *    only change) is not placed;
 *  - vllm-omni's AsyncOmni logs "Orchestrator error for req=<id>" below
 *    a request's failure (async_omni.py): the real server log of
 *    vllm-omni issue 6400 is placed in serving; its first line alone
 *    (the NPU OOM, no request named) is not.
 * Both excerpts are under tests/data/incoming/any_stack (their causes rest
 * on the threads' words only; the phase is in the files).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KOBOLD "tests/data/incoming/any_stack/a-koboldcpp-1.98-prompt-blas-cumemsetaccess-oom/01-console.log"
#define OMNI "tests/data/incoming/any_stack/a-vllm-omni-ascend-910b4-npu-oom-second-request/01-server.log"

/* The phase of the first memory failure of a parsed log ("unknown" when
 * none was placed). */
static const char *first_phase(struct timeline *tl)
{
	return t_text(tl, "SELECT coalesce(json_extract(data, '$.phase'), 'unknown') FROM event"
		      " WHERE kind IN ('torch_oom', 'mem_failure') ORDER BY id LIMIT 1");
}

static void koboldcpp_prompt_progress_is_serving(void **state)
{
	static const char mark[] = "Processing Prompt";
	size_t n;
	char *text = t_slurp(KOBOLD, &n), *at;
	struct timeline *tl = t_open();

	(void)state;
	assert_non_null(text);
	assert_true(t_parse_mem(tl, "server_log", KOBOLD, text, n) > 0);
	assert_string_equal(first_phase(tl), "serving");
	t_close(tl);
	/* the progress text blanked (same length): nothing names the phase */
	at = strstr(text, mark);
	assert_non_null(at);
	memset(at, 'x', sizeof(mark) - 1);
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "kobold-edited.log", text, n) > 0);
	assert_string_equal(first_phase(tl), "unknown");
	t_close(tl);
	free(text);
}

static void vllm_omni_request_error_is_serving(void **state)
{
	size_t n;
	char *text = t_slurp(OMNI, &n), *nl;
	struct timeline *tl = t_open();

	(void)state;
	assert_non_null(text);
	assert_true(t_parse_mem(tl, "server_log", OMNI, text, n) > 0);
	assert_string_equal(first_phase(tl), "serving");
	t_close(tl);
	/* the OOM line alone: no request named, no phase */
	nl = strchr(text, '\n');
	assert_non_null(nl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "omni-first-line.log", text,
				(size_t)(nl - text) + 1) > 0);
	assert_string_equal(first_phase(tl), "unknown");
	t_close(tl);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(koboldcpp_prompt_progress_is_serving),
		cmocka_unit_test(vllm_omni_request_error_is_serving),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
