/*
 * xid.h -- NVIDIA's Xid catalogue, as far as oomlens knows it: for each
 * Xid seen around OOMs and GPU failures, the catalogue's name (the
 * kernel parser's gpu_xid events carry it) and, for most, what it means
 * and what it takes to recover (the report's first screen says them).
 * One table (lib/xid.c) for both.
 */
#ifndef OOMLENS_XID_H
#define OOMLENS_XID_H

#include <stdint.h>

struct xid_info {
	int xid;
	const char *name;      /* the catalogue's name */
	const char *meaning;   /* what it means, or NULL where oomlens has no advice */
	const char *action;    /* what recovers it ("Resolution Bucket"); NULL with meaning */
};

/* Xid x's row, or NULL for one not in the table. */
const struct xid_info *xid_info(int64_t x);

#endif
