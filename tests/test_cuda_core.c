/*
 * test_cuda_core.c -- CUDA GPU core dumps: every value read back from cores
 * written by tests/cuda_core_writer.c in two layout generations (r346 and
 * r615 row sizes), gzip-compressed and sparse ones, extended section
 * numbering, the JSON section and sniffing. The malformed variants are in
 * test_cuda_core_malformed.c.
 */
#include "testutil.h"
#include "analyzer/ingest/ingest.h"
#include "parsers/cores/cuda_core.h"
#include "reports/report.h"
#include "cuda_core_writer.c"
#include "cuda_core_cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Ingest a file of the build dir with detection. */
static void ingest_file(struct timeline *tl, const char *path)
{
	struct ingest_cfg cfg = { .quiet = 1 };
	struct ingest_stats st;
	char *p = strdup(path);

	ingest_paths(tl, &p, 1, &cfg, &st);
	free(p);
}

/* The values every well-formed fixture shares, whatever its generation. */
static void assert_common(struct timeline *tl)
{
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_device"), 1);
	assert_string_equal(t_text(tl, "SELECT name FROM gpu_device"), "NVIDIA H100 80GB HBM3");
	assert_string_equal(t_text(tl, "SELECT type FROM gpu_device"), "GH100");
	assert_string_equal(t_text(tl, "SELECT sm_type FROM gpu_device"), "sm_90");
	assert_int_equal(t_int(tl, "SELECT device FROM gpu_device"), 0);
	assert_int_equal(t_int(tl, "SELECT dev_id FROM gpu_device"), 0);
	assert_int_equal(t_int(tl, "SELECT pci_bus_id FROM gpu_device"), 0x1b);
	assert_int_equal(t_int(tl, "SELECT pci_dev_id FROM gpu_device"), 0);
	assert_int_equal(t_int(tl, "SELECT num_sms FROM gpu_device"), 132);
	assert_int_equal(t_int(tl, "SELECT warps_per_sm FROM gpu_device"), 64);
	assert_int_equal(t_int(tl, "SELECT lanes_per_warp FROM gpu_device"), 32);
	assert_int_equal(t_int(tl, "SELECT regs_per_lane FROM gpu_device"), 255);
	assert_int_equal(t_int(tl, "SELECT preds_per_lane FROM gpu_device"), 7);
	assert_int_equal(t_int(tl, "SELECT sm_major FROM gpu_device"), 9);
	assert_int_equal(t_int(tl, "SELECT sm_minor FROM gpu_device"), 0);
	assert_int_equal(t_int(tl, "SELECT instruction_size FROM gpu_device"), 16);
	assert_int_equal(t_int(tl, "SELECT status FROM gpu_device"), 0);
	assert_int_equal(t_int(tl, "SELECT contexts FROM gpu_device"), 1);
	/* context */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_context"), 1);
	assert_int_equal(t_int(tl, "SELECT context_id FROM gpu_context"), (int64_t)CCW_CTX_ID(0));
	assert_int_equal(t_int(tl, "SELECT tid FROM gpu_context"), CCW_TID(0));
	assert_int_equal(t_int(tl, "SELECT device FROM gpu_context"), 0);
	assert_int_equal(t_int(tl, "SELECT device_idx FROM gpu_context"), 0);
	assert_int_equal(t_int(tl, "SELECT shared_window FROM gpu_context"), 0x7ffe00000000ll);
	assert_int_equal(t_int(tl, "SELECT local_window FROM gpu_context"), 0x7ffd00000000ll);
	assert_int_equal(t_int(tl, "SELECT global_window FROM gpu_context"), 0);
	assert_int_equal(t_int(tl, "SELECT modules FROM gpu_context"), 1);
	/* module with its cubin's functions */
	assert_int_equal(t_int(tl, "SELECT module_handle FROM gpu_module"),
			 (int64_t)CCW_MOD_HANDLE(0));
	assert_int_equal(t_int(tl, "SELECT context_id FROM gpu_module"), (int64_t)CCW_CTX_ID(0));
	assert_true(t_int(tl, "SELECT size FROM gpu_module") > 64);
	assert_int_equal(t_int(tl, "SELECT elf_size FROM gpu_module"),
			 t_int(tl, "SELECT size FROM gpu_module"));
	assert_int_equal(t_int(tl, "SELECT kernels FROM gpu_module"), 1);
	assert_string_equal(t_text(tl, "SELECT functions FROM gpu_module"),
			    "[\"" CCW_KERNEL "\",\"" CCW_HELPER "\"]");
	/* grid */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_grid"), 1);
	assert_string_equal(t_text(tl, "SELECT function FROM gpu_grid"), CCW_KERNEL);
	assert_int_equal(t_int(tl, "SELECT grid_id FROM gpu_grid"), 7);
	assert_int_equal(t_int(tl, "SELECT context_id FROM gpu_grid"), (int64_t)CCW_CTX_ID(0));
	assert_int_equal(t_int(tl, "SELECT module_handle FROM gpu_grid"), (int64_t)CCW_MOD_HANDLE(0));
	assert_int_equal(t_int(tl, "SELECT function_entry FROM gpu_grid"), (int64_t)CCW_CODE_BASE);
	assert_int_equal(t_int(tl, "SELECT grid_x * 10000 + grid_y * 100 + grid_z FROM gpu_grid"),
			 10240101);
	assert_int_equal(t_int(tl, "SELECT block_x * 10000 + block_y * 100 + block_z FROM gpu_grid"),
			 2560101);
	assert_string_equal(t_text(tl, "SELECT status FROM gpu_grid"), "active");
	assert_int_equal(t_int(tl, "SELECT status_code FROM gpu_grid"), 2);
	assert_int_equal(t_int(tl, "SELECT kernel_type FROM gpu_grid"), 2);
	assert_int_equal(t_int(tl, "SELECT origin FROM gpu_grid"), 0);
	assert_int_equal(t_int(tl, "SELECT num_regs FROM gpu_grid"), 32);
	assert_int_equal(t_int(tl, "SELECT host_tid FROM gpu_grid"), CCW_TID(0));
	assert_string_equal(t_text(tl, "SELECT exception FROM gpu_grid"), "Warp Illegal Address");
	/* the exception event */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'cuda_exception'"), 1);
	assert_string_equal(t_text(tl, "SELECT data ->> 'exception' FROM event"),
			    "Warp Illegal Address");
	assert_int_equal(t_int(tl, "SELECT data ->> 'code' FROM event"), 14);
	assert_string_equal(t_text(tl, "SELECT data ->> 'source' FROM event"), "lane");
	assert_int_equal(t_int(tl, "SELECT data ->> 'sm' FROM event"), 3);
	assert_int_equal(t_int(tl, "SELECT data ->> 'warp' FROM event"), 2);
	assert_int_equal(t_int(tl, "SELECT data ->> 'lane' FROM event"), 0);
	assert_int_equal(t_int(tl, "SELECT data ->> 'lanes' FROM event"), 2);
	assert_string_equal(t_text(tl, "SELECT data ->> 'block' FROM event"), "[5,0,0]");
	assert_string_equal(t_text(tl, "SELECT data ->> 'thread' FROM event"), "[0,0,0]");
	assert_int_equal(t_int(tl, "SELECT data ->> 'error_pc' FROM event"),
			 (int64_t)CCW_CODE_BASE + 0x80);
	assert_int_equal(t_int(tl, "SELECT data ->> 'pc' FROM event"), (int64_t)CCW_CODE_BASE + 0x80);
	assert_string_equal(t_text(tl, "SELECT data ->> 'function' FROM event"), CCW_KERNEL);
	assert_int_equal(t_int(tl, "SELECT data ->> 'grid_id' FROM event"), 7);
	assert_int_equal(t_int(tl, "SELECT data ->> 'context_id' FROM event"),
			 (int64_t)CCW_CTX_ID(0));
	assert_string_equal(t_text(tl, "SELECT data ->> 'device_name' FROM event"),
			    "NVIDIA H100 80GB HBM3");
	assert_string_equal(t_text(tl, "SELECT summary FROM event"),
			    "Warp Illegal Address on device 0 (NVIDIA H100 80GB HBM3) in "
			    CCW_KERNEL " (SM 3, 2 lanes)");
	/* regions: 2 global, 1 local, 1 shared, 1 param */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_region WHERE kind = 'global'"), 2);
	assert_int_equal(t_int(tl, "SELECT sum(size) FROM gpu_region WHERE kind = 'global'"), 8192);
	assert_int_equal(t_int(tl, "SELECT min(address) FROM gpu_region WHERE kind = 'global'"),
			 (int64_t)CCW_REGION_ADDR(0, 4096));
	assert_int_equal(t_int(tl, "SELECT device FROM gpu_region WHERE kind = 'global'"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT size FROM gpu_region WHERE kind = 'local'"), 64);
	assert_int_equal(t_int(tl, "SELECT address FROM gpu_region WHERE kind = 'local'"), 0xfffc00);
	assert_int_equal(t_int(tl, "SELECT device FROM gpu_region WHERE kind = 'local'"), 0);
	assert_int_equal(t_int(tl, "SELECT size FROM gpu_region WHERE kind = 'shared'"), 256);
	assert_int_equal(t_int(tl, "SELECT size FROM gpu_region WHERE kind = 'param'"), 16);
	assert_int_equal(t_int(tl, "SELECT address FROM gpu_region WHERE kind = 'param'"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT min(complete) FROM gpu_region"), 1);
}

static void current_layout(void **state)
{
	struct timeline *tl = t_open();
	struct ccw w;
	struct ccw_ids ids;
	(void)state;
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &base_opts, &ids), 0);
	assert_true(parse_model(tl, &w, "core.nvcudmp") > 0);
	assert_common(tl);
	/* r400+/r575+ fields present */
	assert_int_equal(t_int(tl, "SELECT uregs_per_warp FROM gpu_device"), 63);
	assert_int_equal(t_int(tl, "SELECT upreds_per_warp FROM gpu_device"), 8);
	assert_int_equal(t_int(tl, "SELECT barriers_per_warp FROM gpu_device"), 16);
	assert_int_equal(t_int(tl, "SELECT cluster_x FROM gpu_grid"), 1);
	/* metadata */
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key = 'cuda.generator'"),
			    "CUDA Driver coredump");
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key = 'cuda.driver_version'"),
			    "575.51");
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key = 'cuda.version'"), "12.9");
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key = 'cuda.coredump_flags'"),
			    "0x0");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event"), (int64_t)CCW_TIMESTAMP * 1000000000);
	assert_string_equal(t_text(tl, "SELECT clock FROM event"), "utc");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic"), 0);
	assert_string_equal(t_text(tl, "SELECT status FROM artifact"), "ok");
	ccw_free(&w);
	t_close(tl);
}

