/*
 * formats.h -- the table of artifact formats oomlens reads, and detection.
 *
 * Detection looks at content, never only at a name: each format's sniff
 * scores the first bytes of a file (0 = not this format, 100 = certain),
 * and the highest score wins; when none claims the first DETECT_HEAD
 * bytes, the line logs (whose lines can start anywhere) score the first
 * DETECT_WIDE. Adding a format is one row in formats.c.
 */
#ifndef OOMLENS_FORMATS_H
#define OOMLENS_FORMATS_H

#include <stddef.h>
#include "lib/input.h"
#include "parsers/common/sink.h"

struct format {
	const char *kind;      /* stored in artifact.kind */
	const char *what;      /* one line for --help and the report */
	int (*sniff)(const unsigned char *head, size_t n);
	int (*parse)(struct input *in, struct sink *s); /* records >= 0, or -1 */
	int line_log;          /* 1: a log whose lines can share a file with other
				* line logs (a syslog holds kernel and vLLM lines) */
};

extern const struct format format_table[];

#define DETECT_HEAD (64 * 1024)
#define DETECT_WIDE INPUT_BUFSZ   /* the line logs' second look, when no format
				   * claims the head */

/* The best format for an input (reads ahead with input_peek, consumes
 * nothing), or NULL when none recognises it. */
const struct format *detect_format(struct input *in);
/* Every format that reads this input, best first, at most max: the best
 * one, and when it is a line log, every other line log that recognises
 * the input too (each reads its own lines of the file). Returns the count. */
/* At most this many formats read one file (a syslog holding kernel lines,
 * engine lines, a memory_summary table...): every line-log format. */
#define FORMATS_PER_FILE 16
int detect_formats(struct input *in, const struct format **out, int max);
const struct format *format_by_kind(const char *kind);
/* For an input no format claims: the "text" row (read whole by the server
 * reader's generic memory-failure recogniser, streamed like any line log)
 * when its head is text -- no NUL byte, few other control bytes -- and no
 * page about failures (Markdown or reStructuredText markup, a manifest's
 * table); else NULL, with why it stays unread in *why (a static string). */
const struct format *format_fallback(struct input *in, const char **why);

#endif
