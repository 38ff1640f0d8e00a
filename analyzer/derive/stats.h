/*
 * stats.h -- the numbers the rules share: medians, a robust line fit
 * (Theil-Sen slope + R^2), a one-change-point split, correlation.
 * Pure functions over arrays; no SQL, no allocation beyond scratch the
 * caller can bound (n is capped by the callers' bucketing).
 */
#ifndef OOMLENS_STATS_H
#define OOMLENS_STATS_H

#include <stddef.h>

struct fit {
	double slope;      /* y units per x unit (Theil-Sen median of pair slopes) */
	double intercept;  /* median of y - slope * x */
	double r2;         /* 1 - SSres/SStot of that line (may be < 0) */
	size_t n;          /* points used */
};

/* Median of v[0..n) (reorders v). 0 when n == 0. */
double stats_median(double *v, size_t n);
/* Median absolute deviation of v[0..n) around its median (reorders v). */
double stats_mad(double *v, size_t n);
/* Theil-Sen fit of y on x (n <= 4096 points: O(n^2) pairs, callers bucket
 * first). Returns 0, or -1 when fewer than 3 points or x does not vary. */
int stats_theil_sen(const double *x, const double *y, size_t n, struct fit *out);

struct change {
	size_t at;         /* first index of the second segment */
	double before;     /* median of y[0..at) */
	double after;      /* max of y[at..n) */
	double noise;      /* MAD of y[0..at) scaled to sigma (x1.4826) */
	double gain;       /* SSE of one mean minus SSE of two means, / SSE of one */
};

/* Best single mean-shift split of y[0..n) (least squares over both
 * segments, prefix sums, O(n)), searching at in [min_at, n-1). Returns 0,
 * or -1 when n < 4. */
int stats_change_point(const double *y, size_t n, size_t min_at, struct change *out);

/* Pearson correlation of x and y (0 when either is constant). */
double stats_pearson(const double *x, const double *y, size_t n);

#endif
