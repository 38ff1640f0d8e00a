/*
 * test_real_verdicts.c -- the verdict on every real PyTorch OOM message
 * and kernel OOM excerpt of tests/data/real/gpu_host/, against what a
 * careful reader sees in it (MANIFEST.tsv). Each file is analyzed alone,
 * as a user with only that paste would.
 *
 * PyTorch messages carry the reader's `reading=` of where the memory
 * went; the causes it accepts (all of class misconfig):
 *
 *   card_full_of_tensors  capacity, startup_oom (the card full when the
 *                         engine says it never started: the start-up
 *                         did not fit)
 *   tiny_card             request_exceeds_card, capacity (one request
 *                         larger than the card, or a modest workload's
 *                         live tensors filling a small card)
 *   fragmentation         fragmentation, capacity -- and a fragmentation
 *                         finding that counts (>= 0.3) either way: a
 *                         reserved-unallocated share too small to hold
 *                         the request still names the cache, but the
 *                         request did not fit the card as it was
 *   other_process         other_process, non_pytorch (the old wordings
 *   non_pytorch           cannot tell another process from this one's
 *                         memory outside PyTorch)
 *   unclear               any verdict, confidence below 0.7
 *
 * and never fragmentation as the verdict when reserved-but-unallocated is
 * under 5% of the card. Kernel excerpts carry no reading: one whose
 * figures show a memcg OOM (constraint CONSTRAINT_MEMCG, or memcg usage
 * equal to its limit) must be cgroup_limit; every other one stays below
 * 0.7 (a partial excerpt proves no cause). An excerpt oomlens does not
 * read yet (no OOM event) is listed and skipped.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIR "tests/data/real/gpu_host/"

struct expect {
	const char *reading;
	const char *causes[3];
	int needs_frag;
};

static const struct expect readings[] = {
	{ "card_full_of_tensors", { "capacity", "startup_oom" }, 0 },
	{ "tiny_card", { "request_exceeds_card", "capacity" }, 0 },
	{ "fragmentation", { "fragmentation", "capacity" }, 1 },
	{ "other_process", { "other_process", "non_pytorch" }, 0 },
	{ "non_pytorch", { "non_pytorch", "other_process" }, 0 },
	{ "memcg", { "cgroup_limit" }, 0 },
	{ NULL, { NULL }, 0 }
};

/* The value of key= in a manifest figures column into buf ("" when absent). */
static void figure(const char *figs, const char *key, char *buf, size_t n)
{
	char pat[64];
	const char *p, *e;

	snprintf(pat, sizeof(pat), "%s=", key);
	buf[0] = 0;
	for (p = figs; (p = strstr(p, pat)); p++)
		if (p == figs || p[-1] == ' ' || p[-1] == ';')
			break;
	if (!p)
		return;
	p += strlen(pat);
	e = strchr(p, ';');
	snprintf(buf, n, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
}

/* What the reader (or, for kernel rows, the figures) expects. */
static const char *expected_reading(const char *kind, const char *figs, char *buf, size_t n)
{
	char a[64], b[64];

	if (!strcmp(kind, "torch_oom")) {
		figure(figs, "reading", buf, n);
		return buf;
	}
	figure(figs, "constraint", a, sizeof(a));
	if (strstr(a, "MEMCG") || strstr(a, "memcg"))
		return "memcg";
	figure(figs, "memcg_usage", a, sizeof(a));
	figure(figs, "memcg_limit", b, sizeof(b));
	return a[0] && !strcmp(a, b) ? "memcg" : "unclear";
}

/* Check one file; 1 checked, 0 not read yet. */
static int check(const char *file, const char *reading, char *failures, size_t n)
{
	struct timeline *tl = t_open();
	char path[512], got[200], cause[64];
	const struct expect *x;
	double conf, unalloc_share;
	int i, ok = 1, read;

	snprintf(path, sizeof(path), DIR "%s", file);
	t_parse_file(tl, path);
	read = t_int(tl, "SELECT count(*) FROM event WHERE kind IN ('torch_oom', 'oom_kill',"
		     " 'oom_invoked')") > 0;
	if (!read) {
		print_message("  %-52s not read yet\n", file);
		t_close(tl);
		return 0;
	}
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	snprintf(cause, sizeof(cause), "%s", t_text(tl, "SELECT coalesce(cause, '-') FROM verdict"));
	conf = t_real(tl, "SELECT confidence FROM verdict");
	snprintf(got, sizeof(got), "%s/%s %.2f", t_text(tl, "SELECT class FROM verdict"), cause, conf);
	for (x = readings; x->reading && strcmp(x->reading, reading); x++)
		;
	if (x->reading) {
		for (ok = 0, i = 0; i < 3 && x->causes[i]; i++)
			ok |= !strcmp(cause, x->causes[i]);
		ok &= !strcmp(t_text(tl, "SELECT class FROM verdict"), "misconfig");
		if (x->needs_frag)
			ok &= t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'fragmentation'"
				    " AND score >= %g", VERDICT_MIN_SCORE) > 0;
	} else {
		ok = conf < 0.7;
	}
	unalloc_share = t_real(tl, "SELECT json_extract(data, '$.reserved_unallocated_bytes') * 1.0"
			       " / json_extract(data, '$.total_bytes') FROM event WHERE kind ="
			       " 'torch_oom' ORDER BY id LIMIT 1");
	if (!strcmp(cause, "fragmentation") && unalloc_share < 0.05)
		ok = 0;
	print_message("  %-52s %-21s %s%s\n", file, reading, got, ok ? "" : "   <- WRONG");
	if (!ok && strlen(failures) + strlen(file) + 3 < n)
		strcat(strcat(failures, " "), file);
	t_close(tl);
	return 1;
}

static void real_excerpts_read_as_a_careful_reader_reads_them(void **state)
{
	FILE *f = fopen(t_src(DIR "MANIFEST.tsv"), "r");
	char line[4096], failures[4096] = "", buf[64];
	const char *reading;
	int torch = 0, torch_checked = 0, kernel_checked = 0;
	(void)state;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *file = strtok(line, "\t"), *kind, *figs;
		if (!file || !strtok(NULL, "\t") || !(kind = strtok(NULL, "\t")) ||
		    !strtok(NULL, "\t") || !(figs = strtok(NULL, "\n")))
			continue;
		if (strcmp(kind, "torch_oom") && strcmp(kind, "kernel_oom"))
			continue;
		torch += !strcmp(kind, "torch_oom");
		reading = expected_reading(kind, figs, buf, sizeof(buf));
		if (check(file, reading[0] ? reading : "unclear", failures, sizeof(failures))) {
			torch_checked += !strcmp(kind, "torch_oom");
			kernel_checked += !strcmp(kind, "kernel_oom");
		}
	}
	fclose(f);
	if (failures[0])
		fail_msg("verdicts that are not the reader's:%s", failures);
	/* every PyTorch message is read; the kernel excerpts that are */
	assert_true(torch >= 30);
	assert_int_equal(torch_checked, torch);
	assert_true(kernel_checked >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(real_excerpts_read_as_a_careful_reader_reads_them),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
