/*
 * test_rules_killers.c -- what Kubernetes, Slurm, earlyoom, systemd-oomd
 * and systemd say of a kill, and the cause each supports (killers.c): the
 * real excerpts of tests/data/real/gpu_host read end to end, then the
 * history's say, just inside and outside its thresholds.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "analyzer/rules/rulelib.h"

#include <stdio.h>
#include <string.h>

#define REAL "tests/data/real/gpu_host/"
#define NS 1000000000LL

static struct timeline *analyzed(const char *name)
{
	struct timeline *tl = t_open();
	char rel[256];

	snprintf(rel, sizeof(rel), REAL "%s", name);
	assert_int_equal(t_parse_file(tl, rel), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

static const char *title(struct timeline *tl)
{
	return t_text(tl, "SELECT title FROM finding WHERE rule = 'killers'");
}

static double fig(struct timeline *tl, const char *key)
{
	return t_real(tl, "SELECT json_extract(figures, '$.%s') FROM finding WHERE rule = 'killers'",
		      key);
}

/* `kubectl describe` of a container OOMKilled with limits = requests =
 * 300Mi: the limit, a quarter higher rounded to 64 MiB (384 MiB). */
static void k8s_oomkilled_at_its_limit(void **state)
{
	struct timeline *tl = analyzed("k8s-describe-oomkilled-limits.txt");
	(void)state;

	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "cgroup_limit");
	assert_non_null(strstr(title(tl), "OOMKilled at its memory limit of 300 MiB"));
	assert_float_equal(fig(tl, "suggested_limit_bytes"), 384 * MIB, 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(figures, '$.advice_knob') FROM finding"
				   " WHERE rule = 'killers'"), "memory_limit");
	/* one message: likeliest, not proven */
	assert_true(t_real(tl, "SELECT confidence FROM verdict") < 0.7);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE rule = 'killers'"),
			       "not a proof"));
	t_close(tl);
}

/* An eviction under memory pressure is the node's, not the pod's limit:
 * the container used 33.86 GiB against a 12Gi request. */
static void k8s_eviction_is_the_node(void **state)
{
	struct timeline *tl = analyzed("k8s-pod-yaml-evicted-request.txt");
	(void)state;

	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "host_capacity");
	assert_non_null(strstr(title(tl), "the container used 33.9 GiB, its request 12.0 GiB"));
	assert_float_equal(fig(tl, "suggested_request_bytes"), 41 * GIB, 0);
	t_close(tl);
}

static void k8s_system_oom_is_the_node(void **state)
{
	struct timeline *tl = analyzed("k8s-node-events-systemoom-no-victim.txt");
	(void)state;

	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "host_capacity");
	assert_non_null(strstr(title(tl), "System OOM on node node1"));
	t_close(tl);
}

static void slurm_step_at_its_allocation(void **state)
{
	struct timeline *tl = analyzed("slurm-oom-kill-batch-step.log");
	(void)state;

	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "cgroup_limit");
	assert_non_null(strstr(title(tl), "step 3756240.batch"));
	assert_non_null(strstr(title(tl), "2 oom-kill events"));
	assert_float_equal(fig(tl, "oom_kill_events"), 2, 0);
	t_close(tl);
}

static void earlyoom_is_the_host(void **state)
{
	struct timeline *tl = analyzed("earlyoom-kill-python3-escalate.log");
	(void)state;

	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "host_capacity");
	assert_non_null(strstr(title(tl), "earlyoom killed python3 (pid 12006, 2.82 GiB)"));
	assert_non_null(strstr(title(tl), "(RAM 13.5 GiB)"));
	t_close(tl);
}

/* systemd's notice that the kernel killed a process of a unit says less
 * than the kernel's own report: alone it is the host's, lower; with the
 * report beside it, it adds nothing. */
static void systemd_notice(void **state)
{
	struct timeline *tl = analyzed("systemd-pid1-unit-oom-killed.log");
	(void)state;

	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "host_capacity");
	assert_float_equal(t_real(tl, "SELECT score FROM finding WHERE rule = 'killers'"), 0.4, 1e-9);
	t_close(tl);

	tl = t_open();
	assert_int_equal(t_parse_file(tl, REAL "systemd-pid1-unit-oom-killed.log"), 0);
	assert_int_equal(t_parse_file(tl, REAL "kernel-oom-memcg-uwsgi-header.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'killers'"), 0);
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "cgroup_limit");
	t_close(tl);
}

/* A memory series of the container before the kill: steady for 25 min
 * confirms the limit (0.75); 9 min is too short to say; growth from a
 * quarter of the limit is a leak's, the limit lowered (0.35). */
static void with_history(void **state)
{
	static const struct { int n; double level, slope, want; } cases[] = {
		{ 50, 290 * MIB, 0, 0.75 },
		{ 18, 290 * MIB, 0, 0.6 },
		{ 480, 75 * MIB, 0.47 * MIB, 0.35 },
	};
	size_t k;
	(void)state;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct timeline *tl = t_open();
		int64_t kill_ns, id;
		int i;
		assert_int_equal(t_parse_file(tl, REAL "k8s-describe-oomkilled-limits.txt"), 0);
		/* the kill's time: describe's Last State Finished */
		kill_ns = t_int(tl, "SELECT time_ns FROM event WHERE kind = 'k8s_oom_kill'");
		assert_true(kill_ns > 0);
		assert_true(timeline_artifact_begin(tl, "memory.current", "cgroup", 0, 0) > 0);
		id = sink_series(&tl->sink, "cgroup.current_bytes", "bytes", "/kubepods/pod1");
		for (i = 0; i < cases[k].n; i++) {
			struct ol_time t = { OL_CLOCK_UTC, kill_ns - (cases[k].n - i) * 30LL * NS,
					     OL_NULL, NULL };
			assert_true(sink_sample(&tl->sink, id, &t, cases[k].level +
						cases[k].slope * i + (i % 3) * 0.5 * MIB) > 0);
		}
		assert_int_equal(timeline_artifact_end(tl, 1, "ok", 0, 0), 0);
		assert_int_equal(analyze_timeline(tl, NULL), 0);
		assert_float_equal(t_real(tl, "SELECT score FROM finding WHERE rule = 'killers'"),
				   cases[k].want, 1e-9);
		t_close(tl);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(k8s_oomkilled_at_its_limit),
		cmocka_unit_test(k8s_eviction_is_the_node),
		cmocka_unit_test(k8s_system_oom_is_the_node),
		cmocka_unit_test(slurm_step_at_its_allocation),
		cmocka_unit_test(earlyoom_is_the_host),
		cmocka_unit_test(systemd_notice),
		cmocka_unit_test(with_history),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
