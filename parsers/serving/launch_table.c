/*
 * launch_table.c -- the spellings launch_conf.c reads (launch_table.h):
 * the engines' entry points, their command-line flags and the keys of
 * the configurations users paste, each to the knob it sets. Learnt from
 * each engine's argument parser (the file named; the flags as the 2024-2025
 * releases spell them, each also seen in real launch commands of
 * tests/data/real; the exact first tag of each flag is not recorded here):
 *  - vLLM vllm/engine/arg_utils.py (EngineArgs.add_cli_args:
 *    --gpu-memory-utilization, --max-num-seqs, --max-num-batched-tokens,
 *    --max-model-len, --tensor-parallel-size/-tp, --enforce-eager); the
 *    entry points vllm/scripts.py (`vllm serve`, 0.5.0 on) and
 *    vllm/entrypoints/openai/api_server.py; a `--config` YAML takes the
 *    same names without dashes;
 *  - SGLang python/sglang/srt/server_args.py (--mem-fraction-static,
 *    --max-running-requests, --chunked-prefill-size, --context-length,
 *    --tp-size/--tp, --max-total-tokens: the pool's tokens, not one
 *    request's, --disable-cuda-graph); entry point sglang.launch_server;
 *  - TGI launcher/src/main.rs (--cuda-memory-fraction,
 *    --max-concurrent-requests, --max-batch-prefill-tokens,
 *    --max-total-tokens: one request's, --num-shard, --cuda-graphs);
 *  - llama.cpp common/arg.cpp (-ngl/--n-gpu-layers/--gpu-layers,
 *    -c/--ctx-size, -b/--batch-size, -np/--parallel);
 *  - LMDeploy lmdeploy/cli/utils.py ArgumentHelper
 *    (--cache-max-entry-count, --max-batch-size, --session-len, --tp,
 *    --max-prefill-token-num, --eager-mode);
 *  - TensorRT-LLM tensorrt_llm/commands/serve.py and build.py
 *    (--max_batch_size, --max_num_tokens, --max_seq_len, --tp_size,
 *    --kv_cache_free_gpu_memory_fraction), the Triton backend's
 *    config.pbtxt key kv_cache_free_gpu_mem_fraction;
 *  - Ollama envconfig/config.go (OLLAMA_NUM_PARALLEL,
 *    OLLAMA_CONTEXT_LENGTH from v0.5.13) and docs/modelfile.md (PARAMETER
 *    num_ctx, num_gpu: layers, num_batch);
 *  - LLaMA-Factory src/llamafactory/hparams/model_args.py@v0.8.3 (and
 *    @v0.9.0): vllm_maxlen, vllm_gpu_util, vllm_enforce_eager, which
 *    src/llamafactory/chat/vllm_engine.py@v0.8.3 hands to vLLM as
 *    max_model_len, gpu_memory_utilization, enforce_eager (its YAML keys,
 *    or --key value on llamafactory-cli's HfArgumentParser command line);
 *    vllm_max_lora_rank (vLLM's max_lora_rank) sets no knob read here;
 *  - transformers src/transformers/training_args.py
 *    (per_device_train_batch_size, gradient_accumulation_steps), DeepSpeed
 *    docs/_pages/config-json.md (train_micro_batch_size_per_gpu).
 */
#include "parsers/serving/launch_table.h"

#include <string.h>

/* The entry points, each with the engine it starts. A docker image's name
 * counts as the engine's entry point (its ENTRYPOINT is the launcher). */
