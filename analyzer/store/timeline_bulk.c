/*
 * timeline_bulk.c -- the store's bulk path, for the tables written by the
 * million (a snapshot's trace and alloc rows, series samples), and the
 * writer thread that runs it beside the caller.
 *
 * A record is copied into its table's batch (the struct by value, its
 * strings interned or copied into the batch's arena). A full batch goes
 * to the writer thread, which writes it as INSERTs of BULK_ROWS rows each:
 * SQLite then pays a statement's start, its write cursor and its end once
 * per BULK_ROWS rows instead of once per row (about half a row's cost),
 * and the caller goes on decoding and modelling the next records while
 * SQLite works. Binding is a third of a row's cost and most columns
 * repeat (the snapshot, the device, "N/A", NULLs): a parameter keeps its
 * value from one batch to the next, so a value equal to the one it holds
 * is not bound again (interned strings are compared by pointer).
 *
 * One connection, used by one thread at a time. Before the caller touches
 * SQLite itself (any statement from the cache, timeline_exec), tl_bulk_sync
 * takes the connection: it waits for the INSERT the writer is running, if
 * any, and the writer starts no other until the caller hands it a batch
 * (or waits for one), so the caller's own rows (an event, a series, a
 * meta) cost it at most one INSERT's wait, not the whole queue's: the
 * parser and SQLite keep running side by side. Batched rows waiting in
 * the queue are not in the tables yet: tl_bulk_flush writes all of them
 * and what is left in a batch that is not full; it must run before a
 * batched table is read and before the artifact's transaction ends
 * (timeline_artifact_end does). The rows of each table are written in
 * the order they came, so the tables hold what the caller gave in the
 * same order (and the same rowids) as when every row is written at once.
 * The writer never prints and never touches tl->errmsg: its error is
 * taken up by the caller at the next sync.
 */
#include "analyzer/store/packed.h"
#include "analyzer/store/samples.h"
#include "analyzer/store/timeline_parts.h"
#include "lib/strbuf.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BULK_ROWS 256         /* rows per INSERT: 256 x 13 columns, well under SQLite's 32766 */
#define BULK_STEPS 2          /* INSERTs per batch handed to the writer */
#define BATCH_RECS (BULK_ROWS * BULK_STEPS)
#define BATCHES 3             /* per table: one filling, one waiting, one writing */
#define BULK_TABLES 4
#define BULK_COLS 32          /* insert columns of a bulk table, at most */
#define ARENA_CHUNK 65536
#define INTERN_SLOTS 8192     /* open addressing; at most half used */
#define INTERN_MAX_LEN 128    /* longer strings are not interned */

/* What a parameter of a table's INSERT holds, to skip binding it again. */
struct bound {
	int type;                     /* TV_*, or -1: unknown (bind) */
	int64_t i;
	const char *s;                /* interned text */
};

/* Strings kept for the table's life, found by content; only the caller
 * adds, and a string never moves once added. */
struct intern {
	const char **slot;            /* INTERN_SLOTS */
	size_t n;
	char **chunks;
	size_t nchunks, used;
};

struct tl_bulk;

/* Records on their way to the table. */
struct batch {
	struct tl_bulk *owner;
	unsigned char *rec;           /* BATCH_RECS records */
	int64_t artifact[BATCH_RECS], parent[BATCH_RECS];
	uint32_t stable[BATCH_RECS];  /* bit k: the k-th insert column's text is interned */
	int n;
	int done;                     /* records written (by the writer) */
	char **chunks;                /* arena of the other strings */
	size_t nchunks, used;
	struct batch *next;           /* in the writer's queue, or the table's spares */
};

struct tl_bulk {
	const struct table *t;
	size_t size;                  /* bytes of one record */
	const struct col *cols[BULK_COLS]; /* the INSERT's columns, in order */
	int ncols;
	sqlite3_stmt *many;           /* INSERT of BULK_ROWS records (of a packed table:
				       * of a block), prepared on first use */
	char *backing;                /* a packed table's NAME_block, else NULL */
	struct packed_enc enc;        /* a packed table's encoder, */
	struct packed_val *vals;      /* its BULK_ROWS x ncols values */
	struct strbuf blk;            /* and the block */
	struct bound *bound;          /* BULK_ROWS x ncols: what many's parameters hold */
	struct intern in;
	const char *last[BULK_COLS];  /* each column's last interned text: rows repeat it */
	struct batch *cur;            /* being filled by the caller */
	struct batch *spare;          /* written, free to fill (under mu) */
	int nbatches;
};

