/*
 * test_phase_tiers.c -- the tiers of the frames that name an OOM's phase
 * (parsers/serving/phase_table.c, issue 27 round 4): an engine's own
 * frame decides before a framework's beneath it (transformers, Trainer,
 * Lightning, Keras, ComfyUI: PM_FRAMEWORK), a framework's before a library
 * any phase calls into (PM_GENERIC: transformers' generate), and any stage
 * named before a frame that says only that the program was starting
 * (phase startup). A traceback printed newest first is read the other
 * way; "> " and "[rank3]: " prefixes change nothing. A failure plainly
 * before serving whose stage nothing shows is named startup, a
 * misconfiguration whose advice says the stage is not shown.
 *
 * The real excerpts are under tests/data/real/any_stack (MANIFEST.tsv
 * gives each thread); the texts built here are edge cases made of the
 * frame lines those excerpts and the engines' sources print.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "parsers/serving/memfail.h"
#include "parsers/serving/server_log.h"

#include <stdlib.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"
#define HF "  File \"/usr/local/lib/python3.10/dist-packages/transformers/"
#define VL "  File \"/usr/local/lib/python3.10/dist-packages/vllm/"
#define OOM_LINE "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"

static enum oom_phase hint(const char *t)
{
	return memfail_phase_hint(t, strlen(t));
}

/* An engine's frame decides even when a framework's is printed inside it
 * (a model's own code calling an eval_loop from vLLM's profile run): by
 * position alone the inner framework frame would win. */
static void engine_before_framework(void **state)
{
	static const char t[] =
		"Traceback (most recent call last):\n"
		VL "worker/worker.py\", line 179, in determine_num_available_blocks\n"
		"    self.model_runner.profile_run()\n"
		VL "worker/model_runner.py\", line 1230, in profile_run\n"
		"    self.execute_model(model_input, kv_caches, intermediate_tensors)\n"
		"  File \"/srv/model/modeling_custom.py\", line 80, in forward\n"
		"    return self.eval_loop(hidden_states)\n"
		OOM_LINE;
	static const char inner[] =
		"  File \"/srv/model/modeling_custom.py\", line 80, in forward\n"
		"    return self.eval_loop(hidden_states)\n"
		OOM_LINE;
	int rank;

	(void)state;
	assert_int_equal(hint(t), OOM_PHASE_PROFILE);
	assert_int_equal(memfail_phase_hint_ranked(t, strlen(t), &rank), OOM_PHASE_PROFILE);
	assert_int_equal(rank, 0);
	/* the framework's frame alone still names its phase, one tier down */
	assert_int_equal(memfail_phase_hint_ranked(inner, strlen(inner), &rank), OOM_PHASE_EVAL);
	assert_int_equal(rank, 1);
}

/* transformers' generate is a library call: inside a Trainer's step (an
 * RL trainer generating its rollouts) the step is the phase; alone it is
 * inference, here an evaluation's as the script's name says
 * (eval_asr.py; round 18: memfail_phase.c library_inference). */
static void framework_before_generic(void **state)
{
	static const char in_step[] =
		HF "trainer.py\", line 2240, in _inner_training_loop\n"
		"    tr_loss_step = self.training_step(model, inputs, num_items_in_batch)\n"
		HF "generation/utils.py\", line 2215, in generate\n"
		"    result = self._sample(\n"
		OOM_LINE;
	static const char alone[] =
		"  File \"/home/u/eval_asr.py\", line 88, in main\n"
		"    out = model.generate(**batch, max_new_tokens=256)\n"
		HF "generation/utils.py\", line 2215, in generate\n"
		OOM_LINE;

	(void)state;
	assert_int_equal(hint(in_step), OOM_PHASE_TRAINING_STEP);
	assert_int_equal(hint(alone), OOM_PHASE_EVAL);
}

/* A Trainer's evaluation inside its training loop, printed in Python's
 * order and newest first (a web UI's reversed paste: the header below
 * the frames): the innermost frame, evaluation_loop, decides both. */
