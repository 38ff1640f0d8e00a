/*
 * engine_lines.c -- what one serving-engine log line says about memory;
 * see engine_lines.h.
 *
 * Four tables hold the phrases the engines print, as found in their
 * sources and in tests/data/real/serving: the labels of each fact (a size
 * or a number follows), the labels of each statistic, the phrases naming
 * each error, and the few phrases that need a reader of their own. From
 * them one list of anchors is built once; engine_line() finds every
 * anchor in one pass over the line. Every anchor is at least six bytes
 * long, so one of any three positions in a row holds four bytes of it
 * that are its first, second or third four: the four bytes at every
 * third position are hashed into a 65536-bit sieve of those, and only
 * where the sieve says yes are the three positions it stands for
 * looked at: the first two bytes of each in a bitmap of the anchors'
 * first two bytes, then the first four hashed into a 4096-bit filter of
 * the anchors' first four, and only a hit is compared in full. A line of
 * n bytes costs O(n) (a third of it one lookup each) plus the readers of
 * the anchors present, whatever the number of anchors, which keeps the
 * server-log parser at disk speed on logs that are mostly other lines.
 *
 * What follows each phrase is read by the readers of engine_readers.c.
 */
#include "parsers/serving/engine_lines.h"
#include "parsers/serving/engine_readers.h"
#include "parsers/serving/memfail.h"

#include <assert.h>
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tables ------------------------------------------------------- */

#define V ENGINE_VLLM
#define S ENGINE_SGLANG
#define T ENGINE_TGI
#define R ENGINE_TRTLLM
#define P ENGINE_PYTORCH
#define N ENGINE_NONE
#define O ENGINE_OLLAMA
#define L ENGINE_LLAMACPP
#define M ENGINE_LMDEPLOY

/* Each fact under the labels each engine prints it with; size: a unit
 * follows. strong 0: a configuration key a note could quote too. */
static const struct {
	enum engine_fact key;
	enum engine_kind engine;
	int size, strong;
	const char *labels[4];
} fact_labels[] = {
	{ EF_WEIGHTS, V, 1, 1, { "Loading model weights took ", "Model loading took ",
				 "model weights take " } },
	{ EF_WEIGHTS, R, 1, 1, { "Loaded engine size: " } },
	{ EF_TOTAL, V, 1, 1, { "total_gpu_memory" } },
	{ EF_TORCH_PEAK, V, 1, 1, { "peak_torch_memory" } },
	{ EF_NON_TORCH, V, 1, 1, { "non_torch_memory" } },
	{ EF_ACTIVATION_PEAK, V, 1, 1, { "PyTorch activation peak memory",
					 "torch peak memory increase: " /* V1's profile repr */ } },
	{ EF_NON_TORCH, V, 1, 1, { "non-torch forward increase memory: " } },
	{ EF_WEIGHTS, V, 1, 0, { "weights memory: " } },
	{ EF_KV_CACHE, V, 1, 1, { "reserved for KV Cache is ", "kv_cache_size=",
				  "available_kv_cache_memory", "Available KV cache memory: " } },
	{ EF_CUDA_GRAPH, V, 1, 1, { "Estimated CUDA graph memory: ", "CUDA graph pool memory: " } },
	{ EF_FREE, S, 1, 1, { "avail mem=", "available_gpu_mem=" } },
	{ EF_UTILIZATION, N, 0, 0, { "gpu_memory_utilization" } },
	{ EF_UTILIZATION, V, 0, 1, { "The current --gpu-memory-utilization=" } },
	{ EF_UTILIZATION, V, 0, 0, { "--gpu-memory-utilization" } },   /* its command line */
	{ EF_UTILIZATION, S, 0, 0, { "mem_fraction_static=" } },
	/* its server argument as a launcher's YAML or command line spells it
	 * ("mem-fraction-static: 0.95", NVIDIA/srt-slurm recipes) */
	{ EF_UTILIZATION, S, 0, 0, { "mem-fraction-static: ", "--mem-fraction-static " } },
	{ EF_UTILIZATION, T, 0, 0, { "cuda_memory_fraction: " } },
	{ EF_KV_TOKENS, V, 0, 1, { "GPU KV cache size: " } },
	{ EF_KV_TOKENS, S, 0, 1, { "max_total_num_tokens=" } },
	{ EF_KV_TOKENS, S, 0, 1, { "is larger than the profiled value " } }, /* < 0: no room */
	{ EF_KV_TOKENS, T, 0, 1, { "Setting max batch total tokens to " } },
	{ EF_KV_TOKENS, T, 0, 0, { "max_batch_total_tokens: " } },
	{ EF_MAX_NUM_SEQS, N, 0, 0, { "max_num_seqs=" } },
	{ EF_MAX_NUM_SEQS, V, 0, 0, { "--max-num-seqs" } },
	{ EF_MAX_NUM_SEQS, S, 0, 0, { "max_running_requests=" } },
	{ EF_MAX_NUM_SEQS, T, 0, 0, { "max_concurrent_requests: " } },
	{ EF_MAX_NUM_SEQS, R, 0, 1, { "TRTGptModel maxNumSequences: " } },
	{ EF_MAX_MODEL_LEN, N, 0, 0, { "max_model_len=", "max_seq_len=" } },
	{ EF_MAX_MODEL_LEN, V, 0, 0, { "--max-model-len" } },
	{ EF_MAX_MODEL_LEN, S, 0, 0, { "context_len=" } },
	{ EF_MAX_MODEL_LEN, T, 0, 0, { "max_total_tokens: ", "`max_new_tokens` must be <= " } },
	{ EF_MAX_MODEL_LEN, R, 0, 1, { "TRTGptModel maxSequenceLen: " } },
	{ EF_MAX_PREFILL, S, 0, 0, { "max_prefill_tokens=" } },
	{ EF_MAX_PREFILL, T, 0, 1, { "max_batch_prefill_tokens: " } },  /* TGI's Args alone */
	{ EF_GPU_BLOCKS, R, 0, 1, { "Number of blocks in KV cache primary pool: ",
				    "primary blocks=" } },
	{ EF_KV_TOKENS, L, 0, 1, { ": n_ctx " } },       /* llama_new_context_with_model */
	/* set 6 spent (w-spent6s): the KV cache's cells, all sequences'
	 * ("llama_kv_cache_init: kv_size = ", b3xxx-b5500 src/llama-kv-cache.cpp;
	 * "llama_kv_cache_unified: kv_size = ", b5500-, ollama's vendored
	 * llama/llama.cpp/src/llama-kv-cache-unified.cpp), and one sequence's
	 * context ("llama_context: n_ctx_per_seq = ", and the warning
	 * "n_ctx_per_seq (N) < n_ctx_train (M)", src/llama-context.cpp b5000-):
	 * their ratio is the parallel slots (startup_slots.c) */
	{ EF_KV_TOKENS, L, 0, 1, { ": kv_size = " } },
	{ EF_MAX_MODEL_LEN, L, 0, 1, { "n_ctx_per_seq" } },
	/* Ollama's GPU discovery (OLLAMA_DEBUG): "[GPU-<uuid>] CUDA freeMem
	 * 23877 mb" (the first card said; its totalMem line is not kept: a
	 * paste may hold another card's, and the pair must be one card's) */
	{ EF_FREE, O, 1, 1, { "] CUDA freeMem " } },
	{ EF_GPU_LAYERS, O, 0, 1, { "layers.offload=" } }, /* Ollama's offload line */
	{ EF_MODEL_LAYERS, O, 0, 1, { "layers.model=" } },
	/* LMDeploy's TurbomindEngineConfig(...): the KV cache's share of the
	 * memory the weights leave (not a share of the card: its own fact),
	 * the tokens per session, the batch */
	{ EF_KV_FRACTION, M, 0, 0, { "cache_max_entry_count=" } },
	{ EF_MAX_MODEL_LEN, M, 0, 0, { "session_len=" } },
	{ EF_MAX_NUM_SEQS, M, 0, 0, { "max_batch_size=" } },
};

