/*
 * test_input.c -- what keeps the walk bounded and the evidence safe, at
 * the level of the library: the content hash (the reference XXH64
 * values, the same fed in pieces, a .gz hashed as its content, a huge
 * file mostly left unread hashed from samples), only regular files
 * opened (a FIFO is refused at once, never blocks), files known by device
 * and inode, the kernel's pseudo-files refused, a file that grows, shrinks
 * or is a cut .gz while read told, and oomlens's own databases and
 * reports recognised; lines the same however their newline is looked for.
 */
#include "testutil.h"
#include "analyzer/ingest/own_outputs.h"
#include "analyzer/store/timeline.h"
#include "lib/common.h"
#include "lib/fileset.h"
#include "lib/hash.h"
#include "lib/input.h"
#include "lib/strbuf.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static char dir[256];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "%s/test_input.XXXXXX", BINDIR);
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static const char *at(const char *name)
{
	static char buf[4][400];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* The reference XXH64 (seed 0), as xxhsum -H1 prints it; fed whole or a
 * byte at a time, the same. */
static void hash_is_xxh64(void **state)
{
	unsigned char buf[1000];
	struct hash64 h;
	size_t i;
	(void)state;

	assert_true(hash64_of("", 0) == 0xEF46DB3751D8E999ull);
	assert_true(hash64_of("a", 1) == 0xD24EC4F1A98C6E5Bull);
	assert_true(hash64_of("abc", 3) == 0x44BC2CF5AD770999ull);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7 + 3);
	hash64_init(&h);
	for (i = 0; i < sizeof(buf); i++)
		hash64_update(&h, buf + i, 1);
	assert_true(hash64_final(&h) == hash64_of(buf, sizeof(buf)));
}

/* The input's hash: what the parser read plus the rest; a .gz is hashed
 * as the content it holds; a skip that jumps over bytes still hashes
 * them all. */
static void input_hashes_the_whole_content(void **state)
{
	static const char text[] = "line one\nline two\nthe last line, without a newline";
	struct input in;
	const char *line;
	size_t len;
	uint64_t h;
	int sampled;
	gzFile gz;
	(void)state;

	write_file(at("a.log"), text, sizeof(text) - 1);
	assert_int_equal(input_open(&in, at("a.log"), NULL), 0);
	assert_int_equal(input_getline(&in, &line, &len), 1);   /* the parser stops early */
	assert_int_equal(input_hash(&in, INPUT_HASH_AUTO, &h, &sampled), 0);
	assert_int_equal(sampled, 0);
	assert_true(h == hash64_of(text, sizeof(text) - 1));
	assert_int_equal((int)in.offset, 9);   /* as the parser left it */
	input_close(&in);

	gz = gzopen(at("a.log.gz"), "wb");
	assert_non_null(gz);
	assert_int_equal(gzwrite(gz, text, sizeof(text) - 1), (int)sizeof(text) - 1);
	assert_int_equal(gzclose(gz), Z_OK);
	assert_int_equal(input_open(&in, at("a.log.gz"), NULL), 0);
	assert_int_equal(input_hash(&in, INPUT_HASH_AUTO, &h, &sampled), 0);
	assert_true(h == hash64_of(text, sizeof(text) - 1));
	input_close(&in);
}

/* A large log (INPUT_HASH_ASYNC_MIN and more) is hashed on a thread
 * behind the reads (issue 31): the same hash, whether the parser reads
 * every line, stops half-way or reads nothing, and the lines unchanged
 * by the thread reading the buffer beside the parser. */
static void large_input_hashes_alike_on_its_thread(void **state)
{
	size_t n = INPUT_HASH_ASYNC_MIN + (3u << 20) + 77, i, lines = 0, want = 0;
	char *text = malloc(n);
	struct input in;
	const char *line;
	size_t len;
	uint64_t h, expect;
	int sampled, stop;
	(void)state;

	assert_non_null(text);
	for (i = 0; i < n; i++)   /* lines of 1 to 200 bytes */
		text[i] = i % 201 == 200 || (i * 7919) % 263 == 0 ? '\n' : (char)('a' + i % 26);
	for (i = 0; i < n; i++)
		want += text[i] == '\n';
	write_file(at("big.log"), text, n);
	expect = hash64_of(text, n);
	for (stop = 0; stop < 3; stop++) {
		assert_int_equal(input_open(&in, at("big.log"), NULL), 0);
		lines = 0;
		while (stop != 2 && input_getline(&in, &line, &len) == 1) {
			assert_true(line + len <= (const char *)in.buf + INPUT_BUFSZ);
			assert_true(len == 0 || line[len - 1] != '\n');
			if (++lines == want / 2 && stop == 1)
				break;
		}
		if (stop == 0)
			assert_true(lines == want + (text[n - 1] != '\n'));
		assert_int_equal(input_hash(&in, INPUT_HASH_AUTO, &h, &sampled), 0);
		assert_int_equal(sampled, 0);
		assert_true(h == expect);
		input_close(&in);
	}
	free(text);
}

