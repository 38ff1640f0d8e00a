/*
 * test_frame_words.c -- the lowest tier of a traceback's phase, the words
 * of the program's own frames (parsers/serving/frame_words.c; round 13,
 * w-framewords), on a real paste now in tests/data/real/any_stack:
 * LightNet++'s train_shuffle.py failing in the validation pass of its
 * train() (ansleliu/LightNetPlusPlus#7: "the training step is ok"),
 * whose frames no row of phase_table.c names.
 *
 *  - the real paste: the source line of train() says val (val_loss,
 *    labels_val), and it decides for its frame: eval, placed by the frame
 *    names (oom.phase_source frame_names);
 *  - edge cases made from it, one change each: the same line without its
 *    val words leaves train() to its name (training_step); a name that
 *    says two things says nothing (train_and_evaluate); a constructor
 *    its caller builds as the model is a load; the same frames
 *    under site-packages are a library's, not the program's (unknown); an
 *    engine's stage line before the traceback wins over the frame names.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#define LIGHTNET "tests/data/real/any_stack/lightnetpp-train-shuffle-val-loss-oom-304mib.log"

/* text with its first "from" replaced by "to" (malloc'd, *n its length) */
static char *replaced(const char *text, size_t len, const char *from, const char *to, size_t *n)
{
	const char *at = strstr(text, from);
	size_t fl = strlen(from), tl = strlen(to), off;
	char *out;

	assert_non_null(at);
	off = (size_t)(at - text);
	out = malloc(len - fl + tl + 1);
	assert_non_null(out);
	memcpy(out, text, off);
	memcpy(out + off, to, tl);
	memcpy(out + off + tl, at + fl, len - off - fl);
	*n = len - fl + tl;
	out[*n] = '\0';
	return out;
}

/* The first OOM's phase of the real paste at path (parsed as name) with
 * from[i] replaced by to[i] (i < k); phase_source checked when src is
 * not NULL. */
static void expect_in(const char *path, const char *name, int k, const char *const *from,
		      const char *const *to, const char *phase, const char *src)
{
	struct timeline *tl = t_open();
	size_t n, m;
	char *text = t_slurp(path, &n), *edited;
	int i;

	for (i = 0; i < k; i++) {
		edited = replaced(text, n, from[i], to[i], &m);
		free(text);
		text = edited;
		n = m;
	}
	assert_true(t_parse_mem(tl, "server_log", name, text, n) > 0);
	assert_string_equal(t_first_phase(tl), phase);
	if (src)
		t_expect_oom(tl, phase, src, "(null)");
	free(text);
	t_close(tl);
}

static void expect_k(int k, const char *const *from, const char *const *to, const char *phase,
		     const char *src)
{
	expect_in(LIGHTNET, "lightnet.log", k, from, to, phase, src);
}

static void expect(const char *from, const char *to, const char *phase, const char *src)
{
	expect_k(from ? 1 : 0, &from, &to, phase, src);
}

/* the val words of train()'s source line, and their neutral form */
#define VAL_LINE "val_loss = loss_fn(input=net_out, target=labels_val,"
#define PLAIN_LINE "loss = loss_fn(input=net_out, target=labels,"

static void validation_inside_train_is_eval(void **state)
{
	(void)state;
	expect(NULL, NULL, "eval", "frame_names");
}

static void train_frame_without_val_words_is_training(void **state)
{
	(void)state;
	expect(VAL_LINE, PLAIN_LINE, "training_step", "frame_names");
}

static void name_saying_two_things_says_nothing(void **state)
{
	static const char *const from[] = { VAL_LINE, "line 290, in train ",
					    "    train(train_args" };
	static const char *const to[] = { PLAIN_LINE, "line 290, in train_and_evaluate ",
					  "    run(run_args" };

	(void)state;
	expect_k(3, from, to, "unknown", NULL);
}