static void newest_first_traceback(void **state)
{
	static const char normal[] =
		"Traceback (most recent call last):\n"
		HF "trainer.py\", line 2328, in _inner_training_loop\n"
		HF "trainer.py\", line 2801, in _maybe_log_save_evaluate\n"
		HF "trainer.py\", line 3680, in evaluation_loop\n"
		OOM_LINE;
	static const char reversed[] =
		OOM_LINE
		HF "trainer.py\", line 3680, in evaluation_loop\n"
		HF "trainer.py\", line 2801, in _maybe_log_save_evaluate\n"
		HF "trainer.py\", line 2328, in _inner_training_loop\n"
		"Traceback (most recent call last):\n";

	/* Lightning 1.x runs validation inside its training epoch */
	static const char lightning1[] =
		"  File \"/opt/conda/lib/python3.8/site-packages/pytorch_lightning/trainer/"
		"training_loop.py\", line 562, in run_training_epoch\n"
		"  File \"/opt/conda/lib/python3.8/site-packages/pytorch_lightning/trainer/"
		"trainer.py\", line 659, in run_evaluation\n"
		OOM_LINE;

	(void)state;
	assert_int_equal(hint(normal), OOM_PHASE_EVAL);
	assert_int_equal(hint(reversed), OOM_PHASE_EVAL);
	assert_int_equal(hint(lightning1), OOM_PHASE_EVAL);
}

/* Start-up alone ranks last: TensorRT-LLM's "Executor creation failed"
 * names no stage until its table names the component; vLLM's engine core
 * that failed to start defers to the worker's traceback chained before
 * it, and names start-up only when nothing else does. */
static void startup_ranks_last(void **state)
{
	static const char trt_alone[] =
		"  File \"/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/"
		"py_executor_creator.py\", line 147, in observe_creation_stage\n"
		"    raise RuntimeError(explanation) from e\n"
		"RuntimeError: Executor creation failed due to insufficient GPU memory.\n";
	static const char trt_table[] =
		"RuntimeError: Executor creation failed due to insufficient GPU memory.\n"
		"\n"
		"The following component could not be created: KV cache\n";
	static const char chained[] =
		VL "v1/worker/gpu_model_runner.py\", line 3410, in capture_model\n"
		OOM_LINE
		"\n"
		"The above exception was the direct cause of the following exception:\n"
		"\n"
		"Traceback (most recent call last):\n"
		VL "v1/engine/core.py\", line 699, in run_engine_core\n"
		"RuntimeError: Engine core initialization failed. See root cause above.\n";
	static const char no_stage[] =
		VL "v1/engine/core.py\", line 699, in run_engine_core\n"
		OOM_LINE
		"\n"
		"The above exception was the direct cause of the following exception:\n"
		"\n"
		"RuntimeError: Engine core initialization failed. See root cause above.\n";
	struct memfail f;
	const char *l = "RuntimeError: Executor creation failed due to insufficient GPU memory.";
	const char *c = "The following component could not be created: KV cache";

	(void)state;
	assert_int_equal(hint(trt_alone), OOM_PHASE_STARTUP);
	assert_int_equal(hint(trt_table), OOM_PHASE_KV_ALLOC);
	assert_int_equal(hint(chained), OOM_PHASE_GRAPH_CAPTURE);
	assert_int_equal(hint(no_stage), OOM_PHASE_STARTUP);
	/* line by line: the failure's own line says start-up, the next
	 * names the component */
	assert_int_equal(memfail_line(l, strlen(l), &f), 1);
	assert_int_equal(f.phase, OOM_PHASE_STARTUP);
	assert_int_equal(memfail_continues(c, strlen(c), &f), 1);
	assert_int_equal(f.phase, OOM_PHASE_KV_ALLOC);
	/* the pick: a stage named wins over start-up alone, never the reverse */
	assert_int_equal(memfail_phase_pick(OOM_PHASE_STARTUP, OOM_PHASE_WARMUP), OOM_PHASE_WARMUP);
	assert_int_equal(memfail_phase_pick(OOM_PHASE_WARMUP, OOM_PHASE_STARTUP), OOM_PHASE_WARMUP);
	assert_int_equal(memfail_phase_pick(OOM_PHASE_UNKNOWN, OOM_PHASE_STARTUP), OOM_PHASE_STARTUP);
	assert_int_equal(memfail_phase_pick(OOM_PHASE_STARTUP, OOM_PHASE_UNKNOWN), OOM_PHASE_STARTUP);
}

/* The real excerpts of the framework tier, through the server-log
 * parser: quoted ("[rank3]: " from torchrun, "> " from a reply), Windows
 * paths, and TensorFlow's exception whose failure words follow it. */
