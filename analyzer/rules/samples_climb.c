/*
 * samples_climb.c -- a sawtooth whose last stretch climbs (see
 * samples_climb.h).
 *
 * A process whose memory a garbage collector or a cache trims falls
 * back now and then: a sawtooth, which samples.c's steady-rise test
 * rightly takes as no leak. A leak can hide in one all the same: the
 * floor holds for a while, then the trims stop returning memory and the
 * last stretch climbs sample after sample to a new high. LiteLLM's proxy
 * before BerriAI/litellm PR #8551 printed its memory every 100 requests:
 * 284 MB, dips to 90-120 MB and teeth of 114 and 164 MB, then eleven
 * samples climbing 267 -> 303 MB without a dip (the PR's "before" run;
 * the thread establishes the leak). The test is strict, so that a
 * healthy collector's teeth stay clean: the climb after the last dip is
 * steady and material on its own, the last tooth (dip to end) is taller
 * and longer (in samples) than every earlier one, and the series ends
 * above every earlier figure. A healthy sawtooth caught on a tall last
 * tooth can pass all the same, which is why it stays a reading. samples.c states it as a reading (a leak in progress), never
 * the verdict alone.
 */
#include "analyzer/rules/samples_climb.h"

/* Whether v[a..b] rises with no fall over dip of the level and at most
 * one fall in five samples. */
static int steady(const double *v, int a, int b, double dip)
{
	int i, falls = 0;

	for (i = a + 1; i <= b; i++)
		if (v[i] < v[i - 1]) {
			if (v[i - 1] - v[i] > dip * v[i - 1])
				return 0;
			falls++;
		}
	return falls * 5 <= b - a + 1;
}

int samples_trailing_climb(const struct memsamples_series *m, double dip, double min_bytes,
			   double min_frac, struct samples_climb *out)
{
	const double *v = m->v;
	int n = m->n, t, i, start = 0, longest = 0;
	double lo, amp = 0, high = 0;

	if (m->unitless || n < 2 * MEMSAMPLES_MIN)
		return 0;
	/* the last dip: walk back over the steady climb to its low */
	for (t = n - 1; t > 0; t--)
		if (v[t - 1] - v[t] > dip * v[t - 1])
			break;
	if (t == 0 || n - 1 - t < MEMSAMPLES_MIN)
		return 0;   /* no dip at all (samples.c's case), or too short a climb */
	if (!steady(v, t + 1, n - 1, dip))
		return 0;
	/* earlier teeth: each rise from a low to the next high before t */
	lo = v[0];
	for (i = 0; i < t; i++) {
		if (v[i] < lo)
			lo = v[i];
		if (v[i] - lo > amp)
			amp = v[i] - lo;
		if (v[i] > high)
			high = v[i];
		if (i + 1 == t || v[i + 1] < v[i] - dip * v[i]) {
			if (i + 1 - start > longest)
				longest = i + 1 - start;
			start = i + 1;
			if (i + 1 < t)
				lo = v[i + 1];   /* a dip: the next tooth starts */
		}
	}
	out->trough = t;
	out->from = t + 1;
	out->rise = v[n - 1] - v[t];
	out->climb = v[n - 1] - v[t + 1];
	out->amplitude = amp;
	out->high = high;
	/* taller than every earlier tooth, longer too, and a new high */
	return out->rise > amp && n - 1 - t > longest && v[n - 1] > high &&
	       out->climb >= min_bytes &&
	       out->climb >= min_frac * v[t + 1];
}
