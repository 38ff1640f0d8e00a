/*
 * memray_bin_src.c -- the bytes of a memray capture, and its sniff.
 *
 * memray writes the capture plain while it tracks, then (unless run with
 * --no-compress) replaces it by one lz4 frame (magic 04 22 4D 18) of the
 * same content when tracking ends: a process killed while tracked leaves
 * the plain form. Either way the content starts "memray\0". The frame is
 * decompressed as a stream, 64 KiB in and out at a time; LZ4F keeps the
 * window linked blocks need (at most the frame's block size, 4 MiB).
 */
#include "parsers/tools/memray_bin_internal.h"
#include "parsers/tools/memray_bin.h"

#include <lz4.h>
#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char LZ4_MAGIC[4] = { 0x04, 0x22, 0x4d, 0x18 };

int mb_src_open(struct mb_src *s, struct input *in)
{
	const unsigned char *head;
	size_t n;

	memset(s, 0, sizeof(*s));
	s->in = in;
	head = input_peek(in, 4, &n);
	s->lz4 = n >= 4 && !memcmp(head, LZ4_MAGIC, 4);
	s->obuf = malloc(MB_CHUNK);
	if (!s->obuf)
		return -1;
	if (!s->lz4)
		return 0;
	s->ibuf = malloc(MB_CHUNK);
	if (!s->ibuf || LZ4F_isError(LZ4F_createDecompressionContext(
			(LZ4F_dctx **)&s->dctx, LZ4F_VERSION))) {
		s->dctx = NULL;
		return -1;
	}
	return 0;
}

void mb_src_close(struct mb_src *s)
{
	if (s->dctx)
		LZ4F_freeDecompressionContext(s->dctx);
	free(s->ibuf);
	free(s->obuf);
	s->dctx = NULL;
	s->ibuf = s->obuf = NULL;
}

/* The next content bytes of the lz4 frame into obuf. */
static void fill_lz4(struct mb_src *s)
{
	while (!s->olen && !s->eof) {
		size_t osz = MB_CHUNK, isz;
		size_t r;

		if (s->frame_done) {
			s->eof = 1;  /* bytes after the frame are not memray's */
			break;
		}
		if (s->ipos == s->ilen) {
			ssize_t k = input_read(s->in, s->ibuf, MB_CHUNK);
			s->ioff += s->ilen;
			s->ipos = s->ilen = 0;
			if (k <= 0) {
				s->eof = 1;
				snprintf(s->err, sizeof(s->err), k < 0 ? "read error at file byte"
					 " %llu" : "the lz4 frame is cut at file byte %llu",
					 (unsigned long long)s->ioff);
				break;
			}
			s->ilen = (size_t)k;
		}
		isz = s->ilen - s->ipos;
		r = LZ4F_decompress(s->dctx, s->obuf, &osz, s->ibuf + s->ipos, &isz, NULL);
		if (LZ4F_isError(r)) {
			s->eof = 1;
			snprintf(s->err, sizeof(s->err), "the lz4 frame is corrupt near file byte"
				 " %llu (%s)", (unsigned long long)(s->ioff + s->ipos),
				 LZ4F_getErrorName(r));
			break;
		}
		s->ipos += isz;
		s->olen = osz;
		if (r == 0)
			s->frame_done = 1;
	}
}

int mb_src_fill(struct mb_src *s)
{
	if (s->eof)
		return -1;
	s->opos = s->olen = 0;
	if (s->lz4) {
		fill_lz4(s);
	} else {
		ssize_t k = input_read(s->in, s->obuf, MB_CHUNK);
		if (k <= 0) {
			s->eof = 1;
			if (k < 0)
				snprintf(s->err, sizeof(s->err), "read error at byte %llu",
					 (unsigned long long)s->off);
		} else {
			s->olen = (size_t)k;
		}
	}
	if (!s->olen)
		return -1;
	s->off++;
	return s->obuf[s->opos++];
}

int mb_read(struct mb_src *s, void *dst, size_t n)
{
	unsigned char *d = dst;

	while (n) {
		size_t k = s->olen - s->opos;
		if (!k) {
			int c = mb_src_fill(s);
			if (c < 0)
				return -1;
			if (d)
				*d++ = (unsigned char)c;
			n--;
			continue;
		}
		if (k > n)
			k = n;
		if (d) {
			memcpy(d, s->obuf + s->opos, k);
			d += k;
		}
		s->opos += k;
		s->off += k;
		n -= k;
	}
	return 0;
}

int mb_uint(struct mb_src *s, size_t n, uint64_t *v)
{
	unsigned char b[8];
	size_t i;

	if (n > 8 || mb_read(s, b, n) < 0)
		return -1;
	*v = 0;
	for (i = n; i--; )
		*v = *v << 8 | b[i];
	return 0;
}

int mb_varint(struct mb_src *s, uint64_t *v)
{
	unsigned shift = 0;
	int c;

	*v = 0;
	for (;;) {
		if ((c = mb_byte(s)) < 0)
			return -1;
		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 0;
		shift += 7;
		if (shift >= 64)
			return -1;
	}
}

int mb_svarint(struct mb_src *s, int64_t *v)
{
	uint64_t z;

	if (mb_varint(s, &z) < 0)
		return -1;
	*v = (int64_t)((z >> 1) ^ (~(z & 1) + 1));
	return 0;
}

int mb_string(struct mb_src *s, char *dst, size_t cap, uint64_t *len)
{
	uint64_t n = 0;
	int c;

	while ((c = mb_byte(s)) > 0) {
		if (dst && n + 1 < cap)
			dst[n] = (char)c;
		n++;
	}
	if (dst && cap)
		dst[n < cap ? n : cap - 1] = 0;
	if (len)
		*len = n;
	return c < 0 ? -1 : 0;
}

/* ---- sniff ---- */

static int is_memray(const unsigned char *p, size_t n)
{
	return n >= 7 && !memcmp(p, "memray", 7);
}

/* The first bytes of an lz4 frame's content, decoded from its first
 * block without allocating: 1 when they are "memray\0", 0 when they are
 * not, -1 when the head holds too little of the block to tell. */
static int lz4_head_is_memray(const unsigned char *h, size_t n)
{
	size_t hl;
	uint32_t bsz;
	char out[8];
	int k;

	if (n < 7)
		return -1;
	hl = 7 + (h[4] & 0x08 ? 8 : 0) + (h[4] & 0x01 ? 4 : 0);
	if (n < hl + 4)
		return -1;
	bsz = (uint32_t)h[hl] | (uint32_t)h[hl + 1] << 8 | (uint32_t)h[hl + 2] << 16 |
	      (uint32_t)h[hl + 3] << 24;
	if (bsz & 0x80000000u)  /* stored uncompressed */
		return n < hl + 4 + 7 ? -1 : is_memray(h + hl + 4, 7);
	if (bsz > n - hl - 4)
		return -1;
	/* the block's exact size is given, so any target is safe */
	k = LZ4_decompress_safe_partial((const char *)h + hl + 4, out, (int)bsz, 7,
					(int)sizeof(out));
	if (k < 0)
		return 0;
	return is_memray((const unsigned char *)out, (size_t)k);
}

int memray_bin_sniff(const unsigned char *head, size_t n)
{
	int r;

	if (is_memray(head, n))
		return 100;
	if (n < 4 || memcmp(head, LZ4_MAGIC, 4))
		return 0;
	r = lz4_head_is_memray(head, n);
	/* an lz4 frame whose first block the head does not hold: nothing
	 * else reads lz4, so try it as a capture */
	return r > 0 ? 100 : r < 0 ? 30 : 0;
}
