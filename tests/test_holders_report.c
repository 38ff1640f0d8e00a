/*
 * test_holders_report.c -- what held the memory in the three report forms,
 * rendered from snapshots ingested as a user would (fixtures/gen_holders.py):
 * the holders at the snapshot, the peak and the OOM with their user's
 * frame and full stack, the Active Memory Timeline fitted to the trace,
 * the segments' blocks naming their holder, the pools, what the recorder
 * missed, the header's peak from the snapshot alone, the JSON keys of
 * docs/json.md; the diagnostic tools' holders (memray, the profiler) next
 * to the snapshot's; and hostile frame names escaped.
 */
#include "analyzer/derive/oom.h"
#include "testutil.h"
#include "analyzer/derive/derive.h"
#include "reports/report.h"
#include "lib/strbuf.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct timeline *ingest(const char *name)
{
	struct timeline *tl = t_open();
	char rel[128];

	snprintf(rel, sizeof(rel), "tests/data/snapshot/%s", name);
	assert_int_equal(t_parse_file(tl, rel), 0);
	return tl;
}

static char *render(struct timeline *tl, enum report_format f)
{
	struct strbuf err = STRBUF_INIT;
	char *buf = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&buf, &n);

	assert_non_null(out);
	/* the derived tables the reports read, as analyze derives them (the
	 * test built the rest) */
	assert_int_equal(derive_one(tl, "oom", &err), 0);
	assert_int_equal(derive_one(tl, "peak", &err), 0);
	assert_int_equal(report_write(tl->db, f, out, &err), 0);
	if (err.len)
		fail_msg("the report said: %s", err.buf);
	strbuf_release(&err);
	fclose(out);
	return buf;
}

static void contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("expected to find: %s", needle);
}

static void lacks(const char *hay, const char *needle)
{
	if (strstr(hay, needle))
		fail_msg("did not expect: %s", needle);
}

static void html_names_the_holders(void **state)
{
	struct timeline *tl = ingest("holders_frames.p4.pickle");
	char *h = render(tl, REPORT_HTML);
	(void)state;

	contains(h, "<a href=\"#holders\">Holders</a>");
	contains(h, "<section id=holders><h2>What held the memory: live memory by allocation"
		    " stack</h2>");
	contains(h, "5 live blocks hold 32.0 MiB");
	contains(h, "<h3>cuda:0 at the snapshot: 32.0 MiB live</h3>");
	/* the user's frame first, the stack one click away, C++ frames folded */
	contains(h, "<code>grow</code> <span class=muted>/srv/app/kv_cache.py:42</span>");
	contains(h, "<details><summary>full stack (5 frames)</summary><div class=frames>"
		    "<span class=muted>&#8230; 2 C++ frames</span><br><code>forward</code>");
	/* a stack with no Python frame shows its C++ frames */
	contains(h, "<code>torch::unwind::unwind()</code> <span class=muted>?\?:0</span>");
	contains(h, "no stack recorded (allocated before history recording started)");
	contains(h, "<span class=tag>kv-cache layer 0</span>");
	contains(h, "<h3>cuda:0 at the peak of the trace: 43.0 MiB live after event 3");
	contains(h, "<h3>cuda:0 at the OOM (event 9): 31.9 MiB live when 100 MiB could not be"
		    " allocated, 1.00 MiB free on the device</h3>");
	/* what the recorder missed, with the option that records it */
	contains(h, "<p class=sub>What the recorder did not keep</p>");
	contains(h, "To record it:</span> <code>torch.cuda.memory._record_memory_history("
		    "max_entries=100000) before the model is loaded");
	/* the Active Memory Timeline spans the 80 us trace */
	contains(h, "Active Memory Timeline of cuda:0");
	contains(h, "class=xl>+20 us</text>");
	contains(h, "80 us in all");
	contains(h, "<title>/srv/app/kv_cache.py:42 grow</title></path>");
	contains(h, "every other holder");
	/* the segments name each block's holder */
	contains(h, "<title>1 block, 16.0 MiB; holder: /srv/app/kv_cache.py:42 grow</title>");
	/* pools */
	contains(h, "<h3>Memory pools</h3>");
	contains(h, "0,1 <span class=tag>private: CUDA graph or MemPool</span>");
	/* the global chart fits the trace, not a minute around it */
	contains(h, "time (UTC) after 2023-11-14T22:13:19.999997Z");
	lacks(h, "22:13:50");
	free(h);
	t_close(tl);
}

