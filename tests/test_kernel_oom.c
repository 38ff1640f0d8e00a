/*
 * test_kernel_oom.c -- the kernel OOM-killer log parser: every kernel
 * generation (2.6.32 RHEL 6 to 6.8), global and memcg v1/v2 reports, every
 * log-source prefix, segmentation (several events, oom.group, kill storm,
 * sysrq), times and anchors, and damaged input.
 */
#include "testutil.h"
#include "reports/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "analyzer/ingest/ingest.h"
#include "lib/timeutil.h"
#include "parsers/kernel/kernel_oom.h"

#define KIND "kernel_log"

/* Parse tests/data/kernel/NAME with --year year (0: none). */
static struct timeline *load(const char *name, int year)
{
	struct timeline *tl = t_open();
	char rel[256];
	size_t n;
	char *text;

	snprintf(rel, sizeof(rel), "tests/data/kernel/%s", name);
	text = t_slurp(rel, &n);
	tl->opts.year = year;
	assert_true(t_parse_mem(tl, KIND, name, text, n) > 0);
	free(text);
	return tl;
}

/* json_extract of the data of the idx-th (0-based) event of kind. */
#define EV "(SELECT data FROM event WHERE kind = '%s' ORDER BY id LIMIT 1 OFFSET %d)"
static int64_t jint(struct timeline *tl, const char *kind, int idx, const char *path)
{
	return t_int(tl, "SELECT json_extract(" EV ", '$.%s')", kind, idx, path);
}
static const char *jtext(struct timeline *tl, const char *kind, int idx, const char *path)
{
	return t_text(tl, "SELECT json_extract(" EV ", '$.%s')", kind, idx, path);
}
static int64_t count(struct timeline *tl, const char *kind)
{
	return t_int(tl, "SELECT count(*) FROM event WHERE kind = '%s'", kind);
}
static const char *meta(struct timeline *tl, const char *key)
{
	return t_text(tl, "SELECT value FROM meta WHERE key = '%s'", key);
}

static void rhel6_2632(void **state)
{
	struct timeline *tl = load("rhel6_messages.log", 2013);
	(void)state;
	assert_int_equal(count(tl, "oom_invoked"), 1);
	assert_int_equal(count(tl, "oom_kill"), 1);
	assert_string_equal(meta(tl, "kernel.release"), "2.6.32-431.el6.x86_64");
	assert_string_equal(meta(tl, "kernel.page_size"), "4096");
	assert_string_equal(meta(tl, "kernel.page_size_assumed"), "0");
	/* invoker from header and the old "Pid: N, comm:" line */
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind='oom_invoked'"), 2345);
	assert_string_equal(jtext(tl, "oom_invoked", 0, "gfp_mask"), "0x201da");
	assert_string_equal(jtext(tl, "oom_invoked", 0, "gfp_flags"), "(null)");
	assert_string_equal(jtext(tl, "oom_invoked", 0, "nodemask"), "(null)");
	assert_string_equal(jtext(tl, "oom_invoked", 0, "cpuset"), "/");
	/* Mem-Info pages x 4 kB */
	assert_int_equal(jint(tl, "oom_invoked", 0, "free_kb"), 25207 * 4);
	assert_int_equal(jint(tl, "oom_invoked", 0, "anon_kb"), (1818253 + 199716) * 4);
	assert_int_equal(jint(tl, "oom_invoked", 0, "file_kb"), (291 + 416) * 4);
	assert_int_equal(jint(tl, "oom_invoked", 0, "slab_kb"), (3565 + 8917) * 4);
	assert_int_equal(jint(tl, "oom_invoked", 0, "ram_kb"), 2097151LL * 4);
	assert_int_equal(jint(tl, "oom_invoked", 0, "swap_total_kb"), 0);
	assert_string_equal(jtext(tl, "oom_invoked", 0, "constraint"), "none");
	assert_int_equal(jint(tl, "oom_invoked", 0, "memcg_usage_kb"), OL_NULL);
	/* task table, 2.6.36-3.7 columns */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM task"), 4);
	assert_int_equal(t_int(tl, "SELECT oom_adj FROM task WHERE pid=512"), -17);
	assert_int_equal(t_int(tl, "SELECT oom_score_adj FROM task WHERE pid=512"), -1000);
	assert_int_equal(t_int(tl, "SELECT rss_pages FROM task WHERE name='mysqld'"), 1989017);
	assert_int_equal(t_int(tl, "SELECT pgtables_bytes FROM task WHERE pid=2345"), OL_NULL);
	assert_string_equal(t_text(tl, "SELECT name FROM task WHERE pid=2201"), "mysqld_safe");
	/* RHEL 6 victim line: "Killed process N, UID U, (comm) ..." */
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind='oom_kill'"), 2345);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind='oom_kill'"), "mysqld");
	assert_int_equal(jint(tl, "oom_kill", 0, "uid"), 27);
	assert_int_equal(jint(tl, "oom_kill", 0, "total_vm_kb"), 8132500);
	assert_int_equal(jint(tl, "oom_kill", 0, "anon_rss_kb"), 7955944);
	assert_int_equal(jint(tl, "oom_kill", 0, "file_rss_kb"), 124);
	assert_int_equal(jint(tl, "oom_kill", 0, "shmem_rss_kb"), OL_NULL);
	assert_int_equal(jint(tl, "oom_kill", 0, "pgtables_kb"), OL_NULL);
	assert_int_equal(jint(tl, "oom_kill", 0, "oom_score_adj"), 0);  /* from the task row */
	assert_int_equal(jint(tl, "oom_kill", 0, "score"), 960);
	assert_string_equal(jtext(tl, "oom_kill", 0, "invoker.comm"), "mysqld");
	assert_int_equal(jint(tl, "oom_kill", 0, "invoker_event"),
			 t_int(tl, "SELECT id FROM event WHERE kind='oom_invoked'"));
	/* syslog local time, year from --year */
	assert_string_equal(t_text(tl, "SELECT clock FROM event WHERE kind='oom_kill'"), "local");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='oom_kill'"),
			 1385694847LL * 1000000000LL);   /* 2013-11-29 03:14:07 */
	assert_int_equal(t_int(tl, "SELECT boot_ns FROM event WHERE kind='oom_kill'"), OL_NULL);
	t_close(tl);
}

