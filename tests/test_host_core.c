/*
 * test_host_core.c -- host core dumps on REAL cores: tests/data/cores/
 * victim.c is compiled here, run under gdb until its SIGSEGV and dumped
 * with gcore into the build dir; the parser must find its three threads,
 * their functions, the signal and the mappings. A second dump whose
 * binary is deleted before reading checks the module + offset + build-id
 * fallback. Without gdb or a compiler the tests are skipped (visibly).
 */
#include "testutil.h"
#include "analyzer/ingest/ingest.h"
#include "parsers/cores/host_core.h"
#include "reports/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Compile victim.c as BINDIR/name, run it under gdb, gcore it to core.
 * Returns 0, or -1 when this environment cannot (then the test skips). */
static int make_core(const char *name, const char *core)
{
	char cmd[4096];
	struct stat st;

	if (system("command -v gdb >/dev/null 2>&1 && command -v cc >/dev/null 2>&1") != 0) {
		fprintf(stderr, "skipping: gdb or cc not installed\n");
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "cc -g -O0 -pthread -o %s/%s %s/tests/data/cores/victim.c",
		 BINDIR, name, SRCDIR);
	if (system(cmd) != 0) {
		fprintf(stderr, "skipping: cannot compile victim.c\n");
		return -1;
	}
	unlink(core);
	snprintf(cmd, sizeof(cmd), "cd %s && timeout 120 gdb -nx -batch -q -ex 'set pagination off'"
		 " -ex run -ex 'gcore %s' -ex kill ./%s >%s.gdb.log 2>&1", BINDIR, core, name, core);
	if (system(cmd) != 0 || stat(core, &st) != 0 || st.st_size < 4096) {
		fprintf(stderr, "skipping: gdb could not run or dump the victim (ptrace not "
			"allowed here?); see %s.gdb.log\n", core);
		return -1;
	}
	return 0;
}

static void ingest_file(struct timeline *tl, const char *path)
{
	struct ingest_cfg cfg = { .quiet = 1 };
	struct ingest_stats st;
	char *p = strdup(path);

	ingest_paths(tl, &p, 1, &cfg, &st);
	free(p);
}

/* How many frames named fn the stack of the thread with signal/crash cond has. */
static int64_t frames_named(struct timeline *tl, const char *where, const char *fn)
{
	return t_int(tl, "SELECT count(*) FROM thread t JOIN frame f ON f.stack_id = t.stack_id"
		     " WHERE %s AND f.name = '%s'", where, fn);
}