/* Each statistic under its labels. gated: a vLLM label common enough in
 * other text ("Running: ") that it counts only on a line that also has a
 * throughput or the KV cache usage; mult: to percent, for ratios. */
static const struct {
	enum engine_stat key;
	enum engine_kind engine;
	int gated;
	double mult;
	const char *labels[3];
} stat_labels[] = {
	{ ES_PROMPT_TPS, V, 0, 1, { "Avg prompt throughput: " } },
	{ ES_GEN_TPS, V, 0, 1, { "Avg generation throughput: " } },
	{ ES_GEN_TPS, S, 0, 1, { "gen throughput (token/s): " } },
	{ ES_RUNNING, V, 1, 1, { "Running: " } },
	{ ES_RUNNING, S, 0, 1, { "#running-req: " } },
	{ ES_SWAPPED, V, 1, 1, { "Swapped: " } },
	{ ES_WAITING, V, 1, 1, { "Pending: " /* V0 */, "Waiting: " } },
	{ ES_WAITING, S, 0, 1, { "#queue-req: " } },
	{ ES_GPU_KV_USAGE, V, 0, 1, { "GPU KV cache usage: " } },
	{ ES_GPU_KV_USAGE, S, 0, 100, { "token usage: ", "full token usage: " } },
	{ ES_SWA_KV_USAGE, S, 0, 100, { "swa token usage: " } },
	{ ES_CPU_KV_USAGE, V, 1, 1, { "CPU KV cache usage: " } },
	{ ES_PREFIX_HIT_RATE, V, 1, 1, { "Prefix cache hit rate: " } },
	{ ES_PREFIX_HIT_RATE, V, 0, 1, { "Prefix cache hit rate: GPU: " /* V0's own line */,
					 "GPU prefix cache hit rate: " } },
	/* V1's SchedulerStats as dump_input.py prints it at a fatal
	 * EngineCore error ("Dumping scheduler stats: SchedulerStats(
	 * num_running_reqs=809, num_waiting_reqs=0, ...,
	 * kv_cache_usage=0.475...)"): the load at the failure. Fields of
	 * vllm/v1/metrics/stats.py's dataclass: num_running_reqs,
	 * num_waiting_reqs and, a ratio, gpu_cache_usage (V1 of 2025-02,
	 * commit 0015f3f6) renamed kv_cache_usage later */
	{ ES_RUNNING, V, 0, 1, { "num_running_reqs=" } },
	{ ES_WAITING, V, 0, 1, { "num_waiting_reqs=" } },
	{ ES_GPU_KV_USAGE, V, 0, 100, { "kv_cache_usage=", "gpu_cache_usage=" } },
	/* V0's dump at a failure (dump_input.py@02e1673
	 * dump_engine_exception_v0: "Batch info: requests_count=%s, ..."):
	 * the requests of the failing batch */
	{ ES_RUNNING, V, 0, 1, { "Batch info: requests_count=" } },
	/* TGI's router: every line logged while a batch is in flight carries
	 * its span, "batch{batch_size=12}:decode:..." (router/src/infer.rs,
	 * batching_task: info_span!(parent: None, "batch", batch_size =
	 * entries.len()), the requests of the running batch; the error of a
	 * prefill or decode carries it too) */
	{ ES_RUNNING, T, 0, 1, { "{batch_size=" } },
};

