/*
 * report.h -- the incident report in its three forms. Reports read only
 * the database, so any report can be regenerated from a .db alone.
 */
#ifndef OOMLENS_REPORT_H
#define OOMLENS_REPORT_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>

enum report_format { REPORT_HTML, REPORT_MD, REPORT_JSON };

/* Parse "html", "md"/"markdown", "json". 0 or -1. */
int report_format_parse(const char *s, enum report_format *f);
/* Write the report of db to out. Returns 0, or -1 (message on stderr). */
int report_write(sqlite3 *db, enum report_format f, FILE *out);

/* The documented JSON object (docs/json.md); caller decrefs. Holds every
 * event in memory: for output use report_json_write, which streams. */
json_t *report_json(sqlite3 *db);
/* The same object written to out, the events row by row (bounded memory
 * whatever their number). 0 or -1. */
int report_json_write(sqlite3 *db, FILE *out);
int report_html(sqlite3 *db, FILE *out);
int report_markdown(sqlite3 *db, FILE *out);

#endif