/* A file a parser leaves mostly unread (a core dump) is not read whole
 * to be hashed: its size and samples are, and the hash says so. */
static void huge_unread_file_is_sampled(void **state)
{
	struct input in;
	uint64_t h1, h2;
	int fd, sampled;
	(void)state;

	fd = open(at("core"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "\177ELF", 4, 0), 4);
	assert_int_equal(ftruncate(fd, (off_t)(INPUT_HASH_READ_MAX + (64u << 20))), 0);
	close(fd);
	assert_int_equal(input_open(&in, at("core"), NULL), 0);
	assert_int_equal(input_hash(&in, INPUT_HASH_AUTO, &h1, &sampled), 0);
	assert_int_equal(sampled, 1);
	input_close(&in);
	assert_int_equal(input_open(&in, at("core"), NULL), 0);
	assert_int_equal(input_hash(&in, INPUT_HASH_SAMPLED, &h2, &sampled), 0);
	assert_true(h1 == h2);
	input_close(&in);
}

/* A FIFO (or a directory) is refused before it is opened: no block. */
static void only_regular_files_are_opened(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct input in;
	(void)state;

	assert_int_equal(mkfifo(at("fifo"), 0644), 0);
	alarm(10);   /* were it opened, this test would hang here */
	assert_int_equal(input_open(&in, at("fifo"), &err), -1);
	alarm(0);
	assert_non_null(strstr(err.buf, "a FIFO (named pipe), not a regular file"));
	strbuf_reset(&err);
	assert_int_equal(input_open(&in, dir, &err), -1);
	assert_non_null(strstr(err.buf, "a directory"));
	strbuf_reset(&err);
	assert_int_equal(input_open(&in, at("missing"), &err), -1);
	assert_non_null(strstr(err.buf, "No such file or directory"));
	strbuf_release(&err);
}

/* The kernel's pseudo-files are refused by their filesystem, not by what
 * stat says (issue 32): /proc/kmsg stats as a regular empty file and a
 * read of it blocks; /proc/self/environ is the analyst's environment. */
static void kernel_pseudo_files_are_refused(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct input in;
	(void)state;

	alarm(10);   /* were /proc/kmsg read, this test would hang here */
	if (access("/proc/kmsg", F_OK) == 0) {
		assert_int_equal(input_open(&in, "/proc/kmsg", &err), -1);
		assert_non_null(strstr(err.buf, "procfs"));
		strbuf_reset(&err);
	}
	assert_int_equal(input_open(&in, "/proc/self/environ", &err), -1);
	assert_non_null(strstr(err.buf, "not one on disk"));
	strbuf_reset(&err);
	if (access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK) == 0) {
		assert_int_equal(input_open(&in, "/sys/kernel/mm/transparent_hugepage/enabled",
					    &err), -1);
		assert_non_null(strstr(err.buf, "sysfs"));
	}
	alarm(0);
	strbuf_release(&err);
}

/* Read the whole input, line by line; the bytes returned. */
static uint64_t read_all(struct input *in)
{
	const char *line;
	size_t len;
	uint64_t n = 0;

	while (input_getline(in, &line, &len) == 1)
		n += len + 1;
	return n;
}

/* A log appended while it is read is read up to its size at open, and
 * that it grew is said; one cut short while read is said to have lost
 * bytes; one left alone says nothing (issue 32). */
static void a_file_that_changes_while_read_is_told(void **state)
{
	char text[8192], why[300];
	struct input in;
	int lost, fd;
	(void)state;

	memset(text, 'x', sizeof(text));
	for (size_t i = 99; i < sizeof(text); i += 100)
		text[i] = '\n';
	write_file(at("still.log"), text, sizeof(text));
	assert_int_equal(input_open(&in, at("still.log"), NULL), 0);
	read_all(&in);
	assert_int_equal(input_changed(&in, why, sizeof(why), &lost), 0);
	input_close(&in);

	write_file(at("grows.log"), text, sizeof(text));
	assert_int_equal(input_open(&in, at("grows.log"), NULL), 0);
	fd = open(at("grows.log"), O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text)), (ssize_t)sizeof(text));
	close(fd);
	read_all(&in);
	assert_int_equal(in.offset, sizeof(text));   /* not a byte past the size at open */
	assert_int_equal(input_changed(&in, why, sizeof(why), &lost), 1);
	assert_int_equal(lost, 0);
	assert_non_null(strstr(why, "8192 bytes at open, 16384 now"));
	input_close(&in);

	write_file(at("cut.log"), text, sizeof(text));
	assert_int_equal(input_open(&in, at("cut.log"), NULL), 0);
	assert_int_equal(truncate(at("cut.log"), 2048), 0);
	read_all(&in);
	assert_int_equal(input_changed(&in, why, sizeof(why), &lost), 1);
	assert_int_equal(lost, 1);
	assert_non_null(strstr(why, "8192 bytes at open, 2048 now"));
	input_close(&in);
}

