/*
 * archive.h -- walk an archive (tar, plain or compressed; zip; archives
 * nested in archives; a compressed member) member by member, from a
 * stream, without extracting anything to disk.
 *
 * The walk reads the archive through a struct input (a file opened by
 * input_open, so a .tar.gz or .tar.xz arrives already uncompressed, or an
 * outer archive's member) with libarchive, and hands each regular member
 * to a callback as an input of its own. A member whose first bytes are an
 * archive or a compressed stream is walked in turn (up to AR_MAX_DEPTH
 * levels). Member names are data: escaped for display, never opened,
 * never joined into a path on disk. What is unpacked is bounded (bytes
 * and members, struct ar_budget): past the bound the walk stops with why,
 * and what was read before stays.
 */
#ifndef OOMLENS_ARCHIVE_H
#define OOMLENS_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/input.h"

#define AR_MAX_DEPTH 4                       /* archives inside archives */
#define AR_SPOOL_MAX (16u << 20)             /* a member this size or less is held
					      * in memory (read again for a second
					      * format); a larger one is streamed once */
#define AR_MAX_MEMBERS 100000u               /* entries of every kind, per run */
#define AR_UNPACKED_FLOOR (512ull << 20)     /* the bound of an archive's unpacked */
#define AR_UNPACKED_RATIO 200u               /* bytes: the floor, or this many times
					      * its size on disk when more, */
#define AR_UNPACKED_MAX (64ull << 30)        /* never more than this */
#define AR_NAME_MAX 1024                     /* a member's name, escaped, is cut here */

/* What a walk may unpack, and what it did; one per ingest run (limit
 * set, unpacked and why reset by each ar_walk; members counted over the
 * run). */
struct ar_budget {
	uint64_t limit;        /* bytes the current top archive may unpack */
	uint64_t unpacked;     /* bytes it unpacked (every level counted) */
	unsigned members;      /* entries met in the run */
	unsigned max_members;  /* the bound on members (0: AR_MAX_MEMBERS) */
	int refused;           /* the walk was stopped at a bound */
	int damaged;           /* a nested archive was cut short or corrupt */
	char why[400];         /* then why; or why a walk ended early (the
				* first archive that did, and what it said) */
};

/* The bytes an archive of size bytes on disk may unpack by default: the
 * floor, or AR_UNPACKED_RATIO times its size, at most AR_UNPACKED_MAX. */
uint64_t ar_default_limit(uint64_t size);

/* One member, as the callback gets it. */
struct ar_member {
	const char *container; /* the archive it is in: the file's path, then
				* "!/" and the inner path of each archive it
				* is nested in */
	const char *path;      /* its path inside, escaped (control bytes,
				* invalid UTF-8 as \xNN) */
	struct input *in;      /* open at its first byte */
	uint64_t size;         /* its size as the archive says, 0 unknown */
	int64_t mtime;         /* its time as the archive says (a year-less log's
				* year is inferred from it), 0 unknown */
	int compressed;        /* 1: a compressed member, read uncompressed */
	const unsigned char *data; /* the member whole in memory (size len),
				    * or NULL when streamed (over AR_SPOOL_MAX) */
	size_t len;
};

/* Open m again at its first byte into in (a member held in memory); -1
 * for a streamed member, which is read once. */
int ar_member_reopen(const struct ar_member *m, struct input *in);

/* Called for each regular member that is not itself an archive; returns
 * 0, or -1 to stop the walk (the store failed). It may read m->in as far
 * as it likes; the walk reads the rest (counted in the budget). */
typedef int (*ar_member_fn)(void *arg, struct ar_member *m);

/* 1 when head (n bytes) is the start of an archive the walk reads: tar
 * (ustar or GNU) or zip. */
int ar_sniff(const unsigned char *head, size_t n);

/* Walk the archive src holds, named container, calling fn for each
 * member. Returns 0 when it was walked to its end; 1 when it stopped
 * early (cut short, corrupt, or a bound: b->refused; why in b->why),
 * what came before having been handed to fn; -1 when fn returned -1 or
 * memory ran out. */
int ar_walk(struct input *src, const char *container, struct ar_budget *b, ar_member_fn fn,
	    void *arg);

#endif