/* Each error under the phrases that name it. */
static const struct {
	enum engine_error key;
	enum engine_kind engine;
	const char *phrases[7];
} error_phrases[] = {
	{ EE_KV_NO_MEMORY, V, { "No available memory for the cache blocks" } },
	/* SGLang's model_runner: the older wording, then the newer "Loaded
	 * weights leave no GPU memory for the KV cache under
	 * --mem-fraction-static=0.88." (DeepSeek-V4 images, 2026) */
	{ EE_KV_NO_MEMORY, S, { "Not enough memory. Please try to increase --mem-fraction-static",
				"no GPU memory for the KV cache" } },
	{ EE_KV_NO_MEMORY, R, { "maxTokensInPagedKvCache must be large enough",
				/* 0.8+: "maxTokensInPagedKvCache (29184) must be ..." */
				"must be large enough to process at least 1 sequence to completion" } },
	{ EE_ENGINE_DEAD, V, { "EngineCore failed to start", "Engine core initialization failed",
			       "EngineDeadError", "EngineCore encountered an issue",
			       "EngineCore encountered a fatal error", "EngineCore hit an exception",
			       "Engine process failed to start" } },
	{ EE_RETRACT, S, { "Decode out of memory happened", "Retract requests" } },
	{ EE_DECODE_OOM, S, { "Decode out of memory." } },
	{ EE_PREFILL_OOM, S, { "Prefill out of memory" } },
	{ EE_SHARD_CANNOT_START, T, { "ShardCannotStart" } },
	{ EE_CUDA_OOM, P, { "CUDA out of memory", "would exceed allowed memory. (out of memory)" } },
	{ EE_NCCL_OOM, P, { "Cuda failure 'out of memory'", "Cuda failure 2 'out of memory'" } },
	/* PyTorch's own wording of a cuBLAS status (TORCH_CUDABLAS_CHECK,
	 * aten/src/ATen/cuda/Exceptions.h, v1.0 on: "CUDA error: " status
	 * " when calling `" call "`"): the status alone is cuBLAS's, which
	 * any stack prints (ONNX Runtime: "CUBLAS failure 3:
	 * CUBLAS_STATUS_ALLOC_FAILED ; GPU=0"), and names no PyTorch */
	{ EE_CUBLAS_ALLOC_FAILED, P, { "CUDA error: CUBLAS_STATUS_ALLOC_FAILED" } },
	{ EE_EXPANDABLE_UNSUPPORTED, P, { "expandable_segments not supported on this platform" } },
	/* set 11 spent (w-spent11a): vLLM's sleep-mode allocator checks each
	 * driver call with CUDA_CHECK, which prints "CUDA Error: <the
	 * driver's error string> at <file>:<line>" naming its own file
	 * (csrc/cumem_allocator.cpp, v0.7.3-v0.11; ROCm forks keep the
	 * name); an error other than out of memory ("invalid argument") is
	 * the allocator failing, not the card filling. The memory wording
	 * of the same line is read as a memory failure first */
	{ EE_CUMEM_ERROR, V, { "cumem_allocator.cpp:" } },
	/* round 8 (w-worldg): SGLang's CudaGraphRunner wraps a capture's
	 * error as f"Capture cuda graph failed: {e}" (python/sglang/srt/
	 * model_executor/cuda_graph_runner.py, 0.3-0.5; the decode runner of
	 * the 2026 DeepSeek-V4.1 images prints it alone, sgl-project/sglang
	 * PR 38861): the OOM is the capture's even where no "Capture cuda
	 * graph begin" was kept above it. It starts before "CUDA out of
	 * memory" on the line, so it is the line's error. */
	{ EE_GRAPH_CAPTURE_OOM, S, { "Capture cuda graph failed: CUDA out of memory" } },
	/* SGLang's launcher when a scheduler process exits before it is
	 * ready: "Rank 0 scheduler died during initialization (exit code:
	 * -3). If exit code is -9 (SIGKILL), a common cause is the OS OOM
	 * killer." (python/sglang/srt/entrypoints/engine.py
	 * _scheduler_died_error, 0.5.x 2026): the engine did not start; the
	 * OOM killer is a hint, not what happened */
	{ EE_ENGINE_DEAD, S, { "scheduler died during initialization" } },
};

/* The phrases with a reader of their own, by reader; arg: the fact or
 * the capture's edge (1 begins, 2 ends). */
