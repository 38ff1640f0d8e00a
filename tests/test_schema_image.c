/*
 * test_schema_image.c -- a new database started from a schema image
 * (analyzer/store/schema_image.h) is the database the schema's CREATE
 * statements make: the same tables, indexes and version, and it takes
 * rows and commits like one. The image is made here as the build's tool
 * makes it (timeline_open on :memory:, sqlite3_serialize), cut into its
 * non-zero runs; an image of another schema version is ignored, and one
 * of this version is really used (a damaged one is refused).
 */
#include "testutil.h"
#include "analyzer/store/schema_image.h"
#include "analyzer/store/timeline.h"
#include "lib/strbuf.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUNS_MAX 4096

static unsigned char *bytes;          /* the serialized empty database */
static struct schema_run runs[RUNS_MAX];
static struct schema_image image;
static char dir[] = "/tmp/oomlens-schema-image-XXXXXX";

/* The schema as SQLite holds it: every object's type, name and SQL. */
static char *schema_of(struct timeline *tl)
{
	sqlite3_stmt *st;
	struct strbuf out = STRBUF_INIT;

	assert_int_equal(sqlite3_prepare_v2(tl->db, "SELECT type, name, sql FROM sqlite_master"
					    " ORDER BY name", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		strbuf_addf(&out, "%s %s %s\n", sqlite3_column_text(st, 0),
			    sqlite3_column_text(st, 1), sqlite3_column_text(st, 2));
	sqlite3_finalize(st);
	return strbuf_detach(&out, NULL);
}

/* The empty database as the tool makes it, into bytes, runs and image. */
static int make_image(void **state)
{
	struct timeline tl;
	struct strbuf err = STRBUF_INIT;
	sqlite3_int64 n = 0;
	size_t i = 0, k = 0, start;

	(void)state;
	assert_int_equal(timeline_open(&tl, ":memory:", TL_CREATE, &err), 0);
	bytes = sqlite3_serialize(tl.db, "main", &n, 0);
	assert_non_null(bytes);
	timeline_close(&tl);
	while (i < (size_t)n) {   /* a run ends at the first zero byte */
		if (!bytes[i]) {
			i++;
			continue;
		}
		for (start = i; i < (size_t)n && bytes[i]; i++)
			;
		assert_true(k < RUNS_MAX);
		runs[k].offset = start;
		runs[k].len = i - start;
		runs[k].bytes = bytes + start;
		k++;
	}
	assert_true(k > 1);   /* several runs: the zeros between are skipped */
	image.size = (size_t)n;
	image.nruns = k;
	image.runs = runs;
	image.schema_version = TIMELINE_SCHEMA_VERSION;
	assert_non_null(mkdtemp(dir));
	strbuf_release(&err);
	return 0;
}

static int drop_image(void **state)
{
	char cmd[sizeof(dir) + 16];

	(void)state;
	timeline_use_schema_image(NULL);
	sqlite3_free(bytes);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A database file made with the image: the created schema, rows kept. */
static void image_gives_the_created_schema(void **state)
{
	struct timeline made, from, back;
	struct strbuf err = STRBUF_INIT;
	char path[sizeof(dir) + 16], *want, *got;

	(void)state;
	timeline_use_schema_image(NULL);
	assert_int_equal(timeline_open(&made, ":memory:", TL_CREATE, &err), 0);
	want = schema_of(&made);
	timeline_close(&made);

	timeline_use_schema_image(&image);
	snprintf(path, sizeof(path), "%s/a.db", dir);
	assert_int_equal(timeline_open(&from, path, TL_CREATE, &err), 0);
	got = schema_of(&from);
	assert_string_equal(got, want);
	assert_true(strlen(got) > 1000);
	assert_int_equal(timeline_meta(&from, "incident.apart", "kept"), 0);
	assert_int_equal(timeline_commit(&from, &err), 0);
	timeline_close(&from);

	assert_int_equal(timeline_open(&back, path, TL_READ, &err), 0);
	assert_int_equal(t_int(&back, "PRAGMA user_version"), TIMELINE_SCHEMA_VERSION);
	assert_string_equal(t_text(&back, "SELECT value FROM meta WHERE key = 'incident.apart'"),
			    "kept");
	timeline_close(&back);
	free(want);
	free(got);
	strbuf_release(&err);
}

/* The image is what a new file starts as: a damaged one of this version
 * is refused; one of another version is not used at all. */
static void image_is_used_only_at_its_version(void **state)
{
	struct timeline tl;
	struct strbuf err = STRBUF_INIT;
	struct schema_image bad = image;
	struct schema_run junk = { 0, 16, (const unsigned char *)"not a database!!" };
	char path[sizeof(dir) + 16];

	(void)state;
	bad.runs = &junk;
	bad.nruns = 1;
	timeline_use_schema_image(&bad);
	snprintf(path, sizeof(path), "%s/b.db", dir);
	assert_int_equal(timeline_open(&tl, path, TL_CREATE, &err), -1);
	assert_non_null(strstr(err.buf, path));
	assert_int_equal(access(path, F_OK), -1);   /* nothing left behind */

	bad.schema_version = TIMELINE_SCHEMA_VERSION + 1;
	timeline_use_schema_image(&bad);
	strbuf_reset(&err);
	assert_int_equal(timeline_open(&tl, path, TL_CREATE, &err), 0);
	assert_int_equal(t_int(&tl, "PRAGMA user_version"), TIMELINE_SCHEMA_VERSION);
	timeline_close(&tl);
	timeline_use_schema_image(NULL);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(image_gives_the_created_schema),
		cmocka_unit_test(image_is_used_only_at_its_version),
	};
	return cmocka_run_group_tests(tests, make_image, drop_image);
}
