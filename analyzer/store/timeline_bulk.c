/*
 * timeline_bulk.c -- the store's bulk path, for the tables written by the
 * million (a snapshot's trace and alloc rows).
 *
 * A record is copied into its table's batch (the struct by value, its
 * strings into the batch's arena) and the batch is written by one INSERT
 * of BULK_ROWS rows when it is full. SQLite then pays the statement's
 * start, its write cursor and its end once per batch instead of once per
 * row: about half the cost of a row. What is left in a batch is written
 * one row at a time by tl_bulk_flush, which must run before the table is
 * read or the artifact's transaction ends (timeline_artifact_end does).
 *
 * Binding is a third of a row's cost, and most columns of these rows
 * repeat (the snapshot, the device, "N/A", NULLs): a parameter keeps its
 * value from one batch to the next, so a value equal to the one the
 * parameter holds is not bound again. Short strings are interned (their
 * pointer is then stable for the table's life) so that equal strings are
 * seen as equal by their pointer; other strings are bound every time.
 */
#include "analyzer/store/timeline_parts.h"
#include "lib/strbuf.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define BULK_ROWS 64          /* rows per INSERT: 64 x 13 columns, well under SQLite's 32766 */
#define BULK_TABLES 4
#define BULK_COLS 32          /* insert columns of a bulk table, at most */
#define ARENA_CHUNK 65536
#define INTERN_SLOTS 8192     /* open addressing; at most half used */
#define INTERN_MAX_LEN 128    /* longer strings are not interned */

/* What a parameter of the batch INSERT holds, to skip binding it again. */
struct bound {
	int type;                     /* TV_*, or -1: unknown (bind) */
	int64_t i;
	const char *s;                /* interned text */
};

/* Strings kept for the table's life, found by content. */
struct intern {
	const char **slot;            /* INTERN_SLOTS */
	size_t n;
	char **chunks;
	size_t nchunks, used;
};

struct tl_bulk {
	const struct table *t;
	size_t size;                  /* bytes of one record */
	sqlite3_stmt *many;           /* INSERT of BULK_ROWS records, prepared on first use */
	unsigned char *rec;           /* BULK_ROWS records */
	int64_t artifact[BULK_ROWS], parent[BULK_ROWS];
	uint32_t stable[BULK_ROWS];   /* per record, bit k: its k-th insert column's text is interned */
	int n;                        /* records waiting */
	char **chunks;                /* arena of the waiting records' other strings */
	size_t nchunks, used;
	const struct col *cols[BULK_COLS]; /* the INSERT's columns, in order */
	int ncols;
	struct bound *bound;          /* BULK_ROWS x ncols */
	struct intern in;
};

struct tl_bulks {
	struct tl_bulk b[BULK_TABLES];
	int n;
};

/* The batch of table t (records of size bytes), made on first use; NULL
 * when out of memory or when more tables than BULK_TABLES ask. */
static struct tl_bulk *bulk_of(struct timeline *tl, const struct table *t, size_t size)
{
	struct tl_bulk *b;
	int i;

	if (!tl->bulk && !(tl->bulk = calloc(1, sizeof(*tl->bulk))))
		return NULL;
	for (i = 0; i < tl->bulk->n; i++)
		if (tl->bulk->b[i].t == t)
			return &tl->bulk->b[i];
	if (tl->bulk->n == BULK_TABLES)
		return NULL;
	b = &tl->bulk->b[tl->bulk->n];
	memset(b, 0, sizeof(*b));
	for (i = 0; i < (int)t->ncols; i++)
		if (table_col_in_insert(&t->cols[i])) {
			if (b->ncols == BULK_COLS)
				return NULL;
			b->cols[b->ncols++] = &t->cols[i];
		}
	b->rec = malloc(BULK_ROWS * size);
	b->bound = malloc(BULK_ROWS * (size_t)b->ncols * sizeof(*b->bound));
	b->in.slot = calloc(INTERN_SLOTS, sizeof(*b->in.slot));
	if (!b->rec || !b->bound || !b->in.slot) {
		free(b->rec);
		free(b->bound);
		free(b->in.slot);
		memset(b, 0, sizeof(*b));
		return NULL;
	}
	for (i = 0; i < BULK_ROWS * b->ncols; i++)
		b->bound[i].type = -1;
	b->t = t;
	b->size = size;
	tl->bulk->n++;
	return b;
}

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

/* Empty the batch: its records are written or given up. */
static void bulk_reset(struct tl_bulk *b)
{
	size_t i;

	for (i = 1; i < b->nchunks; i++)
		free(b->chunks[i]);
	b->nchunks = b->nchunks ? 1 : 0;
	b->used = 0;
	b->n = 0;
}

/* Bind record i of b as the rows-statement's parameters base + 1 on,
 * those that hold the same value already left as they are. */
