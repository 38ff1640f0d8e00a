/*
 * test_write_fail.c -- a real analysis (a kernel log and a server log
 * through `oomlens analyze`, into a database and an HTML report) with its
 * Nth write failing as a full disk or an I/O error would make it fail, for
 * N over the whole run (issue 32 item 8): no crash, and nothing left
 * half-written -- no temporary left behind, the report's destination
 * either untouched (the old report, byte for byte) or a whole report, the
 * database absent or whole, and a database appended to (--append) either
 * as it was before or whole.
 *
 * The writes that fail: every write, sync and truncate SQLite makes
 * (through a VFS shim registered as the default, returning SQLITE_FULL or
 * SQLITE_IOERR_WRITE), and the report writer's and the store's flush,
 * sync, close and rename (fflush, fsync, fclose and rename of the oomlens
 * objects, redirected here with the linker's --wrap, see CMakeLists.txt;
 * they fail with ENOSPC or EIO). A first, counting run notes how many
 * write points the run has; then each N of them fails once, in turn.
 */
#include "testutil.h"
#include "cli/cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_RUNS 600

/* ---- the counter every write point goes through ---- */

static long fail_at;          /* 0: none fails */
static long n_writes;         /* write points so far in this run */
static int failed_once;       /* the failure was injected */

/* Count one write point; 1 when it is to fail (errno set: ENOSPC for
 * odd N, EIO for even N). */
static int fail_now(void)
{
	if (++n_writes != fail_at || !fail_at)
		return 0;
	failed_once = 1;
	errno = fail_at % 2 ? ENOSPC : EIO;
	return 1;
}

int __real_fflush(FILE *f);
int __real_fclose(FILE *f);
int __real_fsync(int fd);
int __real_rename(const char *from, const char *to);
int __wrap_fflush(FILE *f);
int __wrap_fclose(FILE *f);
int __wrap_fsync(int fd);
int __wrap_rename(const char *from, const char *to);

int __wrap_fflush(FILE *f)
{
	/* stderr is not an output of the run */
	if (f && f != stderr && fail_now())
		return EOF;
	return __real_fflush(f);
}

int __wrap_fclose(FILE *f)
{
	if (fail_now()) {
		int e = errno;
		__real_fclose(f);   /* the stream is gone either way, as fclose says */
		errno = e;
		return EOF;
	}
	return __real_fclose(f);
}

int __wrap_fsync(int fd)
{
	return fail_now() ? -1 : __real_fsync(fd);
}

int __wrap_rename(const char *from, const char *to)
{
	return fail_now() ? -1 : __real_rename(from, to);
}

/* ---- SQLite's writes: a VFS shim over the default one ---- */

struct shim_file {
	sqlite3_file base;
	sqlite3_file *real;   /* the default VFS's file, allocated after this */
};

static sqlite3_vfs *real_vfs;

#define REAL(f) (((struct shim_file *)(f))->real)

static int s_close(sqlite3_file *f)
{
	return REAL(f)->pMethods->xClose(REAL(f));
}

static int s_read(sqlite3_file *f, void *b, int n, sqlite3_int64 off)
{
	return REAL(f)->pMethods->xRead(REAL(f), b, n, off);
}

static int s_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 off)
{
	if (fail_now())
		return fail_at % 2 ? SQLITE_FULL : SQLITE_IOERR_WRITE;
	return REAL(f)->pMethods->xWrite(REAL(f), b, n, off);
}

static int s_truncate(sqlite3_file *f, sqlite3_int64 n)
{
	if (fail_now())
		return SQLITE_IOERR_TRUNCATE;
	return REAL(f)->pMethods->xTruncate(REAL(f), n);
}

