/*
 * hashtab.h -- the open-addressing hash tables of the binary-format
 * readers, written once: a map from 64-bit keys to 64-bit values (stack
 * identities, flat stack ids, frames already sent), and backward-shift
 * deletion for the readers' own tables that keep structs in their slots
 * (the pickle memo, the snapshot model's live allocations).
 *
 * All tables use linear probing over a power-of-2 number of slots.
 */
#ifndef OOMLENS_HASHTAB_H
#define OOMLENS_HASHTAB_H

#include <stddef.h>
#include <stdint.h>

/* A well-mixed 64-bit hash (the murmur3 finalizer). */
static inline uint64_t ol_hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* key -> value; key 0 is never stored (it marks an empty slot). Zeroed
 * is an empty map. Load is kept at most 1/2. */
struct keymap {
	uint64_t *keys;
	int64_t *vals;
	size_t cap, n;
};

/* 1 and *val (if val) when key is in m, else 0. */
int keymap_get(const struct keymap *m, uint64_t key, int64_t *val);
/* Store key -> val (replacing). 0, or -1 when out of memory (m is as it
 * was) or key is 0. */
int keymap_put(struct keymap *m, uint64_t key, int64_t val);
void keymap_free(struct keymap *m);

/* A table whose slots are structs (the caller's own lookups), described
 * for probe_resize and probe_delete. */
struct probe_table {
	void *slots;
	size_t cap;                          /* slots: 0 or a power of 2 */
	size_t esz;                          /* bytes per slot */
	size_t used_off;                     /* offset of the slot's int "used" flag */
	size_t (*home)(const void *slot);    /* the slot its key hashes to, unmasked */
};

/* Move the entries of t into a new zeroed table of ncap slots (a power
 * of 2, larger than the entries): t->slots and t->cap then describe it and
 * the old slots are freed. 0, or -1 when out of memory (t unchanged). */
int probe_resize(struct probe_table *t, size_t ncap);
/* Empty slot i (its contents already released) and move later entries of
 * its probe run back so that every entry stays reachable. */
void probe_delete(const struct probe_table *t, size_t i);

#endif
