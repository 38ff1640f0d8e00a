/*
 * test_kernel_oom.c -- the kernel OOM-killer log parser: every kernel
 * generation (2.6.32 RHEL 6 to 6.8), global and memcg v1/v2 reports,
 * segmentation (several events, oom.group, kill storm, sysrq), anchors,
 * and damaged input. Each log source's wrapper and clock, years and
 * journal JSON are test_kernel_times.c's.
 */
#include "testutil_kernel.h"
#include "reports/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/ingest/ingest.h"
#include "parsers/kernel/kernel_oom.h"

#define KIND "kernel_log"

static void rhel6_2632(void **state)
{
	struct timeline *tl = kt_load("rhel6_messages.log", 2013);
	(void)state;
	assert_int_equal(kt_count(tl, "oom_invoked"), 1);
	assert_int_equal(kt_count(tl, "oom_kill"), 1);
	assert_string_equal(kt_meta(tl, "kernel.release"), "2.6.32-431.el6.x86_64");
	assert_string_equal(kt_meta(tl, "kernel.page_size"), "4096");
	assert_string_equal(kt_meta(tl, "kernel.page_size_assumed"), "0");
	/* invoker from header and the old "Pid: N, comm:" line */
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind='oom_invoked'"), 2345);
	assert_string_equal(kt_jtext(tl, "oom_invoked", 0, "gfp_mask"), "0x201da");
	assert_string_equal(kt_jtext(tl, "oom_invoked", 0, "gfp_flags"), "(null)");
	assert_string_equal(kt_jtext(tl, "oom_invoked", 0, "nodemask"), "(null)");
	assert_string_equal(kt_jtext(tl, "oom_invoked", 0, "cpuset"), "/");
	/* Mem-Info pages x 4 kB */
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "free_kb"), 25207 * 4);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "anon_kb"), (1818253 + 199716) * 4);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "file_kb"), (291 + 416) * 4);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "slab_kb"), (3565 + 8917) * 4);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "ram_kb"), 2097151LL * 4);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "swap_total_kb"), 0);
	assert_string_equal(kt_jtext(tl, "oom_invoked", 0, "constraint"), "none");
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "memcg_usage_kb"), OL_NULL);
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
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "uid"), 27);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "total_vm_kb"), 8132500);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "anon_rss_kb"), 7955944);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "file_rss_kb"), 124);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "shmem_rss_kb"), OL_NULL);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "pgtables_kb"), OL_NULL);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "oom_score_adj"), 0);  /* from the task row */
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "score"), 960);
	assert_string_equal(kt_jtext(tl, "oom_kill", 0, "invoker.comm"), "mysqld");
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "invoker_event"),
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
	struct timeline *tl = kt_load("rhel7_messages.log", 2023);
	(void)state;
	assert_int_equal(kt_count(tl, "oom_kill"), 1);
	assert_string_equal(kt_meta(tl, "kernel.release"), "3.10.0-1160.el7.x86_64");
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind='oom_invoked'"), 3141);
	/* "#012"-folded summary */
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "free_kb"), 25293 * 4);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "shmem_kb"), 4348 * 4);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "slab_kb"), (8046 + 6913) * 4);
	assert_int_equal(t_int(tl, "SELECT nr_ptes FROM task WHERE pid=3141"), 3800);
	assert_int_equal(t_int(tl, "SELECT swapents FROM task WHERE pid=3141"), 0);
	assert_int_equal(t_int(tl, "SELECT oom_adj FROM task WHERE pid=3141"), OL_NULL);
	assert_string_equal(t_text(tl, "SELECT name FROM task WHERE pid=356"), "systemd-udevd");
	/* RHEL 7 "Killed process N (c), UID U, total-vm:..." */
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind='oom_kill'"), "java");
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "uid"), 1000);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "shmem_rss_kb"), 0);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "total_vm_kb"), 10004936);
	t_close(tl);
}

static void ubuntu44_two_events_year_wrap(void **state)
{
	struct timeline *tl = kt_load("ubuntu44_kern.log", 2023);
	(void)state;
	assert_int_equal(kt_count(tl, "oom_invoked"), 2);
	assert_int_equal(kt_count(tl, "oom_kill"), 2);
	assert_int_equal(kt_count(tl, "oom_no_kill"), 0);
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
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "shmem_rss_kb"), OL_NULL);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "uid"), OL_NULL);
	assert_int_equal(kt_jint(tl, "oom_kill", 1, "invoker.pid"), 28805);
	assert_int_equal(kt_jint(tl, "oom_kill", 1, "invoker_event"),
			 t_int(tl, "SELECT id FROM event WHERE kind='oom_invoked' ORDER BY id DESC LIMIT 1"));
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "reserved_kb"), 87198 * 4);
	t_close(tl);
}

