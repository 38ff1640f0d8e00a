/*
 * textclean.c -- take the damage of a pasted log line off; see textclean.h.
 */
#include "parsers/common/textclean.h"

#include <stdlib.h>
#include <string.h>

/* Length of a colour escape's parameters and final byte at p (after its
 * introducer): digits, ';' and '?' then one byte in 0x40..0x7e. 0 when
 * there is none (the text is then not an escape). */
static size_t csi_tail(const char *p, const char *e)
{
	const char *q = p;

	while (q < e && ((*q >= '0' && *q <= '9') || *q == ';' || *q == '?'))
		q++;
	if (q < e && (unsigned char)*q >= 0x40 && (unsigned char)*q <= 0x7e)
		return (size_t)(q - p) + 1;
	return 0;
}

/* Length of the colour escape starting at p, or 0: ESC [ ... X, ESC X,
 * "^[[...X" (caret notation) and "#033[...X" (rsyslog's escape). */
static size_t ansi_at(const char *p, const char *e)
{
	size_t t;

	if (*p == 0x1b) {
		if (p + 1 < e && p[1] == '[')
			return (t = csi_tail(p + 2, e)) ? t + 2 : 2;
		return p + 1 < e ? 2 : 1;
	}
	if (*p == '^' && e - p >= 4 && p[1] == '[' && p[2] == '[' && (t = csi_tail(p + 3, e)))
		return t + 3;
	if (*p == '#' && e - p >= 6 && !memcmp(p, "#033[", 5) && (t = csi_tail(p + 5, e)))
		return t + 5;
	return 0;
}

const char *text_unquote(const char *l, size_t *n)
{
	const char *p = l, *e = l + *n, *q;

	if (p < e && *p == '+' && p + 1 < e && (p[1] == '>' || p[1] == '['))
		p++;
	for (;;) {
		q = p;
		while (q < e && (*q == ' ' || *q == '\t'))
			q++;
		if (q < e && *q == '>' && (q + 1 == e || q[1] == ' ' || q[1] == '>' || q[1] == '\t'))
			p = q + 1 + (q + 1 < e && (q[1] == ' ' || q[1] == '\t'));
		else
			break;
	}
	if (e - p >= 3 && !memcmp(p, "```", 3))
		p += 3;
	*n = (size_t)(e - p);
	return p;
}

int text_dirty(const char *l, size_t n, unsigned flags)
{
	const char *p = l, *e = l + n;
	size_t run = 0;

	if (flags & TC_QUOTE) {
		size_t m = n;
		if (text_unquote(l, &m) != l || (n >= 3 && !memcmp(l + n - 3, "```", 3)))
			return 1;
	}
	for (; p < e; p++) {
		if ((flags & TC_ANSI) && (*p == 0x1b || *p == '^' || *p == '#') && ansi_at(p, e))
			return 1;
		if (flags & TC_WRAP) {
			run = *p == ' ' ? run + 1 : 0;
			if (run >= TC_WRAP_RUN && p + 1 < e && p[1] != ' ')
				return 1;
		}
	}
	return 0;
}

size_t text_clean(const char *l, size_t n, char *out, size_t cap, unsigned flags)
{
	const char *p = l, *e = l + n;
	size_t o = 0, k, run;

	if (flags & TC_QUOTE) {
		p = text_unquote(l, &n);
		e = p + n;
		if (e - p >= 3 && !memcmp(e - 3, "```", 3))
			e -= 3;
	}
	while (p < e && o + 1 < cap) {
		if ((flags & TC_ANSI) && (k = ansi_at(p, e))) {
			p += k;
			continue;
		}
		if ((flags & TC_WRAP) && *p == ' ') {
			for (run = 0; p + run < e && p[run] == ' '; run++)
				;
			if (run >= TC_WRAP_RUN && p + run < e && o > 0) {
				p += run;  /* the wrap's padding: join the halves */
				continue;
			}
			while (run-- && o + 1 < cap)
				out[o++] = *p++;
			continue;
		}
		out[o++] = *p++;
	}
	out[o] = '\0';
	return o;
}

int text_words(const char *l, size_t n, char *buf, size_t bn, char **w, int max)
{
	size_t i = 0, o = 0;
	int k = 0;

	while (i < n && k < max) {
		while (i < n && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r'))
			i++;
		if (i >= n || o + 1 >= bn)
			break;
		w[k++] = buf + o;
		while (i < n && l[i] != ' ' && l[i] != '\t' && l[i] != '\r' && o + 1 < bn)
			buf[o++] = l[i++];
		buf[o++] = 0;
	}
	return k;
}

long long text_whole(const char *w)
{
	char *end;
	long long v;

	if (*w < '0' || *w > '9')
		return -1;
	v = strtoll(w, &end, 10);
	return *end ? -1 : v;
}
