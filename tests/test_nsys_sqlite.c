/*
 * test_nsys_sqlite.c -- Nsight Systems SQLite exports (parsers/tools/nsys_sqlite.c).
 *
 * Each database is written by SQLite from NVIDIA's schema
 * (tests/data/nsys/schema.sql) with rows shaped as the exporter writes
 * them (the session start and cards of a real A100 capture, the API
 * recorded twice, cudaMalloc then cudaMalloc_v3020 inside it), then
 * ingested as a user's file would be: detection, figures, and the file
 * left as it was, nothing written beside it.
 */
#include "testutil.h"
#include "analyzer/ingest/ingest.h"
#include "lib/input.h"
#include "parsers/tools/nsys_sqlite.h"

#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GiB 1073741824LL
#define EPOCH 1696392839587175550LL
#define MS 1000000LL

static char dir[64];

/* dir/name written from the schema, then sql. Returns its path (static). */
static const char *make_db(const char *name, int schema, const char *sql)
{
	static char path[128];
	sqlite3 *db;
	size_t n;
	char *ddl = schema ? t_slurp("tests/data/nsys/schema.sql", &n) : NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (ddl)
		assert_int_equal(sqlite3_exec(db, ddl, NULL, NULL, NULL), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("%s", sqlite3_errmsg(db));
	sqlite3_close(db);
	free(ddl);
	return path;
}

static const char capture_rows[] =
	"INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES(1696392839587175550,"
	" '2023-10-04T04:13:59', '2023-10-03T21:13:59');"
	"INSERT INTO TARGET_INFO_GPU(vmId, id, name, busLocation, totalMemory, cuDevice)"
	" VALUES(0, 0, 'NVIDIA A100-SXM4-80GB', '0000:03:00.0', 84990623744, 0),"
	" (0, 1, 'NVIDIA A100-SXM4-80GB', '0000:41:00.0', 84990623744, 1);"
	"INSERT INTO StringIds VALUES(1, 'cudaMalloc'), (2, 'cudaMalloc_v3020'),"
	" (3, 'cudaFree_v3020'), (4, 'cudaLaunchKernel_v7000');"
	/* one call, recorded as the API and its entry point inside it */
	"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(1000000, 1900000, 67, 7, 10, 1, 0, NULL),"
	" (1000300, 1899000, 0, 7, 10, 2, 0, NULL),"
	" (2000000, 2100000, 0, 7, 11, 4, 0, NULL),"
	" (40000000, 40100000, 0, 7, 12, 3, 0, NULL),"
	/* the one that failed: out of memory (2), twice recorded too */
	" (60000000, 60500000, 67, 7, 13, 1, 2, NULL),"
	" (60000200, 60400000, 0, 7, 13, 2, 2, NULL);"
	/* device memory on gpu0: 1 + 2 GiB, 1 freed, 4 more: 6 GiB at 50 ms */
	"INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS(start, globalPid, deviceId, contextId, address,"
	" pc, bytes, memKind, memoryOperationType) VALUES"
	" (1000500, 7, 0, 1, 140000000000000, 0, 1073741824, 2, 0),"
	" (5000000, 7, 0, 1, 140002000000000, 0, 2147483648, 2, 0),"
	" (7000000, 7, 0, 1, 140009000000000, 0, 65536, 1, 0),"
	" (30000000, 7, 0, 1, 140000000000000, 0, 1073741824, 2, 1),"
	" (50000000, 7, 0, 1, 140004000000000, 0, 4294967296, 2, 0),"
	" (51000000, 7, 1, 2, 150000000000000, 0, 536870912, 2, 0);";

static struct timeline *ingest(const char *path)
{
	struct timeline *tl = t_open();
	struct ingest_cfg cfg = { .quiet = 1 };
	struct ingest_stats st;
	char *p = strdup(path);

	ingest_paths(tl, &p, 1, &cfg, &st);
	free(p);
	return tl;
}

static void figures_of_a_capture(void **state)
{
	const char *path = make_db("capture.sqlite", 1, capture_rows);
	struct timeline *tl = ingest(path);
	(void)state;

	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "nsys_sqlite");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM series s JOIN sample ON series_id = s.id"
			       " WHERE s.name = 'gpu.total_bytes' AND value = 84990623744"
			       " AND time_ns = %lld", EPOCH), 2);
	/* buckets of 10 ms, each at its highest: 3 GiB at 5 ms, 2 at 30, 6 at 50 */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample WHERE series_id = (SELECT id"
			       " FROM series WHERE name = 'cuda.allocated_bytes' AND entity = 'gpu0')"), 3);
	assert_int_equal(t_int(tl, "SELECT value FROM sample WHERE series_id = (SELECT id FROM series"
			       " WHERE name = 'cuda.allocated_bytes' AND entity = 'gpu0')"
			       " AND time_ns = %lld", EPOCH + 5 * MS), 3 * GiB);
	assert_int_equal(t_int(tl, "SELECT max(value) FROM sample WHERE series_id = (SELECT id"
			       " FROM series WHERE name = 'cuda.allocated_bytes' AND entity = 'gpu0')"),
			 6 * GiB);
	assert_int_equal(t_int(tl, "SELECT bytes FROM event WHERE kind = 'nsys_memory'"
			       " AND json_extract(data, '$.device') = 0"), 6 * GiB);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind = 'nsys_memory'"
			       " AND json_extract(data, '$.device') = 0"), EPOCH + 50 * MS);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.allocations') FROM event"
			       " WHERE kind = 'nsys_memory' AND json_extract(data, '$.device') = 0"), 3);
	assert_int_equal(t_int(tl, "SELECT bytes FROM event WHERE kind = 'nsys_memory'"
			       " AND json_extract(data, '$.device') = 1"), GiB / 2);
	/* the pinned host buffer is not device memory */
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.other_memory_kinds') FROM event"
			       " WHERE kind = 'nsys_capture'"), 1);
	/* each call once, the failed one an event at its time */
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.allocation_calls') FROM event"
			       " WHERE kind = 'nsys_capture'"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'alloc_failed'"), 1);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind = 'alloc_failed'"),
			 EPOCH + 60 * MS);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.out_of_memory') FROM event"
			       " WHERE kind = 'alloc_failed'"), 1);
	assert_non_null(strstr(t_text(tl, "SELECT summary FROM event WHERE kind = 'nsys_capture'"),
			       "2 GPUs NVIDIA A100-SXM4-80GB"));
	t_close(tl);
}

