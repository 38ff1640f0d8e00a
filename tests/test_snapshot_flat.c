/*
 * test_snapshot_flat.c -- the flat form of a snapshot (oomlens convert):
 * the same timeline as the pickle it came from, bad lines and truncation;
 * and the JSON report's snapshots section.
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

/* ---- the flat form ---- */

/* Convert a fixture pickle to the flat form in memory (as oomlens convert
 * does); returns the text, *n its length. */
static char *convert(const char *rel, size_t *n)
{
	size_t len;
	char *data = t_slurp(rel, &len), *out = NULL;
	struct input in;
	struct sink s;
	struct ts_ops ops;
	struct ts_writer *w;
	FILE *f = open_memstream(&out, n);

	memset(&s, 0, sizeof(s));
	assert_non_null(f);
	input_open_mem(&in, rel, data, len);
	w = ts_writer_new(f, &s, &ops);
	assert_int_equal(torch_snapshot_decode(&in, &s, &ops), 0);
	assert_true(ts_writer_free(w) > 0);
	fclose(f);
	input_close(&in);
	free(data);
	return out;
}

/* Every row of every table but artifact and diagnostic, as text. */
static char *dump_tables(struct timeline *tl)
{
	struct strbuf sb = STRBUF_INIT;
	sqlite3_stmt *t, *q;

	assert_int_equal(sqlite3_prepare_v2(tl->db, "SELECT name FROM sqlite_master WHERE"
					    " type = 'table' AND name NOT IN ('artifact', 'diagnostic')"
					    " ORDER BY name", -1, &t, NULL), SQLITE_OK);
	while (sqlite3_step(t) == SQLITE_ROW) {
		char sql[200];
		snprintf(sql, sizeof(sql), "SELECT * FROM \"%s\" ORDER BY rowid",
			 (const char *)sqlite3_column_text(t, 0));
		if (sqlite3_prepare_v2(tl->db, sql, -1, &q, NULL) != SQLITE_OK) {
			/* WITHOUT ROWID tables */
			snprintf(sql, sizeof(sql), "SELECT * FROM \"%s\" ORDER BY 1, 2",
				 (const char *)sqlite3_column_text(t, 0));
			assert_int_equal(sqlite3_prepare_v2(tl->db, sql, -1, &q, NULL), SQLITE_OK);
		}
		strbuf_addf(&sb, "== %s\n", (const char *)sqlite3_column_text(t, 0));
		while (sqlite3_step(q) == SQLITE_ROW) {
			for (int i = 0; i < sqlite3_column_count(q); i++) {
				const unsigned char *v = sqlite3_column_text(q, i);
				strbuf_addf(&sb, "%s|", v ? (const char *)v : "NULL");
			}
			strbuf_addch(&sb, '\n');
		}
		sqlite3_finalize(q);
	}
	sqlite3_finalize(t);
	return strbuf_detach(&sb, NULL);
}

static void flat_form_gives_the_same_timeline(void **state)
{
	static const char *const files[] = {
		"v1_13_list.p2.pickle", "v2_0.p4.pickle", "v2_1.p4.pickle", "v2_5.p2.pickle",
		"v2_5.p4.pickle", "v2_11.p5.pickle", "big.p4.pickle", "bigint.p4.pickle",
		"holders_frames.p4.pickle", "holders_history.p4.pickle",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		char rel[80];
		size_t pn, fn;
		char *pick, *flat, *a, *b;
		struct timeline *ta = t_open(), *tb = t_open();
		snprintf(rel, sizeof(rel), "tests/data/snapshot/%s", files[i]);
		pick = t_slurp(rel, &pn);
		flat = convert(rel, &fn);
		assert_true(torch_flat_sniff((unsigned char *)flat, fn) > 50);
		assert_int_equal(torch_snapshot_sniff((unsigned char *)flat, fn), 0);
		t_parse_mem(ta, "torch_snapshot", files[i], pick, pn);
		t_parse_mem(tb, "torch_snapshot_flat", files[i], flat, fn);
		a = dump_tables(ta);
		b = dump_tables(tb);
		assert_true(strlen(a) > 100);
		assert_string_equal(a, b);
		assert_int_equal(t_int(ta, "SELECT count(*) FROM diagnostic WHERE severity = 'error'"),
				 t_int(tb, "SELECT count(*) FROM diagnostic WHERE severity = 'error'"));
		free(a);
		free(b);
		free(pick);
		free(flat);
		t_close(ta);
		t_close(tb);
	}
}

