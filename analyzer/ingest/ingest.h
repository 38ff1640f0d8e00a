/*
 * ingest.h -- read artifacts (files, directories, .gz) into a timeline.
 */
#ifndef OOMLENS_INGEST_H
#define OOMLENS_INGEST_H

#include "analyzer/store/timeline.h"

struct ingest_stats {
	unsigned files;      /* artifacts looked at */
	unsigned ok;         /* parsed without error */
	unsigned partial;    /* parsed, with errors: some content lost */
	unsigned failed;     /* nothing kept */
	unsigned skipped;    /* not a format oomlens reads */
	uint64_t records;    /* records the parsers produced */
	uint64_t bytes;      /* bytes read */
};

struct ingest_cfg {
	int quiet;           /* no per-artifact lines on stderr */
	int progress;        /* progress on stderr (terminal and large input) */
	const char *force_kind; /* --kind: skip detection */
};

/* Ingest every path (recursing into directories, in name order). Each
 * artifact is one transaction. Then aligns clocks. Returns 0 when at least
 * one artifact gave records, 1 when nothing usable came out, -1 when the
 * database itself failed. */
int ingest_paths(struct timeline *tl, char *const *paths, int npaths,
		 const struct ingest_cfg *cfg, struct ingest_stats *st);

#endif
