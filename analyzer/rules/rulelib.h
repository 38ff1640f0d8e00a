/*
 * rulelib.h -- what the rule modules share to read the timeline and write
 * findings: table/meta/series lookups (bucketed in SQL, so a week of
 * one-second samples becomes a few hundred points in one indexed pass),
 * the incident's OOM time, and finding + evidence writers.
 */
#ifndef OOMLENS_RULELIB_H
#define OOMLENS_RULELIB_H

#include "analyzer/store/timeline.h"
#include "analyzer/rules/stats.h"

#include <jansson.h>

#define RL_MAX_POINTS 400    /* buckets per series the rules look at */
#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)

/* A series reduced to at most RL_MAX_POINTS time buckets up to a cut-off. */
struct rl_series {
	int64_t id;
	char name[64], entity[160];
	int64_t t0_ns;              /* time of the first sample */
	int64_t width_ns;           /* bucket width */
	size_t n;
	double t[RL_MAX_POINTS];    /* seconds since t0 (bucket mean) */
	double avg[RL_MAX_POINTS];  /* bucket mean */
	double max[RL_MAX_POINTS];  /* bucket max */
	int64_t b[RL_MAX_POINTS];   /* bucket index on the grid */
	double last_t;              /* seconds of the last sample used */
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

/* 1 if a table (domain tables exist only when their parser is merged). */
int rl_table_exists(struct timeline *tl, const char *name);
/* A meta value as a number; 0 found, -1 absent or not a number. */
int rl_meta_num(struct timeline *tl, const char *key, double *out);
/* A meta value as text into buf; 0 found, -1 absent. */
int rl_meta_text(struct timeline *tl, const char *key, char *buf, size_t n);
/* One number from an SQL query (first column of first row); -1 if none/NULL. */
int rl_query_num(struct timeline *tl, const char *sql, double *out);
/* UTC ns of the incident: the first OOM-like event (torch_oom, oom_kill,
 * oom_invoked, cuda_exception with out of memory, userspace_kill) with a
 * time; OL_NULL when there is none. *ev_id (may be NULL) gets its id. */
int64_t rl_oom_time(struct timeline *tl, int64_t *ev_id);
/* Fill s with series id's samples with time_ns <= until_ns (OL_NULL: all),
 * bucketed into at most RL_MAX_POINTS buckets. 0, or -1 (no samples). */
int rl_series_load(struct timeline *tl, int64_t id, int64_t until_ns, struct rl_series *s);
/* Forget the series loads kept for reuse (analyze_timeline calls it
 * before and after the rules: the database may change in between). */
void rl_cache_reset(void);
/* Same on a given grid (bucket b = (time - t0) / width), for pairing. */
int rl_series_load_grid(struct timeline *tl, int64_t id, int64_t t0, int64_t t1,
			int64_t width, struct rl_series *s);
/* Analyse a loaded series (see struct rl_trend). A final rise must exceed
 * 6 sigma of the residuals, 3% of the level and min_rise (units of the
 * series; rl_trend: 64 MiB). 0, or -1 (too few points). */
int rl_trend_ex(const struct rl_series *s, double min_rise, struct rl_trend *tr);
int rl_trend(const struct rl_series *s, struct rl_trend *tr);
/* Pearson correlation of two series on a's grid (pairs of buckets both
 * have); 0, or -1 when fewer than 8 pairs. */
int rl_correlation(struct timeline *tl, const struct rl_series *a, int64_t b_id, double *r);
/* Memory a request needs, in bytes: the slope of memory in use against
 * server.running (paired on one grid), else the torch_oom request size.
 * how gets a short description. 0, or -1 unknown. */
int rl_per_request(struct timeline *tl, int64_t until_ns, double *bytes, const char **how);
/* Size of the allocation that failed (first torch_oom: data
 * requested_bytes or bytes). 0, or -1 none. */
int rl_oom_request(struct timeline *tl, double *bytes);
/* Capacity of the device the incident ran out of: gpu.total_bytes series,
 * meta gpu.total_bytes.gpuN, torch_oom data. 0, or -1 unknown. */
int rl_gpu_total(struct timeline *tl, double *bytes);

/* Memory in use after start-up of a series name (first entity with
 * samples): the median of the 10 points after it first reaches 90% of
 * the median of its first third. 0, or -1 when there is no such series. *id gets the series. */
int rl_baseline(struct timeline *tl, const char *name, int64_t until_ns, double *bytes,
		int64_t *id);

/* What a memory series can grow to: the GPU total for gpu.* and torch.*
 * series, the cgroup limit (meta cgroup.max_bytes) for proc.* and
 * cgroup.* ones. 0, or -1 unknown. */
int rl_capacity_of(struct timeline *tl, const char *series, double *cap);

/* Value of series (name, entity) nearest before t_ns (or last); -1 none. */
int rl_value_at(struct timeline *tl, const char *name, const char *entity,
		int64_t t_ns, double *out);

/* Indexes the rules' alloc queries need (created if the snapshot store
 * did not): alloc(state, stack_id, alloc_ns, size), alloc(alloc_ns). */
int rl_alloc_indexes(struct timeline *tl);

/* The memory-in-use series the trend rules look at, in preference order. */
extern const char *const rl_memory_series[];

/* A finding being built: figures and advice are added, then written. */
struct rl_finding {
	const char *rule, *class_, *cause;
	double score;
	char title[300];
	char advice[1200];
	json_t *figures;
};
void rl_finding_init(struct rl_finding *f, const char *rule, const char *class_,
		     const char *cause);
void rl_fig(struct rl_finding *f, const char *key, double v);
void rl_advice(struct rl_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Write it (frees figures); returns the finding id or -1. */
int64_t rl_finding_write(struct timeline *tl, struct rl_finding *f);
void rl_finding_drop(struct rl_finding *f);
int rl_evidence(struct timeline *tl, int64_t finding_id, const char *table, int64_t id,
		const char *note);
/* Column i of a row as text, "?" when NULL (for titles). */
const char *rl_col_text(sqlite3_stmt *st, int i);
/* "1.25 GiB" / "512.0 MiB" into buf. */
const char *rl_bytes(double b, char *buf, size_t n);
/* clamp to [0,1] */
double rl_clamp01(double x);

#endif
