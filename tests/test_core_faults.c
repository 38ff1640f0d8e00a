/*
 * test_core_faults.c -- host cores as a damaged bundle or a core still
 * being written hands them over (issue 32). The cores are built here,
 * byte by byte, in the kernel's layout for x86-64 (ELF header, program
 * headers, one PT_NOTE segment of CORE notes, page-aligned PT_LOAD
 * segments), then:
 *   - shrunk between the open and the read of the memory segments (the
 *     store's capture op cuts the file, as a rotation or a writer still at
 *     work would): the reader must survive (libelf once mapped the file and
 *     libdwfl unwound from the mapping: SIGBUS) and the artifact must say
 *     "changed while read";
 *     and so must one whose section headers do not fit in the budget (their
 *     count once lowered in a private mapping of the file: SIGBUS too);
 *   - given 20,000 PT_NOTE headers over one note: one thread, not 20,001;
 *   - given a PT_LOAD whose bytes lie past the end of the file: reported,
 *     not "ok with 1 TiB dumped";
 *   - a CUDA core (tests/cuda_core_writer.c) cut to nothing after its
 *     metadata row is stored: libelf maps it and the reader indexes the
 *     mapping, so the next row read raised SIGBUS; it must say "the core
 *     shrank while read" with the offset and keep the metadata; and the
 *     same cut while the store copies the generator's name (which must
 *     not lie in the mapping), and a cut inside the .strtab before the
 *     names are copied out of it (the byte named, what was said kept),
 *     and a cut between the mapping and libelf's first read of it.
 */
#include "testutil.h"
#include "analyzer/ingest/ingest.h"
#include "parsers/cores/core_file.h"
#include "lib/budget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the CUDA core writer, whose put32/put64 would clash with ours */
#define put32 ccw_put32
#define put64 ccw_put64
#include "cuda_core_writer.c"
#undef put32
#undef put64

#define PAGE 4096u

static void put16(unsigned char *p, uint16_t v) { p[0] = v & 0xff; p[1] = v >> 8; }
static void put32(unsigned char *p, uint32_t v) { put16(p, v & 0xffff); put16(p + 2, v >> 16); }
static void put64(unsigned char *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, v >> 32); }

/* One CORE note at p: type, desc of dn bytes (zeroed, then the caller
 * fills it). Returns its size. */
static size_t note(unsigned char *p, uint32_t type, size_t dn)
{
	put32(p, 5);
	put32(p + 4, (uint32_t)dn);
	put32(p + 8, type);
	memcpy(p + 12, "CORE\0\0\0", 8);
	return 20 + ((dn + 3) & ~3u);
}

/* A core of process pid 4242 ("victim") with one thread (tid 4243, SIGSEGV):
 * nnote PT_NOTE headers all naming the same note segment, then nload
 * PT_LOAD segments of load_bytes each (filled with 0x5a) at 0x400000 on.
 * lie: the last PT_LOAD claims 1 TiB of file bytes it does not have.
 * nsec: that many empty section headers (SHT_NULL) after the segments.
 * Writes it to path; returns its size. */