static void bind_record(struct tl_bulk *b, int i, int base)
{
	const void *row = b->rec + (size_t)i * b->size;
	struct table_value v;
	int k;

	for (k = 0; k < b->ncols; k++) {
		struct bound *p = &b->bound[base + k];
		int stable = (b->stable[i] >> k) & 1;
		table_value(b->cols[k], b->artifact[i], b->parent[i], row, &v);
		if (p->type == (int)v.type &&
		    ((v.type == TV_NULL) || (v.type == TV_INT && p->i == v.i) ||
		     (v.type == TV_TEXT && stable && p->s == v.s)))
			continue;
		table_value_bind(b->many, base + k + 1, &v);
		p->type = v.type == TV_TEXT && !stable ? -1 : (int)v.type;
		p->i = v.i;
		p->s = v.s;
		if (v.type == TV_REAL || v.type == TV_JSON)
			p->type = -1;
	}
}

/* Write b's waiting records: one INSERT of all when the batch is full,
 * else one per record. 0 or -1 (tl->errmsg says why). */
static int bulk_write(struct timeline *tl, struct tl_bulk *b)
{
	int i, base = 0, r = 0;

	if (b->n == BULK_ROWS && !b->many) {
		struct strbuf sql = STRBUF_INIT;
		table_insert_rows_sql(b->t, BULK_ROWS, &sql);
		if (strbuf_failed(&sql))
			r = tl_fail(tl, "out of memory");
		else if (sqlite3_prepare_v3(tl->db, sql.buf, -1, SQLITE_PREPARE_PERSISTENT,
					    &b->many, NULL) != SQLITE_OK)
			r = tl_fail(tl, sqlite3_errmsg(tl->db));
		strbuf_release(&sql);
	}
	if (r == 0 && b->n == BULK_ROWS) {
		for (i = 0; i < b->n; i++, base += b->ncols)
			bind_record(b, i, base);
		r = tl_step(tl, b->many) < 0 ? -1 : 0;
	} else {
		for (i = 0; r == 0 && i < b->n; i++)
			if (tl_insert_in(tl, b->t, b->artifact[i], b->parent[i],
					 b->rec + (size_t)i * b->size) < 0)
				r = -1;
	}
	bulk_reset(b);
	return r;
}

int64_t tl_insert_bulk(struct timeline *tl, const struct table *t, size_t size,
		       int64_t parent, const void *row)
{
	struct tl_bulk *b = bulk_of(tl, t, size);
	unsigned char *slot;
	int k;

	assert(!table_has_id(t));   /* rows whose id is asked for cannot wait */
	if (!b)
		return tl_insert(tl, t, parent, row);
	slot = b->rec + (size_t)b->n * size;
	memcpy(slot, row, size);
	b->stable[b->n] = 0;
	for (k = 0; k < b->ncols; k++) {
		const struct col *c = b->cols[k];
		const char **s = (const char **)(void *)(slot + c->off);
		const char *p;
		size_t n;
		assert(c->kind != COL_JSON);
		if (c->kind != COL_TEXT || !*s)
			continue;
		n = strlen(*s) + 1;
		if ((p = intern(&b->in, *s, n))) {
			b->stable[b->n] |= 1u << k;
		} else if (!(p = chunk_copy(&b->chunks, &b->nchunks, &b->used, *s, n))) {
			bulk_reset(b);
			return tl_fail(tl, "out of memory");
		}
		*s = p;
	}
	b->artifact[b->n] = tl->artifact_id;
	b->parent[b->n] = parent;
	if (++b->n == BULK_ROWS && bulk_write(tl, b) < 0)
		return -1;
	return 1;
}

int tl_bulk_flush(struct timeline *tl)
{
	int i, r = 0;

	for (i = 0; tl->bulk && i < tl->bulk->n; i++)
		if (tl->bulk->b[i].n && bulk_write(tl, &tl->bulk->b[i]) < 0)
			r = -1;
	return r;
}

void tl_bulk_discard(struct timeline *tl)
{
	int i;

	for (i = 0; tl->bulk && i < tl->bulk->n; i++)
		bulk_reset(&tl->bulk->b[i]);
}

void tl_bulk_release(struct timeline *tl)
{
	size_t j;
	int i;

	for (i = 0; tl->bulk && i < tl->bulk->n; i++) {
		struct tl_bulk *b = &tl->bulk->b[i];
		bulk_reset(b);
		if (b->nchunks)
			free(b->chunks[0]);
		free(b->chunks);
		for (j = 0; j < b->in.nchunks; j++)
			free(b->in.chunks[j]);
		free(b->in.chunks);
		free(b->in.slot);
		free(b->bound);
		free(b->rec);
		sqlite3_finalize(b->many);
	}
	free(tl->bulk);
	tl->bulk = NULL;
}
