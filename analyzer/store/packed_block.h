/*
 * packed_block.h -- a packed table's block decoded (packed_block.c), for
 * the virtual table that reads it (packed.c). Not for other modules: they
 * read packed tables through SQL.
 */
#ifndef OOMLENS_PACKED_BLOCK_H
#define OOMLENS_PACKED_BLOCK_H

#include "analyzer/store/packed.h"

/* One decoded value: text and blobs point into the block. */
struct pk_cell {
	unsigned char type;    /* PV_* */
	uint32_t n;
	union { int64_t i; double d; const unsigned char *p; } u;
};

/* A block opened for reading: where each column's encoding starts. */
struct pk_block {
	int nrows, ncols;
	const unsigned char *col[PACKED_MAX_COLS], *col_end[PACKED_MAX_COLS];
};

/* Open the block of n bytes at p (NULL for an empty blob): its counts
 * and where its columns are. 0, or -1 when its header is not one. */
int packed_block_open(struct pk_block *b, const unsigned char *p, size_t n);
/* Decode column c of b into out (b->nrows cells), with dict a scratch of
 * as many. 0, or -1 when the column's encoding is corrupt. */
int packed_block_column(const struct pk_block *b, int c, struct pk_cell *out, struct pk_cell *dict);

#endif