static void rhel7_310_crlf_and_folded_meminfo(void **state)
{
	struct timeline *tl = load("rhel7_messages.log", 2023);
	(void)state;
	assert_int_equal(count(tl, "oom_kill"), 1);
	assert_string_equal(meta(tl, "kernel.release"), "3.10.0-1160.el7.x86_64");
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind='oom_invoked'"), 3141);
	/* "#012"-folded summary */
	assert_int_equal(jint(tl, "oom_invoked", 0, "free_kb"), 25293 * 4);
	assert_int_equal(jint(tl, "oom_invoked", 0, "shmem_kb"), 4348 * 4);
	assert_int_equal(jint(tl, "oom_invoked", 0, "slab_kb"), (8046 + 6913) * 4);
	assert_int_equal(t_int(tl, "SELECT nr_ptes FROM task WHERE pid=3141"), 3800);
	assert_int_equal(t_int(tl, "SELECT swapents FROM task WHERE pid=3141"), 0);
	assert_int_equal(t_int(tl, "SELECT oom_adj FROM task WHERE pid=3141"), OL_NULL);
	assert_string_equal(t_text(tl, "SELECT name FROM task WHERE pid=356"), "systemd-udevd");
	/* RHEL 7 "Killed process N (c), UID U, total-vm:..." */
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind='oom_kill'"), "java");
	assert_int_equal(jint(tl, "oom_kill", 0, "uid"), 1000);
	assert_int_equal(jint(tl, "oom_kill", 0, "shmem_rss_kb"), 0);
	assert_int_equal(jint(tl, "oom_kill", 0, "total_vm_kb"), 10004936);
	t_close(tl);
}

static void ubuntu44_two_events_year_wrap(void **state)
{
	struct timeline *tl = load("ubuntu44_kern.log", 2023);
	(void)state;
	assert_int_equal(count(tl, "oom_invoked"), 2);
	assert_int_equal(count(tl, "oom_kill"), 2);
	assert_int_equal(count(tl, "oom_no_kill"), 0);
	/* second event is in the next year: Dec 31 -> Jan 1 */
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='oom_kill' ORDER BY id LIMIT 1"),
			 1704067199LL * 1000000000LL);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='oom_kill' ORDER BY id DESC LIMIT 1"),
			 1704067203LL * 1000000000LL);
	/* the dmesg stamp after "kernel:" gives boot time too */
	assert_int_equal(t_int(tl, "SELECT boot_ns FROM event WHERE kind='oom_kill' ORDER BY id LIMIT 1"),
			 7001124012000LL);
	assert_int_equal(t_int(tl, "SELECT nr_pmds FROM task WHERE pid=28801 LIMIT 1"), 10);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM task"), 5);
	assert_int_equal(jint(tl, "oom_kill", 0, "shmem_rss_kb"), OL_NULL);
	assert_int_equal(jint(tl, "oom_kill", 0, "uid"), OL_NULL);
	assert_int_equal(jint(tl, "oom_kill", 1, "invoker.pid"), 28805);
	assert_int_equal(jint(tl, "oom_kill", 1, "invoker_event"),
			 t_int(tl, "SELECT id FROM event WHERE kind='oom_invoked' ORDER BY id DESC LIMIT 1"));
	assert_int_equal(jint(tl, "oom_invoked", 0, "reserved_kb"), 87198 * 4);
	t_close(tl);
}

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
	assert_non_null(strstr(meta(tl, "time.year_basis"), "mtime"));
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

