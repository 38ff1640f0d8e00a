/*
 * test_derive_oom.c -- the derived table oom (analyzer/derive/oom.c,
 * issue 25): one kernel report is one row (header, kill and reaper), its
 * victim is the kill's process, "the OOM" (id 1) follows the documented
 * order (a page-allocation failure at 10:00 then a kill at 10:05: the
 * kill), and an incident whose artifacts record no OOM gets the verdict
 * no_oom, never leak, spike or misconfig. Inputs are kernel log lines in
 * the kernel's own format (as in fixtures/misconfig_startup_host and
 * tests/data/kernel) and the real excerpts of tests/data/real/gpu_host.
 */
#include "testutil.h"
#include "analyzer/derive/oom.h"
#include "analyzer/rules/rules.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <string.h>

#define KIND "kernel_log"
#define REAL "tests/data/real/gpu_host/"

/* A page-allocation failure at 10:00, then a memcg OOM report at 10:05
 * whose kill and reaper follow its header (journal ISO times). */
static const char alloc_then_kill[] =
	"2026-11-29T10:00:00.000000+0000 gpu-node-17 kernel: chrome: page allocation failure:"
	" order:4, mode:0x40dc0(GFP_KERNEL|__GFP_COMP|__GFP_ZERO), nodemask=(null),cpuset=/,"
	"mems_allowed=0\n"
	"2026-11-29T10:00:00.000100+0000 gpu-node-17 kernel: CPU: 2 PID: 30100 Comm: chrome Not"
	" tainted 6.5.0-21-generic #21~22.04.1-Ubuntu\n"
	"2026-11-29T10:05:00.300000+0000 gpu-node-17 kernel: python3 invoked oom-killer:"
	" gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0\n"
	"2026-11-29T10:05:00.300013+0000 gpu-node-17 kernel: CPU: 17 UID: 1000 PID: 4312 Comm:"
	" python3 Tainted: P           OE      6.8.0-49-generic #49-Ubuntu\n"
	"2026-11-29T10:05:00.300234+0000 gpu-node-17 kernel: memory: usage 6291456kB, limit"
	" 6291456kB, failcnt 4817\n"
	"2026-11-29T10:05:00.300364+0000 gpu-node-17 kernel: Tasks state (memory values in pages):\n"
	"2026-11-29T10:05:00.300377+0000 gpu-node-17 kernel: [  pid  ]   uid  tgid total_vm      rss"
	" rss_anon rss_file rss_shmem pgtables_bytes swapents oom_score_adj name\n"
	"2026-11-29T10:05:00.300390+0000 gpu-node-17 kernel: [   4312]  1000  4312  4595712  1551904"
	"  1531904    20000         0       12288000        0             0 python3\n"
	"2026-11-29T10:05:00.300403+0000 gpu-node-17 kernel: [   1201]     0  1201   180000     2400"
	"      900     1500         0          36864        0          -998 pause\n"
	"2026-11-29T10:05:00.300416+0000 gpu-node-17 kernel: oom-kill:constraint=CONSTRAINT_MEMCG,"
	"nodemask=(null),cpuset=cri-containerd-3f9a.scope,mems_allowed=0-1,oom_memcg=/kubepods.slice/"
	"pod7d1c,task_memcg=/kubepods.slice/pod7d1c/cri-containerd-3f9a.scope,task=python3,pid=4312,"
	"uid=1000\n"
	"2026-11-29T10:05:00.300429+0000 gpu-node-17 kernel: Memory cgroup out of memory: Killed"
	" process 4312 (python3) total-vm:18382848kB, anon-rss:6127616kB, file-rss:80000kB,"
	" shmem-rss:0kB, UID:1000 pgtables:12000kB oom_score_adj:0\n"
	"2026-11-29T10:05:00.340000+0000 gpu-node-17 kernel: oom_reaper: reaped process 4312"
	" (python3), now anon-rss:0kB, file-rss:80000kB, shmem-rss:0kB\n";

#define T_KILL "1795946700300000000"     /* 2026-11-29T10:05:00.300000Z, the header */

static struct timeline *parsed(const char *text)
{
	struct timeline *tl = t_open();

	assert_true(t_parse_mem(tl, KIND, "kern.log", text, 0) > 0);
	return tl;
}

