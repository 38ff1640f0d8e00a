/*
 * pickle_stack.c -- the value stack of the pickle decoder and what is
 * built on it: MARKs, strings, containers and their items.
 *
 * A container that was placed inside another may not be filled any more,
 * which rules out cycles and keeps each object's depth exact. Streaming
 * happens here: a container the handler tagged when it was created (see
 * tag_new) has its items offered to the handler as they are added, and an
 * item the handler takes is not stored.
 */
#include "parsers/torch/pickle_internal.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the stack ---- */

/* The slow path of pd_push: grow the stack, then push. */
int pd_push_grow(struct dec *d, struct pk_val v)
{
	size_t nc = d->scap ? d->scap * 2 : 1024;
	struct pk_val *ns;

	if (nc > PK_MAX_STACK) {
		pk_release(&v);
		pd_fail(d, PK_CORRUPT, "more than %s values on the stack", "4194304");
		return -1;
	}
	if (pd_over_budget(d, (nc - d->scap) * sizeof(*ns))) {
		pk_release(&v);
		return -1;
	}
	ns = realloc(d->stk, nc * sizeof(*ns));
	if (!ns) {
		pk_release(&v);
		pd_oom(d);
		return -1;
	}
	d->stk = ns;
	d->scap = nc;
	d->stk[d->sp++] = v;
	return 0;
}

int pd_underflow(struct dec *d, size_t n)
{
	if (d->sp - pd_floor(d) < n || d->sp < n) {
		pd_fail(d, PK_CORRUPT, "%s needs more values on the stack than there are",
			pk_opname(d->op));
		return 1;
	}
	return 0;
}

long pd_pop_mark(struct dec *d)
{
	if (!d->nmarks) {
		pd_fail(d, PK_CORRUPT, "%s without a MARK", pk_opname(d->op));
		return -1;
	}
	return (long)d->marks[--d->nmarks];
}

/* ---- strings ---- */

/* A pickled str's n bytes, cleaned into sb if they are not plain ASCII
 * without NUL: CPython writes lone surrogates (surrogatepass) as ED A0..BF
 * 80..BF, one character, so one U+FFFD; other invalid UTF-8 and NUL
 * become U+FFFD too. 1 cleaned (use sb), 0 plain (use p), -1 no memory. */
static int clean_str(struct strbuf *sb, const unsigned char *p, size_t n)
{
	struct strbuf raw = STRBUF_INIT;
	size_t i, k;
	int r;

	for (i = 0; i < n; i++)
		if (p[i] >= 0x80 || p[i] == 0)
			break;
	if (i == n)
		return 0;
	if (strbuf_add(&raw, p, n) < 0) {
		strbuf_release(&raw);
		return -1;
	}
	for (k = i; k + 2 < n; k++)
		if (p[k] == 0xed && p[k + 1] >= 0xa0 && p[k + 1] <= 0xbf &&
		    p[k + 2] >= 0x80 && p[k + 2] <= 0xbf) {
			memcpy(raw.buf + k, "\xef\xbf\xbd", 3);
			k += 2;
		}
	r = strbuf_add_utf8(sb, raw.buf, raw.len) < 0 ? -1 : 1;
	strbuf_release(&raw);
	return r;
}

int pd_push_string(struct dec *d, enum pk_type t, const unsigned char *p, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	struct pk_obj *o;
	struct pk_val v;
	int r = t == PK_STR ? clean_str(&sb, p, n) : 0;

	if (r > 0) {
		p = (const unsigned char *)sb.buf;
		n = sb.len;
	}
	if (r >= 0 && n >= 4096 && pd_over_budget(d, n)) {
		strbuf_release(&sb);
		return -1;
	}
	o = r < 0 ? NULL : pd_obj_new_str(t, n);
	if (!o) {
		strbuf_release(&sb);
		pd_oom(d);
		return -1;
	}
	memcpy(o->u.str.s, p, n);
	o->u.str.s[n] = 0;
	strbuf_release(&sb);
	v.type = t;
	v.u.o = o;
	return pd_push(d, v);
}

/* ---- items ---- */

static const char *type_name(enum pk_type t)
{
	static const char *const n[] = { "None", "bool", "int", "int", "float", "str",
					  "bytes", "list", "tuple", "dict", "set" };
	return n[t];
}

/* May val (and key) go into container cv? Its depth would be the
 * returned value + 1; -1 (failed) if not. */
static int64_t check_item(struct dec *d, const struct pk_val *cv, const struct pk_val *key,
			  const struct pk_val *val)
{
	const struct pk_obj *c = cv->u.o;
	uint32_t vd = 0;

	if (!pd_is_container(cv->type) || cv->type == PK_TUPLE ||
	    (key != NULL) != (cv->type == PK_DICT)) {
		char msg[80];
		snprintf(msg, sizeof(msg), "%s onto a %s", pk_opname(d->op), type_name(cv->type));
		pd_fail(d, PK_CORRUPT, "%s: wrong type", msg);
		return -1;
	}
	if (c->parents) {
		pd_fail(d, PK_CORRUPT, "%s into a container already placed in another"
			" (recursive structures are not supported)", pk_opname(d->op));
		return -1;
	}
	if ((pd_is_obj(val->type) && val->u.o == c) ||
	    (key && pd_is_obj(key->type) && key->u.o == c)) {
		pd_fail(d, PK_CORRUPT, "%s of a container into itself", pk_opname(d->op));
		return -1;
	}
	if (pd_is_container(val->type))
		vd = val->u.o->depth;
	if (key && pd_is_container(key->type) && key->u.o->depth > vd)
		vd = key->u.o->depth;
	if (vd + 1 > PK_MAX_DEPTH) {
		pd_fail(d, PK_CORRUPT, "containers nested deeper than %s", "64");
		return -1;
	}
	return vd;
}

