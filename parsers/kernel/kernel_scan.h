/*
 * kernel_scan.h -- the small text scanners shared by the two layers of the
 * kernel log parser (parsers/kernel/kernel_prefix.c, parsers/kernel_oom*.c).
 *
 * Every function works on a byte range [p, e) that need not be
 * NUL-terminated and never reads outside it; a NULL return means "not
 * there". They are static inline: they sit on the per-line hot path and
 * each caller wants them inlined as when they were file-local.
 */
#ifndef OOMLENS_KERNEL_SCAN_H
#define OOMLENS_KERNEL_SCAN_H

#include <stdint.h>
#include <string.h>

#include "parsers/common/sink.h"
#include "lib/strbuf.h"

/* Byte classes of the kernel text (ASCII only). */
static inline int is_digit(int c) { return c >= '0' && c <= '9'; }
static inline int is_space(int c) { return c == ' ' || c == '\t'; }

/* The first byte of [p, e) that is not a blank (space, tab), or e. */
static inline const char *skip_ws(const char *p, const char *e)
{
	while (p < e && is_space((unsigned char)*p))
		p++;
	return p;
}

/* Decimal integer (optional '-') at p; NULL if none. Saturates. */
static inline const char *parse_int(const char *p, const char *e, int64_t *v)
{
	int neg = 0;
	int64_t x = 0;
	const char *s;

	if (p < e && (*p == '-' || *p == '+')) {
		neg = *p == '-';
		p++;
	}
	s = p;
	while (p < e && is_digit((unsigned char)*p)) {
		if (x < (INT64_MAX - 9) / 10)
			x = x * 10 + (*p - '0');
		p++;
	}
	if (p == s)
		return NULL;
	*v = neg ? -x : x;
	return p;
}

/* First occurrence of needle in [p, e), or NULL. */
static inline const char *find(const char *p, const char *e, const char *needle)
{
	size_t n = strlen(needle);
	if (p >= e)
		return NULL;
	return memmem(p, (size_t)(e - p), needle, n);
}

/* Last occurrence of needle in [p, e). */
static inline const char *rfind(const char *p, const char *e, const char *needle)
{
	size_t n = strlen(needle);
	const char *q;

	if ((size_t)(e - p) < n)
		return NULL;
	for (q = e - n; q >= p; q--)
		if (!memcmp(q, needle, n))
			return q;
	return NULL;
}

/* Does [p, e) start with lit? */
static inline int starts(const char *p, const char *e, const char *lit)
{
	size_t n = strlen(lit);
	return (size_t)(e - p) >= n && !memcmp(p, lit, n);
}

/* The integer following key (e.g. "total-vm:") in [p, e), or OL_NULL. */
static inline int64_t key_int(const char *p, const char *e, const char *key)
{
	const char *k = find(p, e, key);
	int64_t v;

	if (!k)
		return OL_NULL;
	k = skip_ws(k + strlen(key), e);
	return parse_int(k, e, &v) ? v : OL_NULL;
}

/* Copy [p, e) into dst (size n), trimmed, as valid UTF-8 (bad bytes
 * become U+FFFD), cut at a character boundary, always terminated. */
static inline void copy_str(char *dst, size_t n, const char *p, const char *e)
{
	size_t k, i;

	while (p < e && is_space((unsigned char)*p))
		p++;
	while (e > p && is_space((unsigned char)e[-1]))
		e--;
	k = (size_t)(e - p);
	for (i = 0; i < k; i++)
		if ((unsigned char)p[i] >= 0x80 || !p[i])
			break;
	if (i < k) {   /* not plain ASCII: validate */
		struct strbuf sb = STRBUF_INIT;
		if (strbuf_add_utf8(&sb, p, k < 4 * n ? k : 4 * n) == 0) {
			k = sb.len < n ? sb.len : n - 1;
			while (k && k < sb.len && ((unsigned char)sb.buf[k] & 0xc0) == 0x80)
				k--;
			memcpy(dst, sb.buf, k);
			dst[k] = '\0';
			strbuf_release(&sb);
			return;
		}
		strbuf_release(&sb);
		k = 0;
	}
	if (k >= n)
		k = n - 1;
	memcpy(dst, p, k);
	dst[k] = '\0';
}

#endif
