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

/* The part of a C++ frame's name between prefix and the first "::end("
 * ("torch::autograd::generated::" DivBackward0 "::apply("), as a copy;
 * NULL when it is not such a name. keep: the prefix is kept. */
static char *name_part(const char *name, const char *prefix, const char *end, int keep)
{
	size_t k = strlen(prefix);
	const char *e;

	if (!name || strncmp(name, prefix, k) || !(e = strstr(name + k, end)) ||
	    memchr(name + k, '(', (size_t)(e - name - (ptrdiff_t)k)))
		return NULL;
	return keep ? strndup(name, (size_t)(e - name)) : strndup(name + k, (size_t)(e - name) - k);
}

/* Read stack's frames into si: depth, Python frames, the user's frame,
 * the op of a C++-only stack. */
static int read_stack(struct timeline *tl, int64_t stack, struct hd_stackinfo *si)
{
	sqlite3_stmt *st = timeline_stmt(tl, sql_frames);
	int r;

	memset(si, 0, sizeof(*si));
	si->stack = stack;
	si->user = -1;
	si->line = OL_NULL;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, stack);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		const char *file = (const char *)sqlite3_column_text(st, 0);
		enum frame_kind k = frame_kind(file);
		si->python += k != FRAME_CPP;
		if (k == FRAME_CPP) {
			const char *name = (const char *)sqlite3_column_text(st, 1);
			if (!si->node)
				si->node = name_part(name, "torch::autograd::generated::", "::apply(", 0);
			if (!si->op)
				si->op = name_part(name, "at::_ops::", "::call(", 1);
		}
		if (k == FRAME_USER && si->user < 0) {
			const char *name = (const char *)sqlite3_column_text(st, 1);
			si->user = si->depth;
			si->file = strdup(file);
			si->name = name ? strdup(name) : NULL;
			if (sqlite3_column_type(st, 2) != SQLITE_NULL)
				si->line = sqlite3_column_int64(st, 2);
		}
		si->depth++;
	}
	sqlite3_reset(st);
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
	else if (si->user >= 0)
		strbuf_addf(out, "%s:%lld %s", si->file ? si->file : "?",
			    (long long)(si->line == OL_NULL ? 0 : si->line),
			    si->name ? si->name : "?");
	else if (!si->python && si->node && si->op)
		strbuf_addf(out, "C++ only: %s (%s)", si->node, si->op);
	else if (!si->python && (si->node || si->op))
		strbuf_addf(out, "C++ only: %s", si->node ? si->node : si->op);
	else if (!si->python)
		strbuf_addstr(out, "C++ only");
	else
		strbuf_addstr(out, "no user frame");
}