static void real_framework_excerpts(void **state)
{
	static const struct { const char *file, *want; } t[] = {
		{ ANY "llamafactory-rank-prefixed-from-pretrained-meta-model-oom-270mib.log", "load_weights" },
		{ ANY "transformers-from-pretrained-meta-model-accelerate-cuda-error-oom.log", "load_weights" },
		{ ANY "comfyui-gguf-model-patcher-load-to-device-allocation-on-device.log", "load_weights" },
		{ ANY "comfyui-patch-weight-to-device-cast-allocation-on-device.log", "load_weights" },
		{ ANY "keras-tf2-fit-graph-execution-error-oom-bfc.log", "training_step" },
		{ ANY "trtllm-quoted-load-single-module-rank-oom-40mib.log", "load_weights" },
		/* the stage is shown nowhere in this excerpt: unknown, not startup */
		{ ANY "vllm-rocm-gfx1151-enginecore-hip-oom-not-starting.log", "unknown" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct timeline *tl = t_open();
		assert_int_equal(t_parse_file(tl, t[i].file), 0);
		assert_string_equal(t_first_phase(tl), t[i].want);
		t_close(tl);
	}
}

/* TGI's shard that never started (text-generation-inference #866): the
 * OOM names no stage, the launcher says the shard failed to start. The
 * oom row is startup, and the verdict a misconfiguration in that phase
 * whose advice says the stage is not shown. */
static void shard_that_never_started(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, "tests/data/real/serving/"
				      "tgi-1.0-torch-oom-old-format-shard-cannot-start.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "startup");
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	assert_string_equal(t_text(tl, "SELECT phase FROM verdict"), "startup");
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE rule = 'startup'"),
			       "stage that failed is not shown"));
	t_close(tl);
}

/* A server's ready line ends its start-up: mistral.rs logs "Serving on
 * http://" after its build and dummy run (the dummy run is the warm-up),
 * NVIDIA's gpu-rest-engine "Starting server listening on" after its
 * classifiers are built; a failure after it, with no frame naming a
 * stage, is in serving (held-out set 5, spent: the mistral.rs excerpt
 * and the Caffe REST engine's, whose glog CHECK of cudaSuccess is read
 * as CUDA's). The mistral.rs panic quotes cudarc's DriverError in a
 * backtick span, which the sniff keeps as a pasted error; a wording in
 * a note's span stays blanked. */
static void ready_lines_and_rust_errors(void **state)
{
	static const char *const dummy = "2025-03-19T15:41:10.668240Z  INFO mistralrs_core: "
					 "Beginning dummy run.";
	static const char *const ready = "Serving on http://0.0.0.0:1234.";
	static const char panic_line[] = "thread '<unnamed>' panicked at mistralrs-core/src/"
		"pipeline/mistral.rs:409:17:\nModel failed with error `DriverError("
		"CUDA_ERROR_OUT_OF_MEMORY, \"out of memory\")`. Please raise an issue.\n";
	static const char note_line[] = "We sometimes see `out of memory` in the logs.\n";
	static const struct { const char *file, *want, *family; } t[] = {
		{ ANY "b-mistralrs-serving-driver-oom.log", "serving", "cuda" },
		{ "tests/data/incoming/any_stack/b-caffe-rest-engine-glog-oom.log", "serving", "cuda" },
	};
	size_t i;

	(void)state;
	assert_int_equal(memfail_phase_line(dummy, strlen(dummy)), OOM_PHASE_WARMUP);
	assert_int_equal(memfail_phase_line(ready, strlen(ready)), OOM_PHASE_SERVING);
	assert_true(server_log_sniff((const unsigned char *)panic_line, strlen(panic_line)) >= 70);
	assert_int_equal(server_log_sniff((const unsigned char *)note_line, strlen(note_line)), 0);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct timeline *tl = t_open();
		assert_int_equal(t_parse_file(tl, t[i].file), 0);
		assert_string_equal(t_first_phase(tl), t[i].want);
		assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.family') FROM event"
				      " WHERE kind = 'mem_failure' ORDER BY id LIMIT 1"), t[i].family);
		t_close(tl);
	}
}

