/*
 * test_kernel_times.c -- the kernel OOM-killer log parser under every
 * log source's wrapper and clock: the prefix matrix (dmesg raw, -T in
 * other locales, -x, PRINTK_CALLER, syslog, journal short forms,
 * /dev/kmsg), --tz, the year of a year-less stamp from the file's mtime,
 * journalctl -o json, a reboot's new boot id, and task rows behind
 * localized stamps. The reports themselves are test_kernel_oom.c's.
 */
#include "testutil_kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "analyzer/ingest/ingest.h"
#include "lib/timeutil.h"
#include "parsers/kernel/kernel_oom.h"

#define KIND "kernel_log"

/* Diagnostics of the last year_from_mtime() saying its date does not exist. */
static int64_t bad_date_diags;

/* A syslog line of month mon, day d in a file last written at mtime: the
 * time it is placed at (as if UTC: no --tz). */
static int64_t year_from_mtime(const char *stamp, int64_t mtime_s)
{
	char path[] = "/tmp/oomlens-year-XXXXXX";
	struct timeval tv[2] = { { mtime_s, 0 }, { mtime_s, 0 } };
	struct ingest_cfg cfg = { .quiet = 1 };
	struct ingest_stats st;
	struct timeline *tl = t_open();
	char *p = path;
	int64_t t;
	int fd = mkstemp(path);
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "%s gpu-a100-03 kernel: Out of memory: Killed process 4312 (python3)"
		" total-vm:1000kB, anon-rss:800kB, file-rss:0kB, shmem-rss:0kB\n", stamp);
	fclose(f);
	assert_int_equal(utimes(path, tv), 0);
	assert_int_equal(ingest_paths(tl, &p, 1, &cfg, &st), 0);
	t = t_int(tl, "SELECT time_ns FROM event WHERE kind = 'oom_kill'");
	/* the year is an inference, and the database says from what */
	assert_non_null(strstr(kt_meta(tl, "time.year_basis"), "mtime"));
	bad_date_diags = t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'the date %% does not exist in %%'");
	t_close(tl);
	unlink(path);
	return t;
}

static void year_never_after_the_file(void **state)
{
	int64_t mtime = utc_ns(2026, 12, 1, 12, 0, 0, 0) / NS_PER_S;
	(void)state;
	/* a date later in the mtime's month would be after the file: last year */
	assert_int_equal(year_from_mtime("Dec  5 10:00:00", mtime), utc_ns(2025, 12, 5, 10, 0, 0, 0));
	assert_int_equal(year_from_mtime("Nov 30 23:00:00", mtime), utc_ns(2026, 11, 30, 23, 0, 0, 0));
	/* a day of slack for the zone the stamp is in */
	assert_int_equal(year_from_mtime("Dec  2 08:00:00", mtime), utc_ns(2026, 12, 2, 8, 0, 0, 0));
	assert_int_equal(year_from_mtime("Jan  3 00:00:00", utc_ns(2026, 1, 2, 0, 0, 0, 0) / NS_PER_S),
			 utc_ns(2026, 1, 3, 0, 0, 0, 0));
	assert_int_equal(year_from_mtime("Dec 31 23:59:59", utc_ns(2026, 1, 2, 0, 0, 0, 0) / NS_PER_S),
			 utc_ns(2025, 12, 31, 23, 59, 59, 0));
}

/* Issue 32: "Feb 29" in a file of a common year was placed on Mar 1
 * without a word; the inferred year is now the latest leap year that
 * fits, and a date no year has (Feb 30) is flagged and kept untimed. */
static void year_where_the_date_exists(void **state)
{
	int64_t mtime = utc_ns(2025, 6, 1, 12, 0, 0, 0) / NS_PER_S;
	(void)state;
	assert_int_equal(year_from_mtime("Feb 29 10:00:00", mtime), utc_ns(2024, 2, 29, 10, 0, 0, 0));
	assert_int_equal(bad_date_diags, 0);
	assert_int_equal(year_from_mtime("Feb 28 10:00:00", mtime), utc_ns(2025, 2, 28, 10, 0, 0, 0));
	/* in a leap year the mtime's year stands */
	assert_int_equal(year_from_mtime("Feb 29 10:00:00", utc_ns(2028, 3, 1, 0, 0, 0, 0) / NS_PER_S),
			 utc_ns(2028, 2, 29, 10, 0, 0, 0));
	assert_int_equal(year_from_mtime("Feb 30 10:00:00", mtime), OL_NULL);
	assert_int_equal(bad_date_diags, 1);
	assert_int_equal(year_from_mtime("Apr 31 10:00:00", mtime), OL_NULL);
	assert_int_equal(bad_date_diags, 1);
}

