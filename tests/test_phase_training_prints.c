/*
 * test_phase_training_prints.c -- a training run's phase read from what
 * it prints and from its script's name (set 14 spent, w-spend14c), on
 * real pastes now in tests/data/real/any_stack:
 *
 *  - a graph recommender's wandb output.log (MOERec): its DEBUG logging
 *    shows urllib3's line for each request the sentry client sent
 *    ('https://host:443 "POST /api/... HTTP/1.1" 200 2'); that is no
 *    request served (memfail_phase.c client_request), and its per-epoch
 *    "train loss = " print places the OOM at a training step. A server's
 *    own access line (the peer's address, no scheme) still serves;
 *  - nanoGPT's estimate_loss frame is eval even after the loop printed
 *    "step 0: train loss" (the frame row wins over the line);
 *  - nanoGPT's train.py <module> calling model(X, Y): with no print
 *    before it, the script's file name places the forward at a training
 *    step (frame_words.c); a script named for nothing leaves it unknown.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#define MOE "tests/data/real/any_stack/c-moe-gat-recsys-taobao-embed32-second-epoch-oom-9.78gib/01-output.log"
#define NANO64 "tests/data/real/any_stack/c-nanogpt-third-order-attention-batch64-estimate-loss-12gib-oom/01-output.log"
#define NANO16 "tests/data/real/any_stack/c-nanogpt-third-order-attention-batch16-train-forward-6gib-oom/01-output.log"

/* text with every "from" replaced by "to" (malloc'd, *n its length) */
static char *replaced(const char *text, const char *from, const char *to, size_t *n)
{
	size_t fl = strlen(from), tl = strlen(to), cap = strlen(text) * 2 + tl + 1, o = 0;
	const char *p = text, *at;
	char *out = malloc(cap);

	assert_non_null(out);
	assert_non_null(strstr(text, from));
	while ((at = strstr(p, from))) {
		assert_true(o + (size_t)(at - p) + tl < cap);
		memcpy(out + o, p, (size_t)(at - p));
		o += (size_t)(at - p);
		memcpy(out + o, to, tl);
		o += tl;
		p = at + fl;
	}
	assert_true(o + strlen(p) < cap);
	memcpy(out + o, p, strlen(p) + 1);
	*n = o + strlen(p);
	return out;
}

/* The first OOM's phase of paste path, from replaced by to (none when
 * from is NULL); phase_source checked when src is not NULL. */
static void expect(const char *path, const char *from, const char *to, const char *phase,
		   const char *src)
{
	struct timeline *tl = t_open();
	size_t n;
	char *text = t_slurp(path, &n), *edited;

	if (from) {
		edited = replaced(text, from, to, &n);
		free(text);
		text = edited;
	}
	assert_true(t_parse_mem(tl, "server_log", "output.log", text, n) > 0);
	assert_string_equal(t_first_phase(tl), phase);
	if (src)
		t_expect_oom(tl, phase, src, "(null)");
	free(text);
	t_close(tl);
}

#define SENTRY "https://o151352.ingest.sentry.io:443 \"POST"

static void client_request_is_not_served(void **state)
{
	(void)state;
	expect(MOE, NULL, NULL, "training_step", "stage_line");
}

static void server_access_line_still_serves(void **state)
{
	(void)state;
	expect(MOE, SENTRY, "10.0.0.7:51234 - \"POST", "serving", NULL);
}

static void estimate_loss_frame_wins_over_train_loss_print(void **state)
{
	(void)state;
	expect(NANO64, NULL, NULL, "eval", NULL);
	expect(NANO64, "Traceback (most recent call last):",
	       "step 0: train loss nan, val loss nan\nTraceback (most recent call last):", "eval",
	       NULL);
}

static void train_script_forward_is_training(void **state)
{
	(void)state;
	expect(NANO16, NULL, NULL, "training_step", NULL);
	expect(NANO16, "step 0: train loss nan, val loss nan", "step 0: done", "training_step",
	       "frame_names");
}

static void script_named_for_nothing_says_nothing(void **state)
{
	static const char *const from = "step 0: train loss nan, val loss nan";
	struct timeline *tl = t_open();
	size_t n, m;
	char *text = t_slurp(NANO16, &n), *a, *b;

	(void)state;
	a = replaced(text, from, "step 0: done", &m);
	b = replaced(a, "nanoGPT/train.py", "nanoGPT/main.py", &m);
	assert_true(t_parse_mem(tl, "server_log", "output.log", b, m) > 0);
	assert_string_equal(t_first_phase(tl), "unknown");
	free(text);
	free(a);
	free(b);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(client_request_is_not_served),
		cmocka_unit_test(server_access_line_still_serves),
		cmocka_unit_test(estimate_loss_frame_wins_over_train_loss_print),
		cmocka_unit_test(train_script_forward_is_training),
		cmocka_unit_test(script_named_for_nothing_says_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