const struct launch_entry launch_entries[] = {
	{ "vllm serve ", "vllm", NULL },
	{ "vllm.entrypoints.openai.api_server", "vllm", NULL },
	{ "vllm.entrypoints.api_server", "vllm", NULL },
	{ "vllm/vllm-openai", "vllm", NULL },
	{ "sglang.launch_server", "sglang", NULL },
	{ "lmsysorg/sglang", "sglang", NULL },
	{ "text-generation-launcher", "tgi", NULL },
	{ "huggingface/text-generation-inference", "tgi", NULL },
	{ "--model-id ", "tgi", NULL },   /* the launcher's own flag: its arguments pasted alone */
	{ "llama-server ", "llama.cpp", NULL },
	{ "llama-cli ", "llama.cpp", NULL },
	/* llama.cpp's example binary before the rename to llama-cli (README.md
	 * @b1937 "./main -m models/...", renamed at b3184): round 8 */
	{ "./main -m ", "llama.cpp", NULL },
	{ "ggml-org/llama.cpp:server", "llama.cpp", NULL },
	/* Ollama's image: Dockerfile@v0.6.6 ENTRYPOINT ["/bin/ollama"], CMD
	 * ["serve"], so a compose file's "image: ollama/ollama:<tag>" or a
	 * docker run's "ollama/ollama" is the server; the leading blank keeps
	 * a Go trace's "github.com/ollama/ollama/" out, and "ollama serve" is
	 * left out: a journal's "<ollama server>" host tag holds it (round 8,
	 * w-spent8r) */
	{ " ollama/ollama", "ollama", NULL },
	{ "lmdeploy serve ", "lmdeploy", NULL },
	{ "openmmlab/lmdeploy", "lmdeploy", NULL },
	{ "trtllm-serve ", "tensorrt-llm", NULL },
	{ "trtllm-build ", "tensorrt-llm", NULL },
	/* the builder's own plugin flags: examples/<model>/build.py before
	 * trtllm-build (0.5-0.7), --gpt_attention_plugin after */
	{ "--use_gpt_attention_plugin", "tensorrt-llm", NULL },
	{ "--gpt_attention_plugin", "tensorrt-llm", NULL },
	{ "torchrun ", "trainer", NULL },
	{ "accelerate launch ", "trainer", NULL },
	/* set 12 spent (w-spend12d): inference-only CLIs, whose whole run is
	 * a pass over the inputs (launch.phase eval; the failure's phase
	 * when no log of the folder places it, analyzer/derive/oom_paste.c).
	 * OpenNMT-py's translate.py (OpenNMT-py@0.9.1 translate.py ->
	 * onmt/translate/translator.py; README "python translate.py -model
	 * ... -src ...") and its console script from 1.0 (setup.py@1.0.0
	 * entry_points onmt_translate=onmt.bin.translate:main); any
	 * "translate.py" script translates a file, it does not train.
	 * fairseq's generation CLIs (setup.py@v0.12.2 console_scripts
	 * fairseq-generate, fairseq-interactive: fairseq_cli/generate.py,
	 * interactive.py) */
	{ "translate.py ", "opennmt-py", "eval" },
	{ "onmt_translate ", "opennmt-py", "eval" },
	{ "fairseq-generate ", "fairseq", "eval" },
	{ "fairseq-interactive ", "fairseq", "eval" },
	/* round 12, tunephase13: evaluation harnesses, whose whole run
	 * scores a model on a task's inputs (eval). mlx-lm's console
	 * scripts (setup.py, 2025: mlx_lm.evaluate = mlx_lm.evaluate:main,
	 * lm-evaluation-harness's tasks on MLX; mlx_lm.perplexity =
	 * mlx_lm.perplexity:main, a dataset's perplexity), and
	 * lm-evaluation-harness's own (pyproject.toml [project.scripts]
	 * lm-eval, lm_eval = lm_eval.__main__:cli_evaluate), spelled with the
	 * first option after them so that "from lm_eval import" is no command */
	{ "mlx_lm.evaluate ", "mlx-lm", "eval" },
	{ "mlx_lm.perplexity ", "mlx-lm", "eval" },
	{ "lm_eval --", "lm-evaluation-harness", "eval" },
	{ "lm-eval --", "lm-evaluation-harness", "eval" },
	{ NULL, NULL, NULL }
};

/* Command-line flags. engine NULL: any engine's (the same knob wherever
 * it is spelled so). kind: LK_NUM takes the next word (or "=value"),
 * LK_ON sets 1, LK_ZERO_EAGER sets enforce_eager when the value is 0. */
