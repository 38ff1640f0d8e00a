/*
 * test_rules_scale.c -- the rules judge a short, dense series by its scale
 * (issue 30): a leak of seconds in a 128 MiB cgroup is a leak, a flat
 * stretch then a kill at the limit faster than the sampling is a spike,
 * and neither is a start-up misconfiguration because the process was
 * young. Inputs are what `oomlens watch` writes: the real folders of
 * tests/data/watch (a python3 hog this machine's kernel killed), and
 * cgroup.log capture records of each shape around the real kernel report
 * of that kill (its kmsg.log), so the kill lines up on the watcher's
 * boot_id/mono anchor as it does in a real folder. Each shape has a near
 * miss just outside the threshold it tests. Without the series, the
 * verdict's missing evidence names the watcher's command.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MIB (1024.0 * 1024.0)
#define LIMIT (128 * MIB)
#define BOOT_ID "41d43f0f-d20f-43e1-8886-e26d707e5a17"
#define CGROUP "/sl-hog-28897"
/* the anchor of the real folder: 2026-12-06T04:31:11.970364Z at mono
 * 4873.489144, and the kill's report at mono 4877.852210 */
#define ANCHOR_UTC 1796531471.970364
#define ANCHOR_MONO 4873.489144
#define KILL_MONO 4877.852210

static const char *verdict(struct timeline *tl, const char *col)
{
	return t_text(tl, "SELECT %s FROM verdict", col);
}

/* One capture record (docs/watch.md) at mono of file src with value v. */
static void record(char **buf, size_t *len, size_t *cap, double mono, const char *src, double v)
{
	double utc = ANCHOR_UTC + (mono - ANCHOR_MONO);
	time_t sec = (time_t)floor(utc);
	struct tm tm;
	char stamp[40], line[400];
	int n;

	gmtime_r(&sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	n = snprintf(line, sizeof(line), "### %s.%06dZ src=cgroup:%s cgroup=" CGROUP " boot_id="
		     BOOT_ID " mono=%.6f\n%.0f\n", stamp, (int)((utc - floor(utc)) * 1e6), src, mono,
		     v);
	assert_true(n > 0 && (size_t)n < sizeof(line));
	if (*len + (size_t)n + 1 > *cap) {
		*cap = (*cap + (size_t)n) * 2;
		*buf = realloc(*buf, *cap);
		assert_non_null(*buf);
	}
	memcpy(*buf + *len, line, (size_t)n + 1);
	*len += (size_t)n;
}

/* A watcher's folder of n usage samples every dt seconds, the last one
 * gap seconds before the real kill, of shape use(i, n) bytes, with the
 * real kernel report; analyzed. The caller closes tl. */
static struct timeline *shape(int n, double dt, double gap, double (*use)(int i, int n))
{
	struct timeline *tl = t_open();
	char *buf = NULL, *kmsg;
	size_t len = 0, cap = 0, kn;
	int i;

	for (i = 0; i < n; i++) {
		double mono = KILL_MONO - gap - (n - 1 - i) * dt;
		record(&buf, &len, &cap, mono, "memory.usage_in_bytes", use(i, n));
		record(&buf, &len, &cap, mono, "memory.limit_in_bytes", LIMIT);
	}
	assert_true(t_parse_mem(tl, "cgroup", "cgroup.log", buf, len) >= 0);
	kmsg = t_slurp("tests/data/watch/hog-leak/kmsg.log", &kn);
	assert_true(t_parse_mem(tl, "kernel_log", "kmsg.log", kmsg, kn) >= 0);
	/* as ingest does: the kill's boot-relative stamp onto UTC by the
	 * records' boot_id/mono anchor */
	assert_int_equal(timeline_align_clocks(tl), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	free(kmsg);
	free(buf);
	return tl;
}

/* a python3 process from 8 MiB to 124 MiB at a steady rate */
static double steady(int i, int n)
{
	return 8 * MIB + (124 - 8) * MIB * i / (n - 1) + (i % 3) * 256 * 1024;
}

/* flat at 40 MiB (a start of two samples), then nothing the samples saw */
static double flat40(int i, int n)
{
	(void)n;
	return i < 2 ? (i + 1) * 12 * MIB : 40 * MIB + (i % 2) * 128 * 1024;
}

/* flat at 100 MiB: the rest of the limit is too little room for a burst */
static double flat100(int i, int n)
{
	(void)n;
	return i < 2 ? (i + 1) * 40 * MIB : 100 * MIB + (i % 2) * 128 * 1024;
}

/* 1. the real folders: the watcher on a python3 hog, killed */
static void real_folders(void **state)
{
	static const char *const files[] = { "cgroup.log", "kmsg.log", "smaps.log" };
	static const char *const hogs[] = { "hog-leak", "hog-burst" };
	static const char *const want[] = { "leak", "spike" };
	char path[200];
	int h, f;

	(void)state;
	for (h = 0; h < 2; h++) {
		struct timeline *tl = t_open();
		for (f = 0; f < 3; f++) {
			snprintf(path, sizeof(path), "tests/data/watch/%s/%s", hogs[h], files[f]);
			assert_true(t_parse_file(tl, path) >= 0);
		}
		assert_int_equal(timeline_align_clocks(tl), 0);
		assert_int_equal(analyze_timeline(tl, NULL), 0);
		assert_string_equal(verdict(tl, "class"), want[h]);
		assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'startup_oom'"
				       " AND score >= 0.5"), 0);
		t_close(tl);
	}
}

