/*
 * test_tools.c -- the diagnostic tools' outputs SREs attach
 * (tests/data/real/tools): torch.cuda.memory_summary() tables,
 * memory_stats() dumps, the profiler's memory table and Chrome-trace
 * memory events, memray stats (text and JSON), Prometheus scrapes and
 * API answers, Grafana CSV, nsys stats. Each real file is read with
 * detection and the figures of its MANIFEST.tsv row are asserted, values
 * as the tool prints them converted the way the tool computed them; then
 * the edges: cut tables, lines broken at 1000 columns, dumps over time,
 * garbage.
 */
#include "testutil.h"
#include "analyzer/ingest/formats.h"
#include "lib/timeutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KiB 1024LL
#define MiB 1048576LL
#define GiB 1073741824LL
#define REAL "tests/data/real/tools/"

static struct timeline *read_real(const char *name)
{
	struct timeline *tl = t_open();
	char rel[512];

	snprintf(rel, sizeof(rel), REAL "%s", name);
	assert_int_equal(t_parse_file(tl, rel), 0);
	return tl;
}

/* A memory_stats key of the n-th (0-based) torch_memory_stats event. */
static int64_t stat_n(struct timeline *tl, int n, const char *key)
{
	return t_int(tl, "SELECT json_extract(data, '$.stats.\"%s\"') FROM event WHERE"
		     " kind = 'torch_memory_stats' ORDER BY id LIMIT 1 OFFSET %d", key, n);
}

static int64_t stat(struct timeline *tl, const char *key)
{
	return stat_n(tl, 0, key);
}

/* A field of the first event of kind. */
static int64_t ev_int(struct timeline *tl, const char *kind, const char *path)
{
	return t_int(tl, "SELECT json_extract(data, '$.%s') FROM event WHERE kind = '%s'"
		     " ORDER BY id LIMIT 1", path, kind);
}

static double ev_real(struct timeline *tl, const char *kind, const char *path)
{
	return t_real(tl, "SELECT json_extract(data, '$.%s') FROM event WHERE kind = '%s'"
		      " ORDER BY id LIMIT 1", path, kind);
}

static const char *ev_text(struct timeline *tl, const char *kind, const char *path)
{
	return t_text(tl, "SELECT json_extract(data, '$.%s') FROM event WHERE kind = '%s'"
		      " ORDER BY id LIMIT 1", path, kind);
}

/* The only sample of series name/entity. */
static double sample1(struct timeline *tl, const char *name, const char *entity)
{
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample p JOIN series s ON s.id ="
			       " p.series_id WHERE s.name = '%s' AND s.entity = '%s'", name,
			       entity), 1);
	return t_real(tl, "SELECT value FROM sample p JOIN series s ON s.id = p.series_id"
		      " WHERE s.name = '%s' AND s.entity = '%s'", name, entity);
}

/* ---- torch.cuda.memory_summary() ---- */

/* One manifest row: a file and the memory_stats keys its table prints. */
struct sum_case {
	const char *file;
	int64_t device;
	struct { const char *key; int64_t v; } k[12];
};

