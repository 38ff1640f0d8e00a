/*
 * test_core.c -- the foundation: strbuf, time parsing, input reading
 * (gzip, CRLF, over-long lines), and the timeline's one-transaction-per-
 * artifact rule.
 */
#include "testutil.h"
#include "lib/input.h"
#include "lib/strbuf.h"
#include "lib/timeutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* s as Markdown escapes it at the start of a line is want. */
static void md_is(const char *s, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_md(&sb, s, strlen(s));
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
}

static void strbuf_escapes_markup(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	strbuf_add_html(&sb, "<script>\"x'&", 12);
	assert_string_equal(sb.buf, "&lt;script&gt;&quot;x&#39;&amp;");
	strbuf_reset(&sb);
	strbuf_add_md(&sb, "a|b*<i>", 7);
	assert_string_equal(sb.buf, "a\\|b\\*\\<i>");
	strbuf_reset(&sb);
	md_is("gpu.used_bytes -> 3.5 GiB (+12%)", "gpu.used_bytes -> 3.5 GiB (+12%)");
	md_is("_init_ and __x__ but not a_b", "\\_init\\_ and \\_\\_x\\_\\_ but not a_b");
	md_is("[x](javascript:alert(1)) ![i](http://e/i.png)",
	      "\\[x\\](javascript:alert(1)) !\\[i\\](http\\://e/i.png)");
	md_is("C:\\Users\\me\\*.py `ls`", "C:\\Users\\me\\\\\\*.py \\`ls\\`");
	md_is("~~gone~~ ~x", "\\~\\~gone\\~\\~ ~x");
	md_is("&amp; & b &#60;", "&amp;amp; & b &amp;#60;");
	md_is("# not a heading, - not a list", "\\# not a heading, - not a list");
	md_is("> quote\nnext", "\\> quote next");
	strbuf_add_utf8(&sb, "ok\xff\xc3\xa9", 5);
	assert_string_equal(sb.buf, "ok\xef\xbf\xbd\xc3\xa9");
	strbuf_release(&sb);
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb.buf, "");
}

/* An append that cannot be done sets the sticky flag; later appends are
 * refused, so a text checked once with strbuf_failed() is never used as
 * if it were whole. */
static void strbuf_failure_is_sticky(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	assert_int_equal(strbuf_addstr(&sb, "kept"), 0);
	assert_false(strbuf_failed(&sb));
	assert_int_equal(strbuf_grow(&sb, (size_t)-1 / 2), -1);
	assert_true(strbuf_failed(&sb));
	assert_int_equal(strbuf_addstr(&sb, " lost"), -1);
	assert_int_equal(strbuf_addf(&sb, "%d", 1), -1);
	assert_string_equal(sb.buf, "kept");
	strbuf_reset(&sb);
	assert_true(strbuf_failed(&sb));
	strbuf_release(&sb);
	assert_false(strbuf_failed(&sb));
	assert_int_equal(strbuf_addstr(&sb, "again"), 0);
	strbuf_release(&sb);
}

static void iso8601_forms(void **state)
{
	int64_t ns;
	int off;
	char buf[40];
	(void)state;
	assert_true(parse_iso8601("2023-05-10T12:34:56+0000", 24, &ns, &off) == 24);
	assert_int_equal(ns, 1683722096LL * NS_PER_S);
	assert_true(parse_iso8601("2023-06-01T12:34:56.123456+02:00", 32, &ns, &off) > 0);
	assert_int_equal(off, 7200);
	assert_int_equal(ns, (1685622896LL - 7200) * NS_PER_S + 123456000);
	assert_true(parse_iso8601("2025-11-29T18:22:40.123456Z", 27, &ns, &off) > 0);
	format_iso8601(ns, buf, sizeof(buf));
	assert_string_equal(buf, "2025-11-29T18:22:40.123456Z");
	assert_int_equal(parse_iso8601("2025-13-29T18:22:40Z", 20, &ns, &off), -1);
	assert_int_equal(parse_iso8601("2025-11-29", 10, &ns, &off), -1);
	assert_int_equal(month_from_name("Dec", 3), 12);
	assert_int_equal(month_from_name("xyz", 3), 0);
}

static void lines_crlf_and_last_line(void **state)
{
	static const char text[] = "one\r\ntwo\n\nthree";
	struct input in;
	const char *l;
	size_t n;
	(void)state;
	input_open_mem(&in, "mem", text, sizeof(text) - 1);
	assert_int_equal(input_getline(&in, &l, &n), 1);
	assert_int_equal(n, 3);
	assert_memory_equal(l, "one", 3);
	assert_int_equal(input_getline(&in, &l, &n), 1);
	assert_memory_equal(l, "two", 3);
	assert_int_equal(input_getline(&in, &l, &n), 1);
	assert_int_equal(n, 0);
	assert_int_equal(input_getline(&in, &l, &n), 1);
	assert_int_equal(n, 5);
	assert_int_equal(in.lineno, 4);
	assert_int_equal(in.line_offset, 10);
	assert_int_equal(input_getline(&in, &l, &n), 0);
	input_close(&in);
}

