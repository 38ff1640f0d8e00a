/*
 * test_engine_lines.c -- what serving engines say of their memory, one
 * line per generation and wording (parsers/serving/engine_lines.c), and
 * detection of a log by its engine lines wherever they stand. How the
 * server-log parser gives each line to its engine instance is in
 * test_engine_instances.c.
 */
#include "testutil.h"
#include "analyzer/ingest/formats.h"
#include "lib/input.h"
#include "parsers/serving/engine_lines.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GiB 1073741824.0
#define MiB 1048576.0
#define NONE (-1)

/* One line, and the one figure (fact or statistic) and error it must give. */
static const struct line_case {
	const char *line;
	enum engine_kind engine;
	int fact;              /* enum engine_fact, or NONE */
	int stat;              /* enum engine_stat, or NONE */
	double value, tol;
	enum engine_error error;
} cases[] = {
	/* vLLM 0.1 - 0.5: blocks (negative kept), weights in "GB" (GiB) */
	{ "INFO 06-21 10:00:18 llm_engine.py:128] # GPU blocks: -1, # CPU blocks: 512",
	  ENGINE_VLLM, EF_GPU_BLOCKS, NONE, -1, 0, EE_NONE },
	{ "INFO 06-21 10:00:18 llm_engine.py:128] # GPU blocks: -1, # CPU blocks: 512",
	  ENGINE_VLLM, EF_CPU_BLOCKS, NONE, 512, 0, EE_NONE },
	{ "INFO 08-19 07:51:03 model_runner.py:732] Loading model weights took 2.3463 GB",
	  ENGINE_VLLM, EF_WEIGHTS, NONE, 2.3463 * GiB, 1, EE_NONE },
	/* 0.6.4: the one-line profile */
	{ "Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB"
	  " peak_torch_memory=17.06GiB memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB"
	  " kv_cache_size=3.81GiB gpu_memory_utilization=0.90", ENGINE_VLLM, EF_KV_CACHE, NONE,
	  3.81 * GiB, 1, EE_NONE },
	{ "Memory profiling results: total_gpu_memory=23.58GiB peak_torch_memory=17.06GiB",
	  ENGINE_VLLM, EF_TORCH_PEAK, NONE, 17.06 * GiB, 1, EE_NONE },
	/* 0.6.5: the table, one figure a line */
	{ "INFO 12-13 19:54:18 worker.py:243] the current vLLM instance can use    71.29GiB",
	  ENGINE_VLLM, EF_REQUESTED, NONE, 71.29 * GiB, 1, EE_NONE },
	{ "INFO 12-13 19:54:18 worker.py:243] available_kv_cache_memory    53.29GiB",
	  ENGINE_VLLM, EF_KV_CACHE, NONE, 53.29 * GiB, 1, EE_NONE },
	/* 0.6.6 - 0.8: the two-line summary */
	{ "the current vLLM instance can use total_gpu_memory (39.50GiB) x gpu_memory_utilization"
	  " (0.90) = 35.55GiB", ENGINE_VLLM, EF_UTILIZATION, NONE, 0.90, 1e-9, EE_NONE },
	{ "model weights take 14.96GiB; non_torch_memory takes 0.10GiB; PyTorch activation peak"
	  " memory takes 9.37GiB; the rest of the memory reserved for KV Cache is 11.12GiB.",
	  ENGINE_VLLM, EF_ACTIVATION_PEAK, NONE, 9.37 * GiB, 1, EE_NONE },
	{ "INFO 01-16 09:40:00 executor_base.py:95] # CUDA blocks: 6001, # CPU blocks: 1638",
	  ENGINE_VLLM, EF_GPU_BLOCKS, NONE, 6001, 0, EE_NONE },
	/* V1 */
	{ "(Worker_TP0 pid=34322) INFO 05-06 20:59:59 [gpu_model_runner.py:4879] Model loading took"
	  " 12.66 GiB memory and 31.657031 seconds", ENGINE_VLLM, EF_WEIGHTS, NONE, 12.66 * GiB, 1,
	  EE_NONE },
	{ "GPU KV cache size: 2,042,016 tokens", ENGINE_VLLM, EF_KV_TOKENS, NONE, 2042016, 0,
	  EE_NONE },
	{ "Maximum concurrency for 2,048 tokens per request: 997.08x", ENGINE_VLLM,
	  EF_MAX_CONCURRENCY, NONE, 997.08, 1e-9, EE_NONE },
	{ "Estimated CUDA graph memory: 6.24 GiB total", ENGINE_VLLM, EF_CUDA_GRAPH, NONE,
	  6.24 * GiB, 1, EE_NONE },
	{ "Graph capturing finished in 14 secs, took 0.21 GiB", ENGINE_VLLM, EF_CUDA_GRAPH, NONE,
	  0.21 * GiB, 1, EE_NONE },
	{ "The current --gpu-memory-utilization=0.6200 is equivalent to"
	  " --gpu-memory-utilization=0.5413 without CUDA graph memory profiling.", ENGINE_VLLM,
	  EF_UTILIZATION, NONE, 0.62, 1e-9, EE_NONE },
	{ "Initial free memory 31.16 GiB, reserved 4.25 GiB memory for KV Cache as specified by"
	  " kv_cache_memory_bytes config", ENGINE_VLLM, EF_FREE, NONE, 31.16 * GiB, 1, EE_NONE },
	/* errors */
	{ "ValueError: Free memory on device cuda:0 (22.35/23.56 GiB) on startup is less than"
	  " desired GPU memory utilization (0.95, 22.38 GiB).", ENGINE_VLLM, EF_FREE, NONE,
	  22.35 * GiB, 1, EE_FREE_BELOW_UTILIZATION },
	{ "ValueError: Free memory on device (31.44/47.38 GiB) on startup is less than desired GPU"
	  " memory utilization (0.95, 45.01 GiB).", ENGINE_VLLM, EF_REQUESTED, NONE, 45.01 * GiB, 1,
	  EE_FREE_BELOW_UTILIZATION },
	{ "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens"
	  " that can be stored in KV cache (16832).", ENGINE_VLLM, EF_KV_TOKENS, NONE, 16832, 0,
	  EE_MAX_LEN_EXCEEDS_KV },
	{ "ValueError: To serve at least one request with the model's max seq len (196608),",
	  ENGINE_VLLM, EF_MAX_MODEL_LEN, NONE, 196608, 0, EE_MAX_LEN_EXCEEDS_KV },
	{ "ValueError: No available memory for the cache blocks. Try increasing"
	  " `gpu_memory_utilization` when initializing the engine.", ENGINE_VLLM, NONE, NONE, 0, 0,
	  EE_KV_NO_MEMORY },
	/* SGLang's newer wording (InferenceX #2128, tests/data/real/any_stack) */
	{ "ValueError: Loaded weights leave no GPU memory for the KV cache under"
	  " --mem-fraction-static=0.88.", ENGINE_SGLANG, NONE, NONE, 0, 0, EE_KV_NO_MEMORY },
	{ "ERROR 06-30 13:53:19 [core.py:515] EngineCore failed to start.", ENGINE_VLLM, NONE,
	  NONE, 0, 0, EE_ENGINE_DEAD },
	/* round 8 (w-worldg), tests/data/real: a newer V1 worker logs the
	 * figures of a start-up check that passed, not an error (GB10 kit,
	 * 2026-08), the free memory kept... */
	{ "Free memory on device (110.37/121.69 GiB) on startup.", ENGINE_VLLM, EF_FREE, NONE,
	  110.37 * GiB, 1, EE_NONE },
	{ "(Worker_TP0 pid=510) INFO [gpu_worker.py:935] Free memory on device (31.23/31.86 GiB) on"
	  " startup. Desired GPU memory utilization is (0.97, 30.9 GiB). Actual usage is 24.58 GiB"
	  " for consumed memory (weights + non-torch)", ENGINE_VLLM, EF_REQUESTED, NONE,
	  30.9 * GiB, 1, EE_NONE },
	/* ...SGLang's capture failure wrapping a CUDA OOM (PR 38861) and
	 * its launcher's dead scheduler, whose OOM-killer hint is no OOM */
	{ "Exception: Capture cuda graph failed: CUDA out of memory.", ENGINE_SGLANG, NONE, NONE,
	  0, 0, EE_GRAPH_CAPTURE_OOM },
	{ "RuntimeError: Rank 0 scheduler died during initialization (exit code: -3). If exit code"
	  " is -9 (SIGKILL), a common cause is the OS OOM killer. Run `dmesg -T | grep -i oom` to"
	  " check.", ENGINE_SGLANG, NONE, NONE, 0, 0, EE_ENGINE_DEAD },
	/* set 11 spent (w-spent11a): vLLM's cumem allocator's own CUDA_CHECK
	 * line (a ROCm MI300X test log, tests/data/real/any_stack) */
	{ "CUDA Error: invalid argument at /workspace/vllm-patch/csrc/cumem_allocator.cpp:278",
	  ENGINE_VLLM, NONE, NONE, 0, 0, EE_CUMEM_ERROR },
	/* V0 and V1 statistics */
	{ "INFO 02-28 21:48:18 metrics.py:161] Avg prompt throughput: 0.0 tokens/s, Avg generation"
	  " throughput: 44.9 tokens/s, Running: 2 reqs, Swapped: 0 reqs, Pending: 3 reqs, GPU KV"
	  " cache usage: 82.1%, CPU KV cache usage: 0.0%", ENGINE_VLLM, NONE, ES_WAITING, 3, 0,
	  EE_NONE },
	{ "Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 239.2"
	  " tokens/s, Running: 8 reqs, Waiting: 0 reqs, GPU KV cache usage: 91.2%, Prefix cache hit"
	  " rate: 0.0%", ENGINE_VLLM, NONE, ES_GPU_KV_USAGE, 91.2, 1e-9, EE_NONE },
	{ "INFO 11-29 18:22:40 metrics.py:367] Prefix cache hit rate: GPU: 61.25%, CPU: 0.00%",
	  ENGINE_VLLM, NONE, ES_PREFIX_HIT_RATE, 61.25, 1e-9, EE_NONE },
	/* SGLang */
	{ "[2026-07-15 13:14:53] Load weight end. elapsed=19.09 s, type=Qwen3MoeForCausalLM,"
	  " avail mem=230.20 GB, mem usage=56.98 GB.", ENGINE_SGLANG, EF_WEIGHTS, NONE,
	  56.98 * GiB, 1, EE_NONE },
	{ "KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB",
	  ENGINE_SGLANG, EF_KV_CACHE, NONE, 16.46 * GiB, 1, EE_NONE },
	{ "max_total_num_tokens=2086558, chunked_prefill_size=8192, max_prefill_tokens=16384,"
	  " max_running_requests=33, context_len=256000", ENGINE_SGLANG, EF_MAX_NUM_SEQS, NONE, 33,
	  0, EE_NONE },
	{ "#running-req: 3, #token: 1442, token usage: 0.18, #queue-req: 0", ENGINE_SGLANG, NONE,
	  ES_GPU_KV_USAGE, 18, 1e-9, EE_NONE },
	{ "[2025-12-12 08:43:59 TP0] Decode batch, #running-req: 6, #token: 1920, token usage: 0.94,"
	  " cuda graph: True, gen throughput (token/s): 446.45, #queue-req: 5,", ENGINE_SGLANG, NONE,
	  ES_WAITING, 5, 0, EE_NONE },
	{ "Decode batch, #running-req: 4, #full token: 2642688, full token usage: 1.00, #swa token:"
	  " 14592, swa token usage: 0.06, cuda graph: True", ENGINE_SGLANG, NONE, ES_SWA_KV_USAGE, 6,
	  1e-9, EE_NONE },
	{ "Decode batch, #running-req: 4, #full token: 2642688, full token usage: 1.00, #swa token:"
	  " 14592, swa token usage: 0.06, cuda graph: True", ENGINE_SGLANG, NONE, ES_GPU_KV_USAGE,
	  100, 1e-9, EE_NONE },
	{ "[2026-09-13 16:06:07] KV cache pool is full. Retract requests. #retracted_reqs: 1,",
	  ENGINE_SGLANG, NONE, NONE, 0, 0, EE_RETRACT },
	{ "RuntimeError: Decode out of memory. Try to lower your batch size.", ENGINE_SGLANG, NONE,
	  NONE, 0, 0, EE_DECODE_OOM },
	/* TGI */
	{ "{\"timestamp\":\"2024-03-09T05:08:19.961136Z\",\"level\":\"INFO\",\"message\":\"Setting"
	  " max batch total tokens to 133696\",\"target\":\"text_generation_router\"}", ENGINE_TGI,
	  EF_KV_TOKENS, NONE, 133696, 0, EE_NONE },
	{ "RuntimeError: Not enough memory to handle 4096 prefill tokens. You need to decrease"
	  " `--max-batch-prefill-tokens`", ENGINE_TGI, EF_MAX_PREFILL, NONE, 4096, 0, EE_PREFILL_OOM },
	{ "Error: ShardCannotStart", ENGINE_TGI, NONE, NONE, 0, 0, EE_SHARD_CANNOT_START },
	{ "    max_total_tokens: Some(64000),", ENGINE_TGI, EF_MAX_MODEL_LEN, NONE, 64000, 0,
	  EE_NONE },
	/* TensorRT-LLM, Triton, NCCL, cuBLAS */
	{ "[TensorRT-LLM][INFO] Allocate 69524783104 bytes for k/v cache. ", ENGINE_TRTLLM,
	  EF_KV_CACHE, NONE, 69524783104.0, 0, EE_NONE },
	{ "[TensorRT-LLM][INFO] Using 10718 tokens in paged KV cache.", ENGINE_TRTLLM,
	  EF_KV_TOKENS, NONE, 10718, 0, EE_NONE },
	{ "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 78.30 GiB for max tokens in paged KV"
	  " cache (3731744).", ENGINE_TRTLLM, EF_KV_TOKENS, NONE, 3731744, 0, EE_NONE },
	{ "[TensorRT-LLM][INFO] Number of blocks in KV cache primary pool: 631", ENGINE_TRTLLM,
	  EF_GPU_BLOCKS, NONE, 631, 0, EE_NONE },
	{ "[TensorRT-LLM][INFO] Loaded engine size: 240 MiB", ENGINE_TRTLLM, EF_WEIGHTS, NONE,
	  240 * MiB, 0, EE_NONE },
	{ "[TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n,"
	  " mCudaStream->get()): out of memory (/code/tllmBuffers.h:112)", ENGINE_TRTLLM, NONE,
	  NONE, 0, 0, EE_TRT_OOM },
	{ "VM-0-16-ubuntu:392:494 [2] enqueue.cc:43 NCCL WARN Cuda failure 'out of memory'",
	  ENGINE_PYTORCH, NONE, NONE, 0, 0, EE_NCCL_OOM },
	{ "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
	  ENGINE_PYTORCH, NONE, NONE, 0, 0, EE_CUBLAS_ALLOC_FAILED },
	/* vLLM V1's profile result (MemoryProfilingResult's repr, 0.9 on) */
	{ "(EngineCore_DP0 pid=7) DEBUG 07-01 10:00:00 [gpu_worker.py:276] Memory profiling takes"
	  " 1.21 seconds. Total non KV cache memory: 11.76GiB; torch peak memory increase: 0.71GiB;"
	  " non-torch forward increase memory: 0.21GiB; weights memory: 10.84GiB.", ENGINE_VLLM,
	  EF_WEIGHTS, NONE, 10.84 * GiB, 1, EE_NONE },
	{ "Memory profiling takes 1.21 seconds. Total non KV cache memory: 11.76GiB; torch peak"
	  " memory increase: 0.71GiB; non-torch forward increase memory: 0.21GiB;", ENGINE_VLLM,
	  EF_NON_TORCH, NONE, 0.21 * GiB, 1, EE_NONE },
	/* SGLang: a profiled KV size below zero (tests/data/real/any_stack) */
	{ "[2025-07-02 07:41:59 DP0 TP0] max_total_tokens=131072 is larger than the profiled value"
	  " -561981. Use the profiled value instead.", ENGINE_SGLANG, EF_KV_TOKENS, NONE, -561981, 0,
	  EE_NONE },
	/* llama.cpp (ggml): layers, buffers on a GPU, the context, free memory */
	{ "Jul 24 21:50:06 vega ollama[132945]: llm_load_tensors: offloaded 43/81 layers to GPU",
	  ENGINE_LLAMACPP, EF_GPU_LAYERS, NONE, 43, 0, EE_NONE },
	{ "load_tensors: offloaded 43/81 layers to GPU", ENGINE_LLAMACPP, EF_MODEL_LAYERS, NONE,
	  81, 0, EE_NONE },
	{ "llm_load_tensors:      ROCm0 buffer size = 21533.93 MiB", ENGINE_LLAMACPP, EF_WEIGHTS,
	  NONE, 21533.93 * MiB, 1, EE_NONE },
	{ "load_tensors:        CUDA0 model buffer size =  4403.49 MiB", ENGINE_LLAMACPP,
	  EF_WEIGHTS, NONE, 4403.49 * MiB, 1, EE_NONE },
	{ "llama_kv_cache_init:      ROCm0 KV buffer size =   344.00 MiB", ENGINE_LLAMACPP,
	  EF_KV_CACHE, NONE, 344 * MiB, 0, EE_NONE },
	{ "llama_new_context_with_model: KV self size  =  160.00 MiB, K (f16):   80.00 MiB,"
	  " V (f16):   80.00 MiB", ENGINE_LLAMACPP, EF_KV_CACHE, NONE, 160 * MiB, 0, EE_NONE },
	{ "llama_new_context_with_model:      CUDA0 compute buffer size =   108.25 MiB",
	  ENGINE_LLAMACPP, EF_COMPUTE_BUFFER, NONE, 108.25 * MiB, 1, EE_NONE },
	{ "llama_new_context_with_model: n_ctx      = 2048", ENGINE_LLAMACPP, EF_KV_TOKENS, NONE,
	  2048, 0, EE_NONE },
	{ "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 3090) - 23306"
	  " MiB free", ENGINE_LLAMACPP, EF_FREE, NONE, 23306 * MiB, 0, EE_NONE },
	/* --list-devices after ggml_cuda_init (tests/data/incoming/any_stack,
	 * llama.cpp #19764): the card's total and free */
	{ "  ROCm0: AMD Radeon(TM) Graphics (110511 MiB, 110357 MiB free)", ENGINE_NONE, EF_TOTAL,
	  NONE, 110511 * MiB, 0, EE_NONE },
	/* PyTorch's "13.62 MiB free" is no llama.cpp line (TGI 1.0's shard) */
	{ "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 128.00 MiB (GPU 0;"
	  " 15.77 GiB total capacity; 15.37 GiB already allocated; 13.62 MiB free; 15.77 GiB"
	  " allowed; 15.40 GiB reserved in total by PyTorch)", ENGINE_PYTORCH, NONE, NONE, 0, 0,
	  EE_CUDA_OOM },
	/* Ollama's offload line (server.go) */
	{ "time=2025-08-08T23:02:37.146+01:00 level=INFO source=server.go:175 msg=offload"
	  " library=cuda layers.requested=49 layers.model=49 layers.offload=48 layers.split=\"\""
	  " memory.available=\"[10.9 GiB]\" memory.gpu_overhead=\"0 B\" memory.required.full=\"11.0"
	  " GiB\"", ENGINE_OLLAMA, EF_FREE, NONE, 10.9 * GiB, 1, EE_NONE },
	{ "source=server.go:175 msg=offload library=cuda layers.requested=49 layers.model=49"
	  " layers.offload=48 memory.required.kv=\"608.0 MiB\"", ENGINE_OLLAMA, EF_GPU_LAYERS, NONE,
	  48, 0, EE_NONE },
	{ "source=server.go:175 msg=offload memory.required.full=\"11.0 GiB\"", ENGINE_OLLAMA,
	  EF_REQUIRED_FULL, NONE, 11.0 * GiB, 1, EE_NONE },
};

