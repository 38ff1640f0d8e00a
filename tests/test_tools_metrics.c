/*
 * test_tools_metrics.c -- the rest of tests/data/real/tools: memray stats
 * (text and JSON), Prometheus scrapes and API answers, Grafana CSV and
 * nsys stats. As in test_tools.c, each real file is read with detection
 * and its MANIFEST.tsv figures asserted, then the edges.
 */
#include "testutil.h"
#include "lib/timeutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KiB 1024.0
#define MiB 1048576.0
#define GiB 1073741824.0
#define REAL "tests/data/real/tools/"

static struct timeline *read_real(const char *name)
{
	struct timeline *tl = t_open();
	char rel[512];

	snprintf(rel, sizeof(rel), REAL "%s", name);
	assert_int_equal(t_parse_file(tl, rel), 0);
	return tl;
}

static int64_t ev_int(struct timeline *tl, const char *kind, const char *path)
{
	return t_int(tl, "SELECT json_extract(data, '$.%s') FROM event WHERE kind = '%s'"
		     " ORDER BY id DESC LIMIT 1", path, kind);
}

static double ev_real(struct timeline *tl, const char *kind, const char *path)
{
	return t_real(tl, "SELECT json_extract(data, '$.%s') FROM event WHERE kind = '%s'"
		      " ORDER BY id DESC LIMIT 1", path, kind);
}

static const char *ev_text(struct timeline *tl, const char *kind, const char *path)
{
	return t_text(tl, "SELECT json_extract(data, '$.%s') FROM event WHERE kind = '%s'"
		      " ORDER BY id DESC LIMIT 1", path, kind);
}

/* The value of the only sample of a series (entity as given). */
static double value_of(struct timeline *tl, const char *name, const char *entity)
{
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample p JOIN series s ON s.id ="
			       " p.series_id WHERE s.name = '%s' AND s.entity = '%s'", name,
			       entity), 1);
	return t_real(tl, "SELECT value FROM sample p JOIN series s ON s.id = p.series_id"
		      " WHERE s.name = '%s' AND s.entity = '%s'", name, entity);
}

/* memray's size_fmt before 1.18: powers of 1024, three decimals. */
static int64_t binary(double printed, double unit)
{
	return llround(printed * unit);
}

/* ---- memray ---- */