const struct launch_flag launch_flags[] = {
	/* vLLM */
	{ "--gpu-memory-utilization", NULL, "gpu_memory_utilization", LK_NUM, NULL },
	{ "--max-num-seqs", NULL, "max_num_seqs", LK_NUM, NULL },
	{ "--max-num-batched-tokens", NULL, "max_num_batched_tokens", LK_NUM, NULL },
	{ "--max-model-len", NULL, "max_model_len", LK_NUM, NULL },
	{ "--tensor-parallel-size", NULL, "tensor_parallel_size", LK_NUM, NULL },
	{ "-tp", "vllm", "tensor_parallel_size", LK_NUM, NULL },
	{ "--enforce-eager", NULL, "enforce_eager", LK_ON, NULL },
	{ "--cpu-offload-gb", NULL, "cpu_offload_gb", LK_NUM, NULL },
	/* SGLang */
	{ "--mem-fraction-static", NULL, "gpu_memory_utilization", LK_NUM, NULL },
	{ "--max-running-requests", NULL, "max_num_seqs", LK_NUM, NULL },
	{ "--chunked-prefill-size", NULL, "max_num_batched_tokens", LK_NUM, NULL },
	{ "--context-length", NULL, "max_model_len", LK_NUM, NULL },
	{ "--tp-size", NULL, "tensor_parallel_size", LK_NUM, NULL },
	{ "--tp", NULL, "tensor_parallel_size", LK_NUM, NULL },   /* SGLang, LMDeploy */
	{ "--max-total-tokens", "sglang", "kv_cache_tokens", LK_NUM, NULL },
	{ "--disable-cuda-graph", NULL, "enforce_eager", LK_ON, NULL },
	/* TGI */
	{ "--cuda-memory-fraction", NULL, "gpu_memory_utilization", LK_NUM, NULL },
	{ "--max-concurrent-requests", NULL, "max_num_seqs", LK_NUM, NULL },
	{ "--max-batch-prefill-tokens", NULL, "max_num_batched_tokens", LK_NUM, NULL },
	{ "--max-batch-total-tokens", NULL, "kv_cache_tokens", LK_NUM, NULL },
	{ "--max-total-tokens", "tgi", "max_model_len", LK_NUM, NULL },
	{ "--num-shard", NULL, "tensor_parallel_size", LK_NUM, NULL },
	{ "--cuda-graphs", NULL, "enforce_eager", LK_ZERO_EAGER, NULL },
	/* llama.cpp */
	{ "-ngl", NULL, "gpu_layers", LK_NUM, NULL },
	{ "--n-gpu-layers", NULL, "gpu_layers", LK_NUM, NULL },
	{ "--gpu-layers", NULL, "gpu_layers", LK_NUM, NULL },
	{ "-c", "llama.cpp", "max_model_len", LK_NUM, NULL },
	{ "--ctx-size", NULL, "max_model_len", LK_NUM, NULL },
	{ "-np", "llama.cpp", "max_num_seqs", LK_NUM, NULL },
	{ "--parallel", "llama.cpp", "max_num_seqs", LK_NUM, NULL },
	{ "-b", "llama.cpp", "max_num_batched_tokens", LK_NUM, NULL },
	{ "--batch-size", "llama.cpp", "max_num_batched_tokens", LK_NUM, NULL },
	/* LMDeploy */
	{ "--cache-max-entry-count", NULL, "kv_cache_fraction", LK_NUM, NULL },
	{ "--max-batch-size", NULL, "max_num_seqs", LK_NUM, NULL },
	{ "--session-len", NULL, "max_model_len", LK_NUM, NULL },
	{ "--max-prefill-token-num", NULL, "max_num_batched_tokens", LK_NUM, NULL },
	{ "--eager-mode", NULL, "enforce_eager", LK_ON, NULL },
	/* TensorRT-LLM */
	{ "--max_batch_size", NULL, "max_num_seqs", LK_NUM, NULL },
	{ "--max_num_tokens", NULL, "max_num_batched_tokens", LK_NUM, NULL },
	{ "--max_seq_len", NULL, "max_model_len", LK_NUM, NULL },
	{ "--tp_size", NULL, "tensor_parallel_size", LK_NUM, NULL },
	{ "--kv_cache_free_gpu_memory_fraction", NULL, "gpu_memory_utilization", LK_NUM, NULL },
	/* a trainer's arguments (transformers' HfArgumentParser) */
	{ "--per_device_train_batch_size", NULL, "train_batch_size", LK_NUM, NULL },
	{ "--per-device-train-batch-size", NULL, "train_batch_size", LK_NUM, NULL },
	{ "--gradient_accumulation_steps", NULL, "grad_accum_steps", LK_NUM, NULL },
	/* LLaMA-Factory's vLLM settings on llamafactory-cli's command line
	 * (HfArgumentParser: --<field> value; model_args.py@v0.8.3) */
	{ "--vllm_maxlen", NULL, "max_model_len", LK_NUM, NULL },
	{ "--vllm_gpu_util", NULL, "gpu_memory_utilization", LK_NUM, NULL },
	{ "--vllm_enforce_eager", NULL, "enforce_eager", LK_ON, NULL },
	{ "--batch_size", "trainer", "train_batch_size", LK_NUM, NULL },
	{ "--batch-size", "trainer", "train_batch_size", LK_NUM, NULL },
	{ NULL, NULL, NULL, 0, NULL }
};

/* Keys of a pasted configuration ("key: value", "key=value", "\"key\":
 * value", "PARAMETER key value", an env list's NAME=value or name/value
 * pair). LK_TEXT keeps the value as text under env.<NAME>. */
