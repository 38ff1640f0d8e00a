/*
 * fuzz_pickle.c -- libFuzzer harness for the pickle decoder and the
 * snapshot reader: the bytes are decoded once into a whole tree (no
 * handler) and once through the snapshot reader against the null sink.
 */
#include "parsers/torch/pickle.h"
#include "parsers/torch/torch_snapshot.h"
#include "lib/input.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t n)
{
	struct input in;
	struct sink s;
	struct pk_handler h = { NULL, NULL, NULL };
	struct pk_result res;

	memset(&s, 0, sizeof(s));
	if (input_open_mem(&in, "fuzz", data, n) == 0) {
		pk_decode(&in, &h, &s, &res);
		pk_release(&res.top);
		input_close(&in);
	}
	memset(&s, 0, sizeof(s));
	if (input_open_mem(&in, "fuzz", data, n) == 0) {
		torch_snapshot_parse(&in, &s);
		input_close(&in);
	}
	return 0;
}