static void markdown_names_the_top_holders(void **state)
{
	struct timeline *tl = ingest("holders_frames.p4.pickle");
	char *m = render(tl, REPORT_MD);
	(void)state;

	contains(m, "### What held the memory\n\n- **cuda:0 at the snapshot** (32.0 MiB live):\n"
		    "  1. 16.0 MiB in 1 allocation (50 %): /srv/app/kv_cache.py:42 grow\n");
	contains(m, "- **cuda:0 at the peak of the trace** (43.0 MiB live):");
	contains(m, "- **cuda:0 at the OOM** (31.9 MiB live):");
	contains(m, "  3. 4.00 MiB in 1 allocation (12 %): no stack recorded");
	contains(m, "Not recorded:\n- 1 of 5 live blocks");
	free(m);
	t_close(tl);
}

static void json_holders_largest_first(void **state)
{
	struct timeline *tl = ingest("holders_frames.p4.pickle");
	char *s = render(tl, REPORT_JSON);
	json_t *j = json_loads(s, 0, NULL), *sn, *h;
	(void)state;

	assert_non_null(j);
	sn = json_array_get(json_object_get(j, "snapshots"), 0);
	h = json_array_get(json_object_get(sn, "holders"), 0);
	assert_int_equal(json_integer_value(json_object_get(h, "bytes")), 16 << 20);
	assert_int_equal(json_integer_value(json_object_get(h, "allocations")), 1);
	assert_int_equal(json_integer_value(json_object_get(h, "largest_bytes")), 16 << 20);
	assert_true(json_integer_value(json_object_get(h, "stack_id")) > 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(h, "frame"),
							      "filename")), "/srv/app/kv_cache.py");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(h, "frame"), "line")),
			 42);
	assert_string_equal(json_string_value(json_object_get(json_object_get(h, "frame"), "name")),
			    "grow");
	h = json_array_get(json_object_get(sn, "holders"), 2);
	assert_true(json_is_null(json_object_get(h, "frame")));
	assert_string_equal(json_string_value(json_object_get(h, "kind")), "no_stack");
	assert_int_equal(json_array_size(json_object_get(sn, "holders")), 5);
	assert_int_equal(json_array_size(json_object_get(sn, "holders_at_peak")), 7);
	h = json_array_get(json_object_get(sn, "holders_at_peak"), 1);
	assert_int_equal(json_integer_value(json_object_get(h, "bytes")), 10 << 20);
	assert_int_equal(json_array_size(json_object_get(sn, "holders_at_oom")), 5);
	assert_int_equal(json_array_size(json_object_get(sn, "pools")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(
		json_object_get(sn, "recording"), "devices"), 0), "peak_seq")), 3);
	json_decref(j);
	free(s);
	t_close(tl);
}

/* No series at all: the header's peak is the snapshot's (table peak), its
 * highest measure: reserved at the snapshot, with the live bytes at the
 * trace's peak beside it when the snapshot has a trace. */
