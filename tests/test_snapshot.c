/*
 * test_snapshot.c -- the PyTorch memory snapshot reader in each schema
 * generation (fixtures written by CPython's pickle, see
 * fixtures/gen_snapshots.py), big batches, truncation and corruption,
 * gzipped snapshots, detection by content, series anchored to segments,
 * and one OOM seen by the snapshot and the server log.
 */
#include "testutil.h"
#include "analyzer/store/correlate.h"
#include "parsers/torch/pickle.h"
#include "parsers/torch/torch_snapshot.h"
#include "lib/input.h"
#include "lib/strbuf.h"
#include "reports/report.h"
#include "analyzer/ingest/ingest.h"

#include <zlib.h>

#include <pthread.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T0_NS (1700000000000000LL * 1000)
#define MiB (1024 * 1024)
#define SEG0 0x7F0000000000LL
#define SEG1 0x7F1000000000LL

/* ---- the snapshot reader ---- */

/* The scenario of fixtures/gen_snapshots.py, 2.2+ generations. */
static void assert_main_scenario(struct timeline *tl, int proto, int timed)
{
	int64_t s1;

	assert_string_equal(t_text(tl, "SELECT form FROM snapshot"), "dict");
	assert_int_equal(t_int(tl, "SELECT protocol FROM snapshot"), proto);
	assert_int_equal(t_int(tl, "SELECT devices FROM snapshot"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic"), 0);
	/* segments and blocks at snapshot time */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM segment WHERE device = 0"
			       " AND address = %lld AND total_size = %d AND allocated_size = %d"
			       " AND segment_type = 'large'", SEG0, 20 * MiB, 2 * MiB + 512 * 1024), 1);
	assert_int_equal(t_int(tl, "SELECT total_size FROM segment WHERE device = 1"), 2 * MiB);
	assert_string_equal(t_text(tl, "SELECT segment_type FROM segment WHERE device = 1"), "small");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM block"), 5);
	assert_int_equal(t_int(tl, "SELECT sum(size) FROM block b JOIN segment s ON"
			       " s.id = b.segment_id WHERE s.device = 0"), 20 * MiB);
	assert_int_equal(t_int(tl, "SELECT address FROM block WHERE size = %d", 2 * MiB),
			 SEG0 + 0x100000);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM block WHERE state = 'active_allocated'"), 2);
	/* trace: 8 (+1 marker in 2.0) on device 0, 3 on device 1 */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM trace WHERE device = 1"), 3);
	assert_string_equal(t_text(tl, "SELECT action FROM trace WHERE device = 0 AND seq = 3"),
			    "free_requested");
	if (timed)
		assert_int_equal(t_int(tl, "SELECT time_ns FROM trace WHERE device = 0 AND seq = 1"),
				 T0_NS + 10000);
	else
		assert_int_equal(t_int(tl, "SELECT count(*) FROM trace WHERE time_ns IS NOT NULL"), 0);
	/* lifetimes */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM alloc"), 5);
	assert_int_equal(t_int(tl, "SELECT free_seq FROM alloc WHERE device = 0 AND"
			       " state = 'freed'"), 4);
	assert_int_equal(t_int(tl, "SELECT alloc_seq FROM alloc WHERE device = 0 AND"
			       " state = 'freed'"), 1);
	assert_int_equal(t_int(tl, "SELECT size FROM alloc WHERE device = 0 AND"
			       " state = 'freed'"), MiB);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM alloc WHERE state = 'live'"), 2);
	assert_int_equal(t_int(tl, "SELECT sum(size) FROM alloc WHERE state = 'live'"),
			 2 * MiB + 512 * 1024);
	assert_int_equal(t_int(tl, "SELECT addr FROM alloc WHERE state = 'orphan_free'"),
			 SEG0 + 0x400000);
	assert_int_equal(t_int(tl, "SELECT alloc_seq FROM alloc WHERE state = 'orphan_free'"),
			 OL_NULL);
	assert_int_equal(t_int(tl, "SELECT stack_id FROM alloc WHERE state = 'orphan_free'"),
			 OL_NULL);
	assert_int_equal(t_int(tl, "SELECT free_seq FROM alloc WHERE device = 1"), 2);
	if (timed)
		assert_int_equal(t_int(tl, "SELECT free_ns - alloc_ns FROM alloc WHERE device = 0"
				       " AND state = 'freed'"), 21000);
	/* stacks: innermost first, shared by A1 and A3 */
	s1 = t_int(tl, "SELECT stack_id FROM alloc WHERE device = 0 AND alloc_seq = 1");
	assert_true(s1 > 0);
	assert_int_equal(t_int(tl, "SELECT stack_id FROM alloc WHERE alloc_seq = 6"), s1);
	assert_string_equal(t_text(tl, "SELECT name FROM frame WHERE stack_id = %lld AND idx = 0",
				   (long long)s1), "forward");
	assert_int_equal(t_int(tl, "SELECT line FROM frame WHERE stack_id = %lld AND idx = 0",
			       (long long)s1), 125);
	assert_string_equal(t_text(tl, "SELECT file FROM frame WHERE stack_id = %lld AND idx = 2",
				   (long long)s1), "/srv/app/server.py");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM stack"), 2);
	assert_int_equal(t_int(tl, "SELECT stack_id FROM block WHERE size = 524288 AND"
			       " state = 'active_allocated'"), s1);
	/* the OOM */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'torch_oom'"), 1);
	assert_int_equal(t_int(tl, "SELECT bytes FROM event WHERE kind = 'torch_oom'"), 100 * MiB);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.device_free_bytes') FROM event"),
			 12345678);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.device') FROM event"), 0);
	assert_int_equal(t_int(tl, "SELECT device_free FROM trace WHERE action = 'oom'"), 12345678);
	assert_int_equal(t_int(tl, "SELECT addr FROM trace WHERE action = 'oom'"), OL_NULL);
	if (timed) {
		assert_int_equal(t_int(tl, "SELECT time_ns FROM event"), T0_NS + 60000);
		/* series from the trace */
		assert_string_equal(t_text(tl, "SELECT group_concat(CAST(value AS INTEGER), ' ') FROM"
				" (SELECT value FROM sample p JOIN series s ON s.id = p.series_id WHERE"
				" s.name = 'torch.allocated_bytes' AND s.entity = 'cuda:0'"
				" ORDER BY time_ns)"), "3145728 2621440");
		/* per millisecond: the peak (at +20 us) and the level at its end */
		assert_int_equal(t_int(tl, "SELECT min(time_ns) FROM sample p JOIN series s ON"
				       " s.id = p.series_id WHERE s.name = 'torch.allocated_bytes'"
				       " AND s.entity = 'cuda:0'"), T0_NS + 20000);
		assert_string_equal(t_text(tl, "SELECT group_concat(CAST(value AS INTEGER), ' ') FROM"
				" (SELECT value FROM sample p JOIN series s ON s.id = p.series_id WHERE"
				" s.name = 'torch.allocated_bytes' AND s.entity = 'cuda:1'"
				" ORDER BY time_ns)"), "256 0");
		assert_int_equal(t_int(tl, "SELECT value FROM sample p JOIN series s ON"
				       " s.id = p.series_id WHERE s.name = 'torch.reserved_bytes'"
				       " AND s.entity = 'cuda:0'"), 20 * MiB);
		assert_string_equal(t_text(tl, "SELECT unit FROM series WHERE entity = 'cuda:1'"
					       " AND name = 'torch.allocated_bytes'"), "bytes");
		assert_int_equal(t_int(tl, "SELECT peak_allocated_bytes FROM snapshot"), 3145728);
	} else {
		assert_int_equal(t_int(tl, "SELECT count(*) FROM sample"), 0);
		assert_int_equal(t_int(tl, "SELECT time_ns FROM event"), OL_NULL);
	}
}