static void memray_real_reports(void **state)
{
	struct timeline *tl;
	(void)state;

	tl = read_real("memray-stats-1.0-totals-histogram-no-emoji-histogram-label.txt");
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "memray_stats");
	assert_int_equal(ev_int(tl, "memray_stats", "total_allocations"), 2468520);
	assert_int_equal(ev_int(tl, "memray_stats", "total_allocated_bytes"), binary(257.024, MiB));
	assert_int_equal(ev_int(tl, "memray_stats", "hist_min_bytes"), 1);
	assert_int_equal(ev_int(tl, "memray_stats", "hist_max_bytes"), binary(8.004, MiB));
	assert_string_equal(ev_text(tl, "memray_stats", "indent"), "spaces");
	assert_int_equal(ev_int(tl, "memray_stats", "unit_base"), 1024);
	/* the title lost its emoji; the histogram is read all the same */
	assert_int_equal(ev_int(tl, "memray_stats", "histogram[2].count"), 302549);
	assert_int_equal(ev_int(tl, "memray_stats", "histogram[9].inclusive"), 1);
	t_close(tl);

	tl = read_real("memray-stats-1.0-mmap-totals-histogram-allocator-types.txt");
	assert_int_equal(ev_int(tl, "memray_stats", "total_allocations"), 21);
	assert_int_equal(ev_int(tl, "memray_stats", "total_allocated_bytes"), binary(9.314, GiB));
	assert_int_equal(ev_int(tl, "memray_stats", "hist_min_bytes"), 528);
	assert_int_equal(ev_int(tl, "memray_stats", "hist_max_bytes"), binary(9.314, GiB));
	assert_int_equal(ev_int(tl, "memray_stats", "allocators.MALLOC"), 11);
	t_close(tl);

	tl = read_real("memray-stats-1.13-full-tabs-prompt-top-by-size-partial.txt");
	assert_int_equal(ev_int(tl, "memray_stats", "total_allocations"), 41426);
	assert_int_equal(ev_int(tl, "memray_stats", "total_allocated_bytes"), binary(40.945, GiB));
	assert_int_equal(ev_int(tl, "memray_stats", "hist_max_bytes"), binary(6.0, GiB));
	assert_int_equal(ev_int(tl, "memray_stats", "allocators.MALLOC"), 39327);
	assert_int_equal(ev_int(tl, "memray_stats", "allocators.MMAP"), 277);
	assert_string_equal(ev_text(tl, "memray_stats", "top_location"), "<stack trace unavailable>");
	assert_int_equal(ev_int(tl, "memray_stats", "top_location_bytes"), binary(40.444, GiB));
	assert_string_equal(ev_text(tl, "memray_stats", "top_python_location"),
			    "get_data:<frozen importlib._bootstrap_external>:1073");
	assert_int_equal(ev_int(tl, "memray_stats", "top_python_location_bytes"),
			 binary(355.011, MiB));
	assert_string_equal(ev_text(tl, "memray_stats", "indent"), "tabs");
	/* the top locations are host holders; a Python location has its frame */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM holder WHERE tool = 'memray' AND scope ="
			       " 'total' AND space = 'host'"), 5);
	assert_int_equal(t_int(tl, "SELECT stack_id FROM holder WHERE rank = 1"), OL_NULL);
	assert_string_equal(t_text(tl, "SELECT f.name || '|' || f.file || '|' || f.line FROM holder h"
				   " JOIN frame f ON f.stack_id = h.stack_id WHERE h.rank = 2"),
			    "get_data|<frozen importlib._bootstrap_external>|1073");
	assert_string_equal(t_text(tl, "SELECT f.file FROM holder h JOIN frame f ON f.stack_id ="
				   " h.stack_id WHERE h.rank = 3"),
			    "/home/mbm47/.conda/envs/meds_dev_test_8-19-24-12-32/lib/python3.10/"
			    "site-packages/polars/lazyframe/frame.py");
	assert_int_equal(t_int(tl, "SELECT bytes FROM holder WHERE rank = 5"), binary(16.307, MiB));
	t_close(tl);

	tl = read_real("memray-stats-json-as-python-dict-elided.txt");
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "memray_stats_json");
	assert_string_equal(ev_text(tl, "memray_stats", "form"), "python_dict");
	assert_int_equal(ev_int(tl, "memray_stats", "total_allocations"), 2844284);
	assert_int_equal(ev_int(tl, "memray_stats", "total_allocated_bytes"), 526180830);
	assert_int_equal(ev_int(tl, "memray_stats", "peak_bytes"), 4073520);
	assert_int_equal(ev_int(tl, "memray_stats", "metadata_total_allocations"), 5686611);
	assert_int_equal(ev_int(tl, "memray_stats", "allocators.PYMALLOC_MALLOC"), 2721820);
	/* the user elided the top locations: none, and said so */
	assert_string_equal(ev_text(tl, "memray_stats", "top_location"), "(null)");
	assert_string_equal(ev_text(tl, "memray_stats", "elided"),
			    "[\"allocation_size_histogram\",\"top_allocations_by_size\"]");
	t_close(tl);
}