static const struct {
	reader_fn *read;
	enum engine_kind engine;
	int arg, strong;
	const char *phrases[4];
} special[] = {
	{ er_can_use, V, 0, 1, { "the current vLLM instance can use" } },
	{ er_free_below, V, 0, 1, { "Free memory on device" } },
	{ er_initial_free, V, 0, 1, { "Initial free memory " } },
	{ er_max_seq_len, V, 0, 1, { "max seq len (" } },
	{ er_concurrency, V, 0, 1, { "Maximum concurrency for " } },
	{ er_blocks, N, EF_GPU_BLOCKS, 1, { "GPU blocks: ", "CUDA blocks: ", "cuda blocks: " } },
	{ er_blocks, N, EF_CPU_BLOCKS, 1, { "CPU blocks: " } },
	{ er_graph_took, V, 0, 1, { "Graph capturing finished in " } },
	{ er_capture, V, 1, 1, { "Capturing cudagraphs", "Capturing CUDA graph",
				  "Capturing the model for CUDA graphs", ", in capture_model" } },
	{ er_capture, S, 1, 1, { "Capture cuda graph begin", "Capture npu graph begin" } },
	{ er_capture, S, 2, 1, { "Capture cuda graph end", "Capture npu graph end" } },
	{ er_preempt, V, 0, 1, { "is preempted by PreemptionMode" } },
	{ er_version, V, 0, 1, { "vLLM API server version ", "LLM engine (v", "vLLM version " } },
	{ er_mem_usage, S, 0, 1, { "mem usage=" } },
	{ er_sglang_kv, S, 0, 1, { "KV Cache is allocated." } },
	{ er_prefill_oom, T, 0, 1, { "Not enough memory to handle ", "not enough memory to handle " } },
	{ er_shard_failed, N, 0, 0, { "failed to start" } },
	{ er_rank, N, 0, 0, { " rank=" } },
	{ er_engine, T, 0, 1, { "text_generation_launcher", "text_generation_router" } },
	/* V1's SchedulerOutput dumped at a failure (engine_readers_sched.c):
	 * the requests of the failing step */
	{ er_sched_batch, V, 0, 1, { "num_scheduled_tokens={" } },
	{ er_trt_before, R, EF_KV_CACHE, 1, { " bytes for k/v cache" } },
	{ er_trt_before, R, EF_KV_TOKENS, 1, { " tokens in paged KV cache" } },
	{ er_trt_paged, R, 0, 1, { "for max tokens in paged KV cache (" } },
	{ er_trt_usage, R, 0, 1, { "Memory usage when calculating max tokens in paged kv cache:" } },
	/* the PyTorch backend's executor-creation table, printed when a
	 * component ran out of memory (py_executor_creator.py): the card,
	 * the free memory, and what each component took */
	{ er_trt_gib, R, EF_TOTAL, 1, { "Total GPU memory (GiB): " } },
	{ er_trt_gib, R, EF_FREE, 1, { "Free GPU memory before component creation attempt (GiB): " } },
	{ er_trt_component, R, EF_WEIGHTS, 0, { "model: ", "Model: " } },
	{ er_trt_component, R, EF_KV_CACHE, 0, { "_no_capture_init_kv_cache: ", "KV cache: ",
						 "Initial KV cache (temporary for KV cache size"
						 " estimation): " } },
	{ er_trt_component, R, EF_ACTIVATION_PEAK, 0,
	  { "_no_capture_init_extra_resources: ",
	    "Additional executor resources (temporary for KV cache size estimation): " } },
	/* the KV cache's share of the free memory (KvCacheConfig's
	 * free_gpu_memory_fraction, 0.9 unless set: _torch/pyexecutor/_util.py
	 * and cpp/.../kvCacheManager.cpp at v0.20-v1.0), as the PyTorch
	 * backend logs it when it sizes the cache ("..., fraction is set
	 * 0.85, kv size is 35136", _util.py _cal_max_tokens at v1.0.0rc1) and
	 * as its settings spell it: the LLM API and its YAML, trtllm-serve's
	 * and trtllm-bench's flag, Triton's tensorrtllm_backend parameter,
	 * NVIDIA's MLPerf harness (trtllm_runtime_flags, mapped to
	 * KvCacheConfig(free_gpu_memory_fraction=...)) */
	{ er_fraction, R, EF_KV_FRACTION, 1, { "fraction is set " } },
	{ er_fraction, R, EF_KV_FRACTION, 0, { "free_gpu_memory_fraction",
					       "kv_cache_free_gpu_memory_fraction",
					       "kv_cache_free_gpu_mem_fraction",
					       "kvcache_free_gpu_mem_frac" } },
	/* the same line's cache: "available KV cache memory when calculating
	 * max tokens: 41.11 GiB" (fraction x what profiling left) */
	{ er_size, R, EF_KV_CACHE, 1, { "available KV cache memory when calculating max"
					" tokens: " } },
	{ er_version, R, 0, 0, { "Engine version " } },
	{ er_trt_error, R, 0, 1, { "[TensorRT-LLM][ERROR]" } },
	{ er_wrap_open, N, 0, 0, { "CUDA runtime error in " } },
	{ er_engine, R, 0, 1, { "[TensorRT-LLM]" } },
	/* the PyTorch backend's Python logger ("[11/07/2025-07:20:57] [TRT-LLM]
	 * [I] max_seq_len=8193, max_num_requests=32, max_num_tokens=8192,
	 * max_batch_size=32", tensorrt_llm/logger.py's prefix): its lines are
	 * TensorRT-LLM's, and their max_batch_size= no LMDeploy config */
	{ er_engine, R, 0, 1, { "[TRT-LLM] [" } },
	{ er_config, N, 0, 0, { "with config:", "args: ", "Args {", "args={" } },
	{ er_ds_mark, N, 0, 0, { "Max_MA " } },   /* the prefilter of server_deepspeed.c */
	/* Rapid-MLX / vllm-mlx's start-up projection of the model's memory
	 * against the machine's RAM (vllm_mlx/cli.py _check_memory_capacity
	 * @v0.12.18): the prefilter of server_pressure.c */
	{ er_pressure_mark, N, 1, 0, { "Est. working set:", "Currently used by OS:",
				       "% projected utilization)" } },
	/* the same block's advice ("Or lower memory headroom: rapid-mlx serve
	 * <model> --gpu-memory-utilization 0.75", "If you see crashes or
	 * kernel panics, try: --gpu-memory-utilization 0.85"): a value the
	 * engine suggests, not the one it runs with (read_with drops the
	 * line's facts) */
	{ er_pressure_mark, N, 2, 0, { "Or lower memory headroom:",
				       "If you see crashes or kernel panics, try:" } },
	/* a training loop's logged steps (server_progress.h says which):
	 * the HF Trainer's log dict, DeepSpeed's step line */
	{ er_train_mark, N, 0, 0, { "'learning_rate': ", ", skipped=" } },
	/* llama.cpp (ggml): its functions' prefixes name it (the phrases
	 * after them name no engine: " MiB free" is PyTorch's too); Ollama's
	 * runner prints the same lines under the server's */
	{ er_engine, L, 0, 1, { "load_tensors: ", "llm_load_tensors: ",
				"llama_new_context_with_model: ", "llama_kv_cache_init: " } },
	{ er_engine, L, 0, 1, { "llama_context: ", "llama_kv_cache: ", "llama_kv_cache_unified: ",
				"llama_model_load_from_file_impl: " } },
	/* ggml-cuda.cu's ggml_cuda_init ("%s: found %d " GGML_CUDA_NAME
	 * " devices:", CUDA and ROCm builds), before --list-devices' list */
	{ er_engine, L, 0, 1, { "ggml_cuda_init: found " } },
	/* Ollama's memory lines before it offloads: 'msg="system memory"
	 * total=... free=...', 'msg=evaluating library=cuda gpu_count=2
	 * available="[23.3 GiB 15.5 GiB]"' (the first card's figure) */
	{ er_engine, O, 0, 1, { "msg=\"system memory\"", "msg=evaluating library=" } },
	{ er_quoted_size, O, EF_FREE, 1, { " available=\"[" } },
	{ er_ggml_layers, N, 0, 0, { "offloaded " } },
	{ er_ggml_buffer, N, 0, 0, { " buffer size =" } },
	{ er_ggml_free, N, 0, 0, { " MiB free" } },   /* "using device CUDA0 (...) - N MiB free" */
	{ er_ggml_kv_total, L, 0, 1, { "KV self size" } },
	/* the per-device memory table llama.cpp prints when a context is
	 * freed (src/llama-context.cpp llama_memory_breakdown_print, PR 15860
	 * on) and of what its fitting projects (common_memory_breakdown_print):
	 * one row per device after the function's name (engine_readers_ggml.c);
	 * its header marks the rows below it (engine_line_ggml_row) */
	{ er_ggml_breakdown, L, 0, 1, { "llama_memory_breakdown_print: |",
					"common_memory_breakdown_print: |" } },
	{ er_ggml_table, L, 0, 1, { "memory breakdown [MiB]" } },
	{ er_engine, O, 0, 1, { "msg=offload ", "msg=\"offload to ", "msg=\"starting llama server",
				"waiting for server to become available" } },
	/* the Go runner's end: "llama runner terminated", its goroutine trace */
	{ er_engine, O, 0, 1, { "msg=\"llama runner terminated\"", "github.com/ollama/ollama/",
				"source=dyn_ext_server.go" /* 0.1.x's in-process server */ } },
	{ er_engine, M, 0, 1, { "TurbomindEngineConfig(", "PytorchEngineConfig(", " - lmdeploy - ",
				"[TM][INFO]" } },   /* anchors are 6 bytes at least */
	{ er_engine, M, 0, 1, { "[TM][WARNING]", "[TM][ERROR]", "[TM][FATAL]" } },
	{ er_ollama_buffer, O, EF_WEIGHTS, 1, { "msg=\"model weights\"" } },
	{ er_ollama_buffer, O, EF_KV_CACHE, 1, { "msg=\"kv cache\"" } },
	{ er_ollama_buffer, O, EF_COMPUTE_BUFFER, 1, { "msg=\"compute graph\"" } },
	/* the sum of those buffers, host ones included (its device.go): what
	 * the runner takes in all, the instance's planned_total_bytes (not
	 * requested_bytes: that is a share of one card) */
	{ er_quoted_size, O, EF_PLANNED_TOTAL, 1, { "msg=\"total memory\" size=" } },
	{ er_quoted_list, O, 0, 1, { "memory.available=" } },
	{ er_quoted_list, O, 1, 1, { "memory.required.allocations=" } },
	{ er_ollama_evaluating, O, 0, 1, { "msg=evaluating library=" } },
	{ er_quoted_size, O, EF_REQUIRED_FULL, 1, { "memory.required.full=" } },
	{ er_quoted_size, O, EF_KV_CACHE, 1, { "memory.required.kv=" } },
	{ er_quoted_size, O, EF_WEIGHTS, 1, { "memory.weights.total=" } },
	{ er_quoted_size, O, EF_COMPUTE_BUFFER, 1, { "memory.graph.full=" } },
	/* the plan for the layers it offloads (the sum of the per-GPU
	 * allocations) and the graph it reserves when not every layer is
	 * offloaded: llm/memory.go EstimateGPULayers (v0.1.45 to v0.12.x),
	 * logged as memory.required.partial and memory.graph.partial; the
	 * derive pass offload_fit reads them */
	{ er_quoted_size, O, EF_REQUIRED_PARTIAL, 1, { "memory.required.partial=" } },
	{ er_quoted_size, O, EF_GRAPH_PARTIAL, 1, { "memory.graph.partial=" } },
};

