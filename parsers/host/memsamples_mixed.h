/*
 * memsamples_mixed.h -- memory prints found inside a log that is mostly
 * something else: a server's "Used memory (before request): 5.65GB" per
 * request, a training loop's "mem: 1234MB" beside its loss, nvidia-smi
 * rows "memory (MB) 2796" between other output. The whole-file reader
 * (memsamples.c) takes a file only when most lines are samples; this one
 * takes the lines of any text the server-log reader reads, one at a time,
 * and keeps one series a label (memsamples_line), in file order.
 *
 * Records: meta samples.series.N, the shape memsamples_parse writes
 * ("label|per|steps|bytes"), for each label printed MEMSAMPLES_MIN times
 * at least; untimed (the lines' order), judged by analyzer/rules/samples.c.
 */
#ifndef OOMLENS_MEMSAMPLES_MIXED_H
#define OOMLENS_MEMSAMPLES_MIXED_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "parsers/host/memsamples.h"

#define MS_MIXED_LABELS 4   /* series kept a file: the first labels seen */

struct ms_mixed_series {
	char label[32];          /* memsamples_hit's */
	const char *per;         /* the first step word, NULL none */
	int n, stepped;
	double v[MEMSAMPLES_MAX], st[MEMSAMPLES_MAX];
};

struct ms_mixed {
	int n;
	struct ms_mixed_series s[MS_MIXED_LABELS];
};

/* Take one line l (n bytes) of a log. Cheap when the line states no
 * size: a 'B' (GB, MB, KB, GiB, MiB: one memchr) and a digit with a unit
 * letter after it are needed first, so a size written "1234M", "6.9Gi"
 * or "mb" alone is not taken from a mixed log (the whole-file reader,
 * memsamples.c, still takes them). */
void ms_mixed_line(struct ms_mixed *m, const char *l, size_t n);

/* Store the series of MEMSAMPLES_MIN samples at least as meta
 * samples.series.N. Returns the records stored, or -1 when the sink
 * failed. */
int ms_mixed_finish(struct ms_mixed *m, struct sink *s);

#endif
