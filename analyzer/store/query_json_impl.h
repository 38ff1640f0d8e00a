/*
 * query_json_impl.h -- what the JSON text writer (query_json.c) and its
 * reader of stored JSON (query_json_scan.c) share: the text buffer's
 * inline appends, the separators, jansson's escapes, the UTF-8 rule and
 * the key set of a row. Not for other callers: they use query.h.
 */
#ifndef OOMLENS_QUERY_JSON_IMPL_H
#define OOMLENS_QUERY_JSON_IMPL_H

#include "analyzer/store/query.h"

#include <string.h>

/* Room for n more bytes at w->buf + w->len (the buffer grown), or NULL
 * when out of memory (w->failed then set). */
char *jw_grow(struct q_jw *w, size_t n);

static inline char *jw_need(struct q_jw *w, size_t n)
{
	return w->cap - w->len >= n ? w->buf + w->len : jw_grow(w, n);
}

static inline void jw_put(struct q_jw *w, const char *s, size_t n)
{
	char *p = jw_need(w, n);

	if (p) {
		memcpy(p, s, n);
		w->len += n;
	}
}

static inline void jw_putc(struct q_jw *w, char c)
{
	char *p = jw_need(w, 1);

	if (p) {
		*p = c;
		w->len++;
	}
}

/* A newline and the indentation of depth d (jansson's dump_indent). */
void jw_newline(struct q_jw *w, int d);

/* What comes before a member or an element of the open container. */
static inline void jw_sep(struct q_jw *w)
{
	int d = w->depth;

	if (d <= 0 || d > Q_JW_DEPTH)
		return;
	if (w->members[d - 1])
		jw_putc(w, ',');
	w->members[d - 1] = 1;
	if (w->indent)
		jw_newline(w, d);
}

/* ": " (":" compact) after a key. */
static inline void jw_colon(struct q_jw *w)
{
	if (w->indent)
		jw_put(w, ": ", 2);
	else
		jw_putc(w, ':');
}

/* Byte classes of text: 0 copied, 1 escaped short, 2 escaped \u00XX,
 * 3 NUL, 4 the lead of a multi-byte sequence (or an invalid byte). */
extern const unsigned char jw_text_class[256];

/* The escape of an ASCII character < 0x20, '"' or '\\' at p (jansson's
 * forms: the short ones, else \u00XX in capitals); its length (2 or 6). */
size_t jw_escape(char *p, unsigned char c);

/* v (finite) as jansson prints a real at precision 12. */
void jw_real(struct q_jw *w, double v);

/* Start the key set of a new row. */
void jw_keys_new_row(struct q_jw *w);
/* Record the key just written at buf[off, off + len) for object obj of
 * the current row: 0, or -1 when that object has it already (or the row
 * has too many keys to tell). */
int jw_key_add(struct q_jw *w, uint32_t obj, size_t off, size_t len);

/* The JSON text s[0, n) (a column's), written as jansson would dump what
 * json_loads(s, 0) makes of it: with merge, the members of its object
 * into the open object (key set 0, the row's); else as one value, an
 * object or an array. 0, or -1 for text this cannot vouch for (the row
 * then goes through jansson). */
int jw_scan_json(struct q_jw *w, const unsigned char *s, size_t n, int merge);

#endif
