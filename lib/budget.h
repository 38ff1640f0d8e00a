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
 * The accounting is process-wide and not thread-safe: one reader draws at
 * a time (the snapshot decoder thread and its caller do not both draw).
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

/* The sentence readers end their budget diagnostic with, naming the
 * budget in bytes and the option that raises it. */
#define OL_BUDGET_HINT "the run's memory budget (--max-memory) is reached"

#endif
