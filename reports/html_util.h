/*
 * html_util.h -- what the HTML report's files share: escaped output of
 * database text, table cells, a generic query-to-table renderer, and the
 * section entry points (html_sections.c, svg_chart.c).
 *
 * Rule: no byte from the database reaches the page except through
 * h_text()/h_col() (strbuf_add_html after UTF-8 cleaning), which are safe
 * in element text and in quoted attribute values alike.
 */
#ifndef OOMLENS_HTML_UTIL_H
#define OOMLENS_HTML_UTIL_H

#include <sqlite3.h>
#include <stdint.h>

#include "lib/strbuf.h"

/* Rows a table shows before "N more in the database". */
#define HTML_TABLE_CAP 200

/* s[0..n) escaped (n = (size_t)-1: strlen). NULL s appends nothing. */
void h_text(struct strbuf *sb, const char *s, size_t n);
/* Column col escaped; a NULL column as a muted dash. */
void h_col(struct strbuf *sb, sqlite3_stmt *st, int col);
/* <td class=n> with the integer, or a muted dash for NULL. */
void h_num(struct strbuf *sb, sqlite3_stmt *st, int col);
/* <td class=n> with a byte count for people, the exact count in title. */
void h_bytes_td(struct strbuf *sb, sqlite3_stmt *st, int col);
/* Time cell contents from a time_ns and a boot_ns column. */
void h_time(struct strbuf *sb, sqlite3_stmt *st, int tcol, int bcol);
/* "<p class=na>what is not available and why</p>" */
void h_na(struct strbuf *sb, const char *what);
/* Every row of sql as a table (headers = column names; columns named
 * *size*, *_bytes are shown as bytes; *_ns as times), at most cap rows,
 * then a note with the rest's count (count_sql gives the total; may be
 * NULL). Returns the rows shown, or -1 when sql does not compile (e.g. a
 * domain table with other columns): nothing is written then. */
int h_table(struct strbuf *sb, sqlite3 *db, const char *sql, const char *count_sql, int cap);

/* Sections (html_sections.c). Each writes its <section>; when its data
 * is missing it says so instead of failing. */
void html_findings(struct strbuf *sb, sqlite3 *db);
void html_events(struct strbuf *sb, sqlite3 *db);
void html_tasks(struct strbuf *sb, sqlite3 *db);
void html_live_allocs(struct strbuf *sb, sqlite3 *db);
void html_segments(struct strbuf *sb, sqlite3 *db);
void html_gpu(struct strbuf *sb, sqlite3 *db);
void html_artifacts(struct strbuf *sb, sqlite3 *db);
void html_clocks(struct strbuf *sb, sqlite3 *db);    /* inside the artifacts section */
void html_unknowns(struct strbuf *sb, sqlite3 *db);

/* The timeline chart (svg_chart.c): every series on one UTC axis, OOM
 * markers and finding annotations, downsampled to min/max per pixel
 * column. Writes a <figure> (or a note when there is nothing to draw).
 * Returns the number of series drawn. */
int html_chart(struct strbuf *sb, sqlite3 *db);

#endif
