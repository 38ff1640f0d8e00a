/*
 * fuzz_nvidia_smi.c -- libFuzzer harness for parsers/nvidia_smi.c: sniff and parse any
 * bytes into the null sink (a zeroed struct sink), with options set so
 * that the year- and zone-dependent paths run too.
 */
#include "../lib/input.h"
#include "../parsers/sink.h"
#include "../parsers/nvidia_smi.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ingest_opts o = { OL_NULL, (int)(size & 1), 3600, 2025 };
	struct sink s;
	struct input in;

	memset(&s, 0, sizeof(s));
	s.opts = &o;
	s.path = "incident/4312/memory.current.smaps_rollup.4312.20251129T182240Z";
	nvidia_smi_sniff(data, size);
	if (input_open_mem(&in, "fuzz", data, size) < 0)
		return 0;
	nvidia_smi_parse(&in, &s);
	input_close(&in);
	return 0;
}
