/*
 * fuzz_torch_flat.c -- libFuzzer harness for the flat JSON Lines reader of
 * PyTorch snapshots (parsers/torch/torch_flat.c) against the null sink.
 */
#include "parsers/torch/torch_snapshot.h"
#include "lib/input.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t n)
{
	struct input in;
	struct sink s;

	memset(&s, 0, sizeof(s));
	if (input_open_mem(&in, "fuzz", data, n) == 0) {
		torch_flat_parse(&in, &s);
		input_close(&in);
	}
	return 0;
}