#undef V
#undef S
#undef T
#undef R
#undef P
#undef N
#undef O
#undef L
#undef M

#define ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))
#define ANCHORS_MAX 1024  /* about 520 in use at issue 27's fourth round;
				   * engine_lines_self_check() says when full */
#define FILTER_BITS 12
#define SIEVE_BITS 16
#define STRIDE 3                 /* positions a sieve lookup stands for */
#define ANCHOR_MIN (STRIDE + 3)  /* the shortest anchor: STRIDE - 1 + 4 */

/* The anchors built from the tables, and a filter over them: a bit per
 * hash of an anchor's first four bytes, and the anchors of each hash in a
 * chain (next[] indexes anchors; -1 ends). */
struct anchor_filter {
	size_t n;
	struct anchor a[ANCHORS_MAX];
	uint64_t pairs[65536 / 64];   /* the anchors' first two bytes: most
				       * positions of a line stop here */
	uint64_t bits[(1u << FILTER_BITS) / 64];
	uint64_t sieve[(1u << SIEVE_BITS) / 64]; /* the hashes of each anchor's
						  * four bytes at offsets 0..STRIDE-1 */
	short head[1u << FILTER_BITS];
	short next[ANCHORS_MAX];
	uint32_t first4[ANCHORS_MAX]; /* each anchor's first four bytes: a
				       * chain's other hashes fail here */
	uint32_t last4[ANCHORS_MAX];  /* and its last four: anchors that share
				       * a start ("GPU KV cache size: ", "GPU
				       * blocks: ") fail here, before memcmp */
};

