/*
 * strbuf.c -- growable strings; see strbuf.h for the invariants.
 */
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char strbuf_empty[1];

void strbuf_init(struct strbuf *sb)
{
	sb->buf = strbuf_empty;
	sb->len = 0;
	sb->alloc = 0;
	sb->failed = 0;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb);
}

void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (!sb->alloc)
		return;
	sb->len = len;
	sb->buf[len] = '\0';
}

/* Make room for extra more bytes plus the NUL. Returns 0, or -1 on overflow,
 * allocation failure or an earlier failure (contents unchanged, failed set). */
int strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need, n;
	char *p;

	if (sb->failed)
		return -1;
	if (extra > (size_t)-1 / 2 - sb->len) {
		sb->failed = 1;
		return -1;
	}
	need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return 0;
	n = sb->alloc ? sb->alloc : 64;
	while (n < need)
		n = n / 2 * 3 + 16;
	p = realloc(sb->alloc ? sb->buf : NULL, n);
	if (!p) {
		sb->failed = 1;
		return -1;
	}
	if (!sb->alloc)
		p[0] = '\0';
	sb->buf = p;
	sb->alloc = n;
	return 0;
}

int strbuf_add(struct strbuf *sb, const void *data, size_t n)
{
	if (strbuf_grow(sb, n) < 0)
		return -1;
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
	return 0;
}

int strbuf_addstr(struct strbuf *sb, const char *s)
{
	return strbuf_add(sb, s, strlen(s));
}

int strbuf_addch(struct strbuf *sb, int c)
{
	char ch = (char)c;
	return strbuf_add(sb, &ch, 1);
}

int strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		sb->failed = 1;
	if (n < 0 || strbuf_grow(sb, (size_t)n) < 0)
		return -1;
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
	return 0;
}

int strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	return r;
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *p;

	if (len)
		*len = sb->len;
	if (!sb->alloc) {
		p = malloc(1);
		if (p)
			p[0] = '\0';
	} else {
		p = sb->buf;
	}
	strbuf_init(sb);
	return p;
}

void strbuf_rtrim(struct strbuf *sb)
{
	while (sb->len && (sb->buf[sb->len - 1] == ' ' || sb->buf[sb->len - 1] == '\t' ||
			   sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == '\r'))
		sb->len--;
	if (sb->alloc)
		sb->buf[sb->len] = '\0';
}

/* HTML: escape the five markup characters; drop other C0 controls but tab
 * and newline, so hostile bytes cannot change how the page parses. */
int strbuf_add_html(struct strbuf *sb, const char *s, size_t n)
{
	size_t i;
	int r = 0;

	for (i = 0; i < n && r == 0; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '<': r = strbuf_addstr(sb, "&lt;"); break;
		case '>': r = strbuf_addstr(sb, "&gt;"); break;
		case '&': r = strbuf_addstr(sb, "&amp;"); break;
		case '"': r = strbuf_addstr(sb, "&quot;"); break;
		case '\'': r = strbuf_addstr(sb, "&#39;"); break;
		default:
			if (c < 0x20 && c != '\t' && c != '\n')
				r = strbuf_addstr(sb, "\xef\xbf\xbd");
			else
				r = strbuf_addch(sb, c);
		}
	}
	return r;
}

static int is_alnum_byte(unsigned char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c >= 0x80;
}

/* Does byte i of s[0..n) change the meaning of inline Markdown text (a
 * paragraph or a table cell), so that it needs a backslash? at_start: i
 * begins a line, where block markers count. Only what would start markup
 * is escaped, so raw text stays readable: "gpu.used_bytes -> 3.5 GiB" is
 * left as it is. */
static int md_special(const char *s, size_t n, size_t i, int at_start)
{
	unsigned char c = (unsigned char)s[i], prev = i ? (unsigned char)s[i - 1] : ' ';
	unsigned char next = i + 1 < n ? (unsigned char)s[i + 1] : ' ';

	switch (c) {
	case '`': case '*': case '[': case ']': case '|': case '<':
		return 1;                       /* code, emphasis, links, cells, HTML */
	case '\\':
		return strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", next) && next;
	case '_':                               /* emphasis only at a word's edge */
		return !is_alnum_byte(prev) || !is_alnum_byte(next);
	case '~':                               /* GFM strikethrough: "~~" */
		return next == '~' || prev == '~';
	case ':':                               /* GFM autolinks: "scheme://" */
		return next == '/' && i + 2 < n && s[i + 2] == '/';
	case '#': case '>': case '+': case '-': case '=':
		return at_start;                /* headings, quotes, lists, setext */
	default:
		return 0;
	}
}

/* Markdown (GitHub, GitLab; raw text in Jira): a backslash before what
 * would start markup (md_special), "&amp;" where '&' could start an entity,
 * newlines folded to spaces, so an artifact can inject no link, image or
 * HTML and the text still reads as itself. */
int strbuf_add_md(struct strbuf *sb, const char *s, size_t n)
{
	int at_start = !sb->len || sb->buf[sb->len - 1] == '\n';
	size_t i;
	int r = 0;

	for (i = 0; i < n && r == 0; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '&' && i + 1 < n && (is_alnum_byte((unsigned char)s[i + 1]) || s[i + 1] == '#'))
			r = strbuf_addstr(sb, "&amp;");   /* it could start an entity */
		else if (c == '\n' || c == '\r' || c == '\t')
			r = strbuf_addch(sb, ' ');
		else if (c < 0x20 || c == 0x7f)
			r = strbuf_addstr(sb, "\xef\xbf\xbd");
		else if (md_special(s, n, i, at_start && i == 0))
			r = strbuf_addch(sb, '\\') ? -1 : strbuf_addch(sb, c);
		else
			r = strbuf_addch(sb, c);
	}
	return r;
}

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned cp;

	if (s[0] < 0x80)
		return s[0] ? 1 : 0;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

int strbuf_add_utf8(struct strbuf *sb, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;

	while (i < n) {
		size_t k = utf8_seq_len(p + i, n - i);
		if (k) {
			i += k;
			run += k;
			continue;
		}
		if (run && strbuf_add(sb, p + i - run, run) < 0)
			return -1;
		run = 0;
		if (strbuf_addstr(sb, "\xef\xbf\xbd") < 0)
			return -1;
		i++;
	}
	return run ? strbuf_add(sb, p + i - run, run) : 0;
}