static void k419_memcg_v1_k8s(void **state)
{
	struct timeline *tl = load("k419_memcg_v1_dmesg.log", 0);
	(void)state;
	assert_string_equal(jtext(tl, "oom_invoked", 0, "gfp_mask"), "0x6000c0");
	assert_string_equal(jtext(tl, "oom_invoked", 0, "gfp_flags"), "GFP_KERNEL");
	assert_string_equal(jtext(tl, "oom_invoked", 0, "nodemask"), "(null)");
	assert_int_equal(jint(tl, "oom_invoked", 0, "oom_score_adj"), 969);
	assert_string_equal(jtext(tl, "oom_invoked", 0, "constraint"), "memcg");
	assert_int_equal(jint(tl, "oom_invoked", 0, "memcg_usage_kb"), 2097152);
	assert_int_equal(jint(tl, "oom_invoked", 0, "memcg_limit_kb"), 2097152);
	assert_int_equal(jint(tl, "oom_invoked", 0, "memcg_failcnt"), 48213);
	assert_int_equal(jint(tl, "oom_invoked", 0, "memsw_limit_kb"), OL_NULL); /* unlimited */
	assert_int_equal(jint(tl, "oom_invoked", 0, "kmem_usage_kb"), 19384);
	assert_int_equal(jint(tl, "oom_invoked", 0, "swap_usage_kb"), OL_NULL);
	assert_int_equal(jint(tl, "oom_invoked", 0, "free_kb"), OL_NULL);
	assert_string_equal(jtext(tl, "oom_kill", 0, "oom_memcg"),
			    "/kubepods/burstable/pod6f1c3a52-7d2e-4b1a-9c0d-2e5f7a8b9c10");
	assert_string_equal(jtext(tl, "oom_kill", 0, "constraint"), "memcg");
	assert_int_equal(jint(tl, "oom_kill", 0, "oom_score_adj"), 969);  /* task row */
	assert_int_equal(jint(tl, "oom_kill", 0, "pgtables_kb"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT pgtables_bytes FROM task WHERE pid=40311"), 4972544);
	assert_int_equal(t_int(tl, "SELECT oom_score_adj FROM task WHERE name='pause'"), -998);
	assert_string_equal(t_text(tl, "SELECT clock FROM event WHERE kind='oom_kill'"), "boot");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='oom_kill'"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT boot_ns FROM event WHERE kind='oom_kill'"),
			 1024601153702000LL);
	/* page size proven by the victim row: 1210893 pages = 4843572 kB */
	assert_string_equal(meta(tl, "kernel.page_size_assumed"), "0");
	assert_int_equal(count(tl, "oom_reaper"), 1);
	assert_int_equal(jint(tl, "oom_reaper", 0, "kill_event"),
			 t_int(tl, "SELECT id FROM event WHERE kind='oom_kill'"));
	t_close(tl);
}

static void k54_memcg_v2_journal_continuations(void **state)
{
	struct timeline *tl = load("k54_memcg_v2_journal_precise.log", 2024);
	(void)state;
	assert_int_equal(count(tl, "oom_kill"), 1);
	assert_string_equal(jtext(tl, "oom_kill", 0, "constraint"), "memcg");
	assert_string_equal(jtext(tl, "oom_kill", 0, "task_memcg"),
		"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0a1b2c3d_4e5f_6789_abcd_"
		"ef0123456789.slice/cri-containerd-7c1d0e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d.scope");
	assert_int_equal(jint(tl, "oom_kill", 0, "uid"), 1000);
	assert_int_equal(jint(tl, "oom_kill", 0, "pgtables_kb"), 8980);
	assert_int_equal(jint(tl, "oom_kill", 0, "oom_score_adj"), 987);
	assert_int_equal(jint(tl, "oom_invoked", 0, "swap_usage_kb"), 0);
	assert_int_equal(jint(tl, "oom_invoked", 0, "swap_limit_kb"), 0);
	assert_int_equal(jint(tl, "oom_invoked", 0, "memsw_usage_kb"), OL_NULL);
	/* journal continuation lines of memory.stat did not become anything */
	assert_int_equal(jint(tl, "oom_invoked", 0, "anon_kb"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM task"), 3);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='oom_kill'"),
			 1715344496101640000LL);
	assert_string_equal(t_text(tl, "SELECT clock FROM event WHERE kind='oom_kill'"), "local");
	t_close(tl);
}

