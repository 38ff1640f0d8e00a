/*
 * test_phase_tbhead.c -- frames that place a failure when they are not a
 * whole traceback above it (issue 27, round 8, w-tbhead): a traceback
 * pasted without its "Traceback (most recent call last):" line is read
 * frame by frame, and the frame noted stays in reach of the failure
 * line below the run of frames however long the run (a traceback with
 * its header is read whole); vLLM V0's engine process logs the OOM's
 * text first and its traceback after it (run_mp_engine's
 * logger.exception), whose frames place the OOM unless that traceback
 * ends in another, different error.
 *
 * The positive cases are real excerpts under tests/data/real/any_stack
 * (MANIFEST.tsv gives each thread); the bounds are shown on those
 * excerpts with lines added, built here: the long run repeats a real
 * frame pair of another real vLLM paste (a deeper stack, for scale).
 */
#include "testutil.h"
#include "parsers/serving/server_memfail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REAL "tests/data/real/any_stack/"
/* llm2vec#52: frames through from_pretrained, then "RuntimeError: CUDA
 * error: out of memory"; no header */
#define HEADLESS REAL "transformers-from-pretrained-meta-model-accelerate-cuda-error-oom.log"
/* dynamo#479: the OOM's text, then its traceback (ERROR prefix), then the
 * raw traceback's frames down to _initialize_model and make_layers */
#define MP_ENGINE REAL "g8-dynamo-010-vllm-disagg-tp4-a100-40g-oom-70mib-load.log"

/* A frame pair of vLLM's (g8-dynamo-010, compilation/decorators.py) that
 * names no phase. */
static const char pair[] =
	"  File \"/opt/dynamo/venv/lib/python3.12/site-packages/vllm/compilation/decorators.py\", "
	"line 151, in __init__\n"
	"    old_init(self, vllm_config=vllm_config, prefix=prefix, **kwargs)\n";

static struct timeline *parse(const char *name, const char *text, size_t n)
{
	struct timeline *tl = t_open();

	assert_true(t_parse_mem(tl, "server_log", name, text, n) > 0);
	return tl;
}

/* count copies of s, as a new string */
static char *repeat(const char *s, int count)
{
	size_t k = strlen(s);
	char *out = malloc(k * (size_t)count + 1);
	int i;

	assert_non_null(out);
	for (i = 0; i < count; i++)
		memcpy(out + k * (size_t)i, s, k);
	out[k * (size_t)count] = '\0';
	return out;
}

static const char *phase_of(const char *rel, const char *text, size_t n, struct timeline **tl)
{
	*tl = parse(rel, text, n);
	return t_first_phase(*tl);
}

/* The headerless paste as it is: its frames place the failure. */
static void headless_frames_place(void **state)
{
	size_t n;
	char *text = t_slurp(HEADLESS, &n);
	struct timeline *tl;

	(void)state;
	assert_string_equal(phase_of(HEADLESS, text, n, &tl), "load_weights");
	free(text);
	t_close(tl);
}

/* 30 more frame pairs (60 lines, past SRV_MEM_FRAMES) between the last
 * frame that names the phase and the failure line: the run is unbroken,
 * so the frames still place it, as a traceback with its header would. */
static void long_headless_run_places(void **state)
{
	size_t n;
	char *more = repeat(pair, 30);
	char *text = t_slurp_with_line(HEADLESS, 12, more, &n);
	struct timeline *tl;

	(void)state;
	free(more);
	assert_string_equal(phase_of(HEADLESS, text, n, &tl), "load_weights");
	free(text);
	t_close(tl);
}

/* The same distance made of lines that are no frames (a reporter's
 * prose): the frames above are out of reach. What places the failure
 * then is the excerpt's "Loading checkpoint shards" bar among the frames
 * (a stage line, round 14 w-startup15), not the frames. */