static void baseline_layout(void **state)
{
	struct timeline *tl = t_open();
	struct ccw w;
	struct ccw_ids ids;
	struct ccw_opts o = base_opts;
	(void)state;
	o.gen = 0;
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &o, &ids), 0);
	assert_true(parse_model(tl, &w, "old.nvcudmp") > 0);
	assert_common(tl);
	/* fields the r346 rows do not have are NULL, not 0 */
	assert_int_equal(t_int(tl, "SELECT uregs_per_warp FROM gpu_device"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT barriers_per_warp FROM gpu_device"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT cluster_x FROM gpu_grid"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta"), 0);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic"), 0);
	ccw_free(&w);
	t_close(tl);
}

/* Rows wider than anything known (a future driver): known fields read,
 * the extra bytes skipped. */
static void wider_rows(void **state)
{
	struct timeline *tl = t_open();
	struct ccw w;
	struct ccw_ids ids;
	unsigned char wide[2 * 128];
	(void)state;
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &base_opts, &ids), 0);
	memset(wide, 0xee, sizeof(wide));
	memcpy(wide, w.s[ids.lntbl].data, 64);
	memcpy(wide + 128, w.s[ids.lntbl].data + 64, 64);
	free(w.s[ids.lntbl].data);
	w.s[ids.lntbl].data = malloc(sizeof(wide));
	memcpy(w.s[ids.lntbl].data, wide, sizeof(wide));
	w.s[ids.lntbl].size = sizeof(wide);
	w.s[ids.lntbl].entsize = 128;
	assert_true(parse_model(tl, &w, "wide.nvcudmp") > 0);
	assert_common(tl);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic"), 0);
	ccw_free(&w);
	t_close(tl);
}