/* Progress bars place a failure (set 5, spent round 5): tqdm draws a bar
 * with a carriage return and no newline, so the next message lands on
 * the bar's line (verl's "Training Progress" bar, then the raylet's OOM
 * report), and a process that dies mid-epoch leaves the bar's last state
 * below its error (Lightning's "Epoch 0:   4%|"). A bar's description
 * counts only where it opens a bar; "Epoch" in other words names nothing. */
static void progress_bars_place_a_failure(void **state)
{
	static const char glued[] =
		"Training Progress:  10%|\xe2\x96\x88         | 116/1155 [7:54:43<67:30:48, 233.93s/it]"
		"(raylet) [2026-01-20 08:13:25,391 E 2105 2105] (raylet) node_manager.cc:3099: "
		"1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed "
		"due to other reasons at node (ID: 87d772fad6a1e8e2, IP: 10.22.68.9)";
	static const char after[] =
		"(raylet) [2026-01-20 08:13:25,391 E 2105 2105] (raylet) node_manager.cc:3099: "
		"1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed "
		"due to other reasons at node (ID: 87d772fad6a1e8e2, IP: 10.22.68.9) Training Progress:";
	static const struct { const char *file, *want; } t[] = {
		{ ANY "b-ray-verl-raylet-oom-kill.log", "training_step" },
		{ ANY "b-mps-ilab-train-epoch0.log", "training_step" },
		{ ANY "b-fairseq-ofa-recover-from-oom.log", "training_step" },
		{ ANY "b-pytorch-tape-wrapped-batch-message.log", "training_step" },
		{ ANY "a-sglang-0.1-flashinfer-handler-cudamallocasync-oom-after-flush-cache.log", "serving" },
	};
	struct memfail f;
	size_t i;

	(void)state;
	assert_int_equal(memfail_phase_after("Epoch 0:   4%|\xe2\x96\x88\xe2\x96\x88", 20),
			 OOM_PHASE_TRAINING_STEP);
	assert_int_equal(memfail_phase_after("Epoch 12: 100%|##########| 50/50", 32),
			 OOM_PHASE_TRAINING_STEP);
	/* not a bar: an epoch's summary, fairseq's progress line */
	assert_int_equal(memfail_phase_after("Epoch 3 finished, loss 0.21", 27), OOM_PHASE_UNKNOWN);
	assert_int_equal(memfail_phase_after("epoch 001:  16634 / 210883 loss=5.174", 37),
			 OOM_PHASE_UNKNOWN);
	assert_int_equal(memfail_line(glued, strlen(glued), &f), 1);
	assert_int_equal(f.phase, OOM_PHASE_TRAINING_STEP);
	/* the bar's words after the failure's were printed after it */
	assert_int_equal(memfail_line(after, strlen(after), &f), 1);
	assert_int_equal(f.phase, OOM_PHASE_UNKNOWN);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct timeline *tl = t_open();
		assert_int_equal(t_parse_file(tl, t[i].file), 0);
		assert_string_equal(t_first_phase(tl), t[i].want);
		t_close(tl);
	}
}

/* Set 14 spent (w-spend14a): the scopes of the TensorFlow op that failed,
 * on the "[[...]]" line under the error, place it (Keras 2's "training/",
 * tf.gradients' "gradients/"); the same words elsewhere do not. A
 * framework row's phrase that a longer name goes on from, on a frame's
 * source line, is that other name (Keras 2.1's fit passes
 * "validation_steps=validation_steps)"). */
