/*
 * test_phase_round8.c -- round 8's rows of the phase table
 * (parsers/serving/phase_rows_training.inc and phase_rows_apps.inc; the
 * other stacks at their newest versions) on the real
 * excerpts of tests/data/real/any_stack that taught them:
 *
 *  - lit-gpt's "iter N step M: loss X, iter time: Yms" before an OOM
 *    places it in a training step; the same paste without its iteration
 *    line (an edge case: one line dropped) names no phase;
 *  - ComfyUI's "ERROR lora diffusion_model.<key> ..." (comfy/lora.py
 *    calculate_weight) is a LoRA merged into a model being loaded: with
 *    the debug log's "loaded completely" of another model and its
 *    "Requested to load" lines dropped (an edge case: the ERROR line is
 *    then the only one naming a phase), the failure is the load's; as
 *    pasted too (round 8, w-comfyserved: "loaded completely" ends a
 *    load, it marks no prompt served; the Flux model's "Requested to
 *    load" after it is the load that failed, test_phase_comfyserved.c).
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"
#define LITGPT ANY "litgpt-adapter-fsdp-3090-oom-8.06gib-one-vs-two-gpus/01-one-gpu.log"
#define COMFY ANY "comfyui-flux-lora-cn-3090-high-vram-lora-patch-exceeds-allowed/02-debug.log"

/* The text of relpath without its lines holding drop or drop2 (NULL for
 * none); *n its length. Fails the test when no line held drop. The
 * caller frees the text. */
static char *without_lines(const char *relpath, const char *drop, const char *drop2, size_t *n)
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
		else if (!drop2 || !strstr(line, drop2)) {
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

static void litgpt_iteration_line_is_a_training_step(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, LITGPT), 0);
	assert_string_equal(t_first_phase(tl), "training_step");
	t_close(tl);
}

static void litgpt_without_its_iteration_line_names_no_step(void **state)
{
	size_t n;
	char *text = without_lines(LITGPT, "iter time:", NULL, &n);
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_mem(tl, "server_log", "litgpt.log", text, n) > 0);
	assert_string_not_equal(t_first_phase(tl), "training_step");
	t_close(tl);
	free(text);
}

static void comfyui_lora_merge_is_the_load(void **state)
{
	size_t n;
	char *text = without_lines(COMFY, "loaded completely", "Requested to load ", &n);
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_mem(tl, "server_log", "comfy.log", text, n) > 0);
	assert_string_equal(t_first_phase(tl), "load_weights");
	t_close(tl);
	free(text);
}

static void comfyui_lora_merge_after_another_load_is_the_load(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, COMFY), 0);
	assert_string_equal(t_first_phase(tl), "load_weights");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(litgpt_iteration_line_is_a_training_step),
		cmocka_unit_test(litgpt_without_its_iteration_line_names_no_step),
		cmocka_unit_test(comfyui_lora_merge_is_the_load),
		cmocka_unit_test(comfyui_lora_merge_after_another_load_is_the_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