/* Make room for `want` more values in c. 0, or -1 (failed). */
static int reserve(struct dec *d, struct pk_obj *c, size_t want)
{
	size_t nc;
	struct pk_val *nv;

	if (c->u.c.n + want <= c->u.c.cap)
		return 0;
	nc = c->u.c.cap ? c->u.c.cap * 2 : c->type == PK_DICT ? 24 : 8;
	if (nc > 2 * (size_t)PK_MAX_ITEMS) {
		pd_fail(d, PK_CORRUPT, "a container holds more items than the limit%s", NULL);
		return -1;
	}
	if (pd_over_budget(d, (nc - c->u.c.cap) * sizeof(*nv)))
		return -1;
	nv = realloc(c->u.c.v, nc * sizeof(*nv));
	if (!nv) {
		pd_oom(d);
		return -1;
	}
	pd_account((int64_t)((nc - c->u.c.cap) * sizeof(*nv)));
	c->u.c.v = nv;
	c->u.c.cap = nc;
	return 0;
}

/* Store v in c (taking its reference); a container counts a parent. */
static void store(struct pk_obj *c, const struct pk_val *v)
{
	if (pd_is_container(v->type))
		v->u.o->parents++;
	c->u.c.v[c->u.c.n++] = *v;
}

int pd_add_item(struct dec *d, struct pk_val *cv, struct pk_val *key, struct pk_val *val)
{
	struct pk_obj *c = cv->u.o;
	int64_t vd = check_item(d, cv, key, val);

	if (vd < 0)
		goto bad;
	if (c->tag && d->h && d->h->item) {
		int r = d->h->item(d->h->ud, c->tag, c, key, val, c->u.c.count, d->op_off);
		if (r < 0) {
			d->status = PK_ABORTED;
			goto bad;
		}
		if (r == 1) {
			c->u.c.count++;
			pd_memo_forget(d, val);
			goto taken;
		}
	}
	if (reserve(d, c, key ? 2 : 1) < 0)
		goto bad;
	if (key)
		store(c, key);
	store(c, val);
	c->u.c.count++;
	if ((uint32_t)vd + 1 > c->depth)
		c->depth = (uint32_t)vd + 1;
	return 0;
taken:
	if (key)
		pk_release(key);
	pk_release(val);
	return 0;
bad:
	if (key)
		pk_release(key);
	pk_release(val);
	return -1;
}

/* ---- containers ---- */

/* Work out the slot a new container of type t is created in, and ask the
 * handler for its tag. See pickle.h (open) and docs/formats.md. */
static uint32_t tag_new(struct dec *d, enum pk_type t)
{
	size_t p = d->sp, m = pd_floor(d);
	const struct pk_val *key = NULL;
	struct pk_obj *parent = NULL;
	uint64_t index = 0;

	if (!d->h || !d->h->open)
		return 0;
	if (p == 0 && d->nmarks == 0)
		return d->h->open(d->h->ud, PK_TAG_TOP, t, NULL, 0);
	/* `dict key <new> SETITEM` (a one-item dict being filled) */
	if (p >= 2 && m <= p - 2 && d->stk[p - 2].type == PK_DICT &&
	    d->stk[p - 2].u.o->u.c.count == 0 && d->stk[p - 1].type == PK_STR) {
		parent = d->stk[p - 2].u.o;
		key = &d->stk[p - 1];
	/* `list <new> APPEND` (a one-item list being filled) */
	} else if (p >= 1 && m <= p - 1 && (d->stk[p - 1].type == PK_LIST) &&
		   d->stk[p - 1].u.o->u.c.count == 0) {
		parent = d->stk[p - 1].u.o;
	/* inside a MARK group of a dict or list */
	} else if (d->nmarks && m >= 1 && d->stk[m - 1].type == PK_DICT && (p - m) % 2 == 1) {
		parent = d->stk[m - 1].u.o;
		key = &d->stk[p - 1];
	} else if (d->nmarks && m >= 1 && d->stk[m - 1].type == PK_LIST) {
		parent = d->stk[m - 1].u.o;
		index = parent->u.c.count + (p - m);
	}
	if (!parent || !parent->tag || parent->parents)
		return 0;
	if (!key)
		index = index ? index : parent->u.c.count;
	return d->h->open(d->h->ud, parent->tag, t, key, index);
}

