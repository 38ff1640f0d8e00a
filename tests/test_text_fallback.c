/*
 * test_text_fallback.c -- a text file no format claims is read whole by
 * the generic memory-failure recogniser (analyzer/ingest/formats.c,
 * format_fallback: artifact kind "text"), not refused as "not a format
 * oomlens reads" (issue 27, round 15, fallback16). Held-out set 15 lost
 * 11 of 51 files to that refusal: detection looks at the head only (the
 * first 64 KiB, the line logs the first 1 MiB), so a failure below a long
 * run of other lines, or in a file whose head no reader knows, was never
 * seen. Inputs are real: a healthy llama-server log no format claims
 * (tests/data/real/healthy) and Go's "fatal error: runtime: out of
 * memory" (milo2012/pathbrute #17, tests/data/real/any_stack); the long
 * file is the healthy log repeated past the detection window with the
 * failure after it, as a day's log ends in the failure. A binary of no
 * known format stays unread, and a text file with no failure is read
 * and holds no OOM.
 */
#include "testutil.h"
#include "analyzer/ingest/ingest.h"
#include "analyzer/rules/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEALTHY "tests/data/real/healthy/llamacpp-server-2024-07-http-listening-print-timings.log"
#define GO_OOM "tests/data/real/any_stack/g-go-pathbrute-fatal-runtime-out-of-memory/01-error.txt"

/* bytes (n of them) as a file of its own, ingested with detection;
 * ingest_paths' answer (0: records came out, 1: none). */
static int ingest_bytes(struct timeline *tl, const char *bytes, size_t n)
{
	char path[] = "/tmp/oomlens-text-XXXXXX";
	struct ingest_cfg cfg = { .quiet = 1 };
	struct ingest_stats st;
	char *p = path;
	int fd = mkstemp(path), r;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	r = ingest_paths(tl, &p, 1, &cfg, &st);
	unlink(path);
	return r;
}

/* A healthy log with nothing any reader claims: read, no OOM, no record. */
static void healthy_text_read_empty(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, HEALTHY), 1);   /* nothing usable */
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "text");
	assert_string_equal(t_text(tl, "SELECT status FROM artifact"), "no_records");
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 0);
	t_close(tl);
}

/* 2 MiB of the healthy log, then the Go runtime's failure: past every
 * detection window, still one OOM, on the failure's own line. */
static void failure_past_the_head(void **state)
{
	struct timeline *tl = t_open();
	size_t hn, gn, n = 0, lines = 0, i;
	char *h = t_slurp(HEALTHY, &hn), *g = t_slurp(GO_OOM, &gn), *buf;
	(void)state;

	for (i = 0; i < hn; i++)
		lines += h[i] == '\n';
	buf = malloc((2u << 20) + hn + gn);
	assert_non_null(buf);
	while (n < (2u << 20)) {
		memcpy(buf + n, h, hn);
		n += hn;
	}
	memcpy(buf + n, g, gn);
	assert_int_equal(ingest_bytes(tl, buf, n + gn), 0);
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "text");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'mem_failure'"), 1);
	assert_int_equal(t_int(tl, "SELECT line FROM event WHERE kind = 'mem_failure'"),
			 (int64_t)(lines * (n / hn) + 1));
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 1);
	free(buf);
	free(h);
	free(g);
	t_close(tl);
}

/* Bytes with NULs (no format's): skipped, as before, never read. */
static void binary_stays_unread(void **state)
{
	struct timeline *tl = t_open();
	char bin[4096];
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(bin); i++)
		bin[i] = (char)(i * 37 % 251);
	memcpy(bin + 100, "fatal error: runtime: out of memory\n", 36);
	assert_int_equal(ingest_bytes(tl, bin, sizeof(bin)), 1);
	assert_string_equal(t_text(tl, "SELECT status FROM artifact"), "skipped");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(healthy_text_read_empty),
		cmocka_unit_test(failure_past_the_head),
		cmocka_unit_test(binary_stays_unread),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
