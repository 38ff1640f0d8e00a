/*
 * dctx.h -- the context of one analysis, shared by the derive passes that
 * need it (the ledger, the what-if replays) and the rules: reading the
 * timeline through the store's query layer with errors kept in that
 * context (dctx.c), memory series bucketed in SQL and their shape
 * (series.c: a week of one-second samples becomes a few hundred points
 * in one indexed pass), the incident's figures (OOM time, capacity,
 * baseline, per-request need) and what PyTorch's OOM message says of the
 * card (card.c). Nothing here judges: the findings and the verdict are
 * the rules' (analyzer/derive/dctx.h).
 *
 * Errors: a helper whose query cannot be prepared or whose write fails
 * records the first such message in the context (c->err) and answers as
 * if the evidence were absent (-1, 0 or NULL as it says); the rule goes
 * on or returns -1, and analyze_timeline() fails the analysis with that
 * message once the rule is done. Nothing here prints.
 */
#ifndef OOMLENS_DCTX_H
#define OOMLENS_DCTX_H

#include "analyzer/store/query.h"
#include "analyzer/store/timeline.h"
#include "analyzer/derive/stats.h"

#include <jansson.h>

#define RL_MAX_POINTS 400    /* buckets per series the rules look at */
/* ten minutes: as long as a leak must last, and a load must have been
 * carried to be the service's steady load (startup.c, servwhatif.c) */
#define RL_HISTORY_MIN_S 600.0
#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)

/* What a memory series measures: a GPU's memory or a host's (a process,
 * a cgroup, a container). */
enum rl_scope { RL_SCOPE_GPU, RL_SCOPE_HOST };

/* A series reduced to at most RL_MAX_POINTS time buckets up to a cut-off. */
struct rl_series {
	int64_t id;
	int64_t t0_ns;              /* time of the first sample */
	int64_t width_ns;           /* bucket width */
	size_t n;
	double t[RL_MAX_POINTS];    /* seconds since t0 (bucket mean) */
	double avg[RL_MAX_POINTS];  /* bucket mean */
	double max[RL_MAX_POINTS];  /* bucket max */
	int64_t b[RL_MAX_POINTS];   /* bucket index on the grid */
	double last_t;              /* seconds of the last sample used */
	int scope;                  /* enum rl_scope of a memory series; -1 none */
};

/* The shape of a memory series before the OOM: a robust trend over what
 * precedes a final rise, and that rise (a change point on the residuals
 * of the trend, so a spike on top of a slow leak is seen as both). */
struct rl_trend {
	struct fit fit;             /* over the points before the final rise */
	double duration_s;          /* span of those points */
	double level_start, level_end; /* fitted values at both ends */
	double growth;              /* slope * duration (units of the series) */
	int rise;                   /* 1: a final rise was found */
	size_t rise_at;             /* its first point */
	double rise_start_t, rise_peak_t; /* seconds since t0 */
	double baseline, peak, noise; /* level before it, max after, sigma */
};

/* The last series loads, kept for the other rules of the same analysis:
 * leak, spike, headroom and per-request estimates read the same series on
 * the same grid. Keyed by (id, t0, t1, width); a ring of RL_CACHE. */
#define RL_CACHE 6
struct rl_cached {
	int used;
	int64_t id, t0, t1, width;
	struct rl_series s;
};

/* A finding's advice on one knob (rl_knob), kept for the verdict's
 * pass that leaves one value per knob (verdict.c). */
#define RL_MAX_KNOBS 48
struct rl_knob_note {
	int64_t finding;            /* the finding's id */
	double score;
	char class_[16], cause[48];
	char knob[40], flag[48];    /* its key and how the engine spells it */
	double value;
	char base[1200];            /* the advice without the knob's sentence */
	char title[300];            /* why: the finding's title */
};

/* One analysis: what its rules share, made by analyze_timeline() and
 * passed to every rule and helper. The database is the only input; this
 * holds what is derived from it once (the OOM time), the first error, the
 * series cache and scratch space too large for the stack. Each scratch
 * member names the helpers that use it: a caller never passes one into a
 * helper that uses the same one. */
