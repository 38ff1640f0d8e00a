/*
 * test_holders.c -- what held the memory of a PyTorch snapshot: the
 * user's frame of a stack (lib/userframe.h) on the paths real snapshots
 * carry, and the holders the store derives (holders.h) from snapshots
 * written by CPython's pickle in every schema (fixtures/gen_holders.py):
 * at the snapshot, at the peak of the Active Memory Timeline and at the
 * OOM, against figures computed by hand; the pools, the timeline, each
 * block's holder and what the recording says is missing.
 */
#include "testutil.h"
#include "lib/userframe.h"
#include "lib/strbuf.h"
#include "analyzer/rules/rules.h"

#include <jansson.h>
#include <string.h>

#define MiB (1024 * 1024LL)

/* ---- the user's frame ---- */

static void userframe_follows_the_oracles_rules(void **state)
{
	static const struct { const char *file; enum frame_kind k; } cases[] = {
		{ "/srv/app/model.py", FRAME_USER },
		{ "model.PY", FRAME_USER },
		{ "<string>", FRAME_USER },
		{ "<frozen importlib._bootstrap>", FRAME_RUNTIME },
		{ "??", FRAME_CPP },
		{ "/pytorch/c10/cuda/CUDACachingAllocator.cpp", FRAME_CPP },
		{ "/usr/lib/libtorch_cuda.so", FRAME_CPP },
		{ NULL, FRAME_CPP },
		{ "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py", FRAME_TORCH },
		{ "/home/u/pytorch/torch/autograd/graph.py", FRAME_TORCH },
		{ "torch/_tensor.py", FRAME_TORCH },
		{ "C:\\venv\\Lib\\site-packages\\torch\\functional.py", FRAME_TORCH },
		/* near misses of torch: the user's (third-party counts as the user's) */
		{ "/site-packages/torch_geometric/nn/conv.py", FRAME_USER },
		{ "/srv/flexgen/pytorch_backend.py", FRAME_USER },
		{ "/x/site-packages/transformer_engine/pytorch/module.py", FRAME_USER },
		{ "/usr/local/lib/python3.10/dist-packages/vllm/worker/cache_engine.py", FRAME_USER },
		/* the runtime */
		{ "/usr/lib/python3.11/threading.py", FRAME_RUNTIME },
		{ "/opt/conda/lib/python3.13t/asyncio/events.py", FRAME_RUNTIME },
		{ "/usr/lib/python3.11/site-packages/einops/einops.py", FRAME_USER },
		{ "C:\\Python310\\Lib\\threading.py", FRAME_RUNTIME },
		{ "C:\\Users\\u\\AppData\\Roaming\\uv\\python\\cpython-3.11.9-windows\\Lib\\runpy.py",
		  FRAME_RUNTIME },
		{ "C:\\Python310\\Lib\\site-packages\\einops\\_backends.py", FRAME_USER },
		{ "C:\\Users\\u\\miniconda3\\envs\\gnn\\Lib\\contextlib.py", FRAME_RUNTIME },
		{ "C:\\Users\\u\\miniconda3\\envs\\gnn\\Lib\\site-packages\\peft\\tuners.py",
		  FRAME_USER },
		{ "D:\\anaconda3\\Lib\\functools.py", FRAME_RUNTIME },
		/* a project folder named lib is not the runtime */
		{ "/mnt/mcx/select_n/lib/models/select.py", FRAME_USER },
		{ "/home/u/envs/x/lib/python3.9/site-packages/accelerate/hooks.py", FRAME_USER },
	};
	const char *stack[] = { "??", "/usr/lib/python3/site-packages/torch/nn/functional.py",
				"/usr/lib/python3.11/threading.py", "/srv/app/model.py", "/srv/a.py" };
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (frame_kind(cases[i].file) != cases[i].k)
			fail_msg("%s: kind %d, expected %d", cases[i].file ? cases[i].file : "NULL",
				 frame_kind(cases[i].file), cases[i].k);
	assert_int_equal(user_frame(stack, 5), 3);
	assert_int_equal(user_frame(stack, 3), -1);
	assert_int_equal(user_frame(NULL, 0), -1);
}

/* ---- the derivation ---- */

static struct timeline *ingest(const char *name)
{
	struct timeline *tl = t_open();
	char rel[128];

	snprintf(rel, sizeof(rel), "tests/data/snapshot/%s", name);
	assert_int_equal(t_parse_file(tl, rel), 0);
	return tl;
}

