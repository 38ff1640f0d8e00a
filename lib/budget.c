/*
 * budget.c -- the run's memory budget: a counter of what the bounded
 * readers hold (draws) and of what the JSON values hold (charges) against
 * one limit. See budget.h.
 */
#include "lib/budget.h"

#include <jansson.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>

static uint64_t limit = OL_BUDGET_DEFAULT;
static uint64_t held;
static _Atomic uint64_t charged;

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
	return held + atomic_load_explicit(&charged, memory_order_relaxed);
}

uint64_t ol_budget_left(void)
{
	uint64_t h = ol_budget_held();

	return h < limit ? limit - h : 0;
}

/* What the writers leave to the process's memory outside the accounting:
 * a quarter of the budget, at least 96 MiB (the code and libraries mapped,
 * about 45 MiB, SQLite's 16 MiB cache, stdio's and the writers' buffers,
 * malloc's own slack), but never more than half of it. */
static uint64_t reserve(void)
{
	uint64_t r = limit / 4;

	if (r < (96ull << 20))
		r = 96ull << 20;
	return r > limit / 2 ? limit / 2 : r;
}

int ol_budget_low(void)
{
	return ol_budget_left() < reserve();
}

int ol_budget_fits(uint64_t n)
{
	uint64_t left = ol_budget_left();

	return n <= left && left - n >= reserve();
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

void ol_budget_charge(uint64_t n)
{
	atomic_fetch_add_explicit(&charged, n, memory_order_relaxed);
}

void ol_budget_discharge(uint64_t n)
{
	uint64_t c = atomic_load_explicit(&charged, memory_order_relaxed);

	/* never below 0: a value made before the install is freed uncounted */
	while (!atomic_compare_exchange_weak_explicit(&charged, &c, n < c ? c - n : 0,
						      memory_order_relaxed, memory_order_relaxed))
		;
}

/* jansson's allocations, counted by what malloc really gave (its usable
 * size, so that no header is needed and a pointer from plain malloc can
 * still be freed here). */
static void *json_budget_malloc(size_t n)
{
	void *p = malloc(n);

	if (p)
		ol_budget_charge(malloc_usable_size(p));
	return p;
}

static void json_budget_free(void *p)
{
	if (p)
		ol_budget_discharge(malloc_usable_size(p));
	free(p);
}

void ol_budget_json_install(void)
{
	json_set_alloc_funcs(json_budget_malloc, json_budget_free);
}
