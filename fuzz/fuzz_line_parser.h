/*
 * fuzz_line_parser.h -- the body every text-parser harness shares: sniff
 * and parse any bytes into the null sink (a zeroed struct sink), with
 * --year/--tz set on odd sizes so the zone- and year-dependent paths run.
 * A harness is one line: FUZZ_TEXT_PARSER(cgroup_sniff, cgroup_parse).
 */
#ifndef OOMLENS_FUZZ_LINE_PARSER_H
#define OOMLENS_FUZZ_LINE_PARSER_H

#include <stdint.h>
#include <string.h>

#include "lib/input.h"
#include "parsers/common/sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A path with a pid and a time stamp in it, for the parsers that read a
 * capture's identity from its file name when the content has none. */
#define FUZZ_PATH "incident/4312/memory.current.smaps_rollup.4312.20251129T182240Z"

#define FUZZ_TEXT_PARSER(sniff, parse)                                        \
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                  \
{                                                                             \
	struct ingest_opts o = { OL_NULL, (int)(size & 1), 3600, 2025 };      \
	struct sink s;                                                        \
	struct input in;                                                      \
                                                                              \
	memset(&s, 0, sizeof(s));                                             \
	s.opts = &o;                                                          \
	s.path = FUZZ_PATH;                                                   \
	sniff(data, size);                                                    \
	if (input_open_mem(&in, "fuzz", data, size) < 0)                     \
		return 0;                                                     \
	parse(&in, &s);                                                       \
	input_close(&in);                                                     \
	return 0;                                                             \
}

#endif