/* "bytes allocations kind label" of one holder row. */
static const char *holder(struct timeline *tl, const char *scope, int device, int rank)
{
	return t_text(tl, "SELECT bytes || ' ' || allocations || ' ' || kind || ' ' || label"
		      " FROM holder WHERE scope = '%s' AND device = %d AND rank = %d", scope,
		      device, rank);
}

static json_t *recording(struct timeline *tl)
{
	json_t *j = json_loads(t_text(tl, "SELECT recording FROM snapshot"), 0, NULL);

	assert_non_null(j);
	return j;
}

/* 2.5, device 0. Blocks: B1 16 MiB (C++, torch, then kv_cache.py), B2 8
 * MiB without a stack whose alloc the trace holds (model.py), B3 4 MiB
 * without a stack nor an alloc, B4 2 MiB C++ only (requested 2,000,000),
 * in pool (0,1) B6 2 MiB (Windows train.py) and B7 pending free.
 * Trace: 1 alloc AX 10 MiB (torch/runtime frames only), 2 alloc B1,
 * 3 alloc B2, 5 free AX, 6 free of a 3 MiB orphan, 7 alloc B4,
 * 8 annotate B1, 9 oom. Before the first event B3 (4), B6 (2) and the
 * orphan (3) are live: 9 MiB; then 19, 35, 43 (the peak, at 3), 33, 30,
 * 30 MiB + 2,000,000 before the OOM. */
static void holders_at_snapshot_peak_and_oom(void **state)
{
	struct timeline *tl = ingest("holders_frames.p4.pickle");
	(void)state;

	/* the snapshot: 32 MiB in 5 holders; ties ordered by the user's frame */
	assert_string_equal(holder(tl, "snapshot", 0, 1),
			    "16777216 1 stack /srv/app/kv_cache.py:42 grow");
	assert_string_equal(holder(tl, "snapshot", 0, 2),
			    "8388608 1 stack /srv/app/model.py:88 decode_step");
	assert_string_equal(holder(tl, "snapshot", 0, 3), "4194304 1 no_stack no stack recorded");
	assert_string_equal(holder(tl, "snapshot", 0, 4),
			    "2097152 1 stack C:\\Users\\me\\proj\\train.py:10 step");
	assert_string_equal(holder(tl, "snapshot", 0, 5), "2097152 1 stack C++ only");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM holder WHERE scope = 'snapshot'"), 5);
	assert_true(t_real(tl, "SELECT share FROM holder WHERE scope = 'snapshot' AND rank = 1")
		    == 0.5);
	assert_int_equal(t_int(tl, "SELECT requested_bytes FROM holder WHERE scope = 'snapshot'"
			       " AND rank = 5"), 2000000);
	/* the stack merged from the trace, and said so; the annotate entry */
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.stacks_from_trace') FROM holder"
			       " WHERE scope = 'snapshot' AND rank = 2"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.annotations[0]') FROM holder"
				   " WHERE scope = 'snapshot' AND rank = 1"), "kv-cache layer 0");
	/* the user's frame, no frame where there is none */
	assert_string_equal(t_text(tl, "SELECT frame_file || ':' || frame_line || ' ' || frame_name"
				   " FROM holder WHERE scope = 'snapshot' AND rank = 1"),
			    "/srv/app/kv_cache.py:42 grow");
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.frames') FROM holder"
			       " WHERE scope = 'snapshot' AND rank = 1"), 5);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM holder WHERE frame_file IS NOT NULL"
			       " AND kind <> 'stack'"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM holder WHERE frame_file IS NOT NULL"
			       " AND label IN ('C++ only', 'no user frame')"), 0);
	/* the peak: 43 MiB at trace index 3, requested sizes */
	assert_int_equal(t_int(tl, "SELECT DISTINCT seq FROM holder WHERE scope = 'peak'"
			       " AND device = 0"), 3);
	assert_int_equal(t_int(tl, "SELECT sum(bytes) FROM holder WHERE scope = 'peak'"
			       " AND device = 0"), 43 * MiB);
	assert_string_equal(holder(tl, "peak", 0, 1),
			    "16777216 1 stack /srv/app/kv_cache.py:42 grow");
	assert_string_equal(holder(tl, "peak", 0, 2), "10485760 1 stack no user frame");
	assert_string_equal(holder(tl, "peak", 0, 5),
			    "3145728 1 not_in_trace allocated before the trace");
	assert_string_equal(holder(tl, "peak", 0, 6),
			    "2097152 1 stack C:\\Users\\me\\proj\\train.py:10 step");
	/* the OOM: just before index 9, AX and the orphan freed, B4 allocated */
	assert_int_equal(t_int(tl, "SELECT sum(bytes) FROM holder WHERE scope = 'oom'"),
			 30 * MiB + 2000000);
	assert_string_equal(holder(tl, "oom", 0, 5), "2000000 1 stack C++ only");
	assert_int_equal(t_int(tl, "SELECT DISTINCT seq FROM holder WHERE scope = 'oom'"), 9);
	/* the second device: a trace and no segment */
	assert_string_equal(holder(tl, "peak", 1, 1), "256 1 stack /srv/app/model.py:88 decode_step");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM holder WHERE device = 1 AND"
			       " scope <> 'peak'"), 0);
	/* every active block points at its holder */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM block WHERE state = 'active_allocated'"
			       " AND holder_id IS NULL"), 0);
	assert_int_equal(t_int(tl, "SELECT h.rank FROM block b JOIN holder h ON h.id = b.holder_id"
			       " WHERE b.size = %lld", 8 * MiB), 2);
	t_close(tl);
}

