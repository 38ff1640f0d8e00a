/*
 * query_json_sort.c -- an array of rows (q_jw_rows) in the order of
 * "ORDER BY a DESC, b" without SQLite's sorter: each row is written as
 * it comes, its text set aside with its two keys, and the texts are put
 * in order afterwards. Only integer and NULL keys are ordered here, by
 * SQLite's rules (NULL below every integer); two rows that tie on both
 * keys leave the order to SQLite, whose sorter decides ties its own way.
 */
#include "analyzer/store/query_json_impl.h"
#include "lib/budget.h"

#include <stdlib.h>

struct q_jw_sorted {
	int64_t desc, asc;
	unsigned char desc_null, asc_null;
	size_t off, len;        /* its text, from where the array's rows began */
};

/* SQLite's order of two integer-or-NULL keys: <0, 0 or >0. */
static int key_cmp(int64_t a, int a_null, int64_t b, int b_null)
{
	if (a_null || b_null)
		return b_null - a_null;
	return (a > b) - (a < b);
}

/* The order of ORDER BY desc DESC, asc. */
static int row_cmp(const void *pa, const void *pb)
{
	const struct q_jw_sorted *a = pa, *b = pb;
	int r = key_cmp(b->desc, b->desc_null, a->desc, a->desc_null);

	return r ? r : key_cmp(a->asc, a->asc_null, b->asc, b->asc_null);
}

/* Column i as a key: 0, or -1 when it is neither an integer nor NULL. */
static int row_key(sqlite3_stmt *st, int i, int64_t *v, unsigned char *null)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		*v = sqlite3_column_int64(st, i);
		*null = 0;
		return 0;
	case SQLITE_NULL:
		*v = 0;
		*null = 1;
		return 0;
	default:
		return -1;
	}
}

/* Room for one more row in w->sorted: 0 or -1. */
static int sorted_grow(struct q_jw *w)
{
	struct q_jw_sorted *s;
	size_t cap = w->capsorted ? 2 * w->capsorted : 64;

	if (w->nsorted < w->capsorted)
		return 0;
	if (!(s = realloc(w->sorted, cap * sizeof(*s))))
		return -1;
	w->sorted = s;
	w->capsorted = cap;
	return 0;
}

/* The rows' texts (buf[start, len)) put back in order, each after its
 * separator: 0 or -1 when out of memory. */
static int put_in_order(struct q_jw *w, size_t start)
{
	size_t n = w->len - start, i;

	if (!w->nsorted)
		return 0;
	if (n > w->heldcap) {
		char *h = realloc(w->held, n);
		if (!h)
			return -1;
		w->held = h;
		w->heldcap = n;
	}
	memcpy(w->held, w->buf + start, n);
	w->len = start;
	qsort(w->sorted, w->nsorted, sizeof(*w->sorted), row_cmp);
	for (i = 0; i < w->nsorted; i++) {
		if (i && !row_cmp(&w->sorted[i - 1], &w->sorted[i]))
			return 1;
		q_jw_elem(w);
		jw_put(w, w->held + w->sorted[i].off, w->sorted[i].len);
	}
	return 0;
}

int q_jw_rows_sorted(struct q_jw *w, const struct q_jw_cols *c, int desc, int asc)
{
	size_t mark = w->len, start;
	int depth = w->depth, in = depth > 0 && depth <= Q_JW_DEPTH, r = 0, order = 0;
	unsigned char had = in ? w->members[depth - 1] : 0;
	sqlite3_stmt *st = c->st;

	if (!st || desc < 0 || asc < 0 || desc >= c->n || asc >= c->n)
		return 1;
	q_jw_open(w, '[');
	start = w->len;
	w->nsorted = 0;
	while (order == 0 && sqlite3_step(st) == SQLITE_ROW) {
		struct q_jw_sorted *s;
		if (sorted_grow(w) < 0) {
			order = -1;
			break;
		}
		s = &w->sorted[w->nsorted];
		if (row_key(st, desc, &s->desc, &s->desc_null) < 0 ||
		    row_key(st, asc, &s->asc, &s->asc_null) < 0) {
			order = 1;
			break;
		}
		s->off = w->len - start;
		/* a row at the depth of an element, with no separator before it */
		q_jw_open(w, '{');
		if (q_jw_row(w, c) < 0)
			r = -1;
		q_jw_close(w, '}');
		s->len = w->len - start - s->off;
		w->nsorted++;
		/* the texts, their copy and the keys must fit the memory
		 * budget; past it SQLite's sorter orders them (it spills) */
		if (!ol_budget_fits(3 * (uint64_t)(w->len - start) +
				    (uint64_t)w->capsorted * sizeof(*w->sorted))) {
			order = 1;
			break;
		}
	}
	if (order == 0 && !w->failed)
		order = put_in_order(w, start);
	sqlite3_reset(st);
	if (order != 0 || w->failed) {
		w->len = mark;
		w->depth = depth;
		if (in)
			w->members[depth - 1] = had;
		return order < 0 || w->failed ? -1 : 1;
	}
	q_jw_close(w, ']');
	return r;
}