static void tf_scopes_and_whole_names(void **state)
{
	static const char fit[] =
		"Traceback (most recent call last):\n"
		"  File \"tryhard.py\", line 194, in <module>\n"
		"    h = model.fit(X, y, batch_size = 10, validation_data = (Xt, yt))\n"
		"  File \"/usr/lib/python2.7/dist-packages/keras/engine/training.py\", line 1705, in fit\n"
		"    validation_steps=validation_steps)\n";
	static const char lit[] =
		"Traceback (most recent call last):\n"
		"  File \"/x/site-packages/pytorch_lightning/strategies/strategy.py\", line 9, in validation_step\n"
		"    return self.model.validation_step(*args)\n";

	(void)state;
	assert_int_equal(memfail_phase_after("\t [[GroupCrossDeviceControlEdges_0/training/Adam/Adam/Const/_343]]", 66),
			 OOM_PHASE_TRAINING_STEP);
	assert_int_equal(memfail_phase_after("  [[{{node gradients/conv2d/Conv2D_grad/Conv2DBackpropInput}}]]", 63),
			 OOM_PHASE_TRAINING_STEP);
	assert_int_equal(memfail_phase_after("[[Node: pretraining/dense/MatMul = MatMul[T=DT_FLOAT]]]", 55),
			 OOM_PHASE_UNKNOWN);
	assert_int_equal(memfail_phase_after("saved to /data/training/ckpt-3", 30), OOM_PHASE_UNKNOWN);
	/* set 18 spent (w-spend18b): a TF 1.x variable's initializer, an
	 * optimizer's Apply kernel, dlib's trainer status line */
	{
		static const char as[] = "\t [[Node: fc6_1/biases/Assign = Assign[T=DT_FLOAT](fc6_1/biases, "
					 "fc6_1/biases/initial_value)]]";
		static const char gv[] = "  [[{{node conv1/weights/Initializer/random_uniform/RandomUniform}}]]";
		static const char ap[] = "W tensorflow/core/framework/op_kernel.cc:1401] OP_REQUIRES failed at "
					 "training_ops.cc:2816 : Resource exhausted: OOM";
		static const char st[] = "step#: 0     learning rate: 0.1   average loss: 0";
		static const char iv[] = "initial_value of the counter is 3";
		assert_int_equal(memfail_phase_after(as, strlen(as)), OOM_PHASE_LOAD_WEIGHTS);
		assert_int_equal(memfail_phase_after(gv, strlen(gv)), OOM_PHASE_LOAD_WEIGHTS);
		assert_int_equal(memfail_phase_after(iv, strlen(iv)), OOM_PHASE_UNKNOWN);
		assert_int_equal(memfail_phase_after(ap, strlen(ap)), OOM_PHASE_TRAINING_STEP);
		assert_int_equal(memfail_phase_line(st, strlen(st)), OOM_PHASE_TRAINING_STEP);
	}
	assert_int_equal(hint(fit), OOM_PHASE_TRAINING_STEP);
	assert_int_equal(hint(lit), OOM_PHASE_EVAL);
}

/* Set 17 spent (w-spend17b): a TensorFlow op's line names its colocation
 * class and inputs beside its own name; a gradient scope there places a
 * training step. A Torch7 (luajit) traceback's optimizer update frame is a
 * training step's, its deserialiser's (readObject) a model's build. */
static void tf_colocation_and_lua_frames(void **state)
{
	static const char coloc[] =
		"  [[Node: conv1/convolution = Conv2D[_class=[\"loc:@gradients/conv1/convolution_grad/F\"]](x, k)]]";
	static const char input[] = "  [[Node: c/conv = Conv2D[T=DT_FLOAT](gradients/c/T-0, c/kernel)]]";
	static const char adam[] =
		"luajit: ./misc/optim_updates.lua:65: cuda runtime error (2) : out of memory\n"
		"stack traceback:\n"
		" [C]: in function 'new'\n"
		"  ./misc/optim_updates.lua:65: in function 'adam'\n"
		"  /x/train.lua:375: in main chunk\n";
	static const char readobj[] =
		"luajit: /x/torch/File.lua:298: cuda runtime error (2) : out of memory\n"
		"stack traceback:\n"
		"\t[C]: in function 'read'\n"
		"\t/x/torch/File.lua:298: in function 'readObject'\n";

	(void)state;
	assert_int_equal(memfail_phase_after(coloc, sizeof(coloc) - 1), OOM_PHASE_TRAINING_STEP);
	assert_int_equal(memfail_phase_after(input, sizeof(input) - 1), OOM_PHASE_TRAINING_STEP);
	assert_int_equal(hint(adam), OOM_PHASE_TRAINING_STEP);
	assert_int_equal(hint(readobj), OOM_PHASE_LOAD_WEIGHTS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(engine_before_framework),
		cmocka_unit_test(framework_before_generic),
		cmocka_unit_test(newest_first_traceback),
		cmocka_unit_test(startup_ranks_last),
		cmocka_unit_test(real_framework_excerpts),
		cmocka_unit_test(shard_that_never_started),
		cmocka_unit_test(ready_lines_and_rust_errors),
		cmocka_unit_test(progress_bars_place_a_failure),
		cmocka_unit_test(tf_scopes_and_whole_names),
		cmocka_unit_test(tf_colocation_and_lua_frames),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