/* A .gz cut in half is read up to the cut and said to be cut, not "ok"
 * (issue 26). */
static void a_cut_gzip_is_told(void **state)
{
	char text[65536], why[300];
	unsigned char z[70000];
	uLongf zn = sizeof(z);
	struct input in;
	gzFile g;
	int lost;
	(void)state;

	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (char)(i % 97 == 96 ? '\n' : 'a' + (i * 7919) % 26);
	g = gzopen(at("whole.gz"), "wb");
	assert_non_null(g);
	assert_int_equal(gzwrite(g, text, sizeof(text)), (int)sizeof(text));
	assert_int_equal(gzclose(g), Z_OK);
	{
		FILE *f = fopen(at("whole.gz"), "rb");
		assert_non_null(f);
		zn = fread(z, 1, sizeof(z), f);
		fclose(f);
	}
	write_file(at("half.gz"), z, zn / 2);
	assert_int_equal(input_open(&in, at("whole.gz"), NULL), 0);
	read_all(&in);
	assert_int_equal(input_changed(&in, why, sizeof(why), &lost), 0);
	input_close(&in);
	assert_int_equal(input_open(&in, at("half.gz"), NULL), 0);
	read_all(&in);
	assert_int_equal(input_changed(&in, why, sizeof(why), &lost), 1);
	assert_int_equal(lost, 1);
	assert_non_null(strstr(why, "gzip stream ends before its end"));
	input_close(&in);
}

/* Files by device and inode: a second path to the same file is known,
 * with the first path. */
static void files_are_known_by_identity(void **state)
{
	struct fileset set = FILESET_INIT;
	const struct fileset_entry *e;
	struct stat a, b;
	int i;
	(void)state;

	write_file(at("f"), "x", 1);
	assert_int_equal(symlink("f", at("g")), 0);
	assert_int_equal(stat(at("f"), &a), 0);
	assert_int_equal(stat(at("g"), &b), 0);
	assert_int_equal(fileset_add(&set, a.st_dev, a.st_ino, FILESET_FILE, "f", NULL), 1);
	assert_int_equal(fileset_add(&set, b.st_dev, b.st_ino, FILESET_FILE, "g", &e), 0);
	assert_string_equal(e->path, "f");
	for (i = 0; i < 1000; i++)    /* growing keeps every entry */
		assert_int_equal(fileset_add(&set, 7, (uint64_t)i + 1, FILESET_DIR, "d", NULL), 1);
	assert_non_null(fileset_find(&set, a.st_dev, a.st_ino));
	assert_non_null(fileset_find(&set, 7, 500));
	assert_null(fileset_find(&set, 7, 5000));
	assert_int_equal((int)set.n, 1001);
	fileset_release(&set);
}

/* Whether text[0..k) holds a byte of marks (NULL: none). */
static int holds(const unsigned char *text, size_t k, const char *marks)
{
	size_t i;

	for (i = 0; marks && i < k; i++)
		if (text[i] && strchr(marks, text[i]))
			return 1;
	return 0;
}

/* The lines of text[0..n) read with the marks and also marks given
 * (NULL: none): each is the bytes up to its newline, "\r" dropped before
 * it, numbered and placed; marked when it holds a mark, also when it
 * holds an also mark (a line without its newline, the last one, counts
 * as both). Checked against a plain walk of the text, over buffer
 * refills; returns the lines read. */
static size_t lines_as_walked(const unsigned char *text, size_t n, const char *marks,
			      const char *also)
{
	struct input in;
	const unsigned char *p = text, *end = text + n, *nl;
	const char *line;
	size_t len, k, count = 0;
	int marked, marked_also;

	assert_int_equal(input_open_mem(&in, "t", text, n), 0);
	if (marks)
		input_mark_bytes(&in, marks, also);
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		k = nl ? (size_t)(nl - p) : (size_t)(end - p);
		marked = !nl || holds(p, k, marks);
		marked_also = !nl || holds(p, k, also);
		assert_int_equal(input_getline(&in, &line, &len), 1);
		assert_int_equal(in.line_offset, (uint64_t)(p - text));
		assert_int_equal(in.lineno, count + 1);
		if (k && p[k - 1] == '\r')
			k--;
		assert_int_equal(len, k);
		assert_memory_equal(line, p, k);
		if (marks) {
			assert_int_equal(in.line_marked, marked);
			assert_int_equal(in.line_also, marked_also);
		}
		count++;
		if (!nl)
			break;
	}
	assert_int_equal(input_getline(&in, &line, &len), 0);
	input_close(&in);
	return count;
}

