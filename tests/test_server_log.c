/*
 * test_server_log.c -- inference server logs (vLLM V0/V1, TGI, plain
 * PyTorch scripts): start-up configuration, engine statistics, requests
 * served, tracebacks and PyTorch's CUDA OOM message: one message per
 * wording it has had, and every real excerpt of tests/data/real read as
 * its manifest row says.
 */
#include "testutil.h"
#include "analyzer/ingest/formats.h"
#include "lib/input.h"
#include "lib/timeutil.h"
#include "parsers/torch/torch_oom_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB 1048576LL
#define GiB 1073741824LL

/* A file of the source tree read by the server-log parser (no detection). */
static int parse_log(struct timeline *tl, const char *rel)
{
	return t_parse_file_as(tl, "server_log", rel);
}

static int64_t gpu_value(struct timeline *tl, const char *name, const char *ent, int nth)
{
	return t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
		     " WHERE s.name = '%s' AND s.entity = '%s' ORDER BY time_ns LIMIT 1 OFFSET %d",
		     name, ent, nth);
}

static const char *meta(struct timeline *tl, const char *key)
{
	return t_text(tl, "SELECT value FROM meta WHERE key = '%s' ORDER BY rowid DESC LIMIT 1", key);
}

static int64_t ev_int(struct timeline *tl, const char *kind, const char *field)
{
	return t_int(tl, "SELECT json_extract(data, '$.%s') FROM event WHERE kind = '%s'"
		     " ORDER BY id LIMIT 1", field, kind);
}

static void vllm_v0_log(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	tl->opts.year = 2025;
	assert_true(parse_log(tl, "tests/data/series/vllm_v0.log") > 0);
	assert_string_equal(meta(tl, "server.model"), "meta-llama/Meta-Llama-3.1-70B-Instruct");
	assert_string_equal(meta(tl, "server.dtype"), "bfloat16");
	assert_string_equal(meta(tl, "server.tensor_parallel_size"), "4");
	assert_string_equal(meta(tl, "server.gpu_memory_utilization"), "0.95");
	assert_string_equal(meta(tl, "server.max_num_seqs"), "256");
	assert_string_equal(meta(tl, "server.max_model_len"), "131072");
	assert_string_equal(meta(tl, "server.max_num_batched_tokens"), "(null)");
	assert_string_equal(meta(tl, "server.version"), "0.6.3.post1");
	assert_int_equal(atoll(meta(tl, "server.weights_bytes")), (int64_t)(32.8894 * GiB + 0.5));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key = 'server.weights_bytes'"), 1);
	assert_string_equal(meta(tl, "server.kv_cache_blocks"), "24563");
	assert_string_equal(meta(tl, "server.max_concurrency"), "3");
	assert_string_equal(meta(tl, "server.max_concurrency_tokens"), "131072");
	/* statistics */
	assert_int_equal(gpu_value(tl, "server.running", "vllm", 1), 38);
	assert_int_equal(gpu_value(tl, "server.swapped", "vllm", 1), 2);
	assert_int_equal(gpu_value(tl, "server.waiting", "vllm", 1), 5);
	assert_true(t_real(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id WHERE"
			   " s.name = 'server.gpu_kv_usage' ORDER BY time_ns DESC LIMIT 1") > 97.39);
	assert_true(t_real(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id WHERE"
			   " s.name = 'server.cpu_kv_usage' ORDER BY time_ns DESC LIMIT 1") < 1.21);
	assert_true(t_real(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id WHERE"
			   " s.name = 'server.prompt_tokens_per_s' ORDER BY time_ns DESC LIMIT 1")
		    == 1520.3);
	assert_int_equal(t_int(tl, "SELECT max(time_ns) FROM sample"), utc_ns(2025, 11, 29, 18, 22, 40, 0));
	assert_string_equal(meta(tl, "time.clock"), "local");
	/* one OOM, its chained traceback kept whole, no separate server_error;
	 * the preemption warning before it is an event of its own */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind <> 'preemption'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'preemption'"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.mode') FROM event"
				   " WHERE kind = 'preemption'"), "swap");
	assert_int_equal(t_int(tl, "SELECT bytes FROM event WHERE kind = 'torch_oom'"), 2 * GiB);
	assert_int_equal(t_int(tl, "SELECT line FROM event WHERE kind = 'torch_oom'"), 15);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind = 'torch_oom'"),
			 utc_ns(2025, 11, 29, 18, 22, 45, 0));
	assert_string_equal(t_text(tl, "SELECT clock FROM event WHERE kind = 'torch_oom'"), "local");
	assert_int_equal(ev_int(tl, "torch_oom", "device"), 0);
	assert_int_equal(ev_int(tl, "torch_oom", "total_bytes"), (int64_t)(79.19 * GiB + 0.5));
	assert_int_equal(ev_int(tl, "torch_oom", "free_bytes"), (int64_t)(1.06 * GiB + 0.5));
	assert_int_equal(ev_int(tl, "torch_oom", "allocated_bytes"), (int64_t)(74.31 * GiB + 0.5));
	assert_int_equal(ev_int(tl, "torch_oom", "reserved_unallocated_bytes"),
			 (int64_t)(2.55 * GiB + 0.5));
	assert_int_equal(ev_int(tl, "torch_oom", "process_in_use_bytes"), OL_NULL);
	assert_int_equal(ev_int(tl, "torch_oom", "processes[0].pid"), 4312);
	assert_int_equal(ev_int(tl, "torch_oom", "suggests_expandable_segments"), 1);
	assert_true(t_int(tl, "SELECT json_extract(data, '$.traceback') LIKE '%%direct cause%%"
			  "AsyncEngineDeadError%%' FROM event WHERE kind = 'torch_oom'") == 1);
	assert_true(t_int(tl, "SELECT json_extract(data, '$.traceback') LIKE"
			  " '%%  File \"/usr/local/lib/python3.10/dist-packages/vllm/worker/model_runner.py\""
			  ", line 1654%%' FROM event WHERE kind = 'torch_oom'") == 1);
	t_close(tl);
}