static void peak_card_from_the_snapshot(void **state)
{
	struct timeline *tl = ingest("holders_nostacks.p4.pickle");
	char *h = render(tl, REPORT_HTML), *m;
	(void)state;

	contains(h, "Peak memory</div><div class=kv>20.0 MiB</div><div class=ks>reserved at the"
		    " snapshot, cuda:0");
	lacks(h, "no memory-in-use figure in bytes in the artifacts</div>");
	free(h);
	m = render(tl, REPORT_MD);
	/* the file the figure came from after the source (schema 9) */
	contains(m, "- **Peak memory:** 20.0 MiB (reserved at the snapshot, cuda:0, from"
		    " holders_nostacks.p4.pickle)");
	free(m);
	t_close(tl);
	tl = ingest("holders_history.p4.pickle");
	h = render(tl, REPORT_HTML);
	/* the segments at the snapshot hold more than the trace's peak had
	 * live: the card's peak is the reserved figure, the allocated one is
	 * shown beside it as what it measures (issue 25) */
	contains(h, "Peak memory</div><div class=kv>20.0 MiB</div><div class=ks>reserved at the"
		    " snapshot, cuda:0");
	contains(h, "<br>allocated 7.00 MiB \xc2\xb7 reserved 20.0 MiB");
	/* an untimed trace: its timeline over the trace's order */
	contains(h, "trace event (the trace has no times)");
	free(h);
	t_close(tl);
}

/* Frame names and files are the program's: escaped in every form. */
static void hostile_frames_are_escaped(void **state)
{
	struct timeline *tl = ingest("holders_frames.p4.pickle");
	char *h, *m;
	(void)state;

	assert_int_equal(sqlite3_exec(tl->db, "UPDATE holder SET label = '<script>x</script>',"
				      " frame_name = '<img src=x onerror=alert(1)>';"
				      " UPDATE frame SET name = '<script>y</script>'", NULL, NULL,
				      NULL), SQLITE_OK);
	h = render(tl, REPORT_HTML);
	lacks(h, "<script");
	lacks(h, "<img");
	contains(h, "&lt;img src=x onerror=alert(1)&gt;");
	free(h);
	m = render(tl, REPORT_MD);
	/* Markdown shows a '<' as a character once it is backslash-escaped */
	lacks(m, " <script");
	lacks(m, " <img");
	contains(m, "\\<script>x\\</script>");
	free(m);
	t_close(tl);
}

/* Two snapshots by holder: the KV cache grown, model.py gone (its block
 * freed), the C++-only block now sampler.py's (new, then gone: equal
 * changes go grown, new, shrunk, gone), the rest the same; largest change
 * first; the pools matched. */
static void diff_by_holder_and_pool(void **state)
{
	struct timeline *a = ingest("holders_frames.p4.pickle"), *b = ingest("holders_b.p4.pickle");
	struct strbuf err = STRBUF_INIT;
	char *buf = NULL;
	size_t n = 0, i;
	FILE *out = open_memstream(&buf, &n);
	json_t *j, *h;
	static const char *const want[][2] = {
		{ "grown", "/srv/app/kv_cache.py:42 grow" },
		{ "gone", "/srv/app/model.py:88 decode_step" },
		{ "new", "/srv/app/sampler.py:17 sample" },
		{ "gone", "C++ only" },
		{ "same", "no stack recorded" },
		{ "same", "C:\\Users\\me\\proj\\train.py:10 step" },
	};
	(void)state;

	assert_int_equal(report_diff_write(a->db, "A", b->db, "B", REPORT_JSON, out, &err), 0);
	fclose(out);
	j = json_loads(buf, 0, NULL);
	assert_non_null(j);
	assert_int_equal(json_array_size(json_object_get(j, "holders")), 6);
	for (i = 0; i < 6; i++) {
		h = json_array_get(json_object_get(j, "holders"), i);
		assert_string_equal(json_string_value(json_object_get(h, "status")), want[i][0]);
		assert_string_equal(json_string_value(json_object_get(h, "label")), want[i][1]);
	}
	h = json_array_get(json_object_get(j, "holders"), 0);
	assert_int_equal(json_integer_value(json_object_get(h, "delta_bytes")), 8 << 20);
	assert_int_equal(json_array_size(json_object_get(j, "pools")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(
		json_object_get(j, "b"), "devices"), "0"), "peak_bytes")), 51 << 20);
	json_decref(j);
	free(buf);
	/* a database without snapshot holders is said so */
	t_close(b);
	b = t_open();
	out = fopen("/dev/null", "w");
	assert_int_equal(report_diff_write(a->db, "A", b->db, "empty.db", REPORT_HTML, out, &err),
			 -1);
	fclose(out);
	contains(err.buf, "empty.db: no PyTorch snapshot with holders");
	strbuf_release(&err);
	t_close(a);
	t_close(b);
}

