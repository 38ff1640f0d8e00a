/*
 * phase_table.c -- the frames and lines that name a program's phase; see
 * phase_table.h.
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
	/* the programs around the engines (round 7): phase_table_apps.h */
#include "parsers/serving/phase_table_apps.h"
	/* ---- frames: vLLM ---------------------------------------------- */
	/* V1: compile_or_warm_up_model runs the compile sizes' dummy runs,
	 * capture_model, then _dummy_sampler_run (whose OOM says "warming
	 * up sampler"); profile_run also ends with a sampler run */
	F("_dummy_sampler_run", WARMUP, "vllm", "V1 0.8-0.11", V1W),
	F("_dummy_pooler_run", WARMUP, "vllm", "V1 0.9-0.11", V1R),
	F("compile_or_warm_up_model", WARMUP, "vllm", "V1 0.7-0.11", V1W),
	F("warming up sampler", WARMUP, "vllm", "V1 0.8-0.13", V1R),
	/* the pooling models' run: "CUDA out of memory occurred when warming
	 * up pooler (task=...) with N dummy requests" */
	F("occurred when warming up pooler", WARMUP, "vllm", "V1 0.10-0.13", V1R),
	F("capture_model", GRAPH_CAPTURE, "vllm", "V0 0.2-0.10, V1", V0W " " V1W),
	F("_capture_cudagraphs", GRAPH_CAPTURE, "vllm", "V1 0.10-0.11", THREAD),
	/* from 0.19 determine_available_memory captures the graphs once to
	 * measure them before sizing the KV cache (profile_cudagraph_memory,
	 * VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS): an OOM there is the
	 * graphs', whose knobs are the capture sizes and --enforce-eager */
	F("profile_cudagraph_memory", GRAPH_CAPTURE, "vllm", "V1 0.19-0.25", V1W " (vllm pull 30515, 41834 threads)"),
	/* V0's _warm_up_model only captures the graphs */
	F("in _warm_up_model", GRAPH_CAPTURE, "vllm", "V0 0.4-0.10", V0W),
	F("capture_begin", GRAPH_CAPTURE, "pytorch", "1.10-2.x", "torch/cuda/graphs.py"),
	F("capture_end", GRAPH_CAPTURE, "pytorch", "1.10-2.x", "torch/cuda/graphs.py"),
	/* V0: initialize_cache checks the blocks, builds the CacheEngine
	 * (_allocate_kv_cache), then _warm_up_model (inner, wins) */
	F("raise_if_cache_size_invalid", KV_ALLOC, "vllm", "V0 0.4-0.10", V0W),
	F("_allocate_kv_cache", KV_ALLOC, "vllm", "V0 0.2-0.10, V1", "vllm/worker/cache_engine.py"),
	F("init_cache_engine", KV_ALLOC, "vllm", "V0 0.4-0.10", V0W),
	F("in initialize_cache", KV_ALLOC, "vllm", "V0 0.4-0.10", V0W),
	F("in initialize_kv_cache", KV_ALLOC, "vllm", "V1 0.7-0.11", V1W),
	F(".initialize_kv_cache(", KV_ALLOC, "vllm", "V1 0.7-0.11", V1W),
	F("check_enough_kv_cache_memory", KV_ALLOC, "vllm", "V1 0.8-0.11", "vllm/v1/core/kv_cache_utils.py"),
	F("profile_run", PROFILE, "vllm", "V0, V1 (also SGLang's)", V0W " " V1W),
	F("determine_available_memory", PROFILE, "vllm", "V1 0.7-0.11", V1W),
	F("determine_num_available_blocks", PROFILE, "vllm", "V0 0.2-0.10", V0W),
	/* V1's engine core steps only once it serves; V0's MQLLMEngine
	 * runs run_engine_loop once set up; LLM.generate() adds requests
	 * and _run_engine steps them */
	F("run_busy_loop", SERVING, "vllm", "V1 0.8-0.11", "vllm/v1/engine/core.py"),
	F("run_engine_loop", SERVING, "vllm", "V0 0.3-0.10", "vllm/engine/async_llm_engine.py"),
	F("engine_step", SERVING, "vllm", "V0 0.3-0.10", "vllm/engine/async_llm_engine.py"),
	F("Engine loop is not running", SERVING, "vllm", "V0 0.6-0.10", THREAD),
	F("llm.generate(", SERVING, "vllm", "any", THREAD),
	F("in _run_engine", SERVING, "vllm", "0.2-0.11", "vllm/entrypoints/llm.py"),
	/* the quant methods allocate each layer's weights as the model is
	 * built (linear.py "Failed to create unquantized linear weights") */
	F("in create_weights", LOAD_WEIGHTS, "vllm", "0.4-0.11", "vllm/model_executor/layers/linear.py"),
	F("create unquantized linear weights", LOAD_WEIGHTS, "vllm", "0.9-0.11", THREAD),
	/* the Marlin kernels' weights are repacked once loaded
	 * (process_weights_after_loading calls gptq_marlin_repack) */
	F("process_weights_after_loading", LOAD_WEIGHTS, "vllm", "0.4-0.11", "vllm/model_executor/model_loader/utils.py"),
	F("in gptq_marlin_repack", LOAD_WEIGHTS, "vllm", "0.4-0.11", "vllm/_custom_ops.py"),
	F("in awq_marlin_repack", LOAD_WEIGHTS, "vllm", "0.5-0.11", "vllm/_custom_ops.py"),
	F("load_weights", LOAD_WEIGHTS, "vllm", "0.2-0.11 (also SGLang's)", "vllm/model_executor/models/*.py"),
	F("load_model", LOAD_WEIGHTS, "vllm", "V0, V1 (also SGLang's, Ollama's)", V0W " " V1W),
	/* the executor's own set-up: init_worker, init_device, load_model
	 * (uniproc/multiproc/ray _init_executor); the engine sizes the KV
	 * cache only after it returns (LLMEngine/EngineCore._initialize_kv_caches),
	 * so a traceback whose innermost vLLM frame is this one failed while
	 * the model was loaded */
	F("in _init_executor", LOAD_WEIGHTS, "vllm", "V0 0.6-0.10, V1 0.7-0.13", VEX),
	F("self._init_executor()", LOAD_WEIGHTS, "vllm", "V0 0.6-0.10, V1 0.7-0.13", VEX),
	/* ---- frames: SGLang -------------------------------------------- */
	F("init_memory_pool", KV_ALLOC, "sglang", "0.1-0.5", "python/sglang/srt/model_executor/model_runner.py"),
	F("profile_max_num_token", PROFILE, "sglang", "0.2-0.5", "python/sglang/srt/model_executor/model_runner.py"),
	F("increase --mem-fraction-static", KV_ALLOC, "sglang", "0.2-0.5", THREAD),
	F("init_cuda_graphs", GRAPH_CAPTURE, "sglang", "0.2-0.4", "python/sglang/srt/model_executor/model_runner.py"),
	/* later "Capture device graphs" (also CPU graphs), the runner built
	 * there: CudaGraphRunner( also matches Piecewise/BreakableCudaGraphRunner( */
	F("init_device_graphs", GRAPH_CAPTURE, "sglang", "0.4-0.5", "python/sglang/srt/model_executor/model_runner.py@0005834"),
	/* CudaGraphRunner.__init__ wraps a capture's error: "Capture cuda
	 * graph failed: CUDA out of memory. ..." */
	F("Capture cuda graph failed", GRAPH_CAPTURE, "sglang", "0.3-0.5", "python/sglang/srt/model_executor/cuda_graph_runner.py"),
	F("CudaGraphRunner(", GRAPH_CAPTURE, "sglang", "0.2-0.5", "python/sglang/srt/model_executor/cuda_graph_runner.py"),
	/* ModelRunner.initialize's last step, after the device and piecewise
	 * graphs: the symmetric-memory pool (SGLANG_SYMM_MEM_PREALLOC_GB_SIZE)
	 * is reserved before the server warms up and serves */
	F("prealloc_symmetric_memory_pool", WARMUP, "sglang", "0.5.x (2026)", "python/sglang/srt/model_executor/model_runner.py (indexed copies)"),
	F("event_loop_normal", SERVING, "sglang", "0.3-0.5", "python/sglang/srt/managers/scheduler.py"),
	F("event_loop_overlap", SERVING, "sglang", "0.3-0.5", "python/sglang/srt/managers/scheduler.py"),
	/* the scheduler's admission of a prefill batch (schedule_policy.py /
	 * mem_cache allocators): "Prefill out of memory. Try to lower your
	 * batch size." */
	F("Prefill out of memory", SERVING, "sglang", "0.4-0.5", THREAD),
	F("Decode out of memory", SERVING, "sglang", "0.4-0.5", THREAD),
	F("memory leak detected", SERVING, "sglang", "0.1-0.5 (idle check)", THREAD),
	F("KV cache pool leak detected", SERVING, "sglang", "0.1-0.2", THREAD),
	/* ---- frames: exllamav2 (TabbyAPI, text-generation-webui) -------- */
	/* ExLlamaV2Cache* allocate every layer's K/V (and the Q caches'
	 * scales and fp16 temp tensors) when built, after the model loaded */
	F("create_state_tensors", KV_ALLOC, "exllamav2", "0.0.x-0.3", EXL "f25f653 exllamav2/cache.py"),
	F("in touch_device", KV_ALLOC, "exllamav2", "0.1-0.3", EXL "f25f653 exllamav2/cache.py"),
	F("in update_cache_tensors", KV_ALLOC, "exllamav2", "0.1-0.3", EXL "f25f653 exllamav2/cache.py"),
	/* ExLlamaV2.load*: each module's weights; get_device_context
	 * prepares a device's scratch the first time a module on it loads */
	F("in load_gen", LOAD_WEIGHTS, "exllamav2", "0.0.x-0.3", EXL "7ba31d8 exllamav2/model.py"),
	F("in load_autosplit_gen", LOAD_WEIGHTS, "exllamav2", "0.0.x-0.3", EXL "7ba31d8 exllamav2/model.py"),
	F("context.prepare(scratch)", LOAD_WEIGHTS, "exllamav2", "0.1-0.3", EXL "7ba31d8 exllamav2/model.py"),
	/* ---- frames: TGI ----------------------------------------------- */
	F("Method Warmup", WARMUP, "tgi", "1.0-3.3", TGI "v1.0.0..v3.3.0 server/text_generation_server/server.py"),
	/* serve_inner() builds the model with get_model() (the weights)
	 * before the server answers Warmup; vLLM's and SGLang's model
	 * loaders name their entry the same */
	F("in get_model", LOAD_WEIGHTS, "tgi, vllm, sglang", "tgi 0.9-3.3, vllm 0.4-0.13", TGI "server/text_generation_server/models/__init__.py"),
	F("in warmup", WARMUP, "tgi", "1.0-3.3", TGI "v1.0.0..v3.3.0 " TGI_FCL),
	/* warmup() turns the prefill run's OOM into its own RuntimeError
	 * ("Not enough memory to handle N prefill tokens. You need to
	 * decrease `--max-batch-prefill-tokens`"), so the message alone
	 * names the phase; the sentence may wrap after "tokens." */
	F("prefill tokens. You need to decrease", WARMUP, "tgi", "1.0-3.3", TGI "v1.0.0..v3.3.0 " TGI_FCL),
	F("You need to decrease `--max-batch-prefill-tokens`", WARMUP, "tgi", "1.0-3.3", TGI "v1.0.0..v3.3.0 " TGI_FCL),
	F("warmup{", WARMUP, "tgi", "1.x-3.x router span", THREAD),
	F("to warmup model", WARMUP, "tgi", "0.9 router", TGI "v0.9.0 router/src/main.rs"),
	F("to warmup the Python model shards", WARMUP, "tgi", "1.0-3.3", TGI "v1.0.0..v3.3.0 router, backends/v3"),
	/* from 2.4 warmup() sizes the blocks, then allocates the KV cache
	 * (init_kv_cache) and captures the decode graphs (cuda_graph_warmup,
	 * from 2.0), then tunes (tunableop_warmup, ROCm) */
	F("in init_kv_cache", KV_ALLOC, "tgi", "2.4-3.3", TGI "v2.4.0..v3.3.0 " TGI_FCL),
	F("cuda_graph_warmup", GRAPH_CAPTURE, "tgi", "2.0-3.3", TGI "v2.0.0..v3.3.0 " TGI_FCL),
	F("tunableop_warmup", WARMUP, "tgi", "2.4-3.3", TGI "v2.4.0..v3.3.0 " TGI_FCL),
	/* the Python client's error for a request the server failed */
	F("Request failed during generation", SERVING, "tgi", "1.x-3.x client", "clients/python/text_generation/errors.py"),
	F("Method Prefill", SERVING, "tgi", "1.x-3.x", "server/text_generation_server/server.py"),
	F("Method Decode", SERVING, "tgi", "1.x-3.x", "server/text_generation_server/server.py"),
	/* the router's batching task (started after warm-up) opens a
	 * "batch" span with batch_size around each prefill and decode it
	 * sends; a shard's error is logged inside it */
	F("batch{batch_size=", SERVING, "tgi", "0.9-3.x router span",
	  TGI "v0.9.0..v2.0.0 router/src/infer.rs, v3.0.0 backends/v3/src/backend.rs"),
	/* ---- frames: TensorRT-LLM (its _ExecutorMemoryMonitor's "The
	 * following component could not be created: X") ------------------ */
	F("temporary for KV cache size estimation)", PROFILE, "tensorrt-llm", "0.20-1.x", TRT),
	F("created: Model resources created during usage", PROFILE, "tensorrt-llm", "0.20-1.x", TRT),
	F("could not be created: KV cache", KV_ALLOC, "tensorrt-llm", "0.20-1.x", TRT),
	F("could not be created: Model", LOAD_WEIGHTS, "tensorrt-llm", "0.20-1.x", TRT),
	F("could not be created: Draft model", LOAD_WEIGHTS, "tensorrt-llm", "0.20-1.x", TRT),
	/* the executor built again once the KV cache is sized: its CUDA
	 * graphs and warm-up ("reduce max_num_tokens", TensorRT-LLM says);
	 * the estimation's own "(temporary ...)" stage is printed after the
	 * same words and wins as the later phrase */
	F("created: Additional executor resources", WARMUP, "tensorrt-llm", "0.20-1.x", TRT),
	/* the PyTorch backend loads each module's weights in a thread pool
	 * (load_weights -> load_single_module): "Error executing
	 * load_single_module with args ('model.layers.9.mlp.gate_up_proj', ...)" */
	F("load_single_module", LOAD_WEIGHTS, "tensorrt-llm", "1.0-1.x (PyTorch backend)",
	  "tensorrt_llm/_torch/models/modeling_utils.py@cb4c622"),
	/* gapsb: the PyTorch backend's stages by their functions. PyExecutor
	 * runs model_engine.warmup() in its __init__, before the event loop
	 * (_executor_loop, _executor_loop_overlap, _executor_loop_pp, all
	 * under _event_loop_wrapper) takes requests; warmup() runs the
	 * torch.compile and autotuner warm-ups, then captures the decode
	 * graphs (_capture_generation_cuda_graphs, called from
	 * _run_cuda_graph_warmup); KvCacheCreator (_util.py) sizes the KV
	 * cache with a temporary executor (estimate_max_tokens, from 1.1
	 * configure_kv_cache_capacity) and builds it (_create_kv_cache_manager).
	 * Read in the indexed copies of tensorrt_llm/_torch/pyexecutor/
	 * py_executor.py, model_engine.py and _util.py (0.19 to 1.3). The
	 * KV manager's "Can't allocate new blocks for window size N. No free
	 * blocks left." (kvCacheManager.cpp, 2025) is raised in each of these
	 * stages: these frames place it. */
	F("in _executor_loop", SERVING, "tensorrt-llm", "0.17-1.x (PyTorch backend)", TRT_PY "py_executor.py"),
	F("in _event_loop_wrapper", SERVING, "tensorrt-llm", "0.20-1.x (PyTorch backend)", TRT_PY "py_executor.py"),
	F("in _capture_generation_cuda_graphs", GRAPH_CAPTURE, "tensorrt-llm", "1.0-1.x (PyTorch backend)",
	  TRT_PY "model_engine.py"),
	F("in _run_autotuner_warmup", WARMUP, "tensorrt-llm", "0.19-1.x (PyTorch backend)", TRT_PY "model_engine.py"),
	F("in _run_torch_compile_warmup", WARMUP, "tensorrt-llm", "0.20-1.x (PyTorch backend)", TRT_PY "model_engine.py"),
	F("in _general_warmup", WARMUP, "tensorrt-llm", "1.0-1.x (PyTorch backend)", TRT_PY "model_engine.py"),
	F("in _create_kv_cache_manager", KV_ALLOC, "tensorrt-llm", "0.19-1.x (PyTorch backend)", TRT_PY "_util.py"),
	F("in estimate_max_tokens", PROFILE, "tensorrt-llm", "0.19-1.0 (PyTorch backend)", TRT_PY "_util.py"),
	F("in configure_kv_cache_capacity", PROFILE, "tensorrt-llm", "1.1-1.x (PyTorch backend)", TRT_PY "_util.py"),
	/* ---- frames: LMDeploy / TurboMind ------------------------------- */
	/* the PyTorch engine's request loop (pytorch/engine/request.py
	 * _raise_exception_on_finish): it runs the batches it is sent */
	F("Engine loop failed with error", SERVING, "lmdeploy", "0.4-0.6 (pytorch engine)", "lmdeploy/pytorch/engine/request.py (indexed copy)"),
	/* to 0.5 the engine and its BlockManager (the KV cache) were built
	 * with the first model instance; from 0.6 create_engine builds them
	 * right after the weights (process_weight) */
	F("_create_model_instance", KV_ALLOC, "lmdeploy", "0.2-0.5", LMD "v0.2.0,v0.4.0 " LMD_TM),
	F("model_comm.create_engine", KV_ALLOC, "lmdeploy", "0.6-0.8", LMD "v0.6.0,v0.8.0 " LMD_TM),
	F("in _create_engine", KV_ALLOC, "lmdeploy", "0.9-0.16", LMD "v0.16.0 " LMD_TM),
	F("model_comm.process_weight", LOAD_WEIGHTS, "lmdeploy", "0.6-0.8", LMD "v0.8.0 " LMD_TM),
	F("_create_weight", LOAD_WEIGHTS, "lmdeploy", "0.2-0.16", LMD "v0.2.0..v0.16.0 " LMD_TM),
	F("create_shared_weights", LOAD_WEIGHTS, "lmdeploy", "0.2-0.8", LMD "v0.2.0..v0.8.0 " LMD_TM),
	/* ---- frames and function prefixes: llama.cpp, Ollama ------------ */
	F("llama_kv_cache_update", SERVING, "llama.cpp", "b2000-b6000", THREAD),
	F("llama_decode", SERVING, "llama.cpp", "all", "src/llama-context.cpp"),
	F("[Task Queue]", SERVING, "runpod-fooocus", "any", THREAD),
	F("llama_kv_cache_init", KV_ALLOC, "llama.cpp", "b1000-b5500", "llama.cpp / src/llama-kv-cache.cpp"),
	F("failed to allocate buffer for kv cache", KV_ALLOC, "llama.cpp", "b3000-", "src/llama-kv-cache.cpp"),
	F("ggml_gallocr_reserve", PROFILE, "llama.cpp", "all (ggml-alloc.c)", "ggml/src/ggml-alloc.c"),
	F("graph_reserve", PROFILE, "llama.cpp", "b5000-", "src/llama-context.cpp"),
	F("sched_reserve", PROFILE, "llama.cpp", "all (ggml-backend.c)", "ggml/src/ggml-backend.cpp"),
	F("compute pp buffers", PROFILE, "llama.cpp", "b4000-", "src/llama-context.cpp"),
	F("load_tensors", LOAD_WEIGHTS, "llama.cpp", "all (llm_load_tensors, later load_tensors)", "src/llama-model.cpp"),
	F("llama_model_load", LOAD_WEIGHTS, "llama.cpp", "all", "src/llama.cpp"),
	F("error loading model", LOAD_WEIGHTS, "llama.cpp", "all", "src/llama.cpp"),
	F("error loading llama server", LOAD_WEIGHTS, "ollama", "0.1-0.33", OLL "v0.9.0..v0.33 server/sched.go"),
	/* the model's load: the runner could not allocate the layout fitted
	 * for weights, KV cache and graph */
	F("memory layout cannot be allocated", LOAD_WEIGHTS, "ollama", "0.12-0.20", OLL "v0.12.0,v0.20.0 llm/server.go"),
	/* ---- frames: start-up, the stage not shown ---------------------- */
	/* an engine that says only that it did not start: any stage named
	 * decides before these (memfail.c mark_level); the failure was
	 * before serving all the same */
	F("Engine core initialization failed", STARTUP, "vllm", "V1 0.8-0.11",
	  "vllm/v1/engine/utils.py wait_for_engine_startup (0.9: vllm/v1/utils.py)"),
	F("EngineCore failed to start", STARTUP, "vllm", "V1 0.8-0.11",
	  "vllm/v1/engine/core.py run_engine_core"),
	F("Engine process failed to start", STARTUP, "vllm", "V0 0.6-0.10",
	  "vllm/entrypoints/openai/api_server.py build_async_engine_client_from_engine_args"),
	F("Executor creation failed", STARTUP, "tensorrt-llm", "0.20-1.x", TRT),
	F("observe_creation_stage", STARTUP, "tensorrt-llm", "0.20-1.x", TRT),
	F("ShardCannotStart", STARTUP, "tgi", "0.9-3.3", TGI "v1.0.0..v3.3.0 launcher/src/main.rs"),
	/* ---- frames: Hugging Face, Keras -------------------------------- */
	W("from_pretrained", LOAD_WEIGHTS, "transformers", "4.x", "src/transformers/modeling_utils.py"),
	W("from_preset", LOAD_WEIGHTS, "keras_hub", "0.x", THREAD),
	W("load_state_dict", LOAD_WEIGHTS, "pytorch", "all", "torch/nn/modules/module.py"),
	/* transformers' load of a checkpoint into the model built on the meta
	 * device, and a sharded checkpoint (Trainer's resume too) */
	W("_load_state_dict_into_meta_model", LOAD_WEIGHTS, "transformers", "4.26-4.5x", HF_MU),
	W("_load_pretrained_model", LOAD_WEIGHTS, "transformers", "4.x", HF_MU),
	W("load_sharded_checkpoint", LOAD_WEIGHTS, "transformers", "4.19-4.5x", HF_MU),
	/* GenerationMixin.generate, any caller's: a library call, so a
	 * Trainer's step or an engine's frame decides before it; alone (an
	 * evaluation or inference script) it is evaluation */
	G("generation/utils.py", EVAL, "transformers", "4.27-", "src/transformers/generation/utils.py"),
	G("generation_utils.py", EVAL, "transformers", "4.0-4.26", "src/transformers/generation_utils.py"),
	/* PEFT wraps the loaded model: adapters added, and for k-bit training
	 * the norms and the head cast to float32 */
	W("get_peft_model", LOAD_WEIGHTS, "peft", "0.3-0.1x", "src/peft/mapping.py"),
	W("prepare_model_for_kbit_training", LOAD_WEIGHTS, "peft", "0.4-0.1x", "src/peft/utils/other.py"),
	/* diffusers: a pipeline's modules moved to the card (DiffusionPipeline.to
	 * calls each module's .to; the call as printed under its frame) */
	W("module.to(torch_device, torch_dtype)", LOAD_WEIGHTS, "diffusers", "0.1x-0.2x",
	  "src/diffusers/pipelines/pipeline_utils.py DiffusionPipeline.to (vladmandic/sdnext#1622)"),
	/* ComfyUI loads a model onto the card when a node needs it:
	 * model_management.load_models_gpu -> LoadedModel.model_load ->
	 * ModelPatcher.patch_model / partially_load -> load, which patches each
	 * weight onto the device (patch_weight_to_device) and moves the modules
	 * (x[2].to(device_to)) */
	W("load_models_gpu", LOAD_WEIGHTS, "comfyui", "2023-2025", "comfy/model_management.py@faad5f1"),
	W("in patch_model", LOAD_WEIGHTS, "comfyui", "2023-2025", COMFY_MP),
	W("partially_load", LOAD_WEIGHTS, "comfyui", "2024-2025", COMFY_MP),
	W("patch_weight_to_device", LOAD_WEIGHTS, "comfyui", "2023-2025", COMFY_MP),
	W("x[2].to(device_to)", LOAD_WEIGHTS, "comfyui", "2024-2025", COMFY_MP " ModelPatcher.load"),
	/* Keras: fit runs train_function over the batches, evaluate and
	 * predict test_function and predict_function; from 2.9 its
	 * traceback_utils filter hides Keras's own frames, leaving the
	 * caller's call ("history = model.fit(") */
	W("model.fit(", TRAINING_STEP, "keras", "2.x-3.x", KERAS " Model.fit; keras/utils/traceback_utils.py"),
	W("fit_generator", TRAINING_STEP, "keras", "2.0-2.x", KERAS " Model.fit_generator"),
	W("_fit_loop", TRAINING_STEP, "keras", "2.0-2.2", "keras@2.2.4 keras/engine/training.py"),
	W("train_function", TRAINING_STEP, "keras", "2.2-2.15", KERAS " make_train_function"),
	W("train_on_batch", TRAINING_STEP, "keras", "2.x", KERAS " Model.train_on_batch"),
	W("test_function", EVAL, "keras", "2.2-2.15", KERAS " make_test_function"),
	W("test_on_batch", EVAL, "keras", "2.x", KERAS " Model.test_on_batch"),
	W("predict_function", EVAL, "keras", "2.2-2.15", KERAS " make_predict_function"),
	W("predict_on_batch", EVAL, "keras", "2.x", KERAS " Model.predict_on_batch"),
	W("model.predict(", EVAL, "keras", "2.x-3.x", KERAS " Model.predict"),
	/* a model moved to the card whole: Module.to's inner convert (its
	 * source line under the frame, 1.0-2.x: "return t.to(device, dtype if
	 * t.is_floating_point() [or t.is_complex()] else None, non_blocking")
	 * and Module.cuda ("return self._apply(lambda t: t.cuda(device))").
	 * Generic: an engine's or a loop's own frame around it decides (a
	 * training step that moves a module is still a training step) */
	G("t.to(device, dtype if t.is_floating_point()", LOAD_WEIGHTS, "pytorch", "1.0-2.x",
	  "torch/nn/modules/module.py@v1.13.1,v2.4.0 (Module.to)"),
	G("lambda t: t.cuda(device)", LOAD_WEIGHTS, "pytorch", "1.0-2.x",
	  "torch/nn/modules/module.py@v1.13.1,v2.4.0 (Module.cuda)"),
	/* the Trainer moves the model to the card as it is built (unless
	 * DeepSpeed, FSDP or model parallelism place it) */
	W("_move_model_to_device", LOAD_WEIGHTS, "transformers", "4.x", "src/transformers/trainer.py (Trainer.__init__)"),
	/* SD.Next's loader wraps the load's exception in one line
	 * (modules/sd_models.py load_diffuser: "Diffusers failed loading
	 * model using pipeline: PATH PIPELINE ERROR") */
	F("failed loading model", LOAD_WEIGHTS, "sdnext", "2023-2025", "vladmandic/sdnext modules/sd_models.py"),
	G("return self._apply(convert)", LOAD_WEIGHTS, "pytorch", "1.x-2.x", "torch/nn/modules/module.py"),
	/* accelerate: a big model placed over the devices, or the model
	 * moved (and wrapped: DDP, FSDP's shards) by Accelerator.prepare */
	W("load_checkpoint_and_dispatch", LOAD_WEIGHTS, "accelerate", "0.20-1.14", ACC "v0.20.0..v1.14.0 src/accelerate/big_modeling.py"),
	W("dispatch_model", LOAD_WEIGHTS, "accelerate", "0.20-1.14", ACC "v0.20.0..v1.14.0 src/accelerate/big_modeling.py"),
	W("load_checkpoint_in_model", LOAD_WEIGHTS, "accelerate", "0.20-1.14", ACC "v0.20.0..v1.14.0 src/accelerate/utils/modeling.py"),
	W("in prepare_model", LOAD_WEIGHTS, "accelerate", "0.20-1.14", ACC "v0.20.0..v1.14.0 src/accelerate/accelerator.py"),
	/* ---- frames: DeepSpeed ------------------------------------------ */
	/* deepspeed.initialize: the model moved to the card, ZeRO's
	 * partitions and optimizer states (whose set-up runs
	 * optimizer.step() once, stage_1_and_2.py initialize_optimizer_states) */
	F("_configure_zero_optimizer", LOAD_WEIGHTS, "deepspeed", "0.3-0.18", DS " runtime/engine.py"),
	F("_configure_distributed_model", LOAD_WEIGHTS, "deepspeed", "0.3-0.18", DS " runtime/engine.py"),
	F("initialize_optimizer_states", LOAD_WEIGHTS, "deepspeed", "0.3-0.18", DS " runtime/zero/"),
	F("deepspeed.initialize", LOAD_WEIGHTS, "deepspeed", "all", DS " __init__.py"),
	F("in deepspeed_init", LOAD_WEIGHTS, "transformers", "4.x", "src/transformers/integrations/deepspeed.py"),
	F("zero.Init", LOAD_WEIGHTS, "deepspeed", "all", DS " runtime/zero/partition_parameters.py"),
	/* init_inference builds an InferenceEngine: the model moved to the
	 * card and its layers replaced by the inference kernels' */
	F("init_inference", LOAD_WEIGHTS, "deepspeed", "0.5-0.18", DS " __init__.py"),
	F("_apply_injection_policy", LOAD_WEIGHTS, "deepspeed", "0.5-0.18", DS " inference/engine.py"),
	/* ---- frames: training and evaluation loops ---------------------- */
	/* Lightning runs validation from inside the training epoch loop:
	 * the evaluation frames are the inner ones (1.6: loops/dataloader/
	 * evaluation_loop.py; 2.x: the strategy's *_step) */
	W("validation_step", EVAL, "lightning", "1.6-2.6", LIT "1.6.0,2.0.0 strategies/strategy.py"),
	W("in test_step", EVAL, "lightning", "1.6-2.6", LIT "2.0.0 src/lightning/pytorch/strategies/strategy.py"),
	W("in predict_step", EVAL, "lightning", "1.6-2.6", LIT "2.0.0 src/lightning/pytorch/strategies/strategy.py"),
	/* the sanity check runs validation before fitting */
	W("_run_sanity_check", EVAL, "lightning", "1.6-2.6", LIT "2.0.0 src/lightning/pytorch/trainer/trainer.py"),
	/* the evaluation loop's step: 1.0-1.4's evaluation_step, 2.x's
	 * _evaluation_step; 1.0-1.4's epoch loop runs validation inside it
	 * (run_evaluation: the inner frames) */
	W("run_evaluation", EVAL, "lightning", "1.0-1.4", LIT "d71659b pytorch_lightning/trainer/trainer.py"),
	W("evaluation_step", EVAL, "lightning", "1.0-2.6",
	  LIT "d71659b pytorch_lightning/trainer/evaluation_loop.py, 2.0.0 src/lightning/pytorch/loops/evaluation_loop.py"),
	W("run_training_epoch", TRAINING_STEP, "lightning", "1.0-1.4", LIT "d71659b pytorch_lightning/trainer/training_loop.py"),
	W("eval_step", EVAL, "any", "any", THREAD),
	W("evaluation_loop", EVAL, "transformers", "4.x", "src/transformers/trainer.py"),
	W("eval_loop", EVAL, "any", "any", THREAD),
	W("prediction_step", EVAL, "transformers", "4.x", "src/transformers/trainer.py"),
	W("prediction_loop", EVAL, "transformers", "4.x", "src/transformers/trainer.py"),
	W("in evaluate", EVAL, "transformers", "4.x", "src/transformers/trainer.py"),
	W("evaluate(", EVAL, "transformers", "4.x", "src/transformers/trainer.py"),
	W("torch_pad_and_concatenate", EVAL, "transformers", "4.x", "src/transformers/trainer_pt_utils.py"),
	W("nested_concat", EVAL, "transformers", "4.x", "src/transformers/trainer_pt_utils.py"),
	W("training_step", TRAINING_STEP, "transformers, lightning", "all", "src/transformers/trainer.py"),
	W("train_step", TRAINING_STEP, "any", "any", THREAD),
	W("_inner_training_loop", TRAINING_STEP, "transformers", "4.20-", "src/transformers/trainer.py"),
	W("train_epoch", TRAINING_STEP, "any", "any", THREAD),
	/* the profiler's section name on the source line under the frame */
	W("run_training_batch", TRAINING_STEP, "lightning", "1.6-2.6", LIT "1.6.0,2.0.0 loops/training_epoch_loop.py"),
	W("training_epoch_loop", TRAINING_STEP, "lightning", "1.6-2.6", LIT "1.6.0,2.0.0 loops/training_epoch_loop.py"),
	W("autotrain.trainers", TRAINING_STEP, "autotrain", "any", THREAD),
	/* round 5 (w-worldd): Trainer.train as notebooks print it. IPython
	 * shows a frame as "FILE in train(self, resume_from_checkpoint,
	 * trial, ignore_keys_for_eval, **kwargs)" (7.x, Colab) or "FILE:N, in
	 * Trainer.train(self, resume_from_checkpoint, ...)" (8.x): the
	 * signature of transformers' Trainer.train (src/transformers/trainer.py,
	 * 4.x), which TRL's and Unsloth's trainers inherit; the caller's cell
	 * line above it is the documented "trainer.train()". train() runs
	 * _inner_training_loop; its evaluation frames (evaluate, prediction_step)
	 * are inner ones of the same tier and win */
	W("train(self, resume_from_checkpoint", TRAINING_STEP, "transformers", "4.x (IPython frames)",
	  "src/transformers/trainer.py Trainer.train"),
	W("trainer.train(", TRAINING_STEP, "transformers, trl, unsloth", "4.x",
	  "src/transformers/trainer.py Trainer.train (docs: trainer.train())"),
	/* transformers' PreTrainedModel.to (src/transformers/modeling_utils.py,
	 * 4.x: refuses 4/8-bit models, else Module.to) moves a model's weights
	 * to the card, as IPython 8 names the frame; generic, as Module.to's
	 * rows are: a loop's own frame around it decides first */
	G("in PreTrainedModel.to(", LOAD_WEIGHTS, "transformers", "4.x (IPython frames)",
	  "src/transformers/modeling_utils.py PreTrainedModel.to"),
	/* mlx-lm's trainer reports every steps_per_report iterations
	 * ("Iter N: Train loss X, Learning Rate ..., Peak mem Y GB"): the
	 * training loop is running (its "Iter N: Val loss" line is printed
	 * once an evaluation has finished, so it is no row) */
	L(": Train loss ", TRAINING_STEP, "mlx-lm", "0.x (LoRA, DoRA, full, GRPO)",
	  "ml-explore/mlx-lm mlx_lm/tuner/trainer.py train() (indexed copies)"),
	/* MLC-LLM's own start-up check sizing the KV cache (InferForKVCache ->
	 * EstimateMemoryUsageOnMode): its message is the phase */
	F("Insufficient GPU memory error: The available", KV_ALLOC, "mlc-llm", "v0.1.0-2025 main",
	  "mlc-llm cpp/serve/config.cc"),
	/* ---- set 4, spent round 4 (branch w-spent4r): wordings that are
	 * their phase ---- */
	/* exllamav2's auto-split load places each layer and its cache in
	 * turn and raises this when no card is left (exllamav2/model.py@7ba31d8
	 * load_autosplit_gen): the load, whatever UI prints it */
	F("Insufficient VRAM for model and cache", LOAD_WEIGHTS, "exllamav2", "0.0.x-0.3",
	  EXL "7ba31d8 exllamav2/model.py"),
	/* TensorRT-LLM's C++ batch manager / GptSession: a request's context
	 * or next token needs a KV block and none is free (kvCacheManager.cpp
	 * BlockManager::allocateBlock via addToken/addSequence). Only this
	 * older wording: from 2025 "... for window size N. No free blocks
	 * left." is also raised by the PyTorch backend's warm-up requests
	 * (tensorrt_llm/_torch/pyexecutor/model_engine.py), so it names no
	 * phase alone */
	F("Can't allocate new blocks. No free blocks left", SERVING, "tensorrt-llm", "0.5-0.17",
	  "cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp (docs/source/gpt_attention.md)"),
	/* LM Studio's server: a prediction (a request's token stream) failed
	 * while its tokens were being produced; its OpenAI-compatible API
	 * returns this text as the error of that request (LM Studio is closed
	 * source: the wording as the bug tracker's threads and API clients
	 * print it) */
	F("Error in iterating prediction stream", SERVING, "lm-studio", "0.3.x", THREAD),
	/* ---- end of set 4, spent round 4 ---- */
	G("optimizer.step", TRAINING_STEP, "pytorch", "all", "torch/optim/optimizer.py"),
	G(".backward(", TRAINING_STEP, "pytorch", "all", "torch/_tensor.py"),
	G("run_backward", TRAINING_STEP, "pytorch", "all", "torch/autograd/__init__.py"),
	G("in backward", TRAINING_STEP, "pytorch", "all", "torch/autograd/__init__.py"),

	/* ---- lines: vLLM, in the order start-up prints them ------------- */
	L("Starting to load model", LOAD_WEIGHTS, "vllm", "0.6-0.11", V1R),
	L("Loading weights", LOAD_WEIGHTS, "vllm", "0.4-0.11", THREAD),
	L("Loading safetensors checkpoint", LOAD_WEIGHTS, "vllm", "0.4-0.11", "vllm/model_executor/model_loader/weight_utils.py"),
	/* SGLang's multi-threaded safetensors iterator's progress bar */
	L("Multi-thread loading shards", LOAD_WEIGHTS, "sglang", "0.4.7-0.5", "python/sglang/srt/model_loader/weight_utils.py (docs' outputs)"),
	L("Loading model weights took", PROFILE, "vllm", "V0 0.4-0.10", V0R),
	/* Aphrodite's model runner after the weights (then the profile run,
	 * "# GPU blocks", the KV cache, the graphs) */
	L("Model weights loaded. Memory usage", PROFILE, "aphrodite", "0.4-0.6", "aphrodite/task_handler/model_runner.py (indexed copies)"),
	L("Model loading took", PROFILE, "vllm", "V1 0.7-0.11", V1R),
	L("Starting profile run for multi-modal", PROFILE, "vllm", "V0 0.5-0.6", "vllm/worker/enc_dec_model_runner.py"),
	L("Dynamo bytecode transform time", PROFILE, "vllm", "V1 0.7-0.11 (compile in the profile run)", "vllm/compilation/backends.py"),
	L("Memory profiling takes", KV_ALLOC, "vllm", "0.6.4-0.11", V0W " " V1W),
	L("# GPU blocks", KV_ALLOC, "vllm", "V0 0.2-0.10", "vllm/executor/gpu_executor.py"),
	L("# cuda blocks", KV_ALLOC, "vllm", "V0 0.8-0.10", "vllm/executor/executor_base.py"),
	L("GPU KV cache size", KV_ALLOC, "vllm", "V1 0.7-0.11", "vllm/v1/core/kv_cache_utils.py"),
	L("Available KV cache memory", KV_ALLOC, "vllm", "V1 0.8-0.11", V1W),
	L("Compile and warming up model for size", WARMUP, "vllm", "V1 0.7-0.11", V1W),
	L("Capturing CUDA graph", GRAPH_CAPTURE, "vllm", "V0 0.4-0.10, V1 0.10-0.11", V0R),
	L("Capturing cudagraphs", GRAPH_CAPTURE, "vllm", "V0 0.6-0.8 (\"for decoding\")", THREAD),
	L("Capturing the model for CUDA graphs", GRAPH_CAPTURE, "vllm", "V0 0.2-0.6", V0R),
	L("Graph capturing finished", WARMUP, "vllm", "0.4-0.11 (V1: sampler warm-up next)", V1W),
	/* ---- lines: SGLang (ModelRunner's "avail mem" lines) ------------ */
	L("Load weight begin", LOAD_WEIGHTS, "sglang", "0.2-0.5", "python/sglang/srt/model_executor/model_runner.py"),
	L("Load weight end", KV_ALLOC, "sglang", "0.2-0.5", "python/sglang/srt/model_executor/model_runner.py"),
	L("Capture cuda graph begin", GRAPH_CAPTURE, "sglang", "0.2-0.5", "python/sglang/srt/model_executor/model_runner.py"),
	L("Pre-allocating symmetric memory pool", WARMUP, "sglang", "0.5.x (2026)", "python/sglang/srt/model_executor/model_runner.py (indexed copies)"),
	L("Capture cuda graph end", WARMUP, "sglang", "0.2-0.5 (the server's warm-up request next)", "python/sglang/srt/model_executor/model_runner.py"),
	L("Prefill batch", SERVING, "sglang", "0.2-0.5", "python/sglang/srt/managers/scheduler.py"),
	/* printed once the server's own warm-up request was served */
	L("fired up and ready to roll", SERVING, "sglang", "0.2-0.5", "python/sglang/srt/entrypoints/http_server.py"),
	/* ---- lines: TGI (the router warms the shards up, then serves) --- */
	/* serve_inner() logs it when get_model() (the weights' load) raises,
	 * then the shard's traceback follows */
	L("Error when initializing model", LOAD_WEIGHTS, "tgi", "0.9-3.3", TGI "server/text_generation_server/server.py (indexed copies)"),
	L("Warming up model", WARMUP, "tgi", "1.x-3.x", "router/src/main.rs"),
	L("Setting max batch total tokens", SERVING, "tgi", "1.x-3.x", "router/src/main.rs"),
	L("Decode batch", SERVING, "tgi", "1.x-3.x", THREAD),
	/* ---- lines: llama.cpp, llama-server, Ollama --------------------- */
	/* the server starts a runner and waits while it loads the model
	 * (weights, KV cache, compute graph) */
	L("llm server loading model", LOAD_WEIGHTS, "ollama", "0.1.3x-0.33", OLL "v0.3.0..v0.33 llm/server.go"),
	L("starting llama server", LOAD_WEIGHTS, "ollama", "0.1.3x-0.33", OLL "v0.3.0..v0.9.0 llm/server.go"),
	L("waiting for llama runner to start", LOAD_WEIGHTS, "ollama", "0.1.3x-0.9", OLL "v0.3.0..v0.9.0 llm/server.go"),
	/* the model's metadata, printed just before its tensors load */
	L("llm_load_print_meta:", LOAD_WEIGHTS, "llama.cpp", "b1000-b4400", "llama.cpp"),
	L("print_info:", LOAD_WEIGHTS, "llama.cpp", "b4400-", "src/llama-model.cpp"),
	L("load_tensors:", LOAD_WEIGHTS, "llama.cpp", "all (llm_load_tensors, later load_tensors)", "src/llama-model.cpp"),
	/* set 4, spent round 4: with layers offloaded, the CPU layers'
	 * weights go first to the GPU's pinned host buffer type
	 * (make_cpu_buft_list, "add a host buffer type": src/llama-model.cpp
	 * at b4500, llama.cpp at b2000 as llama_default_buffer_type_cpu);
	 * the refusal is a warning, the load goes on in pageable memory, the
	 * device buffers of the weights are allocated next. The KV cache's
	 * are not pinned; the output and compute buffers' later pinned ones
	 * come after llama_kv_cache_init, and their device failures carry
	 * ggml_gallocr's own line (a continuation, which names the phase
	 * first). The 2023 scratch buffers' pinned warning, printed after
	 * the KV cache's size, has no function prefix ("WARNING: failed to
	 * allocate ... of pinned memory", tests/data/real/healthy) */
	L("ggml_cuda_host_malloc: failed to allocate", LOAD_WEIGHTS, "llama.cpp", "backend v2 on (Ollama 0.5.7: thread)",
	  "src/llama-model.cpp make_cpu_buft_list@b4500; ggml-cuda.cu ggml_cuda_host_malloc"),
	L("llama_kv_cache_init:", KV_ALLOC, "llama.cpp", "b1000-b5500", "src/llama-kv-cache.cpp"),
	L("KV self size", PROFILE, "llama.cpp", "b1000-b5500 (graph reserve next)", "src/llama.cpp"),
	L("compute buffer size", WARMUP, "llama.cpp", "all (the warm-up run next)", "src/llama-context.cpp"),
	L("warming up the model", WARMUP, "llama.cpp", "all", "common/common.cpp"),
	L("launch_slot_", SERVING, "llama-server", "b3000-", "tools/server/server.cpp"),
	L("print_timings", SERVING, "llama-server", "all", "tools/server/server.cpp"),
	L("prompt eval time", SERVING, "llama.cpp", "all", "src/llama-context.cpp"),
	/* ---- lines: LMDeploy (each request, at --log-level INFO) -------- */
	/* TurboMind's GEMM picks a kernel for each new shape at run time */
	L("Failed to find a feasible kernel in the cache", SERVING, "lmdeploy", "0.7-0.8", THREAD),
	L("lmdeploy - INFO - session_id=", SERVING, "lmdeploy", "0.4-0.8", THREAD),
	/* ---- lines: any server's requests -------------------------------- */
	L("\"POST ", SERVING, "any", "access log", THREAD),
	L("| POST ", SERVING, "any", "access log", THREAD),
	L("Received request", SERVING, "vllm", "0.4-0.11", "vllm/entrypoints/logger.py"),
	L("Finished request", SERVING, "vllm", "0.4-0.11", "vllm/engine/async_llm_engine.py"),
	/* ---- set 4, spent round 4 (w-spent4p): serving and training
	 * loops read from the programs' own prints -------------------------- */
	/* text-generation-webui's generate_reply_HF: generate_with_callback
	 * runs the model's generate() for a chat or API turn (its "Output
	 * generated in S seconds (...)" line, printed after a failed turn
	 * too, is not a row: below a failure it would mark the log served
	 * before the traceback that places the failure is read) */
	F("generate_with_callback", SERVING, "text-generation-webui", "2023-2025",
	  "oobabooga/text-generation-webui modules/text_generation.py (indexed copies)"),
	/* an OpenAI-style HTTP error body ({"error": {"message": ...}}) is
	 * what a server returns to a request it failed: a line holding one
	 * says a request reached the server (the failure in it was in
	 * serving that request); its compact form is a JSON record that
	 * server_unwrap.c strip_json() marks SRV_ERROR_BODY */
	L("{\"error\": {\"message\":", SERVING, "any OpenAI-compatible server", "any",
	  "OpenAI API reference, error object (json.dumps spacing)"),
	/* mlx-examples' LoRA script prints "Training" as it enters its
	 * train loop (after "Loading datasets"), then "Iter N: Train loss" */
	L("Training", TRAINING_STEP, "mlx-examples lora", "2023-2024",
	  "ml-explore/mlx-examples lora/lora.py@0d863ab"),
	/* EasyR1 (a verl fork): the actor's compute_log_prob runs its micro
	 * batches under a tqdm bar "Compute log probs" on rank 0, the
	 * experience step of each RL training step */
	L("Compute log probs:", TRAINING_STEP, "easyr1", "2025",
	  "hiyouga/EasyR1 verl/workers/actor/dp_actor.py DataParallelPPOActor.compute_log_prob (indexed copies)"),
	/* ---- lines: training --------------------------------------------- */
	L("Starting minibatch loop", TRAINING_STEP, "cntk", "2.x", THREAD),
	L("Epoch: [", TRAINING_STEP, "any", "any", THREAD),
	L("Starting training", TRAINING_STEP, "any", "any", THREAD),
	L("Evaluating", EVAL, "any", "any", THREAD),
	/* ---- set 5, spent round 5 (branch w-spent5p): serving and
	 * training loops, read from the programs' sources ---- */
	/* SGLang's first router (python/sglang/srt/managers/router/
	 * model_rpc.py@00ebb01): ModelRpcServer.exposed_step takes the
	 * tokenized requests and runs forward_step, which runs a new prefill
	 * batch (forward_fill_batch) or the running batch's decode steps
	 * (forward_decode_batch): both run only admitted requests */
	F("forward_fill_batch", SERVING, "sglang", "0.1 (router/model_rpc.py)",
	  "sgl-project/sglang python/sglang/srt/managers/router/model_rpc.py@00ebb01"),
	F("forward_decode_batch", SERVING, "sglang", "0.1 (router/model_rpc.py)",
	  "sgl-project/sglang python/sglang/srt/managers/router/model_rpc.py@00ebb01"),
	/* TAPE's wrap_cuda_oom_error re-raises a CUDA OOM with this advice
	 * when it is given gradient_accumulation_steps, which only
	 * run_train's epoch loop does (run_embed's wrap gives none): the
	 * training loop (tape/utils/utils.py@0311053, tape/training.py@f8091a2) */
	F("increase gradient_accumulation_steps to divide each batch", TRAINING_STEP, "tape",
	  "0.4-0.5", "songlab-cal/tape tape/utils/utils.py@0311053 wrap_cuda_oom_error"),
	/* fairseq's trainer times each train_step (metrics.log_start_time(
	 * "train_wall")); the training progress lines print it ("train_wall=7",
	 * JSON "train_wall": "257"), validation's do not, and validate()
	 * logs 'begin validation on "valid" subset' before its batches
	 * (fairseq/trainer.py, fairseq_cli/train.py, indexed copies 0.9-0.12).
	 * train_step warns "attempting to recover from OOM in forward/backward
	 * pass" after each OOM it survives: training goes on */
	L("train_wall", TRAINING_STEP, "fairseq", "0.9-0.12", "facebookresearch/fairseq fairseq/trainer.py train_step (indexed copies)"),
	L("attempting to recover from OOM in forward/backward", TRAINING_STEP, "fairseq", "0.6-0.12",
	  "facebookresearch/fairseq fairseq/trainer.py train_step (indexed copies)"),
	L("begin validation on", EVAL, "fairseq", "0.9-0.12", "facebookresearch/fairseq fairseq_cli/train.py validate (indexed copies)"),
	/* verl's PPO trainer's step bar (RayPPOTrainer.fit: tqdm(total=
	 * total_training_steps, desc="Training Progress")), a description many
	 * training scripts' tqdm bars share */
	L("Training Progress:", TRAINING_STEP, "verl", "0.2-0.6",
	  "volcengine/verl verl/trainer/ppo/ray_trainer.py@3d9df73 fit"),
	/* Lightning's TQDMProgressBar names its training bar "Epoch N"
	 * (on_train_epoch_start: set_description(f"Epoch {trainer.current_epoch}"));
	 * validation and prediction have bars of their own ("Validation",
	 * "Predicting") from 2.0. A process that fails mid-epoch leaves the
	 * bar's last state on the console below its error ("Epoch 0:   4%|"):
	 * the failure was in the training loop */
	AT("Epoch ", TRAINING_STEP, "lightning (and tqdm loops named so)", "1.5-2.6",
	   LIT "2.x src/lightning/pytorch/callbacks/progress/tqdm_progress.py (indexed copies)"),
	/* ---- end of set 5, spent round 5 (w-spent5p) ---- */
	/* ---- tuning round 5 (branch w-worldc): serving engines' start-up
	 * stages read from their sources ---- */
	/* vLLM V1's kernel warm-up, run by compile_or_warm_up_model after the
	 * KV cache exists: DeepGEMM's JIT shapes up to max_num_batched_tokens,
	 * FlashInfer's autotune (vllm/model_executor/warmup/kernel_warmup.py
	 * kernel_warmup -> deep_gemm_warmup.py deep_gemm_warmup/_warmup). The
	 * module path names it even where a paste wraps the frame's line */
	F("kernel_warmup", WARMUP, "vllm", "V1 0.10-0.2x", "vllm/model_executor/warmup/kernel_warmup.py@00b005c"),
	F("deep_gemm_warmup", WARMUP, "vllm", "V1 0.10-0.2x", "vllm/model_executor/warmup/kernel_warmup.py@00b005c"),
	/* TensorRT-LLM's C++ executor: the model's KV cache pools are
	 * allocated once, when the executor is built (TrtGptModelInflight-
	 * Batching::createKvCacheManager -> KVCacheManager::allocatePools ->
	 * BlockManager::allocatePools; GptSession::createKvCacheManager in
	 * the older session API); a cudaMalloc failing under them is the KV
	 * cache's allocation */
	F("KVCacheManager::allocatePools", KV_ALLOC, "tensorrt-llm", "0.9-1.x",
	  "cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp@b35ac1b"),
	F("::createKvCacheManager", KV_ALLOC, "tensorrt-llm", "0.7-1.x",
	  "cpp/tensorrt_llm/batch_manager/trtGptModelInflightBatching.h, runtime/gptSession.cpp (indexed copies)"),
	/* its runtime's constructor deserializes the engine (the weights are
	 * in it) and allocates the engine's device memory: the model's load
	 * (cpp/tensorrt_llm/runtime/tllmRuntime.cpp, indexed copies 0.7-1.x) */
	F("TllmRuntime::TllmRuntime", LOAD_WEIGHTS, "tensorrt-llm", "0.7-1.x",
	  "cpp/tensorrt_llm/runtime/tllmRuntime.cpp (indexed copies)"),
	/* vLLM on Tenstorrent (tt-metal's generator_vllm.py allocate_kv_cache):
	 * a tqdm bar over the layers while each layer's KV tensors are placed
	 * in device DRAM, the bar's text then a tt-metal allocator failure */
	L("Allocating TT kv caches", KV_ALLOC, "vllm (tt-metal)", "2025-2026",
	  "tenstorrent/tt-metal models/tt_transformers/tt/generator_vllm.py@4d4a062"),
	/* ---- leakspike (round 5): failures only a served request reaches --
	 * SGLang takes a request-pool row for each request it admits to a
	 * prefill batch (ScheduleBatch.alloc_req_slots / mem_cache
	 * alloc_for_extend) and raises this when none is left */
	F("alloc_req_slots runs out of memory", SERVING, "sglang", "0.4-0.5",
	  "python/sglang/srt/managers/schedule_batch.py, python/sglang/srt/mem_cache/common.py (indexed copies)"),
	/* LMCache's store of a request's KV (LMCacheEngine.store) warns this
	 * when its CPU/disk buffer has no room, and skips the store: the
	 * capitalised spelling is LMCache's (whisper.cpp's start-up KV
	 * failure is lower case and does not match) */
	F("Failed to allocate memory for the KV cache", SERVING, "lmcache", "0.2-0.3",
	  "lmcache/v1/cache_engine.py, lmcache/experimental/cache_engine.py (indexed copies)"),
	/* ---- round 5 (w-gapsa): MLC-LLM's and TVM's own frames ---------- */
	/* mlc_chat's ChatModule (python/mlc_chat/chat_module.py@3c6e6f0a;
	 * renamed mlc_llm at 8beed7a7) binds the C++ LLMChat's functions:
	 * __init__ -> _reload -> self._reload_func (LLMChat::Reload, which
	 * loads the params and creates the KV cache: the model's load,
	 * cpp/llm_chat.cc@3c6e6f0a); generate -> _prefill and _decode ->
	 * self._prefill_func and self._decode_func (LLMChat::PrefillStep and
	 * DecodeStep: a chat turn), benchmark_generate -> _raw_generate_func.
	 * The serve engine (cpp/serve@v0.19.0): Engine::Create loads the
	 * params (FunctionTable::LoadParams -> TVM's NDArrayCache::Load) and
	 * then Model::CreateKVCache; the engine's prefill and decode actions
	 * (engine_actions/new_request_prefill.cc, batch_decode.cc) run only
	 * for admitted requests: no warm-up step runs them at start-up */
	F("self._reload_func(", LOAD_WEIGHTS, "mlc-llm", "mlc_chat 2023-2024", MLC_CM),
	F("LLMChat::Reload", LOAD_WEIGHTS, "mlc-llm", "mlc_chat 2023-2024", MLC_LC),
	F("NDArrayCache::Load", LOAD_WEIGHTS, "mlc-llm (TVM relax_vm)", "2023-v0.20",
	  MLC_SV "cpp/serve/function_table.cc LoadParams"),
	/* TVM's parameter loader wraps any failure of a shard's load:
	 * "ValueError: Error when loading parameters from <shard>: <what>"
	 * (src/runtime/relax_vm/ndarray_cache_support.cc, later
	 * src/runtime/vm/tensor_cache_support.cc, TensorCache::Load) */
	F("Error when loading parameters from", LOAD_WEIGHTS, "mlc-llm (TVM)", "2023-",
	  "apache/tvm src/runtime/vm/tensor_cache_support.cc (indexed copy)"),
	F("::CreateKVCache(", KV_ALLOC, "mlc-llm", "v0.17-v0.20", MLC_SV "cpp/serve/model.cc"),
	F("self._prefill_func(", SERVING, "mlc-llm", "mlc_chat 2023-2024", MLC_CM),
	F("self._decode_func(", SERVING, "mlc-llm", "mlc_chat 2023-2024", MLC_CM),
	F("self._raw_generate_func(", SERVING, "mlc-llm", "mlc_chat 2023-2024", MLC_CM),
	F("LLMChat::PrefillStep", SERVING, "mlc-llm", "mlc_chat 2023-2024", MLC_LC),
	F("LLMChat::DecodeStep", SERVING, "mlc-llm", "mlc_chat 2023-2024", MLC_LC),
	F("PrefillActionObj::Step", SERVING, "mlc-llm", "v0.17-v0.20",
	  MLC_SV "cpp/serve/engine_actions/new_request_prefill.cc"),
	F("BatchDecodeActionObj::Step", SERVING, "mlc-llm", "v0.17-v0.20",
	  MLC_SV "cpp/serve/engine_actions/batch_decode.cc"),
	/* ---- round 5 (w-gapsa): the stage a handler says failed --------- */
	/* stable-diffusion-webui catches the checkpoint's load
	 * (modules/sd_models.py SdModelData.get_sd_model from 1.6; webui.py
	 * initialize before it, ", exiting"): errors.display(e, "loading
	 * stable diffusion model") prints the traceback, then "Stable
	 * diffusion model failed to load" below it */
	A("Stable diffusion model failed to load", LOAD_WEIGHTS, "stable-diffusion-webui",
	  "1.0-1.10", "AUTOMATIC1111/stable-diffusion-webui modules/sd_models.py, webui.py (indexed copies)"),
	/* its TotalTQDM bar (desc "Total progress", total job_count x
	 * sampling_steps) is reset and advanced only while a txt2img or
	 * img2img job runs: a generation being served */
	L("Total progress: ", SERVING, "stable-diffusion-webui", "2022-10 to 1.10",
	  "AUTOMATIC1111/stable-diffusion-webui modules/shared.py (2022), modules/shared_total_tqdm.py (1.x) (indexed copies)"),
	/* a load's handler in many programs (logger.error(f"Error while
	 * loading model: {e}"), print("Error while loading models:", e)) */
	A("Error while loading model", LOAD_WEIGHTS, "any", "any",
	  "handlers in indexed copies (logger.error / print after a failed load)"),
	/* InvokeAI's session processor (invokeai/app/services/
	 * session_processor/session_processor_default.py, 4.x): an
	 * invocation's error ends its session, whose stats_cleanup then logs
	 * performance_statistics.log_stats -> "Graph stats: <session id>"
	 * through InvokeAI's logger ("[time]::[InvokeAI]::INFO --> "): the
	 * failure above it was in that queued generation request */
	A("]::INFO --> Graph stats: ", SERVING, "invokeai", "3.x-5.x",
	  "invoke-ai/InvokeAI invokeai/app/services/session_processor/session_processor_default.py@62d850f"),
	/* text-generation-webui's model menu (modules/ui_model_menu.py
	 * load_model_wrapper, 2023-2025): logger.error('Failed to load the
	 * model.') and then the traceback, whose outer frame is its own */
	L("Failed to load the model.", LOAD_WEIGHTS, "text-generation-webui", "2023-2025",
	  "oobabooga/text-generation-webui modules/ui_model_menu.py (indexed copies)"),
	F("in load_model_wrapper", LOAD_WEIGHTS, "text-generation-webui", "2023-2025",
	  "oobabooga/text-generation-webui modules/ui_model_menu.py (indexed copies)"),
	/* ---- set 5, spent round 5 (w-spent5s): servers whose ready line
	 * ends start-up; after it the model runs only for requests ---- */
	/* mistral.rs' server logs "Serving on http://IP:PORT." once
	 * MistralRsBuilder::build has returned (the engine and, from 2025,
	 * its dummy run done) and before axum::serve takes requests; the
	 * engine then runs a forward pass only for the sequences it
	 * scheduled. The dummy run itself is the warm-up ("Beginning dummy
	 * run.", then "Dummy run completed in Ns.") */
	L("Serving on http://", SERVING, "mistral.rs", "0.1-0.7 (2024-2026)",
	  "EricLBuehler/mistral.rs mistralrs-server/src/main.rs (indexed copies)"),
	L("Beginning dummy run.", WARMUP, "mistral.rs", "2025-2026",
	  "EricLBuehler/mistral.rs mistralrs-core/src/lib.rs MistralRs::new (indexed copies)"),
	/* NVIDIA's gpu-rest-engine (caffe/main.go, tensorrt/main.go
	 * @30da8c3): classifier_initialize builds the contexts, then "Adding
	 * REST endpoint /api/classify" and "Starting server listening on
	 * :8000" before http.ListenAndServe; only the handler runs
	 * classifier_classify -> Classifier::Classify -> Classifier::Predict
	 * (caffe/classification.cpp, tensorrt/classification.cpp), the
	 * forward pass of one request. Caffe's own example
	 * (examples/cpp_classification) has the same Classifier::Predict:
	 * one input's inference, no load */
	L("Starting server listening on", SERVING, "gpu-rest-engine", "2016-2018",
	  "NVIDIA/gpu-rest-engine caffe/main.go, tensorrt/main.go @30da8c3"),
	F("Classifier::Predict", SERVING, "gpu-rest-engine (Caffe, TensorRT)", "2016-2018",
	  "NVIDIA/gpu-rest-engine caffe/classification.cpp @30da8c3"),
	F("classifier_classify", SERVING, "gpu-rest-engine (Caffe, TensorRT)", "2016-2018",
	  "NVIDIA/gpu-rest-engine caffe/classification.cpp, caffe/main.go @30da8c3"),
	/* ---- end of set 5, spent round 5 (w-spent5s) ---- */
	/* ---- set 5, spent round 5 (w-spent5u): loads named by the
	 * program's own words ---- */
	/* ComfyUI runs a workflow node by node and names the node that
	 * raised (execution.py: "Error occurred when executing X", the
	 * frontend's error report "Node Type: X", the dialog's title); its
	 * loader nodes (nodes.py NODE_CLASS_MAPPINGS: CheckpointLoaderSimple,
	 * CheckpointLoader, unCLIPCheckpointLoader, DiffusersLoader, LoraLoader,
	 * VAELoader, UNETLoader, CLIPLoader, DualCLIPLoader, ControlNetLoader,
	 * CLIPVisionLoader, StyleModelLoader, GLIGENLoader) load a model's
	 * weights, CheckpointLoaderSimple.load_checkpoint through
	 * comfy/sd.py load_checkpoint_guess_config */
	W("CheckpointLoader", LOAD_WEIGHTS, "comfyui", "2023-2025", COMFY_NODES),
	W("DiffusersLoader", LOAD_WEIGHTS, "comfyui", "2023-2025", COMFY_NODES),
	W("LoraLoader", LOAD_WEIGHTS, "comfyui", "2023-2025", COMFY_NODES),
	W("VAELoader", LOAD_WEIGHTS, "comfyui", "2023-2025", COMFY_NODES),
	W("UNETLoader", LOAD_WEIGHTS, "comfyui", "2023-2025", COMFY_NODES),
	W("CLIPLoader", LOAD_WEIGHTS, "comfyui", "2023-2025", COMFY_NODES),
	W("ControlNetLoader", LOAD_WEIGHTS, "comfyui", "2023-2025", COMFY_NODES),
	W("CLIPVisionLoader", LOAD_WEIGHTS, "comfyui", "2023-2025", COMFY_NODES),
	W("StyleModelLoader", LOAD_WEIGHTS, "comfyui", "2023-2025", COMFY_NODES),
	W("GLIGENLoader", LOAD_WEIGHTS, "comfyui", "2023-2025", COMFY_NODES),
	W("load_checkpoint_guess_config", LOAD_WEIGHTS, "comfyui", "2023-2025",
	  "comfy/sd.py (called by nodes.py CheckpointLoaderSimple.load_checkpoint)"),
	/* Fooocus (modules/patch.py calculate_weight_patched; its
	 * ldm_patched/modules/model_patcher.py at 2.1.864) and the ComfyUI it
	 * was forked from merge each LoRA or patch into the UNet's weights as
	 * load_models_gpu loads the model onto the card (LoadedModel.model_load
	 * -> ModelPatcher.patch_model -> calculate_weight), and print a failed
	 * merge as print("ERROR", key, e): the key is the UNet's parameter,
	 * "diffusion_model." its state-dict prefix (model_base.py BaseModel) */
	W("ERROR diffusion_model.", LOAD_WEIGHTS, "fooocus, comfyui", "2023-2024",
	  "lllyasviel/Fooocus modules/patch.py, ldm_patched/modules/model_patcher.py@2.1.864"),
	/* bitsandbytes quantises a 4-bit parameter as it is moved to the card
	 * (Params4bit.cuda to 0.41, Params4bit._quantize from 0.42, called by
	 * .to/.cuda: the source line under the frame): a 4-bit model's load
	 * (from_pretrained with load_in_4bit, QLoRA). Generic, as Module.to's
	 * rows are: a loop's own frame around it decides first */
	G("w_4bit, quant_state = bnb.functional.quantize_4bit(", LOAD_WEIGHTS, "bitsandbytes",
	  "0.39-0.4x", "bitsandbytes/nn/modules.py Params4bit (0.41.0, 0.42.0 indexed copies)"),
	/* ---- end of set 5, spent round 5 (w-spent5u) ---- */
	/* round 6 (w-startup6): the engines' start-up stages at their newest
	 * versions, start-up and ready lines */
#include "parsers/serving/phase_rows_startup.inc"
	/* round 7 (w-worlde): serving engines' 2025-2026 stages */
#include "parsers/serving/phase_rows_2025.inc"
#include "parsers/serving/phase_rows_round8.inc"
};

const size_t phase_marks_n = sizeof(phase_marks) / sizeof(phase_marks[0]);