static void memray_si_units_and_json(void **state)
{
	struct timeline *tl = t_open();
	/* 1.18+: powers of 1000, "kB", the peak section */
	static const char si[] =
		"\xf0\x9f\x93\x8f Total allocations:\n\t1000\n\n"
		"\xf0\x9f\x93\xa6 Total memory allocated:\n\t1.500MB\n\n"
		"\xf0\x9f\x93\x88 Peak memory usage:\n\t2.000kB\n\n"
		"\xf0\x9f\xa5\x87 Top 5 largest allocating locations (by size):\n"
		"\t- load:C:\\work\\m.py:12 -> 1.000MB\n\n"
		"\xf0\x9f\xa5\x87 Top 5 largest allocating locations (by number of allocations):\n"
		"\t- load:C:\\work\\m.py:12 -> 700\n\n"
		"\xf0\x9f\xa5\x87 Top 5 allocating modules (by size):\n"
		"\t- numpy: 1.200MB total | 42 allocations\n";
	static const char json[] =
		"{\n  \"total_num_allocations\": 10,\n  \"total_bytes_allocated\": 4096,\n"
		"  \"allocation_size_histogram\": [{\"min_bytes\": 0, \"max_bytes\": 8, \"count\": 3}],\n"
		"  \"top_allocations_by_size\": [{\"location\": \"f:/a.py:3\", \"size\": 4000},\n"
		"    {\"location\": \"<stack trace unavailable>\", \"size\": 96}],\n"
		"  \"top_allocations_by_count\": [{\"location\": \"f:/a.py:3\", \"count\": 9}],\n"
		"  \"metadata\": {\"peak_memory\": 2048, \"total_allocations\": 12}\n"
		"}\n";
	(void)state;

	assert_int_equal(t_parse_mem(tl, "memray_stats", "si", si, 0), 1);
	assert_int_equal(ev_int(tl, "memray_stats", "unit_base"), 1000);
	assert_int_equal(ev_int(tl, "memray_stats", "total_allocated_bytes"), 1500000);
	assert_int_equal(ev_int(tl, "memray_stats", "peak_bytes"), 2000);
	assert_int_equal(t_int(tl, "SELECT bytes FROM holder WHERE allocations IS NULL AND label"
			       " LIKE 'load:%%'"), 1000000);
	assert_int_equal(t_int(tl, "SELECT allocations FROM holder WHERE bytes IS NULL"), 700);
	assert_string_equal(t_text(tl, "SELECT f.file FROM holder h JOIN frame f ON f.stack_id ="
				   " h.stack_id LIMIT 1"), "C:\\work\\m.py");
	assert_int_equal(t_int(tl, "SELECT allocations FROM holder WHERE label = 'numpy'"), 42);
	assert_int_equal(t_int(tl, "SELECT bytes FROM holder WHERE label = 'numpy'"), 1200000);
	t_close(tl);

	tl = t_open();
	assert_int_equal(t_parse_mem(tl, "memray_stats_json", "j", json, 0), 1);
	assert_string_equal(ev_text(tl, "memray_stats", "form"), "json");
	assert_int_equal(ev_int(tl, "memray_stats", "peak_bytes"), 2048);
	assert_string_equal(ev_text(tl, "memray_stats", "top_location"), "f:/a.py:3");
	assert_int_equal(ev_int(tl, "memray_stats", "top_location_bytes"), 4000);
	assert_int_equal(ev_int(tl, "memray_stats", "histogram[0].count"), 3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM holder"), 3);
	/* cut in the middle: what came before the cut is kept */
	assert_int_equal(t_parse_mem(tl, "memray_stats_json", "cut", json, 150), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE '%%cut short%%'"), 1);
	t_close(tl);
}

/* ---- Prometheus and Grafana ---- */

static void prom_real_scrapes(void **state)
{
	struct timeline *tl;
	(void)state;

	tl = read_real("prom-exposition-vllm-0.5-help-type-no-samples.txt");
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "prometheus_text");
	assert_string_equal(ev_text(tl, "metrics_scrape", "engine"), "vllm");
	assert_int_equal(ev_int(tl, "metrics_scrape", "families"), 7);
	assert_int_equal(ev_int(tl, "metrics_scrape", "samples"), 0);
	t_close(tl);

	tl = read_real("prom-exposition-vllm-v1-router-backend-running-waiting-cache.txt");
	assert_string_equal(ev_text(tl, "metrics_scrape", "model"), "Qwen/Qwen2.5-Coder-32B-Instruct");
	assert_true(value_of(tl, "vllm:num_requests_running",
			     "model_name=\"Qwen/Qwen2.5-Coder-32B-Instruct\"") == 0.0);
	assert_true(value_of(tl, "vllm:num_requests_waiting",
			     "model_name=\"Qwen/Qwen2.5-Coder-32B-Instruct\"") == 0.0);
	assert_true(value_of(tl, "vllm:gpu_cache_usage_perc",
			     "model_name=\"Qwen/Qwen2.5-Coder-32B-Instruct\"") == 0.0);
	/* also as the series the rules read */
	assert_true(value_of(tl, "server.running", "vllm model_name=\"Qwen/Qwen2.5-Coder-32B-Instruct\"")
		    == 0.0);
	assert_true(value_of(tl, "process_max_fds", "") == 1048576.0);
	t_close(tl);

	tl = read_real("prom-exposition-sglang-0.3-first-metrics-curl-post.txt");
	assert_string_equal(ev_text(tl, "metrics_scrape", "engine"), "sglang");
	assert_true(t_real(tl, "SELECT value FROM sample p JOIN series s ON s.id = p.series_id"
			   " WHERE s.name = 'sglang:max_total_num_tokens'") == 570979.0);
	assert_true(t_real(tl, "SELECT value FROM sample p JOIN series s ON s.id = p.series_id"
			   " WHERE s.name = 'sglang:max_prefill_tokens'") == 16384.0);
	assert_true(t_real(tl, "SELECT value FROM sample p JOIN series s ON s.id = p.series_id"
			   " WHERE s.name = 'sglang:max_running_requests'") == 2231.0);
	assert_true(t_real(tl, "SELECT value FROM sample p JOIN series s ON s.id = p.series_id"
			   " WHERE s.name = 'sglang:context_len'") == 131072.0);
	t_close(tl);

	tl = read_real("prom-exposition-sglang-wip-branch-old-names.txt");
	assert_true(value_of(tl, "sglang:cache_hit_rate", "name=\"google/gemma-2-9b-it\"") ==
		    87.58777633289988);
	assert_true(value_of(tl, "sglang:num_requests_running", "name=\"google/gemma-2-9b-it\"") == 0.0);
	assert_true(value_of(tl, "sglang:token_usage", "name=\"google/gemma-2-9b-it\"") == 0.0);
	t_close(tl);

	tl = read_real("prom-exposition-sglang-0.4-pd-num-running-token-usage.txt");
	assert_true(value_of(tl, "sglang:num_aborted_requests_total",
			     "model_name=\"/home/moyun.zty/models/deepseek-ai__DeepSeek-R1\"") == 157.0);
	assert_true(value_of(tl, "sglang:num_running_reqs", "engine_type=\"unified\",model_name="
			     "\"/home/moyun.zty/models/deepseek-ai__DeepSeek-R1\"") == 0.0);
	t_close(tl);

	tl = read_real("prom-exposition-sglang-grpc-sidecar-underscore-names-blank-lines.txt");
	assert_true(t_real(tl, "SELECT value FROM sample p JOIN series s ON s.id = p.series_id"
			   " WHERE s.name = 'sglang_cuda_graph_passes_total'") == 311.0);
	assert_true(t_real(tl, "SELECT value FROM sample p JOIN series s ON s.id = p.series_id"
			   " WHERE s.name = 'sglang_realtime_tokens_total'") == 55.0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM series"), 4);
	t_close(tl);

	/* cAdvisor through kubelet: ms timestamps, empty labels dropped, a line cut at 200 */
	tl = read_real("prom-exposition-cadvisor-working-set-kubelet-timestamps-cut200.txt");
	assert_true(value_of(tl, "container_memory_working_set_bytes", "id=\"/\"") == 1.517121536e+09);
	assert_true(value_of(tl, "container_memory_working_set_bytes", "id=\"/kubepods\"") ==
		    5.49412864e+08);
	assert_int_equal(t_int(tl, "SELECT p.time_ns FROM sample p JOIN series s ON s.id ="
			       " p.series_id WHERE s.entity = 'id=\"/\"'"), 1626540112260LL * 1000000);
	assert_true(t_real(tl, "SELECT value FROM sample p JOIN series s ON s.id = p.series_id"
			   " WHERE s.entity LIKE '%%pod=\"alpine\"'") == 4.0415232e+07);
	assert_int_equal(ev_int(tl, "metrics_scrape", "cut_lines"), 1);
	t_close(tl);

	/* DCGM families are the dcgm reader's, also behind a "$ curl" line */
	tl = read_real("prom-exposition-dcgm-fb-free-mib-mixed-mig-curl.txt");
	/* a MIG instance is its own entity (GPU_I_ID 3 of GPU 2) */
	assert_true(value_of(tl, "gpu.free_bytes", "gpu1") == 11275 * MiB);
	assert_true(value_of(tl, "gpu.free_bytes", "gpu2/mig:3") == 2207 * MiB);
	t_close(tl);
	tl = read_real("prom-exposition-dcgm-t4-fb-free-pod-labels-fb-used-cut.txt");
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "dcgm");
	assert_true(value_of(tl, "gpu.free_bytes", "gpu0") == 15109 * MiB);
	t_close(tl);
}

static void prom_real_answers(void **state)
{
	struct timeline *tl;
	(void)state;

	/* a Python client's print, one line broken at 1000 columns inside a value */
	tl = read_real("prom-query-vector-python-repr-vllm-gpu-cache-usage-gke.txt");
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "prometheus_query");
	assert_string_equal(ev_text(tl, "metrics_query", "result_type"), "vector");
	assert_int_equal(ev_int(tl, "metrics_query", "series"), 2);
	assert_true(ev_real(tl, "metrics_query", "first.value") == 0.0036144350200229274);
	assert_true(ev_real(tl, "metrics_query", "last.value") == 0.024687012299305446);
	assert_int_equal(t_int(tl, "SELECT min(time_ns) FROM sample"), 1737152878930000000LL);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM series WHERE name = 'prometheus.result'"), 2);
	t_close(tl);

	tl = read_real("prom-query-range-matrix-json-docs-example-pasted.txt");
	assert_string_equal(ev_text(tl, "metrics_query", "result_type"), "matrix");
	assert_int_equal(ev_int(tl, "metrics_query", "series"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample p JOIN series s ON s.id = p.series_id"
			       " WHERE s.name = 'up' AND s.entity = 'instance=\"localhost:9091\","
			       "job=\"node\"'"), 3);
	assert_int_equal(t_int(tl, "SELECT min(time_ns) FROM sample"), 1435781430781000000LL);
	t_close(tl);

	/* Grafana's inspector, cut inside the last point */
	tl = read_real("prom-query-range-grafana-inspector-request-response-memory.txt");
	assert_string_equal(ev_text(tl, "metrics_query", "query"),
			    "kube_metrics_server_pods_mem{name=\"VM-1\", pod_name=~\"test-0\"}");
	assert_int_equal(ev_int(tl, "metrics_query", "step_s"), 15);
	assert_int_equal(ev_int(tl, "metrics_query", "first.ts_ms"), 1615966680000LL);
	assert_true(ev_real(tl, "metrics_query", "first.value") == 346920.0);
	assert_int_equal(ev_int(tl, "metrics_query", "last.ts_ms"), 1615966785000LL);
	assert_true(ev_real(tl, "metrics_query", "last.value") == 347124.0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample p JOIN series s ON s.id = p.series_id"
			       " WHERE s.name = 'kube_metrics_server_pods_mem'"), 8);
	t_close(tl);
}

