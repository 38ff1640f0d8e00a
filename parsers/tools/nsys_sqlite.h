/*
 * nsys_sqlite.h -- an Nsight Systems SQLite export (`nsys export --type
 * sqlite`, or `nsys stats`' own .sqlite) read in place, read-only: the
 * cards and their memory, the capture's UTC start, the CUDA memory-usage
 * events (with --cuda-memory-usage=true) as a series per card, and the
 * cudaMalloc/cuMemAlloc calls that failed.
 */
#ifndef OOMLENS_NSYS_SQLITE_H
#define OOMLENS_NSYS_SQLITE_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

int nsys_sqlite_sniff(const unsigned char *head, size_t n);
/* Records stored (events and samples), or -1 (the store failed, or the
 * file is not a database SQLite can open: said in a diagnostic). */
int nsys_sqlite_parse(struct input *in, struct sink *s);

#endif
