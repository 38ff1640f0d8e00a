/*
 * fuzz_memfail.c -- libFuzzer harness for the generic memory-failure
 * recogniser (parsers/serving/memfail.c): each line of the input through
 * memfail_line(), memfail_continues() onto the failure before it, and
 * the phase readers; the whole input as one text through
 * memfail_phase_hint(), as a traceback is. Checks what the recogniser
 * promises: a family and a wording on a hit, figures -1 or sane.
 */
#include "parsers/serving/memfail.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The promises, checked (the fuzz build keeps assert(): CMakeLists.txt
 * drops NDEBUG there). */
#define CHECK(c) assert(c)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *nl;
	struct memfail f, held;
	int have = 0;

	memset(&held, 0, sizeof(held));
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (have && memfail_continues(p, (size_t)(nl - p), &held))
			continue;
		if (memfail_line(p, (size_t)(nl - p), &f)) {
			CHECK(f.family > MF_NONE && f.family < MF__COUNT && f.wording);
			CHECK(f.device >= -1 && f.phase < OOM_PHASE__COUNT);
			CHECK(strcmp(memfail_family_name(f.family), "none"));
			held = f;
			have = 1;
		}
		(void)memfail_phase_line(p, (size_t)(nl - p));
	}
	(void)memfail_phase_hint((const char *)data, size);
	return 0;
}
