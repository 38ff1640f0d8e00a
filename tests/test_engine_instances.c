/*
 * test_engine_instances.c -- how the server-log parser gives each engine
 * line to its engine instance (parsers/serving/server_engine.c): per
 * process and rank, per service and backend, Ollama and its runner,
 * ggml's buffers per GPU, facts and errors over lines, the cap on
 * instances. One line's reading is in test_engine_lines.c.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GiB 1073741824.0
#define MiB 1048576.0

/* ---- instances ---- */

static int64_t fact_of(struct timeline *tl, const char *col, const char *instance)
{
	return t_int(tl, "SELECT %s FROM engine WHERE instance = '%s'", col, instance);
}

/* vLLM V0: the driver and each worker process; V1: the engine core and
 * its workers, a rank when the tag has one. */
static void vllm_processes(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	tl->opts.year = 2025;
	assert_true(t_parse_mem(tl, "server_log", "v0",
		"INFO 08-19 07:51:03 model_runner.py:732] Loading model weights took 2.3463 GB\n"
		"(VllmWorkerProcess pid=13105) INFO 08-19 07:51:03 model_runner.py:732] Loading model"
		" weights took 2.3464 GB\n"
		"INFO 08-19 07:51:08 distributed_gpu_executor.py:56] # GPU blocks: 22982, # CPU blocks:"
		" 6241\n", 0) > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine WHERE engine = 'vllm'"), 2);
	assert_int_equal(fact_of(tl, "gpu_blocks", ""), 22982);
	assert_int_equal(fact_of(tl, "gpu_blocks", "pid 13105"), OL_NULL);
	assert_int_equal(fact_of(tl, "weights_bytes", "pid 13105"), llround(2.3464 * GiB));
	t_close(tl);
	tl = t_open();
	tl->opts.year = 2025;
	assert_true(t_parse_mem(tl, "server_log", "v1",
		"(VllmWorker rank=7 pid=240) INFO 05-06 20:59:59 [gpu_model_runner.py:1] Model loading"
		" took 12.66 GiB memory\n"
		"(EngineCore_DP0 pid=26283) INFO 11-06 10:51:48 [kv_cache_utils.py:1229] GPU KV cache"
		" size: 75,840 tokens\n"
		"(VllmWorker rank=7 pid=240) Cuda failure 'out of memory'\n", 0) > 0);
	assert_int_equal(fact_of(tl, "weights_bytes", "rank 7"), llround(12.66 * GiB));
	assert_int_equal(fact_of(tl, "kv_cache_tokens", "pid 26283"), 75840);
	assert_string_equal(t_text(tl, "SELECT json_extract(errors, '$[0].kind') FROM engine"
				   " WHERE instance = 'rank 7'"), "nccl_oom");
	assert_string_equal(t_text(tl, "SELECT engine FROM engine WHERE instance = 'rank 7'"), "vllm");
	t_close(tl);
}

/* SGLang's TP ranks, TGI's shards, compose services, Triton and its
 * TensorRT-LLM backend side by side. */
static void ranks_services_backends(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "server_log", "sglang",
		"[2025-10-16 09:06:10 TP5] Load weight begin. avail mem=137.29 GB\n"
		"[2025-10-16 09:06:10 TP0] Load weight begin. avail mem=137.34 GB\n"
		"[2025-10-16 09:06:20 TP0] Load weight end. type=X, avail mem=120.00 GB, mem usage=17.34"
		" GB.\n", 0) > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine WHERE engine = 'sglang'"), 2);
	assert_int_equal(fact_of(tl, "free_bytes", "TP0"), llround(137.34 * GiB));   /* the first */
	assert_int_equal(fact_of(tl, "weights_bytes", "TP0"), llround(17.34 * GiB));
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "tgi",
		"tgi-1  | 2024-03-06T17:53:22.336246Z  INFO shard-manager: text_generation_launcher:"
		" Starting shard rank=0\n"
		"tgi-2  | 2024-03-06T17:53:22.336246Z  INFO shard-manager: text_generation_launcher:"
		" Starting shard rank=1\n", 0) > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine WHERE engine = 'tgi'"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine WHERE instance = 'tgi-2 rank 1'"), 1);
	t_close(tl);
	/* a compose service, then a CI gutter and a quote before vLLM's tag */
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "wrapped",
		"vllm-1  |   | > (VllmWorker rank=3 pid=9) ERROR 05-05 12:36:59 [core.py:1] # GPU"
		" blocks: 0, # CPU blocks: 512\n", 0) > 0);
	assert_int_equal(fact_of(tl, "gpu_blocks", "vllm-1 rank 3"), 0);
	t_close(tl);
	tl = t_open();
	tl->opts.year = 2024;
	assert_true(t_parse_mem(tl, "server_log", "triton",
		"I0114 14:18:56.398667 28565 model_lifecycle.cc:461] loading: tensorrt_llm:1\n"
		"[TensorRT-LLM][INFO] Using 10718 tokens in paged KV cache.\n", 0) > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine WHERE engine = 'triton'"), 1);
	assert_int_equal(t_int(tl, "SELECT kv_cache_tokens FROM engine WHERE"
			       " engine = 'tensorrt-llm'"), 10718);
	t_close(tl);
}

