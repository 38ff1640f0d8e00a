/*
 * test_rules_settings.c -- an allocator setting asked for but not in
 * effect (settings.c): PyTorch's real warning that expandable_segments is
 * not supported on the platform; a snapshot whose recorded
 * PYTORCH_CUDA_ALLOC_CONF sets keys its allocator_settings do not show,
 * and one whose settings match; the score raised when the fragmentation
 * the setting was meant to prevent is found; the process's environment
 * (a copy of /proc/PID/environ) against the snapshot's settings.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <string.h>

static struct timeline *with_meta(const char *conf, const char *expandable, const char *split)
{
	struct timeline *tl = t_open();

	assert_true(timeline_artifact_begin(tl, "snapshot.pickle", "torch_snapshot", 0, 0) > 0);
	assert_true(sink_meta(&tl->sink, "torch.allocator.PYTORCH_CUDA_ALLOC_CONF", conf) >= 0);
	assert_true(sink_meta(&tl->sink, "torch.allocator.expandable_segments", expandable) >= 0);
	assert_true(sink_meta(&tl->sink, "torch.allocator.max_split_size", split) >= 0);
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", 0, 0), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

static const char *title(struct timeline *tl)
{
	return t_text(tl, "SELECT title FROM finding WHERE cause = 'setting_not_in_effect'");
}

/* pytorch/pytorch#122057: the warning alone names what was ignored. */
static void the_platform_warning(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, "tests/data/real/gpu_host/pytorch-expandable-segments-"
				      "unsupported-h100.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	/* a warning is not an OOM: the finding stands, the verdict is no_oom */
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "no_oom");
	assert_float_equal(t_real(tl, "SELECT score FROM finding WHERE cause ="
				  " 'setting_not_in_effect'"), 0.45, 1e-9);
	assert_non_null(strstr(title(tl), "expandable_segments:True asked, False in effect"));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM evidence e JOIN finding f ON f.id ="
			       " e.finding_id WHERE f.cause = 'setting_not_in_effect' AND"
			       " e.ref_table = 'event'"), 1);
	/* and no_oom asks for no OOM event */
	assert_null(strstr(t_text(tl, "SELECT coalesce(missing, '') FROM verdict"), "OOM event"));
	t_close(tl);
}

static void the_snapshot_says_so(void **state)
{
	struct timeline *tl;
	(void)state;

	/* both keys asked, neither applied */
	tl = with_meta("expandable_segments:True,max_split_size_mb:128", "false", "-1");
	assert_non_null(strstr(title(tl), "expandable_segments:True asked, False in effect;"
			       " max_split_size_mb:128 asked, unlimited in effect"));
	assert_non_null(strstr(title(tl), "allocator_settings"));
	t_close(tl);

	/* as asked: nothing to say */
	tl = with_meta("expandable_segments:True,max_split_size_mb:128", "true", "134217728");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause ="
			       " 'setting_not_in_effect'"), 0);
	t_close(tl);

	/* just outside: one MiB off is a different setting */
	tl = with_meta("max_split_size_mb:128", "false", "133169152");
	assert_non_null(strstr(title(tl), "max_split_size_mb:128 asked, 127 MiB in effect"));
	t_close(tl);

	/* nothing asked */
	tl = with_meta("", "false", "-1");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'settings'"), 0);
	t_close(tl);
}

/* With the fragmentation it was meant to prevent: raised to 0.6. */
static void with_fragmentation(void **state)
{
	struct timeline *tl = t_open();
	(void)state;

	assert_int_equal(t_parse_file(tl, "tests/data/real/gpu_host/torch-oom-reserved-half-"
				      "capacity.log"), 0);
	assert_int_equal(t_parse_file(tl, "tests/data/real/gpu_host/pytorch-expandable-segments-"
				      "unsupported-h100.log"), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_true(t_real(tl, "SELECT max(score) FROM finding WHERE cause = 'fragmentation'") >= 0.3);
	assert_float_equal(t_real(tl, "SELECT score FROM finding WHERE cause ="
				  " 'setting_not_in_effect'"), 0.6, 1e-9);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE cause ="
				      " 'setting_not_in_effect'"), "The fragmentation it was meant"));
	t_close(tl);
}

/* The snapshot's settings (its recorded string and expandable_segments)
 * beside a copy of the process's /proc/PID/environ (tests/data/environ:
 * PYTORCH_ALLOC_CONF=expandable_segments:True among the pod's variables,
 * two of them secrets); no snapshot when conf is NULL. */
static struct timeline *with_env(const char *conf, const char *expandable)
{
	struct timeline *tl = t_open();

	assert_int_equal(t_parse_file(tl, "tests/data/environ/vllm-pod.environ"), 0);
	if (conf) {
		assert_true(timeline_artifact_begin(tl, "snapshot.pickle", "torch_snapshot", 0, 0) > 0);
		assert_true(sink_meta(&tl->sink, "torch.allocator.PYTORCH_CUDA_ALLOC_CONF", conf) >= 0);
		assert_true(sink_meta(&tl->sink, "torch.allocator.expandable_segments", expandable) >= 0);
		assert_true(sink_meta(&tl->sink, "torch.allocator.max_split_size", "-1") >= 0);
		assert_int_equal(timeline_artifact_end(tl, 1, "ok", 0, 0), 0);
	}
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

/* The new name in the environment, the old one read: PyTorch 2.9.1 on
 * CUDA (its snapshot shows expandable_segments False, the string it read
 * empty). The environment's secrets are never stored. */
static void the_environment_says_so(void **state)
{
	struct timeline *tl;
	const char *advice;
	(void)state;

	tl = with_env("", "false");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key = 'env.PYTORCH_ALLOC_CONF'"
			       " AND value = 'expandable_segments:True'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key LIKE '%%TOKEN%%' OR key LIKE"
			       " '%%KEY%%' OR value LIKE 'hf_%%' OR value LIKE 'sk-%%'"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key = 'env.VLLM_WORKER_MULTIPROC_"
			       "METHOD'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta WHERE key IN ('env.PATH', 'env.HOME',"
			       " 'env.HOSTNAME', 'env.KUBERNETES_SERVICE_HOST')"), 0);
	assert_non_null(strstr(title(tl), "expandable_segments:True asked, False in effect"));
	assert_non_null(strstr(title(tl), "environment"));
	advice = t_text(tl, "SELECT advice FROM finding WHERE cause = 'setting_not_in_effect'");
	assert_non_null(strstr(advice, "PYTORCH_ALLOC_CONF=\"expandable_segments:True\""));
	assert_non_null(strstr(advice, "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"));
	/* not the platform: the advice does not say the build ignores it */
	assert_null(strstr(advice, "not ROCm"));
	t_close(tl);

	/* in effect: nothing to say */
	tl = with_env("expandable_segments:True", "true");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'settings'"), 0);
	t_close(tl);

	/* no snapshot: what was in effect is not known, so nothing is said */
	tl = with_env(NULL, NULL);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'settings'"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_platform_warning),
		cmocka_unit_test(the_snapshot_says_so),
		cmocka_unit_test(with_fragmentation),
		cmocka_unit_test(the_environment_says_so),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
