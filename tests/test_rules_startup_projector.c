/*
 * test_rules_startup_projector.c -- the advice for a start-up OOM follows
 * which graph failed (startup_projector.c, issue 27). On real excerpts:
 *
 *  - llama-server build 8193 on a T4 (held-out set 10, spent): after the
 *    text model loaded, the multimodal projector's warm-up ("warmup:
 *    warmup with image size = 1472 x 1472", tools/mtmd/clip.cpp) failed
 *    to allocate its 4657.81 MiB compute buffer: the event says the
 *    projector's graph failed, and the advice names the projector's knobs
 *    (--no-mmproj-offload, --image-max-tokens), not the text context's
 *    --parallel or --batch-size; and since the log answers a chat
 *    completion 200 after the failure (line 273; its serving stage,
 *    "main: model loaded", is line 252: a request served is the stronger
 *    evidence, oom.survival, round 10), the finding says the server
 *    survived it, with that line, and not that the configuration never
 *    fitted;
 *  - llama.cpp's text model's compute buffer at a 150k context
 *    (ggml-org/llama.cpp PR 16748's log): no projector, today's advice
 *    (--ctx-size, --ubatch-size), none of the projector's knobs, and no
 *    word of surviving.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <string.h>

#define ANY "tests/data/real/any_stack/"

static struct timeline *analyzed(const char *rel)
{
	struct timeline *tl = t_open();

	assert_int_equal(t_parse_file(tl, rel), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

static void projector_warmup_names_the_projectors_knobs(void **state)
{
	struct timeline *tl = analyzed(ANY "c-llamacpp-server-t4-qwen3.5-9b-mmproj-warmup-cudamalloc-"
				       "nonfatal/01-llama-server.log");
	const char *s;

	(void)state;
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "warmup");
	assert_string_equal(t_text(tl, "SELECT json_extract(e.data, '$.graph') FROM oom o"
				   " JOIN event e ON e.id = o.event_id WHERE o.id = 1"), "projector");
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	s = t_text(tl, "SELECT advice FROM finding WHERE rule = 'startup'");
	assert_non_null(strstr(s, "multimodal projector's"));
	assert_non_null(strstr(s, "--no-mmproj-offload"));
	assert_non_null(strstr(s, "--image-max-tokens"));
	assert_null(strstr(s, "--parallel"));
	assert_null(strstr(s, "--batch-size"));
	assert_non_null(strstr(s, "The server survived this failure"));
	assert_null(strstr(s, "it never fitted"));
	assert_int_equal(t_int(tl, "SELECT json_extract(figures, '$.serving_from_line') FROM finding"
			       " WHERE rule = 'startup'"), 273);
	t_close(tl);
}

static void text_compute_buffer_keeps_its_advice(void **state)
{
	struct timeline *tl = analyzed(ANY "llamacpp-pr16748-pp-compute-buffer-ctx-150k-cuda0.log");
	const char *s;

	(void)state;
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "profile");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE json_valid(data) AND"
			       " json_extract(data, '$.graph') IS NOT NULL"), 0);
	s = t_text(tl, "SELECT advice FROM finding WHERE rule = 'startup'");
	assert_non_null(strstr(s, "--ctx-size"));
	assert_non_null(strstr(s, "--ubatch-size"));
	assert_null(strstr(s, "projector"));
	assert_null(strstr(s, "--no-mmproj-offload"));
	assert_null(strstr(s, "survived"));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE json_extract(figures,"
			       " '$.serving_from_line') IS NOT NULL"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(projector_warmup_names_the_projectors_knobs),
		cmocka_unit_test(text_compute_buffer_keeps_its_advice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