static int s_sync(sqlite3_file *f, int flags)
{
	if (fail_now())
		return SQLITE_IOERR_FSYNC;
	return REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int s_size(sqlite3_file *f, sqlite3_int64 *n)
{
	return REAL(f)->pMethods->xFileSize(REAL(f), n);
}

static int s_lock(sqlite3_file *f, int l)
{
	return REAL(f)->pMethods->xLock(REAL(f), l);
}

static int s_unlock(sqlite3_file *f, int l)
{
	return REAL(f)->pMethods->xUnlock(REAL(f), l);
}

static int s_check(sqlite3_file *f, int *out)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int s_control(sqlite3_file *f, int op, void *arg)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int s_sector(sqlite3_file *f)
{
	return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int s_caps(sqlite3_file *f)
{
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

/* Version 1: no shared memory (no WAL: oomlens uses none) and no mmap. */
static const sqlite3_io_methods shim_methods = {
	1, s_close, s_read, s_write, s_truncate, s_sync, s_size, s_lock, s_unlock,
	s_check, s_control, s_sector, s_caps, NULL, NULL, NULL, NULL, NULL, NULL,
};

static int s_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags,
		  int *out)
{
	struct shim_file *s = (struct shim_file *)f;
	int r;

	(void)v;
	s->real = (sqlite3_file *)(s + 1);
	r = real_vfs->xOpen(real_vfs, name, s->real, flags, out);
	s->base.pMethods = r == SQLITE_OK && s->real->pMethods ? &shim_methods : NULL;
	return r;
}

static sqlite3_vfs shim_vfs;

static void install_shim(void)
{
	real_vfs = sqlite3_vfs_find(NULL);
	assert_non_null(real_vfs);
	shim_vfs = *real_vfs;
	shim_vfs.iVersion = 1;
	shim_vfs.zName = "write_fail";
	shim_vfs.szOsFile = (int)sizeof(struct shim_file) + real_vfs->szOsFile;
	shim_vfs.xOpen = s_open;
	shim_vfs.pNext = NULL;
	assert_int_equal(sqlite3_vfs_register(&shim_vfs, 1), SQLITE_OK);
}

/* ---- one analysis ---- */

#define OLD_REPORT "<p>the report of yesterday</p>\n"

static char dir[256], db[300], html[300], kept[300];
static unsigned char *kept_bytes;
static long kept_len;

/* The analysis with write point fail failing: its exit code. append:
 * `ingest --append` the server log into the database kept (copied to db
 * first) instead. What it says goes to /dev/null. */
static int run_analysis(long fail, int append)
{
	char *argv[] = { "analyze", "-q", "--tz", "+00:00", "--year", "2025", "--db", db, "-o",
			 html, NULL, NULL, NULL };
	char *ingest[] = { "ingest", "-q", "--append", "--db", db, NULL, NULL };
	char kern[512], server[512];
	int err = dup(2), null = open("/dev/null", O_WRONLY), r;

	snprintf(kern, sizeof(kern), "%s", t_src("fixtures/demo/kern.log"));
	snprintf(server, sizeof(server), "%s", t_src("fixtures/leak_gpu_snapshot/server.err"));
	argv[10] = kern;
	argv[11] = server;
	ingest[5] = server;
	fflush(stderr);
	dup2(null, 2);
	n_writes = 0;
	failed_once = 0;
	fail_at = fail;
	r = append ? cmd_ingest(6, ingest) : cmd_analyze(12, argv);
	fail_at = 0;
	fflush(stderr);
	dup2(err, 2);
	close(err);
	close(null);
	return r;
}

static unsigned char *slurp(const char *path, long *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*len = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)*len + 1);
	if (b && fread(b, 1, (size_t)*len, f) != (size_t)*len) {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

static int db_whole(const char *path)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	int ok;

	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return 0;
	ok = sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK &&
	     sqlite3_step(st) == SQLITE_ROW &&
	     !strcmp((const char *)sqlite3_column_text(st, 0), "ok");
	sqlite3_finalize(st);
	sqlite3_close(h);
	return ok;
}

/* Put the old report in place (and, for append, the kept database). */
static void set_up(int append)
{
	FILE *f = fopen(html, "w");

	assert_non_null(f);
	fputs(OLD_REPORT, f);
	assert_int_equal(fclose(f), 0);
	if (append) {
		f = fopen(db, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(kept_bytes, 1, (size_t)kept_len, f), (size_t)kept_len);
		assert_int_equal(fclose(f), 0);
	}
}

/* What a run left in dir: no temporary; the report untouched or whole;
 * the database absent (new), as it was (append) or whole. Then the
 * outputs are removed. */
static void check_and_clear(long n, int rc, int append)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned char *b;
	long len;

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, "x.db") || !strcmp(de->d_name, "x.html") ||
		    !strcmp(de->d_name, "kept.db"))
			continue;
		fail_msg("write %ld failing (exit %d%s) left %s behind", n, rc,
			 append ? ", append" : "", de->d_name);
	}
	closedir(d);
	b = slurp(html, &len);
	if (!b)
		fail_msg("write %ld failing: the report's destination is gone", n);
	b[len] = 0;
	if (strcmp((char *)b, OLD_REPORT) && !strstr((char *)b + (len > 20 ? len - 20 : 0),
						    "</html>"))
		fail_msg("write %ld failing (exit %d): a cut report", n, rc);
	if (rc != 0 && strcmp((char *)b, OLD_REPORT))
		fail_msg("write %ld failing: exit %d, yet the old report is replaced", n, rc);
	free(b);
	if (access(db, F_OK) == 0) {
		if (!db_whole(db))
			fail_msg("write %ld failing (exit %d%s): the database is damaged", n, rc,
				 append ? ", append" : "");
		if (rc != 0 && !append)
			fail_msg("write %ld failing: exit %d, yet a database is left", n, rc);
		if (rc != 0 && append) {
			b = slurp(db, &len);
			if (!b || len != kept_len || memcmp(b, kept_bytes, (size_t)len))
				fail_msg("write %ld failing: exit %d, yet the database appended to"
					 " changed", n, rc);
			free(b);
		}
	} else if (append) {
		fail_msg("write %ld failing (exit %d): the appended database is gone", n, rc);
	}
	unlink(db);
	unlink(html);
}