struct rule_ctx {
	struct timeline *tl;        /* NULL in a derive pass (dctx_pass) */
	sqlite3 *db;                /* tl->db */
	int64_t oom_ns;             /* the incident (rl_oom_time); OL_NULL: none */
	int has_oom;                /* rl_has_oom: 0 when no artifact records an OOM */
	int failed;                 /* 1 once a query or write failed */
	char err[300];              /* the first failure's message */
	struct rl_cached cache[RL_CACHE];
	unsigned cache_next;
	struct rl_series cur;       /* one-off loads: rl_pick_memory_series, rl_baseline, the rules */
	struct rl_series best;      /* the series rl_pick_memory_series picked */
	struct rl_series x, y;      /* pairs on one grid: rl_per_request (x, y), rl_correlation (y), leak's load (x) */
	double v1[RL_MAX_POINTS], v2[RL_MAX_POINTS]; /* values of pairs: rl_per_request, rl_correlation, rl_baseline (v1) */
	struct rl_knob_note knobs[RL_MAX_KNOBS]; /* rl_finding_write, for verdict.c */
	size_t n_knobs;
};

/* ---- the context and its errors (dctx.c) ---- */

struct strbuf;
/* A derive pass (derive.h) over a context of its own: made for db (tl
 * NULL, oom_ns from rl_oom_time), handed to fn, freed. 0, or -1 with the
 * context's failure (else "failed") in err (may be NULL). */
int dctx_pass(sqlite3 *db, struct strbuf *err, int (*fn)(struct rule_ctx *c));

/* Record msg as the analysis's failure ("sqlite: msg") unless one is
 * recorded already; returns -1. */
int rl_fail(struct rule_ctx *c, const char *msg);
/* rl_fail with the database's last error message. */
int rl_sql_failed(struct rule_ctx *c);
/* Prepare sql; NULL (failure recorded) when it does not prepare. */
sqlite3_stmt *rl_prepare(struct rule_ctx *c, const char *sql);
/* sql's first row: 1 with *st stepped onto it (the caller reads its
 * columns, then finalizes it); 0 when sql gives no row; -1 when sql
 * does not prepare or its step fails (json_extract on text that is not
 * JSON, say), the failure recorded either way: an error is never read
 * as "nothing found". *st is NULL unless 1. For a query that binds
 * nothing; one with parameters keeps rl_prepare and its binds. */
int rl_first_row(struct rule_ctx *c, const char *sql, sqlite3_stmt **st);
/* Finalize st after a loop of steps (while sqlite3_step(st) ==
 * SQLITE_ROW): 0 when its last step ended the rows; -1 with the step's
 * error recorded when one failed, so that the loop's end is not read as
 * "no more rows". st may be NULL (0). */
int rl_finalize(struct rule_ctx *c, sqlite3_stmt *st);
/* The first column of sql's first row as text into out (n bytes, "" when
 * none): 1 found, 0 no row or sql failed (failure recorded). */
int rl_first_text(struct rule_ctx *c, const char *sql, char *out, size_t n);
/* Run SQL statements that return no rows; 0, or -1 (failure recorded). */
int rl_exec(struct rule_ctx *c, const char *sql);
/* A rule made of parts (rl_run_parts). */
typedef int rl_part(struct rule_ctx *c);
/* Run parts (NULL-terminated) in order: the findings they wrote, or -1 at
 * the first that fails. */
int rl_run_parts(struct rule_ctx *c, rl_part *const parts[]);

/* ---- reading the timeline (dctx.c) ---- */

/* One number: the first column of the first row of the query fmt builds
 * (sqlite3_mprintf: write a literal % as %%). 0 found, -1 none or NULL. */
