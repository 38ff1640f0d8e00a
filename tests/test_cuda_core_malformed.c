/*
 * test_cuda_core_malformed.c -- CUDA GPU core dumps that are broken
 * (written by tests/cuda_core_writer.c, then damaged): partial rows,
 * sections past the end, bad string offsets, wrong links, zero entsize,
 * overlaps, truncation, a broken cubin. Each must give its diagnostic and
 * keep the rest. Well-formed cores are in test_cuda_core.c.
 */
#include "testutil.h"
#include "parsers/cores/cuda_core.h"
#include "cuda_core_writer.c"
#include "cuda_core_cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Print the diagnostics (debugging aid when an assertion fails). */
static void dump_diags(struct timeline *tl)
{
	sqlite3_stmt *st;

	if (!getenv("CCW_DEBUG") ||
	    sqlite3_prepare_v2(tl->db, "SELECT offset, severity, message FROM diagnostic",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW)
		fprintf(stderr, "diag @%lld %s: %s\n", (long long)sqlite3_column_int64(st, 0),
			sqlite3_column_text(st, 1), sqlite3_column_text(st, 2));
	sqlite3_finalize(st);
}

/* ---- malformed cores ---- */

static void partial_rows_and_bad_string(void **state)
{
	struct timeline *tl = t_open();
	struct ccw w;
	struct ccw_ids ids;
	unsigned char *p;
	(void)state;
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &base_opts, &ids), 0);
	/* context table: 40-byte row + 7 stray bytes */
	p = realloc(w.s[ids.ctxtbl].data, 47);
	memset(p + 40, 0x99, 7);
	w.s[ids.ctxtbl].data = p;
	w.s[ids.ctxtbl].size = 47;
	/* a second context row repeating the first one's id */
	p = realloc(p, 87);
	memmove(p + 40, p, 40);
	memset(p + 80, 0x99, 7);
	w.s[ids.ctxtbl].data = p;
	w.s[ids.ctxtbl].size = 87;
	/* device name: string offset far out of .strtab */
	memset(w.s[ids.devtbl].data, 0, 8);
	w.s[ids.devtbl].data[1] = 0x40;   /* 16384 */
	assert_true(parse_model(tl, &w, "bad.nvcudmp") > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'warning'"
			       " AND message LIKE '%%not a whole number of 40-byte rows; the last"
			       " 7 bytes%%'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'error'"
			       " AND message LIKE 'device name: string offset 16384 is out of"
			       " range of .strtab%%'"), 1);
	assert_true(t_int(tl, "SELECT offset FROM diagnostic WHERE message LIKE 'device name%%'") > 64);
	assert_int_equal(t_int(tl, "SELECT name FROM gpu_device"), OL_NULL);
	assert_string_equal(t_text(tl, "SELECT sm_type FROM gpu_device"), "sm_90");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message ="
			       " 'context 1 of device 0 repeats context id 0x55550000 of row 0'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_context"), 2);
	assert_int_equal(t_int(tl, "SELECT contexts FROM gpu_device"), 2);
	assert_string_equal(t_text(tl, "SELECT function FROM gpu_grid"), CCW_KERNEL);
	ccw_free(&w);
	t_close(tl);
}

static void offsets_past_end(void **state)
{
	struct timeline *tl = t_open();
	struct ccw w;
	struct ccw_ids ids;
	(void)state;
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &base_opts, &ids), 0);
	w.s[ids.global0].off_override = 1 << 20;      /* 1 MiB past a ~5 KiB file */
	w.s[ids.gridtbl].off_override = 1ll << 40;    /* grid table gone */
	assert_true(parse_model(tl, &w, "past.nvcudmp") > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'section %u (global memory) at offset 1048576, 4096 bytes, extends"
			       " past the end of the file%%contents missing'", ids.global0), 1);
	assert_int_equal(t_int(tl, "SELECT offset FROM diagnostic WHERE message LIKE"
			       " 'section %u (global%%'", ids.global0),
			 t_int(tl, "SELECT offset FROM diagnostic WHERE message LIKE"
			       " 'section %u (grid%%'", ids.gridtbl) + 64ll * (ids.global0 - ids.gridtbl));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'section %u (grid table)%%skipped'", ids.gridtbl), 1);
	/* the region is still listed, marked incomplete; the rest is read */
	assert_int_equal(t_int(tl, "SELECT complete FROM gpu_region WHERE address = %lld",
			       (long long)CCW_REGION_ADDR(0, 4096)), 0);
	assert_int_equal(t_int(tl, "SELECT complete FROM gpu_region WHERE address = %lld",
			       (long long)CCW_REGION_ADDR(1, 4096)), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_grid"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_context"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 1);
	assert_int_equal(t_int(tl, "SELECT data ->> 'grid_id' FROM event"), 7);
	/* grid gone: the function still comes from the error PC */
	assert_string_equal(t_text(tl, "SELECT data ->> 'function' FROM event"), CCW_KERNEL);
	assert_int_equal(t_int(tl, "SELECT data ->> 'context_id' FROM event"), OL_NULL);
	ccw_free(&w);
	t_close(tl);
}

