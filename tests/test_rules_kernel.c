/*
 * test_rules_kernel.c -- the reading of a kernel OOM report and the
 * causes it supports (kernel.c, history.c): oom_invoked and oom_kill
 * events with the data fields the kernel log parser writes (docs/json.md)
 * and task rows, through the sink; and one real report parsed end to end.
 * Each threshold has a case just inside and one just outside.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define T0 1795953600LL   /* 2026-11-29T12:00:00Z */
#define NS 1000000000LL
#define KB 1024.0

/* One report: -1 for what it does not print. Sizes in kB as printed. */
struct report {
	const char *constraint;     /* NULL: not printed */
	double usage_kb, limit_kb, failcnt, ram_kb, free_kb, swap_total_kb, swap_free_kb;
	const char *flags;
	int order;
	int64_t victim_pid;
	double victim_kb;           /* its RSS */
	int64_t big_pid;            /* another task in the dump, and its RSS */
	double big_kb;
};

static void begin(struct timeline *tl)
{
	assert_true(timeline_artifact_begin(tl, "kern.log", "kernel_log", 0, 0) > 0);
}

static void end(struct timeline *tl)
{
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", 0, 0), 0);
}

static void put(json_t *d, const char *k, double v)
{
	json_object_set_new(d, k, v >= 0 ? json_integer((json_int_t)v) : json_null());
}

static void put_s(json_t *d, const char *k, const char *v)
{
	json_object_set_new(d, k, v ? json_string(v) : json_null());
}

/* The header, its task rows (the victim and big_pid) and the kill, at
 * T0 + at seconds. */
static void report(struct timeline *tl, double at, const struct report *r)
{
	struct ol_event inv = { "oom_invoked", { OL_CLOCK_UTC, (T0 + (int64_t)at) * NS, OL_NULL,
				NULL }, r->victim_pid, "python3", 4096, 1, "invoked", NULL };
	struct ol_event kill = { "oom_kill", { OL_CLOCK_UTC, (T0 + (int64_t)at) * NS + 1000,
				 OL_NULL, NULL }, r->victim_pid, "python3",
				 (int64_t)(r->victim_kb * KB), 30, "killed", NULL };
	struct ol_task v = { r->victim_pid, 1000, r->victim_pid, 0, (int64_t)(r->victim_kb / 4),
			     OL_NULL, OL_NULL, OL_NULL, OL_NULL, OL_NULL, OL_NULL, 0, OL_NULL, 0,
			     "python3" };
	struct ol_task b = v;
	int64_t ev;

	b.pid = b.tgid = r->big_pid;
	b.rss_pages = (int64_t)(r->big_kb / 4);
	b.name = "other";
	inv.data = json_object();
	put_s(inv.data, "constraint", r->constraint);
	put(inv.data, "memcg_usage_kb", r->usage_kb);
	put(inv.data, "memcg_limit_kb", r->limit_kb);
	put(inv.data, "memcg_failcnt", r->failcnt);
	put(inv.data, "ram_kb", r->ram_kb);
	put(inv.data, "free_kb", r->free_kb);
	put(inv.data, "swap_total_kb", r->swap_total_kb);
	put(inv.data, "swap_free_kb", r->swap_free_kb);
	put_s(inv.data, "gfp_flags", r->flags);
	put_s(inv.data, "gfp_mask", r->flags ? "0xcc0" : NULL);
	put(inv.data, "order", r->order);
	put(inv.data, "page_size", 4096);
	begin(tl);
	ev = sink_event(&tl->sink, &inv);
	assert_true(ev > 0);
	assert_true(sink_task(&tl->sink, ev, &v) > 0);
	if (r->big_pid)
		assert_true(sink_task(&tl->sink, ev, &b) > 0);
	kill.data = json_pack("{s:s?, s:I, s:i}", "constraint", r->constraint, "invoker_event",
			      (json_int_t)ev, "oom_score_adj", 0);
	assert_true(sink_event(&tl->sink, &kill) > 0);
	end(tl);
	json_decref(inv.data);
	json_decref(kill.data);
}

static const struct report memcg_full = { "memcg", 4194304, 4194304, 2771, -1, -1, -1, -1,
					  "GFP_KERNEL", 0, 918273, 4161644, 918250, 840 };
static const struct report global_oom = { "none", -1, -1, -1, 67004936, 244176, 0, 0,
					  "GFP_HIGHUSER_MOVABLE", 0, 4312, 53600000, 2301, 529600 };