static void k419_memcg_v1_k8s(void **state)
{
	struct timeline *tl = kt_load("k419_memcg_v1_dmesg.log", 0);
	(void)state;
	assert_string_equal(kt_jtext(tl, "oom_invoked", 0, "gfp_mask"), "0x6000c0");
	assert_string_equal(kt_jtext(tl, "oom_invoked", 0, "gfp_flags"), "GFP_KERNEL");
	assert_string_equal(kt_jtext(tl, "oom_invoked", 0, "nodemask"), "(null)");
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "oom_score_adj"), 969);
	assert_string_equal(kt_jtext(tl, "oom_invoked", 0, "constraint"), "memcg");
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "memcg_usage_kb"), 2097152);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "memcg_limit_kb"), 2097152);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "memcg_failcnt"), 48213);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "memsw_limit_kb"), OL_NULL); /* unlimited */
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "kmem_usage_kb"), 19384);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "swap_usage_kb"), OL_NULL);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "free_kb"), OL_NULL);
	assert_string_equal(kt_jtext(tl, "oom_kill", 0, "oom_memcg"),
			    "/kubepods/burstable/pod6f1c3a52-7d2e-4b1a-9c0d-2e5f7a8b9c10");
	assert_string_equal(kt_jtext(tl, "oom_kill", 0, "constraint"), "memcg");
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "oom_score_adj"), 969);  /* task row */
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "pgtables_kb"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT pgtables_bytes FROM task WHERE pid=40311"), 4972544);
	assert_int_equal(t_int(tl, "SELECT oom_score_adj FROM task WHERE name='pause'"), -998);
	assert_string_equal(t_text(tl, "SELECT clock FROM event WHERE kind='oom_kill'"), "boot");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='oom_kill'"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT boot_ns FROM event WHERE kind='oom_kill'"),
			 1024601153702000LL);
	/* page size proven by the victim row: 1210893 pages = 4843572 kB */
	assert_string_equal(kt_meta(tl, "kernel.page_size_assumed"), "0");
	assert_int_equal(kt_count(tl, "oom_reaper"), 1);
	assert_int_equal(kt_jint(tl, "oom_reaper", 0, "kill_event"),
			 t_int(tl, "SELECT id FROM event WHERE kind='oom_kill'"));
	t_close(tl);
}

static void k54_memcg_v2_journal_continuations(void **state)
{
	struct timeline *tl = kt_load("k54_memcg_v2_journal_precise.log", 2024);
	(void)state;
	assert_int_equal(kt_count(tl, "oom_kill"), 1);
	assert_string_equal(kt_jtext(tl, "oom_kill", 0, "constraint"), "memcg");
	assert_string_equal(kt_jtext(tl, "oom_kill", 0, "task_memcg"),
		"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0a1b2c3d_4e5f_6789_abcd_"
		"ef0123456789.slice/cri-containerd-7c1d0e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d.scope");
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "uid"), 1000);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "pgtables_kb"), 8980);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "oom_score_adj"), 987);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "swap_usage_kb"), 0);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "swap_limit_kb"), 0);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "memsw_usage_kb"), OL_NULL);
	/* journal continuation lines of memory.stat did not become anything */
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "anon_kb"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM task"), 3);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='oom_kill'"),
			 1715344496101640000LL);
	assert_string_equal(t_text(tl, "SELECT clock FROM event WHERE kind='oom_kill'"), "local");
	t_close(tl);
}

