/*
 * test_llama_server.c -- llama.cpp's HTTP server log read as a server log
 * and its lines placing a failure pasted beside it (issue 27, round 8):
 *
 *  - the real pastes of tests/data/real/healthy/llamaserver-* (llama.cpp
 *    #14829, #14073, PR #22929, huggingface/pi-llama #19, #11476: request
 *    lines bare, behind a --log-timestamps prefix, a journal prefix, a
 *    compose prefix) are recognised by the SLT/SRV line shape and give no
 *    OOM; a note that only names the functions is not a log;
 *  - the real folder of llama.cpp #20509 (the gemma4 --cache-ram case):
 *    its server paste's slot selection and prompt-cache save mark serving,
 *    which places the untimed systemd OOM-kill notice pasted after it;
 *  - the real folder of llama.cpp #5057 (OpenCL on an Adreno, -ngl 23):
 *    the quoted buffer failure is placed in load_weights by the run log
 *    pasted after it, cut in the model's load, and the report says that
 *    paste came later; a run log that holds a failure of its own does
 *    not place another paste's.
 */
#include "testutil_report.h"
#include "analyzer/derive/oom.h"
#include "analyzer/rules/rules.h"
#include "parsers/serving/server_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEMMA4 "tests/data/real/any_stack/llamacpp-gemma4-cache-ram-systemd-oom-kill"
#define ADRENO "tests/data/real/any_stack/llamacpp-opencl-adreno-poco-x3-ngl-23-buffer-alloc-fail"

static void sniffs_real_request_lines(void **state)
{
	static const char *const files[] = {
		"tests/data/real/healthy/llamaserver-2025-07-embeddings-requests-slots-idle.log",
		"tests/data/real/healthy/llamaserver-2025-06-rest-embeddings-slot-cycle.log",
		"tests/data/real/healthy/llamaserver-2026-prompt-cache-timestamped-gemma4.log",
		"tests/data/real/healthy/llamaserver-2026-05-systemd-journal-checkpoint-release-idle.log",
		"tests/data/real/healthy/llamaserver-compose-listening-idle-first-request.log",
		GEMMA4 "/02-server.log", NULL };
	int i;
	(void)state;
	for (i = 0; files[i]; i++) {
		struct timeline *tl = t_open();
		size_t n;
		char *text = t_slurp(files[i], &n);

		assert_non_null(text);
		assert_true(server_log_sniff((const unsigned char *)text, n) >= 70);
		assert_true(t_parse_file(tl, files[i]) >= 0);
		assert_int_equal(t_int(tl, "SELECT count(*) FROM artifact WHERE kind = 'server_log'"), 1);
		assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind IN"
				       " ('torch_oom', 'mem_failure', 'engine_error')"), 0);
		free(text);
		t_close(tl);
	}
}

/* Function names a note quotes in prose, and a field that is not the
 * macros' fixed width: not llama-server's lines. */
static void prose_is_not_a_log(void **state)
{
	static const char note[] =
		"The slot launch_slot_ function and srv update_slots run per request.\n"
		"See slot get_availabl: it picks a slot.\n"
		"slot x: id 0 | task 1 | this field is not twelve wide\n";
	(void)state;
	assert_int_equal(server_log_sniff((const unsigned char *)note, strlen(note)), 0);
}

static void gemma4_notice_placed_in_serving(void **state)
{
	struct timeline *tl = t_open();
	char *want = strdup(t_src(GEMMA4 "/02-server.log"));
	(void)state;
	assert_true(t_parse_file(tl, GEMMA4) >= 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(value, '$.phase') FROM meta"
				   " WHERE key = 'server.last_stage'"), "serving");
	t_expect_oom(tl, "serving", "other_paste_order", want);
	free(want);
	t_close(tl);
}

static void adreno_quote_placed_by_cut_load(void **state)
{
	struct timeline *tl = t_open();
	char *want = strdup(t_src(ADRENO "/02-run.log"));
	(void)state;
	assert_true(t_parse_file(tl, ADRENO) >= 0);
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key = 'launch.gpu_layers'"),
			    "23");
	t_expect_oom(tl, "load_weights", "other_paste_order", want);
	{	/* the first screen says the placing paste came after the error */
		size_t len;
		char *md;

		assert_int_equal(analyze_timeline(tl, NULL), 0);
		md = t_render(tl, REPORT_MD, &len);

		t_contains(md, "02-run.log, a later paste whose start-up did not finish");
		t_lacks(md, "an earlier paste");
		free(md);
	}
	free(want);
	t_close(tl);
}

/* The same run log with a failure of its own at its end: that log's
 * failure is its own, the quote pasted before it stays unplaced. */
static void later_log_with_own_failure_does_not_place(void **state)
{
	static const char own[] = "ggml_backend_opencl_buffer_type_alloc_buffer: failed to"
				  " allocate 1048.51 MiB\n";
	struct timeline *tl = t_open();
	size_t n, m;
	char *run = t_slurp(ADRENO "/02-run.log", &n), *quote = t_slurp(ADRENO "/01-error.txt", &m);
	char *both;
	(void)state;
	assert_non_null(run);
	assert_non_null(quote);
	both = malloc(n + sizeof(own));
	assert_non_null(both);
	memcpy(both, run, n);
	memcpy(both + n, own, sizeof(own));
	assert_true(t_parse_mem(tl, "server_log", "inc/01-error.txt", quote, m) > 0);
	assert_true(t_parse_mem(tl, "server_log", "inc/02-run.log", both, n + sizeof(own) - 1) > 0);
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT coalesce(phase_source, '-') FROM oom o JOIN artifact a"
				   " ON a.id = o.artifact_id WHERE a.path = 'inc/01-error.txt'"), "-");
	free(both);
	free(run);
	free(quote);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sniffs_real_request_lines),
		cmocka_unit_test(prose_is_not_a_log),
		cmocka_unit_test(gemma4_notice_placed_in_serving),
		cmocka_unit_test(adreno_quote_placed_by_cut_load),
		cmocka_unit_test(later_log_with_own_failure_does_not_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
