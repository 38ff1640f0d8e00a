/*
 * stats.c -- robust statistics for the rules (see stats.h).
 */
#include "analyzer/derive/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double stats_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double stats_mad(double *v, size_t n)
{
	double m;
	size_t i;

	if (!n)
		return 0;
	m = stats_median(v, n);
	for (i = 0; i < n; i++)
		v[i] = fabs(v[i] - m);
	return stats_median(v, n);
}

int stats_theil_sen(const double *x, const double *y, size_t n, struct fit *out)
{
	double *s = NULL, *r = NULL, ym = 0, ssr = 0, sst = 0;
	size_t i, j, k = 0;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (n < 3 || n > 4096)
		goto done;
	s = malloc(n * (n - 1) / 2 * sizeof(*s));
	r = malloc(n * sizeof(*r));
	if (!s || !r)
		goto done;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (x[j] != x[i])
				s[k++] = (y[j] - y[i]) / (x[j] - x[i]);
	if (!k)
		goto done;
	out->slope = stats_median(s, k);
	for (i = 0; i < n; i++)
		r[i] = y[i] - out->slope * x[i];
	out->intercept = stats_median(r, n);
	for (i = 0; i < n; i++)
		ym += y[i];
	ym /= (double)n;
	for (i = 0; i < n; i++) {
		double e = y[i] - (out->intercept + out->slope * x[i]);
		ssr += e * e;
		sst += (y[i] - ym) * (y[i] - ym);
	}
	out->r2 = sst > 0 ? 1 - ssr / sst : 0;
	out->n = n;
	ret = 0;
done:
	free(s);
	free(r);
	return ret;
}

int stats_change_point(const double *y, size_t n, size_t min_at, struct change *out)
{
	double *ps = NULL, *pq = NULL, *tmp = NULL, best = -1, sse1;
	size_t i, at = 0;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (n < 4)
		return -1;
	ps = malloc((n + 1) * sizeof(*ps));
	pq = malloc((n + 1) * sizeof(*pq));
	tmp = malloc(n * sizeof(*tmp));
	if (!ps || !pq || !tmp)
		goto done;
	ps[0] = pq[0] = 0;
	for (i = 0; i < n; i++) {
		ps[i + 1] = ps[i] + y[i];
		pq[i + 1] = pq[i] + y[i] * y[i];
	}
	sse1 = pq[n] - ps[n] * ps[n] / (double)n;
	if (min_at < 2)
		min_at = 2;
	for (i = min_at; i + 1 < n; i++) {
		double a = pq[i] - ps[i] * ps[i] / (double)i;
		double nb = (double)(n - i);
		double b = (pq[n] - pq[i]) - (ps[n] - ps[i]) * (ps[n] - ps[i]) / nb;
		double g = sse1 - a - b;
		if (g > best) {
			best = g;
			at = i;
		}
	}
	if (!at)
		goto done;
	out->at = at;
	memcpy(tmp, y, at * sizeof(*tmp));
	out->before = stats_median(tmp, at);
	memcpy(tmp, y, at * sizeof(*tmp));
	out->noise = 1.4826 * stats_mad(tmp, at);
	out->after = y[at];
	for (i = at; i < n; i++)
		if (y[i] > out->after)
			out->after = y[i];
	out->gain = sse1 > 0 ? best / sse1 : 0;
	ret = 0;
done:
	free(ps);
	free(pq);
	free(tmp);
	return ret;
}

double stats_pearson(const double *x, const double *y, size_t n)
{
	double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
	size_t i;

	if (n < 2)
		return 0;
	for (i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	for (i = 0; i < n; i++) {
		sxy += (x[i] - mx) * (y[i] - my);
		sxx += (x[i] - mx) * (x[i] - mx);
		syy += (y[i] - my) * (y[i] - my);
	}
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
}