static void k68_rss_columns_rfc3339_anchor(void **state)
{
	struct timeline *tl = kt_load("k68_global_rsyslog_rfc3339.log", 0);
	(void)state;
	assert_string_equal(kt_meta(tl, "kernel.release"), "6.8.0-52-generic");
	assert_int_equal(t_int(tl, "SELECT rss_anon_pages FROM task WHERE pid=8790"), 60011010);
	assert_int_equal(t_int(tl, "SELECT rss_file_pages FROM task WHERE pid=8790"), 1201100);
	assert_int_equal(t_int(tl, "SELECT rss_shmem_pages FROM task WHERE pid=8790"), 78000);
	assert_int_equal(t_int(tl, "SELECT pgtables_bytes FROM task WHERE pid=8790"), 125730816);
	assert_string_equal(t_text(tl, "SELECT name FROM task WHERE pid=9001"), "ray::IDLE");
	assert_string_equal(kt_jtext(tl, "oom_kill", 0, "constraint"), "none");
	assert_string_equal(kt_jtext(tl, "oom_invoked", 0, "mems_allowed"), "0-1");
	assert_string_equal(kt_jtext(tl, "oom_invoked", 0, "gfp_flags"), "GFP_HIGHUSER_MOVABLE|__GFP_COMP");
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "anon_kb"), (2101211LL + 62410023LL) * 4);
	/* RFC 3339 with offset: UTC; the dmesg stamp after kernel: gives an anchor */
	assert_string_equal(t_text(tl, "SELECT clock FROM event WHERE kind='oom_kill'"), "utc");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='oom_kill'"),
			 1741940813310120000LL);  /* 2025-03-14T08:26:53.310120Z */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM anchor"), 1);
	assert_int_equal(t_int(tl, "SELECT boot_ns FROM anchor"), 86402512345000LL);
	assert_int_equal(kt_jint(tl, "oom_reaper", 0, "file_rss_kb"), 1024);
	assert_int_equal(kt_jint(tl, "oom_reaper", 0, "shmem_rss_kb"), 312000);
	t_close(tl);
}

static void k515_oom_group_dmesg_T(void **state)
{
	struct timeline *tl = kt_load("k515_oomgroup_dmesg_T.log", 0);
	(void)state;
	/* first kill + group members, the repeated 77119 counted once */
	assert_int_equal(kt_count(tl, "oom_kill"), 3);
	assert_int_equal(t_int(tl, "SELECT count(DISTINCT pid) FROM event WHERE kind='oom_kill'"), 3);
	assert_int_equal(kt_jint(tl, "oom_kill", 1, "oom_group"), 1);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "oom_group"), 0);
	assert_int_equal(kt_jint(tl, "oom_kill", 2, "invoker_event"),
			 t_int(tl, "SELECT id FROM event WHERE kind='oom_invoked'"));
	assert_string_equal(t_text(tl, "SELECT clock FROM event WHERE kind='oom_kill' LIMIT 1"), "local");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='oom_kill' LIMIT 1"),
			 1701907500LL * 1000000000LL);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "swap_limit_kb"), OL_NULL);
	t_close(tl);
}

static void sysrq_is_operator_triggered(void **state)
{
	struct timeline *tl = kt_load("sysrq_dmesg.log", 0);
	(void)state;
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "order"), -1);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "operator_triggered"), 1);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "operator_triggered"), 1);
	/* continuation lines with only leading blanks (no stamp) */
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "free_kb"), 1020113LL * 4);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "swap_total_kb"), 2097148);
	assert_int_equal(t_int(tl, "SELECT bytes FROM event WHERE kind='oom_invoked'"), OL_NULL);
	t_close(tl);
}

static void kmsg_kill_storm_without_headers(void **state)
{
	struct timeline *tl = kt_load("killstorm_kmsg.log", 0);
	(void)state;
	assert_int_equal(kt_count(tl, "oom_invoked"), 0);
	assert_int_equal(kt_count(tl, "oom_kill"), 3);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "invoker_event"), OL_NULL);
	assert_string_equal(kt_jtext(tl, "oom_kill", 0, "invoker.comm"), "(null)");
	assert_string_equal(kt_jtext(tl, "oom_kill", 0, "constraint"), "(null)");
	assert_int_equal(t_int(tl, "SELECT boot_ns FROM event WHERE pid=5001 AND kind='oom_kill'"),
			 4607765400000LL);
	assert_int_equal(kt_jint(tl, "oom_reaper", 0, "kill_event"),
			 t_int(tl, "SELECT id FROM event WHERE pid=5001 AND kind='oom_kill'"));
	assert_string_equal(kt_meta(tl, "kernel.page_size_assumed"), "1");
	assert_true(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE '%%ratelimit%%'") == 1);
	t_close(tl);
}