static void grafana_real_exports(void **state)
{
	struct timeline *tl;
	(void)state;

	tl = read_real("grafana-csv-5.4-series-rows-semicolon-thousands.txt");
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "grafana_csv");
	assert_string_equal(ev_text(tl, "metrics_export", "layout"), "series_as_rows");
	assert_string_equal(ev_text(tl, "metrics_export", "sep"), "semicolon");
	assert_int_equal(ev_int(tl, "metrics_export", "rows"), 13);
	assert_true(t_real(tl, "SELECT value FROM sample ORDER BY time_ns LIMIT 1") == 1721992142.283);
	assert_int_equal(t_int(tl, "SELECT min(time_ns) FROM sample"), utc_ns(2018, 12, 12, 1, 0, 0, 0));
	assert_true(t_real(tl, "SELECT value FROM sample ORDER BY time_ns DESC LIMIT 1") ==
		    2209055283.617);
	assert_int_equal(t_int(tl, "SELECT max(time_ns) FROM sample"), utc_ns(2018, 12, 12, 13, 0, 0, 0));
	assert_string_equal(t_text(tl, "SELECT entity FROM series"), "[[tag_host]]");
	t_close(tl);

	tl = read_real("grafana-csv-3.0-series-as-columns-pr-example.txt");
	assert_string_equal(ev_text(tl, "metrics_export", "layout"), "series_as_columns");
	assert_int_equal(ev_int(tl, "metrics_export", "rows"), 8);
	assert_string_equal(t_text(tl, "SELECT group_concat(entity, ',') FROM series"), "valA,valB");
	assert_true(t_real(tl, "SELECT value FROM sample p JOIN series s ON s.id = p.series_id WHERE"
			   " s.entity = 'valA' ORDER BY time_ns LIMIT 1") == 1.1);
	t_close(tl);

	tl = read_real("grafana-csv-2.6-series-as-rows-pr-example.txt");
	assert_int_equal(ev_int(tl, "metrics_export", "rows"), 16);
	assert_string_equal(t_text(tl, "SELECT group_concat(entity, ',') FROM series"), "valA,valB");
	assert_int_equal(t_int(tl, "SELECT min(time_ns) FROM sample"),
			 utc_ns(2015, 6, 11, 11, 50, 0, 0));
	t_close(tl);
}