/* every anchor; and the same less the recogniser's phase phrases, for a
 * log in which a request was served (engine_line_served()): a sparser
 * sieve, and "Finished request" on every tenth line no longer a hit */
static struct anchor_filter all, unphased;
static int filters_ready;
static int anchors_dropped;   /* anchors past ANCHORS_MAX: never read */

static unsigned hash4(const char *p)
{
	uint32_t k;

	memcpy(&k, p, 4);
	return (k * 2654435761u) >> (32 - FILTER_BITS);
}

static unsigned sieve_hash(const char *p)
{
	uint32_t k;

	memcpy(&k, p, 4);
	return (k * 2654435761u) >> (32 - SIEVE_BITS);
}

static unsigned pair(const char *p)
{
	return (unsigned)(unsigned char)p[0] << 8 | (unsigned char)p[1];
}

static void add(const struct anchor *a)
{
	assert(all.n < ANCHORS_MAX && strlen(a->text) >= ANCHOR_MIN);
	if (all.n >= ANCHORS_MAX) {   /* a release build: drop it, write nothing past */
		anchors_dropped++;
		return;
	}
	all.a[all.n] = *a;
	all.a[all.n].len = strlen(a->text);
	all.n++;
}

/* A phrase of the memory-failure recogniser as an anchor that marks. */
static void add_memfail(const char *phrase, unsigned mark, void *arg)
{
	struct anchor a = { phrase, 0, ENGINE_NONE, er_memfail_mark, (int)mark, 0, 0, 0, 0 };

	(void)arg;
	add(&a);
}

/* The anchors of the four tables, in table order, then the recogniser's. */
static void anchors_build(void)
{
	size_t i, k;

	for (i = 0; i < ARRAY_N(fact_labels); i++)
		for (k = 0; k < ARRAY_N(fact_labels[i].labels) && fact_labels[i].labels[k]; k++) {
			struct anchor a = { fact_labels[i].labels[k], 0, fact_labels[i].engine,
					    fact_labels[i].size ? er_size : er_num,
					    fact_labels[i].key, 0, fact_labels[i].strong, 0, 0 };
			add(&a);
		}
	for (i = 0; i < ARRAY_N(stat_labels); i++)
		for (k = 0; k < ARRAY_N(stat_labels[i].labels) && stat_labels[i].labels[k]; k++) {
			const char *t = stat_labels[i].labels[k];
			struct anchor a = { t, 0, stat_labels[i].engine, er_stat, stat_labels[i].key,
					    stat_labels[i].mult, 1, (unsigned)stat_labels[i].gated,
					    islower((unsigned char)t[0]) != 0 };
			add(&a);
		}
	for (i = 0; i < ARRAY_N(error_phrases); i++)
		for (k = 0; k < ARRAY_N(error_phrases[i].phrases) && error_phrases[i].phrases[k];
		     k++) {
			struct anchor a = { error_phrases[i].phrases[k], 0, error_phrases[i].engine,
					    er_error, error_phrases[i].key, 0, 1, 0, 0 };
			add(&a);
		}
	for (i = 0; i < ARRAY_N(special); i++)
		for (k = 0; k < ARRAY_N(special[i].phrases) && special[i].phrases[k]; k++) {
			struct anchor a = { special[i].phrases[k], 0, special[i].engine,
					    special[i].read, special[i].arg, 0,
					    (unsigned)special[i].strong, 0, 0 };
			add(&a);
		}
	memfail_each_phrase(add_memfail, NULL);
}

