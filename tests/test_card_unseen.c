/*
 * test_card_unseen.c -- "Including non-PyTorch memory, this process has
 * 0 bytes memory in use" (card.c, capacity.c; the review set's Aria case):
 * the driver (NVML) cannot see a process inside a container and says 0.
 * On three real messages that say so, oomlens must not take the 0 as a
 * figure: no other tenant is invented from it, the memory outside
 * PyTorch's reserve is what it is (total - reserved - free, not total -
 * free), and the advice says it cannot be attributed. A real message with
 * a figure of its own keeps it.
 *
 * The cudaMallocAsync backend's message ("would exceed allowed memory")
 * states only the live bytes and the driver's free; its pool keeps every
 * freed byte (c10/cuda/CUDAMallocAsyncAllocator.cpp), so the rest of the
 * card is no proof of another tenant either.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#include <string.h>

#define GIB_ (1024.0 * 1024.0 * 1024.0)

static struct timeline *analyzed(const char *rel)
{
	struct timeline *tl = t_open();

	tl->opts.year = 2026;
	assert_int_equal(t_parse_file(tl, rel), 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	return tl;
}

/* The file's message says 0 bytes; outside is total - reserved - free. */
static void unseen(const char *rel, double total, double reserved, double free_)
{
	struct timeline *tl = analyzed(rel);

	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'other_process'"), 0);
	assert_true(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'capacity'"
			  " AND json_extract(figures, '$.process_unseen') = 1") >= 1);
	assert_float_equal(t_real(tl, "SELECT json_extract(figures, '$.outside_bytes') FROM finding"
				  " WHERE rule = 'capacity' ORDER BY score DESC LIMIT 1") / GIB_,
			   total - reserved - free_, 0.02);
	assert_non_null(strstr(t_text(tl, "SELECT advice FROM finding WHERE rule = 'capacity'"
				      " ORDER BY score DESC LIMIT 1"), "cannot be attributed"));
	t_close(tl);
}

static void aria_vllm_worker(void **state)
{
	(void)state;
	/* 21.96 GiB card, 19.02 + 1.32 reserved, 1.29 free */
	unseen("tests/data/real/serving/vllm-0.6-workerprocess-torch-oom-aria.log",
	       21.96, 19.02 + 1.32, 1.29);
}

static void vertex_vllm_rank0(void **state)
{
	(void)state;
	unseen("tests/data/real/serving/vllm-vertex-rank0-torch-oom-this-process-0-bytes.log",
	       39.38, 34.94 + 175.15 / 1024, 3.76);
}

static void verl_container(void **state)
{
	(void)state;
	unseen("tests/data/real/gpu_host/torch-oom-this-process-0-bytes-verl-container.log",
	       23.55, 16.80 + 1.87, 4.22);
}

/* "this process has 14.42 GiB memory in use": a figure, kept. */
static void seen_process_keeps_its_figure(void **state)
{
	struct timeline *tl = analyzed("tests/data/real/serving/vllm-0.7-workerprocess-torch-oom.log");
	(void)state;

	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'capacity'"
			       " AND json_extract(figures, '$.process_unseen') = 1"), 0);
	assert_null(strstr(t_text(tl, "SELECT group_concat(advice) FROM finding"),
			   "cannot be attributed"));
	/* its message states the reserve */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'capacity'"
			       " AND json_extract(figures, '$.reserve_unstated') = 1"), 0);
	t_close(tl);
}

/* ComfyUI's real cudaMallocAsync message: 6.89 GiB live of 23.69 GiB,
 * 2.94 MiB free; the 16.8 GiB between may be the pool's own cache. */
static void async_pool_invents_no_tenant(void **state)
{
	struct timeline *tl = analyzed("tests/data/real/gpu_host/torch-oom-would-exceed-allowed-multiline.log");
	(void)state;

	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE json_extract(data, '$.wording')"
			       " = 'would_exceed_allowed'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM finding WHERE cause = 'other_process'"), 0);
	/* the card strip is told the reserve was not stated */
	assert_true(t_int(tl, "SELECT count(*) FROM finding WHERE rule = 'capacity'"
			  " AND json_extract(figures, '$.reserve_unstated') = 1") >= 1);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(aria_vllm_worker),
		cmocka_unit_test(vertex_vllm_rank0),
		cmocka_unit_test(verl_container),
		cmocka_unit_test(seen_process_keeps_its_figure),
		cmocka_unit_test(async_pool_invents_no_tenant),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