/* Ollama's server and the llama.cpp runner under it are one instance,
 * Ollama's, whichever speaks first (tests/data/incoming/any_stack's ROCm
 * journal: the runner's lines after the server's); llama.cpp alone is
 * llama.cpp, its host buffers not the card's. */
static void ollama_and_its_runner(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	tl->opts.year = 2024;
	assert_true(t_parse_mem(tl, "server_log", "ollama",
		"Jul 24 21:50:06 vega ollama[132945]: llm_load_tensors: offloaded 43/81 layers to GPU\n"
		"Jul 24 21:50:06 vega ollama[132945]: llm_load_tensors:      ROCm0 buffer size ="
		" 21533.93 MiB\n"
		"Jul 24 21:50:06 vega ollama[132945]: llm_load_tensors:        CPU buffer size ="
		" 41850.31 MiB\n"
		"Jul 24 21:50:06 vega ollama[132945]: time=2024-07-24T21:50:06.542+02:00 level=INFO"
		" source=server.go:617 msg=\"waiting for server to become available\" status=\"llm"
		" server loading model\"\n"
		"Jul 24 21:50:08 vega ollama[132945]: llama_kv_cache_init:      ROCm0 KV buffer size ="
		"   344.00 MiB\n", 0) > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine WHERE engine = 'ollama'"), 1);
	assert_int_equal(t_int(tl, "SELECT gpu_layers FROM engine"), 43);
	assert_int_equal(t_int(tl, "SELECT weights_bytes FROM engine"), llround(21533.93 * MiB));
	assert_int_equal(t_int(tl, "SELECT kv_cache_bytes FROM engine"), llround(344 * MiB));
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "llama.cpp",
		"llama-cpp    | llm_load_tensors: offloaded 81/81 layers to GPU\n"
		"llama-cpp    | llm_load_tensors:        CPU buffer size = 47628.36 MiB\n"
		"llama-cpp    | llama_new_context_with_model: n_ctx      = 8192\n", 0) > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine WHERE engine = 'llama.cpp'"), 1);
	assert_int_equal(t_int(tl, "SELECT kv_cache_tokens FROM engine"), 8192);
	assert_int_equal(t_int(tl, "SELECT weights_bytes IS NULL FROM engine"), 1);
	t_close(tl);
	/* two cards (llama.cpp pull 6122's log): each card's buffer is summed,
	 * the total "KV self size" does not count the KV twice */
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "llama.cpp",
		"llm_load_tensors: offloaded 41/41 layers to GPU\n"
		"llm_load_tensors:        CPU buffer size =  1640.62 MiB\n"
		"llm_load_tensors:      CUDA0 buffer size =  5434.38 MiB\n"
		"llm_load_tensors:      CUDA1 buffer size = 13989.53 MiB\n"
		"llama_kv_cache_init:      CUDA0 KV buffer size =  1536.00 MiB\n"
		"llama_kv_cache_init:      CUDA1 KV buffer size =  3584.00 MiB\n"
		"llama_new_context_with_model: KV self size  = 5120.00 MiB, K (f16): 2560.00 MiB,"
		" V (f16): 2560.00 MiB\n"
		"llama_new_context_with_model:      CUDA0 compute buffer size =   672.01 MiB\n", 0) > 0);
	assert_int_equal(t_int(tl, "SELECT weights_bytes FROM engine"),
			 llround(5434.38 * MiB) + llround(13989.53 * MiB));
	assert_int_equal(t_int(tl, "SELECT kv_cache_bytes FROM engine"), llround(5120 * MiB));
	assert_int_equal(t_int(tl, "SELECT compute_buffer_bytes FROM engine"), llround(672.01 * MiB));
	t_close(tl);
}