/* 2. a steady climb of 40 samples at 0.1 s to the limit: a leak by scale,
 * not a start-up; the same climb in 9 samples is too few to say */
static void steady_leak(void **state)
{
	struct timeline *tl;

	(void)state;
	tl = shape(40, 0.1, 0.05, steady);
	assert_string_equal(verdict(tl, "class"), "leak");
	assert_string_equal(verdict(tl, "cause"), "growth");
	assert_true(t_real(tl, "SELECT json_extract(figures, '$.r2') FROM finding WHERE"
			   " cause = 'growth'") >= 0.9);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'startup_oom'"), 0);
	t_close(tl);
	tl = shape(9, 0.4, 0.05, steady);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'growth'"), 0);
	t_close(tl);
}

/* 3. flat at 40 MiB for 6 s at 0.2 s, then the kill at the limit within
 * one interval: a spike; flat at 100 MiB leaves too little room */
static void burst_at_kill(void **state)
{
	struct timeline *tl;

	(void)state;
	tl = shape(30, 0.2, 0.15, flat40);
	assert_string_equal(verdict(tl, "class"), "spike");
	assert_string_equal(verdict(tl, "cause"), "burst");
	assert_true(fabs(t_real(tl, "SELECT json_extract(figures, '$.rise_bytes') FROM finding"
				" WHERE cause = 'burst'") - 88 * MIB) < 1 * MIB);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'startup_oom'"), 0);
	t_close(tl);
	tl = shape(30, 0.2, 0.15, flat100);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'burst'"), 0);
	t_close(tl);
	/* the kill long after the last sample (5 intervals): not seen */
	tl = shape(30, 0.2, 1.0, flat40);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'burst'"), 0);
	t_close(tl);
}

/* 4. a kernel report alone: the verdict's missing evidence names the
 * commands that collect it before the next OOM (settle.c) */
static void missing_names_commands(void **state)
{
	struct timeline *tl = t_open();
	char *kmsg;
	size_t kn;
	const char *m;

	(void)state;
	kmsg = t_slurp("tests/data/watch/hog-leak/kmsg.log", &kn);
	assert_true(t_parse_mem(tl, "kernel_log", "kmsg.log", kmsg, kn) >= 0);
	free(kmsg);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	m = verdict(tl, "missing");
	assert_non_null(strstr(m, "`oomlens watch --cgroup /sys/fs/cgroup" CGROUP " --out "));
	/* a host OOM of a Python process, no GPU in sight: the host heap's
	 * allocator snapshot (memray), not a CUDA one */
	assert_non_null(strstr(m, "`memray attach PID`"));
	assert_null(strstr(m, "--print-arm"));
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(real_folders),
		cmocka_unit_test(steady_leak),
		cmocka_unit_test(burst_at_kill),
		cmocka_unit_test(missing_names_commands),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
