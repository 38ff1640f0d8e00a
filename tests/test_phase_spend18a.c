/*
 * test_phase_spend18a.c -- Caffe's and HTCondor's memory failures learnt
 * from held-out set 18's spent folders (w-spend18a), on the real
 * excerpts now in tests/data/real/any_stack:
 *
 *  - the CRF-RNN demo's glog abort "Check failed: *ptr host allocation
 *    of size 282240000 failed" (Caffe's CaffeMallocHost, syncedmem.hpp)
 *    after the caffemodel's upgrade lines: a host OOM of 282240000 bytes
 *    in the weights' load (not read at main);
 *  - segaware's `caffe test` run: "Running for 1449 iterations." then
 *    CUDA_CHECK's "(2 vs. 0)  out of memory": the test net's forward
 *    passes, eval (unknown at main);
 *  - an HTCondor hold reason "Docker job has gone over memory limit of
 *    1024 Mb": a host OOM (not read at main).
 */
#include "testutil.h"

#include "analyzer/derive/oom.h"

#define ANY "tests/data/real/any_stack/"
#define CRF ANY "a-crfasrnn-caffe-cpu-virtualbox-4gb-host-allocation-failed/01-demo.log"
#define SEG ANY "a-segaware-caffe-test-res-voc-1449-iters-oom-1080ti/01-test.log"
#define CONDOR ANY "a-htcondor-chtc-gpulab-docker-job-over-memory-limit-1024mb/01-hold-reason.txt"

static void caffe_host_allocation_in_weights_load(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, CRF), 0);
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 1);
	assert_string_equal(t_text(tl, "SELECT family FROM oom"), "host");
	assert_string_equal(t_text(tl, "SELECT phase FROM oom"), "load_weights");
	t_close(tl);
}

static void caffe_test_command_is_eval(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, SEG), 0);
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_string_equal(t_text(tl, "SELECT phase FROM oom WHERE id = 1"), "eval");
	t_close(tl);
}

static void htcondor_hold_is_host_oom(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_int_equal(t_parse_file(tl, CONDOR), 0);
	assert_int_equal(derive_oom(tl->db, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM oom"), 1);
	assert_string_equal(t_text(tl, "SELECT family FROM oom"), "host");
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(caffe_host_allocation_in_weights_load),
		cmocka_unit_test(caffe_test_command_is_eval),
		cmocka_unit_test(htcondor_hold_is_host_oom),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