static const struct sum_case sum_cases[] = {
	{ "torch-summary-1.5-mb-oom1-retry1-partial.txt", 0, {
	  { "num_ooms", 1 }, { "num_alloc_retries", 1 },
	  { "allocated_bytes.all.current", 1062 * MiB }, { "allocated_bytes.all.peak", 4877 * MiB },
	  { "active_bytes.all.current", 1062 * MiB }, { "active_bytes.all.peak", 4877 * MiB },
	  { "reserved_bytes.all.current", 12420 * MiB }, { "reserved_bytes.all.peak", 12420 * MiB } } },
	{ "torch-summary-1.5-gb-glued-header-fairseq-partial.txt", 0, {
	  { "num_ooms", 1 }, { "num_alloc_retries", 6 },
	  { "allocated_bytes.all.current", 26377 * MiB }, { "allocated_bytes.all.peak", 26988 * MiB },
	  { "allocated_bytes.all.allocated", 767743 * GiB },
	  { "allocated_bytes.all.freed", 767717 * GiB } } },
	{ "torch-summary-1.5-bytes-kb-pr-example-partial.txt", 0, {
	  { "num_ooms", 0 }, { "num_alloc_retries", 0 },
	  { "allocated_bytes.all.current", 1024 }, { "allocated_bytes.all.peak", 133632 },
	  { "allocated_bytes.all.allocated", 273920 }, { "allocated_bytes.all.freed", 272896 },
	  { "active_bytes.all.current", 1024 }, { "active_bytes.all.peak", 133632 },
	  { "reserved_bytes.all.current", 2048 * KiB }, { "reserved_bytes.all.peak", 2048 * KiB } } },
	{ "torch-summary-1.5-kb-mb-before-large-tensor-partial.txt", 0, {
	  { "num_ooms", 0 }, { "num_alloc_retries", 0 },
	  { "allocated_bytes.all.current", 659155 * KiB }, { "allocated_bytes.all.peak", 4460 * MiB },
	  { "allocated_bytes.all.allocated", 12439 * MiB },
	  { "allocated_bytes.all.freed", 11795 * MiB } } },
	{ "torch-summary-1.9-mb-after-empty-cache-falkon-partial.txt", 0, {
	  { "num_ooms", 0 }, { "num_alloc_retries", 1 },
	  { "allocated_bytes.all.current", 0 }, { "allocated_bytes.all.peak", 24124 * MiB },
	  { "allocated_bytes.all.allocated", 61809 * MiB }, { "allocated_bytes.all.freed", 61809 * MiB },
	  { "active_bytes.all.current", 0 }, { "active_bytes.all.peak", 24124 * MiB },
	  { "reserved_bytes.all.current", 0 }, { "reserved_bytes.all.peak", 25950 * MiB } } },
	{ "torch-summary-2.0-kib-binary-units-pr-example-partial.txt", 0, {
	  { "num_ooms", 0 }, { "num_alloc_retries", 0 },
	  { "allocated_bytes.all.current", 1024 * KiB }, { "allocated_bytes.all.peak", 1024 * KiB },
	  { "allocated_bytes.all.allocated", 1024 * KiB }, { "allocated_bytes.all.freed", 0 },
	  { "active_bytes.all.current", 1024 * KiB }, { "active_bytes.all.peak", 1024 * KiB } } },
	{ "torch-summary-2.x-async-would-exceed-allowed-zero-totals-partial.txt", 0, {
	  { "num_ooms", 0 }, { "num_alloc_retries", 0 },
	  { "allocated_bytes.all.current", 5931 * MiB }, { "allocated_bytes.all.peak", 7087 * MiB },
	  { "allocated_bytes.all.allocated", 0 }, { "allocated_bytes.all.freed", 0 },
	  { "active_bytes.all.current", 5931 * MiB }, { "active_bytes.all.peak", 7087 * MiB } } },
	{ "torch-summary-2.x-hip-requested-glued-memory-summary-prefix-partial.txt", 0, {
	  { "num_ooms", 1 }, { "num_alloc_retries", 2 },
	  { "allocated_bytes.all.current", 21964 * MiB }, { "allocated_bytes.all.peak", 23472 * MiB },
	  { "allocated_bytes.all.allocated", 25825 * GiB }, { "allocated_bytes.all.freed", 25804 * GiB },
	  { "active_bytes.all.current", 21964 * MiB }, { "active_bytes.all.peak", 23472 * MiB },
	  { "requested_bytes.all.current", 21808 * MiB },
	  { "requested_bytes.all.peak", 23321 * MiB } } },
	{ "torch-summary-2.x-rocm-oversize-tail-comfy-lines.txt", OL_NULL, {
	  { "segment.all.current", 5 }, { "segment.all.peak", 230 },
	  { "inactive_split.all.current", 3 }, { "inactive_split.all.peak", 97 },
	  { "oversize_allocations.all.current", 0 }, { "oversize_allocations.all.peak", 0 },
	  { "oversize_segments.all.current", 0 }, { "oversize_segments.all.peak", 0 } } },
	{ "torch-summary-1.x-mb-kb-middle-rows-vissl-partial.txt", OL_NULL, {
	  { "reserved_bytes.all.current", 8184 * MiB }, { "reserved_bytes.all.peak", 9330 * MiB },
	  { "reserved_bytes.all.allocated", 15628 * MiB },
	  { "inactive_split_bytes.all.current", 202300 * KiB },
	  { "inactive_split_bytes.all.peak", 1563 * MiB },
	  { "allocation.all.current", 545 }, { "allocation.all.peak", 545 },
	  { "active.all.current", 545 }, { "active.all.peak", 545 } } },
	{ "torch-summary-1.5-abbreviated-kb-mb-partial.txt", 0, {
	  { "num_ooms", 0 }, { "num_alloc_retries", 1 },
	  { "allocated_bytes.all.current", 183578 * KiB }, { "allocated_bytes.all.peak", 5260 * MiB },
	  { "active_bytes.all.current", 183578 * KiB }, { "active_bytes.all.peak", 5260 * MiB } } },
};