static void assert_settings(struct timeline *tl)
{
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key ="
				       " 'torch.allocator.max_split_size'"), "-1");
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key ="
				       " 'torch.allocator.PYTORCH_CUDA_ALLOC_CONF'"),
			    "max_split_size_mb:512");
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key ="
				       " 'torch.allocator.expandable_segments'"), "false");
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key ="
				       " 'torch.allocator.garbage_collection_threshold'"), "0.0");
	assert_int_equal(t_int(tl, "SELECT json_extract(settings, '$.roundup_power2_divisions.\"32768\"')"
			       " FROM snapshot"), 0);
	assert_int_equal(t_int(tl, "SELECT json_extract(settings, '$.max_split_size') FROM snapshot"), -1);
}

static void snapshot_2_5_protocols_2_4(void **state)
{
	(void)state;
	for (int p = 2; p <= 4; p += 2) {
		struct timeline *tl = t_open();
		char rel[64];
		snprintf(rel, sizeof(rel), "tests/data/snapshot/v2_5.p%d.pickle", p);
		assert_int_equal(t_parse_file(tl, rel), 0);
		assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "torch_snapshot");
		assert_main_scenario(tl, p, 1);
		assert_settings(tl);
		assert_int_equal(t_int(tl, "SELECT trace_events FROM snapshot"), 11);
		assert_int_equal(t_int(tl, "SELECT count(*) FROM trace WHERE compile_context"
				       " IS NOT NULL OR user_metadata IS NOT NULL"), 0);
		t_close(tl);
	}
}

