/*
 * test_server_log.c -- inference server logs (vLLM V0/V1, TGI, plain
 * PyTorch scripts): start-up configuration, engine statistics, requests
 * served, tracebacks and the wrappers around their lines (terminal UIs,
 * Kubernetes). PyTorch's OOM message itself is test_torch_oom_wordings.c;
 * the real excerpts' manifest rows are test_torch_oom_real.c.
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
