/*
 * ingest.h -- read artifacts (files, directories, compressed files,
 * archives) into a timeline.
 *
 * Ingest never prints: what it has to tell the user goes to the message
 * and progress callbacks of struct ingest_cfg, which the command line
 * supplies.
 */
#ifndef OOMLENS_INGEST_H
#define OOMLENS_INGEST_H

#include "analyzer/store/timeline.h"
#include "lib/fileset.h"

/* What became of the artifacts. An artifact is one file read by one
 * format (a syslog read by two line-log parsers is two), or one file
 * noted without being read; each is counted in files and in exactly one
 * of ok, partial, failed and skipped. */
struct ingest_stats {
	unsigned files;      /* artifacts */
	unsigned ok;         /* read without error (no_records of them gave nothing) */
	unsigned partial;    /* read, with errors: some content lost */
	unsigned failed;     /* nothing kept */
	unsigned skipped;    /* not read: no known format, not a regular file,
			      * a file met before by another path, an
			      * artifact already in the database, an oomlens output */
	unsigned no_records; /* of ok: nothing in them is a record oomlens keeps */
	unsigned duplicates; /* of skipped: already in the database (--append) */
	uint64_t records;    /* records the parsers produced */
	uint64_t bytes;      /* bytes read */
};

/* Where a run stands, for a progress line. */
struct ingest_progress {
	const char *path;    /* the artifact being read, NULL between artifacts */
	uint64_t offset;     /* bytes of it read (uncompressed) */
	uint64_t size;       /* its bytes on disk */
	int compressed;      /* 1: size is the gzip file's, offset the data's */
	unsigned files;      /* artifacts done so far */
	uint64_t bytes;      /* bytes read so far, all artifacts */
	double seconds;      /* since the run began */
	int done;            /* 1: the run is over (the line can be cleared) */
};

struct ingest_cfg {
	int quiet;           /* no per-artifact messages */
	int progress;        /* report progress (runs longer than a second) */
	const char *force_kind; /* --kind: skip detection */
	int follow_outside;  /* --follow-outside: read what links out of the
			      * folders given lead to (never /proc, /sys, /dev) */
	/* The identities of every directory walked and file read, with the
	 * paths they were first met by (filled by ingest_paths; the caller
	 * owns it); NULL: ingest keeps its own for the run. */
	struct fileset *seen;
	/* One line for the user, without prefix or newline ("x.log: skipped:
	 * not a format oomlens reads"); NULL: said to no one. */
	void (*message)(void *arg, const char *line);
	/* With progress: called at most ten times a second once the run has
	 * lasted a second (between artifacts, and every few MiB inside a
	 * large one), then once with done = 1 if it was called at all. */
	void (*on_progress)(void *arg, const struct ingest_progress *p);
	void *arg;           /* passed to both */
	/* The bytes one archive may unpack (every level of nesting counted);
	 * 0: the default, ar_default_limit() of its size on disk. */
	uint64_t max_unpacked;
	/* The archive members (every level) one run may meet; 0: AR_MAX_MEMBERS. */
	unsigned max_members;
};

/* Ingest every path (recursing into directories, in name order, each
 * directory and each file once however many links lead to it; hidden
 * names skipped). Only regular files are opened. Each artifact is one
 * transaction; an artifact whose path, format and content (hash) are
 * already in the database is skipped. Then aligns clocks. Returns 0 when at least
 * one artifact gave records, 1 when nothing usable came out, -1 when the
 * database itself failed. */
int ingest_paths(struct timeline *tl, char *const *paths, int npaths,
		 const struct ingest_cfg *cfg, struct ingest_stats *st);

struct format;
struct input;

/* Run format f's parser over in as tl's open artifact (between
 * timeline_artifact_begin and timeline_artifact_end): the parser writes
 * to the store's sink, teed (parsers/common/sink_tee.h) with the derive
 * stage's sinks, which see the same records as they are written (the
 * holders of a snapshot, analyzer/derive/holders.h). Returns what the
 * parser returns; its diagnostics are counted in tl->sink. */
int ingest_parse(struct timeline *tl, const struct format *f, struct input *in);

#endif
