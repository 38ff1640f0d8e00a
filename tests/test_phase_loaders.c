/*
 * test_phase_loaders.c -- loads named by a program's own words (held-out
 * set 5, spent round 5, parsers/serving/phase_table.c): a ComfyUI loader
 * node named above PyTorch's cudaMallocAsync refusal places the OOM in
 * the weights' load, another node's name does not; a failure repeated by
 * a second worker that names its stage (vLLM V0's "while processing
 * method determine_num_available_blocks") places the failure held.
 *
 * The ComfyUI cases are the real excerpt of ComfyUI issue 5886
 * (tests/data/incoming/any_stack/b-comfyui-checkpointloader-exceed-
 * allowed.log, kept in incoming: its verdict is honestly inconclusive),
 * read whole, and the same lines under a sampler node's name (an edge
 * case: the name is the only change). The vLLM case is the real excerpt
 * of flashinfer issue 362 under tests/data/real/any_stack.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#define COMFY "tests/data/incoming/any_stack/b-comfyui-checkpointloader-exceed-allowed.log"
#define FLASHINFER \
	"tests/data/real/any_stack/a-vllm-flashinfer-out-of-workspace-memory-alignedallocator-profile.log"

/* Parse text[0..n) as a server log named name; the phase of its first OOM
 * is compared with want. */
static void expect_phase(const char *name, const char *text, size_t n, const char *want)
{
	struct timeline *tl = t_open();

	assert_true(t_parse_mem(tl, "server_log", name, text, n) > 0);
	assert_string_equal(t_first_phase(tl), want);
	t_close(tl);
}

static void comfyui_loader_node_is_a_load(void **state)
{
	size_t n;
	char *text = t_slurp(COMFY, &n);

	(void)state;
	expect_phase(COMFY, text, n, "load_weights");
	free(text);
}

static void comfyui_other_node_is_no_load(void **state)
{
	static const char name[] = "CheckpointLoaderSimple";
	size_t n, k = sizeof(name) - 1;
	char *text = t_slurp(COMFY, &n), *edited;

	(void)state;
	/* the same excerpt under the sampler's node */
	assert_true(n > k && !memcmp(text, name, k));
	edited = malloc(n + 8);
	assert_non_null(edited);
	memcpy(edited, "KSampler", 8);
	memcpy(edited + 8, text + k, n - k);
	expect_phase("ksampler.log", edited, 8 + n - k, "unknown");
	free(edited);
	free(text);
}

static void repeat_names_the_stage(void **state)
{
	size_t n;
	char *text = t_slurp(FLASHINFER, &n);

	(void)state;
	expect_phase(FLASHINFER, text, n, "profile");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(comfyui_loader_node_is_a_load),
		cmocka_unit_test(comfyui_other_node_is_no_load),
		cmocka_unit_test(repeat_names_the_stage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