int pd_push_container(struct dec *d, enum pk_type t)
{
	struct pk_obj *o = pd_obj_new(t);
	struct pk_val v;

	if (!o) {
		pd_oom(d);
		return -1;
	}
	if (t != PK_TUPLE)
		o->tag = tag_new(d, t);
	v.type = t;
	v.u.o = o;
	return pd_push(d, v);
}

/* A tuple of the n values at stk[from..], which it takes over; pushed. */
static int build_tuple(struct dec *d, size_t from, size_t n)
{
	struct pk_obj *o = pd_obj_new(PK_TUPLE);
	struct pk_val v = { PK_TUPLE, { 0 } };
	uint32_t depth = 1;
	size_t i;

	if (!o)
		goto oom;
	v.u.o = o;
	if (n && o->u.c.cap < n) {
		struct pk_val *nv = realloc(o->u.c.v, n * sizeof(*nv));
		if (!nv) {
			pk_release(&v);
			goto oom;
		}
		o->u.c.v = nv;
		o->u.c.cap = n;
	}
	for (i = 0; i < n; i++) {
		o->u.c.v[i] = d->stk[from + i];
		if (pd_is_container(o->u.c.v[i].type)) {
			o->u.c.v[i].u.o->parents++;
			if (o->u.c.v[i].u.o->depth + 1 > depth)
				depth = o->u.c.v[i].u.o->depth + 1;
		}
	}
	o->u.c.n = n;
	o->u.c.count = n;
	o->depth = depth;
	d->sp = from;
	if (depth > PK_MAX_DEPTH) {
		pk_release(&v);
		pd_fail(d, PK_CORRUPT, "containers nested deeper than %s", "64");
		return -1;
	}
	return pd_push(d, v);
oom:
	pd_oom(d);
	return -1;
}

int pd_build_from(struct dec *d, size_t from, enum pk_type t)
{
	size_t n = d->sp - from, i, step = t == PK_DICT ? 2 : 1;
	struct pk_val *items;

	if (t == PK_TUPLE)
		return build_tuple(d, from, n);
	if (t == PK_DICT && n % 2) {
		pd_fail(d, PK_CORRUPT, "%s with an odd number of items", pk_opname(d->op));
		return -1;
	}
	/* take the items off the stack, make the container, add them */
	items = malloc((n ? n : 1) * sizeof(*items));
	if (!items) {
		pd_oom(d);
		return -1;
	}
	if (n)
		memcpy(items, d->stk + from, n * sizeof(*items));
	d->sp = from;
	if (pd_push_container(d, t) < 0) {
		for (i = 0; i < n; i++)
			pk_release(&items[i]);
		free(items);
		return -1;
	}
	for (i = 0; i < n; i += step) {
		int r = t == PK_DICT ? pd_add_item(d, &d->stk[d->sp - 1], &items[i], &items[i + 1])
				     : pd_add_item(d, &d->stk[d->sp - 1], NULL, &items[i]);
		if (r < 0) {
			size_t j;
			for (j = i + step; j < n; j++)
				pk_release(&items[j]);
			free(items);
			return -1;
		}
	}
	free(items);
	return 0;
}

int pd_fill_from_mark(struct dec *d, int pairs)
{
	long m = pd_pop_mark(d);
	size_t i, n, step = pairs ? 2 : 1;

	if (m < 0)
		return -1;
	if (m == 0) {
		pd_fail(d, PK_CORRUPT, "%s with no container below its MARK", pk_opname(d->op));
		return -1;
	}
	n = d->sp - (size_t)m;
	if (pairs && n % 2) {
		pd_fail(d, PK_CORRUPT, "%s with an odd number of items", pk_opname(d->op));
		return -1;
	}
	for (i = 0; i < n; i += step) {
		int r = pairs ? pd_add_item(d, &d->stk[m - 1], &d->stk[m + i], &d->stk[m + i + 1])
			      : pd_add_item(d, &d->stk[m - 1], NULL, &d->stk[m + i]);
		if (r < 0) {
			size_t j;
			for (j = i + step; j < n; j++)
				pk_release(&d->stk[m + j]);
			d->sp = (size_t)m;
			return -1;
		}
	}
	d->sp = (size_t)m;
	return 0;
}

void pd_flush_pending(struct dec *d)
{
	enum pk_status saved = d->status;

	while (d->nmarks) {
		size_t m = d->marks[d->nmarks - 1];
		if (m >= 1 && (d->stk[m - 1].type == PK_LIST || d->stk[m - 1].type == PK_DICT ||
			       d->stk[m - 1].type == PK_SET) && !d->stk[m - 1].u.o->parents) {
			if (d->stk[m - 1].type == PK_DICT && (d->sp - m) % 2)
				pk_release(&d->stk[--d->sp]);   /* a key without value */
			d->op = d->stk[m - 1].type == PK_DICT ? 'u' : 'e';
			if (pd_fill_from_mark(d, d->stk[m - 1].type == PK_DICT) < 0) {
				if (d->status == PK_ABORTED)
					return;
				break;
			}
		} else {
			while (d->sp > m)
				pk_release(&d->stk[--d->sp]);
			d->nmarks--;
		}
	}
	d->status = saved;
}
