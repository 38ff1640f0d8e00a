/*
 * series_words.h -- a memory series for people: "GPU 0's memory in use"
 * for gpu.used_bytes gpu0, "PyTorch's allocated memory on cuda:0" for
 * torch.allocated_bytes cuda:0, "the cgroup's memory in use (/kubepods..)"
 * for cgroup.current_bytes. The rules word their titles with it (a leak's
 * "GPU 0's memory in use grew ...") and the reports label series with it
 * (reports/labels.c, series_label), so a title reads the same in the
 * database and in every format, and no metric name reaches a reader where
 * words exist. Here, below both, because rules may not include reports.
 */
#ifndef OOMLENS_SERIES_WORDS_H
#define OOMLENS_SERIES_WORDS_H

#include <stddef.h>

/* The words for series name of entity (may be NULL or "") into buf[n]
 * (always NUL-terminated when n > 0); a series without words of its own
 * keeps its name and entity ("gpu.free_bytes gpu0"). Returns buf. */
const char *series_words(const char *name, const char *entity, char *buf, size_t n);

#endif
