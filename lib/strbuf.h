/*
 * strbuf.h -- a growable, always NUL-terminated string (after git's strbuf).
 *
 * Invariants: buf is never NULL (an empty strbuf points at a static ""),
 * buf[len] == '\0', and alloc is 0 until the first append. A strbuf owns
 * its memory; strbuf_release() frees it and leaves an empty strbuf behind.
 * Appends that cannot allocate return -1 and leave the contents unchanged.
 */
#ifndef OOMLENS_STRBUF_H
#define OOMLENS_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

extern char strbuf_empty[];
#define STRBUF_INIT { strbuf_empty, 0, 0 }

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);            /* len = 0, keeps memory */
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

#endif