static size_t write_core(const char *path, unsigned nnote, unsigned nload, size_t load_bytes,
			 int lie, unsigned nsec)
{
	unsigned nph = nnote + nload, i;
	size_t hdrs = 64 + (size_t)nph * 56, noff = hdrs, nlen, loff, total, shoff;
	unsigned char *b, *n;
	FILE *f;

	loff = (hdrs + 1024 + PAGE - 1) / PAGE * PAGE;
	shoff = loff + (size_t)nload * load_bytes;
	total = shoff + (size_t)nsec * 64;
	b = calloc(1, total);
	assert_non_null(b);
	memcpy(b, "\177ELF\2\1\1", 7);
	put16(b + 16, 4);               /* ET_CORE */
	put16(b + 18, 62);              /* x86-64 */
	put32(b + 20, 1);
	put64(b + 32, 64);              /* e_phoff */
	put16(b + 52, 64);
	put16(b + 54, 56);
	put16(b + 56, (uint16_t)(nph < 0xffff ? nph : 0xffff));
	if (nsec) {
		put64(b + 40, shoff);   /* e_shoff */
		put16(b + 58, 64);
		put16(b + 60, (uint16_t)nsec);
	}
	/* the notes: prstatus (pid at 32, cursig at 12), prpsinfo */
	n = b + noff;
	nlen = note(n, 1, 336);
	put16(n + 20 + 12, 11);
	put32(n + 20 + 32, 4243);
	n += nlen;
	nlen = note(n, 3, 136);
	put32(n + 20 + 24, 4242);
	memcpy(n + 20 + 40, "victim", 6);
	nlen = (size_t)(n + nlen - (b + noff));
	for (i = 0; i < nph; i++) {
		unsigned char *ph = b + 64 + (size_t)i * 56;
		if (i < nnote) {
			put32(ph, 4);   /* PT_NOTE */
			put64(ph + 8, noff);
			put64(ph + 32, nlen);
			continue;
		}
		put32(ph, 1);           /* PT_LOAD */
		put32(ph + 4, 6);       /* RW */
		put64(ph + 8, loff + (size_t)(i - nnote) * load_bytes);
		put64(ph + 16, 0x400000 + (uint64_t)(i - nnote) * load_bytes);
		put64(ph + 32, lie && i == nph - 1 ? 1ull << 40 : load_bytes);
		put64(ph + 40, lie && i == nph - 1 ? 1ull << 40 : load_bytes);
		put64(ph + 48, PAGE);
		memset(b + loff + (size_t)(i - nnote) * load_bytes, 0x5a, load_bytes);
	}
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, total, f), total);
	assert_int_equal(fclose(f), 0);
	free(b);
	return total;
}

static void ingest_file(struct timeline *tl, const char *path)
{
	struct ingest_cfg cfg = { .quiet = 1 };
	struct ingest_stats st;
	char *p = strdup(path);

	ingest_paths(tl, &p, 1, &cfg, &st);
	free(p);
}

/* The store's capture op, wrapped: cut the core down to its headers first
 * (the reader has opened it and read its notes; libdwfl has not yet read
 * a byte of the memory segments). */
static int64_t (*real_capture)(struct sink *, const struct ol_capture *);
static const char *shrink_path;

static int64_t capture_then_shrink(struct sink *s, const struct ol_capture *c)
{
	if (shrink_path)
		assert_int_equal(truncate(shrink_path, PAGE), 0);
	shrink_path = NULL;
	return real_capture(s, c);
}

static void shrinks_while_read(void **state)
{
	const char *core = BINDIR "/test_core_faults_shrink.core";
	struct timeline *tl = t_open();
	(void)state;
	write_core(core, 1, 8, 64 * 1024, 0, 0);
	real_capture = tl->sink.capture;
	tl->sink.capture = capture_then_shrink;
	shrink_path = core;
	ingest_file(tl, core);
	assert_null(shrink_path);       /* the cut did happen mid-read */
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "host_core");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'changed while read:%%' AND severity = 'error'"), 1);
	assert_string_not_equal(t_text(tl, "SELECT status FROM artifact"), "ok");
	/* what was read before the cut is kept */
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind = 'process_crash'"), 4242);
	t_close(tl);
	unlink(core);
}

/* The same, with more section headers than fit in the budget: the count
 * is lowered in an image of the core read with pread, not in a private
 * mapping of the file (which raised SIGBUS once the file was cut). */
static void shrinks_while_read_sections_lowered(void **state)
{
	const char *core = BINDIR "/test_core_faults_shrink_sections.core";
	struct timeline *tl = t_open();
	(void)state;
	write_core(core, 1, 8, 16 * 1024, 0, 5000);
	ol_budget_set(OL_BUDGET_MIN);
	real_capture = tl->sink.capture;
	tl->sink.capture = capture_then_shrink;
	shrink_path = core;
	ingest_file(tl, core);
	ol_budget_set(OL_BUDGET_DEFAULT);
	assert_null(shrink_path);       /* the cut did happen mid-read */
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "host_core");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'the core names 5000 section headers; only the first %%'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'changed while read:%%' AND severity = 'error'"), 1);
	assert_string_not_equal(t_text(tl, "SELECT status FROM artifact"), "ok");
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind = 'process_crash'"), 4242);
	assert_int_equal(ol_budget_held(), 0);
	t_close(tl);
	unlink(core);
}