static void one_line_each_wording(void **state)
{
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct line_case *c = &cases[i];
		struct engine_line el;
		double got = NAN;
		int k;
		if (!engine_line(c->line, strlen(c->line), &el))
			fail_msg("case %zu: says nothing: %s", i, c->line);
		if (el.engine != c->engine)
			fail_msg("case %zu: engine %s, want %s", i, engine_kind_name(el.engine),
				 engine_kind_name(c->engine));
		if (el.error != c->error)
			fail_msg("case %zu: error %s, want %s", i, engine_error_name(el.error),
				 engine_error_name(c->error));
		for (k = 0; c->fact != NONE && k < el.nfacts; k++)
			if ((int)el.facts[k].key == c->fact)
				got = el.facts[k].value;
		if (c->stat != NONE && (el.stats_set >> c->stat & 1))
			got = el.stats[c->stat];
		if ((c->fact != NONE || c->stat != NONE) && !(fabs(got - c->value) <= c->tol + 1))
			fail_msg("case %zu: %s = %.17g, want %.17g", i, c->fact != NONE
				 ? engine_fact_name(c->fact) : engine_stat_series(c->stat), got, c->value);
	}
}

/* What is not an engine's figure: a phrase without its number, a key
 * inside a longer name, vLLM's "Running:" without its company. */