static void overlong_line_is_cut_and_skipped(void **state)
{
	size_t big = INPUT_BUFSZ * 3;
	char *text = malloc(big + 16);
	struct input in;
	const char *l;
	size_t n;
	(void)state;
	memset(text, 'x', big);
	memcpy(text + big, "\nnext\n", 6);
	input_open_mem(&in, "mem", text, big + 6);
	assert_int_equal(input_getline(&in, &l, &n), 1);
	assert_int_equal(n, INPUT_MAX_LINE);
	assert_true(in.line_cut);
	assert_int_equal(input_getline(&in, &l, &n), 1);
	assert_int_equal(n, 4);
	assert_memory_equal(l, "next", 4);
	assert_int_equal(in.lineno, 2);
	assert_int_equal(input_getline(&in, &l, &n), 0);
	input_close(&in);
	free(text);
}

static void gzip_read_transparently(void **state)
{
	char path[] = "/tmp/oomlens-test-XXXXXX";
	int fd = mkstemp(path);
	gzFile gz;
	struct input in;
	const char *l;
	size_t n;
	unsigned count = 0;
	(void)state;
	assert_true(fd >= 0);
	gz = gzdopen(fd, "wb");
	for (int i = 0; i < 1000; i++)
		gzprintf(gz, "line %d\n", i);
	gzclose(gz);
	assert_int_equal(input_open(&in, path, NULL), 0);
	assert_true(in.compressed);
	while (input_getline(&in, &l, &n) == 1)
		count++;
	assert_int_equal(count, 1000);
	assert_memory_equal(l, "line 999", 8);
	input_close(&in);

	/* A truncated gzip stream: the lines before the cut survive, and the
	 * read error is reported, not hidden. */
	assert_int_equal(truncate(path, 300), 0);
	assert_int_equal(input_open(&in, path, NULL), 0);
	count = 0;
	while (input_getline(&in, &l, &n) == 1)
		count++;
	assert_true(count > 0 && count < 1000);
	assert_true(in.error != 0 || in.eof);
	input_close(&in);
	unlink(path);
}

/* A parser failure rolls back its artifact's rows but keeps the artifact
 * row and its diagnostics; the other artifacts stay. */
static void failed_artifact_rolls_back_alone(void **state)
{
	struct timeline *tl = t_open();
	struct ol_event e = { "oom_kill", ol_time_none(), 42, "x", OL_NULL, 1, NULL, NULL };
	(void)state;

	assert_true(timeline_artifact_begin(tl, "good.log", "kernel_log", 10, 0) > 0);
	assert_true(sink_event(&tl->sink, &e) > 0);
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", 10, 0), 0);

	assert_true(timeline_artifact_begin(tl, "bad.log", "kernel_log", 10, 0) > 0);
	assert_true(sink_event(&tl->sink, &e) > 0);
	sink_diagf(&tl->sink, 7, 0, OL_ERROR, "expected a thing");
	assert_int_equal(timeline_artifact_end(tl, 0, "failed", 10, 0), 0);

	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM artifact"), 2);
	assert_string_equal(t_text(tl, "SELECT status FROM artifact WHERE path='bad.log'"), "failed");
	assert_string_equal(t_text(tl, "SELECT message FROM diagnostic d JOIN artifact a"
				       " ON a.id = d.artifact_id WHERE a.path = 'bad.log'"),
			    "expected a thing");
	assert_int_equal(t_int(tl, "SELECT line FROM diagnostic"), 7);
	assert_int_equal(t_int(tl, "SELECT errors FROM artifact WHERE path='bad.log'"), 1);
	t_close(tl);
}

/* Boot-relative events are placed on UTC by an anchor of the same boot. */
static void boot_clock_aligned_by_anchor(void **state)
{
	struct timeline *tl = t_open();
	struct ol_event e = { "oom_kill", { OL_CLOCK_BOOT, OL_NULL, 100 * NS_PER_S, NULL },
			      1, "a", OL_NULL, 1, NULL, NULL };
	(void)state;

	assert_true(timeline_artifact_begin(tl, "dmesg", "kernel_log", 1, 0) > 0);
	assert_true(sink_event(&tl->sink, &e) > 0);
	assert_true(sink_anchor(&tl->sink, NULL, 50 * NS_PER_S, 1000050 * NS_PER_S, "test") > 0);
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", 1, 0), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE time_ns IS NULL"), 1);
	assert_int_equal(timeline_align_clocks(tl), 0);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event"), 1000100 * NS_PER_S);
	assert_string_equal(t_text(tl, "SELECT clock FROM event"), "aligned");
	t_close(tl);
}

static void stacks_are_deduplicated(void **state)
{
	struct timeline *tl = t_open();
	struct ol_frame f[2] = { { "alloc", "a.py", 10, NULL }, { "main", "b.py", 3, NULL } };
	int64_t a, b, c;
	(void)state;

	assert_true(timeline_artifact_begin(tl, "x", "k", 1, 0) > 0);
	a = sink_stack(&tl->sink, f, 2);
	b = sink_stack(&tl->sink, f, 2);
	c = sink_stack(&tl->sink, f, 1);
	assert_true(a > 0);
	assert_int_equal(a, b);
	assert_true(c != a);
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", 1, 0), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM frame"), 3);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(strbuf_escapes_markup),
		cmocka_unit_test(strbuf_failure_is_sticky),
		cmocka_unit_test(iso8601_forms),
		cmocka_unit_test(lines_crlf_and_last_line),
		cmocka_unit_test(overlong_line_is_cut_and_skipped),
		cmocka_unit_test(gzip_read_transparently),
		cmocka_unit_test(failed_artifact_rolls_back_alone),
		cmocka_unit_test(boot_clock_aligned_by_anchor),
		cmocka_unit_test(stacks_are_deduplicated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