static void contexts_and_devices(void **state)
{
	struct timeline *tl = t_open();
	struct ccw w;
	struct ccw_ids ids;
	struct ccw_opts o = base_opts;
	(void)state;
	o.nctx = 40;
	o.ndev = 2;
	o.exception = 0;
	o.nregions = 0;
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &o, &ids), 0);
	assert_true(parse_model(tl, &w, "ctx.nvcudmp") > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_device"), 2);
	assert_string_equal(t_text(tl, "SELECT name FROM gpu_device WHERE device = 1"),
			    "NVIDIA A100-SXM4-80GB");
	assert_string_equal(t_text(tl, "SELECT sm_type FROM gpu_device WHERE device = 1"), "sm_80");
	assert_int_equal(t_int(tl, "SELECT num_sms FROM gpu_device WHERE device = 1"), 108);
	assert_int_equal(t_int(tl, "SELECT contexts FROM gpu_device WHERE device = 0"), 40);
	assert_int_equal(t_int(tl, "SELECT contexts FROM gpu_device WHERE device = 1"), 0);
	assert_int_equal(t_int(tl, "SELECT count(DISTINCT tid) FROM gpu_context"), 40);
	assert_int_equal(t_int(tl, "SELECT max(tid) FROM gpu_context"), CCW_TID(39));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_module WHERE functions LIKE '%%"
			       CCW_KERNEL "%%'"), 40);
	assert_int_equal(t_int(tl, "SELECT context_id FROM gpu_module WHERE module_handle = %lld",
			       (long long)CCW_MOD_HANDLE(39)), (int64_t)CCW_CTX_ID(39));
	/* no exception: no event, grid exception NULL */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 0);
	assert_int_equal(t_int(tl, "SELECT exception FROM gpu_grid"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_region WHERE kind = 'global'"), 0);
	ccw_free(&w);
	t_close(tl);
}

/* gzip (detected by content) and a sparse plain file, both from disk. */
static void gzip_and_sparse_files(void **state)
{
	struct timeline *tl = t_open();
	struct ccw w;
	struct ccw_ids ids;
	struct ccw_opts o = base_opts;
	const char *gz = BINDIR "/test_cuda_core.nvcudmp.gz";
	const char *sp = BINDIR "/test_cuda_core_sparse.nvcudmp";
	(void)state;
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &base_opts, &ids), 0);
	assert_int_equal(ccw_write_file(&w, gz, 1), 0);
	ccw_free(&w);
	ingest_file(tl, gz);
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "cuda_core");
	assert_int_equal(t_int(tl, "SELECT compressed FROM artifact"), 1);
	assert_common(tl);
	t_close(tl);
	unlink(gz);

	tl = t_open();
	o.nregions = 3;
	o.region_size = 64ull << 20;
	o.sparse = 1;
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &o, &ids), 0);
	assert_int_equal(ccw_write_file(&w, sp, 0), 0);
	ccw_free(&w);
	ingest_file(tl, sp);
	assert_string_equal(t_text(tl, "SELECT status FROM artifact"), "ok");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_region WHERE kind = 'global'"), 3);
	assert_int_equal(t_int(tl, "SELECT sum(size) FROM gpu_region WHERE kind = 'global'"),
			 3 * (64ll << 20));
	assert_int_equal(t_int(tl, "SELECT min(complete) FROM gpu_region"), 1);
	assert_string_equal(t_text(tl, "SELECT function FROM gpu_grid"), CCW_KERNEL);
	t_close(tl);
	unlink(sp);
}