static void k68_rss_columns_rfc3339_anchor(void **state)
{
	struct timeline *tl = load("k68_global_rsyslog_rfc3339.log", 0);
	(void)state;
	assert_string_equal(meta(tl, "kernel.release"), "6.8.0-52-generic");
	assert_int_equal(t_int(tl, "SELECT rss_anon_pages FROM task WHERE pid=8790"), 60011010);
	assert_int_equal(t_int(tl, "SELECT rss_file_pages FROM task WHERE pid=8790"), 1201100);
	assert_int_equal(t_int(tl, "SELECT rss_shmem_pages FROM task WHERE pid=8790"), 78000);
	assert_int_equal(t_int(tl, "SELECT pgtables_bytes FROM task WHERE pid=8790"), 125730816);
	assert_string_equal(t_text(tl, "SELECT name FROM task WHERE pid=9001"), "ray::IDLE");
	assert_string_equal(jtext(tl, "oom_kill", 0, "constraint"), "none");
	assert_string_equal(jtext(tl, "oom_invoked", 0, "mems_allowed"), "0-1");
	assert_string_equal(jtext(tl, "oom_invoked", 0, "gfp_flags"), "GFP_HIGHUSER_MOVABLE|__GFP_COMP");
	assert_int_equal(jint(tl, "oom_invoked", 0, "anon_kb"), (2101211LL + 62410023LL) * 4);
	/* RFC 3339 with offset: UTC; the dmesg stamp after kernel: gives an anchor */
	assert_string_equal(t_text(tl, "SELECT clock FROM event WHERE kind='oom_kill'"), "utc");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='oom_kill'"),
			 1741940813310120000LL);  /* 2025-03-14T08:26:53.310120Z */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM anchor"), 1);
	assert_int_equal(t_int(tl, "SELECT boot_ns FROM anchor"), 86402512345000LL);
	assert_int_equal(jint(tl, "oom_reaper", 0, "file_rss_kb"), 1024);
	assert_int_equal(jint(tl, "oom_reaper", 0, "shmem_rss_kb"), 312000);
	t_close(tl);
}

static void k515_oom_group_dmesg_T(void **state)
{
	struct timeline *tl = load("k515_oomgroup_dmesg_T.log", 0);
	(void)state;
	/* first kill + group members, the repeated 77119 counted once */
	assert_int_equal(count(tl, "oom_kill"), 3);
	assert_int_equal(t_int(tl, "SELECT count(DISTINCT pid) FROM event WHERE kind='oom_kill'"), 3);
	assert_int_equal(jint(tl, "oom_kill", 1, "oom_group"), 1);
	assert_int_equal(jint(tl, "oom_kill", 0, "oom_group"), 0);
	assert_int_equal(jint(tl, "oom_kill", 2, "invoker_event"),
			 t_int(tl, "SELECT id FROM event WHERE kind='oom_invoked'"));
	assert_string_equal(t_text(tl, "SELECT clock FROM event WHERE kind='oom_kill' LIMIT 1"), "local");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='oom_kill' LIMIT 1"),
			 1701907500LL * 1000000000LL);
	assert_int_equal(jint(tl, "oom_invoked", 0, "swap_limit_kb"), OL_NULL);
	t_close(tl);
}

static void sysrq_is_operator_triggered(void **state)
{
	struct timeline *tl = load("sysrq_dmesg.log", 0);
	(void)state;
	assert_int_equal(jint(tl, "oom_invoked", 0, "order"), -1);
	assert_int_equal(jint(tl, "oom_invoked", 0, "operator_triggered"), 1);
	assert_int_equal(jint(tl, "oom_kill", 0, "operator_triggered"), 1);
	/* continuation lines with only leading blanks (no stamp) */
	assert_int_equal(jint(tl, "oom_invoked", 0, "free_kb"), 1020113LL * 4);
	assert_int_equal(jint(tl, "oom_invoked", 0, "swap_total_kb"), 2097148);
	assert_int_equal(t_int(tl, "SELECT bytes FROM event WHERE kind='oom_invoked'"), OL_NULL);
	t_close(tl);
}

