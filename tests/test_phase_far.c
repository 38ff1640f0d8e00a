/*
 * test_phase_far.c -- the phase of a memory failure named by lines that
 * are not next to it (issue 27, round 5): a traceback pasted further
 * below the error than the usual follow window (the error first, the
 * reporter's prose, then the traceback), joined only when nothing else
 * comes between; a handler's line printed after the error naming the
 * stage that failed (stable-diffusion-webui's "Stable diffusion model
 * failed to load"); MLC-LLM's and TVM's own frames and words
 * (phase_table.c, learnt from mlc-llm's chat_module.py and cpp/serve).
 *
 * The positive cases are the real excerpts under tests/data/real/any_stack
 * (MANIFEST.tsv gives each thread); the negative cases are those
 * excerpts with one line changed or moved, built here so that each
 * bound can be seen to hold.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REAL "tests/data/real/any_stack/"
#define FAR_LOG REAL "mlcllm-chatmodule-reload-tvm-cuda-oom-traceback-far-below.log"
#define A1111_LOG REAL "a1111-load-model-oom-failed-to-load-below.log"

/* Parse text[0..n) as a server log into a new timeline. */
static struct timeline *parse(const char *name, const char *text, size_t n)
{
	struct timeline *tl = t_open();

	assert_true(t_parse_mem(tl, "server_log", name, text, n) > 0);
	return tl;
}

/* The TVM error is the post's first line; the traceback through
 * ChatModule._reload starts 11 lines later, after prose. */
static void far_traceback_joins(void **state)
{
	size_t n;
	char *text = t_slurp(FAR_LOG, &n);
	struct timeline *tl = parse(FAR_LOG, text, n);

	(void)state;
	free(text);
	assert_string_equal(t_first_phase(tl), "load_weights");
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.family') FROM event"
				   " WHERE kind = 'mem_failure' ORDER BY id LIMIT 1"), "mlc");
	t_close(tl);
}

/* Another exception between the error and the traceback: the traceback
 * may be that one's, so the failure stays unplaced. */
static void far_traceback_not_across_another_error(void **state)
{
	size_t n;
	char *text = t_slurp_with_line(FAR_LOG, 5, "ValueError: invalid literal for int() with base 10\n", &n);
	struct timeline *tl = parse(FAR_LOG, text, n);

	(void)state;
	free(text);
	assert_string_equal(t_first_phase(tl), "unknown");
	t_close(tl);
}

/* The same traceback further than SRV_MEM_FAR lines below: no join. */
static void far_traceback_bounded(void **state)
{
	char pad[40 * 14 + 1];
	size_t n, i;
	char *text;
	struct timeline *tl;

	(void)state;
	for (i = 0; i < 40; i++)
		memcpy(pad + i * 14, "more prose ..\n", 14);
	pad[sizeof(pad) - 1] = '\0';
	text = t_slurp_with_line(FAR_LOG, 5, pad, &n);
	tl = parse(FAR_LOG, text, n);
	free(text);
	assert_string_equal(t_first_phase(tl), "unknown");
	t_close(tl);
}

/* The webui's handler names the stage below the OOM's traceback. */
static void stage_failed_below_places(void **state)
{
	size_t n;
	char *text = t_slurp(A1111_LOG, &n);
	struct timeline *tl = parse(A1111_LOG, text, n);

	(void)state;
	free(text);
	assert_string_equal(t_first_phase(tl), "load_weights");
	t_close(tl);
}

/* The handler's line more than SRV_MEM_REPEAT lines below is another
 * failure's, not this one's. */
static void stage_failed_below_bounded(void **state)
{
	size_t n;
	char *text = t_slurp_with_line(A1111_LOG, 8, "\n\n\n\n\n\n\n\n\n\n\n\n", &n);
	struct timeline *tl = parse(A1111_LOG, text, n);

	(void)state;
	free(text);
	assert_string_equal(t_first_phase(tl), "unknown");
	t_close(tl);
}

/* InvokeAI's session stats, logged when the failed session ends, place
 * the OOM above them in that session: a served request. */
static void session_stats_below_is_serving(void **state)
{
	static const char rel[] = REAL "rocm-invokeai-sdxl-conv2d-hip-oom-graph-stats-below.log";
	size_t n;
	char *text = t_slurp(rel, &n);
	struct timeline *tl = parse(rel, text, n);

	(void)state;
	free(text);
	assert_string_equal(t_first_phase(tl), "serving");
	t_close(tl);
}

/* TVM's parameter loader wraps the OOM: the load, from the line itself. */
static void tvm_load_params_is_a_load(void **state)
{
	static const char rel[] = REAL "mlcllm-phi2-tvm-load-params-shard-cuda-oom.log";
	size_t n;
	char *text = t_slurp(rel, &n);
	struct timeline *tl = parse(rel, text, n);

	(void)state;
	free(text);
	assert_string_equal(t_first_phase(tl), "load_weights");
	t_close(tl);
}

/* A chat turn: ChatModule.generate -> _prefill -> self._prefill_func ->
 * LLMChat::PrefillStep (mlc-llm issue 1327's frames, with the TVM
 * storage failure its title quotes as the exception line). */
static void mlc_prefill_is_serving(void **state)
{
	static const char turn[] =
		"Traceback (most recent call last):\n"
		"  File \"chats.py\", line 5, in <module>\n"
		"    output = cm.generate(\n"
		"  File \"/usr/local/miniconda3/lib/python3.8/site-packages/mlc_chat/chat_module.py\","
		" line 775, in generate\n"
		"    self._prefill(prompt, generation_config=generation_config)\n"
		"  File \"/usr/local/miniconda3/lib/python3.8/site-packages/mlc_chat/chat_module.py\","
		" line 992, in _prefill\n"
		"    self._prefill_func(\n"
		"  File \"/workspace/mlc-llm/cpp/llm_chat.cc\", line 858, in"
		" mlc::llm::LLMChat::PrefillStep(std::string)\n"
		"InternalError: Check failed: (offset + needed_size <= this->buffer.size) is false:"
		" storage allocation failure, attempted to allocate 221184 at offset 0 in region that"
		" is 163840bytes\n";
	struct timeline *tl = parse("turn.log", turn, sizeof(turn) - 1);

	(void)state;
	assert_string_equal(t_first_phase(tl), "serving");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(far_traceback_joins),
		cmocka_unit_test(far_traceback_not_across_another_error),
		cmocka_unit_test(far_traceback_bounded),
		cmocka_unit_test(stage_failed_below_places),
		cmocka_unit_test(stage_failed_below_bounded),
		cmocka_unit_test(session_stats_below_is_serving),
		cmocka_unit_test(tvm_load_params_is_a_load),
		cmocka_unit_test(mlc_prefill_is_serving),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