static void summary_real_tables(void **state)
{
	size_t i, k;
	(void)state;

	for (i = 0; i < sizeof(sum_cases) / sizeof(sum_cases[0]); i++) {
		const struct sum_case *c = &sum_cases[i];
		struct timeline *tl = read_real(c->file);
		char ent[16];
		assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "torch_memory_summary");
		/* one table, one stats event (a file may hold an OOM message too) */
		assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind ="
				       " 'torch_memory_stats'"), 1);
		assert_int_equal(ev_int(tl, "torch_memory_stats", "device"), c->device);
		for (k = 0; k < 12 && c->k[k].key; k++) {
			if (stat(tl, c->k[k].key) != c->k[k].v)
				fail_msg("%s: %s = %lld, want %lld", c->file, c->k[k].key,
					 (long long)stat(tl, c->k[k].key), (long long)c->k[k].v);
		}
		/* the lead figures become series: entity cuda:N, no time */
		snprintf(ent, sizeof(ent), c->device == OL_NULL ? "cuda" : "cuda:%lld",
			 (long long)c->device);
		if (stat(tl, "allocated_bytes.all.current") != OL_NULL)
			assert_true(sample1(tl, "torch.allocated_bytes", ent) ==
				    (double)stat(tl, "allocated_bytes.all.current"));
		assert_int_equal(t_int(tl, "SELECT count(*) FROM sample WHERE time_ns IS NOT NULL"), 0);
		t_close(tl);
	}
}

static void summary_layouts(void **state)
{
	struct timeline *tl;
	(void)state;

	/* abbreviated: one row per block, no pool rows */
	tl = read_real("torch-summary-1.5-abbreviated-kb-mb-partial.txt");
	assert_string_equal(ev_text(tl, "torch_memory_stats", "form"), "table_abbreviated");
	assert_int_equal(stat(tl, "allocated_bytes.large_pool.current"), OL_NULL);
	/* the unit of each cell: the value is floored to it */
	assert_int_equal(ev_int(tl, "torch_memory_stats", "resolution.\"allocated_bytes.all.current\""),
			 KiB);
	assert_int_equal(ev_int(tl, "torch_memory_stats", "resolution.\"allocated_bytes.all.peak\""),
			 MiB);
	t_close(tl);
	/* pool rows are read, with their own unit ("0 MB" under "0 B") */
	tl = read_real("torch-summary-1.9-mb-after-empty-cache-falkon-partial.txt");
	assert_string_equal(ev_text(tl, "torch_memory_stats", "form"), "table");
	assert_int_equal(stat(tl, "allocated_bytes.large_pool.peak"), 24124 * MiB);
	assert_int_equal(stat(tl, "allocated_bytes.small_pool.peak"), 0);
	assert_int_equal(ev_int(tl, "torch_memory_stats", "partial"), 1);
	t_close(tl);
	/* two tables: a cut one (no title) and device 2's */
	tl = read_real("torch-summary-1.9-mb-two-tables-device2-falkon-partial.txt");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'torch_memory_stats'"), 2);
	assert_int_equal(stat_n(tl, 0, "inactive_split.all.current"), 0);
	assert_int_equal(stat_n(tl, 0, "inactive_split.all.peak"), 4);
	assert_int_equal(stat_n(tl, 1, "num_alloc_retries"), 1);
	assert_int_equal(stat_n(tl, 1, "num_ooms"), 0);
	assert_int_equal(stat_n(tl, 1, "allocated_bytes.all.current"), 0);
	assert_int_equal(stat_n(tl, 1, "allocated_bytes.all.peak"), 25482 * MiB);
	assert_int_equal(stat_n(tl, 1, "allocated_bytes.all.allocated"), 64504 * MiB);
	assert_int_equal(stat_n(tl, 1, "active_bytes.all.peak"), 25482 * MiB);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.device') FROM event ORDER BY id"
			       " DESC LIMIT 1"), 2);
	assert_true(sample1(tl, "torch.allocated_peak_bytes", "cuda:2") == 25482.0 * MiB);
	t_close(tl);
	/* the cudaMallocAsync OOM message above the table */
	tl = read_real("torch-summary-2.x-async-would-exceed-allowed-zero-totals-partial.txt");
	assert_int_equal(ev_int(tl, "torch_memory_stats", "oom.requested_bytes"), 576 * MiB);
	assert_int_equal(ev_int(tl, "torch_memory_stats", "oom.allocated_bytes"),
			 llround(5.79 * GiB));
	assert_int_equal(ev_int(tl, "torch_memory_stats", "oom.device_limit_bytes"), 8 * GiB);
	assert_int_equal(ev_int(tl, "torch_memory_stats", "oom.free_bytes"), 0);
	t_close(tl);
}