static void gcore_victim(void **state)
{
	const char *core = BINDIR "/victim.core";
	struct timeline *tl;
	int64_t pid;
	(void)state;
	if (make_core("victim", core) < 0) {
		skip();
		return;
	}
	tl = t_open();
	ingest_file(tl, core);
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "host_core");
	assert_string_equal(t_text(tl, "SELECT status FROM artifact"), "ok");
	/* process, signal */
	pid = t_int(tl, "SELECT pid FROM event WHERE kind = 'process_crash'");
	assert_true(pid > 1);
	assert_string_equal(t_text(tl, "SELECT comm FROM event"), "victim");
	assert_int_equal(t_int(tl, "SELECT data ->> 'signal' FROM event"), 11);
	assert_string_equal(t_text(tl, "SELECT data ->> 'signal_name' FROM event"), "SIGSEGV");
	assert_int_equal(t_int(tl, "SELECT data ->> 'si_code' FROM event"), 1);   /* SEGV_MAPERR */
	assert_int_equal(t_int(tl, "SELECT data ->> 'fault_address' FROM event"), 0);
	assert_int_equal(t_int(tl, "SELECT data ->> 'threads' FROM event"), 3);
	assert_int_equal(t_int(tl, "SELECT data ->> 'crashed_tid' FROM event"), pid);
	assert_string_equal(t_text(tl, "SELECT data ->> 'psargs' FROM event"), BINDIR "/victim");
	/* threads: main crashed in victim_crash, the workers parked */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM thread"), 3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM thread WHERE pid = %lld", (long long)pid), 3);
	assert_int_equal(t_int(tl, "SELECT tid FROM thread WHERE crashed = 1"), pid);
	assert_int_equal(t_int(tl, "SELECT signal FROM thread WHERE crashed = 1"), 11);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM thread WHERE stack_id IS NULL"), 0);
	assert_int_equal(frames_named(tl, "t.crashed = 1", "victim_crash"), 1);
	assert_int_equal(frames_named(tl, "t.crashed = 1", "main"), 1);
	assert_string_equal(t_text(tl, "SELECT f.name FROM thread t JOIN frame f ON f.stack_id ="
				   " t.stack_id WHERE t.crashed = 1 AND f.idx = 0"), "victim_crash");
	assert_int_equal(t_int(tl, "SELECT f.line FROM thread t JOIN frame f ON f.stack_id ="
			       " t.stack_id WHERE t.crashed = 1 AND f.idx = 0"), 42);
	assert_true(strstr(t_text(tl, "SELECT f.file FROM thread t JOIN frame f ON f.stack_id ="
				      " t.stack_id WHERE t.crashed = 1 AND f.idx = 0"), "victim.c"));
	assert_int_equal(t_int(tl, "SELECT length(f.build_id) FROM thread t JOIN frame f ON"
			       " f.stack_id = t.stack_id WHERE t.crashed = 1 AND f.idx = 0"), 40);
	assert_int_equal(frames_named(tl, "t.crashed = 0", "victim_worker_a"), 1);
	assert_int_equal(frames_named(tl, "t.crashed = 0", "victim_wait_forever"), 1);
	assert_int_equal(frames_named(tl, "t.crashed = 0", "victim_worker_b"), 1);
	assert_int_equal(frames_named(tl, "t.crashed = 0", "victim_sleep_loop"), 1);
	assert_int_equal(frames_named(tl, "1", "victim_crash"), 1);
	/* mappings: in the same tables as smaps */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM capture WHERE source = 'core'"), 1);
	assert_int_equal(t_int(tl, "SELECT pid FROM capture"), pid);
	assert_string_equal(t_text(tl, "SELECT comm FROM capture"), "victim");
	assert_true(t_int(tl, "SELECT count(*) FROM mapping WHERE path = '%s'", BINDIR "/victim") >= 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM mapping WHERE path = '%s' AND perms = 'r-xp'",
			       BINDIR "/victim"), 1);
	assert_true(t_int(tl, "SELECT count(*) FROM mapping WHERE path LIKE '%%libc.so%%'") >= 2);
	assert_true(t_int(tl, "SELECT count(*) FROM mapping WHERE kind = 'anon'") >= 3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM mapping WHERE kind = 'file' AND path IS NULL"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM mapping WHERE end <= start"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM mapping WHERE size_kb * 1024 != end - start"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM mapping WHERE rss_kb IS NOT NULL"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity != 'info'"), 0);
	/* the host_cores section of --format json */
	{
		json_t *j = report_json(tl->db);
		json_t *h = json_array_get(json_object_get(j, "host_cores"), 0);
		json_t *t0 = json_array_get(json_object_get(h, "threads"), 0);
		json_t *f0 = json_array_get(json_object_get(t0, "frames"), 0);
		assert_int_equal(json_integer_value(json_object_get(h, "pid")), pid);
		assert_string_equal(json_string_value(json_object_get(h, "comm")), "victim");
		assert_int_equal(json_integer_value(json_object_get(h, "signal")), 11);
		assert_string_equal(json_string_value(json_object_get(h, "signal_name")), "SIGSEGV");
		assert_int_equal(json_array_size(json_object_get(h, "threads")), 3);
		assert_true(json_is_true(json_object_get(t0, "crashed")));
		assert_int_equal(json_integer_value(json_object_get(t0, "tid")), pid);
		assert_string_equal(json_string_value(json_object_get(f0, "name")), "victim_crash");
		assert_int_equal(json_integer_value(json_object_get(f0, "line")), 42);
		assert_int_equal(json_array_size(json_object_get(j, "gpu_cores")), 0);
		json_decref(j);
	}
	t_close(tl);

	/* cut short: gdb writes its notes last, so threads and signal are
	 * lost with a diagnostic; the memory segments are kept */
	{
		char cmd[1024];
		snprintf(cmd, sizeof(cmd), "head -c 600000 %s > %s.cut", core, core);
		assert_int_equal(system(cmd), 0);
		snprintf(cmd, sizeof(cmd), "%s.cut", core);
		tl = t_open();
		ingest_file(tl, cmd);
		assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "host_core");
		assert_int_equal(t_int(tl, "SELECT count(*) FROM thread"), 0);
		assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 0);
		assert_true(t_int(tl, "SELECT count(*) FROM mapping") >= 10);
		assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'error'"
				       " AND message LIKE 'note segment at offset %% cannot be read%%'"), 1);
		assert_true(t_int(tl, "SELECT offset FROM diagnostic WHERE severity = 'error'") > 600000);
		t_close(tl);
		unlink(cmd);
	}
	unlink(core);
}