struct tl_bulks {
	struct tl_bulk b[BULK_TABLES];
	int n;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th;
	int started, quit;
	struct batch *head, *tail;    /* full batches for the writer */
	int busy;                     /* the writer is running an INSERT */
	int held;                     /* the caller holds the connection: the
				       * writer starts no INSERT */
	int failed;                   /* a write failed: err says why (under mu) */
	char err[256];
	sqlite3 *db;
};

/* ---- strings ---- */

/* A copy of s[0..n) in the chunks (never moved), NULL when out of
 * memory. */
static char *chunk_copy(char ***chunks, size_t *nchunks, size_t *used, const char *s, size_t n)
{
	char *p;

	if (!*nchunks || *used + n > ARENA_CHUNK) {
		char **nc = realloc(*chunks, (*nchunks + 1) * sizeof(*nc));
		if (!nc)
			return NULL;
		*chunks = nc;
		if (!(nc[*nchunks] = malloc(n > ARENA_CHUNK ? n : ARENA_CHUNK)))
			return NULL;
		(*nchunks)++;
		*used = 0;
	}
	p = (*chunks)[*nchunks - 1] + *used;
	memcpy(p, s, n);
	*used += n;
	return p;
}

/* The interned copy of s (n bytes with its NUL), or NULL when it is not
 * interned (too long, the table full, out of memory). */
static const char *intern(struct intern *in, const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ull;
	size_t i, k;
	const char *p;

	if (n > INTERN_MAX_LEN)
		return NULL;
	for (k = 0; k < n; k++)
		h = (h ^ (unsigned char)s[k]) * 1099511628211ull;
	for (i = h & (INTERN_SLOTS - 1); in->slot[i]; i = (i + 1) & (INTERN_SLOTS - 1))
		if (!memcmp(in->slot[i], s, n))
			return in->slot[i];
	if (in->n * 2 >= INTERN_SLOTS)
		return NULL;
	if (!(p = chunk_copy(&in->chunks, &in->nchunks, &in->used, s, n)))
		return NULL;
	in->slot[i] = p;
	in->n++;
	return p;
}

static void free_chunks(char **chunks, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(chunks[i]);
	free(chunks);
}

/* Empty batch k (its records written or given up), keeping one chunk. */
static void batch_reset(struct batch *k)
{
	size_t i;

	for (i = 1; i < k->nchunks; i++)
		free(k->chunks[i]);
	k->nchunks = k->nchunks ? 1 : 0;
	k->used = 0;
	k->n = 0;
	k->done = 0;
}

static void batch_free(struct batch *k)
{
	if (!k)
		return;
	free_chunks(k->chunks, k->nchunks);
	free(k->rec);
	free(k);
}

/* ---- writing (by the writer, or by the caller when the writer is idle) ---- */

/* The value column c takes from a record: table_value, inline for the
 * kinds the bulk tables have (a call per column was ~5 % of a write). */
static inline void row_value(const struct col *c, int64_t artifact, int64_t parent,
			     const void *row, struct table_value *v)
{
	const void *f = (const char *)row + c->off;

	switch (c->kind) {
	case COL_PARENT:
		v->i = parent;
		v->type = v->i == OL_NULL ? TV_NULL : TV_INT;
		break;
	case COL_INT:
		v->i = *(const int64_t *)f;
		v->type = v->i == OL_NULL ? TV_NULL : TV_INT;
		break;
	case COL_TEXT:
		v->s = *(const char *const *)f;
		v->type = v->s ? TV_TEXT : TV_NULL;
		break;
	default:
		table_value(c, artifact, parent, row, v);
		break;
	}
}

/* Bind record i of k as the parameters base + 1 on of its table's INSERT
 * of BULK_ROWS, those that hold the same value already left as they are. */
static void bind_record(struct tl_bulk *b, const struct batch *k, int i, int base)
{
	const void *row = k->rec + (size_t)i * b->size;
	struct table_value v;
	int c;

	for (c = 0; c < b->ncols; c++) {
		struct bound *p = &b->bound[base + c];
		int stable = (k->stable[i] >> c) & 1;
		row_value(b->cols[c], k->artifact[i], k->parent[i], row, &v);
		if (p->type == (int)v.type &&
		    ((v.type == TV_NULL) || (v.type == TV_INT && p->i == v.i) ||
		     (v.type == TV_TEXT && stable && p->s == v.s)))
			continue;
		table_value_bind(b->many, base + c + 1, &v);
		p->type = (v.type == TV_TEXT && !stable) || v.type == TV_REAL || v.type == TV_JSON
			  ? -1 : (int)v.type;
		p->i = v.i;
		p->s = v.s;
	}
}

