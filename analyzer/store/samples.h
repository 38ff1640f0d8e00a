/*
 * samples.h -- the samples of the time series, stored as blocks per
 * series: how the store writes them, changes them and reads them.
 *
 * A server log gives two million samples a GiB, a day of 1 s metrics as
 * many; as SQLite rows with their (series, time) index they were most of
 * an ingest's cost and of its database. `sample` is now a packed table
 * (packed.h) whose blocks each hold up to SAMPLES_BLOCK_ROWS samples of
 * one series, in the order the parser gave them (sample_block.parent is
 * the series): the ingest keeps a block open per series and writes it
 * when it is full or when the store flushes, so no index is built and
 * the series' reads find its blocks by their parent.
 *
 * The two changes made to samples after they are written -- a series'
 * shift by a constant (a snapshot's allocated bytes placed on the
 * allocator's zero) and the boot clock's alignment -- rewrite the blocks
 * concerned (samples_shift, samples_align_boot). Readers go through
 * samples_read_*, or the `sample` virtual table in SQL (same columns and
 * rowids as the plain table it replaced: series_id, time_ns, boot_ns,
 * value; a series' rowids climb in the order its samples came).
 */
#ifndef OOMLENS_SAMPLES_H
#define OOMLENS_SAMPLES_H

#include <sqlite3.h>
#include <stdint.h>

#include "parsers/common/sink.h"

struct timeline;

#define SAMPLES_BLOCK_ROWS 1024  /* samples of one series in a block, at most */

/* ---- the ingest's side (the timeline's; not for rules or reports) ---- */

/* Keep the sample (series, time t, value) in its series' open block; a
 * full block is written at once. NaN is stored as NULL, as before.
 * Returns 1, or -1 with the store's error (tl->errmsg). */
int64_t samples_add(struct timeline *tl, int64_t series_id, const struct ol_time *t,
		    double value);
/* Write every open block (before samples are read or the artifact ends).
 * 0 or -1. */
int samples_flush(struct timeline *tl);
/* Forget the open blocks (the artifact is rolled back). */
void samples_discard(struct timeline *tl);
/* Free the open blocks and the statements (timeline_close). */
void samples_release(struct timeline *tl);
/* The last block's id now (0 when none): the blocks written after it
 * are the current artifact's. -1 on error. */
int64_t samples_last_block(struct timeline *tl);
/* Add delta to every value of the series' samples in blocks after
 * after_block (NULL stays NULL). 0 or -1. */
int samples_shift(struct timeline *tl, int64_t series_id, double delta, int64_t after_block);
/* Multiply by factor every value of the series' samples in the blocks
 * artifact_id wrote (a paste read in the wrong unit, rescaled once by
 * analyzer/derive/freeunit.c). 0 or -1. */
int samples_scale(struct timeline *tl, int64_t series_id, int64_t artifact_id, double factor);
/* Give each sample with no time_ns but a boot_ns the time boot_ns + off.
 * 0 or -1. */
int samples_align_boot(struct timeline *tl, int64_t off);

/* ---- reading: SQL functions (samples_read.c) ---- */

/* Register on db sample_count(series_id), sample_first_ns(series_id
 * [, to_ns [, min_value]]), sample_last_ns(series_id [, to_ns]) and
 * sample_max(series_id [, from_ns, to_ns]) (samples_read.c says what
 * each answers), from the series' blocks. The store registers them on
 * every connection; readers ask a series' span, size and highest value
 * through them rather than with count, min or max over `sample`.
 * Returns SQLite's result code. */
int samples_register(sqlite3 *db);

/* ---- reading a series row by row (samples_iter.c) ---- */

/* One sample; has_* 0 where the column is NULL (then the field is 0). */
struct sample_rec {
	int64_t rowid, time_ns, boot_ns;
	double value;
	unsigned char has_time, has_boot, has_value;
};

/* Whether a comes before b in the order `ORDER BY time_ns, rowid` gives
 * (no time first): merges the iterators of several series. */
static inline int samples_rec_before(const struct sample_rec *a, const struct sample_rec *b)
{
	if (a->has_time != b->has_time)
		return !a->has_time;
	if (a->has_time && a->time_ns != b->time_ns)
		return a->time_ns < b->time_ns;
	return a->rowid < b->rowid;
}

#define SI_VALUED  1   /* only samples with a value */
#define SI_BOUNDED 2   /* only samples whose clock lies in [from, to] */
#define SI_BOOT    4   /* the clock is boot_ns, not time_ns */

/* A series' samples in the order of its clock: a block's rows at a time
 * when they come in that order, else all of them, sorted at open. */
struct samples_iter {
	int flags, streaming, done;
	int odd;                /* a time that is no integer or a value that is no
				 * number was seen (written by hand in SQL): read
				 * as NULL here, so a reader that must match SQL
				 * exactly leaves such a series to SQL */
	int64_t from, to;
	sqlite3_stmt *blocks;   /* the series' blocks in order */
	struct sample_rec *row; /* rows [at, n) still to give */
	size_t n, cap, at;
	void *scratch;          /* a block's decoded columns */
	size_t scratch_rows;
	const char *err;        /* why open (or a later block) failed */
};

/* Read series sid's samples from db into it: those flags keep, ordered
 * by the clock (time_ns, or boot_ns with SI_BOOT), samples without it
 * first, ties in the order the samples came (rowid) -- what `SELECT ...
 * FROM sample WHERE series_id = sid [AND clock BETWEEN from AND to] [AND
 * value IS NOT NULL] ORDER BY clock, rowid` gives. 0, or -1 with it->err
 * (nothing to close then). */
int samples_iter_open(struct samples_iter *it, sqlite3 *db, int64_t sid, int flags,
		      int64_t from, int64_t to);
/* The next sample, or NULL after the last (or when a block could not
 * be read: it->err says why). Valid until the next call. */
const struct sample_rec *samples_iter_next(struct samples_iter *it);
void samples_iter_close(struct samples_iter *it);

#endif