/* Index f's anchors a[0..n) into its sieve, pairs and chains. */
static void filter_index(struct anchor_filter *f)
{
	size_t i;

	memset(f->head, -1, sizeof(f->head));
	for (i = f->n; i-- > 0;) {
		unsigned h = hash4(f->a[i].text), pr = pair(f->a[i].text), k, sh;
		for (k = 0; k < STRIDE; k++) {
			sh = sieve_hash(f->a[i].text + k);
			f->sieve[sh / 64] |= 1ull << (sh % 64);
		}
		f->pairs[pr / 64] |= 1ull << (pr % 64);
		f->bits[h / 64] |= 1ull << (h % 64);
		f->next[i] = f->head[h];
		f->head[h] = (short)i;
		memcpy(&f->first4[i], f->a[i].text, 4);
		memcpy(&f->last4[i], f->a[i].text + f->a[i].len - 4, 4);
	}
}

/* Built once; the tables are constant, so two threads building them at
 * once write the same values. */
static void filter_build(void)
{
	size_t i;

	all.n = unphased.n = 0;
	anchors_dropped = 0;
	anchors_build();
	for (i = 0; i < all.n; i++)
		if (all.a[i].read != er_memfail_mark || all.a[i].arg != (int)MEMFAIL_MARK_PHASE)
			unphased.a[unphased.n++] = all.a[i];
	filter_index(&all);
	filter_index(&unphased);
	filters_ready = 1;
}

int engine_lines_self_check(void)
{
	if (!filters_ready)
		filter_build();
	return anchors_dropped ? -1 : 0;
}

/* The engine whose wording a line uses, from the anchors it holds: a
 * named engine's over PyTorch's. */
static void note_engine(struct engine_line *o, const struct anchor *a)
{
	if (a->engine == ENGINE_NONE)
		return;
	if (o->engine == ENGINE_NONE || (o->engine == ENGINE_PYTORCH && a->engine != ENGINE_PYTORCH))
		o->engine = a->engine;
}

/* Call fn for each anchor that starts at line[i] (line has n bytes, at
 * least i + 4); stops early when fn returns nonzero. Returns that value,
 * else 0. */
static int anchors_at(const struct anchor_filter *filter, const char *line, size_t n, size_t i,
		      int (*fn)(const struct anchor *, size_t, void *), void *arg)
{
	unsigned pr = pair(line + i), h;
	uint32_t w, e;
	short k;
	int r;

	if (!(filter->pairs[pr / 64] >> (pr % 64) & 1))
		return 0;
	h = hash4(line + i);
	if (!(filter->bits[h / 64] >> (h % 64) & 1))
		return 0;
	memcpy(&w, line + i, 4);
	for (k = filter->head[h]; k >= 0; k = filter->next[k]) {
		const struct anchor *a = &filter->a[k];
		if (filter->first4[k] != w || a->len > n - i)
			continue;
		memcpy(&e, line + i + a->len - 4, 4);
		if (filter->last4[k] != e || memcmp(line + i + 4, a->text + 4, a->len - 4))
			continue;
		if ((r = fn(a, i, arg)))
			return r;
	}
	return 0;
}

/* Call fn for each anchor found in line[0..n), in order; stops early
 * when fn returns nonzero. Returns that value, else 0. The four bytes at
 * j (a multiple of STRIDE) are in any anchor that starts at j-2, j-1
 * or j: those three are looked at only when the sieve holds them. */
static int each_anchor(const struct anchor_filter *filter, const char *line, size_t n,
		       int (*fn)(const struct anchor *, size_t, void *), void *arg)
{
	size_t i, j, end = n - 3;   /* the last four bytes start at n - 4 */
	unsigned sh;
	int r;

	if (n < 4)
		return 0;
	/* one compare a step (j < end, not j + 4 <= n): the loop runs on
	 * every byte of every line the scan reads */
	for (j = 0; j < end; j += STRIDE) {
		sh = sieve_hash(line + j);
		if (!(filter->sieve[sh / 64] >> (sh % 64) & 1))
			continue;
		for (i = j < STRIDE - 1 ? 0 : j - (STRIDE - 1); i <= j; i++)
			if ((r = anchors_at(filter, line, n, i, fn, arg)))
				return r;
	}
	return 0;
}

struct reading {
	struct engine_line *o;
	const char *line, *end;
	unsigned gated;         /* statistics read from gated labels */
};