static void not_figures(void **state)
{
	static const char *const lines[] = {
		"`Loading model weights took X GB` gives the weights",
		"sglang:max_total_num_tokens=570979.0",
		"Build Running: 3 reqs",
		"Increase gpu_memory_utilization or tensor_parallel_size",
		/* host buffers are not the card's; an "offloaded" that is no layer count */
		"llm_load_tensors:        CPU buffer size = 41850.31 MiB",
		"llama_new_context_with_model:  CUDA_Host compute buffer size =     5.00 MiB",
		"the job offloaded 3 files to the archive",
		/* cuBLAS's status under ONNX Runtime (tests/data/real/any_stack/
		 * onnxruntime-cublas-alloc-failed-then-bfcarena.log): no PyTorch */
		"onnxruntime::CudaCall CUBLAS failure 3: CUBLAS_STATUS_ALLOC_FAILED ; GPU=0 ;"
		" hostname=TOBI ; file=D:\\a\\_work\\1\\s\\onnxruntime\\core\\providers\\cuda\\"
		"cuda_execution_provider.cc ; line=168",
	};
	struct engine_line el;
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (engine_line(lines[i], strlen(lines[i]), &el))
			fail_msg("said something: %s", lines[i]);
	assert_false(engine_line_strong(lines[1], strlen(lines[1])));
	assert_true(engine_line_strong(cases[0].line, strlen(cases[0].line)));
}

