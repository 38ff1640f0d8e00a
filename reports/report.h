/*
 * report.h -- the incident report in its forms (HTML, Markdown, JSON, and
 * plain text for trackers that render no Markdown). Reports read only
 * the database, so any report can be regenerated from a .db alone. The
 * sections every form shows, and their order, are one table
 * (reports/section.h).
 */
#ifndef OOMLENS_REPORT_H
#define OOMLENS_REPORT_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>

struct strbuf;

enum report_format { REPORT_HTML, REPORT_MD, REPORT_JSON, REPORT_TEXT };

/* Parse "html", "md"/"markdown", "json", "text"/"txt". 0 or -1. */
int report_format_parse(const char *s, enum report_format *f);
/* Write the report of db to out. Returns 0, or -1 when no complete report
 * could be written; err says why. On 0, err may still say which query
 * failed (the report was written without what it would have shown), or
 * that the run's memory budget left rows out (the report is partial and
 * says so itself): the caller decides whether to tell. Nothing is
 * printed; err must not be NULL. */
int report_write(sqlite3 *db, enum report_format f, FILE *out, struct strbuf *err);

/* Compare two databases' latest snapshots by holder (grown, shrunk, new,
 * gone) and by pool (diff.c), written to out in format f; name_a and
 * name_b say where each came from. 0, or -1 with err saying why (neither
 * has holders, a query failed, the write failed). Prints nothing. */
int report_diff_write(sqlite3 *a, const char *name_a, sqlite3 *b, const char *name_b,
		      enum report_format f, FILE *out, struct strbuf *err);

/* The documented JSON object (docs/json.md); caller decrefs. Holds every
 * event in memory: for output use report_write, which streams them. */
json_t *report_json(sqlite3 *db);

#endif
