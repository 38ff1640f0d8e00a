/*
 * hash.c -- XXH64 (Yann Collet's xxHash, 64-bit, seed 0) fed in pieces;
 * see hash.h. Four lanes take a 32-byte stripe each round; the tail and
 * the final mix follow the reference algorithm step for step.
 */
#include "lib/hash.h"

#include <string.h>

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static inline uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

/* Little-endian loads whatever the host's order. */
static inline uint64_t le64(const unsigned char *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
	       (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
	       (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

static inline uint64_t le32(const unsigned char *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
	       (uint64_t)p[3] << 24;
}

static inline uint64_t round64(uint64_t acc, uint64_t in)
{
	acc += in * P2;
	return rotl(acc, 31) * P1;
}

static inline uint64_t merge64(uint64_t acc, uint64_t v)
{
	acc ^= round64(0, v);
	return acc * P1 + P4;
}

void hash64_init(struct hash64 *h)
{
	memset(h, 0, sizeof(*h));
	h->v[0] = P1 + P2;
	h->v[1] = P2;
	h->v[2] = 0;
	h->v[3] = 0 - P1;
}

/* One 32-byte stripe into the lanes. */
static inline void stripe(uint64_t v[4], const unsigned char *p)
{
	v[0] = round64(v[0], le64(p));
	v[1] = round64(v[1], le64(p + 8));
	v[2] = round64(v[2], le64(p + 16));
	v[3] = round64(v[3], le64(p + 24));
}

void hash64_update(struct hash64 *h, const void *data, size_t n)
{
	const unsigned char *p = data, *end = p + n;

	h->total += n;
	if (h->memsize + n < 32) {
		memcpy(h->mem + h->memsize, p, n);
		h->memsize += n;
		return;
	}
	if (h->memsize) {
		size_t k = 32 - h->memsize;
		memcpy(h->mem + h->memsize, p, k);
		stripe(h->v, h->mem);
		p += k;
		h->memsize = 0;
	}
	if (end - p >= 32) {
		/* The lanes in locals: through h->v the compiler would store
		 * them after every stripe (p may point into *h). */
		uint64_t v[4] = { h->v[0], h->v[1], h->v[2], h->v[3] };
		do {
			stripe(v, p);
			p += 32;
		} while (end - p >= 32);
		memcpy(h->v, v, sizeof(v));
	}
	memcpy(h->mem, p, (size_t)(end - p));
	h->memsize = (size_t)(end - p);
}

uint64_t hash64_final(const struct hash64 *h)
{
	const unsigned char *p = h->mem, *end = p + h->memsize;
	uint64_t r;

	if (h->total >= 32) {
		r = rotl(h->v[0], 1) + rotl(h->v[1], 7) + rotl(h->v[2], 12) + rotl(h->v[3], 18);
		r = merge64(r, h->v[0]);
		r = merge64(r, h->v[1]);
		r = merge64(r, h->v[2]);
		r = merge64(r, h->v[3]);
	} else {
		r = P5;
	}
	r += h->total;
	for (; end - p >= 8; p += 8)
		r = rotl(r ^ round64(0, le64(p)), 27) * P1 + P4;
	if (end - p >= 4) {
		r = rotl(r ^ le32(p) * P1, 23) * P2 + P3;
		p += 4;
	}
	for (; p < end; p++)
		r = rotl(r ^ *p * P5, 11) * P1;
	r ^= r >> 33;
	r *= P2;
	r ^= r >> 29;
	r *= P3;
	r ^= r >> 32;
	return r;
}

uint64_t hash64_of(const void *data, size_t n)
{
	struct hash64 h;

	hash64_init(&h);
	hash64_update(&h, data, n);
	return hash64_final(&h);
}