static void model_constructor_is_a_load(void **state)
{
	/* train() made the constructor of a class its caller builds as
	 * the model (the only changes: the frame's name and two lines) */
	static const char *const from[] = { VAL_LINE, "line 290, in train ",
					    "    train(train_args" };
	static const char *const to[] = { PLAIN_LINE, "line 290, in __init__ ",
					  "    model = Net(run_args" };

	(void)state;
	expect_k(3, from, to, "load_weights", "frame_names");
}

static void library_frames_are_not_the_program(void **state)
{
	static const char lib[] = "\"/usr/local/lib/python3.6/site-packages/lightnet/";
	static const char own[] = "\"/home/wcgu/code/RTSeg/LightNetPlusPlus/scripts/";
	static const char *const from[] = { VAL_LINE, own, own, own, own };
	static const char *const to[] = { PLAIN_LINE, lib, lib, lib, lib };

	(void)state;
	expect_k(5, from, to, "unknown", NULL);
}

static void stage_line_wins_over_frame_names(void **state)
{
	(void)state;
	/* an engine's stage line (vLLM's, phase_rows_vllm.inc) printed before
	 * the traceback: the log says where the program was, and that is
	 * stronger than what the program's own names suggest */
	expect("Traceback (most recent call last):",
	       "INFO 06-10 10:00:00 model_runner.py:1008] Starting to load model x...\n"
	       "Traceback (most recent call last):", "load_weights", NULL);
}

/* A Rust backtrace printed below the failure (set 14 spent, w-spend14b:
 * huggingface/candle #2631, the falcon example's CUDA_ERROR_OUT_OF_MEMORY
 * with candle's Error::bt frames, innermost first): its program frames'
 * words place it, MmapedSafetensors::load and Falcon::load a load. */
#define CANDLE "tests/data/real/any_stack/a-candle-falcon-example-cuda-oom-weight-load/01-output.txt"

static void rust_expect(int k, const char *const *from, const char *const *to, const char *phase)
{
	expect_in(CANDLE, "output.txt", k, from, to, phase, NULL);
}

static void rust_backtrace_load_frames_are_a_load(void **state)
{
	(void)state;
	rust_expect(0, NULL, NULL, "load_weights");
}

static void rust_backtrace_without_speaking_frames_says_nothing(void **state)
{
	/* the same backtrace, its three load frames renamed: no word left;
	 * and the example's line before the load (round 14, w-startup15: a
	 * stage line, phase_rows_frameworks.inc) renamed too, so that only
	 * the frames are left to speak */
	static const char *const from[] = { "MmapedSafetensors::load\n", "FalconDecoderLayer::load",
					    "Falcon::load", "retrieved the files in" };
	static const char *const to[] = { "MmapedSafetensors::tensor\n", "FalconDecoderLayer::new",
					  "Falcon::new", "fetched the files in" };

	(void)state;
	rust_expect(4, from, to, "unknown");
}

static void rust_runtime_frames_are_not_the_program(void **state)
{
	/* std's, core's and alloc's frames say nothing, whatever their
	 * words: the program's own frame (here a serving one) decides */
	static const char *const from[] = { "candle_core::safetensors::MmapedSafetensors::load\n",
					    "FalconDecoderLayer::load", "Falcon::load",
					    "candle_core::tensor::Tensor::from_slice" };
	static const char *const to[] = { "std::safetensors::MmapedSafetensors::load\n",
					  "FalconDecoderLayer::new", "Falcon::new",
					  "candle_core::tensor::Tensor::generate" };

	(void)state;
	rust_expect(4, from, to, "serving");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(validation_inside_train_is_eval),
		cmocka_unit_test(train_frame_without_val_words_is_training),
		cmocka_unit_test(name_saying_two_things_says_nothing),
		cmocka_unit_test(model_constructor_is_a_load),
		cmocka_unit_test(library_frames_are_not_the_program),
		cmocka_unit_test(stage_line_wins_over_frame_names),
		cmocka_unit_test(rust_backtrace_load_frames_are_a_load),
		cmocka_unit_test(rust_backtrace_without_speaking_frames_says_nothing),
		cmocka_unit_test(rust_runtime_frames_are_not_the_program),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
