/*
 * test_other_stacks.c -- issue 27, round 7 (the stacks around the
 * serving engines): the wordings and placements that fresh 2025-2026
 * excerpts of llama.cpp's SYCL backend, ComfyUI (its error report, a
 * browser's translation of it, its per-prompt model loads), torchrun's
 * "[rankN]:" prefix, Ray's RayTaskError and LM Studio's server taught
 * (tests/data/real/any_stack, MANIFEST.tsv gives each thread). Lines
 * are the excerpts' own; the texts built here are those lines put in
 * the orders the excerpts show, and the near misses they must not be.
 */
#include "testutil.h"
#include "parsers/serving/memfail.h"
#include "parsers/serving/phase_table.h"

#include <stdint.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"
#define OOM_MSG "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 388.00 MiB. " \
	"GPU 0 has a total capacity of 9.68 GiB of which 95.75 MiB is free."

static int line(const char *l, struct memfail *f)
{
	return memfail_line(l, strlen(l), f);
}

/* ggml's SYCL buffer type and PyTorch's class named as a field's value. */
static void wordings(void **state)
{
	struct memfail f;

	(void)state;
	assert_true(line("can't allocate 2303168640 Bytes of memory on device", &f));
	assert_int_equal(f.family, MF_SYCL);
	assert_int_equal(f.requested_bytes, 2303168640LL);
	assert_true(line("ggml_gallocr_reserve_n: failed to allocate SYCL0 buffer of size "
			 "3503030272", &f));
	assert_int_equal(f.family, MF_GGML);
	/* ComfyUI's report, and the same bullet after a browser translated it */
	assert_true(line("- **Exception Type:** torch.OutOfMemoryError", &f));
	assert_int_equal(f.family, MF_TORCH);
	assert_true(line("- **Tipo de exceção:** torch.OutOfMemoryError  ", &f));
	assert_int_equal(f.family, MF_TORCH);
	/* the class inside a sentence or another name closes no line: only
	 * the generic wording may read it, as a failure of no known stack */
	assert_true(line("we catch torch.OutOfMemoryError and retry with a smaller batch", &f));
	assert_int_equal(f.family, MF_UNKNOWN);
	assert_true(line("- **Tipo de exceção:** my.torch.OutOfMemoryErrorX", &f));
	assert_int_equal(f.family, MF_UNKNOWN);
}

/* The phrases the round's rows added (phase_table_apps.h). */
static void rows(void **state)
{
	static const char *const loading = "Requested to load Flux2TEModel_";
	static const char *const loaded = "loaded partially; 15401.26 MB usable, 13113.03 MB "
					  "loaded, 20700.00 MB offloaded";
	static const char *const lms = " [zai-org/glm-4.7-flash] Streaming response...";
	static const char *const ray = "FAILED t.py::x - ray.exceptions.RayTaskError("
				       "OutOfMemoryError): ray::FSDPPolicyWorkerBase.init_model() (pid=1)";
	unsigned runs;

	(void)state;
	assert_int_equal(memfail_phase_line(loading, strlen(loading)), OOM_PHASE_LOAD_WEIGHTS);
	assert_int_equal(memfail_phase_line(loaded, strlen(loaded)), OOM_PHASE_SERVING);
	/* the node runs, no prompt is served (PM_RUNS, round 8 comfyserved) */
	assert_int_equal(memfail_phase_line_flags(loaded, strlen(loaded), &runs), OOM_PHASE_SERVING);
	assert_int_equal(runs & PM_RUNS, PM_RUNS);
	assert_int_equal(memfail_phase_line_flags(lms, strlen(lms), &runs), OOM_PHASE_SERVING);
	assert_int_equal(runs & PM_RUNS, 0);
	assert_int_equal(memfail_phase_line(lms, strlen(lms)), OOM_PHASE_SERVING);
	assert_int_equal(memfail_phase_hint(ray, strlen(ray)), OOM_PHASE_LOAD_WEIGHTS);
	assert_int_equal(memfail_phase_hint("NunchakuQwenImageDiTLoader", 26),
			 OOM_PHASE_LOAD_WEIGHTS);
	/* Megatron's and vLLM's process-group set-up is no model build */
	assert_int_equal(memfail_phase_hint("in init_model_parallel_group", 28), OOM_PHASE_UNKNOWN);
}

