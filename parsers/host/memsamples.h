/*
 * memsamples.h -- memory samples pasted as lines: a reporter's own
 * measurements of one process or device, one figure a line, with no
 * tool's format around them. What users paste to show growth: VmRSS: /
 * VmHWM: / RssAnon: lines as /proc/PID/status prints them, "resident" /
 * "RSS" / "memory" followed by a size, a training or serving log line
 * that repeats "memory: N MiB" per step or request, and small tables
 * whose header names the column (ps -o rss, top/htop RES, nvidia-smi
 * --query-gpu=memory.used csv, "req resident delta").
 *
 * Records: meta samples.series.0 = "label|per|steps|bytes": the label the
 * figures carry, what one sample is (request, iteration, step, epoch,
 * batch; "sample" when the lines do not say), the step numbers when every
 * sample carries one (comma-separated, else empty), and the figures in
 * bytes, in FILE ORDER: the lines carry no time, so the order is the
 * paste's, never a time (the rules say so). One series a file: the label
 * most lines carry. A figure needs a unit (or a header naming it); a
 * signed figure ("+126") is a delta and is skipped. A line with no such
 * figure whose label ("current", "allocated", "reserved", "memory", ...)
 * is followed at once by a bare number ("current: 0.18, peak: 2.55", as
 * a script prints TensorFlow's get_memory_info or PyTorch's
 * memory_allocated() / 1e9) is a figure whose unit is not stated: such a
 * series is kept in its own figures, never as bytes, and the value has a
 * fifth field "|unit-not-stated".
 */
#ifndef OOMLENS_MEMSAMPLES_H
#define OOMLENS_MEMSAMPLES_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* The fewest samples a paste needs to be read as a series. */
#define MEMSAMPLES_MIN 4

/* The fewest samples of a series whose every line counts the work done
 * before it ("Memory usage after 2 prediction(s): 344.785 MiB", "epoch
 * 2 ... memory 4.7 GiB"), its counts rising: three readings against a
 * counted x-axis are a short series (memsamples_counted), judged more
 * strictly and said as weaker than a long one (analyzer/rules/samples.c). */
#define MEMSAMPLES_SHORT 3

/* The most samples a series keeps (the first ones). */
#define MEMSAMPLES_MAX 256

/* A series as memsamples_parse stores it, decoded. */
struct memsamples_series {
	char label[32];          /* the label the figures carry */
	char per[16];            /* request, iteration, ..., or "sample" */
	int n;                   /* figures in v */
	int stepped;             /* 1: st[0..n) are the lines' step numbers */
	int unitless;            /* 1: the unit was not stated: v is as printed */
	double v[MEMSAMPLES_MAX];  /* bytes (or as printed when unitless), paste order */
	double st[MEMSAMPLES_MAX];
};

/* Whether n samples of steps st (-1: not numbered) make a series: n
 * >= MEMSAMPLES_MIN, or MEMSAMPLES_SHORT and more when every sample is
 * numbered and the numbers rise (a counted x-axis). */
int memsamples_counted(const double *st, int n);

/* Decode a meta samples.series.N value into *out. Returns 0, or -1 when
 * val is not of the shape memsamples_parse writes. */
int memsamples_decode(const char *val, struct memsamples_series *out);

/* How sure (0..100) that head is a paste of memory samples: 30 when at
 * least MEMSAMPLES_MIN lines and most non-blank lines carry a labelled
 * figure; low, so that any tool's own format wins. */
int memsamples_sniff(const unsigned char *head, size_t n);

/* Read the paste into meta samples.series.0. Returns the records stored
 * (>= 0), or -1 when the sink failed. */
int memsamples_parse(struct input *in, struct sink *s);

/* One memory figure a line of any log carries (memsamples_mixed.c): a
 * label of this reader's, its figure with a unit within three tokens
 * after it (the words between are part of the label: one series for
 * "memory (before request)", another for "(after request)"), the step
 * the line numbers. A label beside "max", "peak",
 * "total", "free", "limit" is not memory held and gives none. */
struct memsamples_hit {
	char label[32];          /* the label word and the words between it
				  * and its figure ("memory before request") */
	const char *per;         /* static: the step word, NULL none */
	double bytes;
	double step;             /* -1 when the line numbers none */
};

/* Whether line l (n bytes) carries such a figure: 1 and *h filled, else 0. */
int memsamples_line(const char *l, size_t n, struct memsamples_hit *h);

#endif
