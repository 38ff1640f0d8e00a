/*
 * html_util.h -- what the HTML report's files share: escaped output of
 * the models' values (section.h), table cells, and a generic table of an
 * r_table model.
 *
 * Rule: no byte from the database reaches the page except through
 * h_text()/h_val() (strbuf_add_html after UTF-8 cleaning), which are safe
 * in element text and in quoted attribute values alike.
 */
#ifndef OOMLENS_HTML_UTIL_H
#define OOMLENS_HTML_UTIL_H

#include <jansson.h>
#include <stdint.h>

#include "lib/strbuf.h"

/* The report's style sheet (html.c), for every page oomlens writes. */
extern const char report_html_css[];

/* Rows a table shows before "N more in the database". */
#define HTML_TABLE_CAP 200

/* s[0..n) escaped (n = (size_t)-1: strlen). NULL s appends nothing. */
void h_text(struct strbuf *sb, const char *s, size_t n);
/* A model value escaped, as SQLite gives it as text (numbers as their
 * digits); a missing or null value as a muted dash. */
void h_val(struct strbuf *sb, const json_t *v);
/* h_val of key in row. */
void h_key(struct strbuf *sb, const json_t *row, const char *key);
/* open, h_key of key in row, close: a value in its markup. */
void h_in(struct strbuf *sb, const char *open, const json_t *row, const char *key,
	  const char *close);
/* <td class=n> with the integer, or a muted dash for null. */
void h_num_td(struct strbuf *sb, const json_t *v);
/* <td class=n> with a byte count for people, the exact count in title. */
void h_bytes_td(struct strbuf *sb, const json_t *v);
/* A time: ISO 8601 UTC, else boot+seconds (marked: not on UTC), else
 * "unknown" (either may be OL_NULL). */
void h_time(struct strbuf *sb, int64_t utc_ns, int64_t boot_ns);
/* The same from a model's ISO time string (NULL when not on UTC). */
void h_time_iso(struct strbuf *sb, const char *iso, int64_t boot_ns);
/* "<p class=na>what is not available and why</p>" */
void h_na(struct strbuf *sb, const char *what);
/* "<p class=more>N more WHAT in the database.</p>" when total > shown. */
void h_more(struct strbuf *sb, int64_t total, int64_t shown, const char *what);
/* An r_table model as a table (headers = column names; columns named
 * *size*, *_bytes are shown as bytes; *_ns as times; row ids are left
 * out), then "N more in the database" when it holds more. NULL t writes
 * nothing. */
void h_table(struct strbuf *sb, const json_t *t);

#endif
