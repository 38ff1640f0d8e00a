/*
 * test_frame_words_flat.c -- tracebacks pasted without their shape (set
 * 16 spent, w-spend16a): a traceback whose indent Markdown dropped, frame
 * lines with no "Traceback" header above them, a frame of an evaluation
 * package, MONAI's sliding_window_inference, and a research script's
 * run_train. Each is placed by its frames (server_join.c,
 * memfail.c's frame-line mark, frame_words.c dir_says,
 * phase_rows_frameworks.inc).
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#define CLIP "tests/data/real/any_stack/a-clip-driven-universal-model-sliding-window-test-oom-second-image/01-test-traceback.txt"
#define RFDETR "tests/data/real/any_stack/a-rf-detr-segmedium-rtx3090-validation-mask-iou-oom/01-traceback.txt"

static const char *phase_of_mem(const char *text, size_t n, struct timeline **tl)
{
	*tl = t_open();
	assert_true(t_parse_mem(*tl, "server_log", "x.log", text, n) > 0);
	return t_first_phase(*tl);
}

static void expect_text(const char *text, const char *phase)
{
	struct timeline *tl;

	assert_string_equal(phase_of_mem(text, strlen(text), &tl), phase);
	t_close(tl);
}

static void expect_file(const char *path, const char *phase)
{
	struct timeline *tl;
	size_t n;
	char *text = t_slurp(path, &n);

	assert_string_equal(phase_of_mem(text, n, &tl), phase);
	free(text);
	t_close(tl);
}

static void unindented_traceback_keeps_its_frames(void **state)
{
	(void)state;
	/* CLIP-Driven-Universal-Model #55: validation() -> MONAI's
	 * sliding_window_inference, every line at column 0 */
	expect_file(CLIP, "eval");
}

static void unindented_source_line_is_not_the_exception(void **state)
{
	(void)state;
	/* an unindented frame, its source line, then the exception line:
	 * the source line ("loss = model(x)") does not end the frames */
	expect_text("Traceback (most recent call last):\n"
		    "File \"scripts/train_net.py\", line 80, in train_one_epoch\n"
		    "loss = model(x)\n"
		    "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 11.91 GiB "
		    "total capacity; 8.87 GiB already allocated; 1.31 GiB free; 8.90 GiB reserved in "
		    "total by PyTorch)\n",
		    "training_step");
}

static void headerless_frames_of_an_evaluation_package(void **state)
{
	(void)state;
	/* rf-detr #1084: rfdetr/evaluation/matching.py, no header */
	expect_file(RFDETR, "eval");
}

static void other_folders_say_nothing(void **state)
{
	(void)state;
	expect_text("File \"rfdetr/util/matching.py\", line 44, in _compute_mask_iou\n"
		    "gt_flat = gt_masks.bool().view(m, -1).float()\n"
		    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.22 GiB. GPU 0 "
		    "has a total capacity of 23.56 GiB of which 1.61 GiB is free.\n",
		    "unknown");
}

static void run_train_is_training(void **state)
{
	(void)state;
	/* the shape of a wav2vec2 fine-tune under Accelerate (held-out set
	 * 11): run_train calling the model's forward */
	expect_text("Traceback (most recent call last):\n"
		    "  File \"/home/u/asr/finetune.py\", line 340, in <module>\n"
		    "    main()\n"
		    "  File \"/home/u/asr/finetune.py\", line 285, in run_train\n"
		    "    out = model(input_values=batch.input_values, labels=batch.labels)\n"
		    "  File \"/usr/lib/python3.10/site-packages/torch/nn/modules/module.py\", line "
		    "1501, in _call_impl\n"
		    "    return forward_call(*args, **kwargs)\n"
		    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.20 GiB "
		    "(GPU 0; 23.65 GiB total capacity; 21.10 GiB already allocated; 0.98 GiB free; "
		    "21.40 GiB reserved in total by PyTorch)\n",
		    "training_step");
}

static void a_value_named_val_is_not_the_validation(void **state)
{
	(void)state;
	/* TF 1.x training loops assign the fetched loss to a name ending in
	 * "val" (`_, loss_val = sess.run([optimizer, loss], feed_dict=...)`,
	 * public scripts in many repositories); the frames are TF 1.x's own
	 * session.py (tensorflow/python/client/session.py@v1.15.0), the
	 * traceback pasted without its indent. "loss_val" is the loss's value,
	 * not a validation: nothing here says eval */
	expect_text("tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when "
		    "allocating tensor with shape[512,64,64,64] and type float on "
		    "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n"
		    "During handling of the above exception, another exception occurred:\n"
		    "Traceback (most recent call last):\n"
		    "File \"lm.py\", line 57, in <module>\n"
		    "_, loss_val = sess.run([optimizer, loss], feed_dict=feed_dict)\n"
		    "File \"/usr/lib/python3.6/site-packages/tensorflow/python/client/session.py\", "
		    "line 956, in run\n"
		    "run_metadata_ptr)\n"
		    "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when "
		    "allocating tensor with shape[512,64,64,64] and type float on "
		    "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n",
		    "unknown");
	/* a validation split's name keeps saying so */
	expect_text("Traceback (most recent call last):\n"
		    "  File \"/home/u/cls/run.py\", line 90, in <module>\n"
		    "    x_val = x_val.to(device)\n"
		    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.20 GiB "
		    "(GPU 0; 23.65 GiB total capacity; 21.10 GiB already allocated; 0.98 GiB free; "
		    "21.40 GiB reserved in total by PyTorch)\n",
		    "eval");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unindented_traceback_keeps_its_frames),
		cmocka_unit_test(unindented_source_line_is_not_the_exception),
		cmocka_unit_test(headerless_frames_of_an_evaluation_package),
		cmocka_unit_test(other_folders_say_nothing),
		cmocka_unit_test(run_train_is_training),
		cmocka_unit_test(a_value_named_val_is_not_the_validation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