static void metrics_edges(void **state)
{
	struct timeline *tl = t_open();
	/* two scrapes after capture separators: a series over time */
	static const char scrapes[] =
		"### 2025-11-29T18:00:00Z src=metrics\n"
		"# TYPE vllm:num_requests_running gauge\n"
		"vllm:num_requests_running{model_name=\"m\"} 3\n"
		"# TYPE vllm:e2e_request_latency_seconds histogram\n"
		"vllm:e2e_request_latency_seconds_bucket{le=\"1.0\",model_name=\"m\"} 5\n"
		"vllm:e2e_request_latency_seconds_sum{model_name=\"m\"} 5\n"
		"### 2025-11-29T18:00:15Z src=metrics\n"
		"vllm:num_requests_running{model_name=\"m\",pod=\"\"} 7\n"
		"vllm:num_requests_running{model_name=\"a\\\"b\"} NaN\n";
	/* panel inspect (7.0+): comma-separated, Unix ms, locale-free */
	static const char csv7[] =
		"\"Time\",\"rss\"\n\"1700000000000\",\"100\"\n\"1700000060000\",\"null\"\n"
		"\"1700000120000\",\"1,5\"\n";
	(void)state;

	assert_int_equal(t_parse_mem(tl, "prometheus_text", "s", scrapes, 0), 3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample p JOIN series s ON s.id = p.series_id"
			       " WHERE s.name = 'vllm:num_requests_running' AND s.entity ="
			       " 'model_name=\"m\"'"), 2);
	assert_int_equal(t_int(tl, "SELECT max(time_ns) FROM sample p JOIN series s ON s.id ="
			       " p.series_id WHERE s.name = 'server.running'"),
			 utc_ns(2025, 11, 29, 18, 0, 15, 0));
	assert_int_equal(ev_int(tl, "metrics_scrape", "histogram_samples_skipped"), 2);
	/* OpenMetrics: timestamps in seconds */
	assert_int_equal(t_parse_mem(tl, "prometheus_text", "om",
		"# TYPE process_resident_memory_bytes gauge\n"
		"process_resident_memory_bytes 4096 1700000000.25\n# EOF\n", 0), 2);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM sample p JOIN series s ON s.id = p.series_id"
			       " WHERE s.name = 'process_resident_memory_bytes'"),
			 1700000000250000000LL);
	t_close(tl);

	tl = t_open();
	assert_int_equal(t_parse_mem(tl, "grafana_csv", "c", csv7, 0), 3);
	assert_string_equal(ev_text(tl, "metrics_export", "sep"), "comma");
	assert_int_equal(t_int(tl, "SELECT min(time_ns) FROM sample"), 1700000000000LL * 1000000);
	assert_true(t_real(tl, "SELECT value FROM sample ORDER BY time_ns DESC LIMIT 1") == 1.5);
	/* a time without a zone is the browser's: local */
	assert_int_equal(t_parse_mem(tl, "grafana_csv", "l", "Time;x\n2020-01-01 10:00:00;4\n", 0), 2);
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key = 'time.clock'"), "local");
	t_close(tl);
}

