/*
 * pickle_read.c -- the byte stream of the pickle decoder: a growable
 * buffer over struct input (so an opcode's argument is always contiguous),
 * checks on lengths read from the file, protocol 0's text lines and their
 * escaped strings, and LONG1/LONG4 integers.
 */
#include "parsers/torch/pickle_internal.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* The slow path of pd_need: move what is left to the front, grow the
 * buffer to n if needed, read until n bytes are there or the input ends. */
int pd_need_more(struct dec *d, size_t n)
{
	if (d->end - d->pos >= n)
		return 0;
	if (d->pos) {
		memmove(d->buf, d->buf + d->pos, d->end - d->pos);
		d->end -= d->pos;
		d->base += d->pos;
		d->pos = 0;
	}
	if (n > d->cap) {
		size_t nc = d->cap;
		unsigned char *nb;
		while (nc < n)
			nc *= 2;
		nb = realloc(d->buf, nc);
		if (!nb)
			return -1;
		d->buf = nb;
		d->cap = nc;
	}
	while (d->end < n && !d->eof) {
		ssize_t r = input_read(d->in, d->buf + d->end, d->cap - d->end);
		if (r <= 0) {
			d->eof = 1;
			break;
		}
		d->end += (size_t)r;
	}
	return d->end - d->pos >= n ? 0 : -1;
}

int pd_len_ok(struct dec *d, uint64_t n)
{
	if (n > PK_MAX_STRING)
		return 0;
	if (!d->in->compressed && d->in->size &&
	    n > d->in->size - (d->base + d->pos < d->in->size ? d->base + d->pos : d->in->size))
		return 0;
	return 1;
}

int pd_read_line(struct dec *d, char *out, size_t outsz)
{
	size_t n = 1;
	unsigned char *nl;

	for (;;) {
		if (pd_need(d, n) < 0)
			return -2;
		nl = memchr(d->buf + d->pos, '\n', d->end - d->pos);
		if (nl)
			break;
		if (d->end - d->pos >= outsz) {
			pd_fail(d, PK_CORRUPT, "%s argument line too long", pk_opname(d->op));
			return -1;
		}
		n = d->end - d->pos + 1;
	}
	n = (size_t)(nl - (d->buf + d->pos));
	if (n >= outsz) {
		pd_fail(d, PK_CORRUPT, "%s argument line too long", pk_opname(d->op));
		return -1;
	}
	memcpy(out, d->buf + d->pos, n);
	out[n] = 0;
	d->pos += n + 1;
	return (int)n;
}

/* ---- integers ---- */

struct pk_val pd_long_value(const unsigned char *p, uint64_t n)
{
	struct pk_val v;
	uint64_t u = 0;
	int neg = n && (p[n - 1] & 0x80);
	uint64_t i, sig = n;

	/* drop redundant sign-extension bytes */
	while (sig > 1 && p[sig - 1] == (neg ? 0xff : 0x00) &&
	       ((p[sig - 2] & 0x80) != 0) == neg)
		sig--;
	if (sig > 8) {
		v.type = PK_BIGINT;
		v.u.i = (int64_t)n;
		return v;
	}
	for (i = 0; i < 8; i++)
		u |= (uint64_t)(i < sig ? p[i] : (neg ? 0xff : 0)) << (8 * i);
	v.type = PK_INT;
	memcpy(&v.u.i, &u, sizeof(u));
	return v;
}

/* ---- protocol 0 text strings ---- */

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Append code point cp as UTF-8 (surrogates and out-of-range: U+FFFD). */
static int add_cp(struct strbuf *sb, uint32_t cp)
{
	char u[4];

	if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		cp = 0xfffd;
	if (cp < 0x80)
		return strbuf_addch(sb, (int)cp);
	if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		return strbuf_add(sb, u, 2);
	}
	if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		return strbuf_add(sb, u, 3);
	}
	u[0] = (char)(0xf0 | (cp >> 18));
	u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	u[3] = (char)(0x80 | (cp & 0x3f));
	return strbuf_add(sb, u, 4);
}

int pd_unescape_raw_unicode(struct strbuf *sb, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\\' && i + 1 < n && (s[i + 1] == 'u' || s[i + 1] == 'U')) {
			size_t k = s[i + 1] == 'u' ? 4 : 8, j;
			uint32_t cp = 0;
			if (i + 2 + k <= n) {
				for (j = 0; j < k && hexval(s[i + 2 + j]) >= 0; j++)
					cp = cp * 16 + (uint32_t)hexval(s[i + 2 + j]);
				if (j == k) {
					if (add_cp(sb, cp) < 0)
						return -1;
					i += 2 + k;
					continue;
				}
			}
		}
		if (add_cp(sb, c) < 0)
			return -1;
		i++;
	}
	return 0;
}

int pd_unescape_string(struct strbuf *sb, const char *s, size_t n)
{
	struct strbuf raw = STRBUF_INIT;
	size_t i = 0;
	int r;

	while (i < n) {
		int c = (unsigned char)s[i++];
		if (c == '\\' && i < n) {
			int e = s[i++];
			switch (e) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case '0': c = 0; break;
			case 'x':
				if (i + 2 <= n && hexval(s[i]) >= 0 && hexval(s[i + 1]) >= 0) {
					c = hexval(s[i]) * 16 + hexval(s[i + 1]);
					i += 2;
				}
				break;
			default: c = e; break;
			}
		}
		if (strbuf_addch(&raw, c) < 0) {
			strbuf_release(&raw);
			return -1;
		}
	}
	r = strbuf_add(sb, raw.buf, raw.len);
	strbuf_release(&raw);
	return r;
}