static const char *phase_of_text(const char *text)
{
	static char got[32];
	struct timeline *tl = t_open();

	assert_true(t_parse_mem(tl, "server_log", "t.log", text, 0) > 0);
	snprintf(got, sizeof(got), "%s", t_first_phase(tl));
	t_close(tl);
	return got;
}

/* torchrun's "[rank0]: " prefix is one space wide: the frames keep the
 * indent that ends a traceback's frames, so a traceback printed after
 * its message (the message pasted first) still places it. Without the
 * prefix the same text gives the same phase. */
static void rank_prefix_keeps_indent(void **state)
{
	static const char prefixed[] =
		OOM_MSG "\n"
		"[rank0]: Traceback (most recent call last):\n"
		"[rank0]:   File \"/data/sft.py\", line 67, in <module>\n"
		"[rank0]:     trainer.train()\n"
		"[rank0]:   File \"/env/site-packages/transformers/trainer.py\", line 2560, in "
		"_inner_training_loop\n"
		"[rank0]:     tr_loss_step = self.training_step(model, inputs, num_items_in_batch)\n";
	static const char plain[] =
		OOM_MSG "\n"
		"Traceback (most recent call last):\n"
		"  File \"/data/sft.py\", line 67, in <module>\n"
		"    trainer.train()\n"
		"  File \"/env/site-packages/transformers/trainer.py\", line 2560, in "
		"_inner_training_loop\n"
		"    tr_loss_step = self.training_step(model, inputs, num_items_in_batch)\n";

	(void)state;
	assert_string_equal(phase_of_text(prefixed), "training_step");
	assert_string_equal(phase_of_text(plain), "training_step");
}

/* Ray's RayTaskError raising the OOM again just below it names the task
 * that ran; a line that only repeats the message names nothing. */
static void raised_again_by_ray(void **state)
{
	static const char by_ray[] =
		OOM_MSG "\n"
		"FAILED t.py::x - ray.exceptions.RayTaskError(OutOfMemoryError): "
		"ray::FSDPPolicyWorkerBase.init_model() (pid=141722, ip=10.0.42.164)\n";
	static const char unnamed[] =
		OOM_MSG "\n"
		"FAILED t.py::x - ray.exceptions.RayTaskError(OutOfMemoryError): "
		"ray::Worker.run() (pid=141722, ip=10.0.42.164)\n";

	(void)state;
	assert_string_equal(phase_of_text(by_ray), "load_weights");
	assert_string_equal(phase_of_text(unnamed), "unknown");
}

/* The real excerpts, read whole. */
static void real_excerpts(void **state)
{
	static const struct { const char *file, *want; } t[] = {
		{ ANY "trl-fsdp-sft-rtx3080-trainer-training-step.log", "training_step" },
		{ ANY "skyrl-fsdp2-init-model-colocated-vllm-holds-gpu.log", "load_weights" },
		{ ANY "comfyui-second-prompt-flux2-te-load-cuda-error-oom.log", "serving" },
		{ ANY "comfyui-nunchaku-qwenimage-dit-loader-cuda-error-zh-about.log",
		  "load_weights" },
		{ ANY "lmstudio-042-mlx-engine-streaming-then-metal-oom-abort.log", "serving" },
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wordings),
		cmocka_unit_test(rows),
		cmocka_unit_test(rank_prefix_keeps_indent),
		cmocka_unit_test(raised_again_by_ray),
		cmocka_unit_test(real_excerpts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
