/*
 * test_alloc_fail.c -- a real analysis (a kernel log, a PyTorch snapshot
 * pickle and a server log through `oomlens analyze`, into a database and
 * an HTML report) with its Nth allocation failing, for N over the whole
 * run: no crash, no leak (the ASan build's leak check at exit), and no
 * damaged output -- the database is absent or passes integrity_check,
 * the report is absent or complete, and no temporary is left behind.
 *
 * Every allocation counts: ours (malloc, calloc, realloc, strdup and
 * strndup of the oomlens objects, redirected here with the linker's
 * --wrap, see CMakeLists.txt), SQLite's (SQLITE_CONFIG_MALLOC) and
 * jansson's (json_set_alloc_funcs). Which N fail: a first, counting run
 * notes every call site of ours and where it first allocates, and each
 * site's first allocation is failed once (every site class is covered);
 * besides, every N of the first FIRST_ALL (opening, the schema), and N
 * spread evenly over the rest so that about SPREAD runs cover SQLite's
 * and jansson's allocations and the later sites' later calls; and the
 * last LAST_ALL before the end (commit, report). The run goes on past
 * the end until an analysis completes without a failure.
 */
#include "testutil.h"
#include "cli/cli.h"

#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIRST_ALL 300
#define SPREAD 300
#define LAST_ALL 60
#define MAX_SITES 4096

/* ---- the counter every allocation goes through ---- */

static long fail_at;          /* 0: none fails */
static long n_alloc;          /* allocations so far in this run */
static int failed_once;       /* the failure was injected */
static int counting;          /* note the sites */

struct site { void *where; long first; };
static struct site sites[MAX_SITES];
static size_t n_sites;

/* Count one allocation made from where; 1 when it is to fail. */
static int fail_now(void *where)
{
	long n = __atomic_add_fetch(&n_alloc, 1, __ATOMIC_SEQ_CST);
	size_t i;

	if (counting && where) {
		for (i = 0; i < n_sites && sites[i].where != where; i++)
			;
		if (i == n_sites && n_sites < MAX_SITES) {
			sites[n_sites].where = where;
			sites[n_sites++].first = n;
		}
	}
	if (fail_at && n == fail_at) {
		failed_once = 1;
		return 1;
	}
	return 0;
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

void *__wrap_malloc(size_t n)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
	return fail_now(__builtin_return_address(0)) ? NULL : __real_strndup(s, n);
}

/* SQLite's allocator: the default one, behind the counter. */
static sqlite3_mem_methods sqlite_default;

static void *sq_malloc(int n)
{
	return fail_now(NULL) ? NULL : sqlite_default.xMalloc(n);
}

static void *sq_realloc(void *p, int n)
{
	return fail_now(NULL) ? NULL : sqlite_default.xRealloc(p, n);
}

static void *json_malloc(size_t n)
{
	return fail_now(NULL) ? NULL : __real_malloc(n);
}

static void install_hooks(void)
{
	static sqlite3_mem_methods m;

	sqlite3_shutdown();
	assert_int_equal(sqlite3_config(SQLITE_CONFIG_GETMALLOC, &sqlite_default), SQLITE_OK);
	m = sqlite_default;
	m.xMalloc = sq_malloc;
	m.xRealloc = sq_realloc;
	assert_int_equal(sqlite3_config(SQLITE_CONFIG_MALLOC, &m), SQLITE_OK);
	assert_int_equal(sqlite3_initialize(), SQLITE_OK);
	json_set_alloc_funcs(json_malloc, free);
}

/* ---- one analysis ---- */

static char dir[256], db[300], html[300];

/* The analysis, with allocation fail_at failing: its exit code. What it
 * says goes to /dev/null. */
