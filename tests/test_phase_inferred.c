/*
 * test_phase_inferred.c -- how much work the program completed before
 * its OOM (oom.progress, analyzer/derive/oom_progress.c) and the verdict
 * the phase gives when nothing else decides (analyzer/rules/
 * phase_inferred.c; issue 27 round 14, slice progress15), on real
 * excerpts of tests/data/real/any_stack: a one-line PyTorch OOM and a
 * TensorFlow traceback alone (progress unknown: misconfig at a low
 * confidence, basis `phase`), an evaluation's first batch below its
 * stage line (progress none: a moderate one), a log with many completed
 * steps (stays inconclusive), a start-up OOM (its phase's verdict,
 * basis `evidence`, unchanged), a healthy log (no verdict).
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "reports/report.h"

#include <string.h>

#define REAL "tests/data/real/any_stack/"

/* Parse one real file with detection and analyze it. */
static struct timeline *analyzed(const char *rel)
{
	struct timeline *tl = t_open();

	assert_true(t_parse_file(tl, rel) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

/* The verdict says it rests on the phase, and its title says inferred. */
static void expect_inferred(struct timeline *tl)
{
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "phase_inferred");
	assert_string_equal(t_text(tl, "SELECT basis FROM verdict"), "phase");
	assert_non_null(strstr(t_text(tl, "SELECT summary FROM verdict"), "inferred from the phase"));
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause ="
				       " 'phase_inferred'"), "Inferred, not shown by figures"));
}

/* "RuntimeError: cuda runtime error (2) : out of memory" quoted alone in
 * a question: the files hold the failure only -> progress unknown,
 * misconfig at a low confidence, labelled inferred. */
static void one_line_torch_low(void **state)
{
	struct timeline *tl = analyzed(REAL "torch-0.3-cuda-runtime-error-2-thcstorage.log");
	(void)state;

	assert_string_equal(t_text(tl, "SELECT progress FROM oom WHERE id = 1"), "unknown");
	expect_inferred(tl);
	assert_true(t_real(tl, "SELECT confidence FROM verdict") < 0.3);
	t_close(tl);
}

/* Keras' fit() traceback ending in TensorFlow's OOM, no epoch line
 * before it: a training step's, progress unknown; the knobs are
 * training.c's for Keras. */
static void tf_traceback_low(void **state)
{
	struct timeline *tl = analyzed(REAL "keras-tf2-fit-graph-execution-error-oom-bfc.log");
	(void)state;

	assert_string_equal(t_text(tl, "SELECT progress FROM oom WHERE id = 1"), "unknown");
	expect_inferred(tl);
	/* the knobs are named once on the first screen, under "To try
	 * first" (round 15, w-advice16): the finding keeps them as a figure */
	assert_non_null(strstr(t_text(tl, "SELECT json_extract(figures, '$.try_knobs') FROM"
				       " finding WHERE cause = 'phase_inferred'"), "batch_size"));
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause ="
				       " 'phase_inferred'"), "To try first"));
	t_close(tl);
}

/* "-------test-----------", the batch size, then THCudaCheck's OOM: the
 * evaluation's first batch did not fit (progress none), the moderate
 * score; the thread lowered the test batch size. */
static void first_eval_batch_moderate(void **state)
{
	struct timeline *tl = analyzed(REAL "a-pytorch-reid-baseline-test-bs64-thcudacheck-oom/"
				       "01-test-output.txt");
	(void)state;

	assert_string_equal(t_text(tl, "SELECT progress FROM oom WHERE id = 1"), "none");
	expect_inferred(tl);
	assert_true(t_real(tl, "SELECT score FROM finding WHERE cause = 'phase_inferred'") > 0.4);
	assert_string_equal(t_text(tl, "SELECT phase FROM verdict"), "eval");
	t_close(tl);
}

/* Torch7's training loop logged 10003 iterations before cuDNN's
 * allocation failed: progress some, and the phase alone names nothing. */
static void many_steps_stay_inconclusive(void **state)
{
	struct timeline *tl = analyzed(REAL "lua-torch7-cudnn-alloc-failed-find-algorithm.log");
	(void)state;

	assert_string_equal(t_text(tl, "SELECT progress FROM oom WHERE id = 1"), "some");
	assert_true(t_int(tl, "SELECT progress_done FROM oom WHERE id = 1") > 1000);
	assert_string_equal(t_text(tl, "SELECT progress_unit FROM oom WHERE id = 1"), "step");
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "inconclusive");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'phase_inferred'"), 0);
	assert_int_equal(t_int(tl, "SELECT basis IS NULL FROM verdict"), 1);
	{   /* the JSON's ooms[] carries the same derived fact */
		json_t *j = report_json(tl->db);
		json_t *p = json_object_get(json_array_get(json_object_get(json_object_get(j,
			"summary"), "ooms"), 0), "progress");
		assert_non_null(p);
		assert_string_equal(json_string_value(json_object_get(p, "state")), "some");
		assert_true(json_integer_value(json_object_get(p, "done")) > 1000);
		assert_string_equal(json_string_value(json_object_get(p, "unit")), "step");
		json_decref(j);
	}
	t_close(tl);
}

/* llama.cpp's weights buffer failing at load_tensors: a start-up OOM,
 * progress none, judged by its phase's own rule as before (basis
 * evidence), never by this one. */
static void startup_unchanged(void **state)
{
	struct timeline *tl = analyzed(REAL "llamacpp-load-tensors-cudamalloc-oom-144gib.log");
	(void)state;

	assert_string_equal(t_text(tl, "SELECT progress FROM oom WHERE id = 1"), "none");
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "weights_do_not_fit");
	assert_string_equal(t_text(tl, "SELECT basis FROM verdict"), "evidence");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'phase_inferred'"), 0);
	t_close(tl);
}

/* A healthy training log (no OOM): no oom row, no verdict but no_oom. */
static void healthy_no_verdict(void **state)
{
	struct timeline *tl = analyzed("tests/data/real/healthy/"
				       "mmdet-1.x-train-log-memory-per-50-iterations-flat.log");
	(void)state;

	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'phase_inferred'"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_line_torch_low),
		cmocka_unit_test(tf_traceback_low),
		cmocka_unit_test(first_eval_batch_moderate),
		cmocka_unit_test(many_steps_stay_inconclusive),
		cmocka_unit_test(startup_unchanged),
		cmocka_unit_test(healthy_no_verdict),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
