/*
 * cuda_core_cases.h -- what the CUDA core tests share (test_cuda_core.c,
 * test_cuda_core_malformed.c): the base writer options and parsing a
 * written model from memory. Include after cuda_core_writer.c and
 * testutil.h; static, one copy per test program.
 */
#ifndef OOMLENS_TESTS_CUDA_CORE_CASES_H
#define OOMLENS_TESTS_CUDA_CORE_CASES_H

static const struct ccw_opts base_opts = { 1, 1, 1, 2, 4096, 0, 1 };

/* Serialise w and parse it from memory; returns the parser's result. */
static int parse_model(struct timeline *tl, struct ccw *w, const char *name)
{
	unsigned char *b;
	size_t n;
	uint64_t total;
	int r;

	assert_int_equal(ccw_serialise(w, &b, &n, &total), 0);
	assert_true(total == n);
	r = t_parse_mem(tl, "cuda_core", name, (const char *)b, n);
	free(b);
	return r;
}

#endif