/* memray's top locations and the profiler's operators are listed in the
 * holders section with the frame each tool named, with or without a
 * snapshot beside them. */
static void tool_holders_next_to_the_snapshot(void **state)
{
	struct timeline *tl = t_open();
	char *h, *m;
	(void)state;

	assert_true(t_parse_file(tl, "tests/data/real/tools/memray-stats-1.13-full-tabs-prompt-"
				 "top-by-size-partial.txt") >= 0);
	assert_true(t_parse_file(tl, "tests/data/real/tools/profiler-1.7-table-cpu-cuda-mem-"
				 "torchprof-partial.txt") >= 0);
	h = render(tl, REPORT_HTML);
	contains(h, "<h3>As the diagnostic tools tell it</h3>");
	contains(h, "memray: top allocating locations by size");
	contains(h, "<code>get_data</code> <span class=muted>&lt;frozen"
		 " importlib._bootstrap_external&gt;:1073</span>");
	contains(h, "<span class=muted>&lt;stack trace unavailable&gt;</span>");
	contains(h, "PyTorch profiler: operators by CUDA Mem");
	contains(h, "aten::conv2d");
	m = render(tl, REPORT_MD);
	contains(m, "### What held the memory, as the diagnostic tools tell it");
	contains(m, "  2. 355 MiB: get_data:\\<frozen importlib.\\_bootstrap_external>:1073");
	free(h);
	free(m);
	{	/* and in the JSON, under tool_holders */
		json_error_t err;
		char *s = render(tl, REPORT_JSON);
		json_t *j = json_loads(s, 0, &err), *lists, *mem = NULL, *l;
		size_t i;
		assert_non_null(j);
		lists = json_object_get(j, "tool_holders");
		assert_true(json_array_size(lists) >= 2);
		json_array_foreach(lists, i, l)
			if (!strcmp(json_string_value(json_object_get(l, "title")),
				    "memray: top allocating locations by size"))
				mem = l;
		assert_non_null(mem);
		l = json_array_get(json_object_get(mem, "rows"), 1);
		assert_string_equal(json_string_value(json_object_get(l, "label")),
				    "get_data:<frozen importlib._bootstrap_external>:1073");
		assert_int_equal(json_integer_value(json_object_get(l, "bytes")), 372256014);
		assert_string_equal(json_string_value(json_object_get(json_array_get(
			json_object_get(l, "frames"), 0), "name")), "get_data");
		json_decref(j);
		free(s);
	}
	t_close(tl);

	/* beside a snapshot's holders */
	tl = ingest("holders_frames.p4.pickle");
	assert_true(t_parse_file(tl, "tests/data/real/tools/memray-stats-1.13-full-tabs-prompt-"
				 "top-by-size-partial.txt") >= 0);
	h = render(tl, REPORT_HTML);
	contains(h, "memray: top allocating locations by size");
	m = render(tl, REPORT_MD);
	contains(m, "### What held the memory\n");
	contains(m, "### What held the memory, as the diagnostic tools tell it");
	free(h);
	free(m);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(html_names_the_holders),
		cmocka_unit_test(markdown_names_the_top_holders),
		cmocka_unit_test(json_holders_largest_first),
		cmocka_unit_test(peak_card_from_the_snapshot),
		cmocka_unit_test(hostile_frames_are_escaped),
		cmocka_unit_test(tool_holders_next_to_the_snapshot),
		cmocka_unit_test(diff_by_holder_and_pool),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
