/*
 * ingest.h -- read artifacts (files, directories, .gz) into a timeline.
 *
 * Ingest never prints: what it has to tell the user goes to the message
 * and progress callbacks of struct ingest_cfg, which the command line
 * supplies.
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

/* Where a large artifact's reading stands. */
struct ingest_progress {
	const char *path;
	uint64_t offset;     /* bytes read (uncompressed) */
	uint64_t size;       /* bytes on disk */
	int compressed;      /* 1: size is the gzip file's, offset the data's */
	double seconds;      /* since the artifact began */
	int done;            /* 1: the artifact is read; no offset given */
};

struct ingest_cfg {
	int quiet;           /* no per-artifact messages */
	int progress;        /* report progress (of artifacts of 64 MiB and more) */
	const char *force_kind; /* --kind: skip detection */
	/* One line for the user, without prefix or newline ("x.log: skipped:
	 * not a format oomlens reads"); NULL: said to no one. */
	void (*message)(void *arg, const char *line);
	/* With progress: called every 16 MiB read of a large artifact, then
	 * once with done = 1 after it if it was called for it. */
	void (*on_progress)(void *arg, const struct ingest_progress *p);
	void *arg;           /* passed to both */
};

/* Ingest every path (recursing into directories, in name order). Each
 * artifact is one transaction. Then aligns clocks. Returns 0 when at least
 * one artifact gave records, 1 when nothing usable came out, -1 when the
 * database itself failed. */
int ingest_paths(struct timeline *tl, char *const *paths, int npaths,
		 const struct ingest_cfg *cfg, struct ingest_stats *st);

#endif
