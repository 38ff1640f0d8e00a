/*
 * testutil_rules.h -- what the rule tests share: timelines built through
 * the sink API (series of a shape, meta, a torch_oom event) from T_RULES_T0,
 * and the findings' counts and figures.
 */
#ifndef OOMLENS_TESTUTIL_RULES_H
#define OOMLENS_TESTUTIL_RULES_H

#include "testutil.h"

#define T_RULES_T0 1795953600LL   /* 2026-11-29T12:00:00Z, in seconds */

/* The value of sample i of n given the shape's parameters p. */
typedef double (*shape_fn)(int i, int n, const double *p);

/* Open / close one synthetic artifact around sink calls. */
void t_begin(struct timeline *tl);
void t_end(struct timeline *tl);
/* n samples of series name (bytes, entity) every dt seconds from T_RULES_T0,
 * of shape(i, n, p); one artifact. */
void t_series(struct timeline *tl, const char *name, const char *entity, int n, double dt,
	      shape_fn shape, const double *p);
/* One meta key in its own artifact. */
void t_meta(struct timeline *tl, const char *k, const char *v);
/* torch_oom at T_RULES_T0 + at seconds, requesting req bytes (data as the
 * vLLM log parser writes it, docs/json.md). */
void t_torch_oom(struct timeline *tl, double at, double req, double total, double unalloc);
/* A kernel OOM kill of pid at T_RULES_T0 + at seconds (the Killed line
 * alone, as a log cut before the report's header gives it). */
void t_oom_kill(struct timeline *tl, double at, int64_t pid);
/* Deterministic noise in [-1, 1]. */
double t_noise(int i);
/* Shapes. t_line p: start, slope per sample, noise amplitude. t_step p:
 * level, noise, rise, rise starts at sample p[3] (ramp over p[4] samples). */
double t_line(int i, int n, const double *p);
double t_step(int i, int n, const double *p);
/* How many findings of cause; the figure key of the best-scored one. */
int64_t t_findings(struct timeline *tl, const char *cause);
double t_figure(struct timeline *tl, const char *cause, const char *key);
/* A snapshot with two stacks (a metrics hook's and an activation's frames)
 * for the alloc rows a test inserts. */
void t_alloc_tables(struct timeline *tl);

#endif