static void vllm_v1_log(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	tl->opts.year = 2025;
	assert_true(parse_log(tl, "tests/data/series/vllm_v1.log") > 0);
	assert_string_equal(meta(tl, "server.model"), "Qwen/Qwen2.5-32B-Instruct");
	assert_string_equal(meta(tl, "server.max_num_batched_tokens"), "8192");
	assert_string_equal(meta(tl, "server.gpu_memory_utilization"), "0.92");
	assert_string_equal(meta(tl, "server.max_model_len"), "32768");
	assert_string_equal(meta(tl, "server.tensor_parallel_size"), "2");
	assert_int_equal(atoll(meta(tl, "server.weights_bytes")), (int64_t)(30.7102 * GiB + 0.5));
	assert_int_equal(atoll(meta(tl, "server.kv_cache_bytes")), (int64_t)(38.41 * GiB + 0.5));
	assert_string_equal(meta(tl, "server.kv_cache_tokens"), "314656");
	assert_string_equal(meta(tl, "server.max_concurrency"), "9.6");
	assert_string_equal(meta(tl, "server.max_concurrency_tokens"), "32768");
	assert_int_equal(gpu_value(tl, "server.waiting", "vllm", 1), 12);
	assert_int_equal(gpu_value(tl, "server.running", "vllm", 1), 64);
	assert_true(t_real(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id WHERE"
			   " s.name = 'server.prefix_cache_hit_rate' ORDER BY time_ns DESC LIMIT 1")
		    > 43.49);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM series WHERE name = 'server.swapped'"), 0);
	/* the OOM inside a RuntimeError of the engine core */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'torch_oom'"), 1);
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind = 'torch_oom'"), 245);
	assert_int_equal(ev_int(tl, "torch_oom", "device"), 1);
	assert_int_equal(ev_int(tl, "torch_oom", "requested_bytes"), (int64_t)(1.5 * GiB));
	assert_int_equal(ev_int(tl, "torch_oom", "free_bytes"), 420 * MiB);
	assert_int_equal(ev_int(tl, "torch_oom", "process_in_use_bytes"), (int64_t)(78.77 * GiB + 0.5));
	assert_int_equal(ev_int(tl, "torch_oom", "allocated_bytes"), (int64_t)(76.02 * GiB + 0.5));
	assert_int_equal(ev_int(tl, "torch_oom", "private_pools_bytes"), (int64_t)(1.10 * GiB + 0.5));
	assert_int_equal(ev_int(tl, "torch_oom", "reserved_unallocated_bytes"),
			 (int64_t)(1.52 * GiB + 0.5));
	/* the API server's own traceback: a server_error */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'server_error'"), 1);
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind = 'server_error'"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.exception_type') FROM event"
				   " WHERE kind = 'server_error'"),
			    "vllm.v1.engine.exceptions.EngineDeadError");
	t_close(tl);
}

static void torch_old_form_and_plain_traceback(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	/* two events and the engine row of PyTorch (its CUDA OOM) */
	assert_int_equal(parse_log(tl, "tests/data/series/torch_old.log"), 3);
	assert_int_equal(ev_int(tl, "torch_oom", "requested_bytes"), 2 * GiB);
	assert_int_equal(ev_int(tl, "torch_oom", "total_bytes"), (int64_t)(79.15 * GiB + 0.5));
	assert_int_equal(ev_int(tl, "torch_oom", "allocated_bytes"), (int64_t)(74.02 * GiB + 0.5));
	assert_int_equal(ev_int(tl, "torch_oom", "free_bytes"), (int64_t)(1.23 * GiB + 0.5));
	assert_int_equal(ev_int(tl, "torch_oom", "reserved_bytes"), (int64_t)(76.50 * GiB + 0.5));
	assert_int_equal(ev_int(tl, "torch_oom", "reserved_unallocated_bytes"),
			 (int64_t)(76.50 * GiB + 0.5) - (int64_t)(74.02 * GiB + 0.5));
	assert_int_equal(ev_int(tl, "torch_oom", "suggests_expandable_segments"), 0);
	assert_int_equal(ev_int(tl, "torch_oom", "suggests_max_split_size"), 1);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind = 'torch_oom'"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT line FROM event WHERE kind = 'server_error'"), 8);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.exception_type') FROM event"
				   " WHERE kind = 'server_error'"), "ModuleNotFoundError");
	t_close(tl);
	/* pre-1.5 "cached" wording, and a message outside any traceback */
	tl = t_open();
	assert_int_equal(t_parse_mem(tl, "server_log", "x",
		"RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 3; 10.92 GiB"
		" total capacity; 9.86 GiB already allocated; 11.50 MiB free; 10.04 GiB cached)\n", 0), 2);
	assert_int_equal(ev_int(tl, "torch_oom", "device"), 3);
	assert_int_equal(ev_int(tl, "torch_oom", "reserved_bytes"), (int64_t)(10.04 * GiB + 0.5));
	assert_int_equal(ev_int(tl, "torch_oom", "free_bytes"), (int64_t)(11.5 * MiB));
	assert_string_equal(t_text(tl, "SELECT json_type(data, '$.traceback') FROM event"), "null");
	t_close(tl);
}

