/*
 * phrases.h -- which of a fixed list of phrases a text holds, in one pass.
 *
 * A recogniser that asks "does the line hold this phrase?" of a hundred
 * phrases with a memmem each reads the line a hundred times and pays
 * memmem's set-up a hundred times (parsers/serving/memfail.c did: 36,000
 * instructions a line). A phrase set is built once from the list; one
 * scan of the text then says which phrases occur in it, as a bit per
 * phrase: at each position a bitmap of the phrases' first two bytes
 * stops most, and only the phrases that begin with the byte there are
 * compared. Exact: a bit is set if and only if mem_find() would find
 * the phrase. No allocation.
 */
#ifndef OOMLENS_PHRASES_H
#define OOMLENS_PHRASES_H

#include <stddef.h>
#include <stdint.h>

#define PHRASES_MAX 1024

struct phrases {
	size_t n;
	const char *text[PHRASES_MAX];       /* static text, not copied */
	size_t len[PHRASES_MAX];
	uint64_t pairs[65536 / 64];          /* the phrases' first two bytes */
	short head[256];                     /* the first phrase of each first
					      * byte; next[] goes on, -1 ends */
	short next[PHRASES_MAX];
};

/* Which phrases a text holds: bit i of word i / 64 for phrase i. */
struct phrases_found {
	uint64_t bit[PHRASES_MAX / 64];
};

/* Empty *p. */
void phrases_init(struct phrases *p);

/* Add text (at least two bytes, kept by pointer) as the next phrase.
 * Returns its index, or -1 when the set is full or text is too short
 * (a programmer's error: the lists are constant). Indexed at once. */
int phrases_add(struct phrases *p, const char *text);

/* Fill *out with the phrases that occur in s[0..n) (s need not be
 * NUL-terminated). O(n) plus the comparisons of phrases whose first two
 * bytes are there. */
void phrases_scan(const struct phrases *p, const char *s, size_t n, struct phrases_found *out);

/* 1 when phrase i occurs in the scanned text. */
static inline int phrases_has(const struct phrases_found *f, int i)
{
	return (int)(f->bit[(unsigned)i / 64] >> ((unsigned)i % 64) & 1);
}

/* The first of phrases from..to-1 that occurs, or -1. */
int phrases_first(const struct phrases_found *f, int from, int to);

#endif