static void userspace_killers_and_alloc_failure(void **state)
{
	struct timeline *tl = kt_load("userspace_short_iso.log", 0);
	(void)state;
	assert_int_equal(kt_count(tl, "userspace_kill"), 2);
	assert_string_equal(kt_jtext(tl, "userspace_kill", 0, "killer"), "earlyoom");
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind='userspace_kill' ORDER BY id"), 90210);
	assert_string_equal(kt_jtext(tl, "userspace_kill", 1, "killer"), "systemd-oomd");
	assert_string_equal(kt_jtext(tl, "userspace_kill", 1, "cgroup"),
		"/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-code-4021.scope");
	assert_int_equal(kt_count(tl, "alloc_failure"), 1);
	assert_int_equal(kt_jint(tl, "alloc_failure", 0, "order"), 4);
	assert_int_equal(kt_count(tl, "oom_invoked"), 0);
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
	assert_int_equal(kt_count(tl, "alloc_failure"), 1);
	assert_string_equal(kt_jtext(tl, "alloc_failure", 0, "inferred_from"), "warn_alloc frame");
	assert_int_equal(t_int(tl, "SELECT time_ns IS NULL AND boot_ns IS NULL FROM event "
			       "WHERE kind='alloc_failure'"), 1);
	t_close(tl);

	tl = t_open();
	assert_true(t_parse_mem(tl, KIND, "x86.log", with_header, sizeof(with_header) - 1) > 0);
	assert_int_equal(kt_count(tl, "alloc_failure"), 1);
	assert_int_equal(kt_jint(tl, "alloc_failure", 0, "order"), 4);
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
	assert_int_equal(kt_count(tl, "oom_no_kill"), 1);
	assert_string_equal(kt_jtext(tl, "oom_no_kill", 0, "reason"), "no_killable_processes");
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind='oom_invoked' ORDER BY id"),
			    "Web Content");
	assert_string_equal(kt_jtext(tl, "oom_invoked", 0, "constraint"), "memory_policy");
	assert_string_equal(kt_jtext(tl, "oom_invoked", 0, "gfp_flags"), "(null)");
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "oom_score_adj"), 0);
	assert_string_equal(kt_meta(tl, "kernel.release"), "6.11.0");
	assert_int_equal(t_int(tl, "SELECT total_vm_pages FROM task WHERE pid=999"), 1);
	assert_int_equal(t_int(tl, "SELECT rss_pages FROM task WHERE pid=999"), OL_NULL);
	assert_string_equal(t_text(tl, "SELECT name FROM task WHERE pid=1000"), "(sd-pam) x");
	assert_int_equal(kt_count(tl, "oom_kill"), 2);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind='oom_kill' AND pid=1234"), "(sd-foo)");
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "anon_rss_kb"), 8);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "file_rss_kb"), OL_NULL);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind='oom_kill' AND pid=475"), "identd");
	assert_int_equal(kt_jint(tl, "oom_kill", 1, "total_vm_kb"), OL_NULL);
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
	assert_int_equal(kt_count(tl, "oom_invoked"), 2);
	assert_string_equal(kt_meta(tl, "kernel.release"), "3.10.0-862.11.6.el7.x86_64");
	assert_string_equal(kt_jtext(tl, "oom_invoked", 0, "kernel_release"), "3.10.0-862.11.6.el7.x86_64");
	assert_string_equal(kt_jtext(tl, "oom_invoked", 0, "constraint"), "memcg");  /* wording + trace */
	assert_string_equal(kt_jtext(tl, "oom_invoked", 0, "mems_allowed"), "0-1");
	assert_string_equal(kt_jtext(tl, "oom_invoked", 1, "kernel_release"), "4.14.67+");
	assert_int_equal(kt_jint(tl, "oom_invoked", 1, "order"), 0);
	assert_string_equal(kt_jtext(tl, "oom_invoked", 1, "nodemask"), "(null)");
	assert_string_equal(kt_jtext(tl, "oom_invoked", 1, "constraint"), "none");
	assert_int_equal(kt_jint(tl, "oom_invoked", 1, "ram_kb"), 1012736LL * 4);
	assert_int_equal(kt_jint(tl, "oom_invoked", 1, "page_size_assumed"), 0);
	assert_int_equal(kt_jint(tl, "oom_kill", 1, "score"), 900);
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
	assert_int_equal(kt_count(tl, "oom_kill"), 1);
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind = 'oom_kill'"), 3876);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "selected_pid"), 3861);
	assert_string_equal(kt_jtext(tl, "oom_kill", 0, "selected_comm"), "bash");
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "selected_score"), 88);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "score"), OL_NULL);   /* not the victim's */
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "selected_pid"), 3861);
	t_close(tl);
	/* a mail client wrapped the score to the next line: the comm still */
	tl = t_open();
	assert_true(t_parse_file(tl, "tests/data/real/gpu_host/"
				 "kernel-oom-4.16-sacrifice-child-bash-m-mail-wrapped.log") >= 0);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "selected_pid"), 1042);
	assert_string_equal(kt_jtext(tl, "oom_kill", 0, "selected_comm"), "bash");
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind = 'oom_kill'"), 1056);
	t_close(tl);
}