static void tgi_log(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(parse_log(tl, "tests/data/series/tgi.log") > 0);
	assert_string_equal(meta(tl, "server.model"), "meta-llama/Meta-Llama-3-8B-Instruct");
	assert_string_equal(meta(tl, "server.dtype"), "bfloat16");
	assert_string_equal(meta(tl, "server.tensor_parallel_size"), "2");
	assert_string_equal(meta(tl, "server.max_model_len"), "4096");
	assert_string_equal(meta(tl, "server.max_num_batched_tokens"), "4096");
	assert_string_equal(meta(tl, "server.max_num_seqs"), "128");
	assert_string_equal(meta(tl, "server.gpu_memory_utilization"), "0.9");
	assert_string_equal(meta(tl, "server.kv_cache_tokens"), "19264");
	/* the router's echo of the shard's OOM is not a second OOM */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'torch_oom'"), 1);
	assert_string_equal(t_text(tl, "SELECT clock FROM event"), "utc");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event"), utc_ns(2025, 11, 29, 18, 22, 44, 100000));
	assert_int_equal(ev_int(tl, "torch_oom", "requested_bytes"), 1024 * MiB);
	assert_int_equal(ev_int(tl, "torch_oom", "processes[0].pid"), 2211);
	t_close(tl);
}

static void tgi_pretty_args(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(t_parse_mem(tl, "server_log", "tgi",
		"2024-05-10T12:34:56.123456Z  INFO text_generation_launcher: Args {\n"
		"    model_id: \"bigscience/bloom-560m\",\n"
		"    revision: None,\n"
		"    num_shard: Some(\n"
		"        4,\n"
		"    ),\n"
		"    dtype: None,\n"
		"    max_total_tokens: Some(\n"
		"        2048,\n"
		"    ),\n"
		"    cuda_memory_fraction: 0.85,\n"
		"}\n"
		"2024-05-10T12:34:57.000000Z  INFO download: text_generation_launcher: Starting download\n",
		0), 5);   /* four meta rows, the TGI engine row */
	assert_string_equal(meta(tl, "server.model"), "bigscience/bloom-560m");
	assert_string_equal(meta(tl, "server.gpu_memory_utilization"), "0.85");
	assert_string_equal(meta(tl, "server.dtype"), "(null)");
	assert_string_equal(meta(tl, "server.tensor_parallel_size"), "4");
	assert_string_equal(meta(tl, "server.max_model_len"), "2048");
	t_close(tl);
}

/* A terminal UI's frame (k9s, Lens): "│ " before each line, " │" after
 * its padding; the message inside is read, its time carried to the next
 * line of the record. */
static void tgi_framed_by_a_terminal_ui(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_mem(tl, "server_log", "tgi",
		"\xe2\x94\x82 2023-07-19T21:02:11.123161Z ERROR text_generation_launcher: Method Warmup"
		" encountered an error.                  \xe2\x94\x82\n"
		"\xe2\x94\x82 torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB"
		" (GPU 0; 22.19 GiB total capacity; 19.97 GiB already allocated; 1.15 GiB free;"
		" 20.80 GiB reserved in total by PyTorch)          \xe2\x94\x82\n", 0) > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'torch_oom'"), 1);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind = 'torch_oom'"),
			 utc_ns(2023, 7, 19, 21, 2, 11, 123161000));
	assert_int_equal(ev_int(tl, "torch_oom", "reserved_bytes"), (int64_t)(20.80 * GiB));
	/* the right border is not part of the message */
	assert_null(strstr(t_text(tl, "SELECT summary FROM event WHERE kind = 'torch_oom'"),
			   "\xe2\x94\x82"));
	t_close(tl);
}

/* Kubernetes' wrappers (issue 29). A CRI node log (/var/log/pods/.../0.log:
 * "<RFC3339Nano> stderr P|F ", as containerd writes it) cuts a long line
 * into P pieces ended by an F piece: joined, the OOM's figures are read
 * whole, at the exact UTC time of its first piece (the vLLM stamp of
 * unknown zone gives way to it). kubectl logs --prefix names the pod and
 * container: replicas of one container are two instances. The vLLM line
 * is real (vllm-project/vllm, Nemotron-Nano-9B-v2 on 0.10.1), cut after
 * "unallocated."; the wrappers are the formats containerd and kubectl write. */
static void k8s_wrappers(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	tl->opts.year = 2025;
	assert_true(t_parse_mem(tl, "server_log", "0.log",
		"2025-08-20T03:10:01.482913304Z stderr P ERROR 08-20 03:10:01 [engine.py:467] CUDA out"
		" of memory. Tried to allocate 33.7\n"
		"2025-08-20T03:10:01.482913305Z stderr F 5 GiB. GPU 0 has a total capacity of 44.40 GiB"
		" of which 26.88 GiB is free. Including non-PyTorch memory, this process has 17.52 GiB"
		" memory in use. Of the allocated memory 17.03 GiB is allocated by PyTorch, and 6.95 MiB"
		" is reserved by PyTorch but unallocated.\n"
		"2025-08-20T03:10:02.000000000Z stdout F\n", 0) > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'torch_oom'"), 1);
	assert_int_equal(ev_int(tl, "torch_oom", "requested_bytes"), (int64_t)(33.75 * GiB));
	assert_int_equal(ev_int(tl, "torch_oom", "total_bytes"), (int64_t)(44.40 * GiB + 0.5));
	assert_string_equal(t_text(tl, "SELECT clock FROM event WHERE kind = 'torch_oom'"), "utc");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind = 'torch_oom'"),
			 utc_ns(2025, 8, 20, 3, 10, 1, 482913304));
	t_close(tl);

	/* kubectl logs --prefix: two replicas, one container name */
	tl = t_open();
	tl->opts.year = 2025;
	assert_true(parse_log(tl, "tests/data/real/k8s_logs/"
			      "kubectl-prefix-vllm-two-replicas-model-loading.log") > 0);
	assert_int_equal(t_int(tl, "SELECT count(DISTINCT instance) FROM engine WHERE instance LIKE"
			       " 'vllm-h100-gemma-4-31b-it-595fcb9f4-%%/inference-server pid 126'"), 2);
	t_close(tl);

	/* --prefix and --timestamps together: "[pod/P/C] <RFC3339Nano> line" */
	tl = t_open();
	tl->opts.year = 2025;
	assert_true(t_parse_mem(tl, "server_log", "p.log",
		"[pod/vllm-0/vllm] 2025-08-20T03:10:01.5Z ERROR 08-20 03:10:01 [engine.py:467] CUDA out"
		" of memory. Tried to allocate 33.75 GiB. GPU 0 has a total capacity of 44.40 GiB of"
		" which 26.88 GiB is free.\n", 0) > 0);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind = 'torch_oom'"),
			 utc_ns(2025, 8, 20, 3, 10, 1, 500000000));
	t_close(tl);
}