static struct timeline *analyzed(const struct report *r)
{
	struct timeline *tl = t_open();

	report(tl, 3600, r);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

static double score(struct timeline *tl, const char *cause)
{
	return t_real(tl, "SELECT coalesce(max(score), 0) FROM finding WHERE cause = '%s'", cause);
}

static const char *advice(struct timeline *tl, const char *cause)
{
	return t_text(tl, "SELECT advice FROM finding WHERE cause = '%s'", cause);
}

/* ---- a memory cgroup at its limit ---- */

static void memcg_at_limit(void **state)
{
	struct timeline *tl = analyzed(&memcg_full);
	(void)state;

	assert_float_equal(score(tl, "cgroup_limit"), 0.6, 1e-9);
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "cgroup_limit");
	assert_true(t_real(tl, "SELECT confidence FROM verdict") < 0.7);
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'cgroup_limit'"),
			       "usage 4.00 GiB of 4.00 GiB, 2771 failed charges"));
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'cgroup_limit'"),
			       "the largest task"));
	/* order 0 GFP_KERNEL in a memcg: the cgroup was full */
	assert_non_null(strstr(advice(tl, "cgroup_limit"), "the cgroup had no page left to charge"));
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.suggested_limit_bytes')"
				  " FROM finding WHERE cause = 'cgroup_limit'"), 5 * GIB, 0);
	t_close(tl);
}

/* Without the constraint, usage within 2% of the limit is the limit. */
static void memcg_usage_threshold(void **state)
{
	struct report r = memcg_full;
	struct timeline *tl;
	(void)state;

	r.constraint = NULL;
	r.usage_kb = 0.985 * r.limit_kb;
	tl = analyzed(&r);
	assert_true(score(tl, "cgroup_limit") > 0);
	t_close(tl);
	r.usage_kb = 0.97 * r.limit_kb;
	tl = analyzed(&r);
	assert_float_equal(score(tl, "cgroup_limit"), 0, 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'kernel_report'"), 1);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "inconclusive");
	t_close(tl);

	/* a memcg OOM without its memory: line: the limit, with less to show */
	r = memcg_full;
	r.usage_kb = r.limit_kb = r.failcnt = -1;
	tl = analyzed(&r);
	assert_float_equal(score(tl, "cgroup_limit"), 0.5, 1e-9);
	t_close(tl);

	/* the victim was not the largest task: the victim rule says why */
	r = memcg_full;
	r.big_kb = 2 * r.victim_kb;
	tl = analyzed(&r);
	assert_float_equal(score(tl, "cgroup_limit"), 0.45, 1e-9);
	assert_non_null(strstr(advice(tl, "cgroup_limit"), "The victim was not the largest task"));
	t_close(tl);
}

/* ---- the history settles it ---- */

static void cgroup_series(struct timeline *tl, int n, double level, double slope)
{
	int64_t id;
	int i;

	begin(tl);
	id = sink_series(&tl->sink, "cgroup.current_bytes", "bytes", "/kubepods/pod1");
	for (i = 0; i < n; i++) {
		struct ol_time t = { OL_CLOCK_UTC, (T0 + 3600 - (n - i) * 30LL) * NS, OL_NULL, NULL };
		assert_true(sink_sample(&tl->sink, id, &t, level + slope * i +
					(i % 3) * 2.0 * MIB) > 0);
	}
	end(tl);
}

static void memcg_history(void **state)
{
	struct timeline *tl;
	(void)state;

	/* 25 minutes just under the limit: it never fitted */
	tl = t_open();
	cgroup_series(tl, 50, 3.9 * GIB, 0);
	report(tl, 3600, &memcg_full);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_float_equal(score(tl, "cgroup_limit"), 0.8, 1e-9);
	assert_non_null(strstr(advice(tl, "cgroup_limit"), "held steady"));
	t_close(tl);

	/* 9 minutes: too short to say */
	tl = t_open();
	cgroup_series(tl, 18, 3.9 * GIB, 0);
	report(tl, 3600, &memcg_full);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_float_equal(score(tl, "cgroup_limit"), 0.6, 1e-9);
	t_close(tl);

	/* 4 hours of growth from 1 GiB to the limit: a leak */
	tl = t_open();
	cgroup_series(tl, 480, 1 * GIB, 6.2 * MIB);
	report(tl, 3600 + 0, &memcg_full);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_float_equal(score(tl, "cgroup_limit"), 0.35, 1e-9);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "leak");
	t_close(tl);
}

/* ---- the whole host: the victim held half the RAM ---- */

