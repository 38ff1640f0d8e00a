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

/* A harness for a file's several readers (a bundle's files): each reader
 * in turn sniffs and parses the same bytes, with path as the file's name.
 * A harness: FUZZ_TEXT_READERS("sosreport/proc/meminfo",
 *	{ meminfo_sniff, meminfo_parse }, { free_out_sniff, free_out_parse }) */
struct fuzz_reader {
	int (*sniff)(const unsigned char *, size_t);
	int (*parse)(struct input *, struct sink *);
};

static inline void fuzz_text_readers(const struct fuzz_reader *r, size_t n, const char *path,
				     const uint8_t *data, size_t size)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct ingest_opts o = { OL_NULL, 0, 0, 2025 };
		struct sink s;
		struct input in;

		memset(&s, 0, sizeof(s));
		s.opts = &o;
		s.path = path;
		r[i].sniff(data, size);
		if (input_open_mem(&in, "fuzz", data, size) < 0)
			return;
		r[i].parse(&in, &s);
		input_close(&in);
	}
}

#define FUZZ_TEXT_READERS(path, ...)                                          \
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                  \
{                                                                             \
	static const struct fuzz_reader readers[] = { __VA_ARGS__ };          \
                                                                              \
	fuzz_text_readers(readers, sizeof(readers) / sizeof(readers[0]), path,\
			  data, size);                                        \
	return 0;                                                             \
}

#endif
