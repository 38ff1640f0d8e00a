/*
 * budget.c -- the run's memory budget: a counter of what the bounded
 * readers hold against one limit. See budget.h.
 */
#include "lib/budget.h"

static uint64_t limit = OL_BUDGET_DEFAULT;
static uint64_t held;

uint64_t ol_budget(void)
{
	return limit;
}

void ol_budget_set(uint64_t bytes)
{
	limit = bytes < OL_BUDGET_MIN ? OL_BUDGET_MIN : bytes;
}

uint64_t ol_budget_held(void)
{
	return held;
}

uint64_t ol_budget_left(void)
{
	return held < limit ? limit - held : 0;
}

int ol_budget_take(uint64_t n)
{
	if (n > ol_budget_left())
		return -1;
	held += n;
	return 0;
}

void ol_budget_give(uint64_t n)
{
	held = n < held ? held - n : 0;
}
