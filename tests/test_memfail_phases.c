/*
 * test_memfail_phases.c -- the phase of the program's life a memory
 * failure's own text and its traceback's frames name (issue 27 item 2),
 * and the training stack the frames name. Split from test_memfail.c.
 */
#include "testutil.h"
#include "parsers/serving/memfail.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MiB 1048576LL
#define NA (-1)


static void phases(void **state)
{
	static const struct { const char *text; enum oom_phase want; } hints[] = {
		/* LocalAI's loader wraps a backend's failed load (a frame row: the failure's own text) */
		{ "10:29PM ERR Server error error=\"could not load model (no success): Unexpected err=RuntimeError('CUDA error: out of memory')\"",
		  OOM_PHASE_LOAD_WEIGHTS },
		/* a traceback prints the outer frame first: the sampler's
		 * warm-up run inside the profile run is the innermost */
		{ "  File \"gpu_model_runner.py\", line 1400, in profile_run\n"
		  "  File \"/workspace/vllm/vllm/v1/worker/gpu_model_runner.py\", line 1292, in "
		  "_dummy_sampler_run", OOM_PHASE_WARMUP },
		/* the engine core's _initialize_kv_caches encloses the profile
		 * run, the KV cache and the warm-up: the frame inside decides */
		{ "  File \"vllm/v1/engine/core.py\", line 70, in __init__\n"
		  "    self._initialize_kv_caches(vllm_config)\n"
		  "  File \"vllm/v1/engine/core.py\", line 133, in _initialize_kv_caches\n"
		  "  File \"vllm/v1/worker/gpu_worker.py\", line 230, in compile_or_warm_up_model\n"
		  "    self.model_runner.capture_model()\n", OOM_PHASE_GRAPH_CAPTURE },
		{ "  File \"vllm/v1/engine/core.py\", line 133, in _initialize_kv_caches\n"
		  "  File \"vllm/v1/executor/abstract.py\", line 103, in determine_available_memory\n",
		  OOM_PHASE_PROFILE },
		/* of a chain the cause is printed first: its frames decide */
		{ "  File \"vllm/v1/worker/gpu_model_runner.py\", line 1533, in _dummy_sampler_run\n"
		  "RuntimeError: CUDA out of memory occurred when warming up sampler\n\n"
		  "The above exception was the direct cause of the following exception:\n\n"
		  "  File \"vllm/v1/worker/gpu_worker.py\", line 180, in determine_available_memory\n",
		  OOM_PHASE_WARMUP },
		/* set 16 spent (w-spend16c): vLLM V1's load_model catches the
		 * weights' OOM and says so before it re-raises */
		{ "ERROR: Failed to load model - not enough GPU memory.", OOM_PHASE_LOAD_WEIGHTS },
		/* DeepSpeed's inference engine loads a model; it trains nothing */
		{ "  File \"bloom-ds-inference.py\", line 185, in <module>\n"
		  "    model = deepspeed.init_inference(\n", OOM_PHASE_LOAD_WEIGHTS },
		/* ggml allocates the KV cache's tensors as it does the
		 * weights': the next line names which */
		{ "llama_init_from_model: failed to initialize the context: failed to allocate "
		  "buffer for kv cache", OOM_PHASE_KV_ALLOC },
		{ "  File \"/usr/local/lib/python3.10/site-packages/torch/cuda/graphs.py\", line 84, "
		  "in capture_end", OOM_PHASE_GRAPH_CAPTURE },
		{ "alloc_tensor_range: failed to allocate CUDA0 buffer of size 151851674624",
		  OOM_PHASE_UNKNOWN },
		{ "llama_model_load: error loading model: unable to allocate CUDA0 buffer",
		  OOM_PHASE_LOAD_WEIGHTS },
		{ "ERROR | autotrain.trainers.common:wrapper:121 - HIP out of memory.",
		  OOM_PHASE_TRAINING_STEP },
		/* DeepSpeed's set-up runs optimizer.step once: its frames win
		 * (tests/data/real/any_stack/deepspeed-zero2-configure-zero-...) */
		{ "  File \"deepspeed/pt/deepspeed_zero_optimizer.py\", line 357, in "
		  "initialize_optimizer_states\n    self.optimizer.step()\n", OOM_PHASE_LOAD_WEIGHTS },
		/* Trainer evaluates from inside its training loop: evaluation wins */
		{ "  File \"transformers/trainer.py\", line 1869, in _inner_training_loop\n"
		  "  File \"transformers/trainer.py\", line 1157, in evaluate\n", OOM_PHASE_EVAL },
		{ "  File \"torch/autograd/__init__.py\", line 251, in backward\n"
		  "    Variable._execution_engine.run_backward(  # Calls into the C++ engine",
		  OOM_PHASE_TRAINING_STEP },
		{ "thread 'main' panicked at 'Unable to warmup model: Generation(\"Allocation on "
		  "device 0 would exceed allowed memory.", OOM_PHASE_WARMUP },
		{ "  File \"vllm/worker/worker.py\", line 493, in raise_if_cache_size_invalid",
		  OOM_PHASE_KV_ALLOC },
		{ "  File \"/opt/py3/lib/python3.10/site-packages/lmdeploy/turbomind/turbomind.py\","
		  " line 152, in _create_weight", OOM_PHASE_LOAD_WEIGHTS },
		/* frames printed after the failure (tests/data/real/any_stack:
		 * vllm-0.6-multistep-..., vllm-v1-create-weights-...,
		 * vllm-v1-lmcache-..., torch-0.4-validation-...) */
		{ "ERROR 10-11 12:27:29 engine.py:157]     request_outputs = self.engine_step()",
		  OOM_PHASE_SERVING },
		{ "Engine loop is not running. Inspect the stacktrace to find the original error: "
		  "OutOfMemoryError('HIP out of memory.", OOM_PHASE_SERVING },
		{ "    outputs = llm.generate(prompts, sampling_params)", OOM_PHASE_SERVING },
		{ "  File \"vllm/model_executor/layers/linear.py\", line 202, in create_weights",
		  OOM_PHASE_LOAD_WEIGHTS },
		{ "    eval_loss = evaluate(model, criterion, epoch, eval_losses)", OOM_PHASE_EVAL },
		/* TensorRT-LLM's executor stages (py_executor_creator.py): the
		 * executor built after the KV cache is sized warms up; the
		 * estimation's temporary one is a profile */
		{ "The following component could not be created: Additional executor resources",
		  OOM_PHASE_WARMUP },
		{ "The following component could not be created: Additional executor resources "
		  "(temporary for KV cache size estimation)", OOM_PHASE_PROFILE },
		{ "The following component could not be created: Model resources created during "
		  "usage", OOM_PHASE_PROFILE },
		{ "RuntimeError: CUDA out of memory occurred when warming up pooler (task='embed') "
		  "with 256 dummy requests. Please try lowering `max_num_seqs` or "
		  "`gpu_memory_utilization` when initializing the engine.", OOM_PHASE_WARMUP },
		{ "Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate "
		  "448.00 MiB.", OOM_PHASE_GRAPH_CAPTURE },
		/* the spent set-3 excerpts (tests/data/real/any_stack) */
		{ "ERROR 05-07 00:37:03 [core.py:1136]   File \"/usr/local/lib/python3.12/dist-packages/"
		  "vllm/_custom_ops.py\", line 1279, in gptq_marlin_repack", OOM_PHASE_LOAD_WEIGHTS },
		{ "RuntimeError: Prefill out of memory. Try to lower your batch size.", OOM_PHASE_SERVING },
		{ "text_generation.errors.GenerationError: Request failed during generation: Server "
		  "error: CUDA out of memory.", OOM_PHASE_SERVING },
		/* round 4 (worlda): the executor's set-up is the model's load;
		 * exllamav2's cache and scratch; SGLang's symmetric pool after
		 * the graphs; LMDeploy's request loop; Module.cuda() */
		{ "(EngineCore_DP0 pid=556790) ERROR 12-24 08:50:35 [core.py:866]     "
		  "self._init_executor()", OOM_PHASE_LOAD_WEIGHTS },
		{ "  File \"/content/exllamav2/exllamav2/cache.py\", line 92, in create_state_tensors",
		  OOM_PHASE_KV_ALLOC },
		{ "tabbyapi-1  | context.prepare(scratch)", OOM_PHASE_LOAD_WEIGHTS },
		{ "  File \"sglang/srt/model_executor/model_runner.py\", line 3420, in "
		  "prealloc_symmetric_memory_pool", OOM_PHASE_WARMUP },
		{ "2024-05-08 16:16:10,360 - lmdeploy - ERROR - Engine loop failed with error: CUDA "
		  "out of memory.", OOM_PHASE_SERVING },
		{ "    return self._apply(lambda t: t.cuda(device))", OOM_PHASE_LOAD_WEIGHTS },
		/* a generic frame under an engine's: the engine decides */
		{ "  File \"vllm/worker/worker.py\", line 493, in raise_if_cache_size_invalid\n"
		  "    return self._apply(lambda t: t.cuda(device))", OOM_PHASE_KV_ALLOC },
		{ "RuntimeError: Not enough memory to handle 4096 prefill tokens. You need to "
		  "decrease `--max-batch-prefill-tokens`", OOM_PHASE_WARMUP },
		/* TensorRT-LLM's PyTorch backend (gapsb): the executor's event
		 * loop serves (TensorRT-LLM 13179, frames as a log UI pasted
		 * them); the decode graphs' capture in warm-up (TensorRT-LLM
		 * 8802) */
		{ "  File \"/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/"
		  "py_executor.py\", line 2284, in _executor_loop_overlap\n"
		  "\t\t2026-04-18 12:59:31.370\t\n"
		  "    self.resource_manager.prepare_resources(scheduled_batch)", OOM_PHASE_SERVING },
		{ "  File \"/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/"
		  "model_engine.py\", line 592, in _run_cuda_graph_warmup\n"
		  "    self._capture_generation_cuda_graphs(resource_manager)\n"
		  "  File \"/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/"
		  "model_engine.py\", line 652, in _capture_generation_cuda_graphs\n"
		  "    self.forward(batch,", OOM_PHASE_GRAPH_CAPTURE },
		/* vLLM 0.19+: the graphs captured once inside the profile */
		{ "  File \"vllm/v1/worker/gpu_worker.py\", line 411, in determine_available_memory\n"
		  "    cudagraph_memory_estimate = self.model_runner.profile_cudagraph_memory()",
		  OOM_PHASE_GRAPH_CAPTURE },
		/* TGI's serve_inner -> get_model (tgi 844) */
		{ "2023-08-14 23:30:56   File \"/opt/conda/lib/python3.9/site-packages/"
		  "text_generation_server/models/__init__.py\", line 185, in get_model",
		  OOM_PHASE_LOAD_WEIGHTS },
		/* a model moved to the card whole (round 4: deepspeed 2672's
		 * rich box, InstantID 72, TheChosenOne 18; Module.cuda() from
		 * torch/nn/modules/module.py), the Trainer moving it as it is
		 * built, SD.Next's loader (sdnext 2015) */
		{ "\u2502 \u2771  905 \u2502   \u2502   \u2502   return t.to(device, dtype if "
		  "t.is_floating_point() or t.i \u2502", OOM_PHASE_LOAD_WEIGHTS },
		{ " return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, "
		  "non_blocking)", OOM_PHASE_LOAD_WEIGHTS },
		{ "    self._move_model_to_device(model, args.device)", OOM_PHASE_LOAD_WEIGHTS },
		{ "Diffusers failed loading model using pipeline: {MODEL} Stable Diffusion XL [enforce "
		  "fail at ..\\c10\\core\\impl\\alloc_cpu.cpp:72] data.", OOM_PHASE_LOAD_WEIGHTS },
		/* generic: a training step that moves a module stays a step */
		{ "  File \"train.py\", line 80, in training_step\n    self.head.to(self.device)\n"
		  "  File \"torch/nn/modules/module.py\", line 1152, in convert\n"
		  "    return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, "
		  "non_blocking)", OOM_PHASE_TRAINING_STEP },
		/* set 13 spent (w-spend13c): SGLang's attention backend is
		 * built after the KV pool is sized (model_runner.py
		 * initialize); FlexGen's weights are built in their homes */
		{ "  File \"sglang/srt/model_executor/model_runner.py\", line 766, in initialize\n"
		  "    self.init_attention_backend()\n"
		  "  File \"sglang/srt/layers/attention/flashinfer_backend.py\", line 202, in __init__\n"
		  "    global_workspace_buffer = torch.empty(", OOM_PHASE_KV_ALLOC },
		{ "  File \"/home/u/FlexGen/flexgen/flex_opt.py\", line 638, in __init__\n"
		  "    self.init_all_weights()\n"
		  "  File \"/home/u/FlexGen/flexgen/flex_opt.py\", line 801, in init_all_weights\n"
		  "    self.init_weight(j)\n"
		  "  File \"/home/u/FlexGen/flexgen/pytorch_backend.py\", line 190, in allocate",
		  OOM_PHASE_LOAD_WEIGHTS },
		{ "nothing to see", OOM_PHASE_UNKNOWN },
	};
	static const struct { const char *line; enum oom_phase want; } lines[] = {
		/* TGI's shard: get_model() raised (server.py serve_inner) */
		{ "ERROR text_generation_launcher: Error when "
		  "initializing model", OOM_PHASE_LOAD_WEIGHTS },
		/* Aphrodite after its weights: the profile run is next (sonar 414) */
		{ "INFO:     Model weights loaded. Memory usage: 3.88 GiB x 1 = 3.88 GiB",
		  OOM_PHASE_PROFILE },
		/* SGLang's multi-threaded weight iterator (lsglang #7) */
		{ "Multi-thread loading shards: 100% Completed | 142/142 [00:25<00:00,  5.66it/s]",
		  OOM_PHASE_LOAD_WEIGHTS },
		{ "[2026-05-01 10:00:00 TP0] Pre-allocating symmetric memory pool with 4 GB",
		  OOM_PHASE_WARMUP },
		{ "[2025-07-02 07:41:58 DP0 TP0] Load weight end. type=DeepseekV3ForCausalLM",
		  OOM_PHASE_KV_ALLOC },
		{ "INFO 06-05 06:10:00 [gpu_model_runner.py:1933] Capturing CUDA graph shapes",
		  OOM_PHASE_GRAPH_CAPTURE },
		{ "Jul 24 21:50:06 vega ollama[132945]: llm_load_tensors: offloaded 43/81 layers to GPU",
		  OOM_PHASE_LOAD_WEIGHTS },
		{ "[GIN] 2025/04/29 - 12:31:50 | 200 |  2.279007182s |  127.0.0.1 | POST     \"/api/generate\"",
		  OOM_PHASE_SERVING },
		/* set 18 (w-spend18d): a 200 on an Ollama route that serves no
		 * model (the CLI's /api/show before a load) is no request served */
		{ "[GIN] 2025/06/10 - 04:59:11 | 200 |   30.935256ms |       127.0.0.1 | POST     \"/api/show\"",
		  OOM_PHASE_UNKNOWN },
		/* Easy Diffusion names the model type whose load failed */
		{ "00:07:07.960 ERROR cuda:0 Error while loading vae model: C:\\EasyDiffusion\\models\\vae\\x.vae.pt",
		  OOM_PHASE_LOAD_WEIGHTS },
		{ "Starting minibatch loop.", OOM_PHASE_TRAINING_STEP },
		/* the model's metadata: its tensors are loaded next (ollama 9170) */
		{ "llm_load_print_meta: rope_yarn_log_mul    = 0.1000", OOM_PHASE_LOAD_WEIGHTS },
		/* LMDeploy logs each request it takes (lmdeploy 2055) */
		{ "2024-07-17 13:52:26,995 - lmdeploy - INFO - session_id=1, history_tokens=0, "
		  "input_tokens=2408, max_new_tokens=2048, seq_start=True, seq_end=True, step=0, "
		  "prep=True", OOM_PHASE_SERVING },
		/* TurboMind picks a GEMM kernel for a new shape at run time */
		{ "Failed to find a feasible kernel in the cache, will dispatch by heuristic.",
		  OOM_PHASE_SERVING },
	};
	size_t i;

	(void)state;
	assert_int_equal(memfail_self_check(), 0);
	for (i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
		assert_int_equal(memfail_phase_hint(hints[i].text, strlen(hints[i].text)), hints[i].want);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (memfail_phase_line(lines[i].line, strlen(lines[i].line)) != lines[i].want)
			fail_msg("phase line %s, want %s: %s",
				 oom_phase_name(memfail_phase_line(lines[i].line, strlen(lines[i].line))),
				 oom_phase_name(lines[i].want), lines[i].line);
	assert_string_equal(oom_phase_name(OOM_PHASE_KV_ALLOC), "kv_alloc");
	assert_string_equal(memfail_family_name(MF_UNKNOWN), "unknown");
}

/* The training stack a traceback's frames name (issue 27 item 3), from
 * the real excerpts' frames: DeepSpeed under the Trainer is DeepSpeed's,
 * ZeRO-3 by its partitioner, none for a serving engine's. */
static void stacks(void **state)
{
	static const struct { const char *text; int want; } t[] = {
		{ "  File \"/data/envs/viscpm/lib/python3.10/site-packages/deepspeed/runtime/zero/"
		  "stage_1_and_2.py\", line 1873, in backward", VST_DEEPSPEED },
		{ "  File \"site-packages/transformers/trainer.py\", line 1869, in"
		  " _inner_training_loop\n  File \"site-packages/deepspeed/runtime/zero/stage3.py\","
		  " line 1958, in step", VST_DEEPSPEED_ZERO3 },
		{ "  File \"site-packages/transformers/trainer.py\", line 2515, in evaluation_loop",
		  VST_HF_TRAINER },
		{ "[/usr/local/lib/python3.10/dist-packages/transformers/trainer_pt_utils.py]"
		  "(https://localhost:8080/#) in torch_pad_and_concatenate", VST_HF_TRAINER },
		{ "  File \"site-packages/pytorch_lightning/loops/training_epoch_loop.py\", line 218,"
		  " in advance", VST_LIGHTNING },
		{ "  File \"/home/gccrcv/anaconda3/envs/multinerf/lib/python3.9/site-packages/jax/_src/"
		  "dispatch.py\", line 895, in _execute_compiled", VST_JAX },
		{ "  File \"vllm/worker/worker.py\", line 493, in raise_if_cache_size_invalid", -1 },
		/* DeepSpeed's inference engine: no training stack (deepspeed
		 * issue 2933, tests/data/real/any_stack) */
		{ "  File \"/home/u/.local/lib/python3.8/site-packages/deepspeed/ops/transformer/"
		  "inference/ds_mlp.py\", line 45, in __init__", MEMFAIL_STACK_INFERENCE },
	};
	size_t i;
	int rank;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(memfail_stack_hint(t[i].text, strlen(t[i].text), &rank), t[i].want);
	assert_int_equal(memfail_phase_hint(t[3].text, strlen(t[3].text)), OOM_PHASE_EVAL);
	assert_string_equal(vocab_stack(VST_HF_TRAINER), "hf_trainer");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(phases),
		cmocka_unit_test(stacks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
