/*
 * test_rules_misconfig.c -- the misconfiguration rules: headroom for one
 * request, a cgroup limit over the baseline, gpu_memory_utilization and
 * max_num_seqs, fragmentation, CUDA contexts, the OOM victim and its
 * score adjustment; each case just inside and just outside a threshold.
 */
#include "testutil_rules.h"
#include "analyzer/rules/rules.h"
#include "analyzer/rules/rulelib.h"
#include "analyzer/derive/stats.h"
#include "lib/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define T0 T_RULES_T0
#define NS 1000000000LL

/* ---- misconfiguration ---- */

static void headroom_one_request(void **state)
{
	struct timeline *tl;
	/* 80 GiB GPU, weights + KV = 77 GiB: 3 GiB left */
	(void)state;

	tl = t_open();
	t_meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	t_meta(tl, "server.weights_bytes", "72477573120");     /* 67.5 GiB */
	t_meta(tl, "server.kv_cache_bytes", "10200547328");    /* 9.5 GiB */
	t_meta(tl, "server.gpu_memory_utilization", "0.98");
	t_torch_oom(tl, 600, 3.2 * GIB, 80 * GIB, 0);          /* needs 3.2 GiB: inside */
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "headroom"), 1);
	assert_float_equal(t_figure(tl, "headroom", "headroom_bytes"), 3 * GIB, 1);
	assert_float_equal(t_figure(tl, "headroom", "safe_concurrency"), 0, 0);
	/* (3.2/0.7 - 3) GiB = 1.571 GiB of 80 GiB: 0.98 - 0.0196 -> 0.96 */
	assert_float_equal(t_figure(tl, "headroom", "suggested_gpu_memory_utilization"), 0.96, 1e-9);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'headroom'"),
			       "from 0.98 to 0.96"));
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "headroom");
	t_close(tl);

	tl = t_open();
	t_meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	t_meta(tl, "server.weights_bytes", "72477573120");
	t_meta(tl, "server.kv_cache_bytes", "10200547328");
	t_torch_oom(tl, 600, 2.0 * GIB, 80 * GIB, 0);  /* 2.0 / 0.7 = 2.86 GiB fits: outside */
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "headroom"), 0);
	t_close(tl);

	tl = t_open();
	t_meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	t_meta(tl, "server.weights_bytes", "72477573120");
	t_meta(tl, "server.kv_cache_bytes", "10200547328");
	t_torch_oom(tl, 600, 2.2 * GIB, 80 * GIB, 0);  /* 2.2 / 0.7 = 3.14 GiB: inside, no margin */
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "headroom"), 1);
	assert_float_equal(t_real(tl, "SELECT score FROM finding WHERE cause = 'headroom'"), 0.65, 1e-9);
	t_close(tl);
}

static void cgroup_limit_over_baseline(void **state)
{
	struct timeline *tl;
	/* limit 8 GiB: baseline 7.3 GiB leaves 8.75% (inside, < 10%), 7.1 GiB 11% */
	(void)state;

	tl = t_open();
	t_meta(tl, "cgroup.max_bytes", "8589934592");
	t_series(tl, "cgroup.current_bytes", "/app", 100, 10, t_line, (double[]){ 7.3 * GIB, 0, 10 * MIB });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "limit"), 1);
	assert_true(fabs(t_figure(tl, "limit", "headroom_fraction") - 0.0875) < 0.005);
	assert_float_equal(t_figure(tl, "limit", "suggested_limit_bytes"), 11.0 * GIB, 0);
	t_close(tl);

	tl = t_open();
	t_meta(tl, "cgroup.max_bytes", "8589934592");
	t_series(tl, "cgroup.current_bytes", "/app", 100, 10, t_line, (double[]){ 7.1 * GIB, 0, 10 * MIB });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "limit"), 0);
	t_close(tl);
}