/* Records first .. first + n - 1 of k's c-th insert column into out (n
 * values), for the encoder. A text repeating the one before it (an
 * interned string, or the same copy) is not measured again. */
static void packed_column(const struct tl_bulk *b, const struct batch *k, int first, int n,
			  int c, struct packed_val *out)
{
	const char *prev = NULL;
	size_t prev_n = 0;
	int r;

	for (r = 0; r < n; r++) {
		int i = first + r;
		struct packed_val *p = &out[r];
		struct table_value v;
		row_value(b->cols[c], k->artifact[i], k->parent[i], k->rec + (size_t)i * b->size, &v);
		p->type = PV_NULL;
		if (v.type == TV_INT) {
			p->type = PV_INT;
			p->i = v.i;
		} else if (v.type == TV_REAL) {
			p->type = PV_REAL;
			p->d = v.d;
		} else if (v.type == TV_TEXT) {
			p->type = PV_TEXT;
			p->p = v.s;
			p->n = v.s == prev ? prev_n : strlen(v.s);
			prev = v.s;
			prev_n = p->n;
		}
	}
}

/* Encode records first .. first + n - 1 of k as a block into b->blk:
 * integer columns read where they lie in the records, the others through
 * packed_column. 0, or -1 out of memory. */
static int encode_block(struct tl_bulk *b, const struct batch *k, int first, int n)
{
	int c;

	strbuf_reset(&b->blk);
	if (packed_start(&b->enc, n, b->ncols) < 0)
		return -1;
	for (c = 0; c < b->ncols; c++) {
		const struct col *col = b->cols[c];
		int r;
		if (col->kind == COL_PARENT)
			r = packed_put_ints(&b->enc, &k->parent[first], sizeof(k->parent[0]), OL_NULL);
		else if (col->kind == COL_INT)
			r = packed_put_ints(&b->enc, k->rec + (size_t)first * b->size + col->off,
					    b->size, OL_NULL);
		else {
			packed_column(b, k, first, n, c, b->vals);
			r = packed_put_vals(&b->enc, b->vals);
		}
		if (r < 0)
			return -1;
	}
	return packed_finish(&b->enc, &b->blk);
}

/* Write records first .. first + count - 1 of k (count <= BULK_ROWS) to
 * b's packed table: a block for each run of records of one parent (the
 * first column's value). 0, or -1 with SQLite's message in err[n]. */