static void vllm_without_year(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(t_parse_mem(tl, "server_log", "v",
		"INFO 11-29 18:22:40 [loggers.py:116] Avg prompt throughput: 1.0 tokens/s, Avg"
		" generation throughput: 2.0 tokens/s, Running: 3 reqs, Waiting: 4 reqs, GPU KV cache"
		" usage: 50.0%, Prefix cache hit rate: 0.0%\n", 0), 7);   /* six samples, the engine */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample WHERE time_ns IS NULL"), 6);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE '%%year%%'"), 1);
	/* kubectl logs --timestamps: the UTC time wins over vLLM's local one */
	assert_int_equal(t_parse_mem(tl, "server_log", "k8s",
		"2025-11-29T17:22:40.500000000Z INFO 11-29 18:22:40 [loggers.py:116] Avg prompt"
		" throughput: 1.0 tokens/s, Running: 7 reqs\n", 0), 3);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM sample WHERE value = 7"),
			 utc_ns(2025, 11, 29, 17, 22, 40, 500000000));
	/* V0's separate prefix cache line */
	assert_int_equal(t_parse_mem(tl, "server_log", "v0",
		"INFO 11-29 18:22:40 metrics.py:367] Prefix cache hit rate: GPU: 61.25%, CPU: 0.00%\n",
		0), 2);
	assert_true(t_real(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id WHERE"
			   " s.name = 'server.prefix_cache_hit_rate' ORDER BY sample.rowid DESC LIMIT 1")
		    == 61.25);
	t_close(tl);
}

/* Requests served: uvicorn access lines of vLLM's API server (a POST
 * answered 2xx counts; a GET or a 4xx does not) take the last time seen,
 * and the count is sampled once per second; TGI counts its router's
 * "Success" lines. */
static void requests_served(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	tl->opts.year = 2025;
	assert_int_equal(t_parse_mem(tl, "server_log", "vllm",
		"INFO 11-29 18:22:40 [loggers.py:116] Engine 000: Avg prompt throughput: 1.0 tokens/s,"
		" Running: 3 reqs\n"
		"INFO:     10.0.0.7:51234 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK\n"
		"INFO:     10.0.0.7:51236 - \"POST /v1/completions HTTP/1.1\" 200 OK\n"
		"INFO:     10.0.0.9:40000 - \"GET /metrics HTTP/1.1\" 200 OK\n"
		"INFO:     10.0.0.7:51238 - \"POST /v1/completions HTTP/1.1\" 400 Bad Request\n"
		"INFO 11-29 18:22:41 [loggers.py:116] Engine 000: Avg prompt throughput: 1.0 tokens/s,"
		" Running: 2 reqs\n"
		"INFO:     10.0.0.7:51240 - \"POST /v1/completions HTTP/1.1\" 200 OK\n"
		"INFO 11-29 18:22:41 [async_llm_engine.py:140] Finished request cmpl-1.\n", 0), 7);
	assert_string_equal(t_text(tl, "SELECT group_concat(CAST(value AS INTEGER), ' ') FROM"
		" (SELECT value FROM sample p JOIN series s ON s.id = p.series_id WHERE"
		" s.name = 'server.requests_total' AND s.entity = 'vllm' ORDER BY time_ns)"), "2 3");
	assert_int_equal(t_int(tl, "SELECT min(time_ns) FROM sample p JOIN series s ON"
			       " s.id = p.series_id WHERE s.name = 'server.requests_total'"),
			 utc_ns(2025, 11, 29, 18, 22, 40, 0));
	assert_string_equal(t_text(tl, "SELECT unit FROM series WHERE name = 'server.requests_total'"),
			    "requests");
	/* TGI */
	assert_true(t_parse_mem(tl, "server_log", "tgi",
		"2024-05-10T12:34:56.789012Z  INFO generate{parameters=GenerateParameters {"
		" best_of: None, max_new_tokens: Some(512) } total_time=\"357.867572ms\""
		" queue_time=\"49.382\xc2\xb5s\"}: text_generation_router::server:"
		" router/src/server.rs:309: Success\n"
		"2024-05-10T12:34:57.100000Z  INFO generate{parameters=GenerateParameters {"
		" best_of: None }}: text_generation_router::server: router/src/server.rs:309: Success\n",
		0) >= 1);
	assert_int_equal(t_int(tl, "SELECT CAST(max(value) AS INTEGER) FROM sample p JOIN series s"
			       " ON s.id = p.series_id WHERE s.name = 'server.requests_total'"
			       " AND s.entity = 'tgi'"), 2);
	t_close(tl);
}

/* ---- PyTorch's OOM message, one per wording ---- */