/* Names in dir, sorted, space-separated (static). */
static const char *listing(void)
{
	static char out[1024];
	struct dirent **e;
	int n = scandir(dir, &e, NULL, alphasort), i;

	out[0] = 0;
	for (i = 0; i < n; i++) {
		if (e[i]->d_name[0] != '.' || strlen(e[i]->d_name) > 2)
			strncat(out, e[i]->d_name, sizeof(out) - strlen(out) - 2), strcat(out, " ");
		free(e[i]);
	}
	free(e);
	return out;
}

static void the_export_is_left_as_it_was(void **state)
{
	const char *path = make_db("capture.sqlite", 1, capture_rows);
	char before[1024], *bytes0, *bytes1;
	size_t n0, n1;
	struct stat s0, s1;
	struct timeline *tl;
	FILE *f;
	(void)state;

	assert_int_equal(stat(path, &s0), 0);
	assert_non_null(f = fopen(path, "rb"));
	bytes0 = malloc((size_t)s0.st_size);
	n0 = fread(bytes0, 1, (size_t)s0.st_size, f);
	fclose(f);
	snprintf(before, sizeof(before), "%s", listing());
	chmod(path, 0444);            /* read-only evidence still reads */
	tl = ingest(path);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'nsys_capture'"), 1);
	t_close(tl);
	assert_int_equal(stat(path, &s1), 0);
	assert_int_equal(s1.st_size, s0.st_size);
	assert_int_equal(s1.st_mtime, s0.st_mtime);
	assert_non_null(f = fopen(path, "rb"));
	bytes1 = malloc((size_t)s1.st_size);
	n1 = fread(bytes1, 1, (size_t)s1.st_size, f);
	fclose(f);
	assert_int_equal(n0, n1);
	assert_memory_equal(bytes0, bytes1, n0);
	assert_string_equal(listing(), before);  /* no journal, no -shm, no lock */
	chmod(path, 0644);
	free(bytes0);
	free(bytes1);
}