/* Run the analysis failing each write point in turn (spread when there
 * are more than MAX_RUNS). */
static void each_write_fails(int append)
{
	long total, n, step, runs = 0, refused = 0;
	int rc;

	set_up(append);
	rc = run_analysis(0, append);
	total = n_writes;
	assert_int_equal(rc, 0);
	check_and_clear(0, rc, append);
	assert_true(total > 5);
	step = total / MAX_RUNS > 1 ? total / MAX_RUNS : 1;
	for (n = 1; n <= total; n += step) {
		set_up(append);
		rc = run_analysis(n, append);
		check_and_clear(n, rc, append);
		runs++;
		refused += rc != 0;
	}
	print_message("write_fail%s: %ld write points, %ld runs, %ld ended in an error\n",
		      append ? " (append)" : "", total, runs, refused);
	assert_true(refused > 0);
}

static void new_outputs(void **state)
{
	(void)state;
	each_write_fails(0);
}

static void append_to_a_database(void **state)
{
	(void)state;
	each_write_fails(1);
}

static int setup(void **state)
{
	(void)state;
	install_shim();
	snprintf(dir, sizeof(dir), "%s/write_fail.XXXXXX", BINDIR);
	if (!mkdtemp(dir))
		return -1;
	snprintf(db, sizeof(db), "%s/x.db", dir);
	snprintf(html, sizeof(html), "%s/x.html", dir);
	snprintf(kept, sizeof(kept), "%s/kept.db", dir);
	/* the database appended to: the kernel log alone */
	{
		char *argv[] = { "ingest", "-q", "--tz", "+00:00", "--year", "2025", "--db", kept,
				 NULL, NULL };
		char kern[512];
		snprintf(kern, sizeof(kern), "%s", t_src("fixtures/demo/kern.log"));
		argv[8] = kern;
		if (cmd_ingest(9, argv) != 0)
			return -1;
	}
	kept_bytes = slurp(kept, &kept_len);
	return kept_bytes ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	unlink(kept);
	rmdir(dir);
	free(kept_bytes);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(new_outputs),
		cmocka_unit_test(append_to_a_database),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