/* Two gzip members (as a concatenation of .gz files), then a size cap. */
static void gzip_members_and_limit(void **state)
{
	struct timeline *tl = t_open();
	struct ccw w;
	struct ccw_ids ids;
	const char *gz = BINDIR "/test_cuda_core_2m.nvcudmp.gz";
	unsigned char *b;
	size_t n;
	uint64_t total, saved = cuda_core_gz_limit;
	gzFile f;
	(void)state;
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &base_opts, &ids), 0);
	assert_int_equal(ccw_serialise(&w, &b, &n, &total), 0);
	ccw_free(&w);
	f = gzopen(gz, "wb");
	assert_non_null(f);
	assert_int_equal(gzwrite(f, b, (unsigned)(n / 2)), (int)(n / 2));
	gzclose(f);
	f = gzopen(gz, "ab");
	assert_non_null(f);
	assert_int_equal(gzwrite(f, b + n / 2, (unsigned)(n - n / 2)), (int)(n - n / 2));
	gzclose(f);
	free(b);
	ingest_file(tl, gz);
	assert_common(tl);
	t_close(tl);

	tl = t_open();
	cuda_core_gz_limit = 1000;
	ingest_file(tl, gz);
	cuda_core_gz_limit = saved;
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'the gzip core inflates to more than the 1000-byte limit%%'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'section header table at offset %%'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_device"), 0);
	t_close(tl);
	unlink(gz);
}