/* One report, one row: the header, its kill and the reaper's line. */
static void a_kernel_report_is_one_row(void **state)
{
	struct timeline *tl = parsed(alloc_then_kill);
	(void)state;

	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom WHERE kind = 'memcg_oom'"), 1);
	assert_int_equal(t_int(tl, "SELECT json_array_length(evidence) FROM oom"
			       " WHERE kind = 'memcg_oom'"), 3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event e, oom o, json_each(o.evidence) j"
			       " WHERE o.kind = 'memcg_oom' AND e.id = j.value AND e.kind IN"
			       " ('oom_invoked', 'oom_kill', 'oom_reaper')"), 3);
	assert_string_equal(t_text(tl, "SELECT cgroup FROM oom WHERE kind = 'memcg_oom'"),
			    "/kubepods.slice/pod7d1c");
	assert_string_equal(t_text(tl, "SELECT invoker_comm FROM oom WHERE kind = 'memcg_oom'"),
			    "python3");
	/* derived twice, the same table */
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 2);
	t_close(tl);
}

/* An alloc_failure at 10:00, a kill at 10:05: the OOM is 10:05's. */
static void a_warning_is_the_oom_only_alone(void **state)
{
	struct timeline *tl = parsed(alloc_then_kill);
	(void)state;

	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT kind FROM oom WHERE id = 1"), "memcg_oom");
	assert_string_equal(t_text(tl, "SELECT CAST(time_ns AS TEXT) FROM oom WHERE id = 1"), T_KILL);
	assert_string_equal(t_text(tl, "SELECT kind FROM oom WHERE id = 2"), "alloc_failure");
	assert_string_equal(t_text(tl, "SELECT clock FROM oom WHERE id = 1"), "utc");
	t_close(tl);

	/* the warning alone is the OOM: memory did run short */
	tl = parsed("2026-11-29T10:00:00.000000+0000 gpu-node-17 kernel: chrome: page allocation"
		    " failure: order:4, mode:0x40dc0(GFP_KERNEL|__GFP_COMP|__GFP_ZERO),"
		    " nodemask=(null),cpuset=/,mems_allowed=0\n");
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT kind FROM oom WHERE id = 1"), "alloc_failure");
	assert_true(strcmp(t_text(tl, "SELECT class FROM verdict"), "no_oom") != 0);
	t_close(tl);
}

/* The victim: the kill's process and RSS; the view names the same. */
static void the_victim_is_the_kills(void **state)
{
	struct timeline *tl = parsed(alloc_then_kill);
	(void)state;

	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT victim_pid FROM oom WHERE id = 1"), 4312);
	assert_string_equal(t_text(tl, "SELECT victim_comm FROM oom WHERE id = 1"), "python3");
	/* anon + file + shmem RSS of the Killed line */
	assert_int_equal(t_int(tl, "SELECT victim_bytes FROM oom WHERE id = 1"),
			 (6127616LL + 80000) * 1024);
	assert_string_equal(t_text(tl, "SELECT kind FROM oom_victim"), "oom_kill");
	assert_int_equal(t_int(tl, "SELECT pid FROM oom_victim"), 4312);
	/* nothing was killed for the warning */
	assert_int_equal(t_int(tl, "SELECT victim_pid FROM oom WHERE id = 2"), OL_NULL);
	t_close(tl);

	/* earlyoom's victim, a real journal excerpt */
	tl = t_open();
	assert_int_equal(t_parse_file(tl, REAL "earlyoom-kill-python3-escalate.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT kind FROM oom WHERE id = 1"), "userspace_kill");
	assert_true(t_int(tl, "SELECT victim_pid FROM oom WHERE id = 1") > 0);
	assert_string_equal(t_text(tl, "SELECT kind FROM oom_victim"), "userspace_kill");
	t_close(tl);
}

/* No artifact records an OOM: no_oom, whatever the findings say. */
static void nothing_recorded_is_no_oom(void **state)
{
	static const char *const healthy[] = {
		REAL "nvidia-smi-table-450-cuda-version.txt",
		REAL "nvidia-smi-table-kmd-two-gpus.txt",
		NULL
	};
	int i;
	(void)state;

	for (i = 0; healthy[i]; i++) {
		struct timeline *tl = t_open();
		assert_int_equal(t_parse_file(tl, healthy[i]), 0);
		assert_int_equal(analyze_timeline(tl, NULL), 0);
		assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 0);
		assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
		assert_non_null(strstr(t_text(tl, "SELECT summary FROM verdict"),
				       "no artifact records an OOM"));
		assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE title LIKE"
				       " '%%before the OOM%%' OR advice LIKE '%%before the OOM%%'"), 0);
		t_close(tl);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_kernel_report_is_one_row),
		cmocka_unit_test(a_warning_is_the_oom_only_alone),
		cmocka_unit_test(the_victim_is_the_kills),
		cmocka_unit_test(nothing_recorded_is_no_oom),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