/* Lines come out the same whatever way the newline is looked for: no
 * marks (memchr), marks a table tells apart (32 bytes a step where AVX2
 * is there), marks that share their low four bits (sixteen a step), of
 * one kind or of both; the
 * text is over three read buffers, with colour codes, carriage returns
 * and empty lines anywhere in lines of every length. */
static void lines_are_the_same_with_marks(void **state)
{
	static const char alphabet[] = "abcy \"\x1b^#\r\x0b\n";
	size_t n = 3 * INPUT_BUFSZ + 12345, i, lines;
	unsigned char *text = malloc(n);
	uint32_t x = 12345;
	(void)state;

	assert_non_null(text);
	for (i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		/* runs of letters, so lines are often 30 to 300 bytes long */
		text[i] = (x >> 16) % 97 < 90 ? (unsigned char)('a' + (x >> 20) % 26)
					      : (unsigned char)alphabet[(x >> 20) % (sizeof(alphabet) - 1)];
	}
	lines = lines_as_walked(text, n, NULL, NULL);
	assert_true(lines > 10000);
	assert_int_equal(lines_as_walked(text, n, "\x1b\r^#", NULL), lines);
	assert_int_equal(lines_as_walked(text, n, "\x1b\r^#", "y"), lines);
	assert_int_equal(lines_as_walked(text, n, "\x1b\r^#", "y\"ab"), lines);
	assert_int_equal(lines_as_walked(text, n, "", "y\""), lines);
	assert_int_equal(lines_as_walked(text, n, "\x1b\x0b", NULL), lines);
	assert_int_equal(lines_as_walked(text, n, "\x1b\r", "\x0b^"), lines);
	text[n - 1] = '\n';   /* the last line with its newline */
	assert_int_equal(lines_as_walked(text, n, "\x1b\r^#", "y"), lines);
	free(text);
}

/* oomlens knows its databases (application id) and reports (their
 * marks); a kernel log, notes or another program's SQLite file are not
 * its own. */
static void own_outputs_are_recognised(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct timeline *tl = calloc(1, sizeof(*tl));
	unsigned char head[100];
	FILE *f;
	size_t n;
	(void)state;

	assert_int_equal(timeline_open(tl, at("x.db"), TL_CREATE, &err), 0);
	assert_int_equal(timeline_commit(tl, &err), 0);
	timeline_close(tl);
	free(tl);
	assert_int_equal(timeline_file_is_ours(at("x.db"), &err), 1);
	f = fopen(at("x.db"), "rb");
	assert_non_null(f);
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	assert_true(timeline_header_is_ours(head, n));
	assert_non_null(own_output_kind(head, n));
	assert_int_equal(timeline_file_is_ours(at("nothing.db"), &err), 0);
	write_file(at("empty.db"), "", 0);
	assert_int_equal(timeline_file_is_ours(at("empty.db"), &err), 0);
	write_file(at("notes.txt"), "notes\n", 6);
	assert_int_equal(timeline_file_is_ours(at("notes.txt"), &err), -1);
	assert_non_null(strstr(err.buf, "not an oomlens database"));
	strbuf_release(&err);

#define OWN(s) own_output_kind((const unsigned char *)(s), strlen(s))
	assert_non_null(OWN("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
			    OOMLENS_HTML_GENERATOR "0.1.0\">"));
	assert_non_null(OWN("{\n\"oomlens\": \"0.1.0\",\n\"schema\": 2"));
	assert_non_null(OWN("## OOM incident: leak (growth)\n"));
	assert_null(OWN("<!DOCTYPE html>\n<html><head><meta name=generator content=\"hugo\">"));
	assert_null(OWN("{\"oomlens-torch-snapshot\": 1}\n"));   /* the flat form is evidence */
	assert_null(OWN("[ 4600.100000] Out of memory: Killed process 4312 (python3)\n"));
	assert_null(OWN("SQLite format 3"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hash_is_xxh64),
		cmocka_unit_test(input_hashes_the_whole_content),
		cmocka_unit_test(large_input_hashes_alike_on_its_thread),
		cmocka_unit_test(huge_unread_file_is_sampled),
		cmocka_unit_test(only_regular_files_are_opened),
		cmocka_unit_test(kernel_pseudo_files_are_refused),
		cmocka_unit_test(a_file_that_changes_while_read_is_told),
		cmocka_unit_test(a_cut_gzip_is_told),
		cmocka_unit_test(files_are_known_by_identity),
		cmocka_unit_test(own_outputs_are_recognised),
		cmocka_unit_test(lines_are_the_same_with_marks),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
