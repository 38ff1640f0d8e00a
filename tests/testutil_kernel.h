/*
 * testutil_kernel.h -- what the kernel OOM-report tests share: a file of
 * tests/data/kernel parsed as a kernel log, and the events' counts, their
 * JSON data's fields and the meta keys they assert on.
 */
#ifndef OOMLENS_TESTUTIL_KERNEL_H
#define OOMLENS_TESTUTIL_KERNEL_H

#include "testutil.h"

/* A timeline holding tests/data/kernel/NAME parsed as a kernel log with
 * --year year (0: none); the caller closes it. */
struct timeline *kt_load(const char *name, int year);
/* json_extract(path) of the data of the idx-th (0-based) event of kind. */
int64_t kt_jint(struct timeline *tl, const char *kind, int idx, const char *path);
const char *kt_jtext(struct timeline *tl, const char *kind, int idx, const char *path);
/* How many events of kind. */
int64_t kt_count(struct timeline *tl, const char *kind);
/* Meta key's value, "(null)" when absent (t_text's static buffer). */
const char *kt_meta(struct timeline *tl, const char *key);

#endif