static void summary_edges(void **state)
{
	struct timeline *tl = t_open();
	/* a row cut short loses its cells; the rest of the table stays */
	static const char cut[] =
		"|                  PyTorch CUDA memory summary, device ID 1                 |\n"
		"|            CUDA OOMs: 2            |        cudaMalloc retries: 5         |\n"
		"| Allocated memory      |    1062 MB |    4877 MB |   89299 MB |   88237 M\n"
		"| GPU reserved memory   |   12420 MB |   12420 MB |   16924 MB |    4504 MB |\n"
		"| Active memory         |    1x62 MB |    4877 MB |   89299 MB |   88237 MB |\n";
	(void)state;

	assert_int_equal(t_parse_mem(tl, "torch_memory_summary", "cut", cut, 0), 1);
	assert_int_equal(stat(tl, "num_ooms"), 2);
	assert_int_equal(stat(tl, "num_alloc_retries"), 5);
	assert_int_equal(stat(tl, "allocated_bytes.all.current"), OL_NULL);
	assert_int_equal(stat(tl, "reserved_bytes.all.freed"), 4504 * MiB);
	assert_int_equal(stat(tl, "active_bytes.all.current"), OL_NULL);  /* "1x62 MB" */
	assert_int_equal(stat(tl, "active_bytes.all.peak"), 4877 * MiB);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " '%%1x62 MB%%'"), 1);
	assert_int_equal(ev_int(tl, "torch_memory_stats", "partial"), 1);
	/* counts in thousands: "_format_count" steps of 1000 */
	assert_int_equal(t_parse_mem(tl, "torch_memory_summary", "k",
		"| Allocations           |    1234 K  |    5000 K  |    9999 M  |       0    |\n"
		"|===========================================================================|\n", 0), 1);
	assert_int_equal(stat_n(tl, 1, "allocation.all.current"), 1234000);
	assert_int_equal(stat_n(tl, 1, "allocation.all.allocated"), 9999000000LL);
	/* a logger's prefix with '|' in it on every line: the table's width tells */
	assert_int_equal(t_parse_mem(tl, "torch_memory_summary", "prefixed",
		"12:00:01 | INFO | rank0 | |                  PyTorch CUDA memory summary, device ID 3                 |\n"
		"12:00:01 | INFO | rank0 | |            CUDA OOMs: 0            |        cudaMalloc retries: 9         |\n"
		"12:00:01 | INFO | rank0 | | Allocated memory      |    1062 MB |    4877 MB |   89299 MB |   88237 MB |\n"
		"12:00:01 | INFO | rank0 | |===========================================================================|\n",
		0), 1);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.device') FROM event ORDER BY id DESC"
			       " LIMIT 1"), 3);
	assert_int_equal(stat_n(tl, 2, "num_alloc_retries"), 9);
	assert_int_equal(stat_n(tl, 2, "allocated_bytes.all.peak"), 4877 * MiB);
	/* a log with no table gives nothing */
	assert_int_equal(t_parse_mem(tl, "torch_memory_summary", "log",
		"INFO | step 5 | loss 1.2 |\n|---|---|\n", 0), 0);
	t_close(tl);
}

/* ---- torch.cuda.memory_stats() ---- */

