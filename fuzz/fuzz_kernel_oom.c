/*
 * fuzz_kernel_oom.c -- libFuzzer harness for the kernel OOM log parser:
 * the input is one kernel log (any prefix style) parsed into the null sink,
 * with options that exercise --year and --tz.
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "lib/input.h"
#include "parsers/kernel/kernel_oom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ingest_opts opts = { OL_NULL, 0, 0, 0 };
	struct sink s;
	struct input in;

	memset(&s, 0, sizeof(s));
	if (size && (data[0] & 1)) {
		opts.year = 2024;
		opts.tz_known = 1;
		opts.tz_offset_s = 3600;
	}
	s.opts = &opts;
	if (input_open_mem(&in, "fuzz", data, size) < 0)
		return 0;
	kernel_oom_sniff(data, size);
	kernel_oom_parse(&in, &s);
	input_close(&in);
	return 0;
}