static void gpu_utilization_and_max_num_seqs(void **state)
{
	struct timeline *tl;
	(void)state;

	/* 0.95 x 80 GiB = 76 GiB + 5 GiB held by another process > 80 GiB */
	tl = t_open();
	t_meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	t_meta(tl, "server.gpu_memory_utilization", "0.95");
	t_series(tl, "gpu.proc_used_bytes", "gpu0/pid:100", 20, 10, t_line, (double[]){ 76 * GIB, 0, 0 });
	t_series(tl, "gpu.proc_used_bytes", "gpu0/pid:200", 20, 10, t_line, (double[]){ 5 * GIB, 0, 0 });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "limit"), 1);
	assert_float_equal(t_figure(tl, "limit", "other_processes_bytes"), 5 * GIB, 0);
	assert_float_equal(t_figure(tl, "limit", "suggested_gpu_memory_utilization"), 0.91, 1e-9);
	t_close(tl);

	/* 3 GiB held by the other: fits */
	tl = t_open();
	t_meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	t_meta(tl, "server.gpu_memory_utilization", "0.95");
	t_series(tl, "gpu.proc_used_bytes", "gpu0/pid:100", 20, 10, t_line, (double[]){ 76 * GIB, 0, 0 });
	t_series(tl, "gpu.proc_used_bytes", "gpu0/pid:200", 20, 10, t_line, (double[]){ 3 * GIB, 0, 0 });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "limit"), 0);
	t_close(tl);

	/* max_num_seqs 64 x 500 MiB = 31 GiB > 10 GiB left; safe = 10 GiB / 500 MiB x 0.7 */
	tl = t_open();
	t_meta(tl, "gpu.total_bytes.gpu0", "85899345920");
	t_meta(tl, "server.max_num_seqs", "64");
	t_meta(tl, "server.weights_bytes", "16106127360");
	t_meta(tl, "server.kv_cache_bytes", "59055800320");
	t_torch_oom(tl, 100, 500 * MIB, 80 * GIB, 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "max_num_seqs"), 1);
	assert_float_equal(t_figure(tl, "max_num_seqs", "safe_concurrency"), 14, 0);
	t_close(tl);
}

static void fragmentation_from_message_and_segments(void **state)
{
	struct timeline *tl;
	char sql[300];
	int i;
	(void)state;

	/* the message alone: 2.1 GiB cached vs 2 GiB asked (inside), 1.9 (outside) */
	tl = t_open();
	t_torch_oom(tl, 100, 2 * GIB, 80 * GIB, 2.1 * GIB);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "fragmentation"), 1);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'fragmentation'"),
			       "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"));
	t_close(tl);
	tl = t_open();
	t_torch_oom(tl, 100, 2 * GIB, 80 * GIB, 1.9 * GIB);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "fragmentation"), 0);
	t_close(tl);

	/* segments: 64 x 128 MiB each with a 40 MiB hole = 2.5 GiB free, the
	 * largest piece 40 MiB, a 1 GiB request fails; expandable already on */
	tl = t_open();
	t_alloc_tables(tl);
	t_meta(tl, "torch.allocator.expandable_segments", "true");
	for (i = 0; i < 64; i++) {
		snprintf(sql, sizeof(sql), "INSERT INTO segment(id, snapshot_id, device, total_size,"
			 " allocated_size) VALUES(%d, 1, 0, 134217728, 92274688);"
			 "INSERT INTO block(segment_id, size, state) VALUES(%d, 92274688,"
			 " 'active_allocated'), (%d, 41943040, 'inactive')", i + 1, i + 1, i + 1);
		assert_int_equal(timeline_exec(tl, sql), 0);
	}
	assert_int_equal(timeline_exec(tl, "INSERT INTO trace(snapshot_id, seq, action, size)"
				       " VALUES(1, 1, 'oom', 1073741824)"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "fragmentation"), 1);
	assert_float_equal(t_figure(tl, "fragmentation", "largest_free_block_bytes"), 41943040, 0);
	assert_float_equal(t_figure(tl, "fragmentation", "reserved_unallocated_bytes"), 64 * 41943040.0, 0);
	assert_float_equal(t_figure(tl, "fragmentation", "expandable_segments"), 1, 0);
	assert_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause = 'fragmentation'"),
			   "PYTORCH_CUDA_ALLOC_CONF"));
	t_close(tl);
}

