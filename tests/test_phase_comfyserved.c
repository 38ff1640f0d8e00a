/*
 * test_phase_comfyserved.c -- what marks a ComfyUI prompt as served
 * (round 8, w-comfyserved; parsers/serving/phase_rows_apps.inc, PM_RUNS
 * in phase_table.h), on the real pastes of tests/data/real/any_stack:
 *
 *  - main.py prompt_worker's "Prompt executed in N seconds" ends a
 *    prompt: a failure after it is a later prompt's, serving, its model
 *    loads included (ComfyUI #11331); the same paste without that line
 *    (an edge case: one line dropped) is a failure in a load, with no
 *    prompt known served;
 *  - "loaded completely" ends a model's load and the node then runs on
 *    the prompt's inputs: a failure right after it is the node's
 *    (serving, placed by that line, no request served: ComfyUI #7004's
 *    VAE decode on IPEX), while a "Requested to load" after it starts
 *    another load (#4894, test_phase_round8.c);
 *  - "Prompt executed in" printed after a failed prompt does not move
 *    that failure out of the phase its traceback names (ComfyUI #6222:
 *    ModelPatcher.load).
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"
#define SECOND ANY "comfyui-second-prompt-flux2-te-load-cuda-error-oom.log"
#define IPEX ANY "xpu-ipex-comfyui-4gb-block-limit.log"
#define GGUF ANY "comfyui-gguf-model-patcher-load-to-device-allocation-on-device.log"

/* The text of relpath without its lines holding drop; *n its length.
 * Fails the test when no line held drop. The caller frees the text. */
static char *without_line(const char *relpath, const char *drop, size_t *n)
{
	size_t len, i = 0, j = 0, hits = 0;
	char *text = t_slurp(relpath, &len), *out = malloc(len + 1);

	assert_non_null(out);
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t k = nl ? (size_t)(nl - (text + i)) + 1 : len - i;
		char *line = strndup(text + i, k);

		assert_non_null(line);
		if (strstr(line, drop))
			hits++;
		else {
			memcpy(out + j, text + i, k);
			j += k;
		}
		free(line);
		i += k;
	}
	assert_true(hits > 0);
	free(text);
	*n = j;
	return out;
}

/* The first failure event's phase_by (server_memfail.c), "(null)" if none. */
static const char *first_phase_by(struct timeline *tl)
{
	return t_text(tl, "SELECT json_extract(data, '$.phase_by') FROM event WHERE kind IN"
		      " ('torch_oom', 'mem_failure') ORDER BY id LIMIT 1");
}

static void second_prompt_after_prompt_executed_is_serving(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, SECOND), 0);
	assert_string_equal(t_first_phase(tl), "serving");
	t_close(tl);
}

static void without_prompt_executed_the_load_is_the_phase(void **state)
{
	size_t n;
	char *text = without_line(SECOND, "Prompt executed in ", &n);
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_mem(tl, "server_log", "comfy.log", text, n) > 0);
	assert_string_equal(t_first_phase(tl), "load_weights");
	t_close(tl);
	free(text);
}

static void failure_after_loaded_completely_is_the_node_running(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, IPEX), 0);
	assert_string_equal(t_first_phase(tl), "serving");
	assert_string_not_equal(first_phase_by(tl), "request_served");
	t_close(tl);
}

static void prompt_executed_below_a_failure_keeps_its_phase(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, GGUF), 0);
	assert_string_equal(t_first_phase(tl), "load_weights");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(second_prompt_after_prompt_executed_is_serving),
		cmocka_unit_test(without_prompt_executed_the_load_is_the_phase),
		cmocka_unit_test(failure_after_loaded_completely_is_the_node_running),
		cmocka_unit_test(prompt_executed_below_a_failure_keeps_its_phase),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
