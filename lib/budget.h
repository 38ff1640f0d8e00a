/*
 * budget.h -- the run's one memory budget (--max-memory, default 1 GiB).
 *
 * Every reader whose memory could grow with its input draws on it: the
 * pickle decoder (its decode is capped at what is left), the CUDA and host
 * core readers (a compressed core is inflated into memory only within it;
 * section tables are counted against it), the flat snapshot reader (the
 * stacks it keeps). A reader that cannot take what it needs stops reading
 * the artifact where it is, says so in an error diagnostic (the artifact
 * is then `partial`) and the run goes on with the next one.
 *
 * The report writers draw on it too: every JSON value (jansson) the
 * process holds is charged while it lives (ol_budget_json_install), and a
 * writer that holds rows in memory stops taking rows when nothing is left,
 * counts what it left out and marks the report partial (reports/).
 *
 * Draws (take/give) are process-wide and not thread-safe: one reader draws
 * at a time (the snapshot decoder thread and its caller do not both draw).
 * Charges (charge/discharge, the JSON values') are atomic: any thread.
 */
#ifndef OOMLENS_BUDGET_H
#define OOMLENS_BUDGET_H

#include <stdint.h>

#define OL_BUDGET_DEFAULT (1ull << 30)
#define OL_BUDGET_MIN (1ull << 20)

/* The budget in bytes (OL_BUDGET_DEFAULT until set). */
uint64_t ol_budget(void);
/* Set the budget (at least OL_BUDGET_MIN; smaller values are raised). */
void ol_budget_set(uint64_t bytes);
/* Bytes drawn now, and what is left of the budget (0 when spent). */
uint64_t ol_budget_held(void);
uint64_t ol_budget_left(void);
/* Draw n bytes: 0 (granted and counted), or -1 (it would pass the budget;
 * nothing counted). ol_budget_give returns what was drawn. */
int ol_budget_take(uint64_t n);
void ol_budget_give(uint64_t n);

/* 1 when less than the writers' reserve is left, else 0: where a writer
 * holding rows stops taking them. The reserve (a quarter of the budget,
 * at least 96 MiB, at most half) is left to what the process holds
 * outside the accounting (its code and libraries, SQLite's page cache,
 * stdio's and the text writers' buffers), so that the whole run stays
 * within the budget. */
int ol_budget_low(void);

/* 1 when n more bytes could be held and the budget still not be low
 * (the test a writer makes before it keeps a growing buffer), else 0. */
int ol_budget_fits(uint64_t n);

/* Charge n bytes that are held already (never refused: what is left may
 * fall to 0), and discharge them when they are freed. Thread-safe. */
void ol_budget_charge(uint64_t n);
void ol_budget_discharge(uint64_t n);

/* Charge every JSON value to the budget while it lives: jansson allocates
 * through counting functions from then on. Call once, first thing in
 * main, before any JSON value exists (values made before would be freed
 * through the counting functions too, and are merely not counted). */
void ol_budget_json_install(void);

/* The sentence readers end their budget diagnostic with, naming the
 * budget in bytes and the option that raises it. */
#define OL_BUDGET_HINT "the run's memory budget (--max-memory) is reached"

#endif