static void repeated_note_headers(void **state)
{
	const char *core = BINDIR "/test_core_faults_notes.core";
	struct timeline *tl = t_open();
	(void)state;
	write_core(core, 20000, 1, PAGE, 0, 0);
	ingest_file(tl, core);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM thread"), 1);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.threads') FROM event"
			       " WHERE kind = 'process_crash'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " '19999 PT_NOTE segments repeat or overlap%%'"), 1);
	t_close(tl);
	unlink(core);
}

static void load_past_end(void **state)
{
	const char *core = BINDIR "/test_core_faults_load.core";
	struct timeline *tl = t_open();
	(void)state;
	write_core(core, 1, 2, PAGE, 1, 0);
	ingest_file(tl, core);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'error'"
			       " AND message LIKE 'segment 2 (PT_LOAD at 0x401000): %%past the end"
			       " of the file%%'"), 1);
	assert_string_not_equal(t_text(tl, "SELECT status FROM artifact"), "ok");
	/* what is in the file is what was dumped: nothing of the lie */
	assert_int_equal(t_int(tl, "SELECT max(json_extract(extra, '$.dumped_bytes'))"
			       " FROM mapping"), PAGE);
	t_close(tl);
	unlink(core);
}

/* The store's meta op, wrapped: when the first key reaches the store (the
 * CUDA core's metadata row is read; its device table is not) the core is
 * cut to 0 bytes, before the key is stored (cut_first: the value must not
 * lie in the mapping, or SQLite would fault copying it and the guard jump
 * out of SQLite) or after. */
static int64_t (*real_meta)(struct sink *, const char *, const char *);
static int cut_first;

static int64_t shrink_at_meta(struct sink *s, const char *k, const char *v)
{
	int64_t r;

	if (shrink_path && cut_first)
		assert_int_equal(truncate(shrink_path, 0), 0);
	r = real_meta(s, k, v);
	if (shrink_path)
		assert_int_equal(truncate(shrink_path, 0), 0);
	shrink_path = NULL;
	return r;
}

/* Write a CUDA core with one device, one context, two regions (and, with
 * pad, .strtab grown past three pages by long names no row uses, and a
 * section of a type the reader does not know). */
static void write_cuda_core(const char *path, int pad)
{
	const struct ccw_opts o = { 1, 1, 1, 2, 4096, 0, 1 };
	struct ccw w;
	struct ccw_ids ids;
	char name[4001];
	int i;

	ccw_init(&w);
	if (pad)
		ccw_add(&w, SHT_LOUSER + 0x100, ".future", 0, 0, 0, "", 0);
	for (i = 0; pad && i < 3; i++) {
		memset(name, 'a' + i, sizeof(name) - 1);
		name[sizeof(name) - 1] = 0;
		ccw_str(&w, name);
	}
	assert_int_equal(ccw_build(&w, &o, &ids), 0);
	assert_int_equal(ccw_write_file(&w, path, 0), 0);
	ccw_free(&w);
}

static void cuda_core_cut_at_meta(int first)
{
	const char *core = BINDIR "/test_core_faults_shrink.nvcudmp";
	struct timeline *tl = t_open();

	write_cuda_core(core, 0);
	real_meta = tl->sink.meta;
	tl->sink.meta = shrink_at_meta;
	shrink_path = core;
	cut_first = first;
	ingest_file(tl, core);
	assert_null(shrink_path);       /* the cut did happen mid-read */
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "cuda_core");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'error'"
			       " AND message LIKE 'the core shrank while read: byte %% of %% is gone (%%'"
			       " AND offset > 0"), 1);
	assert_string_not_equal(t_text(tl, "SELECT status FROM artifact"), "ok");
	/* what was stored before the cut is kept, and the store's copy of
	 * the name is whole (it was copied out of the mapping first) */
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key = 'cuda.generator'"),
			    "CUDA Driver coredump");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_device"), 0);
	assert_int_equal(ol_budget_held(), 0);
	t_close(tl);
	unlink(core);
}