static void broken_run_bounded(void **state)
{
	size_t n;
	char *more = repeat("and then it printed this\n", 60);
	char *text = t_slurp_with_line(HEADLESS, 12, more, &n);
	struct timeline *tl;

	(void)state;
	free(more);
	phase_of(HEADLESS, text, n, &tl);
	assert_string_not_equal(t_text(tl, "SELECT json_extract(data, '$.phase_by') FROM event WHERE"
				       " kind IN ('torch_oom', 'mem_failure') ORDER BY id LIMIT 1"),
				"frames");
	free(text);
	t_close(tl);
}

/* vLLM V0's mp engine: the OOM first, its traceback after it; the frames
 * (_initialize_model, make_layers) place it while the weights load. */
static void oom_then_its_traceback(void **state)
{
	size_t n;
	char *text = t_slurp(MP_ENGINE, &n);
	struct timeline *tl;

	(void)state;
	assert_string_equal(phase_of(MP_ENGINE, text, n, &tl), "load_weights");
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.phase_by') FROM event"
				   " WHERE kind = 'torch_oom' ORDER BY id LIMIT 1"), "frames");
	free(text);
	t_close(tl);
}

/* The traceback below ends in another error: a later, different
 * failure's, whose frames do not place the OOM. */
static void later_other_failure_not_taken(void **state)
{
	size_t n;
	char *text = t_slurp_with_line(MP_ENGINE, 1000, "ValueError: invalid literal for int() with base 10\n",
			       &n);
	struct timeline *tl;

	(void)state;
	assert_string_equal(phase_of(MP_ENGINE, text, n, &tl), "unknown");
	free(text);
	t_close(tl);
}

/* The frame-run check is armed inside a run only (round 9, w-hotpath;
 * read_line calls srv_mem_frame_run while m.frame_armed): a frame noted
 * arms it, the run's frame and source lines keep it, a line within the
 * gap below the run keeps it, the first line past the gap disarms it and
 * leaves the run's end where it was, the next frame noted re-arms it.
 * The lines are the real frame pair above and a real vLLM statistics
 * line (tests/data/real/serving). */
static void run_armed_inside_only(void **state)
{
	static const char other[] = "(APIServer pid=1) INFO 10-14 17:07:38 [loggers.py:123] "
				    "Engine 000: Avg prompt throughput: 0.0 tokens/s";
	const char *src = strchr(pair, '\n') + 1;
	size_t file_n = (size_t)(src - pair) - 1, src_n = strlen(src) - 1;
	struct srv_mem m;

	(void)state;
	srv_mem_init(&m);
	assert_int_equal(m.frame_armed, 0);
	srv_mem_frame(&m, OOM_PHASE_LOAD_WEIGHTS, 3, 10);
	assert_int_equal(m.frame_armed, 1);
	srv_mem_frame_run(&m, src, src_n, 11);            /* the frame's source */
	srv_mem_frame_run(&m, pair, file_n, 12);          /* the next frame */
	srv_mem_frame_run(&m, src, src_n, 13);
	assert_int_equal(srv_mem_frame_end(&m), 13);
	assert_int_equal(m.frame_armed, 1);
	srv_mem_frame_run(&m, other, strlen(other), 15);  /* within the gap */
	assert_int_equal(m.frame_armed, 1);
	srv_mem_frame_run(&m, other, strlen(other), 16);  /* past it */
	assert_int_equal(m.frame_armed, 0);
	assert_int_equal(srv_mem_frame_end(&m), 13);
	srv_mem_frame(&m, OOM_PHASE_LOAD_WEIGHTS, 3, 30);
	assert_int_equal(m.frame_armed, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(headless_frames_place),
		cmocka_unit_test(long_headless_run_places),
		cmocka_unit_test(broken_run_bounded),
		cmocka_unit_test(oom_then_its_traceback),
		cmocka_unit_test(later_other_failure_not_taken),
		cmocka_unit_test(run_armed_inside_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