static void recording_names_what_is_missing(void **state)
{
	struct timeline *tl = ingest("holders_frames.p4.pickle");
	json_t *r = recording(tl), *d, *m;
	(void)state;

	assert_int_equal(json_integer_value(json_object_get(r, "live_blocks")), 5);
	assert_int_equal(json_integer_value(json_object_get(r, "live_blocks_without_stack")), 1);
	assert_int_equal(json_integer_value(json_object_get(r, "stacks_from_trace")), 1);
	assert_int_equal(json_integer_value(json_object_get(r, "live_blocks_not_in_trace")), 2);
	assert_int_equal(json_integer_value(json_object_get(r, "pending_free_bytes")), MiB);
	assert_int_equal(json_integer_value(json_object_get(r, "orphan_frees")), 1);
	assert_int_equal(json_integer_value(json_object_get(r, "annotations")), 1);
	assert_int_equal(json_integer_value(json_object_get(r, "trace_events")), 12);
	d = json_array_get(json_object_get(r, "devices"), 0);
	assert_int_equal(json_integer_value(json_object_get(d, "initial_bytes")), 9 * MiB);
	assert_int_equal(json_integer_value(json_object_get(d, "peak_bytes")), 43 * MiB);
	assert_int_equal(json_integer_value(json_object_get(d, "peak_seq")), 3);
	assert_string_equal(json_string_value(json_object_get(d, "axis")), "time");
	/* the axis spans the trace: 80 us */
	assert_int_equal(json_integer_value(json_object_get(d, "axis_to")) -
			 json_integer_value(json_object_get(d, "axis_from")), 80000);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(d, "oom"),
							    "live_bytes")), 30 * MiB + 2000000);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(d, "oom"),
							    "requested_bytes")), 100 * MiB);
	m = json_object_get(r, "missing");
	assert_int_equal(json_array_size(m), 2);
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(m, 0), "what")),
			       "1 of 5 live blocks (4194304 bytes) carry no allocation stack"));
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(m, 0),
								 "record_with")),
			       "_record_memory_history(max_entries=100000)"));
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(m, 1), "what")),
			       "1 frees and 2 live blocks are of allocations the trace does not hold"));
	json_decref(r);
	t_close(tl);
}

static void pools_private_apart(void **state)
{
	struct timeline *tl = ingest("holders_frames.p4.pickle");
	(void)state;

	assert_int_equal(t_int(tl, "SELECT count(*) FROM pool"), 2);
	assert_string_equal(t_text(tl, "SELECT segments || ' ' || reserved_bytes || ' ' ||"
				   " allocated_bytes || ' ' || inactive_bytes || ' ' ||"
				   " largest_free_bytes || ' ' || top_bytes || ' ' || top_label"
				   " FROM pool WHERE pool_id = '0,0'"),
			    "1 67108864 31457280 35651584 35651584 16777216"
			    " /srv/app/kv_cache.py:42 grow");
	assert_string_equal(t_text(tl, "SELECT private_pool || ' ' || reserved_bytes || ' ' ||"
				   " allocated_bytes || ' ' || pending_free_bytes || ' ' || top_label"
				   " FROM pool WHERE pool_id = '0,1'"),
			    "1 8388608 2097152 1048576 C:\\Users\\me\\proj\\train.py:10 step");
	t_close(tl);
}

/* The timeline of the top holders at the peak: per column the bytes of
 * each band at the column's own peak, before the first event in column 0,
 * the final state in the last; the highest column is the peak. */