#define B(x, unit) ((int64_t)((x) * (double)(unit) + 0.5))
#define NUL OL_NULL

/* One message of each wording, and every size field read from it. */
static const struct wording_case {
	const char *wording, *message;
	int64_t device, req, total, fre, allowed, inuse, alloc, resv, unalloc, pools;
} wording_cases[] = {
	{ "old_cached",   /* 1.0 - 1.3; cached < allocated: no unallocated part */
	  "RuntimeError: CUDA out of memory. Tried to allocate 26.00 MiB (GPU 0; 1024.00 MiB"
	  " total capacity; 435.61 MiB already allocated; 24.17 MiB free; 26.39 MiB cached)",
	  0, 26 * MiB, 1024 * MiB, B(24.17, MiB), NUL, NUL, B(435.61, MiB), B(26.39, MiB),
	  NUL, NUL },
	{ "reserved_in_total",   /* 1.4 - 2.0, with a memory fraction set */
	  "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 128.00 MiB (GPU 2;"
	  " 15.77 GiB total capacity; 15.37 GiB already allocated; 13.62 MiB free; 15.77 GiB"
	  " allowed; 15.40 GiB reserved in total by PyTorch) If reserved memory is >> allocated"
	  " memory try setting max_split_size_mb to avoid fragmentation.",
	  2, 128 * MiB, B(15.77, GiB), B(13.62, MiB), B(15.77, GiB), NUL, B(15.37, GiB),
	  B(15.40, GiB), B(15.40, GiB) - B(15.37, GiB), NUL },
	{ "capacty_typo",   /* 2.1 */
	  "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 138.00 MiB. GPU 0"
	  " has a total capacty of 15.90 GiB of which 8.44 MiB is free. Process 1246069 has"
	  " 577.00 MiB memory in use. Including non-PyTorch memory, this process has 15.32 GiB"
	  " memory in use. Of the allocated memory 14.12 GiB is allocated by PyTorch, and 410.41"
	  " MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is"
	  " large try setting max_split_size_mb to avoid fragmentation.  See documentation for"
	  " Memory Management and PYTORCH_CUDA_ALLOC_CONF",
	  0, 138 * MiB, B(15.90, GiB), B(8.44, MiB), NUL, B(15.32, GiB), B(14.12, GiB),
	  B(14.12, GiB) + B(410.41, MiB), B(410.41, MiB), NUL },
	{ "total_capacity_of_which",   /* 2.2+, from 2.4 with private pools */
	  "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 252.00 MiB. GPU 1 has a"
	  " total capacity of 10.57 GiB of which 163.12 MiB is free. Process 2073789 has 10.41"
	  " GiB memory in use. Of the allocated memory 9.67 GiB is allocated by PyTorch, with"
	  " 299.88 MiB allocated in private pools (e.g., CUDA Graphs), and 26.44 MiB is reserved"
	  " by PyTorch but unallocated. If reserved but unallocated memory is large try setting"
	  " PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.",
	  1, 252 * MiB, B(10.57, GiB), B(163.12, MiB), NUL, NUL, B(9.67, GiB),
	  B(9.67, GiB) + B(26.44, MiB), B(26.44, MiB), B(299.88, MiB) },
	{ "total_capacity_of_which",   /* 2.2+, a fraction set: "C allowed; " (c-pytorch-kaggle-t4) */
	  "CUDA out of memory. Tried to allocate 1008.00 MiB. GPU 0 has a total capacity of 14.74 GiB"
	  " of which 7.43 GiB is free. 7.37 GiB allowed; Of the allocated memory 7.01 GiB is allocated"
	  " by PyTorch, and 146.57 MiB is reserved by PyTorch but unallocated. PYTORCH_CUDA_ALLOC_CONF",
	  0, 1008 * MiB, B(14.74, GiB), B(7.43, GiB), B(7.37, GiB), NUL, B(7.01, GiB),
	  B(7.01, GiB) + B(146.57, MiB), B(146.57, MiB), NUL },
	{ "would_exceed_allowed",   /* its lines joined as server_join.c joins them */
	  "torch.cuda.OutOfMemoryError: Allocation on device 3 would exceed allowed memory. (out"
	  " of memory) Currently allocated     : 6.89 GiB Requested               : 320.00 MiB"
	  " Device limit            : 23.69 GiB Free (according to CUDA): 2.94 MiB PyTorch limit"
	  " (set by user-supplied memory fraction)                         : 12.00 GiB",
	  3, 320 * MiB, B(23.69, GiB), B(2.94, MiB), 12 * GiB, NUL, B(6.89, GiB), NUL, NUL, NUL },
	{ "would_exceed_allowed",   /* no fraction: SIZE_MAX, past 64 bits, is null */
	  "OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)"
	  " Currently allocated : 12.20 GiB Requested : 1.88 GiB Device limit : 16.00 GiB Free"
	  " (according to CUDA): 0 bytes PyTorch limit (set by user-supplied memory fraction) :"
	  " 17179869184.00 GiB",
	  0, B(1.88, GiB), 16 * GiB, 0, NUL, NUL, B(12.20, GiB), NUL, NUL, NUL },
};

/* Field of torch_oom_fields()'s object, OL_NULL when null or absent. */
static int64_t field(json_t *d, const char *key)
{
	json_t *v = json_object_get(d, key);
	return json_is_integer(v) ? (int64_t)json_integer_value(v) : OL_NULL;
}

