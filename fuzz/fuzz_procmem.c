/*
 * fuzz_procmem.c -- libFuzzer harness for parsers/host/procmem.c (meminfo, free, buddyinfo, slabinfo): every reader of the
 * file runs over each input, sniffed first, with the null sink.
 */
#include <stdint.h>
#include <string.h>

#include "lib/input.h"
#include "parsers/common/sink.h"
#include "parsers/host/procmem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct {
	int (*sniff)(const unsigned char *, size_t);
	int (*parse)(struct input *, struct sink *);
} readers[] = { { meminfo_sniff, meminfo_parse }, { free_out_sniff, free_out_parse }, { buddyinfo_sniff, buddyinfo_parse }, { slabinfo_sniff, slabinfo_parse } };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i;

	for (i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		struct ingest_opts o = { OL_NULL, 0, 0, 2025 };
		struct sink s;
		struct input in;

		memset(&s, 0, sizeof(s));
		s.opts = &o;
		s.path = "sosreport/proc/meminfo";
		readers[i].sniff(data, size);
		if (input_open_mem(&in, "fuzz", data, size) < 0)
			return 0;
		readers[i].parse(&in, &s);
		input_close(&in);
	}
	return 0;
}
