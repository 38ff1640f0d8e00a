/*
 * test_answer_apps.c -- the answer names the program's own knobs and the
 * memory it truly knows ran out (issue 27 round 15, w-advice16). On real
 * excerpts of tests/data/real/any_stack:
 *
 *  - whisper.cpp's whisper-cli failed a 2.88 GiB CPU buffer while
 *    loading large-v3 (whisper_model_load, the stage line): the event
 *    names the app, the advice names a smaller or quantized model, never
 *    llama.cpp's --n-gpu-layers or --no-mmap, and the first screen says
 *    the program's stage line placed it, not "the engine";
 *  - DyNet's "dynet is out of memory, try increasing with --dynet-mem":
 *    the pool's memory ran out, sized by --dynet-mem, on host or GPU
 *    unsaid: the first screen never says GPU memory ran out;
 *  - ggml's context pool ("ggml_new_object: not enough space in the
 *    context's memory pool", whisper.cpp's bench): a pool the program
 *    sized itself (ggml_init_params.mem_size, a build-time size), named
 *    as such, misconfig of cause pool_limit, and no advice about "the
 *    card";
 *  - Keras' fit() OOM judged from its phase (phase_inferred): the step's
 *    knobs are named once on the first screen (under "To try first"),
 *    not listed again in the fix.
 */
#include "testutil.h"
#include "testutil_report.h"
#include "analyzer/rules/rules.h"
#include "reports/report.h"

#include <stdlib.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"

static struct timeline *analyzed(const char *rel)
{
	struct timeline *tl = t_open();

	assert_true(t_parse_file(tl, rel) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

/* The number of times needle occurs in hay. */
static int count(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

static void whisper_cpp_gets_its_own_knobs(void **state)
{
	struct timeline *tl = analyzed(ANY "a-whispercpp-large-v3-cpu-buffer-3094359040-alloc-fail/"
				       "01-whisper-cli.log");
	const char *s;
	char *r;
	(void)state;

	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.app') FROM event WHERE kind ="
				   " 'mem_failure'"), "whisper.cpp");
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	assert_string_equal(t_text(tl, "SELECT phase FROM verdict"), "load_weights");
	s = t_text(tl, "SELECT advice FROM finding WHERE cause = 'weights_do_not_fit'");
	assert_non_null(strstr(s, "whisper.cpp"));
	assert_non_null(strstr(s, "quantized"));
	assert_null(strstr(s, "--n-gpu-layers"));
	assert_null(strstr(s, "--no-mmap"));
	r = t_render(tl, REPORT_MD, NULL);
	t_contains(r, "last stage line the program printed");
	t_lacks(r, "--n-gpu-layers");
	t_lacks(r, "Size the card");   /* host memory ran out: no card to size */
	free(r);
	t_close(tl);
}

static void dynet_pool_is_not_gpu_memory(void **state)
{
	struct timeline *tl = analyzed(ANY "d-dynet-cpp-lm-training-out-of-memory-dynet-mem-170mb/"
				       "01-abort.log");
	(void)state;

	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "pool_limit");
	for (int i = 0; i < 3; i++) {
		static const enum report_format fmt[] = { REPORT_MD, REPORT_TEXT, REPORT_HTML };
		char *r = t_render(tl, fmt[i], NULL);
		t_lacks(r, "ran out of GPU memory");
		t_contains(r, "sized at start-up by --dynet-mem");
		free(r);
	}
	t_close(tl);
}

static void ggml_context_pool_is_the_program_s_own(void **state)
{
	struct timeline *tl = analyzed(ANY "a-whispercpp-bench-mulmat-ggml-new-object-pool-regression/"
				       "01-bench.log");
	const char *s;
	char *r;
	(void)state;

	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "pool_limit");
	s = t_text(tl, "SELECT advice FROM finding WHERE cause = 'pool_limit'");
	assert_non_null(strstr(s, "mem_size"));
	assert_non_null(strstr(s, "rebuild"));
	r = t_render(tl, REPORT_MD, NULL);
	t_contains(r, "ggml context's memory pool");
	t_lacks(r, "ran out of host memory");
	t_lacks(r, "the card");
	free(r);
	t_close(tl);
}

static void phase_knobs_said_once(void **state)
{
	struct timeline *tl = analyzed(ANY "keras-tf2-fit-graph-execution-error-oom-bfc.log");
	char *r, *end;
	(void)state;

	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "phase_inferred");
	r = t_render(tl, REPORT_MD, NULL);
	end = strstr(r, "\n### ");   /* the first screen */
	if (end)
		*end = 0;
	t_contains(r, "Also, for this phase");
	assert_int_equal(count(r, "set_memory_growth"), 1);
	free(r);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whisper_cpp_gets_its_own_knobs),
		cmocka_unit_test(dynet_pool_is_not_gpu_memory),
		cmocka_unit_test(ggml_context_pool_is_the_program_s_own),
		cmocka_unit_test(phase_knobs_said_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