/* Cut once the metadata row is stored: libelf maps the core and the
 * reader indexes the mapping, so the next row read raised SIGBUS. */
static void cuda_core_shrinks_while_read(void **state)
{
	(void)state;
	cuda_core_cut_at_meta(0);
}

/* Cut while the store copies the generator's name (issue 32's loose end:
 * the name once pointed into the mapping). */
static void cuda_core_shrinks_inside_store(void **state)
{
	(void)state;
	cuda_core_cut_at_meta(1);
}

/* The store's diagnostic op, wrapped: at the note on the section of an
 * unknown type (said once every section header is read, before the names
 * are copied out of .strtab) the core is cut to two pages, inside its
 * .strtab (which starts after the ELF header and here runs past three
 * pages; the section headers, at the end, are read by then). */
static int64_t (*real_diag)(struct sink *, uint64_t, uint64_t, enum ol_severity,
			    const char *);

static int64_t shrink_at_diag(struct sink *s, uint64_t line, uint64_t off,
			      enum ol_severity sev, const char *msg)
{
	if (shrink_path && strstr(msg, "of types this reader does not know")) {
		assert_int_equal(truncate(shrink_path, 2 * PAGE), 0);
		shrink_path = NULL;
	}
	return real_diag(s, line, off, sev, msg);
}

static void cuda_core_cut_inside_strtab(void **state)
{
	const char *core = BINDIR "/test_core_faults_strtab.nvcudmp";
	struct timeline *tl = t_open();
	(void)state;

	write_cuda_core(core, 1);
	real_diag = tl->sink.diag;
	tl->sink.diag = shrink_at_diag;
	shrink_path = core;
	ingest_file(tl, core);
	assert_null(shrink_path);
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "cuda_core");
	/* the diagnostic said before the cut is kept */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " '1 sections of types this reader does not know%%'"), 1);
	/* the fault is at the first byte past the cut's page, in .strtab */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'error'"
			       " AND message LIKE 'the core shrank while read: byte 8192 of %%'"
			       " AND offset = 8192"), 1);
	assert_string_not_equal(t_text(tl, "SELECT status FROM artifact"), "ok");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key = 'cuda.generator'"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM gpu_device"), 0);
	assert_int_equal(ol_budget_held(), 0);
	t_close(tl);
	unlink(core);
}

/* Cut to nothing between the mapping and libelf's first read of it (its
 * elf_begin once read the header tables from its own mapping, unguarded):
 * said with the byte, nothing stored, nothing drawn left behind. */
static void cut_to_nothing(int fd)
{
	(void)fd;   /* opened read-only: cut by its path */
	assert_int_equal(truncate(shrink_path, 0), 0);
	shrink_path = NULL;
}

static void cuda_core_shrinks_while_opened(void **state)
{
	const char *core = BINDIR "/test_core_faults_open.nvcudmp";
	struct timeline *tl = t_open();
	(void)state;

	write_cuda_core(core, 0);
	shrink_path = core;
	core_map_hook = cut_to_nothing;
	ingest_file(tl, core);
	core_map_hook = NULL;
	assert_null(shrink_path);
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "cuda_core");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'error'"
			       " AND message LIKE 'the core shrank while opened: byte 0 of %% is gone%%'"
			       " AND offset = 0"), 1);
	assert_string_not_equal(t_text(tl, "SELECT status FROM artifact"), "ok");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key = 'cuda.generator'"), 0);
	assert_int_equal(ol_budget_held(), 0);
	t_close(tl);
	unlink(core);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shrinks_while_read),
		cmocka_unit_test(shrinks_while_read_sections_lowered),
		cmocka_unit_test(repeated_note_headers),
		cmocka_unit_test(load_past_end),
		cmocka_unit_test(cuda_core_shrinks_while_read),
		cmocka_unit_test(cuda_core_shrinks_inside_store),
		cmocka_unit_test(cuda_core_cut_inside_strtab),
		cmocka_unit_test(cuda_core_shrinks_while_opened),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
