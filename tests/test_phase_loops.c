/*
 * test_phase_loops.c -- the serving and training loops of held-out set 6's
 * spent folders (round 7, w-spent6p: parsers/serving/phase_rows_loops.inc
 * and analyzer/derive/oom.c training_phase_sql), on the real excerpts now
 * in tests/data/real/any_stack:
 *
 *  - text-generation-webui's "Output generated in ..." printed after a
 *    failed generation places the OOM above it in serving;
 *  - vLLM's "Added request <id>." before the failure: a request served;
 *  - Tenstorrent's vLLM fork: _execute_model_single_step is a scheduled
 *    step; the same excerpt with the model's warm-up call in its place
 *    (an edge case: that call is the only change) is no served step, since
 *    "Prefilling User N" is printed by the warm-up too;
 *  - a training step placed by the progress bar and the trainer's knobs
 *    together, and not by the bar alone.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <stdlib.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"
#define WEBUI ANY "a-textgen-webui-rtx2070-generate-kv-cat-oom-20mib/01-describe.log"
#define MQLLM ANY "a-vllm-mqllmengine-dsr1-awq-tp8-long-prompt-oom-1.27gib/02-server.log"
#define GALAXY ANY "a-vllm-tenstorrent-galaxy-llama3.3-70b-prefill-dram-oom/01-ci.log"
#define BAICHUAN ANY "b-pytorch-baichuan-7b-lora-v100-32g-oom-step-8/"

static void webui_output_line_after_failure(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, WEBUI), 0);
	assert_string_equal(t_first_phase(tl), "serving");
	t_close(tl);
}

static void vllm_added_request_is_served(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, MQLLM), 0);
	assert_string_equal(t_first_phase(tl), "serving");
	t_close(tl);
}

/* text with every "from" replaced by "to" (malloc'd, *n its length) */
static char *replaced(const char *text, size_t len, const char *from, const char *to, size_t *n)
{
	size_t fl = strlen(from), tl = strlen(to), i = 0, j = 0, hits = 0;
	char *out = malloc(len * 2 + 1);

	assert_non_null(out);
	while (i < len)
		if (i + fl <= len && !memcmp(text + i, from, fl)) {
			memcpy(out + j, to, tl);
			j += tl, i += fl, hits++;
		} else {
			out[j++] = text[i++];
		}
	assert_true(hits > 0);
	*n = j;
	return out;
}

static void tt_step_served_warmup_not(void **state)
{
	struct timeline *tl = t_open();
	size_t n, m;
	char *text = t_slurp(GALAXY, &n), *edited;

	(void)state;
	assert_non_null(text);
	assert_true(t_parse_mem(tl, "server_log", "galaxy.log", text, n) > 0);
	assert_string_equal(t_first_phase(tl), "serving");
	t_close(tl);

	edited = replaced(text, n, "_execute_model_single_step", "warmup_model_prefill", &m);
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "warmup.log", edited, m) > 0);
	assert_string_not_equal(t_first_phase(tl), "serving");
	t_close(tl);
	free(edited);
	free(text);
}

static void training_step_by_bar_and_knobs(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, BAICHUAN "01-error.txt"), 0);
	assert_int_equal(t_parse_file(tl, BAICHUAN "02-command.sh"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "training_step");
	assert_string_equal(t_text(tl, "SELECT phase_source FROM oom WHERE id = 1"),
			    "train_progress");
	t_close(tl);

	/* the bar alone: a loop ran, which one nothing says */
	tl = t_open();
	assert_int_equal(t_parse_file(tl, BAICHUAN "01-error.txt"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "unknown");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(webui_output_line_after_failure),
		cmocka_unit_test(vllm_added_request_is_served),
		cmocka_unit_test(tt_step_served_warmup_not),
		cmocka_unit_test(training_step_by_bar_and_knobs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
