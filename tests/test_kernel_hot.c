/*
 * test_kernel_hot.c -- the kernel parser's line filter (kernel_hot.h):
 * every way this CPU runs (scalar, SSE2, AVX2) gives the same answer, on
 * each pattern at every offset of lines long and short (the AVX2 way's
 * 32-byte steps and its last step moved back), on near misses, and on
 * every line of the real kernel logs in tests/data/kernel/ and fixtures/.
 * Issue 31: the filter was rewritten for speed; its answer must not move.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/kernel/kernel_hot.h"
#include <stdint.h>

/* Every way up to the best one agrees on l[0..n); returns the answer. */
static int all_ways(const char *l, size_t n)
{
	enum khot_way best = khot_best_way(), w;
	int first = khot_line(l, n, KHOT_SCALAR);

	for (w = KHOT_SSE2; w <= best; w++)
		if (khot_line(l, n, w) != first) {
			fprintf(stderr, "way %d says %d, scalar %d: '%.*s'\n", (int)w,
				!first, first, (int)n, l);
			fail();
		}
	return first;
}

static const char *const hot[] = { "oom", "OOM", "Kil", "lure", "NVRM", "cnt", "m-Info", "m-info",
				   "n_alloc" };
/* each a hot pattern cut or with one byte wrong */
static const char *const near[] = { "oo", "OOm", "Kjl", "lur", "luRe", "NVR", "NVRm", "cnT",
				    "m-Inf", "m-Infx", "M-Info", "m_Info", "oOm", "kil", "n_allo",
				    "n_Alloc", "n-alloc" };

/* A pattern at each offset of lines of 3 to 100 bytes of syslog-like
 * filler is found by every way; a near miss is not. The filler holds no
 * pattern (the last assertion). */
static void every_pattern_at_every_offset(void **state)
{
	static const char filler[] = "Nov 29 00:00:00 gpu-a100-03 systemd[1]: logrotate.service: "
				     "Deactivated successfully (6200 125 147). Session 38368 logged out.";
	char line[128];
	size_t k, n, at, pl;

	(void)state;
	for (k = 0; k < sizeof(hot) / sizeof(hot[0]); k++)
		for (pl = strlen(hot[k]), n = pl; n <= 100; n++)
			for (at = 0; at + pl <= n; at++) {
				memcpy(line, filler, n);
				memcpy(line + at, hot[k], pl);
				assert_int_equal(all_ways(line, n), 1);
			}
	/* near misses among bytes that complete no pattern: not hot */
	for (k = 0; k < sizeof(near) / sizeof(near[0]); k++)
		for (pl = strlen(near[k]), n = pl; n <= 100; n++)
			for (at = 0; at + pl <= n; at++) {
				memset(line, '.', n);
				memcpy(line + at, near[k], pl);
				assert_int_equal(all_ways(line, n), 0);
			}
	assert_int_equal(all_ways(filler, strlen(filler)), 0);
	assert_int_equal(all_ways("", 0), 0);
}

/* Every line of a real log: the ways agree; returns the hot lines. */
static int lines_agree(const char *rel)
{
	size_t n, i = 0, j;
	char *text = t_slurp(rel, &n);
	int hot_lines = 0;

	while (i < n) {
		for (j = i; j < n && text[j] != '\n'; j++)
			;
		hot_lines += all_ways(text + i, j - i);
		i = j + 1;
	}
	free(text);
	return hot_lines;
}

static void real_logs_read_alike(void **state)
{
	static const char *const logs[] = {
		"tests/data/kernel/k419_memcg_v1_dmesg.log", "tests/data/kernel/k515_journal.json",
		"tests/data/kernel/k515_oomgroup_dmesg_T.log", "tests/data/kernel/rhel6_messages.log",
		"tests/data/kernel/rhel7_messages.log", "tests/data/kernel/killstorm_kmsg.log",
		"tests/data/kernel/ubuntu44_kern.log", "tests/data/kernel/sysrq_dmesg.log",
		"fixtures/demo/kern.log",
	};
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(logs) / sizeof(logs[0]); k++)
		assert_true(lines_agree(logs[k]) > 0);   /* each holds a report */
}

/* Is the line l[0..n) one khot_skip() may pass over: no hot pattern, no
 * start of a bare line or of a JSON object? */
static int cold(const char *l, size_t n)
{
	return !khot_line(l, n, KHOT_SCALAR) &&
	       !(n && (khot_bare_first[(unsigned char)l[0]] || l[0] == '{'));
}

