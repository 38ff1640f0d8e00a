/*
 * phase_table.c -- the frames and lines that name a program's phase; see
 * phase_table.h.
 *
 * The rows live in one file per engine family, and phase_marks[] below
 * is the list of them: phase_rows_tgi_trtllm.inc (TGI, TensorRT-LLM),
 * _vllm.inc (vLLM and the programs built on it), _sglang.inc,
 * _lmdeploy_mlc_exllama.inc (LMDeploy, MLC-LLM, exllamav2, mistral.rs),
 * _ggml.inc (llama.cpp, llama-server, Ollama, KoboldCpp, LM Studio),
 * _apps.inc (ComfyUI, AUTOMATIC1111, SD.Next, Fooocus, InvokeAI,
 * text-generation-webui), _frameworks.inc (PyTorch, transformers,
 * accelerate, PEFT, diffusers, bitsandbytes, DeepSpeed), _training.inc
 * (Keras, Lightning, fairseq, MLX, the RL trainers), _generic.inc (rows
 * of engine "any"), _startup.inc (phase startup, every engine) and
 * _mlx.inc (the MLX servers: vllm-mlx, Rapid-MLX, oMLX, mlx-serve),
 * _ds4.inc (antirez's ds4) and _speech.inc (faster-whisper,
 * openai-whisper, stable-ts). A
 * row goes to its engine's file, keeps its comment (the round that added
 * it stays there), and is appended, never reordered; a round's new rows
 * may come as a file of their own, included just before the array's
 * closing brace. The order of the files, as of the rows, decides only a
 * tie between two rows of one kind whose phrases start at the same byte,
 * one a prefix of the other (phase_table.h). Three such pairs exist, and
 * the order keeps each as it was: TGI's "in warmup" before vLLM's "in
 * warmup_kernels" (the TGI file comes first; both name warmup),
 * vLLM's "load_model" before ComfyUI's "load_models_gpu" (an engine's
 * frame and a framework's: the tiers decide, not the order), "Training"
 * before "Training Progress:" (one file). A new row that is a prefix of
 * another, or has one, must keep that in mind.
 *
 * Two kinds of line row name no stage of their own (round 6,
 * w-startup6):
 *   - start-up lines (phase startup): a line only a starting engine
 *     prints, before any stage line ("Initializing a V1 LLM engine").
 *     A failure after one, with no stage line, no frame naming a stage and
 *     no request served, is placed in `startup` by the structural rule
 *     (server_memfail.c srv_mem_line: such a line never replaces a stage
 *     already seen, and the oom row says "placed by start-up lines");
 *   - ready lines (phase serving): a line printed once the model is loaded
 *     and the server only runs requests from then on ("fired up and ready
 *     to roll", "Serving on http://").
 * uvicorn's own "Application startup complete" is not one: SGLang sends
 * its warm-up request after it, and an application that loads its model
 * on the first request prints it before the load. A generation loop's
 * frame names the serving phase only where the program's warm-up does not
 * run through it (set 6, spent round 7, w-spent6p: checked for each such
 * row); rows that the warm-up shares are not made.
 *
 * Each row was checked against the engine's source where the source
 * could be read here: TGI, LMDeploy, Ollama, DeepSpeed, accelerate and
 * Lightning at several tags each (git grep/show; the tags are named);
 * vLLM, SGLang, llama.cpp and transformers are too large to fetch whole,
 * so their rows were read in one indexed version of the file (the
 * commit is named) and their version ranges are those the real threads
 * print. "thread" rows are wordings an engine printed in a real excerpt
 * under tests/data/real, whose MANIFEST.tsv gives the thread. Rows
 * dropped or changed when they were checked, and why:
 *   - "initialize_kv_cache" also matched vLLM's LLMEngine/EngineCore
 *     _initialize_kv_caches, which encloses the profile run, the KV
 *     allocation, graph capture and the sampler warm-up: now the
 *     worker's own frame ("in initialize_kv_cache") and its call only.
 *   - "alloc_tensor_range" (ggml-alloc.c) allocates any context's
 *     tensors, the KV cache's as well as the weights': it names no
 *     phase; llama.cpp's next line does ("failed to allocate buffer for
 *     kv cache", "llama_model_load: error loading model").
 *   - optimizer.step, .backward(, run_backward, "in backward" are
 *     generic (PM_GENERIC): DeepSpeed's set-up and any engine's own
 *     frame decide before them.
 *   - DeepSpeed's init_inference and its kernel injection are a
 *     model's load for inference, not a training set-up.
 * The framework rows (W: transformers, accelerate, PEFT, diffusers,
 * ComfyUI, Lightning, Keras) rank below every engine's own frame
 * (phase_table.h); ComfyUI's were read in comfy/model_patcher.py and
 * model_management.py at the indexed commits named, Keras's in
 * keras/engine/training.py at v2.11.0 (fit -> train_function, evaluate ->
 * test_function, predict -> predict_function; traceback_utils hides them
 * from 2.9, leaving the caller's model.fit( line), the others at the
 * files named. Not made rows: accelerate's set_module_tensor_to_device
 * (its hooks call it at forward time too, on offloaded weights), a bare
 * ".cuda()" or ".to(" (any phase moves tensors), and JAX's compile against
 * execute (a jitted step compiles inside its first call: its phase is the
 * step's; XLA's compile-time OOM is read by its own words, startup_phase.c
 * rl_phase_compile_time).
 */
#include "parsers/serving/phase_table.h"