/* A weak label claims its engine only with the shape that engine prints
 * after it: TensorRT-LLM's executor table says "Model: <GiB> / <GiB>",
 * llama.cpp (under Ollama, TGI's warm-up panic quoting it) says "error
 * loading model: " and "Unable to warmup model: " (issue 27: an Ollama log
 * gave a TensorRT-LLM instance). Lines from tests/data/real/any_stack. */
static void weak_labels_claim_no_engine(void **state)
{
	static const char *const others[] = {
		"llama_model_load: error loading model: unable to allocate CUDA0 buffer",
		"2025-03-06 23:36:39 llama_model_load: error loading model: unable to allocate CUDA0 buffer",
		("thread 'main' panicked at 'Unable to warmup model: Generation(\"Allocation on device 0"
		 " would exceed allowed memory. (out of memory)"),
		"  Model: reduce max_num_tokens and/or shard the model weights across GPUs",
	};
	static const char trt[] = "Model: 93.99 / 10.60";
	struct engine_line el;
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		engine_line(others[i], strlen(others[i]), &el);
		if (el.engine == ENGINE_TRTLLM)
			fail_msg("read as TensorRT-LLM's: %s", others[i]);
	}
	assert_true(engine_line(trt, strlen(trt), &el));
	assert_int_equal(el.engine, ENGINE_TRTLLM);
	assert_int_equal(el.nfacts, 1);
}