static void wrong_links_and_entsize(void **state)
{
	struct timeline *tl = t_open();
	struct ccw w;
	struct ccw_ids ids;
	(void)state;
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &base_opts, &ids), 0);
	w.s[ids.ctatbl].link = ids.devtbl;       /* CTA table hung off the device */
	w.s[ids.modtbl].info = 9;                /* context row 9 of 1 */
	w.s[ids.param].link = 60000;             /* no such section */
	w.s[ids.ctxtbl].entsize = 0;
	assert_true(parse_model(tl, &w, "links.nvcudmp") > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'section %u (CTA table): sh_link %u is a device table, expected a"
			       " SM table; skipped'", ids.ctatbl, ids.devtbl), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'section %u (param memory): sh_link 60000 is not a section%%'",
			       ids.param), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'section %u (context table): sh_entsize is 0; table skipped'",
			       ids.ctxtbl), 1);
	/* context table gone: no contexts, no modules, grid named by address */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_context"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_module"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_grid"), 1);
	assert_int_equal(t_int(tl, "SELECT function FROM gpu_grid"), OL_NULL);
	/* lanes lost with their CTA; the SM row still tells the exception */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 1);
	assert_string_equal(t_text(tl, "SELECT data ->> 'source' FROM event"), "sm");
	assert_int_equal(t_int(tl, "SELECT data ->> 'sm' FROM event"), 3);
	assert_int_equal(t_int(tl, "SELECT data ->> 'lane' FROM event"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT data ->> 'error_pc' FROM event"),
			 (int64_t)CCW_CODE_BASE + 0x80);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_region WHERE kind = 'param'"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_region WHERE kind = 'global'"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_region WHERE kind = 'shared'"), 0);
	ccw_free(&w);
	t_close(tl);
}

static void overlaps_and_counts(void **state)
{
	struct timeline *tl = t_open();
	struct ccw w;
	struct ccw_ids ids;
	struct ccw_opts o = base_opts;
	uint32_t extra;
	(void)state;
	o.nregions = 3;
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &o, &ids), 0);
	/* third block overlaps the first by address */
	w.s[ids.global0 + 2].addr = CCW_REGION_ADDR(0, 4096) + 100;
	/* a second device table and an unknown section type */
	extra = ccw_add(&w, SHT_LOUSER + 9, ".cudbg.devtbl", 0, 0, 88, w.s[ids.devtbl].data, 88);
	ccw_add(&w, SHT_LOUSER + 200, ".cudbg.future", 0, 0, 0, "xyz", 3);
	/* the lane table claims 33 lanes: more rows than a warp has */
	{
		unsigned char *p = calloc(33, 64);
		memcpy(p, w.s[ids.lntbl].data, 128);
		free(w.s[ids.lntbl].data);
		w.s[ids.lntbl].data = p;
		w.s[ids.lntbl].size = 33 * 64;
	}
	assert_true(parse_model(tl, &w, "overlap.nvcudmp") > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'section %u: memory range 0x%%overlaps an earlier one; not counted'",
			       ids.global0 + 2), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'section %u: a second device table; only section %u is used'",
			       extra, ids.devtbl), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " '%%lane table with 33 rows, more than 32 lanes per warp'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'info' AND"
			       " message = '1 sections of types this reader does not know (first:"
			       " 0x800000c8; a newer driver?) were skipped'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_region WHERE kind = 'global'"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_device"), 1);
	assert_int_equal(t_int(tl, "SELECT data ->> 'lanes' FROM event"), 2);
	ccw_free(&w);

	/* two sections sharing their bytes */
	t_close(tl);
	tl = t_open();
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &base_opts, &ids), 0);
	w.s[ids.shared].off_override = 64 + 0;   /* inside... set below */
	{
		unsigned char *b;
		size_t n;
		uint64_t total;
		/* find where the local leaf lands, then point shared at it */
		w.s[ids.shared].off_override = -1;
		assert_int_equal(ccw_serialise(&w, &b, &n, &total), 0);
		{
			Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
			Elf64_Shdr *sh = (Elf64_Shdr *)(b + eh->e_shoff);
			sh[ids.shared].sh_offset = sh[ids.local].sh_offset;
		}
		assert_true(t_parse_mem(tl, "cuda_core", "shared.nvcudmp", (const char *)b, n) > 0);
		free(b);
	}
	dump_diags(tl);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'section %%overlaps section %%'"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'section %u (offset %%, 64 bytes) overlaps section %u in the file'",
			       ids.local, ids.shared), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_region WHERE kind = 'shared'"), 1);
	ccw_free(&w);
	t_close(tl);
}