static void stats_real_dumps(void **state)
{
	struct timeline *tl;
	(void)state;

	tl = read_real("torch-stats-1.6-rocm-pprint-ordereddict-all-zero-partial.txt");
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "torch_memory_stats");
	assert_string_equal(ev_text(tl, "torch_memory_stats", "form"), "pprint_ordereddict");
	assert_int_equal(stat(tl, "active.all.allocated"), 0);
	assert_int_equal(stat(tl, "active.all.current"), 0);
	assert_int_equal(stat(tl, "active.all.peak"), 0);
	assert_int_equal(stat(tl, "active_bytes.all.current"), 0);
	assert_int_equal(stat(tl, "active_bytes.all.peak"), 0);
	assert_int_equal(ev_int(tl, "torch_memory_stats", "partial"), 1);  /* no closer */
	t_close(tl);

	/* one 1000-column piece of a long line, cut at both ends */
	tl = read_real("torch-stats-1.8-ordereddict-wrapped-1000-cols-fragment.txt");
	assert_string_equal(ev_text(tl, "torch_memory_stats", "form"), "ordereddict_repr");
	assert_int_equal(stat(tl, "allocated_bytes.all.current"), 42817536);
	assert_int_equal(stat(tl, "allocated_bytes.all.peak"), 14244352000LL);
	assert_int_equal(stat(tl, "allocated_bytes.all.freed"), 154406559744LL);
	assert_int_equal(stat(tl, "allocation.all.current"), 320);
	assert_int_equal(stat(tl, "allocation.all.peak"), 753);
	assert_int_equal(stat(tl, "allocation.small_pool.peak"), 689);
	assert_true(sample1(tl, "torch.allocated_bytes", "cuda") == 42817536.0);
	t_close(tl);

	tl = read_real("torch-stats-1.8-ordereddict-tail-retries31-ooms1-wrapped.txt");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 1);
	assert_int_equal(stat(tl, "num_alloc_retries"), 31);
	assert_int_equal(stat(tl, "num_ooms"), 1);
	assert_int_equal(stat(tl, "reserved_bytes.all.current"), 50331648);
	assert_int_equal(stat(tl, "reserved_bytes.all.peak"), 15890120704LL);
	assert_int_equal(stat(tl, "segment.all.current"), 24);
	assert_int_equal(stat(tl, "segment.all.peak"), 58);
	assert_int_equal(stat(tl, "inactive_split_bytes.small_pool.peak"), 7574016);
	/* the 1000-column break fell after "('segment.small_pool.allocated'" */
	assert_int_equal(stat(tl, "segment.small_pool.allocated"), 39);
	/* the first token was the tail of a cut key: skipped, not misread */
	assert_int_equal(stat(tl, "inactive_split_bytes.small_pool.freed"), OL_NULL);
	t_close(tl);

	tl = read_real("torch-stats-1.8-ordereddict-tail-retries41-ooms7-later-dump.txt");
	assert_int_equal(stat(tl, "num_alloc_retries"), 41);
	assert_int_equal(stat(tl, "num_ooms"), 7);
	assert_int_equal(stat(tl, "reserved_bytes.all.current"), 50331648);
	assert_int_equal(stat(tl, "reserved_bytes.all.peak"), 15890120704LL);
	assert_int_equal(stat(tl, "reserved_bytes.all.allocated"), 261779095552LL);
	assert_int_equal(stat(tl, "segment.all.allocated"), 513);
	assert_int_equal(stat(tl, "inactive_split_bytes.small_pool.peak"), 7574016);
	/* the break fell inside the key: "('segment.small_po" + "ol.allocated', 51)" */
	assert_int_equal(stat(tl, "segment.small_pool.allocated"), 51);
	t_close(tl);
}

/* The before/after pair of one run: two dumps, in file order, no time. */
static void stats_pair_is_a_series(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, REAL "torch-stats-1.8-ordereddict-tail-retries31-ooms1-wrapped.txt"), 0);
	assert_int_equal(t_parse_file(tl, REAL "torch-stats-1.8-ordereddict-tail-retries41-ooms7-later-dump.txt"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample p JOIN series s ON s.id ="
			       " p.series_id WHERE s.name = 'torch.num_alloc_retries'"), 2);
	assert_string_equal(t_text(tl, "SELECT group_concat(v, ',') FROM (SELECT CAST(p.value AS"
				   " INTEGER) AS v FROM sample p JOIN series s ON s.id = p.series_id"
				   " WHERE s.name = 'torch.num_alloc_retries' ORDER BY p.rowid)"),
			    "31,41");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample WHERE time_ns IS NOT NULL"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE time_ns IS NOT NULL"), 0);
	t_close(tl);
}