/* Each GPU's ggml buffers in a row of its own ("device N") when they
 * were on several GPUs, host buffers left out: Ollama 0.9's own engine
 * (ollama pull 11090), 0.14's kv cache lines (ollama 13789), ik_llama's
 * KV buffers on CUDA11..14 (ik_llama.cpp pull 235); LMDeploy's
 * TurbomindEngineConfig (lmdeploy 1459). */
static void ggml_buffers_per_gpu_and_lmdeploy(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "server_log", "ollama",
		"time=2025-07-18T14:50:57.066Z level=INFO source=ggml.go:362 msg=\"offloaded 41/41"
		" layers to GPU\"\n"
		"time=2025-07-18T14:50:57.066Z level=INFO source=ggml.go:365 msg=\"model weights\""
		" buffer=CUDA0 size=\"11.5 GiB\"\n"
		"time=2025-07-18T14:50:57.066Z level=INFO source=ggml.go:365 msg=\"model weights\""
		" buffer=CUDA1 size=\"11.9 GiB\"\n"
		"time=2025-07-18T14:50:57.066Z level=INFO source=ggml.go:365 msg=\"model weights\""
		" buffer=CPU size=\"680.0 MiB\"\n"
		"time=2025-07-18T14:50:58.130Z level=INFO source=ggml.go:672 msg=\"compute graph\""
		" backend=CUDA0 buffer_type=CUDA0 size=\"0 B\"\n", 0) > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine WHERE engine = 'ollama'"), 3);
	assert_int_equal(t_int(tl, "SELECT weights_bytes FROM engine WHERE instance = ''"),
			 llround(11.5 * 1024 * MiB) + llround(11.9 * 1024 * MiB));
	assert_int_equal(t_int(tl, "SELECT weights_bytes FROM engine WHERE instance = 'device 1'"),
			 llround(11.9 * 1024 * MiB));
	assert_int_equal(t_int(tl, "SELECT compute_buffer_bytes FROM engine"
			       " WHERE instance = 'device 0'"), 0);
	assert_int_equal(t_int(tl, "SELECT compute_buffer_bytes IS NULL FROM engine"
			       " WHERE instance = 'device 1'"), 1);
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "ollama",
		"time=2026-01-20T16:34:21.526+08:00 level=INFO source=device.go:251 msg=\"kv cache\""
		" device=CUDA0 size=\"800.0 MiB\"\n"
		"time=2026-01-20T16:34:21.526+08:00 level=INFO source=device.go:256 msg=\"kv cache\""
		" device=CPU size=\"6.6 GiB\"\n", 0) > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine"), 1);   /* GPU 0 alone: no row */
	assert_int_equal(t_int(tl, "SELECT kv_cache_bytes FROM engine"), llround(800 * MiB));
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "llama.cpp",
		"llama_kv_cache_init:     CUDA11 KV buffer size =   144.00 MiB\n"
		"llama_kv_cache_init:     CUDA14 KV buffer size =   180.00 MiB\n"
		"llama_new_context_with_model: KV self size  = 2196.00 MiB, c^KV (f16): 2196.00 MiB,"
		" kv^T: not used\n", 0) > 0);
	assert_int_equal(t_int(tl, "SELECT kv_cache_bytes FROM engine WHERE instance = ''"),
			 llround(324 * MiB));
	assert_int_equal(t_int(tl, "SELECT kv_cache_bytes FROM engine WHERE instance = 'device 14'"),
			 llround(180 * MiB));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine WHERE instance = 'device 0'"), 0);
	t_close(tl);
	/* Ollama's offload line as a maintainer pasted it, wrapped (ollama
	 * 8430): each GPU's memory.available and memory.required.allocations */
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "ollama",
		"time=2025-05-23T17:16:43.377Z level=INFO source=server.go:168 msg=offload"
		" library=cuda layers.requested=49 layers.model=49\n"
		" layers.offload=37 layers.split=37,0 memory.available=\"[11.5 GiB 4.6 GiB]\""
		" memory.gpu_overhead=\"0 B\"\n"
		" memory.required.full=\"14.9 GiB\" memory.required.partial=\"11.4 GiB\""
		" memory.required.kv=\"2.0 GiB\"\n"
		" memory.required.allocations=\"[11.4 GiB 0 B]\" memory.weights.total=\"7.5 GiB\""
		" memory.weights.repeating=\"5.6 GiB\"\n", 0) > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine WHERE engine = 'ollama'"), 3);
	assert_int_equal(t_int(tl, "SELECT free_bytes FROM engine WHERE instance = 'device 1'"),
			 llround(4.6 * 1024 * MiB));
	assert_int_equal(t_int(tl, "SELECT requested_bytes FROM engine WHERE instance = 'device 0'"),
			 llround(11.4 * 1024 * MiB));
	assert_int_equal(t_int(tl, "SELECT requested_bytes FROM engine WHERE instance = 'device 1'"),
			 0);
	assert_int_equal(t_int(tl, "SELECT free_bytes FROM engine WHERE instance = ''"),
			 llround(11.5 * 1024 * MiB));
	t_close(tl);
	/* journald's ident names Ollama for its runner's llama.cpp lines
	 * (ollama 3711, a spent frozen file) */
	tl = t_open();
	tl->opts.year = 2024;
	assert_true(t_parse_mem(tl, "server_log", "ollama",
		"Apr 17 23:09:46 athena ollama.listener[2840147]: llm_load_tensors: offloaded 39/41"
		" layers to GPU\n"
		"Apr 17 23:09:46 athena ollama.listener[2840147]: llm_load_tensors:      CUDA0 buffer"
		" size = 45460.59 MiB\n", 0) > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine WHERE engine = 'ollama'"), 1);
	assert_int_equal(t_int(tl, "SELECT gpu_layers FROM engine"), 39);
	t_close(tl);
	/* the scheduler's OLLAMA_DEBUG line (ollama 8377, a spent frozen file) */
	tl = t_open();
	tl->opts.year = 2025;
	assert_true(t_parse_mem(tl, "server_log", "ollama",
		"Jan 10 16:30:58 node1 ollama[119046]: time=2025-01-10T16:30:58.528+01:00"
		" level=DEBUG source=memory.go:107 msg=evaluating library=cuda gpu_count=2"
		" available=\"[23.3 GiB 15.5 GiB]\"\n", 0) > 0);
	assert_int_equal(t_int(tl, "SELECT free_bytes FROM engine WHERE instance = 'device 1'"),
			 llround(15.5 * 1024 * MiB));
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "lmdeploy",
		"2024-04-23 10:11:19,967 - lmdeploy - INFO - updated backend_config=TurbomindEngineConfig("
		"model_name=None, model_format=None, tp=1, session_len=8192, max_batch_size=128,"
		" cache_max_entry_count=0.1, cache_block_seq_len=64, quant_policy=0)\n"
		"[TM][INFO] Set logger level by INFO\n", 0) > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine WHERE engine = 'lmdeploy'"), 1);
	assert_int_equal(t_int(tl, "SELECT max_model_len FROM engine"), 8192);
	assert_int_equal(t_int(tl, "SELECT max_num_seqs FROM engine"), 128);
	/* the KV cache's share of what the weights leave, not a share of the card */
	assert_int_equal(t_int(tl, "SELECT round(kv_cache_fraction * 10) FROM engine"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine WHERE gpu_memory_utilization"
			       " IS NOT NULL"), 0);
	t_close(tl);
	/* Ollama's whole plan (tests/data/real/serving/ollama-0.12.7-total-
	 * memory-runner-started-journal.log): every device and the host, not a
	 * share of one card, so not requested_bytes */
	tl = t_open();
	tl->opts.year = 2025;
	assert_true(t_parse_mem(tl, "server_log", "ollama",
		"oct. 30 00:11:40 jarvis-server ollama[556420]: time=2025-10-30T00:11:40.427Z"
		" level=INFO source=device.go:244 msg=\"total memory\" size=\"23.8 GiB\"\n", 0) > 0);
	assert_int_equal(t_int(tl, "SELECT planned_total_bytes FROM engine WHERE engine = 'ollama'"),
			 llround(23.8 * 1024 * MiB));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine WHERE requested_bytes IS NOT NULL"), 0);
	t_close(tl);
}