static void snapshot_2_11_protocol_5(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(t_parse_file(tl, "tests/data/snapshot/v2_11.p5.pickle"), 0);
	assert_main_scenario(tl, 5, 1);
	assert_settings(tl);
	assert_string_equal(t_text(tl, "SELECT user_metadata FROM trace WHERE device = 0"
				       " AND seq = 2"), "req-7");
	assert_string_equal(t_text(tl, "SELECT user_metadata FROM trace WHERE device = 0"
				       " AND seq = 1"), "");
	assert_string_equal(t_text(tl, "SELECT compile_context FROM trace WHERE seq = 1"
				       " AND device = 0"), "N/A");
	assert_string_equal(t_text(tl, "SELECT pool_id FROM segment WHERE device = 0"), "0,0");
	assert_int_equal(t_int(tl, "SELECT is_expandable FROM segment WHERE device = 0"), 0);
	t_close(tl);
}

static void snapshot_2_0_history_blocks(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(t_parse_file(tl, "tests/data/snapshot/v2_0.p4.pickle"), 0);
	assert_main_scenario(tl, 4, 0);
	assert_int_equal(t_int(tl, "SELECT trace_events FROM snapshot"), 12);
	assert_int_equal(t_int(tl, "SELECT size FROM trace WHERE action = 'snapshot'"),
			 2 * MiB + 512 * 1024);
	/* no allocator_settings in 2.0 */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta"), 0);
	assert_int_equal(t_int(tl, "SELECT settings IS NULL FROM snapshot"), 1);
	/* inactive blocks without history: address derived from the segment */
	assert_int_equal(t_int(tl, "SELECT address FROM block WHERE size = %d", 17 * MiB),
			 SEG0 + 0x300000);
	assert_int_equal(t_int(tl, "SELECT pool_id IS NULL AND is_expandable IS NULL FROM segment"
			       " WHERE device = 0"), 1);
	t_close(tl);
}