/* 1 when an anchor that is a lower-case word or key ("max_total_num_tokens=",
 * "token usage: ") stands inside a longer name ("sglang:max_total_num_tokens=",
 * a Prometheus metric quoted) rather than on its own. */
static int inside_name(const struct anchor *a, const char *line, size_t at)
{
	char c = at ? line[at - 1] : ' ';

	return (islower((unsigned char)a->text[0]) || a->text[0] == '_') &&
	       (isalnum((unsigned char)c) || c == '_' || c == ':' || c == '.');
}

/* What a reader may change on a line, held before a weak anchor is read:
 * took() compares it with the line after. */
struct held {
	int nfacts, preempted, capture, config, ggml_dev, ggml_total;
	unsigned stats_set;
	enum engine_error error;
	char version0;
};

static void hold(struct held *h, const struct engine_line *o)
{
	h->nfacts = o->nfacts;
	h->preempted = o->preempted;
	h->capture = o->capture;
	h->config = o->config;
	h->ggml_dev = o->ggml_dev;
	h->ggml_total = o->ggml_total;
	h->stats_set = o->stats_set;
	h->error = o->error;
	h->version0 = o->version[0];
}

/* 1 when a reader took something from the line since hold(): a fact, a
 * statistic, an error, a preemption, a capture edge, a version, a
 * configuration dump or a ggml device. */
static int took(const struct engine_line *o, const struct held *h)
{
	return o->nfacts != h->nfacts || o->stats_set != h->stats_set ||
	       o->error != h->error || o->preempted != h->preempted ||
	       o->capture != h->capture || o->config != h->config ||
	       o->ggml_dev != h->ggml_dev || o->ggml_total != h->ggml_total ||
	       o->version[0] != h->version0;
}

/* Read one anchor found at line[at]. A strong anchor names its engine by
 * being there (only that engine prints it); a weak one (a configuration
 * key, a short label such as "model: ") claims its engine only when its
 * reader found the shape that engine prints after it: "llama_model_load:
 * error loading model: unable to allocate CUDA0 buffer" in an Ollama log
 * holds TensorRT-LLM's "model: " label but not its "<GiB> / <GiB>", and
 * is no TensorRT-LLM line (issue 27). */
static int read_anchor(const struct anchor *a, size_t at, void *arg)
{
	struct reading *r = arg;
	unsigned before = r->o->stats_set;
	struct held h;

	if (a->read != er_memfail_mark && inside_name(a, r->line, at))
		return 0;
	hold(&h, r->o);
	a->read(r->o, a, r->line, r->line + at + a->len, r->end);
	/* A gated label ("Running: ") names no engine by itself: where its
	 * gate holds, the throughput or KV usage beside it already named
	 * vLLM; where it fails, the line is anyone's ("Running: \"correct\""
	 * in dorado's log). */
	if (a->gated) {
		r->gated |= r->o->stats_set & ~before;
		return 0;
	}
	if (a->strong || took(r->o, &h))
		note_engine(r->o, a);
	return 0;
}

/* engine_line() with the anchors of filter f. */
static inline int read_with(const struct anchor_filter *f, const char *line, size_t n,
		     struct engine_line *out)
{
	struct reading r = { out, line, line + n, 0 };

	memset(out, 0, offsetof(struct engine_line, gpu_list));
	out->preempt_total = -1;
	out->rank = -1;
	out->ggml_dev = -1;
	if (!filters_ready)
		filter_build();
	each_anchor(f, line, n, read_anchor, &r);
	if (out->pressure & 2) {   /* an engine's advice: its figures are no setting */
		out->nfacts = 0;
		out->engine = ENGINE_NONE;
	}
	if (out->rank < 0 && out->engine == ENGINE_SGLANG)
		out->rank = er_sglang_rank(line, n);
	/* "Running: " alone is too common a phrase: vLLM's statistics come
	 * with a throughput or a KV cache usage on the same line. */
	if (r.gated && !(out->stats_set & (1u << ES_GPU_KV_USAGE | 1u << ES_PROMPT_TPS |
					   1u << ES_GEN_TPS)))
		out->stats_set &= ~r.gated;
	return out->nfacts || out->stats_set || out->error || out->preempted || out->capture ||
	       out->version[0];
}

int engine_line(const char *line, size_t n, struct engine_line *out)
{
	return read_with(&all, line, n, out);
}

int engine_line_served(const char *line, size_t n, struct engine_line *out)
{
	return read_with(&unphased, line, n, out);
}

int engine_line_ggml_row(const char *line, size_t n, struct engine_line *out)
{
	const char *p = line, *end = line + n;

	memset(out, 0, offsetof(struct engine_line, gpu_list));
	out->preempt_total = -1;
	out->rank = -1;
	out->ggml_dev = -1;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && *p == '|')
		p++;
	er_ggml_breakdown(out, NULL, line, p, end);
	if (!out->nfacts)
		return 0;
	out->engine = ENGINE_LLAMACPP;
	return 1;
}

static int strong_anchor(const struct anchor *a, size_t at, void *arg)
{
	return a->strong && !a->gated && !inside_name(a, arg, at);
}

int engine_line_strong(const char *line, size_t n)
{
	if (!filters_ready)
		filter_build();
	return each_anchor(&all, line, n, strong_anchor, (void *)line);
}