static void kmsg_kill_storm_without_headers(void **state)
{
	struct timeline *tl = load("killstorm_kmsg.log", 0);
	(void)state;
	assert_int_equal(count(tl, "oom_invoked"), 0);
	assert_int_equal(count(tl, "oom_kill"), 3);
	assert_int_equal(jint(tl, "oom_kill", 0, "invoker_event"), OL_NULL);
	assert_string_equal(jtext(tl, "oom_kill", 0, "invoker.comm"), "(null)");
	assert_string_equal(jtext(tl, "oom_kill", 0, "constraint"), "(null)");
	assert_int_equal(t_int(tl, "SELECT boot_ns FROM event WHERE pid=5001 AND kind='oom_kill'"),
			 4607765400000LL);
	assert_int_equal(jint(tl, "oom_reaper", 0, "kill_event"),
			 t_int(tl, "SELECT id FROM event WHERE pid=5001 AND kind='oom_kill'"));
	assert_string_equal(meta(tl, "kernel.page_size_assumed"), "1");
	assert_true(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE '%%ratelimit%%'") == 1);
	t_close(tl);
}

static void journal_json_byte_array(void **state)
{
	struct timeline *tl = load("k515_journal.json", 0);
	(void)state;
	assert_int_equal(count(tl, "oom_kill"), 1);
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind='oom_kill'"), 30211);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind='oom_kill'"),
			    "py\xef\xbf\xbdworker");
	assert_string_equal(t_text(tl, "SELECT boot_id FROM event WHERE kind='oom_kill'"),
			    "b9f1c3e2a7d54f0e8c1a2b3d4e5f6a7b");
	assert_string_equal(t_text(tl, "SELECT clock FROM event WHERE kind='oom_kill'"), "utc");
	assert_int_equal(t_int(tl, "SELECT boot_ns FROM event WHERE kind='oom_kill'"), 86400164456000LL);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM anchor WHERE how LIKE 'journal%%'"), 1);
	/* multi-line MESSAGE of the Mem-Info summary */
	assert_int_equal(jint(tl, "oom_invoked", 0, "free_kb"), 33012 * 4);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM task"), 2);
	assert_string_equal(meta(tl, "kernel.release"), "5.15.0-1051-azure");
	t_close(tl);
}

static void userspace_killers_and_alloc_failure(void **state)
{
	struct timeline *tl = load("userspace_short_iso.log", 0);
	(void)state;
	assert_int_equal(count(tl, "userspace_kill"), 2);
	assert_string_equal(jtext(tl, "userspace_kill", 0, "killer"), "earlyoom");
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind='userspace_kill' ORDER BY id"), 90210);
	assert_string_equal(jtext(tl, "userspace_kill", 1, "killer"), "systemd-oomd");
	assert_string_equal(jtext(tl, "userspace_kill", 1, "cgroup"),
		"/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-code-4021.scope");
	assert_int_equal(count(tl, "alloc_failure"), 1);
	assert_int_equal(jint(tl, "alloc_failure", 0, "order"), 4);
	assert_int_equal(count(tl, "oom_invoked"), 0);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='alloc_failure'"),
			 1708437961LL * 1000000000LL);
	t_close(tl);
}

/* A warn_alloc call trace whose header a paste cut off, under dmesg -H's
 * relative "[  +0.002367]" stamps (tests/data/real/any_stack, raspberrypi/
 * linux 5395): one page allocation failure, told as inferred and with no
 * time (a delta is no time); with its header (x86 frames " warn_alloc+0x")
 * the trace adds none. */
