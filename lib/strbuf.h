/*
 * strbuf.h -- a growable, always NUL-terminated string (after git's strbuf).
 *
 * Invariants: buf is never NULL (an empty strbuf points at a static ""),
 * buf[len] == '\0', and alloc is 0 until the first append. A strbuf owns
 * its memory; strbuf_release() frees it and leaves an empty strbuf behind.
 * Out of memory: an append that cannot allocate returns -1, leaves the
 * contents as they were and sets the sticky flag `failed`; every later
 * append is refused (-1) until the strbuf is released. So a caller may
 * ignore the result of each append and check strbuf_failed() once, where
 * the text is used (written, stored, returned), as SQLite's sqlite3_str
 * does: a text that is used is then always complete.
 */
#ifndef OOMLENS_STRBUF_H
#define OOMLENS_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
	int failed;     /* sticky: an append could not allocate */
};

extern char strbuf_empty[];
#define STRBUF_INIT { strbuf_empty, 0, 0, 0 }

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);            /* len = 0, keeps memory and failed */
/* 1 when an append has failed since the last init/release: the text is
 * incomplete and must not be used as if it were whole. */
static inline int strbuf_failed(const struct strbuf *sb) { return sb->failed; }
/* dst is built from src's text (escaped, cut...): an incomplete src makes
 * dst incomplete too, so the one check where dst is used covers both. */
static inline void strbuf_inherit(struct strbuf *dst, const struct strbuf *src)
{
	if (src->failed)
		dst->failed = 1;
}
int strbuf_grow(struct strbuf *sb, size_t extra);
int strbuf_add(struct strbuf *sb, const void *data, size_t n);
int strbuf_addstr(struct strbuf *sb, const char *s);
int strbuf_addch(struct strbuf *sb, int c);
int strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
char *strbuf_detach(struct strbuf *sb, size_t *len); /* caller frees */
void strbuf_setlen(struct strbuf *sb, size_t len);
void strbuf_rtrim(struct strbuf *sb);

/* Escapers: append s[0..n) escaped for the destination. */
int strbuf_add_html(struct strbuf *sb, const char *s, size_t n);
int strbuf_add_md(struct strbuf *sb, const char *s, size_t n);

/* Append s[0..n) with every invalid UTF-8 sequence (and NUL) replaced by
 * U+FFFD, so that it can go into JSON or HTML. */
int strbuf_add_utf8(struct strbuf *sb, const char *s, size_t n);
/* Length of the valid UTF-8 sequence at s (n bytes left, n >= 1), or 0:
 * no overlong form, no surrogate, nothing past U+10FFFF; an ASCII byte
 * is 1, NUL 0 (the rules of jansson's decoder too). */
size_t utf8_seq_len(const unsigned char *s, size_t n);

#endif
