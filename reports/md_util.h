/*
 * md_util.h -- escaped Markdown output of the models' values (section.h),
 * shared by the Markdown summary's sections.
 *
 * Every string from the database goes through md_text() (strbuf_add_md after
 * UTF-8 cleaning: markup characters backslash-escaped, '<' and '&' as
 * entities, newlines folded), so an artifact cannot inject links, images
 * or HTML into a ticket.
 */
#ifndef OOMLENS_MD_UTIL_H
#define OOMLENS_MD_UTIL_H

#include <jansson.h>
#include <stddef.h>

#include "lib/strbuf.h"

/* s[0..n) escaped. */
void md_text(struct strbuf *sb, const char *s, size_t n);
/* A model value escaped, as SQLite gives it as text; "-" when missing or
 * null. */
void md_val(struct strbuf *sb, const json_t *v);
/* md_val of key in row. */
void md_key(struct strbuf *sb, const json_t *row, const char *key);
/* A table row: "| " then the values of keys (NULL-terminated) joined by
 * " | " (no closing bar: the caller ends the row). */
void md_cells(struct strbuf *sb, const json_t *row, const char *const *keys);

#endif