#define F(p, ph, eng, ver, src) { p, OOM_PHASE_##ph, PM_FRAME, 0, eng, ver, src }
#define G(p, ph, eng, ver, src) { p, OOM_PHASE_##ph, PM_FRAME, PM_GENERIC, eng, ver, src }
#define L(p, ph, eng, ver, src) { p, OOM_PHASE_##ph, PM_LINE, 0, eng, ver, src }
/* a framework's frame (PM_FRAMEWORK): an engine's own frame decides first */
#define W(p, ph, eng, ver, src) { p, OOM_PHASE_##ph, PM_FRAME, PM_FRAMEWORK, eng, ver, src }
/* a line printed after a failure naming the stage that failed (PM_AFTER) */
#define A(p, ph, eng, ver, src) { p, OOM_PHASE_##ph, PM_AFTER, 0, eng, ver, src }
/* a tqdm bar's description, counted only where it opens a bar (PM_TQDM) */
#define AT(p, ph, eng, ver, src) { p, OOM_PHASE_##ph, PM_AFTER, PM_TQDM, eng, ver, src }
/* a tqdm bar's description drawn before the failure (PM_LINE, PM_TQDM) */
#define LT(p, ph, eng, ver, src) { p, OOM_PHASE_##ph, PM_LINE, PM_TQDM, eng, ver, src }
/* a ComfyUI node named "...Loader" (PM_FRAMEWORK | PM_LOADER, phase_table.h) */
#define WL(p, ph, eng, ver, src) { p, OOM_PHASE_##ph, PM_FRAME, PM_FRAMEWORK | PM_LOADER, eng, ver, src }
/* a line saying the program runs a request's work, none served (PM_RUNS) */
#define LR(p, ph, eng, ver, src) { p, OOM_PHASE_##ph, PM_LINE, PM_RUNS, eng, ver, src }
/* a step several start-up stages run (PM_INSIDE): a later stage the
 * log's lines name wins (set 10, spent round 9) */
#define FI(p, ph, eng, ver, src) { p, OOM_PHASE_##ph, PM_FRAME, PM_INSIDE, eng, ver, src }
/* a supervisor starting a new engine process for a load (PM_RESTART) */
#define LS(p, ph, eng, ver, src) { p, OOM_PHASE_##ph, PM_LINE, PM_RESTART, eng, ver, src }
/* a line of a model's build or its weights' read from files (PM_RELOAD) */
#define LD(p, ph, eng, ver, src) { p, OOM_PHASE_##ph, PM_LINE, PM_RELOAD, eng, ver, src }
/* a multimodal projector's stage line (PM_PROJECTOR): its own graph */
#define LP(p, ph, eng, ver, src) { p, OOM_PHASE_##ph, PM_LINE, PM_PROJECTOR, eng, ver, src }
/* a scope in the name of the TensorFlow op that failed (PM_AFTER, PM_TFNODE) */
#define AN(p, ph, eng, ver, src) { p, OOM_PHASE_##ph, PM_AFTER, PM_TFNODE, eng, ver, src }

#define V0W "vllm/worker/worker.py@002a0ba"
#define V0R "vllm/worker/model_runner.py@587909c"
#define V1W "vllm/v1/worker/gpu_worker.py@0012cf6"
#define V1R "vllm/v1/worker/gpu_model_runner.py@4e17906"
#define VEX "vllm/executor/uniproc_executor.py, vllm/v1/executor/abstract.py (indexed copies)"
#define EXL "exllamav2@"
#define DS "deepspeed@v0.10.0,v0.14.0,edaa722"
#define THREAD "thread (tests/data/real MANIFEST.tsv)"
#define TGI "text-generation-inference@"
#define TGI_FCL "server/text_generation_server/models/flash_causal_lm.py"
#define LMD "lmdeploy@"
#define LMD_TM "lmdeploy/turbomind/turbomind.py"
#define OLL "ollama@"
#define ACC "accelerate@"
#define TRT "tensorrt_llm/_torch/pyexecutor/py_executor_creator.py@000429d"
#define TRT_PY "indexed copies, tensorrt_llm/_torch/pyexecutor/"
#define LIT "pytorch-lightning@"
#define HF_MU "src/transformers/modeling_utils.py"
#define COMFY_MP "comfy/model_patcher.py@000a21a"
#define COMFY_NODES "nodes.py NODE_CLASS_MAPPINGS (ComfyUI indexed copies, 2023-2025)"
#define KERAS "keras@v2.11.0 keras/engine/training.py"
#define MLC_CM "mlc-llm@3c6e6f0a python/mlc_chat/chat_module.py"
#define MLC_LC "mlc-llm@3c6e6f0a cpp/llm_chat.cc"
#define MLC_SV "mlc-llm@v0.19.0 "

const struct phase_mark phase_marks[] = {
#include "parsers/serving/phase_rows_tgi_trtllm.inc"
#include "parsers/serving/phase_rows_vllm.inc"
#include "parsers/serving/phase_rows_sglang.inc"
#include "parsers/serving/phase_rows_lmdeploy_mlc_exllama.inc"
#include "parsers/serving/phase_rows_ggml.inc"
#include "parsers/serving/phase_rows_apps.inc"
#include "parsers/serving/phase_rows_frameworks.inc"
#include "parsers/serving/phase_rows_training.inc"
#include "parsers/serving/phase_rows_generic.inc"
#include "parsers/serving/phase_rows_startup.inc"
#include "parsers/serving/phase_rows_mlx.inc"
#include "parsers/serving/phase_rows_ds4.inc"
#include "parsers/serving/phase_rows_speech.inc"
};

const size_t phase_marks_n = sizeof(phase_marks) / sizeof(phase_marks[0]);