static void flat_form_bad_lines_and_truncation(void **state)
{
	size_t fn;
	char *flat = convert("tests/data/snapshot/v2_5.p4.pickle", &fn);
	struct strbuf sb = STRBUF_INIT;
	struct timeline *tl = t_open();
	char *cut;
	(void)state;

	/* a garbage line 3, and the file cut before its end record */
	cut = strstr(flat, "{\"type\":\"trace\",\"device\":1,\"seq\":1");
	assert_non_null(cut);
	{
		char *l3 = strchr(strchr(flat, '\n') + 1, '\n') + 1;
		strbuf_add(&sb, flat, (size_t)(l3 - flat));
		strbuf_addstr(&sb, "{\"type\": \"segment\", oops\n");
		strbuf_add(&sb, l3, (size_t)(cut - l3));
	}
	t_parse_mem(tl, "torch_snapshot_flat", "cut.jsonl", sb.buf, sb.len);
	assert_int_equal(t_int(tl, "SELECT line FROM diagnostic WHERE message LIKE"
			       " 'expected one JSON object per line%%'"), 3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'no end record%%'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM trace"), 9);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM alloc WHERE device = 1 AND state = 'live'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM segment"), 2);
	/* not the header first: nothing read */
	t_parse_mem(tl, "torch_snapshot_flat", "nohdr.jsonl", "{\"type\":\"end\"}\n", 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'expected the header record%%'"), 1);
	strbuf_release(&sb);
	free(flat);
	t_close(tl);
}

/* The JSON report's snapshots section and torch_oom event. */
static void json_report_snapshots(void **state)
{
	struct timeline *tl = t_open();
	json_t *r, *sn, *oom, *ev;
	size_t i;
	int found = 0;
	(void)state;

	assert_int_equal(t_parse_file(tl, "tests/data/snapshot/v2_5.p4.pickle"), 0);
	assert_int_equal(t_parse_file(tl, "tests/data/snapshot/v1_13_list.p2.pickle"), 0);
	r = report_json(tl->db);
	assert_int_equal(json_array_size(json_object_get(r, "snapshots")), 2);
	sn = json_array_get(json_object_get(r, "snapshots"), 0);
	assert_int_equal(json_integer_value(json_object_get(sn, "devices")), 2);
	assert_int_equal(json_integer_value(json_object_get(sn, "segments")), 2);
	assert_int_equal(json_integer_value(json_object_get(sn, "reserved_bytes")), 22 * MiB);
	assert_int_equal(json_integer_value(json_object_get(sn, "allocated_bytes")),
			 2 * MiB + 512 * 1024);
	assert_int_equal(json_integer_value(json_object_get(sn, "trace_events")), 11);
	assert_int_equal(json_integer_value(json_object_get(sn, "allocs")), 4);
	assert_int_equal(json_integer_value(json_object_get(sn, "peak_allocated_bytes")), 3145728);
	assert_int_equal(json_array_size(json_object_get(sn, "ooms")), 1);
	oom = json_array_get(json_object_get(sn, "ooms"), 0);
	assert_int_equal(json_integer_value(json_object_get(oom, "device")), 0);
	assert_int_equal(json_integer_value(json_object_get(oom, "requested_bytes")), 100 * MiB);
	assert_int_equal(json_integer_value(json_object_get(oom, "device_free_bytes")), 12345678);
	assert_string_equal(json_string_value(json_object_get(oom, "time")),
			    "2023-11-14T22:13:20.000060Z");
	/* the segments-only snapshot: no trace figures */
	sn = json_array_get(json_object_get(r, "snapshots"), 1);
	assert_true(json_is_null(json_object_get(sn, "peak_allocated_bytes")));
	assert_int_equal(json_array_size(json_object_get(sn, "ooms")), 0);
	json_array_foreach(json_object_get(r, "events"), i, ev)
		if (!strcmp(json_string_value(json_object_get(ev, "kind")), "torch_oom")) {
			found++;
			assert_int_equal(json_integer_value(json_object_get(ev, "device_free_bytes")),
					 12345678);
			assert_int_equal(json_integer_value(json_object_get(ev, "bytes")), 100 * MiB);
		}
	assert_int_equal(found, 1);
	json_decref(r);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flat_form_gives_the_same_timeline),
		cmocka_unit_test(flat_form_bad_lines_and_truncation),
		cmocka_unit_test(json_report_snapshots),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