static void torch_oom_wordings(void **state)
{
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(wording_cases) / sizeof(wording_cases[0]); i++) {
		const struct wording_case *c = &wording_cases[i];
		size_t n = strlen(c->message);
		char summary[256];
		int64_t req;
		json_t *d = torch_oom_fields(c->message, n, &req, summary, sizeof(summary));
		assert_non_null(d);
		assert_true(torch_oom_text(c->message, n) && torch_oom_start(c->message, n));
		assert_true(torch_oom_message(c->message, n) && torch_oom_complete(c->message, n));
		assert_string_equal(json_string_value(json_object_get(d, "wording")), c->wording);
		assert_int_equal(req, c->req);
		assert_int_equal(field(d, "requested_bytes"), c->req);
		assert_int_equal(field(d, "device"), c->device);
		assert_int_equal(field(d, "total_bytes"), c->total);
		assert_int_equal(field(d, "free_bytes"), c->fre);
		assert_int_equal(field(d, "allowed_bytes"), c->allowed);
		assert_int_equal(field(d, "process_in_use_bytes"), c->inuse);
		assert_int_equal(field(d, "allocated_bytes"), c->alloc);
		assert_int_equal(field(d, "reserved_bytes"), c->resv);
		assert_int_equal(field(d, "reserved_unallocated_bytes"), c->unalloc);
		assert_int_equal(field(d, "private_pools_bytes"), c->pools);
		json_decref(d);
	}
}

/* The other processes on the card, and the advice the message gives. */
static void torch_oom_processes_and_advice(void **state)
{
	const char *m = wording_cases[2].message;
	char summary[256];
	int64_t req;
	json_t *d = torch_oom_fields(m, strlen(m), &req, summary, sizeof(summary)), *p;
	(void)state;
	p = json_object_get(d, "processes");
	assert_int_equal(json_array_size(p), 1);
	assert_int_equal(field(json_array_get(p, 0), "pid"), 1246069);
	assert_int_equal(field(json_array_get(p, 0), "bytes"), 577 * MiB);
	assert_true(json_is_true(json_object_get(d, "suggests_max_split_size")));
	assert_true(json_is_false(json_object_get(d, "suggests_expandable_segments")));
	assert_string_equal(summary, "CUDA out of memory on GPU 0: tried to allocate 138.0 MiB"
			    " (8.4 MiB free)");
	json_decref(d);
	m = wording_cases[0].message;
	d = torch_oom_fields(m, strlen(m), &req, summary, sizeof(summary));
	assert_int_equal(json_array_size(json_object_get(d, "processes")), 0);
	assert_null(json_object_get(d, "private_pools_bytes"));
	json_decref(d);
}

/* What is not (yet) the message: an engine's own words, a message cut
 * before its end, one a following line must complete. */
static void torch_oom_mentions_and_parts(void **state)
{
	static const char warmup[] = "RuntimeError: CUDA out of memory occurred when warming up"
				     " sampler with 256 dummy requests.";
	static const char head[] = "torch.OutOfMemoryError: CUDA out of memory.";
	static const char cut[] = "OutOfMemoryError: Allocation on device 0 would exceed allowed"
				  " memory. (out of memory) Currently allocated : 1.00 GiB";
	(void)state;
	assert_true(torch_oom_text(warmup, strlen(warmup)));
	assert_false(torch_oom_start(warmup, strlen(warmup)));
	assert_false(torch_oom_message(warmup, strlen(warmup)));
	assert_true(torch_oom_start(head, strlen(head)));
	assert_false(torch_oom_message(head, strlen(head)));
	assert_false(torch_oom_complete(head, strlen(head)));
	assert_true(torch_oom_message(cut, strlen(cut)));
	assert_false(torch_oom_complete(cut, strlen(cut)));
}

/* Over lines: the allowed-memory form as PyTorch prints it, a 2.4
 * message a user wrapped, each in a traceback and alone; a line with a
 * wrapper of its own is not the message's. */
static void torch_oom_over_lines(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(t_parse_mem(tl, "server_log", "limit",
		"Traceback (most recent call last):\n"
		"  File \"run.py\", line 3, in <module>\n"
		"torch.cuda.OutOfMemoryError: Allocation on device 0 would exceed allowed memory."
		" (out of memory)\n"
		"Currently allocated     : 6.89 GiB\n"
		"Requested               : 320.00 MiB\n"
		"Device limit            : 23.69 GiB\n"
		"Free (according to CUDA): 2.94 MiB\n"
		"PyTorch limit (set by user-supplied memory fraction)\n"
		"                        : 12.00 GiB\n"
		"Prompt executed in 57.84 seconds\n", 0), 2);   /* the OOM, PyTorch's engine row */
	assert_int_equal(ev_int(tl, "torch_oom", "requested_bytes"), 320 * MiB);
	assert_int_equal(ev_int(tl, "torch_oom", "allowed_bytes"), 12 * GiB);
	assert_true(t_int(tl, "SELECT json_extract(data, '$.traceback') LIKE"
			  " '%%Device limit            : 23.69 GiB\n%%' FROM event") == 1);
	assert_true(t_int(tl, "SELECT json_extract(data, '$.traceback') NOT LIKE"
			  " '%%Prompt executed%%' FROM event") == 1);
	t_close(tl);
	tl = t_open();
	tl->opts.year = 2025;
	assert_int_equal(t_parse_mem(tl, "server_log", "wrapped",
		"torch.OutOfMemoryError: CUDA out of memory.\n"
		"Tried to allocate 252.00 MiB. GPU 0 has a total capacity of 10.57 GiB of which"
		" 163.12 MiB is free.\n"
		"Of the allocated memory 9.67 GiB is allocated by PyTorch,\n"
		"and 26.44 MiB is reserved by PyTorch but unallocated. If reserved but\n"
		"unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=\n"
		"INFO 11-29 18:22:40 [loggers.py:116] Avg prompt throughput: 1.0 tokens/s\n", 0), 3);
	assert_int_equal(ev_int(tl, "torch_oom", "reserved_unallocated_bytes"), B(26.44, MiB));
	assert_int_equal(t_int(tl, "SELECT line FROM event"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample"), 1);
	t_close(tl);
	/* cut short: the next program's line, or a record of the engine's
	 * own (another prefix), is not joined; the same prefix is */
	tl = t_open();
	tl->opts.year = 2025;
	assert_int_equal(t_parse_mem(tl, "server_log", "cut",
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 86.00 MiB. GPU 0 has"
		" a total capacity of 23.64 GiB of which 264.00 MiB is free. Including\n"
		"Exiting main process due to a failure upon worker execution.\n"
		"(Worker pid=7) ERROR 11-29 18:22:40 [core.py:1] torch.OutOfMemoryError: CUDA out of"
		" memory. Tried to allocate 1.00 GiB. GPU 1 has a total capacity of 8.00 GiB\n"
		"(Worker pid=7) ERROR 11-29 18:22:40 [core.py:1] of which 2.00 MiB is free.\n"
		"(Worker pid=7) ERROR 11-29 18:22:41 [core.py:1] Process 9 has 1.00 GiB memory in use.\n",
		0), 4);   /* two OOMs, the engine rows of the main process and the worker */
	assert_true(t_int(tl, "SELECT json_extract(data, '$.exception') NOT LIKE '%%Exiting%%'"
			  " FROM event ORDER BY id LIMIT 1") == 1);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.free_bytes') FROM event"
			       " ORDER BY id LIMIT 1 OFFSET 1"), 2 * MiB);
	assert_int_equal(t_int(tl, "SELECT json_array_length(data, '$.processes') FROM event"
			       " ORDER BY id LIMIT 1 OFFSET 1"), 0);
	assert_int_equal(t_int(tl, "SELECT pid FROM event ORDER BY id LIMIT 1 OFFSET 1"), 7);
	t_close(tl);
}

