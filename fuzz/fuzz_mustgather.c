/*
 * fuzz_mustgather.c -- libFuzzer harness for parsers/k8s/mustgather.c (a
 * must-gather tree's version file and must-gather.log): every reader of
 * the file runs over each input, sniffed first, with the null sink.
 */
#include <stdint.h>
#include <string.h>

#include "lib/input.h"
#include "parsers/common/sink.h"
#include "parsers/k8s/mustgather.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct {
	int (*sniff)(const unsigned char *, size_t);
	int (*parse)(struct input *, struct sink *);
} readers[] = { { mg_version_sniff, mg_version_parse }, { mg_log_sniff, mg_log_parse } };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i;

	for (i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		struct ingest_opts o = { OL_NULL, 0, 0, 2025 };
		struct sink s;
		struct input in;

		memset(&s, 0, sizeof(s));
		s.opts = &o;
		s.path = "must-gather/must-gather.log";
		readers[i].sniff(data, size);
		if (input_open_mem(&in, "fuzz", data, size) < 0)
			return 0;
		readers[i].parse(&in, &s);
		input_close(&in);
	}
	return 0;
}
