/*
 * input_hash.c -- the content hash of a whole input (input_hash(), see
 * input.h): what was read was hashed as it came (input.c); what the
 * parser left unread is read to the end, or a plain file hashed afresh
 * (whole, or sampled where it is large).
 */
#include "lib/input.h"
#include "lib/input_internal.h"
#include "lib/hash_async.h"

#include <errno.h>
#include <unistd.h>

/* pread n bytes at off into buf, whole (short only at the end of the
 * file). The count, or -1 with in->error set. */
static ssize_t pread_full(struct input *in, unsigned char *buf, size_t n, uint64_t off)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = pread(in->fd, buf + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			in->error = errno;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* The hash of a plain file read afresh from offset 0, or (sampled) of its
 * size and INPUT_HASH_SAMPLES blocks spread over it, the last one ending
 * at its end. */
static int hash_file(struct input *in, int sampled, uint64_t *hash)
{
	const size_t block = 16u << 10;
	unsigned char size_le[8];
	struct hash64 h;
	uint64_t off = 0;
	ssize_t r;
	int i;

	hash64_init(&h);
	if (sampled && in->size >= block) {
		for (i = 0; i < 8; i++)
			size_le[i] = (unsigned char)(in->size >> (8 * i));
		hash64_update(&h, size_le, 8);
		for (i = 0; i < INPUT_HASH_SAMPLES; i++) {
			off = (in->size - block) / (INPUT_HASH_SAMPLES - 1) * (uint64_t)i;
			if ((r = pread_full(in, in->buf, block, off)) < 0)
				return -1;
			hash64_update(&h, in->buf, (size_t)r);
		}
	} else {
		while ((r = pread_full(in, in->buf, INPUT_BUFSZ, off)) > 0) {
			hash64_update(&h, in->buf, (size_t)r);
			off += (uint64_t)r;
		}
		if (r < 0)
			return -1;
	}
	*hash = hash64_final(&h);
	return 0;
}

int input_hash(struct input *in, enum input_hash_mode mode, uint64_t *hash, int *sampled)
{
	ssize_t r;

	*sampled = 0;
	if (in->ha)   /* every byte read so far in the hash, in->buf free */
		hash_async_wait(in->ha);
	if (in->error)
		return -1;   /* some bytes could not be read: no hash of the whole */
	if (!in->gz && !in->mem && !in->arc && in->fd >= 0) {
		off_t at = lseek(in->fd, 0, SEEK_CUR);
		uint64_t left = at >= 0 && (uint64_t)at < in->size ? in->size - (uint64_t)at : 0;
		if (mode == INPUT_HASH_SAMPLED ||
		    (mode == INPUT_HASH_AUTO && left > INPUT_HASH_READ_MAX)) {
			*sampled = 1;
			return hash_file(in, 1, hash);
		}
		if (in->hash_gap)
			return hash_file(in, 0, hash);
	}
	/* The buffered bytes were hashed when they came: drop them and hash
	 * what the parser left unread. */
	in->pos = in->end = 0;
	while (!in->eof) {
		r = input_raw_read(in, in->buf, INPUT_BUFSZ, 0);
		if (r < 0)
			return -1;
		if (r == 0)
			in->eof = 1;
	}
	*hash = hash64_final(&in->hash);
	return 0;
}