static void warn_alloc_trace_without_header(void **state)
{
	static const char with_header[] =
		"[  100.000001] python3: page allocation failure: order:4, "
		"mode:0x40dc0(GFP_KERNEL|__GFP_COMP|__GFP_ZERO), nodemask=(null)\n"
		"[  100.000002] CPU: 3 PID: 4242 Comm: python3 Not tainted 5.15.0-91-generic\n"
		"[  100.000003] Call Trace:\n"
		"[  100.000004]  <TASK>\n"
		"[  100.000005]  dump_stack_lvl+0x4a/0x63\n"
		"[  100.000006]  warn_alloc+0x138/0x160\n"
		"[  100.000007]  __alloc_pages_slowpath.constprop.0+0xa0e/0xa50\n";
	struct timeline *tl = t_open();
	size_t n;
	char *text = t_slurp("tests/data/real/any_stack/kernel-armv7-rpi-warn-alloc-reltime-deltas.log",
			     &n);

	(void)state;
	assert_true(t_parse_mem(tl, KIND, "rpi.log", text, n) > 0);
	free(text);
	assert_int_equal(count(tl, "alloc_failure"), 1);
	assert_string_equal(jtext(tl, "alloc_failure", 0, "inferred_from"), "warn_alloc frame");
	assert_int_equal(t_int(tl, "SELECT time_ns IS NULL AND boot_ns IS NULL FROM event "
			       "WHERE kind='alloc_failure'"), 1);
	t_close(tl);

	tl = t_open();
	assert_true(t_parse_mem(tl, KIND, "x86.log", with_header, sizeof(with_header) - 1) > 0);
	assert_int_equal(count(tl, "alloc_failure"), 1);
	assert_int_equal(jint(tl, "alloc_failure", 0, "order"), 4);
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
		assert_string_equal(jtext(tl, "oom_kill", 0, "invoker.comm"), "python3");
		assert_int_equal(jint(tl, "oom_kill", 0, "total_vm_kb"), 269000000);
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

/* Header without a kill, comm with spaces and parens, damaged lines. */
static void nokill_and_damage(void **state)
{
	struct timeline *tl = t_open();
	static const char text[] =
		"[  100.000001] Web Content invoked oom-killer: gfp_mask=0x0(), nodemask=0, order=0, oom_score_adj=0\n"
		"[  100.000002] CPU: 1 UID: 0 PID: 999 Comm: Web Content Not tainted 6.11.0 #15 PREEMPT(voluntary)\n"
		"[  100.000003] Mem-Info:\n"
		"[  100.000004] active_anon:10 inactive_anon:20 isolated_anon:0\n"
		"[  100.000005] Node 0 DMA free:1kB\n"
		"[  100.000005] Node 1 DMA free:1kB\n"
		"[  100.000006] [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n"
		"[  100.000007] [    999]  1000   999      1\n"
		"[  100.000008] [   1000]  1000  1000     20      10   4096        0             0 (sd-pam) x\n"
		"[  100.000009] Out of memory and no killable processes...\n"
		"[  200.000001] x invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0\n"
		"[  200.000002] Out of memory: Killed process 1234 ((sd-foo)) total-vm:100kB, anon-rss:8k\n"
		"[  200.000003] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_al\n"
		"[  201.000001] Out of Memory: Killed process 475 (identd).\n";
	(void)state;
	assert_true(t_parse_mem(tl, KIND, "m", text, 0) > 0);
	assert_int_equal(count(tl, "oom_no_kill"), 1);
	assert_string_equal(jtext(tl, "oom_no_kill", 0, "reason"), "no_killable_processes");
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind='oom_invoked' ORDER BY id"),
			    "Web Content");
	assert_string_equal(jtext(tl, "oom_invoked", 0, "constraint"), "memory_policy");
	assert_string_equal(jtext(tl, "oom_invoked", 0, "gfp_flags"), "(null)");
	assert_int_equal(jint(tl, "oom_invoked", 0, "oom_score_adj"), 0);
	assert_string_equal(meta(tl, "kernel.release"), "6.11.0");
	assert_int_equal(t_int(tl, "SELECT total_vm_pages FROM task WHERE pid=999"), 1);
	assert_int_equal(t_int(tl, "SELECT rss_pages FROM task WHERE pid=999"), OL_NULL);
	assert_string_equal(t_text(tl, "SELECT name FROM task WHERE pid=1000"), "(sd-pam) x");
	assert_int_equal(count(tl, "oom_kill"), 2);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind='oom_kill' AND pid=1234"), "(sd-foo)");
	assert_int_equal(jint(tl, "oom_kill", 0, "anon_rss_kb"), 8);
	assert_int_equal(jint(tl, "oom_kill", 0, "file_rss_kb"), OL_NULL);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind='oom_kill' AND pid=475"), "identd");
	assert_int_equal(jint(tl, "oom_kill", 1, "total_vm_kb"), OL_NULL);
	t_close(tl);
}

/* Shapes seen in real reports: RHEL 7.5 taint text before the release,
 * the 4.13/4.14 double space before order=, 4.8-4.13 zone lines without
 * "Node N", a docker cpuset name. */
static void real_world_shapes(void **state)
{
	struct timeline *tl = t_open();
	static const char text[] =
		"Dec 11 10:48:09 h kernel: thrash invoked oom-killer: gfp_mask=0xd0, order=0, oom_score_adj=0\n"
		"Dec 11 10:48:09 h kernel: thrash cpuset=91091d5382d5 mems_allowed=0-1\n"
		"Dec 11 10:48:09 h kernel: CPU: 2 PID: 11554 Comm: thrash Kdump: loaded Tainted: G          I    ------------ T 3.10.0-862.11.6.el7.x86_64 #1\n"
		"Dec 11 10:48:09 h kernel: [<ffffffffa1c0f5b8>] ? try_get_mem_cgroup_from_mm+0x28/0x60\n"
		"Dec 11 10:48:09 h kernel: Memory cgroup out of memory: Kill process 11554 (thrash) score 1000 or sacrifice child\n"
		"Dec 11 10:48:09 h kernel: Killed process 11554 (thrash) total-vm:1000kB, anon-rss:800kB, file-rss:4kB, shmem-rss:0kB\n"
		"[   13.957383] mem invoked oom-killer: gfp_mask=0x14200ca(GFP_HIGHUSER_MOVABLE), nodemask=(null),  order=0, oom_score_adj=0\n"
		"[   13.957877] CPU: 0 PID: 93 Comm: mem Not tainted 4.14.67+ #1\n"
		"[   13.956714] Node 0 active_anon:968kB inactive_anon:32280kB all_unreclaimable? no\n"
		"[   13.959081] DMA free:519112kB boost:7216kB min:10428kB present:786432kB managed:663836kB\n"
		"[   13.962208] DMA: 142*4kB (UEC) 161*8kB (UEC) 59*16kB (UEC) = 519120kB\n"
		"[   13.968136] 1012736 pages RAM\n"
		"[   13.970000] Out of memory: Kill process 93 (mem) score 900 or sacrifice child\n"
		"[   13.970505] Killed process 93 (mem) total-vm:4000kB, anon-rss:2000kB, file-rss:0kB, shmem-rss:0kB\n";
	(void)state;
	tl->opts.year = 2018;
	assert_true(t_parse_mem(tl, KIND, "m", text, 0) > 0);
	assert_int_equal(count(tl, "oom_invoked"), 2);
	assert_string_equal(meta(tl, "kernel.release"), "3.10.0-862.11.6.el7.x86_64");
	assert_string_equal(jtext(tl, "oom_invoked", 0, "kernel_release"), "3.10.0-862.11.6.el7.x86_64");
	assert_string_equal(jtext(tl, "oom_invoked", 0, "constraint"), "memcg");  /* wording + trace */
	assert_string_equal(jtext(tl, "oom_invoked", 0, "mems_allowed"), "0-1");
	assert_string_equal(jtext(tl, "oom_invoked", 1, "kernel_release"), "4.14.67+");
	assert_int_equal(jint(tl, "oom_invoked", 1, "order"), 0);
	assert_string_equal(jtext(tl, "oom_invoked", 1, "nodemask"), "(null)");
	assert_string_equal(jtext(tl, "oom_invoked", 1, "constraint"), "none");
	assert_int_equal(jint(tl, "oom_invoked", 1, "ram_kb"), 1012736LL * 4);
	assert_int_equal(jint(tl, "oom_invoked", 1, "page_size_assumed"), 0);
	assert_int_equal(jint(tl, "oom_kill", 1, "score"), 900);
	t_close(tl);
}