/* vLLM's gated labels ("Running: ", "Pending: ") name no engine alone:
 * dorado's "[info] Running: \"correct\" ..." (nanoporetech/dorado #972,
 * tests/data/real/any_stack/a-dorado-0.7.3-...) gave its log a vLLM
 * instance. Beside a throughput the line is vLLM's as before. */
static void gated_labels_claim_no_engine(void **state)
{
	static const char dorado[] =
		"[2024-08-04 17:30:50.624] [info] Running: \"correct\" \"-m\" \"herro-v1/\"";
	static const char pending[] = "Jobs Running: 3, Pending: 2";
	static const char vllm[] =
		"INFO 08-19 07:51:03 metrics.py:341] Avg prompt throughput: 0.0 tokens/s, Avg"
		" generation throughput: 44.9 tokens/s, Running: 2 reqs, Swapped: 0 reqs, Pending: 3 reqs";
	struct engine_line el;

	(void)state;
	engine_line(dorado, strlen(dorado), &el);
	assert_int_equal(el.engine, ENGINE_NONE);
	engine_line(pending, strlen(pending), &el);
	assert_int_equal(el.engine, ENGINE_NONE);
	assert_true(engine_line(vllm, strlen(vllm), &el));
	assert_int_equal(el.engine, ENGINE_VLLM);
}

