/*
 * test_series.c -- the time-series sources: smaps (fixture and
 * the real /proc files of a child process), cgroup v1 and v2 files,
 * nvidia-smi CSV in its header/nounits/noheader/compute-apps forms, DCGM
 * exporter text, detection, and the JSON series section, summed in one
 * pass against the query it replaces (server logs: test_server_log.c).
 */
#include "testutil.h"
#include "analyzer/ingest/formats.h"
#include "analyzer/store/query.h"
#include "lib/input.h"
#include "lib/strbuf.h"
#include "lib/timeutil.h"
#include "parsers/host/smaps.h"
#include "reports/report.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MiB 1048576LL
#define GiB 1073741824LL

static int parse_fixture(struct timeline *tl, const char *kind, const char *rel)
{
	size_t n;
	char *text = t_slurp(rel, &n);
	int r = t_parse_mem(tl, kind, rel, text, n);
	free(text);
	return r;
}

static int64_t T(int y, int mo, int d, int h, int mi, int s, long ns)
{
	return utc_ns(y, mo, d, h, mi, s, ns);
}

/* ---- smaps ---- */

static void smaps_series_fixture(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(parse_fixture(tl, "smaps", "tests/data/series/smaps_series.txt"), 3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM capture"), 3);
	assert_string_equal(t_text(tl, "SELECT source FROM capture WHERE id = 1"), "smaps");
	assert_string_equal(t_text(tl, "SELECT comm FROM capture WHERE id = 1"), "python3");
	assert_int_equal(t_int(tl, "SELECT pid FROM capture WHERE id = 1"), 4312);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM capture WHERE id = 1"),
			 T(2025, 11, 29, 18, 22, 40, 123456000));
	assert_int_equal(t_int(tl, "SELECT boot_ns FROM capture WHERE id = 1"), 4607765352000LL);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM mapping WHERE capture_id = 1"), 10);
	/* kinds */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM mapping WHERE kind = 'heap'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM mapping WHERE kind = 'anon'"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM mapping WHERE kind = 'gpu'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM mapping WHERE kind = 'shmem'"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM mapping WHERE kind = 'hugepage'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM mapping WHERE kind = 'stack'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM mapping WHERE kind = 'file'"), 1);
	assert_string_equal(t_text(tl, "SELECT kind FROM mapping WHERE path = '[vsyscall]'"),
			    "special");
	assert_string_equal(t_text(tl, "SELECT kind FROM mapping WHERE path ="
				       " '/memfd:cuda-ipc (deleted)'"), "shmem");
	/* columns and extra */
	assert_int_equal(t_int(tl, "SELECT rss_kb FROM mapping WHERE path = '[heap]'"), 261120);
	assert_int_equal(t_int(tl, "SELECT swap_kb FROM mapping WHERE path = '[heap]'"), 1024);
	assert_int_equal(t_int(tl, "SELECT size_kb FROM mapping WHERE kind = 'gpu'"), 32768);
	assert_int_equal(t_int(tl, "SELECT start FROM mapping WHERE kind = 'gpu'"), 0x7f4e10000000LL);
	assert_string_equal(t_text(tl, "SELECT vmflags FROM mapping WHERE kind = 'gpu'"),
			    "rd wr sh mr mw me ms io pf dc de dd sd");
	assert_string_equal(t_text(tl, "SELECT perms || ' ' || dev FROM mapping WHERE kind = 'gpu'"),
			    "rw-s 00:05");
	assert_int_equal(t_int(tl, "SELECT json_extract(extra, '$.AnonHugePages') FROM mapping"
			     " WHERE path = '[heap]'"), 196608);
	assert_int_equal(t_int(tl, "SELECT json_extract(extra, '$.THPeligible') FROM mapping"
			     " WHERE path = '[heap]'"), 1);
	assert_int_equal(t_int(tl, "SELECT json_extract(extra, '$.ProtectionKey') FROM mapping"
			     " WHERE kind = 'stack'"), 0);
	assert_int_equal(t_int(tl, "SELECT json_extract(extra, '$.Private_Hugetlb') FROM mapping"
			     " WHERE kind = 'hugepage'"), 4096);
	/* the rollup */
	assert_string_equal(t_text(tl, "SELECT source FROM capture WHERE id = 2"), "smaps_rollup");
	assert_int_equal(t_int(tl, "SELECT json_extract(extra, '$.Pss_Anon') FROM mapping"
			     " WHERE capture_id = 2"), 3495936);
	/* the empty record: the process was gone */
	assert_string_equal(t_text(tl, "SELECT status FROM capture WHERE id = 3"), "ESRCH");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM mapping WHERE capture_id = 3"), 0);
	/* series: one point per non-empty capture */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'proc.rss_bytes' AND s.entity = 'pid:4312'"), 2);
	assert_int_equal(t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'proc.rss_bytes' ORDER BY time_ns LIMIT 1"),
			 1442868LL * 1024);
	assert_int_equal(t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'proc.rss_bytes' ORDER BY time_ns DESC LIMIT 1"),
			 3761304LL * 1024);
	assert_int_equal(t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'proc.swap_bytes' ORDER BY time_ns LIMIT 1"), 1024 * 1024);
	assert_int_equal(t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'proc.anon_bytes' ORDER BY time_ns LIMIT 1"),
			 (261120LL + 1048576 + 48) * 1024);
	assert_int_equal(t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'proc.kind_rss_bytes' AND s.entity = 'pid:4312/shmem'"),
			 133120LL * 1024);
	assert_string_equal(t_text(tl, "SELECT unit FROM series WHERE name = 'proc.pss_bytes'"),
			    "bytes");
	/* anchors: UTC + mono on each separator */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM anchor"), 3);
	assert_string_equal(t_text(tl, "SELECT boot_id FROM anchor LIMIT 1"),
			    "8f0c2b6e-1d2a-4c55-9a1e-0b7d3c1f9e42");
	t_close(tl);
}

static void smaps_kinds(void **state)
{
	(void)state;
	assert_string_equal(smaps_kind("/dev/nvidia-uvm", "rd wr", 4), "gpu");
	assert_string_equal(smaps_kind("/dev/dri/renderD128", NULL, 4), "gpu");
	assert_string_equal(smaps_kind("/dev/kfd", NULL, 4), "gpu");
	assert_string_equal(smaps_kind("/SYSV00000000 (deleted)", NULL, 4), "shmem");
	assert_string_equal(smaps_kind("[anon:scudo:primary]", NULL, 4), "anon");
	assert_string_equal(smaps_kind("[anon_shmem:x]", NULL, 4), "shmem");
	assert_string_equal(smaps_kind("/dev/hugepages/x", NULL, 2048), "hugepage");
	assert_string_equal(smaps_kind("", "rd wr mr mw me ht", 2048), "hugepage");
	assert_string_equal(smaps_kind(NULL, NULL, OL_NULL), "anon");
	assert_string_equal(smaps_kind("[stack:1234]", NULL, 4), "stack");
	assert_string_equal(smaps_kind("[vdso]", NULL, 4), "special");
	assert_string_equal(smaps_kind("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", NULL, 4),
			    "file");
}

static void append_file(struct strbuf *sb, const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[65536];
	size_t k;

	assert_non_null(f);
	while ((k = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(sb, buf, k);
	fclose(f);
}

static void append_sep(struct strbuf *sb, pid_t pid, const char *src)
{
	struct timespec ts, mono;
	char iso[40];

	clock_gettime(CLOCK_REALTIME, &ts);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	format_iso8601((int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec, iso, sizeof(iso));
	strbuf_addf(sb, "### %s pid=%d comm=test_series src=%s mono=%lld.%06ld\n", iso, (int)pid,
		    src, (long long)mono.tv_sec, mono.tv_nsec / 1000);
}

/* The child of smaps_of_a_real_process: maps 64 MiB private and 16 MiB
 * shared anonymous memory and writes their addresses to up, then at each
 * byte read from down takes its next step (touch 32 + 16 MiB; unmap the
 * shared one; exit). Never returns. */
static void mapping_child(int up, int down)
{
	char c;
	char *a = mmap(NULL, 64 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	char *b = mmap(NULL, 16 * MiB, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);
	uintptr_t ab[2] = { (uintptr_t)a, (uintptr_t)b };

	if (a == MAP_FAILED || b == MAP_FAILED)
		_exit(1);
	if (write(up, ab, sizeof(ab)) != sizeof(ab) || read(down, &c, 1) != 1)
		_exit(1);
	memset(a, 1, 32 * MiB);
	memset(b, 2, 16 * MiB);
	if (write(up, "2", 1) != 1 || read(down, &c, 1) != 1)
		_exit(1);
	munmap(b, 16 * MiB);
	if (write(up, "3", 1) != 1 || read(down, &c, 1) != 1)
		_exit(1);
	_exit(0);
}

/* Run mapping_child, appending its smaps and smaps_rollup (each after a
 * separator) to cap after each of its three steps; addr gets the
 * addresses of its two regions. Returns its pid, reaped after a clean exit. */
static pid_t capture_child(struct strbuf *cap, uintptr_t addr[2])
{
	int down[2], up[2], stage, status;
	char c, path[64];
	pid_t pid;

	assert_int_equal(pipe(down), 0);
	assert_int_equal(pipe(up), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		mapping_child(up[1], down[0]);
	for (stage = 1; stage <= 3; stage++) {
		if (stage == 1)
			assert_int_equal(read(up[0], addr, 2 * sizeof(addr[0])), 2 * sizeof(addr[0]));
		else
			assert_int_equal(read(up[0], &c, 1), 1);
		snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
		append_sep(cap, pid, "smaps");
		append_file(cap, path);
		snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
		append_sep(cap, pid, "smaps_rollup");
		append_file(cap, path);
		assert_int_equal(write(down[1], "x", 1), 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(down[0]); close(down[1]); close(up[0]); close(up[1]);
	return pid;
}

/* A live child's captures: its regions, their kinds and Rss, the rollup
 * and proc.rss_bytes following what it touched and unmapped. */
static void smaps_of_a_real_process(void **state)
{
	uintptr_t addr[2];
	struct strbuf cap = STRBUF_INIT;
	struct timeline *tl;
	pid_t pid;
	(void)state;

	pid = capture_child(&cap, addr);
	tl = t_open();
	assert_int_equal(t_parse_mem(tl, "smaps", "live-capture", cap.buf, cap.len), 6);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM capture WHERE source = 'smaps'"), 3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM capture WHERE source = 'smaps_rollup'"), 3);
	assert_int_equal(t_int(tl, "SELECT min(pid) FROM capture"), pid);
	/* the private region (the kernel may merge it with a neighbour) */
	assert_true(t_int(tl, "SELECT size_kb FROM mapping WHERE capture_id = 1 AND start <= %llu"
			  " AND end >= %llu", (unsigned long long)addr[0],
			  (unsigned long long)(addr[0] + 64 * MiB)) >= 65536);
	assert_string_equal(t_text(tl, "SELECT kind FROM mapping WHERE capture_id = 1 AND start <= %llu"
				   " AND end > %llu", (unsigned long long)addr[0],
				   (unsigned long long)addr[0]), "anon");
	assert_true(t_int(tl, "SELECT rss_kb FROM mapping WHERE capture_id = 3 AND start <= %llu"
			  " AND end > %llu", (unsigned long long)addr[0],
			  (unsigned long long)addr[0]) >= 32768);
	/* the shared one: /dev/zero (deleted), shmem, touched, then gone */
	assert_int_equal(t_int(tl, "SELECT size_kb FROM mapping WHERE capture_id = 1 AND start = %llu",
			       (unsigned long long)addr[1]), 16384);
	assert_string_equal(t_text(tl, "SELECT kind FROM mapping WHERE capture_id = 1 AND start = %llu",
				   (unsigned long long)addr[1]), "shmem");
	assert_int_equal(t_int(tl, "SELECT rss_kb FROM mapping WHERE capture_id = 3 AND start = %llu",
			       (unsigned long long)addr[1]), 16384);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM mapping WHERE capture_id = 5 AND start = %llu",
			       (unsigned long long)addr[1]), 0);
	/* rollup Rss grew by the 48 MiB touched, then fell by the 16 unmapped */
	{
		int64_t r1 = t_int(tl, "SELECT rss_kb FROM mapping WHERE capture_id = 2");
		int64_t r2 = t_int(tl, "SELECT rss_kb FROM mapping WHERE capture_id = 4");
		int64_t r3 = t_int(tl, "SELECT rss_kb FROM mapping WHERE capture_id = 6");
		assert_true(r2 - r1 >= 48 * 1024 - 1024);
		assert_true(r2 - r3 >= 16 * 1024 - 1024);
	}
	assert_true(t_int(tl, "SELECT max(value) - min(value) FROM sample JOIN series s"
			  " ON s.id = series_id WHERE s.name = 'proc.rss_bytes' AND s.entity = 'pid:%d'",
			  (int)pid) >= 47 * MiB);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM anchor"), 6);
	t_close(tl);
	strbuf_release(&cap);
}

static void smaps_without_separator(void **state)
{
	struct timeline *tl = t_open();
	static const char text[] =
		"5584de44e000-7fffa0c96000 ---p 00000000 00:00 0                          [rollup]\n"
		"Rss:                1660 kB\n"
		"Pss:                 353 kB\n"
		"Pss_Anon:            112 kB\n"
		"Anonymous:           112 kB\n"
		"Swap:                  0 kB\n"
		"Weird line\n";
	(void)state;
	assert_int_equal(t_parse_mem(tl, "smaps", "cap/smaps_rollup.777.20251129T182240Z", text, 0), 1);
	assert_int_equal(t_int(tl, "SELECT pid FROM capture"), 777);
	assert_string_equal(t_text(tl, "SELECT source FROM capture"), "smaps_rollup");
	assert_int_equal(t_int(tl, "SELECT time_ns FROM capture"), T(2025, 11, 29, 18, 22, 40, 0));
	assert_int_equal(t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'proc.pss_bytes' AND s.entity = 'pid:777'"), 353 * 1024);
	assert_int_equal(t_int(tl, "SELECT line FROM diagnostic WHERE severity = 'warning'"), 7);
	t_close(tl);
	/* no name, no mtime: a capture without time and no samples, said so */
	tl = t_open();
	assert_int_equal(t_parse_mem(tl, "smaps", "mem", text, 0), 1);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM capture"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample"), 0);
	assert_true(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE '%%no time%%'") == 1);
	t_close(tl);
}

/* ---- cgroup ---- */

#define CGPATH "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod7c1e_4b2a.slice/cri-containerd-9f3a.scope"

static int64_t cg_value(struct timeline *tl, const char *name, int last)
{
	return t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
		     " WHERE s.name = '%s' AND s.entity = '" CGPATH "' ORDER BY time_ns %s LIMIT 1",
		     name, last ? "DESC" : "");
}

static void cgroup_v2_series(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(parse_fixture(tl, "cgroup", "tests/data/series/cgroup_v2_series.txt") > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic"), 0);
	assert_int_equal(cg_value(tl, "cgroup.current_bytes", 0), 30064771072LL);
	assert_int_equal(cg_value(tl, "cgroup.current_bytes", 1), 34359672832LL);
	assert_int_equal(cg_value(tl, "cgroup.oom_kill", 0), 0);
	assert_int_equal(cg_value(tl, "cgroup.oom_kill", 1), 1);
	assert_int_equal(cg_value(tl, "cgroup.oom", 1), 1);
	assert_int_equal(cg_value(tl, "cgroup.max_events", 1), 57);
	assert_int_equal(cg_value(tl, "cgroup.anon_bytes", 0), 27917287424LL);
	assert_int_equal(cg_value(tl, "cgroup.file_bytes", 0), 1879048192LL);
	assert_int_equal(cg_value(tl, "cgroup.shmem_bytes", 0), 1073741824LL);
	assert_int_equal(cg_value(tl, "cgroup.peak_bytes", 0), 34359738368LL);
	assert_int_equal(cg_value(tl, "cgroup.swap_bytes", 0), 0);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'cgroup.peak_bytes'"), T(2025, 11, 29, 18, 22, 50, 0));
	/* limits are meta; a repeated equal value is stored once */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key = 'cgroup.max_bytes'"), 1);
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key = 'cgroup.max_bytes'"),
			    "34359738368");
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key = 'cgroup.high_bytes'"), "max");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM anchor"), 1);
	t_close(tl);
}

/* v1's two limits, two failcnts: memory.failcnt counts charges refused
 * at the memory limit, memory.memsw.failcnt those at the memory+swap
 * limit; real files of a 64 MiB memcg on 6.18.44 after its OOM kill at the
 * memory limit (gapsb, tests/data/real/gpu_host/MANIFEST.tsv). */
static void cgroup_v1_two_failcnts(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	t_parse_file(tl, "tests/data/series/cgv1-failcnt");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM artifact WHERE kind = 'cgroup'"), 4);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'cgroup.max_events'"), 1);
	assert_int_equal(t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'cgroup.max_events'"), 69);
	assert_int_equal(t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'cgroup.memsw_max_events'"), 0);
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key = 'cgroup.max_bytes'"),
			    "67108864");
	t_close(tl);
}