static void timeline_keeps_the_peak(void **state)
{
	struct timeline *tl = ingest("holders_frames.p4.pickle");
	(void)state;

	assert_int_equal(t_int(tl, "SELECT count(DISTINCT col) FROM holder_timeline"
			       " WHERE device = 0"), 240);
	assert_int_equal(t_int(tl, "SELECT max(s) FROM (SELECT sum(bytes) AS s FROM holder_timeline"
			       " WHERE device = 0 GROUP BY col)"), 43 * MiB);
	assert_int_equal(t_int(tl, "SELECT sum(bytes) FROM holder_timeline WHERE device = 0"
			       " AND col = 0"), 9 * MiB);    /* before the first alloc */
	assert_int_equal(t_int(tl, "SELECT sum(bytes) FROM holder_timeline WHERE device = 0"
			       " AND col = 239"), 30 * MiB + 2000000);
	/* the KV cache's band: 16 MiB from its alloc on */
	assert_int_equal(t_int(tl, "SELECT t.bytes FROM holder_timeline t JOIN holder h ON"
			       " h.id = t.holder_id WHERE t.device = 0 AND t.col = 239 AND h.rank = 1"),
			 16 * MiB);
	/* six holders at the peak, all drawn; B4, allocated after it, is the rest */
	assert_int_equal(t_int(tl, "SELECT count(DISTINCT holder_id) FROM holder_timeline"
			       " WHERE device = 0"), 6);
	assert_int_equal(t_int(tl, "SELECT bytes FROM holder_timeline WHERE holder_id IS NULL"
			       " AND device = 0 AND col = 239"), 2000000);
	t_close(tl);
}

/* The peak is before the first event (a live block and an orphan free:
 * 80 MiB), and a later tie does not move it. */
static void peak_before_the_first_event(void **state)
{
	struct timeline *tl = ingest("holders_peak_before.p4.pickle");
	(void)state;

	assert_int_equal(t_int(tl, "SELECT DISTINCT seq FROM holder WHERE scope = 'peak'"), -1);
	assert_int_equal(t_int(tl, "SELECT sum(bytes) FROM holder WHERE scope = 'peak'"), 80 * MiB);
	assert_string_equal(holder(tl, "peak", 0, 1),
			    "52428800 1 stack /srv/app/model.py:88 decode_step");
	assert_string_equal(holder(tl, "peak", 0, 2),
			    "31457280 1 not_in_trace allocated before the trace");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM holder WHERE scope = 'peak' AND rank = 1"),
			 OL_NULL);
	t_close(tl);
}

/* 2.0: the stack in the block's history; the trace has no times: its
 * timeline is over the trace's order. */
static void history_blocks_and_an_untimed_trace(void **state)
{
	struct timeline *tl = ingest("holders_history.p4.pickle");
	json_t *r = recording(tl), *d;
	(void)state;

	assert_string_equal(holder(tl, "snapshot", 0, 1),
			    "4194304 1 stack /srv/app/model.py:88 decode_step");
	assert_string_equal(holder(tl, "snapshot", 0, 2), "2097152 1 no_stack no stack recorded");
	/* 2 MiB live before; +1 MiB, +4 MiB: the peak at index 1 */
	assert_int_equal(t_int(tl, "SELECT sum(bytes) FROM holder WHERE scope = 'peak'"), 7 * MiB);
	assert_int_equal(t_int(tl, "SELECT DISTINCT seq FROM holder WHERE scope = 'peak'"), 1);
	d = json_array_get(json_object_get(r, "devices"), 0);
	assert_string_equal(json_string_value(json_object_get(d, "axis")), "index");
	assert_non_null(strstr(t_text(tl, "SELECT recording FROM snapshot"),
			       "the trace has no times (PyTorch before 2.2)"));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM holder_timeline WHERE time_ns IS NOT NULL"),
			 0);
	json_decref(r);
	t_close(tl);
}

/* No stack and no trace: one holder, said to be without a stack, and the
 * options that would have recorded more. */
static void no_stacks_no_trace(void **state)
{
	struct timeline *tl = ingest("holders_nostacks.p4.pickle");
	const char *rec;
	(void)state;

	assert_string_equal(holder(tl, "snapshot", 0, 1), "8388608 2 no_stack no stack recorded");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM holder"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM holder_timeline"), 0);
	rec = t_text(tl, "SELECT recording FROM snapshot");
	assert_non_null(strstr(rec, "the snapshot holds no trace events"));
	assert_non_null(strstr(rec, "include_traces=False"));
	assert_non_null(strstr(rec, "2 of 2 live blocks (8388608 bytes) carry no allocation stack"));
	t_close(tl);
}

/* 1.13: a bare segment list, its stacks in the history entries. */
static void segment_list_history(void **state)
{
	struct timeline *tl = ingest("holders_list.p2.pickle");
	(void)state;

	assert_string_equal(holder(tl, "snapshot", 0, 1),
			    "3145728 1 stack /srv/app/kv_cache.py:42 grow");
	assert_non_null(strstr(t_text(tl, "SELECT recording FROM snapshot"),
			       "a segment list (torch.cuda.memory_snapshot()) holds no trace"));
	t_close(tl);
}

