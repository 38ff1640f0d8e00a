/*
 * pickle_values.c -- the values of the pickle decoder: scalars inline in
 * a pk_val, strings/bytes and containers as reference-counted pk_obj.
 *
 * Allocation pools: trace entries are made and freed millions of times, so
 * freed containers (with their item arrays) and small strings are kept for
 * reuse, up to POOL_MAX each. Strings live inline after their object. The
 * pools and the serial counter are process-wide; one decode runs at a time
 * per process (the snapshot decoder thread, or the caller's).
 */
#include "parsers/torch/pickle_internal.h"
#include "lib/budget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POOL_MAX 4096
#define SMALL_STR 48
#define KEEP_ITEMS 64

uint64_t pk_budget = PK_BUDGET_DEFAULT;

static uint64_t next_serial = 1;
static int64_t live_bytes;
static struct pk_obj *cpool[POOL_MAX], *spool[POOL_MAX];
static size_t ncpool, nspool;

int64_t pd_live_bytes(void)
{
	return live_bytes;
}

void pd_account(int64_t n)
{
	live_bytes += n;
}

int pd_over_budget(struct dec *d, uint64_t more)
{
	int64_t held = live_bytes - d->live_at_start;
	uint64_t total = (held > 0 ? (uint64_t)held : 0) + more +
			 (d->mcap + d->rcap + (d->low ? PD_MEMO_LOW : 0)) * sizeof(struct memo_ent) +
			 d->scap * sizeof(struct pk_val) + d->cap;
	/* pk_budget bounds one decode; the run's budget (--max-memory) bounds
	 * it too, less what other readers hold now. */
	uint64_t cap = pk_budget < ol_budget_left() ? pk_budget : ol_budget_left();
	char msg[32];

	if (total <= cap)
		return 0;
	snprintf(msg, sizeof(msg), "%llu", (unsigned long long)cap);
	pd_fail(d, PK_CORRUPT, "the decode would hold more than its memory budget (%s "
		"bytes of items, strings and memo entries in all; --max-memory sets it); "
		"the rest of the pickle is not read, what was read before is kept", msg);
	return 1;
}

static void obj_init(struct pk_obj *o, enum pk_type t)
{
	o->refs = 1;
	o->type = t;
	o->tag = 0;
	o->depth = 1;
	o->parents = 0;
	o->shared = 0;
	o->memo = -1;
	o->serial = next_serial++;
}

struct pk_obj *pd_obj_new(enum pk_type t)
{
	struct pk_obj *o;

	if (ncpool) {
		o = cpool[--ncpool];
		o->u.c.n = 0;
		o->u.c.count = 0;
	} else {
		o = calloc(1, sizeof(*o));
		if (!o)
			return NULL;
		live_bytes += (int64_t)sizeof(*o);
	}
	obj_init(o, t);
	return o;
}

struct pk_obj *pd_obj_new_str(enum pk_type t, size_t n)
{
	struct pk_obj *o;

	if (n < SMALL_STR && nspool)
		o = spool[--nspool];
	else {
		o = malloc(sizeof(*o) + (n < SMALL_STR ? SMALL_STR : n + 1));
		if (o)
			live_bytes += (int64_t)(sizeof(*o) + (n < SMALL_STR ? SMALL_STR : n + 1));
	}
	if (!o)
		return NULL;
	obj_init(o, t);
	o->u.str.s = (char *)(o + 1);
	o->u.str.n = n;
	return o;
}

/* Free an object whose references are all gone (children released). */
static void obj_free(struct pk_obj *o)
{
	size_t i;

	if (pd_is_container(o->type)) {
		for (i = 0; i < o->u.c.n; i++)
			pk_release(&o->u.c.v[i]);
		if (o->u.c.cap <= KEEP_ITEMS && ncpool < POOL_MAX) {
			cpool[ncpool++] = o;
			return;
		}
		free(o->u.c.v);
		live_bytes -= (int64_t)(o->u.c.cap * sizeof(struct pk_val) + sizeof(*o));
		o->u.c.v = NULL;
		o->u.c.cap = 0;
	} else if (o->u.str.n < SMALL_STR && nspool < POOL_MAX) {
		spool[nspool++] = o;
		return;
	} else {
		live_bytes -= (int64_t)(sizeof(*o) + (o->u.str.n < SMALL_STR ? SMALL_STR :
						       o->u.str.n + 1));
	}
	free(o);
}

void pk_incref(const struct pk_val *v)
{
	if (pd_is_obj(v->type))
		v->u.o->refs++;
}

void pk_release(struct pk_val *v)
{
	if (pd_is_obj(v->type) && --v->u.o->refs == 0)
		obj_free(v->u.o);
	v->type = PK_NONE;
}

int64_t pk_int(const struct pk_val *v)
{
	return v->type == PK_INT || v->type == PK_BOOL ? v->u.i : OL_NULL;
}

const struct pk_val *pk_dict_get(const struct pk_obj *d, const char *key)
{
	size_t i;

	if (!d || d->type != PK_DICT)
		return NULL;
	for (i = d->u.c.n; i >= 2; i -= 2) {
		const struct pk_val *k = &d->u.c.v[i - 2];
		if (k->type == PK_STR && !strcmp(k->u.o->u.str.s, key))
			return &d->u.c.v[i - 1];
	}
	return NULL;
}