static void stats_forms_and_times(void **state)
{
	struct timeline *tl = t_open();
	/* JSON, one dump per capture separator: times from the separators */
	static const char json[] =
		"### 2025-11-29T18:00:00Z src=torch\n"
		"{\"allocated_bytes.all.current\": 1048576, \"num_alloc_retries\": 0,\n"
		" \"inactive_split_bytes.all.current\": 100}\n"
		"### 2025-11-29T18:10:00Z src=torch\n"
		"{\"allocated_bytes.all.current\": 2097152, \"num_alloc_retries\": 3,\n"
		" \"inactive_split_bytes.all.current\": 900}\n";
	/* a plain dict and a Python 3.12 OrderedDict({...}) in a log, no times */
	static const char dicts[] =
		"step 1 stats: {'allocated_bytes.all.current': 10, 'reserved_bytes.all.current': 20}\n"
		"step 2 stats: OrderedDict({'allocated_bytes.all.current': 30, 'num_ooms': 1})\n"
		"[{'allocated_bytes.all.current': 50}, {'allocated_bytes.all.current': 60}]\n";
	(void)state;

	assert_int_equal(t_parse_mem(tl, "torch_memory_stats", "json", json, 0), 2);
	assert_string_equal(ev_text(tl, "torch_memory_stats", "form"), "json");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM sample p JOIN series s ON s.id ="
			       " p.series_id WHERE s.name = 'torch.num_alloc_retries' ORDER BY"
			       " time_ns DESC LIMIT 1"), utc_ns(2025, 11, 29, 18, 10, 0, 0));
	assert_int_equal(t_int(tl, "SELECT max(value) FROM sample p JOIN series s ON s.id ="
			       " p.series_id WHERE s.name = 'torch.inactive_split_bytes'"), 900);
	assert_int_equal(t_parse_mem(tl, "torch_memory_stats", "dicts", dicts, 0), 4);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE time_ns IS NULL"), 4);
	assert_string_equal(t_text(tl, "SELECT group_concat(v, ',') FROM (SELECT json_extract(data,"
				   " '$.allocated_bytes') AS v FROM event WHERE time_ns IS NULL ORDER BY id)"),
			    "10,30,50,60");
	assert_string_equal(t_text(tl, "SELECT group_concat(f, ',') FROM (SELECT json_extract(data,"
				   " '$.form') AS f FROM event WHERE time_ns IS NULL ORDER BY id)"),
			    "dict,dict,dict,dict");
	t_close(tl);
}

/* ---- the profiler's table and trace ---- */

/* The operator and bytes of a top_* figure of the table's event. */
static void top_is(struct timeline *tl, const char *fig, const char *op, int64_t bytes)
{
	char path[64];

	snprintf(path, sizeof(path), "%s.operator", fig);
	assert_string_equal(ev_text(tl, "torch_profiler_table", path), op);
	snprintf(path, sizeof(path), "%s.bytes", fig);
	assert_int_equal(ev_int(tl, "torch_profiler_table", path), bytes);
}

static int64_t mem_of(double printed, int64_t unit)
{
	return llround(printed * (double)unit);
}

static void profiler_real_tables(void **state)
{
	struct timeline *tl;
	(void)state;

	tl = read_real("profiler-1.6-dev-table-memory-columns-pr-example-partial.txt");
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "torch_profiler_table");
	assert_int_equal(ev_int(tl, "torch_profiler_table", "rows"), 2);
	assert_string_equal(ev_text(tl, "torch_profiler_table", "units"), "[\"b\"]");
	top_is(tl, "top_cpu_mem", "test_user_scope_alloc", 800);
	top_is(tl, "top_self_cpu_mem", "test_user_scope_alloc", 0);
	top_is(tl, "top_device_mem", "test_user_scope_alloc", 0);
	top_is(tl, "top_self_device_mem", "test_user_scope_alloc", 0);
	t_close(tl);

	tl = read_real("profiler-1.7-table-cpu-cuda-mem-torchprof-partial.txt");
	assert_int_equal(ev_int(tl, "torch_profiler_table", "rows"), 1);
	assert_string_equal(ev_text(tl, "torch_profiler_table", "units"), "[\"b\",\"Kb\"]");
	top_is(tl, "top_device_mem", "aten::conv2d", 256 * KiB);
	top_is(tl, "top_self_device_mem", "aten::conv2d", 0);
	top_is(tl, "top_cpu_mem", "aten::conv2d", 0);
	assert_int_equal(t_int(tl, "SELECT bytes FROM holder WHERE space = 'device' AND scope ="
			       " 'inclusive'"), 256 * KiB);
	t_close(tl);

	/* rows without the header above them */
	tl = read_real("profiler-1.x-2.x-table-rows-only-mb-torchinfo-partial.txt");
	assert_int_equal(ev_int(tl, "torch_profiler_table", "rows"), 5);
	assert_string_equal(ev_text(tl, "torch_profiler_table", "units"), "[\"b\",\"Mb\"]");
	top_is(tl, "top_device_mem", "aten::empty_like", mem_of(10.58, MiB));
	top_is(tl, "top_self_device_mem", "aten::resize_", mem_of(1.77, MiB));
	top_is(tl, "top_cpu_mem", "cudaStreamGetPriority", 0);
	assert_string_equal(t_text(tl, "SELECT label FROM holder WHERE scope = 'self' AND space ="
				   " 'device'"), "aten::resize_");
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.calls') FROM holder WHERE scope ="
			       " 'self'"), 19);
	t_close(tl);

	/* vLLM's process tag on every line, 2.8 units, a negative [memory] row */
	tl = read_real("profiler-2.8-table-vllm-enginecore-prefix-cpu-mem-negative-partial.txt");
	assert_int_equal(ev_int(tl, "torch_profiler_table", "rows"), 6);
	assert_string_equal(ev_text(tl, "torch_profiler_table", "units"), "[\"B\",\"KB\",\"MB\"]");
	top_is(tl, "top_cpu_mem", "aten::to", mem_of(296.76, MiB));
	top_is(tl, "top_self_cpu_mem", "aten::_to_copy", mem_of(2.32, MiB));
	top_is(tl, "min_self_cpu_mem", "[memory]", mem_of(-631.96, MiB));
	assert_string_equal(ev_text(tl, "torch_profiler_table", "wrapper"), "(EngineCore_DP0 pid=4220)");
	assert_int_equal(t_int(tl, "SELECT bytes FROM holder WHERE label = 'aten::sub' AND scope = 'self'"),
			 552);
	t_close(tl);

	tl = read_real("profiler-2.x-rocm-table-cuda-mem-gb-stripped-partial.txt");
	assert_int_equal(ev_int(tl, "torch_profiler_table", "rows"), 3);
	assert_string_equal(ev_text(tl, "torch_profiler_table", "units"), "[\"B\",\"GB\"]");
	top_is(tl, "top_device_mem", "aten::conv2d", 5 * GiB);
	top_is(tl, "top_self_device_mem", "aten::conv2d", 0);
	top_is(tl, "top_cpu_mem", "aten::conv2d", 0);
	top_is(tl, "top_self_cpu_mem", "aten::conv2d", 0);
	t_close(tl);

	tl = read_real("profiler-2.x-table-ray-actor-prefix-gb-slime-partial.txt");
	assert_int_equal(ev_int(tl, "torch_profiler_table", "rows"), 1);
	assert_string_equal(ev_text(tl, "torch_profiler_table", "units"), "[\"Kb\",\"Gb\"]");
	top_is(tl, "top_self_device_mem", "aten::empty", mem_of(11.93, GiB));
	top_is(tl, "top_device_mem", "aten::empty", mem_of(11.95, GiB));
	top_is(tl, "top_cpu_mem", "aten::empty", mem_of(896.72, KiB));
	top_is(tl, "top_self_cpu_mem", "aten::empty", mem_of(896.72, KiB));
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.calls') FROM holder LIMIT 1"), 853);
	assert_string_equal(ev_text(tl, "torch_profiler_table", "wrapper"),
			    "(MegatronTrainRayActor pid=649586)");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM holder"), 4);
	t_close(tl);
}