/* Issue 32: a 2 MB .gz wrote 2 GiB into $TMPDIR, the zeros after the core
 * inflated whole and never mentioned. Only what the core's headers reach
 * is inflated; the rest is said to be trailing data. */
static void gzip_trailing_data(void **state)
{
	struct timeline *tl = t_open();
	struct ccw w;
	struct ccw_ids ids;
	const char *gz = BINDIR "/test_cuda_core_trail.nvcudmp.gz";
	unsigned char *b, *zeros;
	size_t n, i;
	uint64_t total, saved = cuda_core_gz_limit;
	gzFile f;
	(void)state;
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &base_opts, &ids), 0);
	assert_int_equal(ccw_serialise(&w, &b, &n, &total), 0);
	ccw_free(&w);
	zeros = calloc(1, 1 << 20);
	assert_non_null(zeros);
	f = gzopen(gz, "wb");
	assert_non_null(f);
	assert_int_equal(gzwrite(f, b, (unsigned)n), (int)n);
	for (i = 0; i < 64; i++)   /* 64 MiB of zeros after the core */
		assert_int_equal(gzwrite(f, zeros, 1 << 20), 1 << 20);
	gzclose(f);
	free(zeros);
	free(b);
	/* the cap sits inside the trailing zeros: reaching it would say so */
	cuda_core_gz_limit = n + (8u << 20);
	ingest_file(tl, gz);
	cuda_core_gz_limit = saved;
	assert_common(tl);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'the gzip stream goes on past byte %llu, where the core''s headers"
			       " reach%%'", (unsigned long long)n), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " '%%-byte limit%%'"), 0);
	t_close(tl);
	unlink(gz);
}

