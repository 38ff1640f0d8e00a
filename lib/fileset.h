/*
 * fileset.h -- a set of files known by identity (device and inode), each
 * with the path it was first met by.
 *
 * Ingest keeps one to walk directories without cycles and to read each
 * file once however many links lead to it; the command line asks it
 * whether an output would land on an input or inside an input folder.
 */
#ifndef OOMLENS_FILESET_H
#define OOMLENS_FILESET_H

#include <stddef.h>
#include <stdint.h>

enum { FILESET_FILE = 1, FILESET_DIR = 2 };

struct fileset_entry {
	uint64_t dev, ino;
	unsigned kind;          /* FILESET_FILE or FILESET_DIR */
	char *path;             /* the first path it was met by (owned) */
};

struct fileset {
	struct fileset_entry *slots; /* open addressing; path NULL = free */
	size_t n, cap;
};
#define FILESET_INIT { NULL, 0, 0 }

/* Add (dev, ino) met by path. Returns 1 when added, 0 when it was there
 * already (*seen, if not NULL, points at the first entry), -1 when memory
 * ran out. */
int fileset_add(struct fileset *s, uint64_t dev, uint64_t ino, unsigned kind,
		const char *path, const struct fileset_entry **seen);
/* The entry of (dev, ino), or NULL. */
const struct fileset_entry *fileset_find(const struct fileset *s, uint64_t dev, uint64_t ino);
/* Call fn on each entry (in no order) until it returns non-zero; returns that. */
int fileset_each(const struct fileset *s, int (*fn)(const struct fileset_entry *e, void *arg),
		 void *arg);
void fileset_release(struct fileset *s);

#endif