/* A backward pass's stack has C++ frames only: it is named by its
 * autograd node and ATen op, and has no user's frame. */
static void cpp_only_named_by_its_op(void **state)
{
	struct timeline *tl = ingest("holders_cpp.p4.pickle");
	(void)state;

	assert_string_equal(holder(tl, "snapshot", 0, 1),
			    "2097152 1 stack C++ only: MulBackward0 (at::_ops::mul_Tensor)");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM holder WHERE frame_file IS NOT NULL"), 0);
	t_close(tl);
}

/* A file that fails is rolled back with its holders; the next one is
 * derived on its own. */
static void two_snapshots_each_their_own(void **state)
{
	struct timeline *tl = ingest("holders_frames.p4.pickle");
	(void)state;

	assert_int_equal(t_parse_file(tl, "tests/data/snapshot/holders_b.p4.pickle"), 0);
	assert_int_equal(t_int(tl, "SELECT count(DISTINCT snapshot_id) FROM holder"), 2);
	assert_int_equal(t_int(tl, "SELECT bytes FROM holder WHERE snapshot_id = 2 AND"
			       " scope = 'snapshot' AND rank = 1"), 24 * MiB);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM pool"), 4);
	t_close(tl);
}

/* Issue 25: a finding and the holders section named one stack by two
 * rules ("torch::unwind::unwind() <- ..." against "optimizer.py:76 step").
 * On the leak and the spike fixtures, every finding that rests on a stack
 * names it as the holder of that stack does, the user's frame. */
static void finding_and_holders_name_one_frame(void **state)
{
	static const char *const cases[][3] = {
		{ "fixtures/leak_gpu_snapshot/oom_snapshot.pickle",
		  "fixtures/leak_gpu_snapshot/server.err", "metrics_hook.py:41 record_hidden_states" },
		{ "fixtures/spike_gpu_snapshot/snapshot.pickle",
		  "fixtures/spike_gpu_snapshot/server.err", NULL },
	};
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct timeline *tl = t_open();
		struct strbuf err = STRBUF_INIT;
		char title[1024], label[512];

		assert_true(t_parse_file(tl, cases[i][0]) >= 0);
		assert_true(t_parse_file(tl, cases[i][1]) >= 0);
		assert_int_equal(analyze_timeline(tl, &err), 0);
		strbuf_release(&err);
		/* at least one finding rests on a stack the holders know */
		assert_true(t_int(tl, "SELECT count(*) FROM finding f JOIN evidence e ON e.finding_id"
				  " = f.id AND e.ref_table = 'stack' JOIN holder h ON h.stack_id ="
				  " e.ref_id") > 0);
		snprintf(title, sizeof(title), "%s", t_text(tl, "SELECT f.title FROM finding f JOIN"
			 " evidence e ON e.finding_id = f.id AND e.ref_table = 'stack' ORDER BY f.id"
			 " LIMIT 1"));
		snprintf(label, sizeof(label), "%s", t_text(tl, "SELECT h.label FROM finding f JOIN"
			 " evidence e ON e.finding_id = f.id AND e.ref_table = 'stack' JOIN holder h"
			 " ON h.stack_id = e.ref_id ORDER BY f.id LIMIT 1"));
		if (!strstr(title, label))
			fail_msg("%s: the finding says \"%s\", the holders \"%s\"", cases[i][0],
				 title, label);
		/* one frame rule: no stack anywhere is named by C++ frames joined */
		assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE title LIKE '%% <- %%'"
				       " OR advice LIKE '%% <- %%'"), 0);
		if (cases[i][2])
			assert_non_null(strstr(label, cases[i][2]));
		t_close(tl);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(userframe_follows_the_oracles_rules),
		cmocka_unit_test(holders_at_snapshot_peak_and_oom),
		cmocka_unit_test(recording_names_what_is_missing),
		cmocka_unit_test(pools_private_apart),
		cmocka_unit_test(timeline_keeps_the_peak),
		cmocka_unit_test(peak_before_the_first_event),
		cmocka_unit_test(history_blocks_and_an_untimed_trace),
		cmocka_unit_test(no_stacks_no_trace),
		cmocka_unit_test(segment_list_history),
		cmocka_unit_test(cpp_only_named_by_its_op),
		cmocka_unit_test(two_snapshots_each_their_own),
		cmocka_unit_test(finding_and_holders_name_one_frame),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