/* A file holding only PyTorch's message is a server log, in each of its
 * forms that opens with its own words. */
static void lone_messages_detected(void **state)
{
	static const char *const files[] = {
		"tests/data/real/gpu_host/torch-oom-private-pools-cuda-graphs-wrapped.log",
		"tests/data/real/gpu_host/torch-oom-would-exceed-allowed-multiline.log",
		"tests/data/real/gpu_host/torch-oom-would-exceed-allowed-oneline.log",
		"tests/data/real/gpu_host/torch-oom-cached-kib.log",
		/* an exception pasted in a code span mid-sentence */
		"tests/data/real/any_stack/b-mlx-lmstudio-engine-resource-limit-499000-prediction-stream.log",
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct input in;
		const struct format *f;
		assert_int_equal(input_open(&in, t_src(files[i]), NULL), 0);
		f = detect_format(&in);
		if (!f || strcmp(f->kind, "server_log"))
			fail_msg("%s detected as %s", files[i], f ? f->kind : "nothing");
		input_close(&in);
	}
}

/* ---- the real excerpts of tests/data/real ---- */

/* A size as a manifest prints it ("14.99 GiB", "0 bytes"): bytes in *v,
 * half a unit of its last digit in *tol. 0 if it is one. */
static int manifest_size(const char *s, double *v, double *tol)
{
	static const struct { const char *unit; double mult; } units[] = {
		{ "bytes", 1 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
	};
	const char *dot;
	char *end;
	double x = strtod(s, &end), half = 0.5;
	size_t i;

	if (end == s)
		return -1;
	if ((dot = memchr(s, '.', (size_t)(end - s))))
		for (i = 0; i < (size_t)(end - dot - 1); i++)
			half /= 10;
	while (*end == ' ')
		end++;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			*v = x * units[i].mult;
			*tol = half * units[i].mult + 1;
			return 0;
		}
	return -1;
}

/* Assert the size figure want (manifest text) of the file's torch_oom at
 * JSON path. A size past 2^63 (PyTorch's SIZE_MAX for "no limit") is
 * stored as null. */
static void check_size(struct timeline *tl, const char *file, const char *key,
		       const char *path, const char *want)
{
	double v = 0, tol = 0;
	int64_t got = t_int(tl, "SELECT json_extract(data, '$.%s') FROM event WHERE"
			    " kind = 'torch_oom' ORDER BY id LIMIT 1", path);

	if (manifest_size(want, &v, &tol) < 0)
		fail_msg("%s: %s=%s is not a size", file, key, want);
	if (v >= 9.2e18) {
		if (got != OL_NULL)
			fail_msg("%s: %s=%s, found %lld, not null", file, key, want, (long long)got);
		return;
	}
	if (got == OL_NULL || (double)got < v - tol || (double)got > v + tol)
		fail_msg("%s: %s=%s, found %lld", file, key, want, (long long)got);
}

/* "GPU 0", "device 0" -> the device. */
static void check_device(struct timeline *tl, const char *file, const char *want)
{
	const char *sp = strrchr(want, ' ');
	int64_t got = ev_int(tl, "torch_oom", "device");

	if (!sp || got != atoll(sp + 1))
		fail_msg("%s: device=%s, found %lld", file, want, (long long)got);
}

/* The JSON path of each size key of the manifests (gpu_host's, then the
 * serving folder's torch_* keys). torch_reserved is the size printed as
 * "reserved": in total (old wordings) or "reserved by PyTorch but
 * unallocated" (2.1+); torch_in_use is "Process N has X memory in use". */
