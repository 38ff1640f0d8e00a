/*
 * test_phase_startup6.c -- the start-up stages of round 6 (issue 27, the
 * start-up bar; parsers/serving/phase_rows_startup.inc) and the rule that
 * placed each phase (oom.phase_source).
 *
 *  - TurboMind's "gemm_config.in is not found" is printed as it builds a
 *    device's engine and KV cache (lmdeploy v0.2.0..v0.6.0
 *    LlamaTritonModel::createSharedModelInstance): the real excerpt of
 *    tests/data/real/any_stack (lmdeploy 2024-01) is placed in kv_alloc by
 *    that stage line;
 *  - a Hugging Face Trainer subclass being built ("trainer =
 *    PairwiseTrainer(", LLaMA-Factory's reward stage) moves the model to the
 *    card: load_weights, by the traceback's frames;
 *  - the structural rule: SGLang's start-up line (server_args=ServerArgs(,
 *    a real line of tests/data/real/plan/logs) before an OOM that nothing
 *    else places gives `startup`, placed by the start-up lines; the same
 *    start-up line printed after a stage line does not hide that stage;
 *    a stage line between them wins. These three are edge cases built from
 *    real lines (the start-up line, SGLang's "Load weight end" line of the
 *    same log and the one-line PyTorch OOM of the flux excerpt), put
 *    together in the order an engine prints them;
 *  - the oom row carries the rule (phase_source) and the report says it;
 *  - ComfyUI's error report names the node that failed: a loading node,
 *    custom ones included (TangoFluxLoader, the real excerpt of
 *    ComfyUI-TangoFlux issue 17), places the OOM in the weights' load by
 *    ComfyUI's naming convention (PM_LOADER); the same report under the
 *    sampler's name (an edge case: the name is the only change) does not.
 */
#include "testutil.h"
#include "analyzer/derive/oom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LMDEPLOY "tests/data/real/any_stack/lmdeploy-turbomind-cuda-runtime-oom-allocator.log"
#define TRAINER "tests/data/real/any_stack/llamafactory-rm-trainer-init-oom-136mib-other-processes.log"
#define SGLANG_LOG "tests/data/real/plan/logs/sglang-pr4826-0.4.4-gemma3-4b-h200.log"
#define FLUX_OOM "tests/data/real/any_stack/flux-10-streamlit-load-model-oom-126mib.log"
#define TANGOFLUX "tests/data/real/any_stack/comfyui-tangoflux-17-custom-loader-node-error-report.log"

/* The phase and the rule of the first OOM event of a parsed log. */
static void expect_event(struct timeline *tl, const char *phase, const char *by)
{
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.phase') FROM event WHERE kind"
				   " IN ('torch_oom', 'mem_failure') ORDER BY id LIMIT 1"), phase);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.phase_by') FROM event WHERE"
				   " kind IN ('torch_oom', 'mem_failure') ORDER BY id LIMIT 1"), by);
}

/* The line of the real file path that holds phrase, with its newline,
 * into a malloc'd string. */
static char *line_with(const char *path, const char *phrase)
{
	size_t n;
	char *text = t_slurp(path, &n), *at, *start, *end, *out;

	assert_non_null(text);
	at = strstr(text, phrase);
	assert_non_null(at);
	for (start = at; start > text && start[-1] != '\n'; start--)
		;
	end = strchr(at, '\n');
	if (!end)
		end = text + n;
	out = malloc((size_t)(end - start) + 2);
	assert_non_null(out);
	memcpy(out, start, (size_t)(end - start));
	out[end - start] = '\n';
	out[end - start + 1] = '\0';
	free(text);
	return out;
}

/* Parse the lines a, b, c (NULL: none) as one server log. */
static struct timeline *parse_lines(const char *a, const char *b, const char *c)
{
	struct timeline *tl = t_open();
	size_t n = strlen(a) + (b ? strlen(b) : 0) + (c ? strlen(c) : 0);
	char *text = malloc(n + 1);