static int run_analysis(long fail)
{
	char *argv[] = { "analyze", "-q", "--tz", "+00:00", "--year", "2025", "--db", db, "-o",
			 html, NULL, NULL, NULL, NULL };
	char kern[512], pickle[512], server[512];
	int err = dup(2), null = open("/dev/null", O_WRONLY), r;

	snprintf(kern, sizeof(kern), "%s", t_src("fixtures/demo/kern.log"));
	snprintf(pickle, sizeof(pickle), "%s", t_src("tests/data/snapshot/v2_11.p5.pickle"));
	snprintf(server, sizeof(server), "%s", t_src("fixtures/leak_gpu_snapshot/server.err"));
	argv[10] = kern;
	argv[11] = pickle;
	argv[12] = server;
	fflush(stderr);
	dup2(null, 2);
	n_alloc = 0;
	failed_once = 0;
	fail_at = fail;
	r = cmd_analyze(13, argv);
	fail_at = 0;
	fflush(stderr);
	dup2(err, 2);
	close(err);
	close(null);
	return r;
}

/* What a run left in dir: no temporary; a database that is whole; a
 * report that is whole. Then dir is emptied. */
static void check_and_clear(long n, int rc)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	sqlite3 *h;
	sqlite3_stmt *st;

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (strcmp(de->d_name, "x.db") && strcmp(de->d_name, "x.html"))
			fail_msg("allocation %ld failing (exit %d) left %s behind", n, rc, de->d_name);
	}
	closedir(d);
	if (access(db, F_OK) == 0) {
		assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &st, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		if (strcmp((const char *)sqlite3_column_text(st, 0), "ok"))
			fail_msg("allocation %ld failing: database %s", n, sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
		sqlite3_close(h);
		if (rc != 0)
			fail_msg("allocation %ld failing: exit %d, yet a database is left", n, rc);
	}
	if (access(html, F_OK) == 0) {
		FILE *f = fopen(html, "r");
		char tail[64] = "";
		assert_non_null(f);
		fseek(f, -15, SEEK_END);
		assert_non_null(fgets(tail, sizeof(tail), f));
		fclose(f);
		if (!strstr(tail, "</html>"))
			fail_msg("allocation %ld failing: a cut report", n);
		if (rc != 0)
			fail_msg("allocation %ld failing: exit %d, yet a report is left", n, rc);
	}
	unlink(db);
	unlink(html);
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

static void every_allocation_may_fail(void **state)
{
	long total, *ns, n, i, k = 0, cap, step, runs = 0, refused = 0;
	int rc;
	(void)state;

	install_hooks();
	snprintf(dir, sizeof(dir), "%s/alloc_fail.XXXXXX", BINDIR);
	assert_non_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/x.db", dir);
	snprintf(html, sizeof(html), "%s/x.html", dir);

	counting = 1;
	rc = run_analysis(0);
	counting = 0;
	total = n_alloc;
	assert_int_equal(rc, 0);
	check_and_clear(0, 0);

	step = total / SPREAD > 1 ? total / SPREAD : 1;
	cap = FIRST_ALL + (long)n_sites + total / step + LAST_ALL + 8;
	ns = calloc((size_t)cap, sizeof(*ns));
	assert_non_null(ns);
	for (n = 1; n <= FIRST_ALL && n <= total; n++)
		ns[k++] = n;
	for (i = 0; i < (long)n_sites; i++)
		ns[k++] = sites[i].first;
	for (n = FIRST_ALL + step / 2; n <= total; n += step)
		ns[k++] = n;
	for (n = total - LAST_ALL; n <= total; n++)
		if (n > 0)
			ns[k++] = n;
	qsort(ns, (size_t)k, sizeof(*ns), cmp_long);
	print_message("alloc_fail: %ld allocations in the run, %zu sites of ours;"
		      " failing each of %ld chosen ones\n", total, n_sites, k);
	for (i = 0; i < k; i++) {
		if (i && ns[i] == ns[i - 1])
			continue;
		rc = run_analysis(ns[i]);
		check_and_clear(ns[i], rc);
		runs++;
		refused += rc != 0;
	}
	print_message("alloc_fail: %ld runs, %ld ended in an error, the others completed"
		      " without what could not be allocated\n", runs, refused);
	assert_true(refused > 0);
	/* past the end: nothing fails, and the analysis completes */
	for (n = total + 1;; n++) {
		rc = run_analysis(n);
		check_and_clear(n, rc);
		if (!failed_once)
			break;
	}
	assert_int_equal(rc, 0);
	free(ns);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_allocation_may_fail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
