/*
 * test_pickle_budget.c -- the pickle decoder's memory is bounded in total,
 * not per container (issue 32): five lists of 60 M None took 4.7 GB, each
 * list within the per-container item limit, and a pickle pinning 33.5 M
 * memo entries took 3.2 GB within the memo limit. The same shapes, written
 * by CPython's pickle module at test time and scaled down, must stop at a
 * budget lowered for the test (pk_budget), keep what was read and say why;
 * under the default budget they decode whole. Skipped without python3.
 */
#include "testutil.h"
#include "parsers/torch/pickle.h"
#include "lib/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Run a python3 expression's pickle (protocol 4) into a buffer; NULL when
 * python3 cannot be run. */
static unsigned char *python_pickle(const char *expr, size_t *n)
{
	char cmd[1024];
	const char *path = BINDIR "/test_pickle_budget.pickle";
	unsigned char *b;
	FILE *f;
	long len;

	snprintf(cmd, sizeof(cmd), "python3 -c 'import pickle,sys; "
		 "sys.stdout.buffer.write(pickle.dumps(%s, protocol=4))' >%s 2>/dev/null",
		 expr, path);
	if (system(cmd) != 0)
		return NULL;
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	b = malloc((size_t)len);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	remove(path);
	*n = (size_t)len;
	return b;
}

static int64_t budget_diags(struct timeline *tl)
{
	return t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'error' AND message"
		     " LIKE 'pickle offset %%: the decode would hold more than its memory budget"
		     " (4194304 bytes%%what was read before is kept'");
}

/* Decode the pickle of expr under budget; returns the status, the top
 * value's list length in *top_n (-1 when the top is not a list). */
static enum pk_status decode_under(struct timeline *tl, const char *expr, uint64_t budget,
				   int64_t *top_n)
{
	struct pk_handler h = { NULL, NULL, NULL };
	struct pk_result res;
	struct input in;
	unsigned char *b;
	size_t n;
	uint64_t saved = pk_budget;

	b = python_pickle(expr, &n);
	if (!b)
		return (enum pk_status)-1;
	assert_int_equal(input_open_mem(&in, "budget.pickle", b, n), 0);
	timeline_artifact_begin(tl, "budget.pickle", "torch_snapshot", n, 0);
	pk_budget = budget;
	assert_int_equal(pk_decode(&in, &h, &tl->sink, &res), 0);
	pk_budget = saved;
	timeline_artifact_end(tl, 1, "partial", n, 0);
	*top_n = res.top.type == PK_LIST ? (int64_t)res.top.u.o->u.c.n : -1;
	pk_release(&res.top);
	input_close(&in);
	free(b);
	return res.status;
}

/* The pickle CPython writes for expr: stopped with one budget message
 * under a 4 MiB budget, decoded whole (n top-level items) under the
 * default one; clean: no budget message then either. Skipped without
 * python3. */
static void stops_under_budget(const char *expr, int64_t want_n, int clean)
{
	struct timeline *tl = t_open();
	int64_t n;
	enum pk_status st;

	st = decode_under(tl, expr, 4u << 20, &n);
	if (st == (enum pk_status)-1) {
		t_close(tl);
		skip();
		return;
	}
	assert_int_equal(st, PK_CORRUPT);
	assert_int_equal(budget_diags(tl), 1);
	t_close(tl);

	tl = t_open();
	assert_int_equal(decode_under(tl, expr, PK_BUDGET_DEFAULT, &n), PK_DONE);
	assert_int_equal(n, want_n);
	if (clean)
		assert_int_equal(budget_diags(tl), 0);
	t_close(tl);
}

/* Five lists of 100,000 None: 1.6 MB of items each, far within the
 * per-container limit, 8 MB together. */
static void many_lists_in_total(void **state)
{
	(void)state;
	stops_under_budget("[[None] * 100000 for _ in range(5)]", 5, 1);
}

/* 200,000 memo entries fetched again long after they were made (beyond
 * the ring of recent ones): each is pinned. */
static void pinned_memo_in_total(void **state)
{
	(void)state;
	stops_under_budget("(lambda l: [l, l[::-1]])([(i,) for i in range(200000)])", 2, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(many_lists_in_total),
		cmocka_unit_test(pinned_memo_in_total),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