static void cgroup_v1_directory(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	/* real files of this machine's v1 memory controller, copied */
	t_parse_file(tl, "tests/data/series/cgv1");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM artifact"), 7);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM artifact WHERE kind = 'cgroup'"), 7);
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key = 'cgroup.max_bytes'"), "max");
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key = 'cgroup.memsw_max_bytes'"),
			    "max");
	assert_int_equal(t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'cgroup.current_bytes'"), 344219648);
	assert_int_equal(t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'cgroup.peak_bytes'"), 1208352768);
	assert_int_equal(t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'cgroup.anon_bytes'"), 10887168);
	assert_int_equal(t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'cgroup.file_bytes'"), 9531392);
	assert_int_equal(t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'cgroup.shmem_bytes'"), 9084928);
	assert_int_equal(t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'cgroup.oom_kill'"), 0);
	assert_int_equal(t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'cgroup.max_events'"), 0);
	/* a copied file says nothing of when it was read: the samples have no
	 * time (its mtime is the copy's), and that is said; entity = the directory */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample WHERE time_ns IS NOT NULL"
			       " OR boot_ns IS NOT NULL"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " '%%time unknown%%'"), 7);
	assert_int_equal(t_int(tl, "SELECT count(DISTINCT entity) FROM series"), 1);
	assert_true(t_int(tl, "SELECT entity LIKE '%%/cgv1' FROM series LIMIT 1") == 1);
	t_close(tl);
}

static void cgroup_entity_from_sysfs_copy(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(t_parse_mem(tl, "cgroup",
		"case/sys/fs/cgroup/kubepods.slice/cri-containerd-9f3a.scope/memory.current",
		"4096\n", 0), 1);
	assert_int_equal(t_parse_mem(tl, "cgroup",
		"/sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes", "8192\n", 0), 1);
	assert_int_equal(t_parse_mem(tl, "cgroup", "/sys/fs/cgroup/memory.current", "1\n", 0), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM series WHERE entity ="
			       " '/kubepods.slice/cri-containerd-9f3a.scope'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM series WHERE entity = '/docker/abc'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM series WHERE entity = '/'"), 1);
	t_close(tl);
}

static void cgroup_bad_values(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(t_parse_mem(tl, "cgroup", "x/memory.current", "12abc\n", 0), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'error'"), 1);
	assert_int_equal(t_parse_mem(tl, "cgroup", "x/memory.events", "low 0\noom_kill x\n", 0), 0);
	assert_int_equal(t_int(tl, "SELECT line FROM diagnostic WHERE message LIKE '%%oom_kill%%'"), 2);
	t_close(tl);
}

/* ---- nvidia-smi ---- */

static int64_t gpu_value(struct timeline *tl, const char *name, const char *ent, int nth)
{
	return t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
		     " WHERE s.name = '%s' AND s.entity = '%s' ORDER BY time_ns LIMIT 1 OFFSET %d",
		     name, ent, nth);
}

static void nvidia_smi_header_form(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(parse_fixture(tl, "nvidia_smi", "tests/data/series/nvidia_smi_gpu.csv") > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic"), 0);
	assert_int_equal(gpu_value(tl, "gpu.used_bytes", "gpu0", 0), 78012 * MiB);
	assert_int_equal(gpu_value(tl, "gpu.used_bytes", "gpu0", 1), 81020 * MiB);
	assert_int_equal(gpu_value(tl, "gpu.used_bytes", "gpu0", 2), 512 * MiB);
	assert_int_equal(gpu_value(tl, "gpu.free_bytes", "gpu0", 1), 26 * MiB);
	/* [N/A] is unknown: no sample, not 0 */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'gpu.used_bytes' AND s.entity = 'gpu1'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'gpu.total_bytes' AND s.entity = 'gpu1'"), 2);
	assert_int_equal(gpu_value(tl, "gpu.util_percent", "gpu0", 1), 100);
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key = 'gpu.total_bytes.gpu1'"),
			    "85520809984");
	/* local wall clock, stored as if UTC, and marked */
	assert_int_equal(t_int(tl, "SELECT min(time_ns) FROM sample"),
			 T(2025, 11, 29, 18, 22, 40, 123000000));
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key = 'time.clock'"), "local");
	t_close(tl);

	/* with --tz +01:00 the same rows are UTC, an hour earlier */
	tl = t_open();
	tl->opts.tz_known = 1;
	tl->opts.tz_offset_s = 3600;
	assert_true(parse_fixture(tl, "nvidia_smi", "tests/data/series/nvidia_smi_gpu.csv") > 0);
	assert_int_equal(t_int(tl, "SELECT min(time_ns) FROM sample"),
			 T(2025, 11, 29, 17, 22, 40, 123000000));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key = 'time.clock'"), 0);
	t_close(tl);
}

static void nvidia_smi_nounits_and_noheader(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(parse_fixture(tl, "nvidia_smi", "tests/data/series/nvidia_smi_nounits.csv"), 6);
	assert_int_equal(gpu_value(tl, "gpu.used_bytes", "gpu0", 0), 78012 * MiB);
	assert_int_equal(gpu_value(tl, "gpu.total_bytes", "gpu1", 0), 81559 * MiB);
	assert_int_equal(gpu_value(tl, "gpu.util_percent", "gpu1", 0), 55);
	t_close(tl);

	tl = t_open();
	assert_int_equal(parse_fixture(tl, "nvidia_smi", "tests/data/series/nvidia_smi_noheader.csv"), 6);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'warning'"
			     " AND message LIKE '%%noheader%%'"), 1);
	assert_int_equal(gpu_value(tl, "gpu.used_bytes", "gpu0", 1), 80100 * MiB);
	assert_int_equal(gpu_value(tl, "gpu.total_bytes", "gpu0", 0), 81920 * MiB);
	assert_int_equal(gpu_value(tl, "gpu.util_percent", "gpu0", 0), 99);
	t_close(tl);
}

static void nvidia_smi_compute_apps(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(parse_fixture(tl, "nvidia_smi", "tests/data/series/nvidia_smi_apps.csv"), 1);
	assert_int_equal(t_int(tl, "SELECT value FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'gpu.proc_used_bytes' AND s.entity ="
			     " 'GPU-5c0e8a6f-2d1b-4e3c-9f7a-1b2c3d4e5f60/pid:4312'"), 77120 * MiB);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM series"), 1);
	t_close(tl);
}

static void nvidia_smi_ragged_rows(void **state)
{
	struct timeline *tl = t_open();
	static const char text[] =
		"timestamp, index, memory.used [MiB]\n"
		"2025/11/29 18:22:40.123, 0, 100 MiB\n"
		"2025/11/29 18:22:40.123, 0\n"
		"2025/13/29 18:22:40.123, 0, 100 MiB\n";
	(void)state;
	assert_int_equal(t_parse_mem(tl, "nvidia_smi", "smi", text, 0), 1);
	assert_int_equal(t_int(tl, "SELECT line FROM diagnostic WHERE severity = 'warning'"), 3);
	assert_int_equal(t_int(tl, "SELECT line FROM diagnostic WHERE severity = 'error'"), 4);
	t_close(tl);
}

/* ---- DCGM ---- */

static void dcgm_scrape(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(parse_fixture(tl, "dcgm", "tests/data/series/dcgm_scrape.prom"), 8);
	assert_int_equal(gpu_value(tl, "gpu.used_bytes", "gpu0", 0), 78012 * MiB);
	assert_int_equal(gpu_value(tl, "gpu.free_bytes", "gpu1", 0), 3056 * MiB);
	assert_int_equal(gpu_value(tl, "gpu.reserved_bytes", "gpu0", 0), 513 * MiB);
	assert_int_equal(gpu_value(tl, "gpu.util_percent", "gpu1", 0), 96);
	/* an explicit sample time (ms) wins */
	assert_int_equal(t_int(tl, "SELECT time_ns FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'gpu.used_bytes' AND s.entity = 'gpu1'"),
			 1764440560000LL * 1000000);
	/* the others have no time here (memory input: no mtime), said so */
	assert_int_equal(t_int(tl, "SELECT time_ns FROM sample JOIN series s ON s.id = series_id"
			     " WHERE s.name = 'gpu.used_bytes' AND s.entity = 'gpu0'"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic"), 1);
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key = 'gpu.total_bytes.gpu0'"),
			    "85520809984");
	t_close(tl);

	/* a sample time in ms past what int64 ns holds (found by fuzz_dcgm):
	 * not a time, and no overflow (UBSan build) */
	tl = t_open();
	assert_int_equal(t_parse_mem(tl, "dcgm", "x",
		"DCGM_FI_DEV_FB_USED{gpu=\"0\"} 100 9764440560000\n", 0), 1);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM sample"), OL_NULL);
	t_close(tl);
}

/* ---- detection and report ---- */

static void detection(void **state)
{
	static const struct { const char *file, *kind; } cases[] = {
		{ "tests/data/series/smaps_series.txt", "smaps" },
		{ "tests/data/series/cgroup_v2_series.txt", "cgroup" },
		{ "tests/data/series/cgv1/memory.stat", "cgroup" },
		{ "tests/data/series/cgv1/memory.oom_control", "cgroup" },
		{ "tests/data/series/nvidia_smi_gpu.csv", "nvidia_smi" },
		{ "tests/data/series/nvidia_smi_nounits.csv", "nvidia_smi" },
		{ "tests/data/series/nvidia_smi_noheader.csv", "nvidia_smi" },
		{ "tests/data/series/nvidia_smi_apps.csv", "nvidia_smi" },
		{ "tests/data/series/dcgm_scrape.prom", "dcgm" },
		{ "tests/data/series/vllm_v0.log", "server_log" },
		{ "tests/data/series/vllm_v1.log", "server_log" },
		{ "tests/data/series/tgi.log", "server_log" },
		{ "tests/data/series/torch_old.log", "server_log" },
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct input in;
		const struct format *f;
		assert_int_equal(input_open(&in, t_src(cases[i].file), NULL), 0);
		f = detect_format(&in);
		assert_non_null(f);
		if (strcmp(f->kind, cases[i].kind))
			fail_msg("%s detected as %s", cases[i].file, f->kind);
		input_close(&in);
	}
}

static void json_series_section(void **state)
{
	struct timeline *tl = t_open();
	json_t *o, *arr, *s;
	size_t i;
	int found = 0;
	(void)state;
	assert_true(parse_fixture(tl, "smaps", "tests/data/series/smaps_series.txt") > 0);
	assert_true(parse_fixture(tl, "nvidia_smi", "tests/data/series/nvidia_smi_gpu.csv") > 0);
	o = report_json(tl->db);
	arr = json_object_get(o, "series");
	assert_true(json_is_array(arr));
	json_array_foreach(arr, i, s) {
		if (strcmp(json_string_value(json_object_get(s, "name")), "proc.rss_bytes"))
			continue;
		found = 1;
		assert_string_equal(json_string_value(json_object_get(s, "entity")), "pid:4312");
		assert_string_equal(json_string_value(json_object_get(s, "unit")), "bytes");
		assert_int_equal(json_integer_value(json_object_get(s, "points")), 2);
		assert_true(json_number_value(json_object_get(s, "max")) == 3761304.0 * 1024);
		assert_string_equal(json_string_value(json_object_get(s, "first_time")),
				    "2025-11-29T18:22:40.123456Z");
		assert_string_equal(json_string_value(json_object_get(s, "last_time")),
				    "2025-11-29T18:22:50.125002Z");
		assert_string_equal(json_string_value(json_object_get(s, "clock")), "utc");
	}
	assert_true(found);
	json_array_foreach(arr, i, s)
		if (!strcmp(json_string_value(json_object_get(s, "name")), "gpu.used_bytes"))
			assert_string_equal(json_string_value(json_object_get(s, "clock")), "local");
	assert_int_equal(json_array_size(json_object_get(o, "anchors")), 3);
	json_decref(o);
	t_close(tl);
}

static uint64_t series_rng = 0x9e3779b97f4a7c15ULL;

static uint64_t series_rand(void)
{
	series_rng ^= series_rng << 13;
	series_rng ^= series_rng >> 7;
	series_rng ^= series_rng << 17;
	return series_rng;
}

/* The series rows as the one GROUP BY query that made them before they
 * were summed in one pass over the samples (reports/series.c). */
#define SERIES_REFERENCE \
	"SELECT s.name, s.unit, s.entity, count(p.value) AS points," \
	" min(p.value) AS min, max(p.value) AS max," \
	" (SELECT q.value FROM sample q WHERE q.series_id = s.id" \
	"  ORDER BY q.time_ns DESC, q.rowid DESC LIMIT 1) AS last," \
	" min(p.time_ns) AS first_time, max(p.time_ns) AS last_time," \
	" CASE WHEN count(p.time_ns) = 0 AND count(p.boot_ns) > 0 THEN 'boot'" \
	"  WHEN count(p.time_ns) = 0 THEN NULL" \
	"  WHEN EXISTS (SELECT 1 FROM meta m WHERE m.artifact_id = s.artifact_id" \
	"   AND m.key = 'time.clock' AND m.value = 'local') THEN 'local'" \
	"  ELSE 'utc' END AS clock," \
	" count(p.value) - count(p.time_ns) AS unplaced_points," \
	" a.path AS artifact" \
	" FROM series s LEFT JOIN sample p ON p.series_id = s.id" \
	" LEFT JOIN artifact a ON a.id = s.artifact_id" \
	" GROUP BY s.id ORDER BY s.name, s.entity"

/* n random samples over series 1-6 and 9 (a sample of no series), times
 * that tie, NULL times, boot times and values; odd: also -0.0 against
 * 0.0 and text in the value column, where the order of the scan would
 * decide. The report's "series" against SERIES_REFERENCE, as text. */
static void series_agree(int n, int odd)
{
	static const double values[] = { 1.5, 2.0, 7.25, 1e9, -3.0, 0.0 };
	const size_t flags = JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12) | JSON_INDENT(2);
	struct timeline *tl = t_open();
	sqlite3_stmt *st, *ref;
	json_t *o, *want;
	char *got_s, *want_s;
	int i;

	assert_int_equal(sqlite3_exec(tl->db,
		"INSERT INTO artifact(id, path) VALUES (1, 'a.log'), (2, 'b.csv');"
		"INSERT INTO meta(artifact_id, key, value) VALUES (2, 'time.clock', 'local');"
		"INSERT INTO series(id, artifact_id, name, unit, entity) VALUES"
		" (1, 1, 'gpu.used_bytes', 'bytes', 'gpu0'), (2, 1, 'gpu.used_bytes', 'bytes', ''),"
		" (3, 2, 'cgroup.current_bytes', 'bytes', ''), (4, NULL, 'z', NULL, ''),"
		" (5, 2, 'kv', '%', 'e'), (6, 1, 'empty', NULL, '')", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(tl->db, "INSERT INTO sample(series_id, time_ns, boot_ns,"
					    " value) VALUES (?, ?, ?, ?)", -1, &st, NULL), SQLITE_OK);
	for (i = 0; i < n; i++) {
		int s = (int)(series_rand() % 6), r = (int)(series_rand() % 16);
		/* series 4 only off UTC, series 6 never */
		sqlite3_bind_int(st, 1, s == 5 ? 9 : s + 1);
		if (s == 3 || series_rand() % 4 == 0)
			sqlite3_bind_null(st, 2);
		else
			sqlite3_bind_int64(st, 2, 1764440000000000000 + (int64_t)(series_rand() % 20) * 1000000000);
		if (series_rand() % 2)
			sqlite3_bind_null(st, 3);
		else
			sqlite3_bind_int64(st, 3, (int64_t)(series_rand() % 1000));
		if (r == 0)
			sqlite3_bind_null(st, 4);
		else if (odd && r == 1)
			sqlite3_bind_double(st, 4, -0.0);
		else if (odd && r == 2 && i == n / 2)
			sqlite3_bind_text(st, 4, "text", -1, SQLITE_STATIC);
		else
			sqlite3_bind_double(st, 4, values[series_rand() % 6]);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	o = report_json(tl->db);
	assert_int_equal(sqlite3_prepare_v2(tl->db, SERIES_REFERENCE, -1, &ref, NULL), SQLITE_OK);
	want = q_rows_next(ref, -1);
	sqlite3_finalize(ref);
	assert_int_equal(json_array_size(want), 6);
	got_s = json_dumps(json_object_get(o, "series"), flags);
	want_s = json_dumps(want, flags);
	assert_non_null(got_s);
	assert_string_equal(got_s, want_s);
	free(got_s);
	free(want_s);
	json_decref(want);
	json_decref(o);
	t_close(tl);
}

static void series_as_one_query(void **state)
{
	(void)state;
	series_agree(0, 0);
	series_agree(5, 0);
	series_agree(3000, 0);
	series_agree(3000, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(smaps_series_fixture),
		cmocka_unit_test(smaps_kinds),
		cmocka_unit_test(smaps_of_a_real_process),
		cmocka_unit_test(smaps_without_separator),
		cmocka_unit_test(cgroup_v2_series),
		cmocka_unit_test(cgroup_v1_directory),
		cmocka_unit_test(cgroup_v1_two_failcnts),
		cmocka_unit_test(cgroup_entity_from_sysfs_copy),
		cmocka_unit_test(cgroup_bad_values),
		cmocka_unit_test(nvidia_smi_header_form),
		cmocka_unit_test(nvidia_smi_nounits_and_noheader),
		cmocka_unit_test(nvidia_smi_compute_apps),
		cmocka_unit_test(nvidia_smi_ragged_rows),
		cmocka_unit_test(dcgm_scrape),
		cmocka_unit_test(detection),
		cmocka_unit_test(json_series_section),
		cmocka_unit_test(series_as_one_query),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