int rl_num(struct rule_ctx *c, double *out, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A meta value as text into buf (q_meta); 0 found, -1 absent. */
int rl_meta_text(struct rule_ctx *c, const char *key, char *buf, size_t n);
/* A meta value as a number; 0 found, -1 absent or not a number. */
int rl_meta_num(struct rule_ctx *c, const char *key, double *out);
/* Id of the first series (lowest id) named name, only among those with
 * samples when sampled is 1; 0 when there is none. */
int64_t rl_series_id(struct rule_ctx *c, const char *name, int sampled);
/* Value of series (name, entity; NULL: any) nearest at or before t_ns
 * (OL_NULL: the last); 0, or -1 none. */
int rl_value_at(struct rule_ctx *c, const char *name, const char *entity,
		int64_t t_ns, double *out);
/* UTC ns of the incident: the time of "the OOM", row 1 of the derived
 * table oom (analyzer/derive/oom.h); OL_NULL when it has no UTC time or
 * there is no OOM. analyze_timeline() and dctx_pass keep it in c->oom_ns. */
int64_t rl_oom_time(struct rule_ctx *c);
/* 1 when the derived table oom has a row (an artifact records an OOM, a
 * kill or a memory failure), else 0. Kept in c->has_oom: a rule that words
 * a moment says "before the OOM" only then. */
int rl_has_oom(struct rule_ctx *c);
/* SQL: the event id of the kill rules read as "the" kernel report's (the
 * oom_kill victim of the first kernel row of table oom), and that of its
 * header (the first kernel row's oom_invoked; a kill with no header in
 * the log gives none). */
#define RL_KERNEL_KILL "(SELECT o.victim_event FROM oom o JOIN event k ON k.id = o.victim_event" \
	" WHERE k.kind = 'oom_kill' ORDER BY o.id LIMIT 1)"
#define RL_KERNEL_HEADER "(SELECT event_id FROM oom WHERE kind IN ('kernel_oom', 'memcg_oom')" \
	" ORDER BY id LIMIT 1)"

/* ---- the incident's figures (dctx.c, series.c) ---- */

/* Size of the allocation that failed on a card: the first row of the
 * derived table oom on a GPU that states one. 0, or -1 none. */
int rl_oom_request(struct rule_ctx *c, double *bytes);
/* Capacity of the device the incident ran out of: gpu.total_bytes series,
 * meta gpu.total_bytes.gpuN, torch_oom data. 0, or -1 unknown. */
int rl_gpu_total(struct rule_ctx *c, double *bytes);
/* What a memory series can grow to: the GPU total for a GPU series
 * (rl_series_scope), the cgroup limit (meta cgroup.max_bytes) for a host
 * one. 0, or -1 unknown. */
int rl_capacity_of(struct rule_ctx *c, const char *series, double *cap);
/* The same for a scope (enum rl_scope; -1: unknown). */
int rl_capacity_scope(struct rule_ctx *c, int scope, double *cap);
/* Memory a request needs, in bytes: the slope of memory in use against
 * server.running (paired on one grid, up to until_ns), else the torch_oom
 * request size. how gets a short description. 0, or -1 unknown. */
int rl_per_request(struct rule_ctx *c, int64_t until_ns, double *bytes, const char **how);
/* Memory in use after start-up of a series name (first entity with
 * samples): the median of the 10 points after it first reaches 90% of
 * the median of its first third. 0, or -1 when there is no such series.
 * *id (may be NULL) gets the series. */
int rl_baseline(struct rule_ctx *c, const char *name, int64_t until_ns, double *bytes,
		int64_t *id);

/* ---- series (series.c) ---- */

/* The memory-in-use series the trend rules look at, in preference order
 * (series.c): the name, the scope it measures, the unit its values are
 * in (bytes per value), and for a series whose name does not say what it
 * is (grafana.series: the entity is the panel's series name) that the
 * entity must name memory. NULL-terminated. */
struct rl_memory_kind {
	const char *name;
	enum rl_scope scope;
	double unit;
	int entity_named;
};
extern const struct rl_memory_kind rl_memory_series[];
/* The scope (enum rl_scope) a series of this name and entity (may be
 * NULL) measures as memory in use, and its unit into *unit (may be NULL);
 * -1 when it is not a memory-in-use series. */
int rl_series_scope(const char *name, const char *entity, double *unit);

/* 1 when a memory-in-use series (rl_memory_series) has 8 samples with a
 * time or more, else 0. */
int rl_has_memory_series(struct rule_ctx *c);
struct samples_iter;
/* The samples of series id with a value and a time in [t0, t1] into it
 * (analyzer/store/samples.h), in time order; *unit what turns its values
 * into bytes for a memory series whose unit is not (rl_series_scope), 1
 * otherwise. 0 (the caller closes it), or -1 failed (c->failed). */
int rl_samples(struct rule_ctx *c, int64_t id, int64_t t0, int64_t t1, struct samples_iter *it,
	       double *unit);
/* Fill s with series id's samples with time_ns <= until_ns (OL_NULL: all),
 * bucketed into at most RL_MAX_POINTS buckets. 0, or -1 (no samples). */
int rl_series_load(struct rule_ctx *c, int64_t id, int64_t until_ns, struct rl_series *s);
/* Same on a given grid (bucket b = (time - t0) / width), for pairing. */
int rl_series_load_grid(struct rule_ctx *c, int64_t id, int64_t t0, int64_t t1,
			int64_t width, struct rl_series *s);
/* Analyse a loaded series (see struct rl_trend). A final rise must exceed
 * 6 sigma of the residuals, 3% of the level and min_rise (units of the
 * series; rl_trend: 64 MiB). 0, or -1 (too few points). */
int rl_trend_ex(const struct rl_series *s, double min_rise, struct rl_trend *tr);
int rl_trend(const struct rl_series *s, struct rl_trend *tr);
/* Pearson correlation of bucket maxima of a and series b_id on a's grid
 * (pairs of buckets both have); 0, or -1 when fewer than 8 pairs. */
int rl_correlation(struct rule_ctx *c, const struct rl_series *a, int64_t b_id, double *r);

/* The memory series a trend rule picked (rl_pick_memory_series). */
struct rl_pick {
	const char *name;           /* its rl_memory_series name; NULL: none */
	char entity[160];           /* "?" when NULL */
	const struct rl_series *s;  /* its load: c->best */
	struct rl_trend tr;         /* its trend */
	double score;               /* what the judge gave it */
};

/* How a rule scores one memory series (name, its load s cut at the OOM,
 * its trend): > 0 keeps it in the running, 0 skips it. A judge must not
 * use c->cur or c->best (s is c->cur). */
typedef double rl_judge(struct rule_ctx *c, const char *name, const struct rl_series *s,
			const struct rl_trend *tr);

/* For each memory series (rl_memory_series, every entity), cut at the
 * OOM: load it, rl_trend it, judge it; keep the best-scoring (the first of
 * equals) in *pick, its load in c->best. 1 picked, 0 none, -1 failed. */
int rl_pick_memory_series(struct rule_ctx *c, rl_judge *judge, struct rl_pick *pick);

/* ---- the card at a PyTorch OOM (card.c) ---- */

/* What PyTorch's out-of-memory message says of the card, read from the
 * first torch_oom event that states the card's capacity (the message; a
 * snapshot's own oom entry states none), and what follows from it. Sizes
 * are bytes; -1 where the message does not say. The rules that weigh it:
 * capacity.c (capacity, other processes, non-PyTorch memory, a request
 * larger than the card) and fragmentation.c (the cache that was reserved
 * but not allocated). */
struct rl_card {
	int64_t ev;                 /* the torch_oom event; 0: none read */
	int64_t pid;                /* its pid; OL_NULL unknown */
	double total;               /* the card's capacity */
	double limit;               /* what this process may use: the allowed
				     * memory fraction when below total, else total */
	double req, free, alloc, reserved, unalloc, pools;
	double self;                /* the driver's count for this process ("this
				     * process has X in use", or its own "Process N"
				     * line in a container) */
	int self_unseen;            /* the driver said "0 bytes" for this process
				     * while PyTorch holds memory: NVML cannot see
				     * it (a container's pid namespace); self is then
				     * unknown, its memory unattributed, never 0 */
	double non_pytorch;         /* self - reserved: CUDA context, NCCL, cuBLAS,
				     * other libraries in this process */
	double others;              /* the other processes' lines, summed (0: none) */
	int n_others;
	int64_t top_pid;            /* the largest other process; OL_NULL none */
	double top_bytes;
	int listed;                 /* the message lists processes (2.1+ with NVML) */
	double outside;             /* total - self - free when self is known (other
				     * processes, listed or not, and the driver);
				     * else total - reserved - free (that plus this
				     * process's non-PyTorch memory); when reserved is
				     * unknown, total - alloc - free (that plus
				     * PyTorch's own cache) */
	int outside_proven;         /* the listed processes make up most of outside */
	double room;                /* reserved + free, at most limit: what this
				     * process's allocator could reach */
	int room_bound;           /* no reserve stated: room is self + free, else
				     * the card, an upper bound (the fill a lower one) */
	double need;                /* alloc + req: the live tensors and the request */
	int free_held;              /* free exceeded the request by more than the
				     * driver's slack: the message does not explain
				     * the failure */
	int capped;                 /* a per-process cap ("C allowed;", limit below
				     * total) that reserved + request exceed: the cap,
				     * not the card, ran out (free_held is then 0) */
	double free_reach;          /* free within the cap: min(free, limit -
				     * reserved) when capped below the card, else
				     * free; -1 unknown */
	int oversubscribed;         /* alloc > total (WDDM shared system memory):
				     * the figures are not those of one card */
	char wording[32];
};

/* Read c's first torch_oom that states a capacity into k. 1 read, 0 none
 * (k->ev = 0), -1 failed. */
int rl_card_read(struct rule_ctx *c, struct rl_card *k);
/* The cache reserved but not allocated is a real share of the card
 * (RL_FRAG_MIN_SHARE): 1, 0 not, -1 unknown (no capacity or no cache
 * figure). */
int rl_card_frag_real(const struct rl_card *k);
/* That cache plus the free memory would have held the request. */
int rl_card_frag_holds(const struct rl_card *k);
/* This process's need (live tensors and the request, with its context)
 * fits the card alone: 1, else 0 (or unknown). */
int rl_card_fits_alone(const struct rl_card *k);
/* Crowded out: memory outside this process's PyTorch (other processes,
 * proven or not: k->outside_proven says) held a quarter of the card and
 * at least 1 GiB, and this process would have fitted alone. The capacity
 * rule's other_process finding and the start-up rule read the same test. */
int rl_card_crowded_out(const struct rl_card *k);

#define RL_FRAG_MIN_SHARE 0.05      /* reserved-unallocated / card */
#define RL_OTHER_MIN_SHARE 0.25     /* memory outside this process / card: crowded out */
#define RL_CTX_GUESS (512 * MIB)    /* a CUDA context, when the message does not say */
#define RL_LONE_MAX_SCORE 0.68      /* a cause one message makes likely, not proves */

/* ---- formatting (dctx.c) ---- */

/* "1.25 GiB" / "512 MiB" into buf: lib/bytes.h's one rule, as every report. */
const char *rl_bytes(double b, char *buf, size_t n);
/* A stack for a finding's title, into buf: named by the one rule of
 * lib/userframe.h (userframe_stack_label: the user's frame as "file:line
 * name", as the holders name it), read over all its frames; "(no frames)"
 * when it has none or they cannot be read (c->err says why). */
const char *rl_stack_label(struct rule_ctx *c, int64_t stack, char *buf, size_t n);
/* clamp to [0,1] */
double rl_clamp01(double x);
/* A size to advise, rounded up: to 64 MiB up to 4 GiB (a 300 MiB
 * container limit a quarter higher is 384 MiB, not 1 GiB), to GiB above. */
double rl_round_up_size(double b);

#endif