static void not_an_export(void **state)
{
	const char *path = make_db("other.sqlite", 0,
				   "CREATE TABLE notes(id INTEGER, text TEXT);"
				   "INSERT INTO notes VALUES(1, 'CUDA_GPU_MEMORY_USAGE_EVENTS');");
	struct timeline *tl = ingest(path);
	(void)state;

	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 0);
	assert_non_null(strstr(t_text(tl, "SELECT message FROM diagnostic"),
			       "not an Nsight Systems export"));
	t_close(tl);
}

/* A view under a table's name (a hostile file) is never read. */
static void views_are_not_read(void **state)
{
	const char *path = make_db("view.sqlite", 0,
		"CREATE TABLE TARGET_INFO_GPU(vmId, id, name, totalMemory);"
		"INSERT INTO TARGET_INFO_GPU VALUES(0, 0, 'NVIDIA H100 80GB HBM3', 85520809984);"
		"CREATE VIEW CUDA_GPU_MEMORY_USAGE_EVENTS AS WITH RECURSIVE c(x) AS"
		" (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x AS start, 0 AS deviceId,"
		" 1 AS bytes, 2 AS memKind, 0 AS memoryOperationType FROM c;");
	struct timeline *tl = ingest(path);
	(void)state;

	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'nsys_capture'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM series WHERE name = 'cuda.allocated_bytes'"), 0);
	assert_int_equal(t_int(tl, "SELECT value FROM sample"), 85520809984LL);
	/* no start time: said, and the sample is untimed */
	assert_int_equal(t_int(tl, "SELECT time_ns FROM sample"), OL_NULL);
	assert_non_null(strstr(t_text(tl, "SELECT group_concat(message) FROM diagnostic"),
			       "TARGET_INFO_SESSION_START_TIME"));
	t_close(tl);
}

static void a_cut_export_is_said(void **state)
{
	const char *path = make_db("capture.sqlite", 1, capture_rows);
	char cut[160];
	struct stat st;
	struct timeline *tl;
	char *all;
	size_t n;
	FILE *f;
	(void)state;

	assert_int_equal(stat(path, &st), 0);
	assert_non_null(f = fopen(path, "rb"));
	all = malloc((size_t)st.st_size);
	n = fread(all, 1, (size_t)st.st_size, f);
	fclose(f);
	snprintf(cut, sizeof(cut), "%s/cut.sqlite", dir);
	assert_non_null(f = fopen(cut, "wb"));
	fwrite(all, 1, n / 3, f);
	fclose(f);
	free(all);
	tl = ingest(cut);
	assert_true(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'error'") >= 1);
	t_close(tl);
}

/* The fuzzers' path: the same bytes as a memory input, the same figures. */
static void bytes_in_memory_read_the_same(void **state)
{
	const char *path = make_db("capture.sqlite", 1, capture_rows);
	struct stat st;
	struct input in;
	struct sink s;
	char *all;
	FILE *f;
	size_t n;
	(void)state;

	assert_int_equal(stat(path, &st), 0);
	assert_non_null(f = fopen(path, "rb"));
	all = malloc((size_t)st.st_size);
	n = fread(all, 1, (size_t)st.st_size, f);
	fclose(f);
	assert_int_equal(nsys_sqlite_sniff((unsigned char *)all, n), 90);
	memset(&s, 0, sizeof(s));
	assert_int_equal(input_open_mem(&in, "capture.sqlite", all, n), 0);
	/* 2 capacities, 3 + 1 series samples, 2 nsys_memory, 1 alloc_failed,
	 * 1 nsys_capture */
	assert_int_equal(nsys_sqlite_parse(&in, &s), 10);
	input_close(&in);
	free(all);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/oomlens-nsys-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(figures_of_a_capture),
		cmocka_unit_test(the_export_is_left_as_it_was),
		cmocka_unit_test(not_an_export),
		cmocka_unit_test(views_are_not_read),
		cmocka_unit_test(a_cut_export_is_said),
		cmocka_unit_test(bytes_in_memory_read_the_same),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