/* ---- nsys stats ---- */

static void nsys_real_tables(void **state)
{
	struct timeline *tl;
	(void)state;

	tl = read_real("nsys-stats-2024-cuda-gpu-mem-time-tail-and-size-sum-vllm.txt");
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "nsys_stats");
	assert_string_equal(ev_text(tl, "nsys_stats", "report"), "cuda_gpu_mem_size_sum");
	assert_true(ev_real(tl, "nsys_stats", "htod_total_mb") == 294088757.097);
	assert_int_equal(ev_int(tl, "nsys_stats", "htod_count"), 783962);
	assert_true(ev_real(tl, "nsys_stats", "htod_max_mb") == 2101.346);
	assert_true(ev_real(tl, "nsys_stats", "dtod_total_mb") == 77492.519);
	assert_true(ev_real(tl, "nsys_stats", "memset_total_mb") == 81.603);
	assert_true(ev_real(tl, "nsys_stats", "dtoh_total_mb") == 1.319);
	/* the time table above it lost its header: told by its rows */
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.htod_total_time_ns') FROM event"
			       " ORDER BY id LIMIT 1"), 1065985331278LL);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.report_inferred') FROM event"
			       " ORDER BY id LIMIT 1"), 1);
	t_close(tl);

	tl = read_real("nsys-stats-2022.4-gpumemsizesum-two-runs-prompt-partial.txt");
	assert_string_equal(ev_text(tl, "nsys_stats", "report"), "gpumemsizesum");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'nsys_stats'"), 2);
	assert_int_equal(ev_int(tl, "nsys_stats", "run"), 2);
	assert_true(ev_real(tl, "nsys_stats", "htod_total_mb") == 1834.251);
	assert_int_equal(ev_int(tl, "nsys_stats", "htod_count"), 4400);
	assert_true(ev_real(tl, "nsys_stats", "htod_max_mb") == 1.210);
	assert_true(t_real(tl, "SELECT json_extract(data, '$.dtoh_total_mb') FROM event ORDER BY id"
			   " LIMIT 1") == 322.024);
	assert_true(t_real(tl, "SELECT json_extract(data, '$.memset_total_mb') FROM event ORDER BY"
			   " id LIMIT 1") == 39.576);
	t_close(tl);

	tl = read_real("nsys-stats-2025.5-cuda-gpu-mem-time-sum-after-kern-sum.txt");
	assert_string_equal(ev_text(tl, "nsys_stats", "report"), "cuda_gpu_mem_time_sum");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 1);  /* not the kernel rows */
	assert_int_equal(ev_int(tl, "nsys_stats", "htod_total_time_ns"), 14169797872LL);
	assert_int_equal(ev_int(tl, "nsys_stats", "htod_count"), 460532);
	assert_int_equal(ev_int(tl, "nsys_stats", "p2p_total_time_ns"), 7493966990LL);
	assert_int_equal(ev_int(tl, "nsys_stats", "p2p_count"), 23895);
	assert_int_equal(ev_int(tl, "nsys_stats", "dtoh_total_time_ns"), 350517643);
	assert_int_equal(ev_int(tl, "nsys_stats", "memset_count"), 530);
	t_close(tl);

	tl = read_real("nsys-stats-2022-cuda-api-statistics-cudamalloc-partial.txt");
	assert_string_equal(ev_text(tl, "nsys_stats", "report"), "cudaapisum");
	assert_int_equal(ev_int(tl, "nsys_stats", "cudaMalloc_total_time_ns"), 220584485);
	assert_int_equal(ev_int(tl, "nsys_stats", "cudaMalloc_calls"), 2018);
	assert_int_equal(ev_int(tl, "nsys_stats", "cudaMalloc_max_ns"), 174145828);
	assert_string_equal(ev_text(tl, "nsys_stats", "top_api"), "cudaLaunchKernel");
	/* only the memory calls are kept as rows */
	assert_int_equal(ev_int(tl, "nsys_stats", "row_count"), 7);
	assert_string_equal(ev_text(tl, "nsys_stats", "rows[1].name"), "cudaMalloc");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(memray_real_reports),
		cmocka_unit_test(memray_si_units_and_json),
		cmocka_unit_test(prom_real_scrapes),
		cmocka_unit_test(prom_real_answers),
		cmocka_unit_test(grafana_real_exports),
		cmocka_unit_test(metrics_edges),
		cmocka_unit_test(nsys_real_tables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
