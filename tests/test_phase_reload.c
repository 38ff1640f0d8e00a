/*
 * test_phase_reload.c -- a model's load placed by what the program had
 * done (round 14, w-startup15, parsers/serving/phase_table.h PM_RELOAD):
 * a line that says a model is built or its weights read from files
 * begins that model's load, after a served request too (a reload in the
 * same process), and a failure before any sign of work after it is
 * load_weights; frames whose names say the program ran past the load
 * still place the failure.
 *
 * The reload is the real excerpt of ComfyUI-nunchaku issue 34
 * (tests/data/real/any_stack/d-comfyui-nunchaku-flux-reload-on-cache-
 * threshold-change-oom-4090, moved from incoming in round 15: the served
 * prompt before the load is what rule reload reads): "Prompt executed
 * in", then a new FLUX transformer's "Loading weights from
 * ...safetensors" and the CUDA OOM. The guard is
 * ComfyUI issue 11331 (tuning set): a second prompt's "Requested to
 * load" moves a model the process holds onto the card, no load from
 * files, and stays serving. The shard loader's case is the real excerpt
 * of transformers' from_pretrained under accelerate (tuning set) cut to
 * its bar and its error (an edge case: the frames are the only change),
 * and the same with a frame of model.generate between them. candle's
 * is the real output of its falcon example (tuning set) cut to its first
 * two lines, "retrieved the files in" and the error (the backtrace is
 * the only change: RUST_BACKTRACE unset), and the same with the
 * example's "loaded the model in" between them. llama.cpp's is made of
 * two real excerpts (tuning set): llama-server's lines 250-272 of
 * c-llamacpp-server-t4-qwen3.5-9b-... (a request served, "all slots are
 * idle"), then the Adreno run's model load from its "llama_model_loader:
 * loaded meta data" on and its buffer failure, as a model loaded on
 * demand in a process that served would print them.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#define NUNCHAKU                                                                  \
	"tests/data/real/any_stack/d-comfyui-nunchaku-flux-reload-on-cache-"      \
	"threshold-change-oom-4090/01-comfyui-log.txt"
#define COMFY_SECOND "tests/data/real/any_stack/comfyui-second-prompt-flux2-te-load-cuda-error-oom.log"
#define CANDLE "tests/data/real/any_stack/a-candle-falcon-example-cuda-oom-weight-load/01-output.txt"
#define SERVED "tests/data/real/any_stack/c-llamacpp-server-t4-qwen3.5-9b-mmproj-warmup-cudamalloc-nonfatal/01-llama-server.log"
#define ADRENO "tests/data/real/any_stack/llamacpp-opencl-adreno-poco-x3-ngl-23-buffer-alloc-fail/"
#define SHARDS "tests/data/real/any_stack/transformers-from-pretrained-meta-model-accelerate-cuda-error-oom.log"

/* Parse text[0..n) as a server log named name; the phase of its first OOM
 * is compared with want. */
static void expect_phase(const char *name, const char *text, size_t n, const char *want)
{
	struct timeline *tl = t_open();

	assert_true(t_parse_mem(tl, "server_log", name, text, n) > 0);
	assert_string_equal(t_first_phase(tl), want);
	t_close(tl);
}

static void expect_file_phase(const char *path, const char *want)
{
	size_t n;
	char *text = t_slurp(path, &n);

	expect_phase(path, text, n, want);
	free(text);
}

static void new_model_after_a_served_prompt_is_a_load(void **state)
{
	(void)state;
	expect_file_phase(NUNCHAKU, "load_weights");
}

static void held_model_moved_for_a_prompt_is_serving(void **state)
{
	(void)state;
	expect_file_phase(COMFY_SECOND, "serving");
}

/* The excerpt's line 8 (the shard bar) and lines 12-13 (the error), with
 * between them the lines mid[] (NULL: none). */
