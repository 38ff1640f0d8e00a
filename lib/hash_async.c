/*
 * hash_async.c -- the content hash fed on a thread behind the reader
 * (hash_async.h): one piece in flight, a mutex and two conditions.
 */
#include "lib/hash_async.h"

#include <pthread.h>
#include <stdlib.h>

struct hash_async {
	struct hash64 *h;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t posted;   /* a piece came, or stop */
	pthread_cond_t done;     /* the piece is in the hash */
	const void *data;        /* the piece in flight, NULL when none */
	size_t n;
	int stop;
};

/* The thread: hash each piece posted until told to stop. */
static void *hasher(void *arg)
{
	struct hash_async *ha = arg;

	pthread_mutex_lock(&ha->mu);
	for (;;) {
		while (!ha->data && !ha->stop)
			pthread_cond_wait(&ha->posted, &ha->mu);
		if (!ha->data)
			break;
		{
			const void *p = ha->data;
			size_t n = ha->n;
			pthread_mutex_unlock(&ha->mu);
			hash64_update(ha->h, p, n);
			pthread_mutex_lock(&ha->mu);
		}
		ha->data = NULL;
		pthread_cond_signal(&ha->done);
	}
	pthread_mutex_unlock(&ha->mu);
	return NULL;
}

struct hash_async *hash_async_new(struct hash64 *h)
{
	struct hash_async *ha = calloc(1, sizeof(*ha));

	if (!ha)
		return NULL;
	ha->h = h;
	if (pthread_mutex_init(&ha->mu, NULL)) {
		free(ha);
		return NULL;
	}
	if (pthread_cond_init(&ha->posted, NULL))
		goto no_posted;
	if (pthread_cond_init(&ha->done, NULL))
		goto no_done;
	if (pthread_create(&ha->thread, NULL, hasher, ha))
		goto no_thread;
	return ha;
no_thread:
	pthread_cond_destroy(&ha->done);
no_done:
	pthread_cond_destroy(&ha->posted);
no_posted:
	pthread_mutex_destroy(&ha->mu);
	free(ha);
	return NULL;
}

void hash_async_wait(struct hash_async *ha)
{
	pthread_mutex_lock(&ha->mu);
	while (ha->data)
		pthread_cond_wait(&ha->done, &ha->mu);
	pthread_mutex_unlock(&ha->mu);
}

void hash_async_post(struct hash_async *ha, const void *data, size_t n)
{
	if (!n)
		return;
	pthread_mutex_lock(&ha->mu);
	while (ha->data)
		pthread_cond_wait(&ha->done, &ha->mu);
	ha->data = data;
	ha->n = n;
	pthread_cond_signal(&ha->posted);
	pthread_mutex_unlock(&ha->mu);
}

void hash_async_free(struct hash_async *ha)
{
	if (!ha)
		return;
	pthread_mutex_lock(&ha->mu);
	while (ha->data)
		pthread_cond_wait(&ha->done, &ha->mu);
	ha->stop = 1;
	pthread_cond_signal(&ha->posted);
	pthread_mutex_unlock(&ha->mu);
	pthread_join(ha->thread, NULL);
	pthread_cond_destroy(&ha->done);
	pthread_cond_destroy(&ha->posted);
	pthread_mutex_destroy(&ha->mu);
	free(ha);
}
