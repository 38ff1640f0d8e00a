/*
 * test_rules_reload.c -- a model load that failed after the same process
 * had served (analyzer/rules/reload.c), and startup.c's deferring to it.
 *
 * On the real paste of ComfyUI-nunchaku #34 (round 15, moved from
 * incoming): ComfyUI's "Prompt executed in 4.01 seconds", then the
 * loader's "Loading weights from ..." failing with CUDA's out of memory,
 * no restart between: a reload, not a start-up, so a leak, likely, with
 * the other reading (a larger model) said. The same paste without its
 * first line (no prompt served before the load) stays the phase's
 * misconfiguration; with a new server process started between the
 * served prompt and the load, the load is a fresh start-up again.
 */
#include "testutil.h"
#include "testutil_rules.h"
#include "analyzer/rules/rules.h"

#include <stdlib.h>
#include <string.h>

#define NUNCHAKU "tests/data/real/any_stack/" \
	"d-comfyui-nunchaku-flux-reload-on-cache-threshold-change-oom-4090/01-comfyui-log.txt"

static void load_after_served_prompt_is_reload(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, NUNCHAKU), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "load_weights");
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "reload_after_serving");
	assert_float_equal(t_figure(tl, "reload_after_serving", "served_before"), 1.0, 1e-9);
	assert_float_equal(t_figure(tl, "reload_after_serving", "last_served_line"), 1.0, 1e-9);
	/* the ambiguity is said, and startup no longer claims "before any request" */
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE rule = 'reload'"),
			       "unless a larger model"));
	assert_null(strstr(t_text(tl, "SELECT title FROM finding WHERE rule = 'startup'"),
			   "before any request"));
	assert_true(t_real(tl, "SELECT score FROM finding WHERE rule = 'startup'") < 0.5);
	assert_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE rule = 'startup'"),
			   "it never fitted"));
	t_close(tl);
}

static void load_with_nothing_served_stays_startup(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *text = t_slurp(NUNCHAKU, &n);
	const char *rest = strchr(text, '\n') + 1;   /* drop "Prompt executed in" */
	(void)state;

	assert_true(t_parse_mem(tl, "server_log", "01-comfyui-log.txt", rest,
				n - (size_t)(rest - text)) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "reload_after_serving"), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	free(text);
	t_close(tl);
}

static void restart_between_is_a_fresh_start(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	/* uvicorn's start line: a new server process (server_answers.h) */
	char *text = t_slurp_with_line(NUNCHAKU, 2, "INFO:     Started server process [4312]\n", &n);
	(void)state;

	assert_true(t_parse_mem(tl, "server_log", "01-comfyui-log.txt", text, n) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "reload_after_serving"), 0);
	free(text);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(load_after_served_prompt_is_reload),
		cmocka_unit_test(load_with_nothing_served_stays_startup),
		cmocka_unit_test(restart_between_is_a_fresh_start),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