static void cuda_contexts(void **state)
{
	struct timeline *tl;
	(void)state;

	/* three ranks with a 500 MiB stray context on gpu0 */
	tl = t_open();
	t_series(tl, "gpu.proc_used_bytes", "gpu0/pid:1", 10, 10, t_line, (double[]){ 70 * GIB, 0, 0 });
	t_series(tl, "gpu.proc_used_bytes", "gpu1/pid:2", 10, 10, t_line, (double[]){ 70 * GIB, 0, 0 });
	t_series(tl, "gpu.proc_used_bytes", "gpu0/pid:2", 10, 10, t_line, (double[]){ 500 * MIB, 0, 0 });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "cuda_context_explosion"), 1);
	assert_float_equal(t_figure(tl, "cuda_context_explosion", "stray_contexts"), 1, 0);
	assert_float_equal(t_figure(tl, "cuda_context_explosion", "contexts_per_device"), 2, 0);
	t_close(tl);

	/* two processes sharing a GPU as equals (MPS-style): no stray */
	tl = t_open();
	t_series(tl, "gpu.proc_used_bytes", "gpu0/pid:1", 10, 10, t_line, (double[]){ 30 * GIB, 0, 0 });
	t_series(tl, "gpu.proc_used_bytes", "gpu0/pid:2", 10, 10, t_line, (double[]){ 30 * GIB, 0, 0 });
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "cuda_context_explosion"), 0);
	t_close(tl);

	/* a core dump with 3 contexts on device 0 */
	tl = t_open();
	assert_int_equal(timeline_exec(tl, "INSERT INTO gpu_context(artifact_id, device,"
				       " context_id, tid) VALUES(1, 0, 1, 10), (1, 0, 2, 11),"
				       " (1, 0, 3, 12), (1, 1, 4, 13)"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "cuda_context_explosion"), 1);
	assert_float_equal(t_figure(tl, "cuda_context_explosion", "contexts_per_device"), 3, 0);
	assert_int_equal(timeline_exec(tl, "DELETE FROM gpu_context WHERE context_id IN (2, 3)"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "cuda_context_explosion"), 0);
	t_close(tl);
}

static void oom_victim_and_score_adj(void **state)
{
	struct timeline *tl = t_open();
	struct ol_event inv = { "oom_invoked", { OL_CLOCK_UTC, T0 * NS, OL_NULL, NULL }, 10,
				"python3", OL_NULL, 1, "invoked", NULL };
	struct ol_event kill = { "oom_kill", { OL_CLOCK_UTC, T0 * NS + 1000, OL_NULL, NULL }, 20,
				 "node_exporter", OL_NULL, 30, "killed", NULL };
	struct ol_task big = { 10, 1000, 10, 9000000, 8000000, 7900000, 100000, 0, OL_NULL,
			       OL_NULL, OL_NULL, 0, OL_NULL, -1000, "python3" };
	struct ol_task small = { 20, 0, 20, 500000, 150000, 140000, 10000, 0, OL_NULL, OL_NULL,
				 OL_NULL, 0, OL_NULL, 1000, "node_exporter" };
	int64_t ev;
	(void)state;

	t_begin(tl);
	ev = sink_event(&tl->sink, &inv);
	assert_true(sink_task(&tl->sink, ev, &big) > 0);
	assert_true(sink_task(&tl->sink, ev, &small) > 0);
	assert_true(sink_event(&tl->sink, &kill) > 0);
	t_end(tl);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_findings(tl, "oom_score_adj"), 1);
	assert_float_equal(t_figure(tl, "oom_score_adj", "largest_rss_bytes"), 8000000 * 4096.0, 0);
	assert_float_equal(t_figure(tl, "oom_score_adj", "victim_oom_score_adj"), 1000, 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	/* no adjustment in the task rows (old kernels): the kill line's counts */
	assert_int_equal(timeline_exec(tl, "UPDATE task SET oom_score_adj = NULL;"
				       " UPDATE event SET data = '{\"oom_score_adj\": 900}'"
				       " WHERE kind = 'oom_kill'"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_float_equal(t_figure(tl, "oom_score_adj", "victim_oom_score_adj"), 900, 0);
	/* the killer took the largest: nothing to say */
	assert_int_equal(timeline_exec(tl, "UPDATE event SET pid = 10 WHERE kind = 'oom_kill'"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding"), 0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "inconclusive");
	t_close(tl);
}


/* Issue 27: a llama-server start-up whose compute buffer does not fit
 * names the context that does, from the engine's own numbers. The lines
 * are llama.cpp's own wording (b5000-era llama-server, as in
 * tests/data/real/any_stack/llamaserver-*); the figures are those of an
 * 8B Q4 model at a 128k context on a 24 GiB card: 23306 MiB free, 4403.49
 * MiB of weights, a 16 GiB KV cache for 131072 tokens (128 KiB a token)
 * and a compute buffer of 8464 MiB that fails. What fits: (23306 -
 * 4403.49 - 8464) MiB / 128 KiB = 83508 tokens, 83456 in steps of 256. */
static void llamacpp_context_that_fits(void **state)
{
	static const char log[] =
		"llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 3090)"
		" - 23306 MiB free\n"
		"load_tensors: offloading 32 repeating layers to GPU\n"
		"load_tensors: offloaded 33/33 layers to GPU\n"
		"load_tensors:        CUDA0 model buffer size =  4403.49 MiB\n"
		"load_tensors:   CPU_Mapped model buffer size =   281.81 MiB\n"
		"llama_context: n_ctx         = 131072\n"
		"llama_kv_cache_unified:      CUDA0 KV buffer size = 16384.00 MiB\n"
		"ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8464.00 MiB on device 0:"
		" cudaMalloc failed: out of memory\n"
		"ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 8875147264\n"
		"graph_reserve: failed to allocate compute buffers\n"
		"llama_init_from_model: failed to initialize the context: failed to allocate"
		" compute pp buffers\n";
	struct timeline *tl = t_open();
	(void)state;

	assert_true(t_parse_mem(tl, "server_log", "llama-server.log", log, sizeof(log) - 1) > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class || ' ' || phase FROM verdict"),
			    "misconfig profile");
	assert_float_equal(t_figure(tl, "cache_does_not_fit", "context_tokens_fit"), 83456, 0);
	assert_float_equal(t_figure(tl, "cache_does_not_fit", "kv_bytes_per_token"), 131072, 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(figures, '$.advice_knob') FROM"
				   " finding WHERE cause = 'cache_does_not_fit'"), "ctx_size");
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE"
				      " cause = 'cache_does_not_fit'"), "--ctx-size 83456"));
	t_close(tl);
}