	assert_non_null(text);
	snprintf(text, n + 1, "%s%s%s", a, b ? b : "", c ? c : "");
	assert_true(t_parse_mem(tl, "server_log", "startup.log", text, n) > 0);
	free(text);
	return tl;
}

static void turbomind_gemm_config_line_is_the_kv_stage(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_file_as(tl, "server_log", LMDEPLOY) > 0);
	expect_event(tl, "kv_alloc", "stage_line");
	/* the oom row keeps the rule, for every report */
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase || ' ' || phase_source FROM oom WHERE id = 1"),
			    "kv_alloc stage_line");
	t_close(tl);
}

static void trainer_construction_is_the_load(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_file_as(tl, "server_log", TRAINER) > 0);
	expect_event(tl, "load_weights", "frames");
	t_close(tl);
}

static void startup_line_alone_places_startup(void **state)
{
	char *start = line_with(SGLANG_LOG, "server_args=ServerArgs("), *oom = line_with(FLUX_OOM,
										    "OutOfMemoryError");
	struct timeline *tl;

	(void)state;
	/* with no line before it the OOM is unplaced */
	tl = parse_lines(oom, NULL, NULL);
	assert_string_equal(t_text(tl, "SELECT coalesce(json_extract(data, '$.phase'), 'unknown')"
				   " FROM event WHERE kind = 'torch_oom'"), "unknown");
	t_close(tl);
	/* after the engine's start-up line: start-up, by the structural rule */
	tl = parse_lines(start, oom, NULL);
	expect_event(tl, "startup", "startup_lines");
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase_source FROM oom WHERE id = 1"),
			    "startup_lines");
	t_close(tl);
	free(start);
	free(oom);
}

static void startup_line_never_hides_a_stage(void **state)
{
	char *start = line_with(SGLANG_LOG, "server_args=ServerArgs("),
	     *stage = line_with(SGLANG_LOG, "Load weight end"),
	     *oom = line_with(FLUX_OOM, "OutOfMemoryError");
	struct timeline *tl;

	(void)state;
	/* the stage line after the start-up line names the stage */
	tl = parse_lines(start, stage, oom);
	expect_event(tl, "kv_alloc", "stage_line");
	t_close(tl);
	/* a start-up line after it (a second process starting) keeps it */
	tl = parse_lines(stage, start, oom);
	expect_event(tl, "kv_alloc", "stage_line");
	t_close(tl);
	free(start);
	free(stage);
	free(oom);
}

static void comfyui_custom_loader_node_is_a_load(void **state)
{
	static const char node[] = "TangoFluxLoader";
	size_t n;
	char *text = t_slurp(TANGOFLUX, &n), *at, *edited;
	struct timeline *tl = t_open();

	(void)state;
	assert_non_null(text);
	assert_true(t_parse_mem(tl, "server_log", TANGOFLUX, text, n) > 0);
	expect_event(tl, "load_weights", "frames");
	t_close(tl);
	/* the same report under the sampler's node: the prompt's sampling,
	 * serving (set 17 spent, w-spend17b: ComfyUI's sampler nodes) */
	at = strstr(text, node);
	assert_non_null(at);
	edited = malloc(n + 1);
	assert_non_null(edited);
	memcpy(edited, text, (size_t)(at - text));
	memcpy(edited + (at - text), "KSampler", 8);
	memcpy(edited + (at - text) + 8, at + sizeof(node) - 1, n - (size_t)(at - text) - (sizeof(node) - 1));
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "ksampler.log", edited,
				n - (sizeof(node) - 1) + 8) > 0);
	assert_string_equal(t_text(tl, "SELECT coalesce(json_extract(data, '$.phase'), 'unknown')"
				   " FROM event WHERE kind IN ('torch_oom', 'mem_failure') ORDER BY id"
				   " LIMIT 1"), "serving");
	t_close(tl);
	free(edited);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(turbomind_gemm_config_line_is_the_kv_stage),
		cmocka_unit_test(trainer_construction_is_the_load),
		cmocka_unit_test(startup_line_alone_places_startup),
		cmocka_unit_test(startup_line_never_hides_a_stage),
		cmocka_unit_test(comfyui_custom_loader_node_is_a_load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