static void expect_shards(const char *mid, const char *want)
{
	size_t n, k, out = 0;
	char *text = t_slurp(SHARDS, &n), *buf = malloc(n + 256), *p = text, *nl;
	int line = 1;

	assert_non_null(buf);
	while ((size_t)(p - text) < n) {
		nl = memchr(p, '\n', n - (size_t)(p - text));
		k = nl ? (size_t)(nl - p) + 1 : n - (size_t)(p - text);
		if (line == 8 || line == 12 || line == 13) {
			memcpy(buf + out, p, k);
			out += k;
		}
		if (line == 8 && mid) {
			memcpy(buf + out, mid, strlen(mid));
			out += strlen(mid);
		}
		p += k;
		line++;
	}
	assert_true(out > 0 && !memcmp(buf, "Loading checkpoint shards", 25));
	expect_phase("shards.log", buf, out, want);
	free(buf);
	free(text);
}

static void failure_under_the_shard_bar_is_a_load(void **state)
{
	(void)state;
	expect_shards(NULL, "load_weights");
}

static void generate_frame_after_the_bar_is_no_load(void **state)
{
	(void)state;
	expect_shards("Traceback (most recent call last):\n"
		      "  File \"/home/u/run.py\", line 12, in <module>\n"
		      "    outputs = model.generate(**inputs, max_new_tokens=512)\n",
		      "serving");
}

/* The candle excerpt's first line, mid (NULL: nothing), its second. */
static void expect_candle(const char *mid, const char *want)
{
	size_t n, first, second;
	char *text = t_slurp(CANDLE, &n), *buf = malloc(n + 64), *nl, *nl2;

	assert_non_null(buf);
	nl = memchr(text, '\n', n);
	assert_non_null(nl);
	first = (size_t)(nl - text) + 1;
	nl2 = memchr(nl + 1, '\n', n - first);
	assert_non_null(nl2);
	second = (size_t)(nl2 - nl);
	memcpy(buf, text, first);
	if (mid) {
		memcpy(buf + first, mid, strlen(mid));
		first += strlen(mid);
	}
	memcpy(buf + first, nl + 1, second);
	assert_true(!memcmp(buf, "retrieved the files in", 22));
	expect_phase("candle.txt", buf, first + second, want);
	free(buf);
	free(text);
}

static void candle_error_after_the_files_is_a_load(void **state)
{
	(void)state;
	expect_candle(NULL, "load_weights");
}

static void candle_error_after_the_model_is_no_load(void **state)
{
	(void)state;
	expect_candle("loaded the model in 12.5s\n", "serving");
}

/* Append lines from..to (1-based, inclusive; 0 to: the end) of path to
 * buf at *out (room for the whole file given). */
static void put_lines(const char *path, int from, int to, char *buf, size_t *out)
{
	size_t n, k;
	char *text = t_slurp(path, &n), *p = text, *nl;
	int line = 1;

	while ((size_t)(p - text) < n) {
		nl = memchr(p, '\n', n - (size_t)(p - text));
		k = nl ? (size_t)(nl - p) + 1 : n - (size_t)(p - text);
		if (line >= from && (!to || line <= to)) {
			memcpy(buf + *out, p, k);
			*out += k;
		}
		p += k;
		line++;
	}
	free(text);
}

static void llamacpp_model_loaded_after_serving_is_a_load(void **state)
{
	char *buf = malloc(1 << 20);
	size_t out = 0;

	(void)state;
	assert_non_null(buf);
	put_lines(SERVED, 250, 272, buf, &out);
	put_lines(ADRENO "02-run.log", 9, 0, buf, &out);
	put_lines(ADRENO "01-error.txt", 1, 0, buf, &out);
	expect_phase("reload.log", buf, out, "load_weights");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(new_model_after_a_served_prompt_is_a_load),
		cmocka_unit_test(held_model_moved_for_a_prompt_is_serving),
		cmocka_unit_test(failure_under_the_shard_bar_is_a_load),
		cmocka_unit_test(generate_frame_after_the_bar_is_no_load),
		cmocka_unit_test(candle_error_after_the_files_is_a_load),
		cmocka_unit_test(candle_error_after_the_model_is_no_load),
		cmocka_unit_test(llamacpp_model_loaded_after_serving_is_a_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
