/*
 * test_rules_mps.c -- PyTorch on a Mac (mps.c; the review set's Fooocus
 * case): "MPS backend out of memory (MPS allocated: A, other allocations:
 * O, max allowed: M)". On five real messages: the cap was reached
 * (mps_watermark) with the message's own figures; the advice names
 * PYTORCH_MPS_HIGH_WATERMARK_RATIO and what the cap is, names
 * torch.mps.empty_cache() only when the other allocations are a large
 * share, and nothing oomlens says (advice, what would settle it) sends a
 * Mac user to CUDA variables or nvidia-smi. A CUDA message gets none of it.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <string.h>

#define ANY "tests/data/real/any_stack/"
#define GIB_ (1024.0 * 1024.0 * 1024.0)

static struct timeline *analyzed(const char *rel)
{
	struct timeline *tl = t_open();

	assert_int_equal(t_parse_file(tl, rel), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

/* What oomlens tells the user: every finding's advice and the verdict's
 * missing evidence. */
static void no_cuda_words(struct timeline *tl)
{
	const char *said = t_text(tl, "SELECT coalesce((SELECT group_concat(advice, ' ') FROM"
				  " finding), '') || ' ' || coalesce((SELECT missing FROM verdict), '')");
	static const char *const cuda[] = { "PYTORCH_CUDA_ALLOC_CONF", "CUDA_VISIBLE_DEVICES",
					    "CUBLAS_WORKSPACE_CONFIG", "expandable_segments",
					    "nvidia-smi", "torch.cuda", NULL };
	int i;

	for (i = 0; cuda[i]; i++)
		assert_null(strstr(said, cuda[i]));
}

/* The file's message reached the cap: the finding, its figures, the
 * advice; empty_cache named when other allocations are >= 25% of M. */
static void cap_reached(const char *rel, double alloc_gib, double max_gib, int empty_cache)
{
	struct timeline *tl = analyzed(rel);
	const char *adv;

	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'mps_watermark'"), 1);
	assert_string_equal(t_text(tl, "SELECT cause FROM verdict"), "mps_watermark");
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.mps_allocated_bytes') FROM"
				  " finding WHERE cause = 'mps_watermark'") / GIB_, alloc_gib, 0.006);
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.mps_max_allowed_bytes') FROM"
				  " finding WHERE cause = 'mps_watermark'") / GIB_, max_gib, 0.006);
	adv = t_text(tl, "SELECT advice FROM finding WHERE cause = 'mps_watermark'");
	assert_non_null(strstr(adv, "PYTORCH_MPS_HIGH_WATERMARK_RATIO"));
	assert_true((strstr(adv, "torch.mps.empty_cache()") != NULL) == empty_cache);
	/* the working set is inferred from the stated cap at the default
	 * ratio: said as such, never as the cap itself ("5.34 GiB here at
	 * the default" read as a cap below the 9.07 GB the message states) */
	assert_non_null(strstr(adv, "if the ratio was left at 1.7"));
	assert_null(strstr(adv, "here at the default"));
	no_cuda_words(tl);
	t_close(tl);
}

static void fooocus_m2(void **state)
{
	struct timeline *tl;
	(void)state;

	cap_reached(ANY "mps-backend-oom-fooocus-total-time.log", 8.89, 9.07, 0);
	/* the cap at the default ratio: 9.07 GB / 1.7 of recommended working set */
	tl = analyzed(ANY "mps-backend-oom-fooocus-total-time.log");
	assert_float_equal(t_real(tl, "SELECT json_extract(figures,"
				  " '$.mps_recommended_working_set_bytes') FROM finding WHERE cause ="
				  " 'mps_watermark'") / GIB_, 9.07 / 1.7, 0.01);
	assert_non_null(strstr(t_text(tl, "SELECT title FROM finding WHERE cause = 'mps_watermark'"),
			       "max allowed 9.07 GB"));
	t_close(tl);
}

static void lightning_other_allocations(void **state)
{
	(void)state;
	cap_reached(ANY "mps-backend-oom-lightning-watermark-no-effect.log", 7.43, 32.00, 1);
}

static void clip_interrogator(void **state)
{
	(void)state;
	cap_reached(ANY "mps-backend-oom-clip-interrogator-best-mode.log", 6.04, 6.77, 0);
}

static void comfyui_large_request(void **state)
{
	(void)state;
	cap_reached(ANY "mps-backend-oom-comfyui-5.81gib-request.log", 15.72, 18.13, 0);
}

static void comfyui_other_allocations(void **state)
{
	(void)state;
	cap_reached(ANY "mps-backend-oom-comfyui-other-allocations.log", 9.57, 27.20, 1);
}

static void cuda_message_is_not_mps(void **state)
{
	struct timeline *tl = analyzed("tests/data/real/serving/vllm-0.7-workerprocess-torch-oom.log");
	(void)state;

	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'mps_watermark'"), 0);
	assert_null(strstr(t_text(tl, "SELECT coalesce(group_concat(advice), '') FROM finding"),
			   "PYTORCH_MPS_HIGH_WATERMARK_RATIO"));
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fooocus_m2),
		cmocka_unit_test(lightning_other_allocations),
		cmocka_unit_test(clip_interrogator),
		cmocka_unit_test(comfyui_large_request),
		cmocka_unit_test(comfyui_other_allocations),
		cmocka_unit_test(cuda_message_is_not_mps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