/* TensorRT-LLM's KV cache share of the free memory, as its settings and
 * its users state it (engine_readers.c er_fraction): a configuration
 * (NVIDIA's MLPerf harness flags), the sentence of mlcommons/inference
 * #2501 (".10"); not its own advice line, a dump's None, a version. */
static void trt_kv_fraction(void **state)
{
	static const struct { const char *line; double want; } said[] = {
		{ "        'kvcache_free_gpu_mem_frac': 0.80,", 0.80 },
		{ "We reduced the kvcache_free_gpu_mem_frac flag in the config file all the way"
		  " down to .10 and still see this error.", 0.10 },
		{ "  free_gpu_memory_fraction: 0.95", 0.95 },
		{ "trtllm-serve model --kv_cache_free_gpu_memory_fraction 0.7 --tp_size 8", 0.7 },
	};
	static const char *const unsaid[] = {
		"  KV cache: reduce free_gpu_memory_fraction",
		"kv_cache_config=KvCacheConfig(free_gpu_memory_fraction=None, max_tokens=8192)",
		"free_gpu_memory_fraction in 1.0rc1 defaults differently",
		"kv_cache_free_gpu_mem_fraction: 1.5",
	};
	struct engine_line el;
	size_t i;
	int k, found;
	(void)state;
	for (i = 0; i < sizeof(said) / sizeof(said[0]); i++) {
		assert_true(engine_line(said[i].line, strlen(said[i].line), &el));
		assert_int_equal(el.engine, ENGINE_TRTLLM);
		for (k = found = 0; k < el.nfacts; k++)
			if (el.facts[k].key == EF_KV_FRACTION) {
				assert_float_equal(el.facts[k].value, said[i].want, 1e-9);
				found = 1;
			}
		if (!found)
			fail_msg("no fraction: %s", said[i].line);
	}
	for (i = 0; i < sizeof(unsaid) / sizeof(unsaid[0]); i++) {
		engine_line(unsaid[i], strlen(unsaid[i]), &el);
		for (k = 0; k < el.nfacts; k++)
			if (el.facts[k].key == EF_KV_FRACTION)
				fail_msg("a fraction %g from: %s", el.facts[k].value, unsaid[i]);
	}
}