static void profiler_edges(void **state)
{
	struct timeline *tl = t_open();
	static const char table[] =
		"-------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
		"               Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg       CPU Mem  Self CPU Mem    # of Calls  \n"
		"-------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
		"        aten::empty        50.00%       1.000ms        50.00%       1.000ms      10.000us       1.00 Gb       1.00 Gb           100  \n"
		"      aten::resize_        50.00%       1.000ms        50.00%       1.000ms      10.000us     -12.50 Mb      -512 b           100  \n"
		"          aten::cut        50.00%       1.000ms        50.00%       1.00\n"
		"-------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
		"Self CPU time total: 2.000ms\n"
		"\n"
		"not a row: 12.5%, 3.000us and 4 b\n";
	(void)state;

	assert_int_equal(t_parse_mem(tl, "torch_profiler_table", "t", table, 0), 1 + 4);
	assert_int_equal(ev_int(tl, "torch_profiler_table", "rows"), 2);
	assert_true(fabs(ev_real(tl, "torch_profiler_table", "self_cpu_time_total_s") - 0.002) < 1e-9);
	assert_int_equal(t_int(tl, "SELECT bytes FROM holder WHERE label = 'aten::resize_' AND scope"
			       " = 'self'"), -512);
	assert_int_equal(t_int(tl, "SELECT bytes FROM holder WHERE label = 'aten::resize_' AND scope"
			       " = 'inclusive'"), -mem_of(12.5, MiB));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM holder WHERE space = 'device'"), 0);
	t_close(tl);
}

