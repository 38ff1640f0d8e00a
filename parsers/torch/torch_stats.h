/*
 * torch_stats.h -- torch.cuda.memory_stats() dumps printed as an
 * OrderedDict repr, pprint output, a dict or JSON; one or many, alone or
 * inside a log (a before/after pair is two dumps).
 */
#ifndef OOMLENS_TORCH_STATS_H
#define OOMLENS_TORCH_STATS_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

int torch_stats_sniff(const unsigned char *head, size_t n);
/* One torch_memory_stats event and torch.* samples per dump (entity
 * "cuda": memory_stats does not print its device). Returns the number of
 * dumps, or -1. */
int torch_stats_parse(struct input *in, struct sink *s);

#endif
