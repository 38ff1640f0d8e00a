/*
 * test_sched_kills.c -- the host-side kills of schedulers and
 * orchestrators that held-out set 10 showed unread (spent on w-spent10b):
 * IBM LSF's TERM_MEMLIMIT job report (parsers/host/lsf_job.c), a
 * `kubectl get pods` row pasted without its header and FrameworkController's
 * "PodPattern matched:" diagnostics (parsers/k8s/k8s_pods.c).
 *
 * Real pastes from tests/data/real/any_stack/ (manifest rows name their
 * sources); the edge cases are those files with one line changed: a job
 * report whose reason is another (TERM_RUNLIMIT), a pods row whose STATUS
 * is Running, a PodPattern container whose reason is Error with code 137
 * (a SIGKILL, no OOM).
 */
#include "testutil.h"
#include "analyzer/derive/oom.h"

#include <stdlib.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"
#define LSF ANY "c-lsf-pytorch-rl-gpuv100-term-memlimit-1g-killed/01-lsf-job-output.log"
#define KF ANY "b-k8s-kubeflow-chart-training-operator-oomkilled-memory-limit/01-kubectl-get-pods.txt"
#define PAI ANY "b-k8s-openpai-pv-rcnn-training-pod-oomkilled-code-137/01-job-exit.txt"

/* A copy of relpath with the first "from" replaced by "to" (same
 * length or shorter); caller frees. */
static char *edited(const char *relpath, const char *from, const char *to, size_t *n)
{
	char *s = t_slurp(relpath, n), *c;
	size_t fl = strlen(from), tl = strlen(to);

	assert_non_null(s);
	c = strstr(s, from);
	assert_non_null(c);
	assert_true(tl <= fl);
	memcpy(c, to, tl);
	memmove(c + tl, c + fl, *n - (size_t)(c - s) - fl + 1);
	*n -= fl - tl;
	return s;
}

static void lsf_memlimit_report(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, LSF) >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'lsf_memlimit'"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.job_id') FROM event"
				   " WHERE kind = 'lsf_memlimit'"), "8253410");
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.queue') FROM event"
				   " WHERE kind = 'lsf_memlimit'"), "gpuv100");
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.max_bytes') FROM event"
			       " WHERE kind = 'lsf_memlimit'"), 1024LL << 20);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.request_bytes') FROM event"
			       " WHERE kind = 'lsf_memlimit'"), 1024LL << 20);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.exit_code') FROM event"
			       " WHERE kind = 'lsf_memlimit'"), 137);
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT kind FROM oom WHERE id = 1"), "lsf_memlimit");
	t_close(tl);
}

/* Another termination reason, same report: no OOM (exit 137 alone is a
 * SIGKILL, the run limit is no memory). */
static void lsf_other_reason(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *s = edited(LSF, "TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.",
			 "TERM_RUNLIMIT: job killed after reaching LSF run time limit.", &n);
	(void)state;
	assert_true(t_parse_mem(tl, "lsf_job", "lsf-runlimit.log", s, n) >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 0);
	free(s);
	t_close(tl);
}

/* A size past int64's range, or one strtod reads as nan or inf (fuzz
 * finding, fuzz_lsf_job: UBSan float-cast overflow in lsf_size): the
 * figure is not kept, the kill still is. */
static void lsf_size_out_of_range(void **state)
{
	static const char *const bad[] = { "9e99 MB", "inf MB", "nan MB" };
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct timeline *tl = t_open();
		size_t n;
		char *s = edited(LSF, "1024 MB", bad[i], &n);

		assert_true(t_parse_mem(tl, "lsf_job", "lsf-size.log", s, n) >= 0);
		assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'lsf_memlimit'"), 1);
		assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.max_bytes') IS NULL FROM event"
				       " WHERE kind = 'lsf_memlimit'"), 1);
		free(s);
		t_close(tl);
	}
}

static void pods_row_without_header(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, KF) >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'k8s_oom_kill'"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.pod') FROM event"),
			    "training-operator-8569f97489-zkxbt");
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.namespace') FROM event"),
			    "kubeflow");
	t_close(tl);
}

/* The same row Running: neither the sniff nor the reader takes it. */
static void pods_row_running(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *s = edited(KF, "OOMKilled", "Running", &n);
	(void)state;
	assert_true(t_parse_mem(tl, "k8s", "pods.txt", s, n) >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 0);
	free(s);
	t_close(tl);
}

static void podpattern_oomkilled(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, PAI) >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'k8s_oom_kill'"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.container') FROM event"), "app");
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.exit_code') FROM event"), 137);
	t_close(tl);
}

/* A container's reason Error with code 137: a SIGKILL, no OOM kill. */
static void podpattern_sigkill(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *s = edited(PAI, "reason: OOMKilled", "reason: Error", &n);
	(void)state;
	assert_true(t_parse_mem(tl, "k8s", "exit.txt", s, n) >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'k8s_oom_kill'"), 0);
	free(s);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lsf_memlimit_report),
		cmocka_unit_test(lsf_other_reason),
		cmocka_unit_test(lsf_size_out_of_range),
		cmocka_unit_test(pods_row_without_header),
		cmocka_unit_test(pods_row_running),
		cmocka_unit_test(podpattern_oomkilled),
		cmocka_unit_test(podpattern_sigkill),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