static void journal_json_byte_array(void **state)
{
	struct timeline *tl = kt_load("k515_journal.json", 0);
	(void)state;
	assert_int_equal(kt_count(tl, "oom_kill"), 1);
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind='oom_kill'"), 30211);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind='oom_kill'"),
			    "py\xef\xbf\xbdworker");
	assert_string_equal(t_text(tl, "SELECT boot_id FROM event WHERE kind='oom_kill'"),
			    "b9f1c3e2a7d54f0e8c1a2b3d4e5f6a7b");
	assert_string_equal(t_text(tl, "SELECT clock FROM event WHERE kind='oom_kill'"), "utc");
	assert_int_equal(t_int(tl, "SELECT boot_ns FROM event WHERE kind='oom_kill'"), 86400164456000LL);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM anchor WHERE how LIKE 'journal%%'"), 1);
	/* multi-line MESSAGE of the Mem-Info summary */
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "free_kb"), 33012 * 4);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM task"), 2);
	assert_string_equal(kt_meta(tl, "kernel.release"), "5.15.0-1051-azure");
	t_close(tl);
}

/* One header + kill under every prefix style: the time lands right. */
static void prefix_matrix(void **state)
{
	static const char kill_msg[] =
		"Out of memory: Killed process 4312 (python3) total-vm:269000000kB, anon-rss:280000kB, "
		"file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:5200kB oom_score_adj:0";
	static const struct {
		const char *prefix;
		const char *clock;
		int64_t time_ns, boot_ns;
	} cases[] = {
		{ "[ 4607.765352] ", "boot", OL_NULL, 4607765352000LL },
		{ "[ 4607.765352][  T812] ", "boot", OL_NULL, 4607765352000LL },
		{ "<3>[ 4607.765352] ", "boot", OL_NULL, 4607765352000LL },
		{ "kern  :err   : [ 4607.765352] ", "boot", OL_NULL, 4607765352000LL },
		{ "[Sat Nov 29 18:22:40 2025] ", "local", 1764440560000000000LL, OL_NULL },
		/* dmesg -T under other locales (zh_CN, ko_KR, de_DE, fr_FR, es_ES,
		 * ru_RU: glibc's %a %b): a month the parser knows gives the time;
		 * a name not in its table ("Mrz") only comes off the line */
		{ "[\xe5\x85\xad 11\xe6\x9c\x88 29 18:22:40 2025] ", "local", 1764440560000000000LL, OL_NULL },
		{ "[\xed\x86\xa0 11\xec\x9b\x94 29 18:22:40 2025] ", "local", 1764440560000000000LL, OL_NULL },
		{ "[Sa Nov 29 18:22:40 2025] ", "local", 1764440560000000000LL, OL_NULL },
		{ "[Sa M\xc3\xa4r 29 18:22:40 2025] ", "local", 1743272560000000000LL, OL_NULL },
		{ "[sam. janv. 29 18:22:40 2025] ", "local", 1738174960000000000LL, OL_NULL },
		{ "[s\xc3\xa1""b dic 29 18:22:40 2025] ", "local", 1767032560000000000LL, OL_NULL },
		{ "[\xd1\x81\xd0\xb1 \xd0\xbe\xd0\xba\xd1\x82 29 18:22:40 2025] ", "local",
		  1761762160000000000LL, OL_NULL },
		/* sv_SE, pl_PL (glibc abmon "maj", "pa\xc5\xba") */
		{ "[l\xc3\xb6r maj 29 18:22:40 2025] ", "local", 1748542960000000000LL, OL_NULL },
		{ "[\xc5\x9bro pa\xc5\xba 29 18:22:40 2025] ", "local", 1761762160000000000LL, OL_NULL },
		{ "[Sa Mrz 29 18:22:40 2025] ", NULL, OL_NULL, OL_NULL },
		{ "Nov 29 18:22:40 gpu1 kernel: ", "local", 1764440560000000000LL, OL_NULL },
		{ "Nov 29 18:22:40 gpu1 kernel: [ 4607.765352] ", "local", 1764440560000000000LL, 4607765352000LL },
		{ "2025-11-29T18:22:40.123456+02:00 gpu1 kernel: ", "utc", 1764433360123456000LL, OL_NULL },
		{ "<3>1 2025-11-29T18:22:40.123456+00:00 gpu1 kernel - - - ", "utc", 1764440560123456000LL, OL_NULL },
		{ "2025-11-29T18:22:40+0000 gpu1 kernel: ", "utc", 1764440560000000000LL, OL_NULL },
		{ "2025-11-29T18:22:40.123456+0000 gpu1 kernel: ", "utc", 1764440560123456000LL, OL_NULL },
		{ "Nov 29 18:22:40.123456 gpu1 kernel: ", "local", 1764440560123456000LL, OL_NULL },
		{ "[ 4607.765352] gpu1 kernel: ", "boot", OL_NULL, 4607765352000LL },
		{ "1764440560.123456 gpu1 kernel: ", "utc", 1764440560123456000LL, OL_NULL },
		{ "Sat 2025-11-29 18:22:40 UTC gpu1 kernel: ", "utc", 1764440560000000000LL, OL_NULL },
		{ "Sat 2025-11-29 18:22:40 CET gpu1 kernel: ", "local", 1764440560000000000LL, OL_NULL },
		{ "3,51234,4607765352,-;", "boot", OL_NULL, 4607765352000LL },
		{ "3,51234,4607765352,-,caller=T812;", "boot", OL_NULL, 4607765352000LL },
		{ "> [ 4607.765352] ", "boot", OL_NULL, 4607765352000LL },
		{ "", NULL, OL_NULL, OL_NULL },
	};
	size_t i;
	char text[1024];
	(void)state;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct timeline *tl = t_open();
		tl->opts.year = 2025;
		snprintf(text, sizeof(text),
			 "%spython3 invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0\n"
			 "%s%s\n", cases[i].prefix, cases[i].prefix, kill_msg);
		assert_true(t_parse_mem(tl, KIND, "m", text, 0) > 0);
		if (t_int(tl, "SELECT pid FROM event WHERE kind='oom_kill'") != 4312)
			fail_msg("prefix '%s': no kill", cases[i].prefix);
		if (strcmp(t_text(tl, "SELECT clock FROM event WHERE kind='oom_kill'"),
			   cases[i].clock ? cases[i].clock : "(null)"))
			fail_msg("prefix '%s': clock %s", cases[i].prefix,
				 t_text(tl, "SELECT clock FROM event WHERE kind='oom_kill'"));
		assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='oom_kill'"), cases[i].time_ns);
		assert_int_equal(t_int(tl, "SELECT boot_ns FROM event WHERE kind='oom_kill'"), cases[i].boot_ns);
		assert_string_equal(kt_jtext(tl, "oom_kill", 0, "invoker.comm"), "python3");
		assert_int_equal(kt_jint(tl, "oom_kill", 0, "total_vm_kb"), 269000000);
		t_close(tl);
	}
}

