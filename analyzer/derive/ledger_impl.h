/*
 * ledger_impl.h -- what the memory ledger's files share (ledger.c the
 * cards and the table, ledger_host.c the host): an account of lines, each
 * with its source, and the helpers that read a figure with where it came
 * from. Not for other rules.
 */
#ifndef OOMLENS_LEDGER_IMPL_H
#define OOMLENS_LEDGER_IMPL_H

#include "analyzer/derive/dctx.h"

#define LEDGER_LINES 16

/* One line of an account. */
struct lline {
	const char *line;          /* key (docs/schema.md) */
	char label[120];
	double bytes;
	int part;                  /* 1: a slice of the capacity; 0: a total or a note */
	const char *certainty;     /* stated, measured, inferred */
	const char *moment;        /* start-up, OOM, snapshot, last sample */
	char source[300];
	const char *ref_table;     /* NULL: none */
	int64_t ref_id;
};

/* One card's or the host's ledger. */
struct account {
	const char *scope;         /* gpu, host */
	char entity[200];          /* gpuN, a memcg path, host */
	int64_t device;            /* OL_NULL for the host */
	struct lline l[LEDGER_LINES];
	int n;
};

/* A sized figure and where it came from. */
struct fig {
	double v;                  /* -1: unknown */
	const char *certainty, *moment, *ref_table;
	int64_t ref_id;
	char source[240];
};

/* Add a line to a (none past LEDGER_LINES, nor a negative or unknown
 * size: NULL); its label from the line's key, its source formatted. */
struct lline *ledger_add(struct account *a, const char *line, double bytes, int part,
		  const char *certainty, const char *moment, const char *ref_table, int64_t ref_id,
		  const char *fmt, ...) __attribute__((format(printf, 9, 10)));
/* Line `line` of a, or NULL. */
struct lline *ledger_find(struct account *a, const char *line);
/* A line from figure f (none when f is unknown). */
struct lline *ledger_add_fig(struct account *a, const char *line, int part, const struct fig *f);
void ledger_fig_set(struct fig *f, double v, const char *certainty, const char *moment,
	     const char *ref_table, int64_t ref_id, const char *source);
/* The file name of artifact id into buf ("" unknown); returns buf. */
const char *ledger_art_name(struct rule_ctx *c, int64_t id, char *buf, size_t n);
/* The artifact that wrote sample rowid of series sid (the block's
 * sample_block.artifact_id: a series is one row across pastes); fallback
 * when its block names none. */
int64_t ledger_sample_art(struct rule_ctx *c, int64_t sid, int64_t rowid, int64_t fallback);
/* Column i as a size: -1 when NULL, negative or not finite. */
double ledger_col_size(sqlite3_stmt *st, int i);
/* "OOM", or "last sample" when the incident has no time. */
const char *ledger_at_oom(const struct rule_ctx *c);
/* Series name on entity: its highest value (last 0) or the last at or
 * before the OOM (1), what naming the tool. 0, or -1 none. */
int ledger_series_fig(struct rule_ctx *c, const char *name, const char *entity, int last,
	       const char *what, struct fig *f);
/* A positive numeric meta value of key. 0, or -1 none. */
int ledger_meta_fig(struct rule_ctx *c, const char *key, const char *certainty, struct fig *f);
/* The rest of the capacity (or of what is in use) the lines leave:
 * "unexplained" (label, NULL: the default), or "over_counted" with
 * why_over (NULL: read from the lines' moments and sources) when the
 * lines exceed it. A slice larger than the capacity becomes a note. */
void ledger_balance(struct account *a, const char *label, const char *why_over);
/* The allocator's peaks of card cuda ("cuda:N"; the first card also
 * takes entity "cuda", memory_stats's) as notes of a (ledger_torch.c). */
void ledger_peak_notes(struct rule_ctx *c, struct account *a, const char *cuda, int first);
/* The host's account into a: 1 when it has a line, 0 none, -1 failed. */
int ledger_host_account(struct rule_ctx *c, struct account *a);

#endif
