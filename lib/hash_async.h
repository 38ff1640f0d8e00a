/*
 * hash_async.h -- a content hash (hash.h) fed on a thread of its own,
 * behind the reader that fills a buffer.
 *
 * The input layer hashes every byte it reads (the artifact's identity for
 * a later --append). On a large log that hash costs about as much as the
 * kernel parser's line filter; here it runs beside the parse, on another
 * core, with the same values. One piece is in flight at a time: the
 * reader posts the bytes it just read and must call hash_async_wait()
 * before those bytes are moved or overwritten.
 *
 * Ownership: the caller owns struct hash64 and the bytes posted; the
 * hash_async owns its thread. Every function is for one reader thread.
 */
#ifndef OOMLENS_HASH_ASYNC_H
#define OOMLENS_HASH_ASYNC_H

#include <stddef.h>
#include "lib/hash.h"

struct hash_async;

/* A hasher feeding h on its own thread, or NULL (out of memory, no thread):
 * then the caller hashes in line itself. */
struct hash_async *hash_async_new(struct hash64 *h);
/* Wait for the piece in flight, then hand data[0..n) to the thread. The
 * bytes must stay as they are until the next hash_async_wait(). */
void hash_async_post(struct hash_async *ha, const void *data, size_t n);
/* Return once every piece posted is in the hash. */
void hash_async_wait(struct hash_async *ha);
/* Wait, stop the thread and free ha (NULL is a no-op). */
void hash_async_free(struct hash_async *ha);

#endif
