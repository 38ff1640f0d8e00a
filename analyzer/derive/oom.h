/*
 * oom.h -- the incident's OOMs and memory failures, derived once into
 * table `oom` (analyzer/derive/oom.c; docs/schema.md says its columns and
 * the rule that makes the row with id 1 "the OOM"). Rules and reports
 * read that table: none of them decides what "the OOM", its moment or its
 * victim is.
 */
#ifndef OOMLENS_DERIVE_OOM_H
#define OOMLENS_DERIVE_OOM_H

#include <sqlite3.h>

struct strbuf;

/* Drop and rebuild table oom (and its view oom_victim) from the store's
 * tables. 0, or -1 with why in err (may be NULL).
 * An empty table means no artifact records an OOM, a kill or a memory
 * failure (the verdict is then no_oom). */
int derive_oom(sqlite3 *db, struct strbuf *err);

#endif
