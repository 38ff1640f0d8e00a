/*
 * test_ledger_failure.c -- a card's ledger takes its capacity and free
 * memory from the OOM's own message when that message is not PyTorch's
 * (analyzer/derive/ledger.c failure_figs).
 *
 * The real Ascend CI log of SGLang's DeepSeek-R1 W4A8 decode (torch_npu's
 * "NPU out of memory. Tried to allocate 4.00 GiB (NPU 4; 61.27 GiB total
 * capacity; 1.50 GiB free)") states the device's capacity and free
 * memory; the oom row kept them, but the ledger said "capacity unknown"
 * for that card: the answer stated 61.3 GiB while the ledger below it
 * knew no capacity. Now the card of the failure's device has both lines,
 * labelled as stated by the failure, and the other cards stay unknown.
 */
#include "testutil.h"
#include "analyzer/rules/rules.h"

#define NPU "tests/data/real/any_stack/b-sglang-ascend910-dsr1-w4a8-decode-npu-graph-capture-oom/" \
	"01-ci-test-output.txt"

static void failure_states_its_card(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_true(t_parse_file(tl, NPU) >= 0);
	assert_int_equal(analyze_timeline(tl, NULL), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM ledger l, oom o WHERE o.id = 1 AND"
			       " l.device = o.device AND l.line = 'capacity' AND l.bytes = o.total_bytes"
			       " AND l.how = 'stated by the failure'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM ledger l, oom o WHERE o.id = 1 AND"
			       " l.device = o.device AND l.line = 'free' AND l.bytes = o.free_bytes"), 1);
	/* the other cards: no capacity the failure did not state */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM ledger l, oom o WHERE o.id = 1 AND"
			       " l.device <> o.device AND l.line = 'capacity'"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(failure_states_its_card),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