static void global_victim_share(void **state)
{
	struct report r = global_oom;
	struct timeline *tl;
	(void)state;

	tl = analyzed(&r);
	assert_float_equal(score(tl, "host_capacity"), 0.5, 1e-9);
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "host_capacity");
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'host_capacity'"),
			       "no swap"));
	assert_non_null(strstr(advice(tl, "host_capacity"), "not fragmentation"));
	t_close(tl);

	r.victim_kb = 0.51 * r.ram_kb;
	tl = analyzed(&r);
	assert_true(score(tl, "host_capacity") > 0);
	t_close(tl);
	r.victim_kb = 0.49 * r.ram_kb;
	tl = analyzed(&r);
	assert_float_equal(score(tl, "host_capacity"), 0, 0);
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'kernel_report'"),
			       "free of"));
	t_close(tl);

	/* RAM not in the log: the largest task killed is the likeliest
	 * reading, said lower; a bigger task beside it, a reading only */
	r = global_oom;
	r.ram_kb = -1;
	tl = analyzed(&r);
	assert_float_equal(score(tl, "host_capacity"), 0.4, 1e-9);
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'host_capacity'"),
			       "its RAM is not in the log"));
	assert_true(t_real(tl, "SELECT confidence FROM verdict") < 0.5);
	t_close(tl);
	r.big_kb = 2 * r.victim_kb;
	tl = analyzed(&r);
	assert_float_equal(score(tl, "host_capacity"), 0, 0);
	/* the victim rule names why the smaller one went */
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "wrong_victim");
	t_close(tl);

	/* a higher order with memory free: fragmentation is named as possible */
	r = global_oom;
	r.order = 3;
	r.victim_kb = 0.2 * r.ram_kb;
	tl = analyzed(&r);
	assert_non_null(strstr(advice(tl, "kernel_report"), "Order 3 is 8 contiguous pages"));
	t_close(tl);
}

/* A proc.* series of process pid (a flat 3 GiB) before the OOM. */
static void proc_series(struct timeline *tl, int64_t pid)
{
	char ent[32];
	int64_t id;
	int i;

	snprintf(ent, sizeof(ent), "pid:%lld", (long long)pid);
	begin(tl);
	id = sink_series(&tl->sink, "proc.rss_bytes", "bytes", ent);
	for (i = 0; i < 60; i++) {
		struct ol_time t = { OL_CLOCK_UTC, (T0 + 3600 - (60 - i) * 30LL) * NS, OL_NULL, NULL };
		assert_true(sink_sample(&tl->sink, id, &t, 3 * GIB + (i % 3) * MIB) > 0);
	}
	end(tl);
}

/* A global OOM that killed another process than the one the artifacts
 * follow: read, not judged (that process did not die of it); the same
 * kill of the followed process is the host's capacity. */
static void global_victim_not_followed(void **state)
{
	struct report r = global_oom;
	struct timeline *tl = t_open();
	(void)state;

	proc_series(tl, 7001);
	report(tl, 3600, &r);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_float_equal(score(tl, "host_capacity"), 0, 0);
	assert_non_null(strstr(advice(tl, "kernel_report"), "another process than the one"));
	assert_non_null(strstr(advice(tl, "kernel_report"), "pid:7001"));
	t_close(tl);

	tl = t_open();
	proc_series(tl, r.victim_pid);
	report(tl, 3600, &r);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(score(tl, "host_capacity") >= 0.5);
	t_close(tl);
}

/* A kill whose report's header was cut off is not read with the next
 * report's header: its figures are another OOM's. */
static void kill_without_its_header(void **state)
{
	struct timeline *tl = t_open();
	struct ol_event kill = { "oom_kill", { OL_CLOCK_UTC, T0 * NS, OL_NULL, NULL }, 63214, "uwsgi",
				 222474240, 1, "killed", NULL };
	struct ol_event inv = { "oom_invoked", { OL_CLOCK_UTC, (T0 + 30) * NS, OL_NULL, NULL }, 63635,
				"uwsgi", 4096, 3, "invoked", NULL };
	(void)state;

	kill.data = json_pack("{s:s, s:n}", "constraint", "memcg", "invoker_event");
	inv.data = json_pack("{s:s, s:s, s:i, s:I, s:I}", "constraint", "memcg", "gfp_flags",
			     "GFP_KERNEL", "order", 0, "memcg_usage_kb", (json_int_t)1024,
			     "memcg_limit_kb", (json_int_t)1024);
	begin(tl);
	assert_true(sink_event(&tl->sink, &kill) > 0);
	assert_true(sink_event(&tl->sink, &inv) > 0);
	end(tl);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_float_equal(score(tl, "cgroup_limit"), 0.5, 1e-9);
	assert_null(strstr(advice(tl, "cgroup_limit"), "GFP_KERNEL"));
	json_decref(kill.data);
	json_decref(inv.data);
	t_close(tl);
}

