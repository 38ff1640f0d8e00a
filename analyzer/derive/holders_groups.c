/*
 * holders_groups.c -- allocations grouped into holders by (kind, stack),
 * the holders ranked, and what each holder's stack says: its depth, its
 * Python frames and the user's frame (lib/userframe.h), read once per
 * stack from the frame table. See holders.h.
 */
#include "analyzer/derive/holders.h"
#include "analyzer/store/timeline_parts.h"
#include "lib/strbuf.h"
#include "lib/userframe.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static size_t group_slot(const struct hd_groups *gs, int kind, int64_t stack)
{
	size_t mask = gs->nslots - 1;
	size_t i = mix((uint64_t)stack * 4 + (uint64_t)kind) & mask;

	while (gs->slot[i]) {
		const struct hd_group *g = &gs->g[gs->slot[i] - 1];
		if (g->kind == kind && g->stack == stack)
			break;
		i = (i + 1) & mask;
	}
	return i;
}

/* Double the slots (load kept under 1/2). 0 or -1. */
static int rehash(struct hd_groups *gs)
{
	size_t *old = gs->slot, on = gs->nslots, i;

	gs->nslots = on ? on * 2 : 256;
	if (!(gs->slot = calloc(gs->nslots, sizeof(*gs->slot)))) {
		gs->slot = old;
		gs->nslots = on;
		return -1;
	}
	for (i = 0; i < gs->n; i++)
		gs->slot[group_slot(gs, gs->g[i].kind, gs->g[i].stack)] = i + 1;
	free(old);
	return 0;
}

struct hd_group *hg_get(struct hd_groups *gs, int kind, int64_t stack)
{
	struct hd_group *g;
	size_t i;

	if ((gs->n + 1) * 2 > gs->nslots && rehash(gs) < 0)
		return NULL;
	i = group_slot(gs, kind, stack);
	if (gs->slot[i])
		return &gs->g[gs->slot[i] - 1];
	if (gs->n == gs->cap) {
		size_t nc = gs->cap ? gs->cap * 2 : 64;
		struct hd_group *ng = realloc(gs->g, nc * sizeof(*ng));
		if (!ng)
			return NULL;
		gs->g = ng;
		gs->cap = nc;
	}
	g = &gs->g[gs->n];
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	g->stack = stack;
	g->band = HD_BANDS;
	g->holder = OL_NULL;
	gs->slot[i] = ++gs->n;
	return g;
}

void hg_free(struct hd_groups *gs)
{
	size_t i;

	for (i = 0; i < gs->n; i++)
		json_decref(gs->g[i].annots);
	free(gs->g);
	free(gs->slot);
	memset(gs, 0, sizeof(*gs));
}

static int cmp_rank(const void *a, const void *b, void *arg)
{
	const struct hd_group *g = arg, *x = &g[*(const size_t *)a], *y = &g[*(const size_t *)b];

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

size_t *hg_ranked(const struct hd_groups *gs)
{
	size_t *r = malloc((gs->n ? gs->n : 1) * sizeof(*r)), i;

	if (!r)
		return NULL;
	for (i = 0; i < gs->n; i++)
		r[i] = i;
	qsort_r(r, gs->n, sizeof(*r), cmp_rank, gs->g);
	return r;
}

/* ---- stacks ---- */

static const char sql_frames[] =
	"SELECT file, name, line FROM frame WHERE stack_id = ? ORDER BY idx";

/* Read stack's frames into si: depth, Python frames, the user's frame,
 * the op of a C++-only stack (lib/userframe.h's one rule picks them). */
static int read_stack(struct timeline *tl, int64_t stack, struct hd_stackinfo *si)
{
	sqlite3_stmt *st = timeline_stmt(tl, sql_frames);
	struct userframe_stack u;
	int r;

	memset(si, 0, sizeof(*si));
	si->stack = stack;
	si->user = -1;
	si->line = OL_NULL;
	if (!st)
		return -1;
	userframe_stack_init(&u);
	sqlite3_bind_int64(st, 1, stack);
	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		if (userframe_stack_add(&u, (const char *)sqlite3_column_text(st, 0),
					(const char *)sqlite3_column_text(st, 1),
					sqlite3_column_type(st, 2) == SQLITE_NULL ? OL_NULL
					: sqlite3_column_int64(st, 2)) < 0) {
			sqlite3_reset(st);
			userframe_stack_release(&u);
			return tl_fail(tl, "out of memory reading a stack");
		}
	sqlite3_reset(st);
	si->depth = u.depth;
	si->python = u.python;
	si->user = u.user;
	si->file = u.file;
	si->name = u.name;
	si->line = u.line;
	si->node = u.node;
	si->op = u.op;
	return r == SQLITE_DONE ? 0 : tl_fail(tl, sqlite3_errmsg(tl->db));
}

const struct hd_stackinfo *hs_get(struct hd_stacks *ss, struct timeline *tl, int64_t stack)
{
	size_t i;

	if (stack == OL_NULL)
		return NULL;
	/* few stacks per snapshot are written: a scan is enough */
	for (i = ss->n; i-- > 0;)
		if (ss->s[i].stack == stack)
			return &ss->s[i];
	if (ss->n == ss->cap) {
		size_t nc = ss->cap ? ss->cap * 2 : 64;
		struct hd_stackinfo *ns = realloc(ss->s, nc * sizeof(*ns));
		if (!ns)
			return NULL;
		ss->s = ns;
		ss->cap = nc;
	}
	if (read_stack(tl, stack, &ss->s[ss->n]) < 0)
		return NULL;
	return &ss->s[ss->n++];
}

void hs_free(struct hd_stacks *ss)
{
	size_t i;

	for (i = 0; i < ss->n; i++) {
		free(ss->s[i].file);
		free(ss->s[i].name);
		free(ss->s[i].node);
		free(ss->s[i].op);
	}
	free(ss->s);
	memset(ss, 0, sizeof(*ss));
}

void hd_label(const struct hd_group *g, const struct hd_stackinfo *si, int64_t others,
	      struct strbuf *out)
{
	switch (g->kind) {
	case HK_NO_STACK:
		strbuf_addstr(out, "no stack recorded");
		return;
	case HK_NOT_IN_TRACE:
		strbuf_addstr(out, "allocated before the trace");
		return;
	case HK_OTHER:
		strbuf_addf(out, "%lld more stacks", (long long)others);
		return;
	default:
		break;
	}
	if (!si)
		strbuf_addstr(out, "stack unreadable");
	else {
		struct userframe_stack u = { si->depth, si->python, si->user, si->file, si->name,
					     si->line, si->node, si->op };
		userframe_stack_label(&u, out);
	}
}