/* Facts over lines: a restatement within 0.5% keeps the first, a change
 * the last; TGI's pretty-printed Some( joined; a PyTorch OOM's instance
 * takes the log's engine; an error told twice is one, an OOM during a
 * graph capture is graph_capture_oom. */
static void facts_and_errors_over_lines(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	tl->opts.year = 2025;
	assert_true(t_parse_mem(tl, "server_log", "v",
		"INFO 01-13 11:35:21 model_runner.py:1099] Loading model weights took 14.9595 GB\n"
		"INFO 01-13 11:35:23 worker.py:241] model weights take 14.96GiB; the rest of the memory"
		" reserved for KV Cache is 11.12GiB.\n"
		"INFO 01-13 11:36:23 worker.py:241] the rest of the memory reserved for KV Cache is"
		" 10.00GiB.\n"
		"INFO 01-13 11:37:00 model_runner.py:1415] Capturing cudagraphs for decoding.\n"
		"RuntimeError: CUDA out of memory occurred when warming up sampler.\n"
		"ERROR 01-13 11:37:01 [core.py:515] EngineCore failed to start.\n"
		"ERROR 01-13 11:37:01 [core.py:515] EngineCore failed to start.\n", 0) > 0);
	assert_int_equal(fact_of(tl, "weights_bytes", ""), llround(14.9595 * GiB));
	assert_int_equal(fact_of(tl, "kv_cache_bytes", ""), llround(10.0 * GiB));
	assert_string_equal(t_text(tl, "SELECT group_concat(json_extract(value, '$.kind'), ' ')"
				   " FROM engine, json_each(engine.errors)"),
			    "graph_capture_oom engine_dead");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'engine_error'"), 2);
	t_close(tl);
	/* a traceback through vLLM's capture_model: the OOM is the capture's */
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "capture",
		"Traceback (most recent call last):\n"
		"  File \"/x/vllm/worker/model_runner.py\", line 1456, in capture_model\n"
		"    graph_runner.capture(**capture_inputs)\n"
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a"
		" total capacity of 14.62 GiB of which 3.31 MiB is free.\n", 0) > 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(errors, '$[0].kind') FROM engine"),
			    "graph_capture_oom");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'torch_oom'"), 1);
	t_close(tl);
	/* a process of PyTorch's lines takes the log's engine, however many
	 * lines name none */
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "log engine",
		"max_num_seqs=256\nmax_num_seqs=256\nmax_num_seqs=256\n"
		"INFO 08-19 07:51:03 model_runner.py:732] Loading model weights took 2.3463 GB\n"
		"svc  | torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0\n",
		0) > 0);
	assert_string_equal(t_text(tl, "SELECT engine FROM engine WHERE instance = 'svc'"), "vllm");
	t_close(tl);
	tl = t_open();
	assert_true(t_parse_mem(tl, "server_log", "tgi",
		"2025-03-13T08:36:37.262563Z  INFO text_generation_launcher: Args {\n"
		"    max_total_tokens: Some(\n"
		"        64000,\n"
		"    ),\n"
		"    cuda_memory_fraction: 1.0,\n"
		"}\n", 0) > 0);
	assert_int_equal(fact_of(tl, "max_model_len", ""), 64000);
	assert_true(t_real(tl, "SELECT gpu_memory_utilization FROM engine") == 1.0);
	t_close(tl);
}

/* Past SRV_ENGINES instances, the later are not kept, and a warning
 * says so once. */
static void instances_are_capped(void **state)
{
	struct timeline *tl = t_open();
	char *log = malloc(100 * 128), *p = log;
	int i;
	(void)state;
	for (i = 0; i < 100; i++)
		p += sprintf(p, "(VllmWorkerProcess pid=%d) Loading model weights took 1.5 GB\n", i + 1);
	assert_true(t_parse_mem(tl, "server_log", "many", log, 0) > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM engine"), 64);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'more than 64 engine instances%%'"), 1);
	free(log);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vllm_processes),
		cmocka_unit_test(ranks_services_backends),
		cmocka_unit_test(ollama_and_its_runner),
		cmocka_unit_test(ggml_buffers_per_gpu_and_lmdeploy),
		cmocka_unit_test(facts_and_errors_over_lines),
		cmocka_unit_test(instances_are_capped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