/* ---- a real report end to end ---- */

static void real_memcg_report(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, "tests/data/kernel/k419_memcg_v1_dmesg.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "cgroup_limit");
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'cgroup_limit'"),
			       "usage 2.00 GiB of 2.00 GiB, 48213 failed charges"));
	t_close(tl);
}

/* cgroup v1: the memory+swap limit hit, not the memory one (RHEL 8's
 * 4.18, a kubepods container with 3 GiB in swap): the finding gives the
 * memsw counter's usage, limit and failcnt, RAM's apart. */
static void real_memsw_limit_report(void **state)
{
	struct timeline *tl = t_open();
	const char *title;
	(void)state;

	assert_int_equal(t_parse_file(tl, "tests/data/real/gpu_host/"
				      "kernel-memcg-v1-memsw-limit-hit-kubepods-java-4.18.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "cgroup_limit");
	title = t_text(tl, "SELECT title FROM finding WHERE cause = 'cgroup_limit'");
	assert_non_null(strstr(title, "memory+swap (memsw) limit: usage 34.0 GiB of 34.0 GiB,"
			       " 24892068 failed charges"));
	assert_string_equal(t_text(tl, "SELECT json_extract(figures, '$.memcg_limit_hit') FROM finding"
				   " WHERE cause = 'cgroup_limit'"), "memsw");
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.memsw_limit_bytes') FROM"
				  " finding WHERE cause = 'cgroup_limit'"), 35651584.0 * KB, 0);
	/* the memory counter keeps its own figures: 0 failed charges there */
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.memcg_failcnt') FROM"
				  " finding WHERE cause = 'cgroup_limit'"), 0, 0);
	assert_non_null(strstr(advice(tl, "cgroup_limit"), "memory.memsw.limit_in_bytes"));
	t_close(tl);
}

/* The same machine (6.18.44), one hog per cgroup of 64 MiB: with
 * memsw.limit equal to limit the memsw counter is charged first and is
 * the one hit, its failcnt left at 0 by this kernel; without a memsw
 * limit the memory counter is, with its failcnt. */
static void real_memsw_against_memory_6_18(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, "tests/data/real/gpu_host/"
				      "kernel-memcg-v1-memsw-limit-hit-6.18-local.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(figures, '$.memcg_limit_hit') FROM finding"
				   " WHERE cause = 'cgroup_limit'"), "memsw");
	assert_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'cgroup_limit'"),
			   "failed charges"));
	t_close(tl);
	tl = t_open();
	assert_int_equal(t_parse_file(tl, "tests/data/real/gpu_host/"
				      "kernel-memcg-v1-memory-limit-hit-6.18-local.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(figures, '$.memcg_limit_hit') FROM finding"
				   " WHERE cause = 'cgroup_limit'"), "memory");
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'cgroup_limit'"),
			       "at its limit: usage 64.0 MiB of 64.0 MiB, 68 failed charges"));
	t_close(tl);
}

/* Kernels to 5.0: the kernel chose the shell (score 88) and killed its
 * child dd; the finding says both, the victim being the child. */
static void real_sacrifice_child(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, "tests/data/real/gpu_host/"
				      "kernel-oom-memcg-v1-sacrifice-child-bash-dd-indented.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'cgroup_limit'"),
			       "the kernel chose bash (pid 3861, score 88) and killed its child dd"
			       " (pid 3876,"));
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.victim_pid') FROM finding"
				  " WHERE cause = 'cgroup_limit'"), 3876, 0);
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.chosen_pid') FROM finding"
				  " WHERE cause = 'cgroup_limit'"), 3861, 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(memcg_at_limit),
		cmocka_unit_test(memcg_usage_threshold),
		cmocka_unit_test(memcg_history),
		cmocka_unit_test(global_victim_share),
		cmocka_unit_test(global_victim_not_followed),
		cmocka_unit_test(kill_without_its_header),
		cmocka_unit_test(real_memcg_report),
		cmocka_unit_test(real_memsw_limit_report),
		cmocka_unit_test(real_memsw_against_memory_6_18),
		cmocka_unit_test(real_sacrifice_child),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