static int write_packed(sqlite3 *db, struct tl_bulk *b, const struct batch *k, int first,
			int count, char *err, size_t n)
{
	struct packed_val *col0 = b->vals;
	int end = first + count;

	while (first < end) {
		int stop, rows, rc = SQLITE_NOMEM;
		int64_t parent;
		if (b->cols[0]->kind == COL_PARENT) {   /* the usual first column */
			for (stop = first + 1; stop < end && k->parent[stop] == k->parent[first]; stop++)
				;
			rows = stop - first;
			parent = k->parent[first];   /* OL_NULL: packed_append stores NULL */
		} else {
			packed_column(b, k, first, end - first, 0, col0);
			for (stop = 1; first + stop < end; stop++)
				if (col0[stop].type != col0[0].type || col0[stop].i != col0[0].i)
					break;
			rows = stop;
			parent = col0[0].type == PV_INT ? col0[0].i : INT64_MIN;  /* b->vals is reused */
		}
		if (encode_block(b, k, first, rows) == 0)
			rc = packed_append(db, b->backing, &b->many, parent, rows,
					   b->blk.buf, b->blk.len);
		if (rc != SQLITE_OK) {
			snprintf(err, n, "%s", rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
			return -1;
		}
		first += rows;
	}
	return 0;
}

/* Write records first .. first + BULK_ROWS - 1 of k as one INSERT;
 * returns the first record after them, or -1 with SQLite's message in
 * err[n]. */
static int write_step(sqlite3 *db, struct tl_bulk *b, const struct batch *k, int first,
		      char *err, size_t n)
{
	int i, base = 0;

	if (b->backing)
		return write_packed(db, b, k, first, BULK_ROWS, err, n) < 0 ? -1 : first + BULK_ROWS;
	if (!b->many) {
		struct strbuf sql = STRBUF_INIT;
		int rc = SQLITE_NOMEM;
		table_insert_rows_sql(b->t, BULK_ROWS, &sql);
		if (!strbuf_failed(&sql))
			rc = sqlite3_prepare_v3(db, sql.buf, -1, SQLITE_PREPARE_PERSISTENT,
						&b->many, NULL);
		strbuf_release(&sql);
		if (rc != SQLITE_OK) {
			snprintf(err, n, "%s", sqlite3_errmsg(db));
			sqlite3_finalize(b->many);
			b->many = NULL;
			return -1;
		}
	}
	for (i = 0; i < BULK_ROWS; i++, base += b->ncols)
		bind_record(b, k, first + i, base);
	if (sqlite3_step(b->many) != SQLITE_DONE) {
		snprintf(err, n, "%s", sqlite3_errmsg(db));
		sqlite3_reset(b->many);
		return -1;
	}
	sqlite3_reset(b->many);
	return first + BULK_ROWS;
}

/* Write the records of k from first, BULK_ROWS per INSERT, as long as a
 * whole INSERT's worth is left; returns the first record not written, or
 * -1 with SQLite's message in err[n]. */
static int write_rows(sqlite3 *db, struct tl_bulk *b, const struct batch *k, int first,
		      char *err, size_t n)
{
	while (first >= 0 && k->n - first >= BULK_ROWS)
		first = write_step(db, b, k, first, err, n);
	return first;
}

/* Give batch k back to its table's spares (under mu). */
static void give_back(struct tl_bulks *w, struct batch *k)
{
	batch_reset(k);
	k->next = k->owner->spare;
	k->owner->spare = k;
	pthread_cond_broadcast(&w->cv);
}

/* The writer: the queue's batches in order, one INSERT at a time, none
 * started while the caller holds the connection. */
static void *writer_main(void *arg)
{
	struct tl_bulks *w = arg;
	char err[256];

	pthread_mutex_lock(&w->mu);
	for (;;) {
		struct batch *k;
		int failed, next = 0;
		while ((!w->head || w->held) && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->head)
			break;
		k = w->head;
		w->busy = 1;
		failed = w->failed;
		pthread_mutex_unlock(&w->mu);
		/* a batch after a failure is given up: the artifact is rolled back */
		if (!failed && (next = write_step(w->db, k->owner, k, k->done, err, sizeof(err))) < 0)
			failed = 1;
		pthread_mutex_lock(&w->mu);
		if (failed && !w->failed) {
			w->failed = 1;
			snprintf(w->err, sizeof(w->err), "%s", err);
		}
		w->busy = 0;
		k->done = next;
		if (failed || k->n - k->done < BULK_ROWS) {   /* a batch holds whole INSERTs */
			w->head = k->next;
			if (!w->head)
				w->tail = NULL;
			give_back(w, k);
		} else {
			pthread_cond_broadcast(&w->cv);
		}
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* ---- the caller's side ---- */

/* The bulk state of tl, made on first use; NULL out of memory. */
static struct tl_bulks *bulks_of(struct timeline *tl)
{
	struct tl_bulks *w = tl->bulk;

	if (w)
		return w;
	if (!(w = calloc(1, sizeof(*w))))
		return NULL;
	if (pthread_mutex_init(&w->mu, NULL) != 0) {
		free(w);
		return NULL;
	}
	if (pthread_cond_init(&w->cv, NULL) != 0) {
		pthread_mutex_destroy(&w->mu);
		free(w);
		return NULL;
	}
	w->db = tl->db;
	return tl->bulk = w;
}

/* The table t's bulk state, made on first use; NULL out of memory or
 * when more tables than BULK_TABLES ask. */
static struct tl_bulk *bulk_of(struct timeline *tl, const struct table *t, size_t size)
{
	struct tl_bulks *w = bulks_of(tl);
	struct tl_bulk *b;
	int i;

	if (!w)
		return NULL;
	for (i = 0; i < w->n; i++)
		if (w->b[i].t == t)
			return &w->b[i];
	if (w->n == BULK_TABLES)
		return NULL;
	b = &w->b[w->n];
	memset(b, 0, sizeof(*b));
	for (i = 0; i < (int)t->ncols; i++)
		if (table_col_in_insert(&t->cols[i])) {
			if (b->ncols == BULK_COLS)
				return NULL;
			b->cols[b->ncols++] = &t->cols[i];
		}
	b->bound = malloc(BULK_ROWS * (size_t)b->ncols * sizeof(*b->bound));
	b->in.slot = calloc(INTERN_SLOTS, sizeof(*b->in.slot));
	if (!b->bound || !b->in.slot) {
		free(b->bound);
		free(b->in.slot);
		memset(b, 0, sizeof(*b));
		return NULL;
	}
	for (i = 0; i < BULK_ROWS * b->ncols; i++)
		b->bound[i].type = -1;
	if (t->packed) {
		b->vals = malloc(BULK_ROWS * (size_t)b->ncols * sizeof(*b->vals));
		b->backing = malloc(strlen(t->name) + sizeof("_block"));
		if (!b->vals || !b->backing) {
			free(b->vals);
			free(b->backing);
			free(b->bound);
			free(b->in.slot);
			memset(b, 0, sizeof(*b));
			return NULL;
		}
		strcpy(b->backing, t->name);
		strcat(b->backing, "_block");
		strbuf_init(&b->blk);
	}
	b->t = t;
	b->size = size;
	w->n++;
	return b;
}

/* A batch to fill for b: a spare, a new one while fewer than BATCHES
 * exist, else the first the writer gives back. NULL out of memory. */
static struct batch *take_batch(struct tl_bulks *w, struct tl_bulk *b)
{
	struct batch *k = NULL;

	pthread_mutex_lock(&w->mu);
	if (!b->spare && b->nbatches >= BATCHES && w->started) {
		w->held = 0;   /* the writer must run to give one back */
		pthread_cond_broadcast(&w->cv);
	}
	while (!b->spare && b->nbatches >= BATCHES && w->started)
		pthread_cond_wait(&w->cv, &w->mu);
	if (b->spare) {
		k = b->spare;
		b->spare = k->next;
	}
	pthread_mutex_unlock(&w->mu);
	if (k)
		return k;
	if (!(k = calloc(1, sizeof(*k))) || !(k->rec = malloc(BATCH_RECS * b->size))) {
		free(k);
		return NULL;
	}
	k->owner = b;
	b->nbatches++;
	return k;
}

/* Hand b's full batch to the writer (started on first use; without it,
 * the batch is written here). 0, or -1 when a write failed. */
static int hand_over(struct timeline *tl, struct tl_bulks *w, struct tl_bulk *b)
{
	struct batch *k = b->cur;
	char err[256];

	b->cur = NULL;
	if (!w->started && pthread_create(&w->th, NULL, writer_main, w) == 0)
		w->started = 1;
	if (!w->started) {
		int r = write_rows(tl->db, b, k, 0, err, sizeof(err));
		batch_reset(k);
		b->cur = k;
		return r < 0 ? tl_fail(tl, err) : 0;
	}
	pthread_mutex_lock(&w->mu);
	k->next = NULL;
	if (w->tail)
		w->tail->next = k;
	else
		w->head = k;
	w->tail = k;
	w->held = 0;   /* the connection is the writer's until the caller takes it */
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return 0;
}

/* Copy the record at row into k: its text interned, else in k's arena.
 * 0 or -1 out of memory. */
static int copy_record(struct tl_bulk *b, struct batch *k, int64_t artifact, int64_t parent,
		       const void *row)
{
	unsigned char *slot = k->rec + (size_t)k->n * b->size;
	int c;

	memcpy(slot, row, b->size);
	k->stable[k->n] = 0;
	for (c = 0; c < b->ncols; c++) {
		const struct col *col = b->cols[c];
		const char **s = (const char **)(void *)(slot + col->off);
		const char *p;
		size_t n;
		assert(col->kind != COL_JSON);
		if (col->kind != COL_TEXT || !*s)
			continue;
		if (b->last[c] && !strcmp(b->last[c], *s)) {
			*s = b->last[c];
			k->stable[k->n] |= 1u << c;
			continue;
		}
		n = strlen(*s) + 1;
		if ((p = intern(&b->in, *s, n))) {
			k->stable[k->n] |= 1u << c;
			b->last[c] = p;
		} else if (!(p = chunk_copy(&k->chunks, &k->nchunks, &k->used, *s, n))) {
			return -1;
		}
		*s = p;
	}
	k->artifact[k->n] = artifact;
	k->parent[k->n] = parent;
	k->n++;
	return 0;
}

int64_t tl_insert_bulk(struct timeline *tl, const struct table *t, size_t size,
		       int64_t parent, const void *row)
{
	struct tl_bulk *b = bulk_of(tl, t, size);

	assert(!table_has_id(t));   /* rows whose id is asked for cannot wait */
	if (!b || (!b->cur && !(b->cur = take_batch(tl->bulk, b))))
		return tl_insert(tl, t, parent, row);
	if (copy_record(b, b->cur, tl->artifact_id, parent, row) < 0)
		return tl_fail(tl, "out of memory");
	if (b->cur->n == BATCH_RECS && hand_over(tl, tl->bulk, b) < 0)
		return -1;
	return 1;
}

int tl_bulk_sync(struct timeline *tl)
{
	struct tl_bulks *w = tl->bulk;
	int failed;

	if (!w || !w->started)
		return 0;
	pthread_mutex_lock(&w->mu);
	w->held = 1;
	while (w->busy)
		pthread_cond_wait(&w->cv, &w->mu);
	failed = w->failed;
	pthread_mutex_unlock(&w->mu);
	if (failed)
		return tl_fail(tl, w->err);
	return 0;
}

/* Wait until the writer has written every batch it was given (or given
 * them up after a failure), then hold the connection. */
static void drain(struct tl_bulks *w)
{
	pthread_mutex_lock(&w->mu);
	w->held = 0;
	pthread_cond_broadcast(&w->cv);
	while (w->head || w->busy)
		pthread_cond_wait(&w->cv, &w->mu);
	w->held = 1;
	pthread_mutex_unlock(&w->mu);
}

int tl_bulk_flush(struct timeline *tl)
{
	struct tl_bulks *w = tl->bulk;
	char err[256];
	int i, r;

	if (samples_flush(tl) < 0)   /* the series' open blocks (samples.c) */
		return -1;
	if (!w)
		return 0;
	if (w->started)
		drain(w);
	r = tl_bulk_sync(tl);
	for (i = 0; r == 0 && i < w->n; i++) {
		struct tl_bulk *b = &w->b[i];
		struct batch *k = b->cur;
		int j;
		if (!k || !k->n)
			continue;
		/* the writer is idle: whole INSERTs here, then the rest one by one
		 * (of a packed table: as one block more) */
		j = write_rows(tl->db, b, k, 0, err, sizeof(err));
		if (j < 0)
			r = tl_fail(tl, err);
		if (r == 0 && b->backing && j < k->n) {
			if (write_packed(tl->db, b, k, j, k->n - j, err, sizeof(err)) < 0)
				r = tl_fail(tl, err);
			j = k->n;
		}
		for (; r == 0 && j < k->n; j++)
			if (tl_insert_in(tl, b->t, k->artifact[j], k->parent[j],
					 k->rec + (size_t)j * b->size) < 0)
				r = -1;
		batch_reset(k);
	}
	return r;
}

void tl_bulk_discard(struct timeline *tl)
{
	struct tl_bulks *w = tl->bulk;
	int i;

	samples_discard(tl);
	if (!w)
		return;
	if (w->started) {
		drain(w);
		pthread_mutex_lock(&w->mu);
		w->failed = 0;
		pthread_mutex_unlock(&w->mu);
	}
	for (i = 0; i < w->n; i++)
		if (w->b[i].cur)
			batch_reset(w->b[i].cur);
}

void tl_bulk_release(struct timeline *tl)
{
	struct tl_bulks *w = tl->bulk;
	int i;

	if (!w)
		return;
	tl_bulk_discard(tl);
	if (w->started) {
		pthread_mutex_lock(&w->mu);
		w->quit = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->th, NULL);
	}
	for (i = 0; i < w->n; i++) {
		struct tl_bulk *b = &w->b[i];
		batch_free(b->cur);
		while (b->spare) {
			struct batch *k = b->spare;
			b->spare = k->next;
			batch_free(k);
		}
		free_chunks(b->in.chunks, b->in.nchunks);
		free(b->in.slot);
		free(b->bound);
		sqlite3_finalize(b->many);
		free(b->backing);
		free(b->vals);
		packed_enc_release(&b->enc);
		strbuf_release(&b->blk);
	}
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w);
	tl->bulk = NULL;
}