static const char *size_path(struct timeline *tl, const char *key, int *nth_process)
{
	static const char *const keys[][2] = {
		{ "tried", "requested_bytes" }, { "total", "total_bytes" },
		{ "free", "free_bytes" }, { "allocated", "allocated_bytes" },
		{ "reserved", "reserved_bytes" },
		{ "reserved_unallocated", "reserved_unallocated_bytes" },
		{ "private_pools", "private_pools_bytes" },
		{ "non_pytorch", "process_in_use_bytes" }, { "allowed", "allowed_bytes" },
	};
	static char path[64];
	size_t i;

	if (!strncmp(key, "torch_", 6)) {
		key += 6;
		if (!strcmp(key, "in_use")) {
			snprintf(path, sizeof(path), "processes[%d].bytes", (*nth_process)++);
			return path;
		}
		if (!strcmp(key, "reserved") &&
		    t_int(tl, "SELECT json_extract(data, '$.wording') IN ('capacty_typo',"
			  " 'total_capacity_of_which') FROM event WHERE kind = 'torch_oom'"
			  " ORDER BY id LIMIT 1") == 1)
			return "reserved_unallocated_bytes";
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i][0]))
			return keys[i][1];
	return NULL;
}

/* One figure "key=value" of a manifest row. Returns 1 if asserted. */
static int check_figure(struct timeline *tl, const char *file, const char *key,
			const char *want, int *nth_process)
{
	const char *path;
	char got[64];

	if (!strcmp(key, "device")) {
		check_device(tl, file, want);
	} else if (!strcmp(key, "wording")) {
		snprintf(got, sizeof(got), "%s", t_text(tl, "SELECT json_extract(data,"
			 " '$.wording') FROM event WHERE kind = 'torch_oom' ORDER BY id LIMIT 1"));
		if (strcmp(got, want))
			fail_msg("%s: wording=%s, found %s", file, want, got);
	} else if (!strcmp(key, "process")) {   /* PID:SIZE, in printed order */
		int i = (*nth_process)++;
		char path2[64];
		if (ev_int(tl, "torch_oom", (snprintf(path2, sizeof(path2), "processes[%d].pid", i),
					     path2)) != atoll(want))
			fail_msg("%s: process %d is %s", file, i, want);
		snprintf(path2, sizeof(path2), "processes[%d].bytes", i);
		check_size(tl, file, key, path2, strchr(want, ':') + 1);
	} else if ((path = size_path(tl, key, nth_process))) {
		check_size(tl, file, key, path, want);
	} else {
		return 0;  /* a description (the reader's reading), or not torch's */
	}
	return 1;
}

/* Every row of folder's manifest whose figures speak of PyTorch's OOM
 * message: the file, read by the server-log parser, has one torch_oom
 * with each figure. Returns the figures asserted. */
static int check_manifest(const char *folder, const char *torch_prefix)
{
	char rel[256], *man, *row, *save = NULL;
	int fig_col = -1, file_col = 0, figures = 0;
	size_t n;

	snprintf(rel, sizeof(rel), "tests/data/real/%s/MANIFEST.tsv", folder);
	man = t_slurp(rel, &n);
	for (row = strtok_r(man, "\n", &save); row; row = strtok_r(NULL, "\n", &save)) {
		char *cols[8] = { 0 }, *c, *csave = NULL, *fig, *fsave = NULL;
		struct timeline *tl;
		int ncol = 0, nth_process = 0;
		for (c = strtok_r(row, "\t", &csave); c && ncol < 8; c = strtok_r(NULL, "\t", &csave))
			cols[ncol++] = c;
		if (fig_col < 0) {   /* the header */
			for (fig_col = 0; fig_col < ncol && strcmp(cols[fig_col], "figures"); fig_col++)
				;
			assert_true(fig_col < ncol);
			continue;
		}
		if (fig_col >= ncol || !strstr(cols[fig_col], torch_prefix))
			continue;
		snprintf(rel, sizeof(rel), "tests/data/real/%s/%s", folder, cols[file_col]);
		tl = t_open();
		assert_true(parse_log(tl, rel) > 0);
		if (t_int(tl, "SELECT count(*) FROM event WHERE kind = 'torch_oom'") != 1)
			fail_msg("%s: %lld torch_oom events", rel,
				 (long long)t_int(tl, "SELECT count(*) FROM event WHERE kind = 'torch_oom'"));
		for (fig = strtok_r(cols[fig_col], ";", &fsave); fig; fig = strtok_r(NULL, ";", &fsave)) {
			char *eq = strchr(fig, '=');
			while (*fig == ' ')
				fig++;
			if (!eq)
				continue;
			*eq = 0;
			figures += check_figure(tl, rel, fig, eq + 1, &nth_process);
		}
		t_close(tl);
	}
	free(man);
	return figures;
}

/* The PyTorch OOM excerpts users pasted (tests/data/real/gpu_host: every
 * "tried=" row; serving: the torch_* figures of engine logs). */
static void real_torch_oom_excerpts(void **state)
{
	(void)state;
	assert_true(check_manifest("gpu_host", "tried=") >= 31 * 5);
	assert_true(check_manifest("serving", "torch_tried=") >= 5 * 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vllm_v0_log),
		cmocka_unit_test(vllm_v1_log),
		cmocka_unit_test(torch_old_form_and_plain_traceback),
		cmocka_unit_test(tgi_log),
		cmocka_unit_test(tgi_pretty_args),
		cmocka_unit_test(tgi_framed_by_a_terminal_ui),
		cmocka_unit_test(vllm_without_year),
		cmocka_unit_test(k8s_wrappers),
		cmocka_unit_test(requests_served),
		cmocka_unit_test(torch_oom_wordings),
		cmocka_unit_test(torch_oom_processes_and_advice),
		cmocka_unit_test(torch_oom_mentions_and_parts),
		cmocka_unit_test(torch_oom_over_lines),
		cmocka_unit_test(lone_messages_detected),
		cmocka_unit_test(real_torch_oom_excerpts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
