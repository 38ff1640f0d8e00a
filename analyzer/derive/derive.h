/*
 * derive.h -- the incident's facts, computed once (analyzer/derive/).
 *
 * Between the store, which records what the artifacts say, and the rules,
 * which judge: every fact that more than one reader needs (the OOMs and
 * "the OOM" among them, the victim, each account's peak...) is computed
 * here, once, into tables of the incident database (docs/schema.md).
 * Rules and reports read those tables; neither recomputes them.
 *
 * Each derivation is a pass (struct derive_pass): it drops and rebuilds
 * its own tables from the store's, so running derive_incident() twice
 * gives the same database. Passes run in the order of derive_passes[],
 * later ones may read what earlier ones wrote.
 */
#ifndef OOMLENS_DERIVE_H
#define OOMLENS_DERIVE_H

#include <sqlite3.h>

struct strbuf;
struct timeline;

struct derive_pass {
	const char *name;
	const char *what;               /* one line: the tables it writes */
	int (*run)(sqlite3 *db, struct strbuf *err);   /* 0, or -1 with why in err */
};

extern const struct derive_pass derive_passes[];

/* The passes (one file each). */
int derive_peak(sqlite3 *db, struct strbuf *err);     /* peak.c: table peak */

/* Run every pass inside the caller's transaction (analyze_timeline()
 * holds one). 0, or -1 with "derive <pass>: why" in err (may be NULL);
 * the caller rolls back. Prints nothing. */
int derive_incident(struct timeline *tl, struct strbuf *err);
/* A free(1) paste's guessed unit checked against a RAM total another
 * artifact states; its samples and figures rescaled once when they differ
 * by a power of 1024 (freeunit.c). Run first by derive_incident. 0 or -1
 * with why in err. */
int derive_freeunit(struct timeline *tl, struct strbuf *err);

/* Run the one pass named name (derive_passes[]), as derive_incident()
 * would: for a caller that built the other tables itself (a test of a
 * report). 0, or -1 with why in err (an unknown name included). */
int derive_one(struct timeline *tl, const char *name, struct strbuf *err);

/* The passes (derive.c's derive_passes[]). */
/* The what-if replays of each snapshot's allocator trace: table whatif
 * (whatif.c). */
int derive_whatif(sqlite3 *db, struct strbuf *err);
/* The memory ledger of each card and the host: table ledger (ledger.c). */
int derive_ledger(sqlite3 *db, struct strbuf *err);
/* Each account's memory profile (headroom, growth, time to its limit,
 * which runs out first): table profile (profile.c). */
int derive_profile(sqlite3 *db, struct strbuf *err);

#endif
