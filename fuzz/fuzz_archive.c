/*
 * fuzz_archive.c -- libFuzzer harness for the archive walk
 * (analyzer/ingest/archive.c): any bytes, walked as an archive with a
 * small unpacked bound; each member is detected and read by its format's
 * parser into the null sink, as ingest does, and read again when held in
 * memory (the second-format path). Seeds: fuzz/corpus/archive (tar, tar.gz,
 * zip, a zip holding a tar.gz, made with Python's tarfile and zipfile
 * from fixtures).
 */
#include <stdint.h>
#include <string.h>

#include "analyzer/ingest/archive.h"
#include "analyzer/ingest/formats.h"
#include "lib/input.h"
#include "parsers/common/sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One member: its formats' parsers into the null sink. */
static int member(void *arg, struct ar_member *m)
{
	const struct format *fs[FORMATS_PER_FILE];
	struct sink s;
	struct input again;
	int nf, i;

	struct ingest_opts o = { OL_NULL, 0, 3600, 2025 };

	(void)arg;
	memset(&s, 0, sizeof(s));
	s.opts = &o;
	s.path = m->path;
	nf = detect_formats(m->in, fs, FORMATS_PER_FILE);
	for (i = 0; i < nf && i < 2; i++) {
		if (i == 0) {
			fs[i]->parse(m->in, &s);
		} else if (ar_member_reopen(m, &again) == 0) {
			fs[i]->parse(&again, &s);
			input_close(&again);
		}
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ar_budget b;
	struct input in;

	memset(&b, 0, sizeof(b));
	b.limit = 64u << 20;
	if (input_open_mem(&in, "fuzz.tar", data, size) < 0)
		return 0;
	ar_walk(&in, "fuzz.tar", &b, member, NULL);
	input_close(&in);
	return 0;
}