/* Walk text as kernel_oom_parse() does: khot_skip() from each line
 * start, then one line read on. Every line skipped is cold, the counts
 * and the last line's start are right, and a stop is at a line that
 * matters or near the end (the last 66 bytes: a step and a line's end).
 * Returns the lines skipped. */
static size_t walk(const char *text, size_t n)
{
	size_t pos = 0, skipped = 0;

	while (pos < n) {
		uint64_t lines;
		size_t last, k = khot_skip(text + pos, n - pos, khot_best_way(), &lines, &last);
		size_t at = pos, seen = 0, start = 0;
		const char *nl;

		while (at < pos + k) {   /* the lines passed over */
			nl = memchr(text + at, '\n', n - at);
			assert_non_null(nl);
			assert_true(cold(text + at, (size_t)(nl - (text + at))));
			start = at - pos;
			at = (size_t)(nl - text) + 1;
			seen++;
		}
		assert_true(at == pos + k);
		assert_true(seen == lines);
		if (seen)
			assert_true(start == last);
		skipped += seen;
		pos += k;
		nl = memchr(text + pos, '\n', n - pos);
		if (!nl)
			break;
		if (khot_best_way() == KHOT_AVX2 && cold(text + pos, (size_t)(nl - (text + pos))) &&
		    (size_t)(nl - text) + 66 < n) {
			fprintf(stderr, "stopped at a cold line at %zu of %zu\n", pos, n);
			fail();
		}
		pos = (size_t)(nl - text) + 1;   /* the parser reads that line */
	}
	return skipped;
}

/* khot_skip() over real logs and over a syslog of ordinary lines with a
 * hot line, a bare start and a JSON object here and there. */
static void skip_passes_over_exactly_the_cold_lines(void **state)
{
	static const char *const logs[] = {
		"tests/data/kernel/k419_memcg_v1_dmesg.log", "tests/data/kernel/k515_journal.json",
		"tests/data/kernel/rhel7_messages.log", "tests/data/kernel/killstorm_kmsg.log",
		"tests/data/kernel/userspace_short_iso.log", "fixtures/demo/kern.log",
	};
	static const char *const lines[] = {
		"Nov 29 00:00:00 gpu-a100-03 CRON[2641]: (root) CMD (   test -x /etc/cron.daily/popularity-contest)\n",
		"Nov 29 00:00:01 gpu-a100-03 kernel: [60439.000059] nvidia-nvlink: Unregistered Nvlink Core\n",
		"Nov 29 00:00:02 h systemd-logind[871]: Session 38368 logged out.\n",
		"x\n", "\n",
		"Nov 29 00:00:03 h kernel: [1.2] python3 invoked oom-killer: gfp_mask=0xcc0\n",
		"mem avail: 21% of 7961 MiB, swap free: 0%\n",
		"{\"MESSAGE\":[104,105]}\n",
		"Nov 29 00:00:04 h kernel: memory: usage 2097152kB, limit 2097152kB, failcnt 48213\n",
	};
	size_t k, n, i, len = 0;
	char *text;

	(void)state;
	for (k = 0; k < sizeof(logs) / sizeof(logs[0]); k++) {
		text = t_slurp(logs[k], &n);
		walk(text, n);
		free(text);
	}
	text = malloc(1u << 20);
	assert_non_null(text);
	for (i = 0; len + 200 < (1u << 20); i++) {
		/* mostly the three ordinary lines; the others at uneven steps */
		size_t pick = i % 97 == 0 ? 5 + i % 4 : i % 13 == 0 ? 3 + i % 2 : i % 3;
		size_t l = strlen(lines[pick]);
		memcpy(text + len, lines[pick], l);
		len += l;
	}
	assert_true(walk(text, len) > len / 200);   /* most lines passed over */
	free(text);
}

/* The bare earlyoom/srun starts pass the first-byte table. */
static void bare_starts_pass_the_table(void **state)
{
	static const char *const starts[] = { "mem avail:", "sending SIG", "killing process ",
					      "escalating to SIG", "process exited", "srun: ",
					      "slurmstepd: " };
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(starts) / sizeof(starts[0]); k++)
		assert_true(khot_bare_first[(unsigned char)starts[k][0]]);
	assert_false(khot_bare_first['N']);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_pattern_at_every_offset),
		cmocka_unit_test(real_logs_read_alike),
		cmocka_unit_test(skip_passes_over_exactly_the_cold_lines),
		cmocka_unit_test(bare_starts_pass_the_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
