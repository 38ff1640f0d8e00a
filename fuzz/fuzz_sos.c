/*
 * fuzz_sos.c -- libFuzzer harness for parsers/bundles/sos.c (version.txt, sos.log, package lists): every reader of the
 * file runs over each input, sniffed first, with the null sink.
 */
#include <stdint.h>
#include <string.h>

#include "lib/input.h"
#include "parsers/common/sink.h"
#include "parsers/bundles/sos.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct {
	int (*sniff)(const unsigned char *, size_t);
	int (*parse)(struct input *, struct sink *);
} readers[] = { { sos_version_sniff, sos_version_parse }, { sos_log_sniff, sos_log_parse }, { pkg_list_sniff, pkg_list_parse } };

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
