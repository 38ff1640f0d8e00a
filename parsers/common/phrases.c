/*
 * phrases.c -- a phrase set and its one-pass scan; see phrases.h.
 *
 * Phrases are chained by their first byte in the order added, so a
 * position costs one bitmap lookup of its two bytes, and a hit a walk of
 * the phrases sharing the first byte with a check of the second before
 * the full comparison.
 */
#include "parsers/common/phrases.h"

#include <string.h>

void phrases_init(struct phrases *p)
{
	memset(p, 0, sizeof(*p));
	memset(p->head, -1, sizeof(p->head));
}

int phrases_add(struct phrases *p, const char *text)
{
	size_t len = strlen(text);
	unsigned c0, pr;
	short *at;

	if (p->n >= PHRASES_MAX || len < 2)
		return -1;
	c0 = (unsigned char)text[0];
	pr = c0 << 8 | (unsigned char)text[1];
	p->text[p->n] = text;
	p->len[p->n] = len;
	p->next[p->n] = -1;
	p->pairs[pr / 64] |= 1ull << (pr % 64);
	for (at = &p->head[c0]; *at >= 0; at = &p->next[*at])
		;
	*at = (short)p->n;
	return (int)p->n++;
}

void phrases_scan(const struct phrases *p, const char *s, size_t n, struct phrases_found *out)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i;
	short k;

	memset(out, 0, sizeof(*out));
	for (i = 0; i + 1 < n; i++) {
		unsigned pr = (unsigned)u[i] << 8 | u[i + 1];
		if (!(p->pairs[pr / 64] >> (pr % 64) & 1))
			continue;
		for (k = p->head[u[i]]; k >= 0; k = p->next[k]) {
			const char *t = p->text[k];
			if ((unsigned char)t[1] != u[i + 1] || p->len[k] > n - i ||
			    memcmp(s + i + 2, t + 2, p->len[k] - 2))
				continue;
			out->bit[(unsigned)k / 64] |= 1ull << ((unsigned)k % 64);
		}
	}
}

int phrases_first(const struct phrases_found *f, int from, int to)
{
	int i;

	for (i = from; i < to; i++)
		if (phrases_has(f, i))
			return i;
	return -1;
}
