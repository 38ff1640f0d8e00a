/*
 * test_series_words.c -- a memory series for people (lib/series_words.c,
 * reports/labels.c's series_label): the cards by number, PyTorch's and
 * the cgroup's accounts by what they are, the entity kept where it names
 * something, and a series without words keeping its name, so no title
 * is left without a subject.
 */
#include "testutil.h"
#include "lib/series_words.h"

#include <string.h>

static void words(void **state)
{
	char b[200];
	(void)state;

	assert_string_equal(series_words("gpu.used_bytes", "gpu0", b, sizeof(b)),
			    "GPU 0's memory in use");
	assert_string_equal(series_words("DCGM_FI_DEV_FB_USED", "gpu7", b, sizeof(b)),
			    "GPU 7's memory in use (DCGM)");
	/* an entity that is not "gpuN" is kept as it is */
	assert_string_equal(series_words("gpu.used_bytes", "GPU-49a54bd6", b, sizeof(b)),
			    "GPU-49a54bd6's memory in use");
	assert_string_equal(series_words("torch.allocated_bytes", "cuda:0", b, sizeof(b)),
			    "PyTorch's allocated memory on cuda:0");
	assert_string_equal(series_words("cgroup.current_bytes", "/kubepods.slice", b, sizeof(b)),
			    "the cgroup's memory in use (/kubepods.slice)");
	assert_string_equal(series_words("proc.rss_bytes", NULL, b, sizeof(b)),
			    "the process's resident memory");
	/* no words of its own: its name and entity */
	assert_string_equal(series_words("gpu.free_bytes", "gpu0", b, sizeof(b)), "gpu.free_bytes gpu0");
	assert_string_equal(series_words("gpu.free_bytes", "", b, sizeof(b)), "gpu.free_bytes");
	/* cut, never overrun */
	assert_string_equal(series_words("gpu.used_bytes", "gpu0", b, 6), "GPU 0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
