/*
 * load.h -- what the program was doing when the OOM came, derived once
 * into table `oom_load` (analyzer/derive/load.c; docs/schema.md says its
 * columns): a training loop's progress (steps done of how many, whether
 * it was the first steps, the logger's peak memory over the bars) or a
 * serving engine's load (running and waiting requests and KV cache
 * usage at the OOM and at the start of the five minutes before it).
 * The serving row adds the typical running requests before the OOM and
 * the KV usage's trend over the window. Rules (progress.c, spike.c,
 * leak.c, through rules/loadrow.h) and reports read the row; none
 * recomputes it.
 */
#ifndef OOMLENS_DERIVE_LOAD_H
#define OOMLENS_DERIVE_LOAD_H

#include <sqlite3.h>

struct strbuf;

/* The steps done at most for an OOM to count as at the loop's start. */
#define LOAD_FIRST_STEPS 2
/* The window before the OOM the serving load's change is read over (s). */
#define LOAD_WINDOW_S 300

/* Drop and rebuild table oom_load from tables oom, event, series and
 * sample: at most one row, for the OOM (oom.id 1), none when it is a
 * start-up one or nothing shows the load. 0, or -1 with why in err (may
 * be NULL). */
int derive_load(sqlite3 *db, struct strbuf *err);

#endif
