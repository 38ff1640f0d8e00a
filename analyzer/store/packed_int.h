/*
 * packed_int.h -- what the two halves of the packed-table module share
 * (packed.c: the virtual table that reads blocks back; packed_write.c:
 * the append of blocks and the aggregate packed_rows()). Not a public
 * interface: only those two files include it.
 */
#ifndef OOMLENS_PACKED_INT_H
#define OOMLENS_PACKED_INT_H

#include "analyzer/store/packed_block.h"

#include <stddef.h>
#include <string.h>

/* SQL value x as the encoder takes it: text and blobs borrowed from x
 * (valid until x changes). Inline: the virtual table's inserts call it
 * on every value. */
static inline void packed_val_of(sqlite3_value *x, struct packed_val *p)
{
	int t = sqlite3_value_type(x);

	memset(p, 0, sizeof(*p));
	p->type = t == SQLITE_INTEGER ? PV_INT : t == SQLITE_FLOAT ? PV_REAL
		: t == SQLITE_TEXT ? PV_TEXT : t == SQLITE_BLOB ? PV_BLOB : PV_NULL;
	if (p->type == PV_INT)
		p->i = sqlite3_value_int64(x);
	else if (p->type == PV_REAL)
		p->d = sqlite3_value_double(x);
	else if (p->type != PV_NULL) {
		p->p = p->type == PV_TEXT ? (const void *)sqlite3_value_text(x)
			: sqlite3_value_blob(x);
		p->n = (size_t)sqlite3_value_bytes(x);
	}
}

/* A copy of p[0..n) with a NUL after it (sqlite3_malloc), NULL when out
 * of memory: a value kept past the call that gave it. */
void *packed_copy_bytes(const void *p, size_t n);

/* Register the aggregate packed_rows() on db; SQLite's result code. */
int packed_rows_register(sqlite3 *db);

#endif
