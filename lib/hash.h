/*
 * hash.h -- a fast 64-bit content hash (XXH64, seed 0), fed in pieces.
 *
 * Not cryptographic: it tells whether two artifacts hold the same bytes
 * (ingest --append skips what the database already has), at several GB/s,
 * so that hashing every byte read costs little beside parsing it. The
 * values are those of the reference XXH64, so a user can check one with
 * `xxhsum -H1 FILE`.
 */
#ifndef OOMLENS_HASH_H
#define OOMLENS_HASH_H

#include <stddef.h>
#include <stdint.h>

struct hash64 {
	uint64_t v[4];          /* the four lanes */
	uint64_t total;         /* bytes fed so far */
	unsigned char mem[32];  /* a stripe not yet complete */
	size_t memsize;
};

void hash64_init(struct hash64 *h);
void hash64_update(struct hash64 *h, const void *data, size_t n);
/* The hash of every byte fed so far; h may be fed on afterwards. */
uint64_t hash64_final(const struct hash64 *h);
/* The hash of one buffer. */
uint64_t hash64_of(const void *data, size_t n);

#endif
