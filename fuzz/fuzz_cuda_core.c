/*
 * fuzz_cuda_core.c -- libFuzzer harness for parsers/cuda_core*.c: the input
 * is a CUDA core, parsed against the null sink. Seeds in
 * fuzz/corpus/cuda_core/ (small cores from tests/cuda_core_gen.c).
 *
 * The last byte picks how it is read: bit 0 clear, from memory (the
 * reader's private copy, as a gzipped core is read); set, from a file
 * (a scratch file opened by path, fuzz_file.h: the plain file's mapping). Bit 1 set
 * leaves only 64 KiB of the run's memory budget (lib/budget.h), so that a
 * core naming more section headers than fit is read partly, which is
 * fuzzed too; what the reader drew must all be given back afterwards.
 */
#include "parsers/cores/cuda_core.h"
#include "lib/budget.h"
#include "lib/input.h"
#include "fuzz_file.h"

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SHORT_BUDGET (64u << 10)

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t n);

/* Open the bytes as a file (fuzz_file.h: a scratch file by its path; the
 * reader maps it). 0, or -1. */
static int open_as_file(struct input *in, const unsigned char *data, size_t n)
{
	const char *path = fuzz_file(data, n);

	return path ? input_open(in, path, NULL) : -1;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t n)
{
	struct input in;
	struct sink s;
	uint64_t held = ol_budget_held(), pinned = 0;
	int opened;

	memset(&s, 0, sizeof(s));
	s.path = "fuzz";
	if (n && (data[n - 1] & 1))
		opened = open_as_file(&in, data, n);
	else
		opened = input_open_mem(&in, "fuzz", data, n);
	if (opened == 0) {
		if (n && (data[n - 1] & 2) && ol_budget_left() > SHORT_BUDGET) {
			pinned = ol_budget_left() - SHORT_BUDGET;
			if (ol_budget_take(pinned) < 0)
				pinned = 0;
		}
		cuda_core_parse(&in, &s);
		input_close(&in);
		ol_budget_give(pinned);
	}
	assert(ol_budget_held() == held);   /* every draw given back */
	return 0;
}
