/*
 * testutil_kernel.c -- the kernel OOM-report tests' shared helpers (see
 * testutil_kernel.h): load a kernel log fixture, read its events and meta.
 */
#include "testutil_kernel.h"

#include <stdio.h>
#include <stdlib.h>

struct timeline *kt_load(const char *name, int year)
{
	struct timeline *tl = t_open();
	char rel[256];
	size_t n;
	char *text;

	snprintf(rel, sizeof(rel), "tests/data/kernel/%s", name);
	text = t_slurp(rel, &n);
	tl->opts.year = year;
	assert_true(t_parse_mem(tl, "kernel_log", name, text, n) > 0);
	free(text);
	return tl;
}

#define EV "(SELECT data FROM event WHERE kind = '%s' ORDER BY id LIMIT 1 OFFSET %d)"

int64_t kt_jint(struct timeline *tl, const char *kind, int idx, const char *path)
{
	return t_int(tl, "SELECT json_extract(" EV ", '$.%s')", kind, idx, path);
}

const char *kt_jtext(struct timeline *tl, const char *kind, int idx, const char *path)
{
	return t_text(tl, "SELECT json_extract(" EV ", '$.%s')", kind, idx, path);
}

int64_t kt_count(struct timeline *tl, const char *kind)
{
	return t_int(tl, "SELECT count(*) FROM event WHERE kind = '%s'", kind);
}

const char *kt_meta(struct timeline *tl, const char *key)
{
	return t_text(tl, "SELECT value FROM meta WHERE key = '%s'", key);
}
