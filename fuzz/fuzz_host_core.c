/*
 * fuzz_host_core.c -- libFuzzer harness for parsers/cores/host_core.c: any bytes
 * as a host core file. libelf and libdwfl read the core from a file
 * descriptor, so the bytes go to a scratch file that the input opens by
 * path (fuzz_file.h).
 * The seeds are gcore dumps of tests/data/cores/victim.c with their memory
 * segments cut to 64 bytes (notes and headers kept).
 *
 * An input whose last byte has bit 1 set is read with only 64 KiB of the
 * run's memory budget left (lib/budget.h), so that the partial reads a
 * short budget forces (section headers counted down in a private mapping
 * of the file, thread notes past the budget counted out) are fuzzed too;
 * what the reader drew must all be given back afterwards.
 */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "lib/budget.h"
#include "lib/input.h"
#include "parsers/cores/host_core.h"
#include "fuzz_file.h"

#define SHORT_BUDGET (64u << 10)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sink s;
	struct input in;
	const char *path = fuzz_file(data, size);
	uint64_t held = ol_budget_held(), pinned = 0;

	if (!path)
		return 0;
	if (size && (data[size - 1] & 2) && ol_budget_left() > SHORT_BUDGET) {
		pinned = ol_budget_left() - SHORT_BUDGET;
		if (ol_budget_take(pinned) < 0)
			pinned = 0;
	}
	memset(&s, 0, sizeof(s));
	host_core_sniff(data, size);
	if (input_open(&in, path, NULL) == 0) {
		host_core_parse(&in, &s);
		input_close(&in);
	}
	ol_budget_give(pinned);
	assert(ol_budget_held() == held);   /* every draw given back */
	return 0;
}