static void truncated_files(void **state)
{
	struct timeline *tl = t_open();
	struct ccw w;
	struct ccw_ids ids;
	unsigned char *b;
	size_t n;
	uint64_t total;
	(void)state;
	/* headers first: the cut loses the tail sections only */
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &base_opts, &ids), 0);
	w.shdrs_first = 1;
	assert_int_equal(ccw_serialise(&w, &b, &n, &total), 0);
	{
		Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
		Elf64_Shdr *sh = (Elf64_Shdr *)(b + eh->e_shoff);
		size_t cut = (size_t)sh[ids.lntbl].sh_offset + 10;
		assert_true(t_parse_mem(tl, "cuda_core", "cut.nvcudmp", (const char *)b, cut) > 0);
	}
	free(b);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'section %u (lane table)%%extends past the end of the file%%'",
			       ids.lntbl), 1);
	assert_true(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'error'") >= 3);
	assert_string_equal(t_text(tl, "SELECT name FROM gpu_device"), "NVIDIA H100 80GB HBM3");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_context"), 1);
	assert_string_equal(t_text(tl, "SELECT function FROM gpu_grid"), CCW_KERNEL);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_region WHERE kind = 'global'"
			       " AND complete = 0"), 2);
	/* the SM row still carries the exception */
	assert_string_equal(t_text(tl, "SELECT data ->> 'source' FROM event"), "sm");
	ccw_free(&w);
	t_close(tl);

	/* headers last (as real cores): nothing readable, one clear error */
	tl = t_open();
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &base_opts, &ids), 0);
	assert_int_equal(ccw_serialise(&w, &b, &n, &total), 0);
	assert_int_equal(t_parse_mem(tl, "cuda_core", "cut2.nvcudmp", (const char *)b, n - 100), 0);
	free(b);
	dump_diags(tl);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'section header table at offset %% extends past the end of the"
			       " file%%truncated%%'"), 1);
	assert_int_equal(t_int(tl, "SELECT offset FROM diagnostic"), 40);
	/* shorter than a header */
	assert_int_equal(t_parse_mem(tl, "cuda_core", "tiny", "\177ELF", 4), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " '%%shorter than an ELF64 header%%'"), 1);
	ccw_free(&w);
	t_close(tl);
}

static void cubin_broken(void **state)
{
	struct timeline *tl = t_open();
	struct ccw w;
	struct ccw_ids ids;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;
	(void)state;
	ccw_init(&w);
	assert_int_equal(ccw_build(&w, &base_opts, &ids), 0);
	/* symbol names out of the cubin's string table */
	eh = (Elf64_Ehdr *)w.s[ids.relf].data;
	sh = (Elf64_Shdr *)(w.s[ids.relf].data + eh->e_shoff);
	{
		Elf64_Sym *sym = (Elf64_Sym *)(w.s[ids.relf].data + sh[3].sh_offset);
		sym[1].st_name = 5000;
	}
	assert_true(parse_model(tl, &w, "cubin.nvcudmp") > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'section %u: 1 cubin function symbols have a name offset outside"
			       "%%'", ids.relf), 1);
	assert_string_equal(t_text(tl, "SELECT functions FROM gpu_module"), "[\"" CCW_HELPER "\"]");
	assert_int_equal(t_int(tl, "SELECT function FROM gpu_grid"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_context"), 1);
	ccw_free(&w);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(partial_rows_and_bad_string),
		cmocka_unit_test(offsets_past_end),
		cmocka_unit_test(wrong_links_and_entsize),
		cmocka_unit_test(overlaps_and_counts),
		cmocka_unit_test(truncated_files),
		cmocka_unit_test(cubin_broken),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
