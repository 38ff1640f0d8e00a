/*
 * fileset.c -- files by device and inode, in an open-addressing table
 * kept at most half full; see fileset.h.
 */
#include "lib/fileset.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_of(const struct fileset *s, uint64_t dev, uint64_t ino)
{
	uint64_t h = (ino * 0x9E3779B97F4A7C15ull) ^ (dev * 0xC2B2AE3D27D4EB4Full);

	return (size_t)(h ^ (h >> 29)) & (s->cap - 1);
}

/* The slot holding (dev, ino), or the free one where it would go. */
static struct fileset_entry *probe(const struct fileset *s, uint64_t dev, uint64_t ino)
{
	size_t i = slot_of(s, dev, ino);

	while (s->slots[i].path && (s->slots[i].dev != dev || s->slots[i].ino != ino))
		i = (i + 1) & (s->cap - 1);
	return &s->slots[i];
}

/* Double the table (or make its first one). 0, or -1 out of memory. */
static int grow(struct fileset *s)
{
	struct fileset old = *s;
	size_t i;

	s->cap = old.cap ? old.cap * 2 : 64;
	s->slots = calloc(s->cap, sizeof(*s->slots));
	if (!s->slots) {
		*s = old;
		return -1;
	}
	for (i = 0; i < old.cap; i++)
		if (old.slots[i].path)
			*probe(s, old.slots[i].dev, old.slots[i].ino) = old.slots[i];
	free(old.slots);
	return 0;
}

int fileset_add(struct fileset *s, uint64_t dev, uint64_t ino, unsigned kind,
		const char *path, const struct fileset_entry **seen)
{
	struct fileset_entry *e;
	char *copy;

	if (s->cap && (e = probe(s, dev, ino))->path) {
		if (seen)
			*seen = e;
		return 0;
	}
	if ((s->n + 1) * 2 > s->cap && grow(s) < 0)
		return -1;
	copy = strdup(path);
	if (!copy)
		return -1;
	e = probe(s, dev, ino);
	e->dev = dev;
	e->ino = ino;
	e->kind = kind;
	e->path = copy;
	s->n++;
	return 1;
}

const struct fileset_entry *fileset_find(const struct fileset *s, uint64_t dev, uint64_t ino)
{
	const struct fileset_entry *e;

	if (!s->cap)
		return NULL;
	e = probe(s, dev, ino);
	return e->path ? e : NULL;
}

int fileset_each(const struct fileset *s, int (*fn)(const struct fileset_entry *e, void *arg),
		 void *arg)
{
	size_t i;
	int r;

	for (i = 0; i < s->cap; i++)
		if (s->slots[i].path && (r = fn(&s->slots[i], arg)) != 0)
			return r;
	return 0;
}

void fileset_release(struct fileset *s)
{
	size_t i;

	for (i = 0; i < s->cap; i++)
		free(s->slots[i].path);
	free(s->slots);
	s->slots = NULL;
	s->n = s->cap = 0;
}