/* More than SHN_LORESERVE sections: e_shnum 0, e_shstrndx SHN_XINDEX. */
static void extended_numbering(void **state)
{
	struct timeline *tl = t_open();
	struct ccw w;
	struct ccw_ids ids;
	struct ccw_opts o = base_opts;
	(void)state;
	o.nregions = 70000;
	o.region_size = 64;
	o.sparse = 0;
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &o, &ids), 0);
	assert_true(parse_model(tl, &w, "many.nvcudmp") > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_region WHERE kind = 'global'"), 70000);
	assert_string_equal(t_text(tl, "SELECT name FROM gpu_device"), "NVIDIA H100 80GB HBM3");
	assert_string_equal(t_text(tl, "SELECT function FROM gpu_grid"), CCW_KERNEL);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic"), 0);
	ccw_free(&w);
	t_close(tl);
}

/* The gpu_cores section of --format json. */
static void json_section(void **state)
{
	struct timeline *tl = t_open();
	struct ccw w;
	struct ccw_ids ids;
	struct ccw_opts o = base_opts;
	json_t *j, *g, *none;
	(void)state;
	o.nctx = 3;
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &o, &ids), 0);
	assert_true(parse_model(tl, &w, "a.nvcudmp") > 0);
	ccw_free(&w);
	o.exception = 0;
	o.nregions = 0;
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &o, &ids), 0);
	assert_true(parse_model(tl, &w, "b.nvcudmp") > 0);
	ccw_free(&w);
	j = report_json(tl->db);
	assert_int_equal(json_array_size(json_object_get(j, "gpu_cores")), 2);
	assert_int_equal(json_array_size(json_object_get(j, "host_cores")), 0);
	g = json_array_get(json_object_get(j, "gpu_cores"), 0);
	assert_string_equal(json_string_value(json_object_get(g, "path")), "a.nvcudmp");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(g, "devices"), 0), "name")), "NVIDIA H100 80GB HBM3");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(g, "devices"), 0), "sm_type")), "sm_90");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(
		json_object_get(g, "devices"), 0), "num_sms")), 132);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(
		json_object_get(g, "contexts"), 0), "count")), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(g, "grids"), 0), "function")), CCW_KERNEL);
	assert_string_equal(json_string_value(json_object_get(json_object_get(g, "exception"),
							       "name")), "Warp Illegal Address");
	assert_int_equal(json_integer_value(json_object_get(g, "regions")), 5);
	assert_int_equal(json_integer_value(json_object_get(g, "region_bytes")), 8192 + 336);
	none = json_array_get(json_object_get(j, "gpu_cores"), 1);
	assert_true(json_is_null(json_object_get(none, "exception")));
	assert_int_equal(json_integer_value(json_object_get(none, "regions")), 3);
	json_decref(j);
	t_close(tl);
}

static void sniffing(void **state)
{
	unsigned char h[64];
	struct ccw w;
	struct ccw_ids ids;
	unsigned char *b;
	size_t n;
	uint64_t total;
	(void)state;
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &base_opts, &ids), 0);
	assert_int_equal(ccw_serialise(&w, &b, &n, &total), 0);
	assert_int_equal(cuda_core_sniff(b, n), 100);
	memcpy(h, b, 64);
	h[16] = ET_EXEC;   /* a cubin, not a core */
	assert_int_equal(cuda_core_sniff(h, 64), 0);
	memcpy(h, b, 64);
	h[18] = 62;        /* a host core */
	assert_int_equal(cuda_core_sniff(h, 64), 0);
	assert_int_equal(cuda_core_sniff((const unsigned char *)"\177ELF", 4), 0);
	free(b);
	ccw_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(current_layout),
		cmocka_unit_test(baseline_layout),
		cmocka_unit_test(wider_rows),
		cmocka_unit_test(contexts_and_devices),
		cmocka_unit_test(gzip_and_sparse_files),
		cmocka_unit_test(gzip_members_and_limit),
		cmocka_unit_test(gzip_trailing_data),
		cmocka_unit_test(extended_numbering),
		cmocka_unit_test(json_section),
		cmocka_unit_test(sniffing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