/* The preemption warning: mode and cumulative count. */
static void preemption_warning(void **state)
{
	static const char line[] = "WARNING 06-16 21:24:15 scheduler.py:1089] Sequence group 165 is"
		" preempted by PreemptionMode.SWAP mode because there is not enough KV cache space."
		" total_num_cumulative_preemption=151";
	static const char huge[] = "is preempted by PreemptionMode.RECOMPUTE."
		" total_num_cumulative_preemption=8888888888888888888888888888888888";
	struct engine_line el;
	(void)state;
	assert_true(engine_line(line, strlen(line), &el));
	assert_true(el.preempted && el.swap);
	assert_int_equal(el.preempt_total, 151);
	/* a count past what a log could print is not one (found by the fuzzer:
	 * its conversion overflowed) */
	assert_true(engine_line(huge, strlen(huge), &el));
	assert_true(el.preempted && !el.swap);
	assert_int_equal(el.preempt_total, -1);
}

/* ---- detection ---- */

static const char *detected(const char *name, const char *text, size_t n)
{
	struct input in;
	const struct format *f;

	assert_int_equal(input_open_mem(&in, name, text, n), 0);
	f = detect_format(&in);
	input_close(&in);
	return f ? f->kind : "nothing";
}

/* An engine line anywhere in the first MiB, wrappers included; not a
 * table quoting one, not a note naming the wording, not oomlens' own
 * report. */
