/*
 * fuzz_cuda_core.c -- libFuzzer harness for parsers/cuda_core*.c: the input
 * is a CUDA core in memory, parsed against the null sink. Seeds in
 * fuzz/corpus/cuda_core/ (small cores from tests/cuda_core_gen.c).
 */
#include "parsers/cores/cuda_core.h"
#include "lib/input.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t n)
{
	struct input in;
	struct sink s;

	memset(&s, 0, sizeof(s));
	s.path = "fuzz";
	if (input_open_mem(&in, "fuzz", data, n) < 0)
		return 0;
	cuda_core_parse(&in, &s);
	input_close(&in);
	return 0;
}
