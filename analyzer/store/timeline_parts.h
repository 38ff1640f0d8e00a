/*
 * timeline_parts.h -- internals shared by timeline.c and the domain stores
 * (timeline_*.c): the statement cache, bind helpers, and the lists of
 * domain schema parts and sink binders. Not for parsers or reports.
 */
#ifndef OOMLENS_TIMELINE_PARTS_H
#define OOMLENS_TIMELINE_PARTS_H

#include "analyzer/store/timeline.h"

/* Prepared statement for sql (a static string: cached by its address),
 * reset and unbound. NULL on error. */
sqlite3_stmt *timeline_stmt(struct timeline *tl, const char *sql);
int64_t tl_step(struct timeline *tl, sqlite3_stmt *st);
void tl_bind_int(sqlite3_stmt *st, int col, int64_t v);      /* OL_NULL -> NULL */
void tl_bind_text(sqlite3_stmt *st, int col, const char *s); /* NULL -> NULL */
void tl_bind_json(sqlite3_stmt *st, int col, json_t *j);     /* NULL -> NULL */
void tl_bind_time(sqlite3_stmt *st, int col, const struct ol_time *t); /* 3 columns */
const char *tl_clock_name(enum ol_clock c);

/* Domain stores: each adds its CREATE statements and its sink ops. */
extern const char timeline_schema_cores[];      /* timeline_cores.c */
void timeline_bind_cores(struct sink *s);
extern const char timeline_schema_snapshot[];   /* timeline_snapshot.c */
void timeline_bind_snapshot(struct sink *s);
extern const char timeline_schema_holders[];    /* timeline_holders.c */
void timeline_bind_holders(struct sink *s);

#define TIMELINE_SCHEMA_PARTS timeline_schema_cores, timeline_schema_snapshot, \
	timeline_schema_holders,
#define TIMELINE_BIND_PARTS(sink) do { \
	timeline_bind_cores(sink); \
	timeline_bind_snapshot(sink); \
	timeline_bind_holders(sink); \
	} while (0)

#endif