/* The same for Ollama: the offload line in Ollama's own wording (as in
 * tests/data/real/healthy/ollama-offload-line-starting-server-journal.log,
 * the card's free memory made 6.0 GiB) and the runner's failure (as in
 * tests/data/real/any_stack/ollama-runner-terminated-cudamalloc-journal.log).
 * A layer is 6.8 GiB / 49 of weights and 608 MiB / 49 of KV cache (a
 * layer left on the host keeps its KV there, as Ollama's own estimate
 * counts it); 6.0 GiB - 519.5 MiB holds 36 of them (36 x 154.5 MiB +
 * 519.5 = 6082 MiB; 37 would need 6237): num_gpu 36 instead of 48. */
static void ollama_layers_that_fit(void **state)
{
	static const char log[] =
		"time=2025-08-08T23:02:37.146+01:00 level=INFO source=server.go:175 msg=offload"
		" library=cuda layers.requested=49 layers.model=49 layers.offload=48 layers.split=\"\""
		" memory.available=\"[6.0 GiB]\" memory.gpu_overhead=\"0 B\""
		" memory.required.full=\"11.0 GiB\" memory.required.partial=\"8.5 GiB\""
		" memory.required.kv=\"608.0 MiB\" memory.required.allocations=\"[8.5 GiB]\""
		" memory.weights.total=\"6.8 GiB\" memory.weights.repeating=\"6.0 GiB\""
		" memory.weights.nonrepeating=\"787.5 MiB\" memory.graph.full=\"519.5 MiB\""
		" memory.graph.partial=\"1.0 GiB\"\n"
		"time=2025-08-08T23:02:39.345+01:00 level=ERROR source=sched.go:457 msg=\"error loading"
		" llama server\" error=\"llama runner process has terminated: cudaMalloc failed: out"
		" of memory\"\n";
	struct timeline *tl = t_open();
	(void)state;

	assert_true(t_parse_mem(tl, "server_log", "ollama.log", log, sizeof(log) - 1) > 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT class || ' ' || phase FROM verdict"),
			    "misconfig load_weights");
	assert_float_equal(t_figure(tl, "weights_do_not_fit", "gpu_layers_fit"), 36, 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(figures, '$.advice_knob') FROM"
				   " finding WHERE cause = 'weights_do_not_fit'"), "num_gpu");
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE"
				      " cause = 'weights_do_not_fit'"), "num_gpu 36"));
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(headroom_one_request),
		cmocka_unit_test(cgroup_limit_over_baseline),
		cmocka_unit_test(gpu_utilization_and_max_num_seqs),
		cmocka_unit_test(fragmentation_from_message_and_segments),
		cmocka_unit_test(cuda_contexts),
		cmocka_unit_test(oom_victim_and_score_adj),
		cmocka_unit_test(llamacpp_context_that_fits),
		cmocka_unit_test(ollama_layers_that_fit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