/* Kernels to 5.0 chose a process and killed its child (mm/oom_kill.c
 * oom_kill_process, "or sacrifice child"): the victim is the child the
 * Killed line names, the decision (chosen pid, comm, score) is kept on
 * both events. A real report from a patch's commit message, indented. */
static void sacrifice_child_decision(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, "tests/data/real/gpu_host/"
				 "kernel-oom-memcg-v1-sacrifice-child-bash-dd-indented.log") >= 0);
	assert_int_equal(count(tl, "oom_kill"), 1);
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind = 'oom_kill'"), 3876);
	assert_int_equal(jint(tl, "oom_kill", 0, "selected_pid"), 3861);
	assert_string_equal(jtext(tl, "oom_kill", 0, "selected_comm"), "bash");
	assert_int_equal(jint(tl, "oom_kill", 0, "selected_score"), 88);
	assert_int_equal(jint(tl, "oom_kill", 0, "score"), OL_NULL);   /* not the victim's */
	assert_int_equal(jint(tl, "oom_invoked", 0, "selected_pid"), 3861);
	t_close(tl);
	/* a mail client wrapped the score to the next line: the comm still */
	tl = t_open();
	assert_true(t_parse_file(tl, "tests/data/real/gpu_host/"
				 "kernel-oom-4.16-sacrifice-child-bash-m-mail-wrapped.log") >= 0);
	assert_int_equal(jint(tl, "oom_kill", 0, "selected_pid"), 1042);
	assert_string_equal(jtext(tl, "oom_kill", 0, "selected_comm"), "bash");
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind = 'oom_kill'"), 1056);
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

/* The bundled demo (make demo): a vLLM host, journalctl short-iso-precise. */
static void demo_vllm_host(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, "fixtures/demo/kern.log") >= 0);
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), KIND);
	assert_int_equal(count(tl, "oom_kill"), 1);
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind='oom_kill'"), 4312);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind='oom_kill'"), "python3");
	assert_string_equal(jtext(tl, "oom_kill", 0, "invoker.comm"), "pt_main_thread");
	assert_int_equal(jint(tl, "oom_kill", 0, "invoker.pid"), 4390);
	assert_int_equal(jint(tl, "oom_kill", 0, "anon_rss_kb"), 53180000);
	assert_string_equal(jtext(tl, "oom_kill", 0, "constraint"), "none");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM task"), 13);
	assert_int_equal(jint(tl, "oom_invoked", 0, "anon_kb"), (151203LL + 14902110LL) * 4);
	assert_int_equal(jint(tl, "oom_invoked", 0, "free_kb"), 61044LL * 4);
	assert_string_equal(t_text(tl, "SELECT clock FROM event WHERE kind='oom_kill'"), "utc");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='oom_kill'"),
			 1764440560123456000LL);
	assert_int_equal(count(tl, "oom_reaper"), 1);
	t_close(tl);
}