static void snapshot_2_1_expandable(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(t_parse_file(tl, "tests/data/snapshot/v2_1.p4.pickle"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM segment"), 3);
	assert_int_equal(t_int(tl, "SELECT is_expandable FROM segment WHERE address ="
			       " 0x7E0000000000"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM trace WHERE action LIKE 'segment_%%map'"), 4);
	assert_int_equal(t_int(tl, "SELECT seq FROM trace WHERE action = 'oom'"), 11);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM alloc"), 5);
	assert_int_equal(t_int(tl, "SELECT stack_id IS NOT NULL FROM block WHERE size = %d", 2 * MiB), 1);
	t_close(tl);
}

static void snapshot_1_13_segment_list(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(t_parse_file(tl, "tests/data/snapshot/v1_13_list.p2.pickle"), 0);
	assert_string_equal(t_text(tl, "SELECT form FROM snapshot"), "list");
	assert_int_equal(t_int(tl, "SELECT protocol FROM snapshot"), 2);
	assert_int_equal(t_int(tl, "SELECT devices FROM snapshot"), 2);
	assert_int_equal(t_int(tl, "SELECT trace_events FROM snapshot"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM segment"), 2);
	assert_int_equal(t_int(tl, "SELECT requested_size FROM segment WHERE device = 0"), OL_NULL);
	/* 1.13 blocks: requested size from history real_size, address from history */
	assert_int_equal(t_int(tl, "SELECT requested_size FROM block WHERE size = %d", 2 * MiB),
			 2 * MiB);
	assert_int_equal(t_int(tl, "SELECT address FROM block WHERE size = %d", 2 * MiB),
			 SEG0 + 0x100000);
	assert_int_equal(t_int(tl, "SELECT requested_size FROM block WHERE size = %d", 17 * MiB),
			 OL_NULL);
	assert_int_equal(t_int(tl, "SELECT count(DISTINCT stack_id) FROM block"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM trace"), 0);
	assert_int_equal(t_int(tl, "SELECT peak_allocated_bytes FROM snapshot"), OL_NULL);
	t_close(tl);
}

static void snapshot_big_batches_and_memo(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(t_parse_file(tl, "tests/data/snapshot/big.p4.pickle"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM trace"), 2600);
	assert_int_equal(t_int(tl, "SELECT max(seq) FROM trace"), 2599);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM alloc WHERE state = 'freed'"), 650);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM alloc WHERE state = 'live'"), 650);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM stack"), 40 + 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM trace WHERE stack_id IS NULL"), 0);
	/* samples: at most two per millisecond, the peak among them */
	assert_int_equal(t_int(tl, "SELECT max(value) FROM sample p JOIN series s ON"
			       " s.id = p.series_id WHERE s.name = 'torch.allocated_bytes'"),
			 t_int(tl, "SELECT peak_allocated_bytes FROM snapshot"));
	assert_true(t_int(tl, "SELECT count(*) FROM sample p JOIN series s ON s.id = p.series_id"
			      " WHERE s.name = 'torch.allocated_bytes'") <=
		    2 * t_int(tl, "SELECT count(DISTINCT time_ns / 1000000) FROM trace"));
	assert_true(t_int(tl, "SELECT count(*) FROM sample") >= 4);
	t_close(tl);
}

static void snapshot_bigint_address_is_unknown(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	t_parse_file(tl, "tests/data/snapshot/bigint.p4.pickle");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM trace"), 1);
	assert_int_equal(t_int(tl, "SELECT addr FROM trace"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT size FROM trace"), 512);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'warning'"
			       " AND message LIKE '%%does not fit 64 bits%%'"), 1);
	t_close(tl);
}

/* A cut pickle: what was read before the cut is kept, and the cut is
 * reported with its offset. */
static void snapshot_truncated_keeps_what_was_read(void **state)
{
	size_t n;
	char *data = t_slurp("tests/data/snapshot/big.p4.pickle", &n);
	struct timeline *tl = t_open();
	int64_t rows;
	(void)state;

	t_parse_mem(tl, "torch_snapshot", "cut.pickle", data, n * 6 / 10);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " '%%ends before its STOP%%'"), 1);
	assert_int_equal(t_int(tl, "SELECT offset FROM diagnostic"), (int64_t)(n * 6 / 10));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM segment"), 2);
	rows = t_int(tl, "SELECT count(*) FROM trace");
	assert_true(rows > 1000 && rows < 2600);
	/* the entries of the unfinished batch are kept too, in order */
	assert_int_equal(t_int(tl, "SELECT max(seq) + 1 FROM trace"), rows);
	assert_int_equal(t_int(tl, "SELECT trace_events FROM snapshot"), rows);
	t_close(tl);
	free(data);
}

static void snapshot_corrupt_opcode(void **state)
{
	size_t n;
	char *data = t_slurp("tests/data/snapshot/v2_5.p4.pickle", &n);
	struct timeline *tl = t_open();
	char *p;
	(void)state;

	/* overwrite the opcode of the 'free_requested' action string */
	p = memmem(data, n, "free_requested", 14);
	assert_non_null(p);
	p[-2] = (char)0xff;
	t_parse_mem(tl, "torch_snapshot", "bad.pickle", data, n);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message ="
			       " 'pickle offset %lld: unknown opcode 0xff: not a pickle, or corrupt'",
			       (long long)(p - 2 - data)), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM segment"), 2);
	/* the entries before it are kept */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM trace"), 3);
	t_close(tl);
	free(data);
}

/* Users gzip multi-GB snapshots: read through gzip, detected by content. */
static void snapshot_gzipped(void **state)
{
	char path[] = "/tmp/oomlens-snap-XXXXXX";
	int fd = mkstemp(path);
	size_t n;
	char *data = t_slurp("tests/data/snapshot/v2_5.p4.pickle", &n);
	gzFile gz;
	struct timeline *tl = t_open();
	struct ingest_cfg cfg = { .quiet = 1 };
	struct ingest_stats st;
	char *p = path;
	(void)state;

	assert_true(fd >= 0);
	gz = gzdopen(fd, "wb");
	assert_int_equal(gzwrite(gz, data, (unsigned)n), (int)n);
	gzclose(gz);
	assert_int_equal(ingest_paths(tl, &p, 1, &cfg, &st), 0);
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "torch_snapshot");
	assert_int_equal(t_int(tl, "SELECT compressed FROM artifact"), 1);
	assert_main_scenario(tl, 4, 1);
	unlink(path);
	free(data);
	t_close(tl);
}

static void sniff_by_content(void **state)
{
	size_t n;
	char *data = t_slurp("tests/data/snapshot/v2_5.p4.pickle", &n);
	(void)state;
	assert_true(torch_snapshot_sniff((unsigned char *)data, n) > 50);
	assert_int_equal(torch_snapshot_sniff((const unsigned char *)"\x80\x04}.", 4), 0);
	assert_int_equal(torch_snapshot_sniff((const unsigned char *)"segments total_size", 19), 0);
	free(data);
}

/* The trace only sees what was allocated inside its window; the weights
 * and caches allocated before it are in the segments. The series end on
 * the level the segments give (the fixture's trace starts after 15 GiB of
 * weights and 48 GiB of KV cache were allocated). */
static void series_anchored_to_segments(void **state)
{
	struct timeline *tl = t_open();
	int64_t seg_alloc, last, first;
	(void)state;

	assert_int_equal(t_parse_file(tl, "fixtures/leak_gpu_snapshot/oom_snapshot.pickle"), 0);
	seg_alloc = t_int(tl, "SELECT sum(allocated_size) FROM segment WHERE device = 0");
	last = t_int(tl, "SELECT CAST(value AS INTEGER) FROM sample p JOIN series s ON"
		     " s.id = p.series_id WHERE s.name = 'torch.allocated_bytes'"
		     " AND s.entity = 'cuda:0' ORDER BY time_ns DESC, p.rowid DESC LIMIT 1");
	first = t_int(tl, "SELECT CAST(value AS INTEGER) FROM sample p JOIN series s ON"
		      " s.id = p.series_id WHERE s.name = 'torch.allocated_bytes'"
		      " AND s.entity = 'cuda:0' ORDER BY time_ns, p.rowid LIMIT 1");
	assert_true(seg_alloc > 60LL * 1024 * 1024 * 1024);
	assert_int_equal(last, seg_alloc);
	assert_true(first > 60LL * 1024 * 1024 * 1024);   /* the weights were there */
	assert_int_equal(t_int(tl, "SELECT peak_allocated_bytes FROM snapshot"),
			 t_int(tl, "SELECT CAST(max(value) AS INTEGER) FROM sample p JOIN series s"
			       " ON s.id = p.series_id WHERE s.name = 'torch.allocated_bytes'"));
	t_close(tl);
}

/* One OOM, two witnesses: the snapshot's `oom` entry and the server's
 * OutOfMemoryError ("Tried to allocate 0.12 GiB") are linked; an OOM of
 * another size in another log is not. */
static void same_oom_in_snapshot_and_log(void **state)
{
	struct timeline *tl = t_open();
	static const char other[] =
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a"
		" total capacity of 73.00 GiB of which 0.08 GiB is free.\n";
	(void)state;

	assert_int_equal(t_parse_file(tl, "fixtures/leak_gpu_snapshot"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'torch_oom'"), 2);
	assert_int_equal(t_int(tl, "SELECT json_extract(e.data, '$.same_as_event') FROM event e"
			       " JOIN artifact a ON a.id = e.artifact_id WHERE a.path LIKE"
			       " '%%server.err'"),
			 t_int(tl, "SELECT e.id FROM event e JOIN artifact a ON a.id = e.artifact_id"
			       " WHERE a.path LIKE '%%.pickle' AND e.kind = 'torch_oom'"));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'torch_oom' AND"
			       " json_extract(data, '$.same_as_event') IS NULL"), 1);
	t_close(tl);

	tl = t_open();
	assert_int_equal(t_parse_file(tl, "fixtures/leak_gpu_snapshot/oom_snapshot.pickle"), 0);
	t_parse_mem(tl, "server_log", "other.log", other, 0);
	assert_int_equal(correlate_events(tl), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'torch_oom'"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE"
			       " json_extract(data, '$.same_as_event') IS NOT NULL"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(snapshot_2_5_protocols_2_4),
		cmocka_unit_test(snapshot_2_11_protocol_5),
		cmocka_unit_test(snapshot_2_0_history_blocks),
		cmocka_unit_test(snapshot_2_1_expandable),
		cmocka_unit_test(snapshot_1_13_segment_list),
		cmocka_unit_test(snapshot_big_batches_and_memo),
		cmocka_unit_test(snapshot_bigint_address_is_unknown),
		cmocka_unit_test(snapshot_truncated_keeps_what_was_read),
		cmocka_unit_test(snapshot_corrupt_opcode),
		cmocka_unit_test(snapshot_gzipped),
		cmocka_unit_test(sniff_by_content),
		cmocka_unit_test(series_anchored_to_segments),
		cmocka_unit_test(same_oom_in_snapshot_and_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