/* The bundled demo (make demo): a vLLM host, journalctl short-iso-precise. */
static void demo_vllm_host(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, "fixtures/demo/kern.log") >= 0);
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), KIND);
	assert_int_equal(kt_count(tl, "oom_kill"), 1);
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind='oom_kill'"), 4312);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind='oom_kill'"), "python3");
	assert_string_equal(kt_jtext(tl, "oom_kill", 0, "invoker.comm"), "pt_main_thread");
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "invoker.pid"), 4390);
	assert_int_equal(kt_jint(tl, "oom_kill", 0, "anon_rss_kb"), 53180000);
	assert_string_equal(kt_jtext(tl, "oom_kill", 0, "constraint"), "none");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM task"), 13);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "anon_kb"), (151203LL + 14902110LL) * 4);
	assert_int_equal(kt_jint(tl, "oom_invoked", 0, "free_kb"), 61044LL * 4);
	assert_string_equal(t_text(tl, "SELECT clock FROM event WHERE kind='oom_kill'"), "utc");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind='oom_kill'"),
			 1764440560123456000LL);
	assert_int_equal(kt_count(tl, "oom_reaper"), 1);
	t_close(tl);
}

/* The JSON contract of a killed process: exactly these keys, unknown = null. */
static void json_contract_of_oom_kill(void **state)
{
	static const char *keys[] = { "kind", "pid", "comm", "uid", "total_vm_kb", "anon_rss_kb",
		"file_rss_kb", "shmem_rss_kb", "pgtables_kb", "oom_score_adj", "constraint",
		"task_memcg", "time", "boot_s", "invoker", "invoker_event" };
	static const char *inv[] = { "comm", "pid", "gfp_mask", "order", "oom_score_adj" };
	struct timeline *tl = kt_load("k419_memcg_v1_dmesg.log", 0);
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
	assert_int_equal(kt_count(tl, "oom_kill"), 1);
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
	assert_int_equal(kt_count(tl, "oom_invoked"), 1);
	assert_int_equal(kt_count(tl, "oom_kill"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM task"), 13);
	assert_int_equal(t_int(tl, "SELECT rss_pages FROM task WHERE name = 'systemd-resolve'"), 1040);
	assert_int_equal(t_int(tl, "SELECT oom_score_adj FROM task WHERE pid = 284"), -900);
	assert_int_equal(t_int(tl, "SELECT total_vm_pages FROM task WHERE pid = 6157"), 5606);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rhel6_2632),
		cmocka_unit_test(rhel7_310_crlf_and_folded_meminfo),
		cmocka_unit_test(ubuntu44_two_events_year_wrap),
		cmocka_unit_test(k419_memcg_v1_k8s),
		cmocka_unit_test(k54_memcg_v2_journal_continuations),
		cmocka_unit_test(k68_rss_columns_rfc3339_anchor),
		cmocka_unit_test(k515_oom_group_dmesg_T),
		cmocka_unit_test(sysrq_is_operator_triggered),
		cmocka_unit_test(kmsg_kill_storm_without_headers),
		cmocka_unit_test(userspace_killers_and_alloc_failure),
		cmocka_unit_test(warn_alloc_trace_without_header),
		cmocka_unit_test(nokill_and_damage),
		cmocka_unit_test(real_world_shapes),
		cmocka_unit_test(sacrifice_child_decision),
		cmocka_unit_test(demo_vllm_host),
		cmocka_unit_test(json_contract_of_oom_kill),
		cmocka_unit_test(sniff_scores),
		cmocka_unit_test(task_table_without_header),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
