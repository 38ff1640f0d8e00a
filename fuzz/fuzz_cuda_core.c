/*
 * fuzz_cuda_core.c -- libFuzzer harness for parsers/cuda_core*.c: the input
 * is a CUDA core, parsed against the null sink. Seeds in
 * fuzz/corpus/cuda_core/ (small cores from tests/cuda_core_gen.c).
 *
 * The last byte picks how it is read: bit 0 clear, from memory (the
 * reader's private copy, as a gzipped core is read); set, from a file
 * (a memfd opened by path: the plain file's private mapping). Bit 1 set
 * leaves only 64 KiB of the run's memory budget (lib/budget.h), so that a
 * core naming more section headers than fit is read partly, which is
 * fuzzed too; what the reader drew must all be given back afterwards.
 */
#include "parsers/cores/cuda_core.h"
#include "lib/budget.h"
#include "lib/input.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SHORT_BUDGET (64u << 10)

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t n);

/* Open the bytes as a file: a memfd, by its /proc/self/fd path. The memfd
 * is *fd (closed by the caller). 0, or -1. */
static int open_as_file(struct input *in, const unsigned char *data, size_t n, int *fd)
{
	char path[64];

	*fd = memfd_create("fuzz-cuda-core", MFD_CLOEXEC);
	if (*fd < 0)
		return -1;
	if (write(*fd, data, n) != (ssize_t)n)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", *fd);
	return input_open(in, path, NULL);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t n)
{
	struct input in;
	struct sink s;
	uint64_t held = ol_budget_held(), pinned = 0;
	int fd = -1, opened;

	memset(&s, 0, sizeof(s));
	s.path = "fuzz";
	if (n && (data[n - 1] & 1))
		opened = open_as_file(&in, data, n, &fd);
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
	if (fd >= 0)
		close(fd);
	if (ol_budget_held() != held)
		abort(); /* a draw not given back (a check NDEBUG keeps) */
	return 0;
}