/* The JSON contract of a killed process: exactly these keys, unknown = null. */
static void json_contract_of_oom_kill(void **state)
{
	static const char *keys[] = { "kind", "pid", "comm", "uid", "total_vm_kb", "anon_rss_kb",
		"file_rss_kb", "shmem_rss_kb", "pgtables_kb", "oom_score_adj", "constraint",
		"task_memcg", "time", "boot_s", "invoker", "invoker_event" };
	static const char *inv[] = { "comm", "pid", "gfp_mask", "order", "oom_score_adj" };
	struct timeline *tl = load("k419_memcg_v1_dmesg.log", 0);
	json_t *r, *ev, *k = NULL, *e;
	size_t i;
	(void)state;
	assert_int_equal(timeline_align_clocks(tl), 0);
	r = report_json(tl->db);
	ev = json_object_get(r, "events");
	json_array_foreach(ev, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "kind")), "oom_kill"))
			k = e;
	assert_non_null(k);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!json_object_get(k, keys[i]))
			fail_msg("oom_kill lacks key %s", keys[i]);
	for (i = 0; i < sizeof(inv) / sizeof(inv[0]); i++)
		if (!json_object_get(json_object_get(k, "invoker"), inv[i]))
			fail_msg("invoker lacks key %s", inv[i]);
	assert_int_equal(json_integer_value(json_object_get(k, "pid")), 40311);
	assert_string_equal(json_string_value(json_object_get(k, "comm")), "java");
	assert_true(json_is_null(json_object_get(k, "uid")));
	assert_true(json_is_null(json_object_get(k, "pgtables_kb")));
	assert_true(json_is_null(json_object_get(k, "time")));      /* boot clock only */
	assert_true(json_real_value(json_object_get(k, "boot_s")) > 1024601.15);
	assert_string_equal(json_string_value(json_object_get(k, "constraint")), "memcg");
	assert_int_equal(json_integer_value(json_object_get(k, "oom_score_adj")), 969);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(k, "invoker"), "order")), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(k, "invoker"), "gfp_mask")),
			    "0x6000c0");
	json_decref(r);
	t_close(tl);
}

static void sniff_scores(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, "tests/data/kernel/k515_journal.json") >= 0);
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), KIND);
	assert_int_equal(count(tl, "oom_kill"), 1);
	t_close(tl);
}

/* A task dump pasted alone (issue 27; tests/data/real/any_stack, from
 * go-debos/debos#216): detected by its rows, read by columns inferred
 * from their shape, one headerless report holding the 13 tasks, and no
 * kill made up. The same rows in a file (not in memory: told by its
 * first line) read the same. */
static void task_table_without_header(void **state)
{
	static const char rel[] = "tests/data/real/any_stack/kernel-oom-task-table-udevd-debos.log";
	struct timeline *tl = t_open();
	(void)state;

	assert_true(t_parse_file(tl, rel) >= 0);
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), KIND);
	assert_int_equal(count(tl, "oom_invoked"), 1);
	assert_int_equal(count(tl, "oom_kill"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM task"), 13);
	assert_int_equal(t_int(tl, "SELECT rss_pages FROM task WHERE name = 'systemd-resolve'"), 1040);
	assert_int_equal(t_int(tl, "SELECT oom_score_adj FROM task WHERE pid = 284"), -900);
	assert_int_equal(t_int(tl, "SELECT total_vm_pages FROM task WHERE pid = 6157"), 5606);
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
	assert_int_equal(count(tl, "oom_invoked"), 1);
	assert_int_equal(count(tl, "oom_kill"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM task"), 3);
	assert_int_equal(t_int(tl, "SELECT oom_score_adj FROM task WHERE pid = 2715"), -900);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='oom_invoked'"),
			 1742504485LL * 1000000000LL);   /* 2025-03-20 21:01:25 */
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rhel6_2632),
		cmocka_unit_test(task_table_localized_stamps),
		cmocka_unit_test(rhel7_310_crlf_and_folded_meminfo),
		cmocka_unit_test(ubuntu44_two_events_year_wrap),
		cmocka_unit_test(year_never_after_the_file),
		cmocka_unit_test(year_where_the_date_exists),
		cmocka_unit_test(k419_memcg_v1_k8s),
		cmocka_unit_test(k54_memcg_v2_journal_continuations),
		cmocka_unit_test(k68_rss_columns_rfc3339_anchor),
		cmocka_unit_test(k515_oom_group_dmesg_T),
		cmocka_unit_test(sysrq_is_operator_triggered),
		cmocka_unit_test(kmsg_kill_storm_without_headers),
		cmocka_unit_test(journal_json_byte_array),
		cmocka_unit_test(userspace_killers_and_alloc_failure),
		cmocka_unit_test(warn_alloc_trace_without_header),
		cmocka_unit_test(prefix_matrix),
		cmocka_unit_test(tz_option_makes_utc),
		cmocka_unit_test(nokill_and_damage),
		cmocka_unit_test(real_world_shapes),
		cmocka_unit_test(sacrifice_child_decision),
		cmocka_unit_test(reboot_starts_new_boot_id),
		cmocka_unit_test(demo_vllm_host),
		cmocka_unit_test(json_contract_of_oom_kill),
		cmocka_unit_test(sniff_scores),
		cmocka_unit_test(task_table_without_header),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
