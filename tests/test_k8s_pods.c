/*
 * test_k8s_pods.c -- `kubectl get pods` tables (parsers/k8s/k8s.c
 * pods_row): a STATUS OOMKilled is the kubelet's word for a container's
 * cgroup OOM, one k8s_oom_kill a pod, untimed, told only when no other
 * part of the file (describe's Last State) told it; Running pods with
 * RESTARTS, and CrashLoopBackOff, are no OOM.
 *
 * Real pastes: flyteorg/flyte#3686 (OOMKilled beside Completed),
 * hmcts/cnp-flux-config#28772 (get pods and describe's Last State of the
 * same pod), allenai/allennlp-demo#37 (Running with restarts). The
 * CrashLoopBackOff row is the hmcts row with its STATUS changed.
 *
 * Derive (analyzer/derive/oom_same.c): the hmcts folder's two pastes of
 * one kill are one OOM row whose evidence names both records; two pods'
 * kills (the flyte and hmcts rows, one paste each) stay two rows.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"
#include "parsers/k8s/k8s.h"
#include "analyzer/derive/oom.h"

#include <stdlib.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"
#define HMCTS ANY "k8s-get-pods-oomkilled-restarts-and-last-state/"

static void oomkilled_row(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "k8s-get-pods-oomkilled-beside-completed.log") >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'k8s_oom_kill'"), 1);
	assert_non_null(strstr(t_text(tl, "SELECT summary FROM event"),
			       "of pod fc6b601ca7bb04acb911-n0-0-dn0-0"));
	t_close(tl);
}

/* Both pastes in one file: the describe's kill, not a second one. */
static void table_and_last_state_once(void **state)
{
	size_t a, b;
	char *t1 = t_slurp(HMCTS "01-kubectl-get-pods.txt", &a);
	char *t2 = t_slurp(HMCTS "02-describe-last-state.txt", &b);
	char *both = malloc(a + b + 1);
	struct timeline *tl = t_open();
	(void)state;
	memcpy(both, t1, a);
	memcpy(both + a, t2, b);
	both[a + b] = 0;
	assert_int_equal(t_parse_mem(tl, "k8s", "pods.txt", both, a + b), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'k8s_oom_kill'"), 1);
	free(both);
	free(t2);
	free(t1);
	t_close(tl);
}

/* The folder's two pastes (get pods, describe's Last State): one kill,
 * one OOM row, both records its evidence. */
static void two_pastes_one_kill(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, HMCTS) >= 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'k8s_oom_kill'"), 2);
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 1);
	assert_int_equal(t_int(tl, "SELECT json_array_length(evidence) FROM oom"), 2);
	assert_int_equal(t_int(tl, "SELECT count(DISTINCT e.artifact_id) FROM oom o,"
			       " json_each(o.evidence) j JOIN event e ON e.id = j.value"), 2);
	t_close(tl);
}

/* Two pods' OOMKilled rows, one paste each: two kills, two rows. */
static void two_pods_two_kills(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, ANY "k8s-get-pods-oomkilled-beside-completed.log") >= 0);
	assert_true(t_parse_file(tl, HMCTS "01-kubectl-get-pods.txt") >= 0);
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 2);
	t_close(tl);
}

/* Restarts and CrashLoopBackOff alone: no event, not even sniffed. */
static void restarts_are_no_oom(void **state)
{
	const char *crash =
		"NAME                                                 READY   STATUS             RESTARTS"
		"      AGE\n"
		"tax-tribunals-application-base-74464f6b98-2kj6g      0/1     CrashLoopBackOff   4 (57s"
		" ago)   2m40s\n";
	size_t n;
	char *run = t_slurp("tests/data/real/healthy/k8s-get-pods-running-with-restarts.txt", &n);
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(k8s_sniff((const unsigned char *)run, n), 0);
	assert_int_equal(k8s_sniff((const unsigned char *)crash, strlen(crash)), 0);
	assert_int_equal(t_parse_mem(tl, "k8s", "crash.txt", crash, 0), 0);
	assert_int_equal(t_parse_mem(tl, "k8s", "run.txt", run, n), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 0);
	free(run);
	t_close(tl);
}

/* KServe's model status beside `kubectl get pods` (readers17; the
 * KServe Triton predictor in CrashLoopBackOff, tests/data/incoming): its
 * lastFailureInfo's exitCode 137 is a SIGKILL, one process_crash and no
 * OOM (the kubelet did not say OOMKilled); before, the folder was not
 * read at all. */
static void kserve_last_failure_137_is_a_sigkill(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, "tests/data/incoming/any_stack/"
				      "a-k8s-kserve-triton-bert-predictor-crashloop-exit-137/"
				      "02-model-status.yaml"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'process_crash'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'k8s_oom_kill'"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(oomkilled_row),
		cmocka_unit_test(table_and_last_state_once),
		cmocka_unit_test(restarts_are_no_oom),
		cmocka_unit_test(two_pastes_one_kill),
		cmocka_unit_test(two_pods_two_kills),
		cmocka_unit_test(kserve_last_failure_137_is_a_sigkill),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
