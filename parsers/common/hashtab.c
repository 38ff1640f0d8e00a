/*
 * hashtab.c -- the key map, and the resizing and backward-shift deletion
 * of struct-slot tables, of hashtab.h.
 */
#include "parsers/common/hashtab.h"

#include <stdlib.h>
#include <string.h>

/* The slot of key in keys (cap slots): where it is, or the empty slot
 * where it would go. */
static size_t slot_of(const uint64_t *keys, size_t cap, uint64_t key)
{
	size_t mask = cap - 1, i = ol_hash64(key) & mask;

	while (keys[i] && keys[i] != key)
		i = (i + 1) & mask;
	return i;
}

int keymap_get(const struct keymap *m, uint64_t key, int64_t *val)
{
	size_t i;

	if (!m->cap || !key)
		return 0;
	i = slot_of(m->keys, m->cap, key);
	if (!m->keys[i])
		return 0;
	if (val)
		*val = m->vals[i];
	return 1;
}

/* Double the map (rehashing). 0, or -1 (unchanged). */
static int grow(struct keymap *m)
{
	size_t nc = m->cap ? m->cap * 2 : 1024, i;
	uint64_t *nk = calloc(nc, sizeof(*nk));
	int64_t *nv = calloc(nc, sizeof(*nv));

	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -1;
	}
	for (i = 0; i < m->cap; i++)
		if (m->keys[i]) {
			size_t j = slot_of(nk, nc, m->keys[i]);
			nk[j] = m->keys[i];
			nv[j] = m->vals[i];
		}
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = nc;
	return 0;
}

int keymap_put(struct keymap *m, uint64_t key, int64_t val)
{
	size_t i;

	if (!key)
		return -1;
	if ((m->n + 1) * 2 > m->cap && grow(m) < 0)
		return -1;
	i = slot_of(m->keys, m->cap, key);
	if (!m->keys[i]) {
		m->keys[i] = key;
		m->n++;
	}
	m->vals[i] = val;
	return 0;
}

void keymap_free(struct keymap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

static char *slot(const struct probe_table *t, size_t i)
{
	return (char *)t->slots + i * t->esz;
}

static int *used_flag(const struct probe_table *t, size_t i)
{
	return (int *)(slot(t, i) + t->used_off);
}

int probe_resize(struct probe_table *t, size_t ncap)
{
	struct probe_table n = *t;
	size_t i, j;

	n.cap = ncap;
	n.slots = calloc(ncap, t->esz);
	if (!n.slots)
		return -1;
	for (i = 0; i < t->cap; i++)
		if (*used_flag(t, i)) {
			for (j = t->home(slot(t, i)) & (ncap - 1); *used_flag(&n, j);
			     j = (j + 1) & (ncap - 1))
				;
			memcpy(slot(&n, j), slot(t, i), t->esz);
		}
	free(t->slots);
	*t = n;
	return 0;
}

void probe_delete(const struct probe_table *t, size_t i)
{
	size_t mask = t->cap - 1, j = i, k;

	*used_flag(t, i) = 0;
	for (;;) {
		j = (j + 1) & mask;
		if (!*used_flag(t, j))
			return;
		k = t->home(slot(t, j)) & mask;
		/* can entry j move to the hole at i? */
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			memcpy(slot(t, i), slot(t, j), t->esz);
			*used_flag(t, j) = 0;
			i = j;
		}
	}
}