/* Binary gone: frames keep module path + offset + build id. */
static void gcore_binary_missing(void **state)
{
	const char *core = BINDIR "/victim_gone.core";
	struct timeline *tl;
	(void)state;
	if (make_core("victim_gone", core) < 0) {
		skip();
		return;
	}
	unlink(BINDIR "/victim_gone");
	tl = t_open();
	ingest_file(tl, core);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM thread"), 3);
	assert_int_equal(t_int(tl, "SELECT f.name FROM thread t JOIN frame f ON f.stack_id ="
			       " t.stack_id WHERE t.crashed = 1 AND f.idx = 0"), OL_NULL);
	assert_string_equal(t_text(tl, "SELECT f.file FROM thread t JOIN frame f ON f.stack_id ="
				   " t.stack_id WHERE t.crashed = 1 AND f.idx = 0"),
			    BINDIR "/victim_gone");
	assert_true(t_int(tl, "SELECT f.line FROM thread t JOIN frame f ON f.stack_id ="
			      " t.stack_id WHERE t.crashed = 1 AND f.idx = 0") > 0);
	assert_int_equal(t_int(tl, "SELECT length(f.build_id) FROM thread t JOIN frame f ON"
			       " f.stack_id = t.stack_id WHERE t.crashed = 1 AND f.idx = 0"), 40);
	/* libc is still on this machine: its frames are named, from its
	 * dynamic symbols at least (the workers wait in pause() and sleep();
	 * start_thread needs libc's debug info, which a machine may lack) */
	assert_true(t_int(tl, "SELECT count(*) FROM frame WHERE name LIKE 'pause%%'"
			  " OR name LIKE 'sleep%%' OR name LIKE 'clock_nanosleep%%'") >= 2);
	t_close(tl);
	unlink(core);
}

/* The core names its binary by path; a FIFO put there must not be opened
 * (the read would block for ever). alarm() turns a hang into a failure. */
static void binary_path_is_a_fifo(void **state)
{
	const char *core = BINDIR "/victim_fifo.core";
	struct timeline *tl;
	(void)state;
	if (make_core("victim_fifo", core) < 0) {
		skip();
		return;
	}
	unlink(BINDIR "/victim_fifo");
	assert_int_equal(mkfifo(BINDIR "/victim_fifo", 0600), 0);
	alarm(30);
	tl = t_open();
	ingest_file(tl, core);
	alarm(0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM thread"), 3);
	assert_string_equal(t_text(tl, "SELECT f.file FROM thread t JOIN frame f ON f.stack_id ="
				   " t.stack_id WHERE t.crashed = 1 AND f.idx = 0"),
			    BINDIR "/victim_fifo");
	t_close(tl);
	unlink(BINDIR "/victim_fifo");
	unlink(core);
}

static void sniff_and_garbage(void **state)
{
	unsigned char h[64];
	struct timeline *tl = t_open();
	(void)state;
	memset(h, 0, sizeof(h));
	memcpy(h, "\177ELF\2\1\1", 7);
	h[16] = 4;      /* ET_CORE */
	h[18] = 62;     /* x86-64 */
	assert_int_equal(host_core_sniff(h, 64), 100);
	h[18] = 190;    /* a CUDA core is not a host core */
	assert_int_equal(host_core_sniff(h, 64), 0);
	h[18] = 62;
	h[16] = 2;      /* an executable */
	assert_int_equal(host_core_sniff(h, 64), 0);
	/* a header with nothing behind it */
	h[16] = 4;
	assert_true(t_parse_mem(tl, "host_core", "stub.core", (const char *)h, 64) >= 0);
	assert_true(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'error'") >= 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM thread"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gcore_victim),
		cmocka_unit_test(gcore_binary_missing),
		cmocka_unit_test(binary_path_is_a_fifo),
		cmocka_unit_test(sniff_and_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