static void detected_wherever(void **state)
{
	static const char bar[] = "Loading safetensors checkpoint shards:  56% Completed | 5/9\n";
	static const char tsv[] = "file\turl\tengine\tversion\tfigures\n"
		"a.log\thttps://x\tvllm\t0.6\terror=CUBLAS_STATUS_ALLOC_FAILED; gpu_blocks=3\n";
	static const char note[] = "The weights line reads `Loading model weights took X GB`.\n";
	static const char report[] = "{\n  \"oomlens\": \"0.1\",\n  \"engines\": [{\"text\":"
		" \"# GPU blocks: 3852, # CPU blocks: 4096\"}]\n}\n";
	static const char quoted[] = "> vllm-1  | INFO 12-20 20:25:46 distributed_gpu_executor.py:57]"
		" # GPU blocks: 3852, # CPU blocks: 4096\n";
	size_t n = 0, cap = 300 * 1024;
	char *log = malloc(cap + 256);
	(void)state;
	while (n + sizeof(bar) < cap)
		n += (size_t)sprintf(log + n, "%s", bar);
	n += (size_t)sprintf(log + n, "%s", quoted);
	assert_string_equal(detected("late", log, n), "server_log");
	assert_string_equal(detected("quoted", quoted, strlen(quoted)), "server_log");
	assert_string_equal(detected("tsv", tsv, strlen(tsv)), "nothing");
	assert_string_equal(detected("note", note, strlen(note)), "nothing");
	assert_string_equal(detected("report", report, strlen(report)), "nothing");
	free(log);
	/* the corpus' own notes: lists quoting the engines' wording */
	log = t_slurp("tests/data/real/serving/README.md", &n);
	assert_string_equal(detected("README.md", log, n), "nothing");
	free(log);
	log = t_slurp("tests/data/real/tools/README.md", &n);
	assert_string_equal(detected("tools/README.md", log, n), "nothing");
	free(log);
}

/* Every phrase of the tables is an anchor: one dropped for want of room
 * is a wording never read (issue 27, round 4: the memory-failure
 * phrases, added last, outgrew 512 anchors and CNTK's "Starting minibatch
 * loop" lost its phase). */
static void every_anchor_fits(void **state)
{
	struct engine_line el;
	const char *l = "Starting minibatch loop.";

	(void)state;
	assert_int_equal(engine_lines_self_check(), 0);
	memset(&el, 0, sizeof(el));
	engine_line(l, strlen(l), &el);
	assert_true(el.memfail & MEMFAIL_MARK_PHASE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_anchor_fits),
		cmocka_unit_test(one_line_each_wording),
		cmocka_unit_test(not_figures),
		cmocka_unit_test(weak_labels_claim_no_engine),
		cmocka_unit_test(gated_labels_claim_no_engine),
		cmocka_unit_test(trt_kv_fraction),
		cmocka_unit_test(preemption_warning),
		cmocka_unit_test(detected_wherever),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
