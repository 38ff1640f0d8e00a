/*
 * test_phase_2025.c -- the rows learnt from the serving engines' 2025-2026
 * versions (round 7, parsers/serving/phase_rows_2025.inc and the round's
 * block of memfail_words.c), on the real excerpts of
 * tests/data/real/any_stack:
 *
 *  - Triton's CUDA launcher's "Triton Error [CUDA]: out of memory" in a
 *    vLLM V1 worker whose traceback runs through execute_model(
 *    scheduler_output): a CUDA failure while serving. The same excerpt
 *    with V0's profile-run call in its place (an edge case: the argument
 *    is the only change) names no served step;
 *  - SGLang's hierarchical cache refusing its host pool ("Not enough host
 *    memory available. Requesting 40.00 GB ..."): a host failure while
 *    the KV cache is set up, a misconfiguration whose advice names the
 *    host pool's knobs, not the GPU's share.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <stdlib.h>
#include <string.h>

#define ANY "tests/data/real/any_stack/"
#define TRITON ANY "vllm-v1-dsv4-flash-sm120-compose-dp-ep-triton-error-cuda-oom.log"
#define HICACHE ANY "sglang-hicache-not-enough-host-memory-requesting-40gb.log"

/* A field of the first OOM event of a parsed log. */
static const char *first(struct timeline *tl, const char *field)
{
	return t_text(tl, "SELECT json_extract(data, '$.%s') FROM event WHERE kind IN"
		      " ('torch_oom', 'mem_failure') ORDER BY id LIMIT 1", field);
}

static void triton_error_in_a_served_step(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, TRITON), 0);
	assert_string_equal(first(tl, "family"), "cuda");
	assert_string_equal(first(tl, "phase"), "serving");
	t_close(tl);
}

/* Every "scheduler_output" of the excerpt becomes V0's profile-run
 * arguments ("model_input, kv_caches"): no longer a served step. */
static void v0_profile_call_is_no_step(void **state)
{
	static const char from[] = "scheduler_output", to[] = "model_input, kv_caches";
	size_t n, k = sizeof(from) - 1, m = sizeof(to) - 1, i, j = 0, hits = 0;
	char *text = t_slurp(TRITON, &n), *edited = malloc(2 * n + 1);
	struct timeline *tl = t_open();

	(void)state;
	assert_non_null(edited);
	for (i = 0; i < n;)
		if (i + k <= n && !memcmp(text + i, from, k)) {
			memcpy(edited + j, to, m);
			j += m, i += k, hits++;
		} else {
			edited[j++] = text[i++];
		}
	assert_true(hits > 0);
	assert_true(t_parse_mem(tl, "server_log", "v0.log", edited, j) > 0);
	assert_string_equal(first(tl, "family"), "cuda");
	assert_string_not_equal(first(tl, "phase"), "serving");
	t_close(tl);
	free(edited);
	free(text);
}

static void sglang_host_pool_is_kv_alloc(void **state)
{
	struct timeline *tl = t_open();
	const char *s;

	(void)state;
	assert_int_equal(t_parse_file(tl, HICACHE), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "kv_alloc");
	assert_string_equal(t_text(tl, "SELECT family FROM oom WHERE id = 1"), "host");
	/* "Requesting 40.00 GB": SGLang prints requested_bytes / 1e9
	 * (memory_pool_host.py), so 40 * 10^9 bytes, not 40 GiB */
	assert_float_equal(t_real(tl, "SELECT requested_bytes FROM oom WHERE id = 1"), 40e9, 1.0);
	assert_string_equal(t_text(tl, "SELECT class FROM verdict"), "misconfig");
	assert_string_equal(t_text(tl, "SELECT phase FROM verdict"), "kv_alloc");
	s = t_text(tl, "SELECT advice FROM finding WHERE class = 'misconfig' ORDER BY score DESC"
		   " LIMIT 1");
	assert_non_null(strstr(s, "--hicache-size"));
	/* the GPU's share is not what ran out */
	assert_null(strstr(s, "lower them"));
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(triton_error_in_a_served_step),
		cmocka_unit_test(v0_profile_call_is_no_step),
		cmocka_unit_test(sglang_host_pool_is_kv_alloc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