/* --tz turns zone-less local stamps into UTC. */
static void tz_option_makes_utc(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	tl->opts.year = 2025;
	tl->opts.tz_known = 1;
	tl->opts.tz_offset_s = 3600;
	t_parse_mem(tl, KIND, "m",
		    "Nov 29 18:22:40 gpu1 kernel: Out of memory: Killed process 7 (x) total-vm:4kB, anon-rss:4kB, file-rss:0kB, shmem-rss:0kB\n", 0);
	assert_string_equal(t_text(tl, "SELECT clock FROM event"), "utc");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event"), 1764436960LL * 1000000000LL);
	t_close(tl);
}

/* A dmesg stamp going back means a reboot: later boots get their own id. */
static void reboot_starts_new_boot_id(void **state)
{
	struct timeline *tl = t_open();
	static const char text[] =
		"[ 9000.000001] Out of memory: Killed process 10 (a) total-vm:8kB, anon-rss:4kB, file-rss:0kB, shmem-rss:0kB\n"
		"[    0.000000] Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org)\n"
		"[   50.000001] Out of memory: Killed process 11 (b) total-vm:8kB, anon-rss:4kB, file-rss:0kB, shmem-rss:0kB\n";
	(void)state;
	assert_true(t_parse_mem(tl, KIND, "m", text, 0) > 0);
	assert_string_equal(t_text(tl, "SELECT boot_id FROM event WHERE pid=10"), "(null)");
	assert_string_equal(t_text(tl, "SELECT boot_id FROM event WHERE pid=11"), "boot-2");
	t_close(tl);
}