const struct launch_flag launch_keys[] = {
	{ "gpu_memory_utilization", NULL, "gpu_memory_utilization", LK_NUM, NULL },
	{ "gpu-memory-utilization", NULL, "gpu_memory_utilization", LK_NUM, NULL },
	{ "mem_fraction_static", NULL, "gpu_memory_utilization", LK_NUM, NULL },
	{ "mem-fraction-static", NULL, "gpu_memory_utilization", LK_NUM, NULL },
	{ "kv_cache_free_gpu_mem_fraction", NULL, "gpu_memory_utilization", LK_NUM, NULL },
	{ "free_gpu_memory_fraction", NULL, "gpu_memory_utilization", LK_NUM, NULL },
	{ "max_num_seqs", NULL, "max_num_seqs", LK_NUM, NULL },
	{ "max-num-seqs", NULL, "max_num_seqs", LK_NUM, NULL },
	{ "max_running_requests", NULL, "max_num_seqs", LK_NUM, NULL },
	{ "max_num_batched_tokens", NULL, "max_num_batched_tokens", LK_NUM, NULL },
	{ "max-num-batched-tokens", NULL, "max_num_batched_tokens", LK_NUM, NULL },
	{ "max_model_len", NULL, "max_model_len", LK_NUM, NULL },
	{ "max-model-len", NULL, "max_model_len", LK_NUM, NULL },
	{ "tensor_parallel_size", NULL, "tensor_parallel_size", LK_NUM, NULL },
	{ "tensor-parallel-size", NULL, "tensor_parallel_size", LK_NUM, NULL },
	{ "enforce_eager", NULL, "enforce_eager", LK_ON, NULL },
	{ "cache_max_entry_count", NULL, "kv_cache_fraction", LK_NUM, NULL },
	/* LLaMA-Factory's names for vLLM's (model_args.py@v0.8.3, above) */
	{ "vllm_maxlen", NULL, "max_model_len", LK_NUM, NULL },
	{ "vllm_gpu_util", NULL, "gpu_memory_utilization", LK_NUM, NULL },
	{ "vllm_enforce_eager", NULL, "enforce_eager", LK_ON, NULL },
	/* Ollama */
	{ "num_ctx", NULL, "max_model_len", LK_NUM, "ollama" },
	{ "num_gpu", NULL, "gpu_layers", LK_NUM, "ollama" },
	{ "num_batch", NULL, "max_num_batched_tokens", LK_NUM, "ollama" },
	{ "OLLAMA_NUM_PARALLEL", NULL, "max_num_seqs", LK_NUM, "ollama" },
	{ "OLLAMA_CONTEXT_LENGTH", NULL, "max_model_len", LK_NUM, "ollama" },
	/* TGI's launcher reads each flag from the environment too, under its
	 * name in capitals (clap's `#[clap(long, env)]`, launcher/src/main.rs) */
	{ "MAX_BATCH_PREFILL_TOKENS", NULL, "max_num_batched_tokens", LK_NUM, "tgi" },
	{ "MAX_TOTAL_TOKENS", NULL, "max_model_len", LK_NUM, "tgi" },
	{ "MAX_BATCH_TOTAL_TOKENS", NULL, "kv_cache_tokens", LK_NUM, "tgi" },
	{ "MAX_CONCURRENT_REQUESTS", NULL, "max_num_seqs", LK_NUM, "tgi" },
	{ "CUDA_MEMORY_FRACTION", NULL, "gpu_memory_utilization", LK_NUM, "tgi" },
	{ "NUM_SHARD", NULL, "tensor_parallel_size", LK_NUM, "tgi" },
	/* trainers */
	{ "per_device_train_batch_size", NULL, "train_batch_size", LK_NUM, NULL },
	{ "train_micro_batch_size_per_gpu", NULL, "train_batch_size", LK_NUM, NULL },
	{ "gradient_accumulation_steps", NULL, "grad_accum_steps", LK_NUM, NULL },
	/* the allocator's settings, kept as the environment's */
	{ "PYTORCH_CUDA_ALLOC_CONF", NULL, "PYTORCH_CUDA_ALLOC_CONF", LK_TEXT, NULL },
	{ "PYTORCH_HIP_ALLOC_CONF", NULL, "PYTORCH_HIP_ALLOC_CONF", LK_TEXT, NULL },
	{ NULL, NULL, NULL, 0, NULL }
};

const struct launch_flag *launch_find(const struct launch_flag *t, const char *w, size_t n,
				      const char *engine)
{
	for (; t->spelling; t++)
		if (strlen(t->spelling) == n && !memcmp(t->spelling, w, n) &&
		    (!t->engine || (engine && !strcmp(t->engine, engine))))
			return t;
	return NULL;
}