static void trace_memory_events(void **state)
{
	struct timeline *tl;
	/* baseTimeNanoseconds at the end (older Kineto): the events wait for it */
	static const char trace[] =
		"{\"schemaVersion\": 1, \"traceEvents\": [\n"
		"{\"ph\": \"X\", \"name\": \"aten::empty\", \"ts\": 10, \"dur\": 5, \"args\": {\"a\": 1}},\n"
		"{\"ph\": \"i\", \"name\": \"[memory]\", \"ts\": 1000.5, \"args\": {\"Total Reserved\": 4096,"
		" \"Total Allocated\": 2048, \"Bytes\": 2048, \"Addr\": 1, \"Device Id\": 1, \"Device Type\": 1}},\n"
		"{\"ph\": \"i\", \"name\": \"[memory]\", \"ts\": 1002, \"args\": {\"Total Allocated\": 64,"
		" \"Bytes\": 64, \"Device Id\": -1, \"Device Type\": 0}},\n"
		"{\"ph\": \"i\", \"name\": \"[OutOfMemory]\", \"ts\": 1003, \"args\": {\"Total Reserved\": 4096,"
		" \"Total Allocated\": 2048, \"Bytes\": 999999, \"Device Id\": 1, \"Device Type\": 1}}\n"
		"], \"baseTimeNanoseconds\": 1700000000000000000}\n";
	(void)state;

	tl = read_real("profiler-trace-2.x-memory-instant-event-hta-pr.txt");
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "torch_profiler_trace");
	assert_int_equal(ev_int(tl, "torch_profiler_trace", "memory_events"), 1);
	assert_int_equal(ev_int(tl, "torch_profiler_trace", "largest_alloc_bytes"), 8405385216LL);
	assert_int_equal(ev_int(tl, "torch_profiler_trace", "peak_allocated_bytes"), 61060382720LL);
	assert_int_equal(ev_int(tl, "torch_profiler_trace", "peak_reserved_bytes"), 82514542592LL);
	assert_int_equal(ev_int(tl, "torch_profiler_trace", "largest_alloc_device"), 0);
	assert_int_equal(ev_int(tl, "torch_profiler_trace", "largest_alloc_addr"), 128803317743616LL);
	assert_true(sample1(tl, "torch.allocated_bytes", "cuda:0") == 61060382720.0);
	assert_true(sample1(tl, "torch.reserved_bytes", "cuda:0") == 82514542592.0);
	/* Kineto's own clock, no base in the excerpt: no time */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample WHERE time_ns IS NULL"), 2);
	t_close(tl);

	tl = t_open();
	assert_int_equal(t_parse_mem(tl, "torch_profiler_trace", "t", trace, 0), 3);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM sample p JOIN series s ON s.id = p.series_id"
			       " WHERE s.name = 'torch.allocated_bytes' AND s.entity = 'cuda:1'"),
			 1700000000000000000LL + 1000500);
	assert_true(sample1(tl, "torch.cpu_allocated_bytes", "cpu") == 64.0);
	assert_int_equal(t_int(tl, "SELECT bytes FROM event WHERE kind = 'torch_oom'"), 999999);
	assert_int_equal(ev_int(tl, "torch_oom", "device"), 1);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind = 'torch_oom'"),
			 OL_NULL);  /* before the base was known */
	t_close(tl);
}

/* Any bytes: no crash, nothing invented (the formats' own tests are above). */
static void garbage(void **state)
{
	static const char *const kinds[] = {
		"torch_memory_summary", "torch_memory_stats", "torch_profiler_table",
		"torch_profiler_trace", "memray_stats", "memray_stats_json", "prometheus_text",
		"prometheus_query", "grafana_csv", "nsys_stats", NULL
	};
	static const char *const inputs[] = {
		"", "\n\n\n", "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((",
		"}}}]]])))'\"\\", "{'a': [1, 2, {'b': (3, 4)}], 'c': '\\u12'}",
		"| x | y | z | w | v |\n|===|\n", "# HELP\n# TYPE x\nx{a=\"\n",
		"Series;Time;Value\n;;\n", "Time;\n1;2;3\n", "\xff\xfe\x00\x01 \xc3\x28 \xe2\x82",
		NULL
	};
	struct timeline *tl = t_open();
	char big[5000];
	int k, i;
	(void)state;

	memset(big, '[', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	for (k = 0; kinds[k]; k++) {
		for (i = 0; inputs[i]; i++)
			assert_true(t_parse_mem(tl, kinds[k], "g", inputs[i], strlen(inputs[i]) + 1) >= 0);
		assert_true(t_parse_mem(tl, kinds[k], "big", big, 0) >= 0);
	}
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM holder"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summary_real_tables),
		cmocka_unit_test(summary_layouts),
		cmocka_unit_test(summary_edges),
		cmocka_unit_test(stats_real_dumps),
		cmocka_unit_test(stats_pair_is_a_series),
		cmocka_unit_test(stats_forms_and_times),
		cmocka_unit_test(profiler_real_tables),
		cmocka_unit_test(profiler_edges),
		cmocka_unit_test(trace_memory_events),
		cmocka_unit_test(garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