/* The same, each row behind a dmesg -T stamp in the zh_CN locale
 * (tests/data/incoming/any_stack, kvcache-ai/ktransformers#637: rows
 * verbatim): the stamp is a stamp, not the row's "[pid]"; the report
 * takes the rows' local time. */
static void task_table_localized_stamps(void **state)
{
	static const char text[] =
		"[\xe5\x9b\x9b 3\xe6\x9c\x88 20 21:01:25 2025] [   2665]     0  2665    55756      339"
		"    77824       68             0 crond\n"
		"[\xe5\x9b\x9b 3\xe6\x9c\x88 20 21:01:25 2025] [   2715]     0  2715    33960       15"
		"   122880      280          -900 dde-dconfig-dae\n"
		"[\xe5\x9b\x9b 3\xe6\x9c\x88 20 21:01:25 2025] [   3132]     0  3132    54792        0"
		"    57344       33             0 agetty\n";
	struct timeline *tl = t_open();
	(void)state;

	assert_true(kernel_oom_sniff((const unsigned char *)text, sizeof(text) - 1) > 0);
	assert_true(t_parse_mem(tl, KIND, "zh.log", text, sizeof(text) - 1) > 0);
	assert_int_equal(kt_count(tl, "oom_invoked"), 1);
	assert_int_equal(kt_count(tl, "oom_kill"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM task"), 3);
	assert_int_equal(t_int(tl, "SELECT oom_score_adj FROM task WHERE pid = 2715"), -900);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='oom_invoked'"),
			 1742504485LL * 1000000000LL);   /* 2025-03-20 21:01:25 */
	t_close(tl);
}

/* A syslog line with no host ("Feb 10 06:02:20 kernel: ", journalctl
 * of a host whose name is empty, or a paste that cut it: tarkah/tickrs
 * #61, tests/data/incoming/any_stack): the task dump is read, not
 * dropped as a line of no known shape. */
static void syslog_without_host(void **state)
{
	static const char text[] =
		"Feb 10 06:02:20 kernel: Tasks state (memory values in pages):\n"
		"Feb 10 06:02:20 kernel: [  pid  ]   uid  tgid total_vm      rss pgtables_bytes "
		"swapents oom_score_adj name\n"
		"Feb 10 06:02:20 kernel: [2275268]     0 2275268  2001555   705854  9302016   "
		"421501             0 tickrs\n"
		"Feb 10 06:02:20 kernel: [2275331]     0 2275331  2149014   730901  9654272   "
		"434922             0 tickrs\n";
	struct timeline *tl = t_open();
	(void)state;

	assert_true(t_parse_mem(tl, KIND, "j.txt", text, sizeof(text) - 1) > 0);
	assert_int_equal(kt_count(tl, "oom_invoked"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM task"), 2);
	assert_int_equal(t_int(tl, "SELECT rss_pages FROM task WHERE pid = 2275331"), 730901);
	t_close(tl);
}

/* A memcg kill quoted without its figures (leyabierta/leyabierta #101):
 * the header ends at "invoked oom-killer", the victim line names the comm
 * but not the pid. Both are the kernel's (mm/oom_kill.c@v6.6 wording):
 * one report, one kill of bun. */
static void memcg_kill_quoted_without_pid(void **state)
{
	static const char text[] =
		"kernel: bun invoked oom-killer\n"
		"kernel: Memory cgroup out of memory: Killed process (bun)\n";
	struct timeline *tl = t_open();
	(void)state;

	assert_true(t_parse_mem(tl, KIND, "k.txt", text, sizeof(text) - 1) > 0);
	assert_int_equal(kt_count(tl, "oom_kill"), 1);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind='oom_kill'"), "bun");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(year_never_after_the_file),
		cmocka_unit_test(year_where_the_date_exists),
		cmocka_unit_test(journal_json_byte_array),
		cmocka_unit_test(prefix_matrix),
		cmocka_unit_test(tz_option_makes_utc),
		cmocka_unit_test(reboot_starts_new_boot_id),
		cmocka_unit_test(task_table_localized_stamps),
		cmocka_unit_test(syslog_without_host),
		cmocka_unit_test(memcg_kill_quoted_without_pid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
