/*
 * samples_climb.h -- the trailing climb of a sawtooth series (see
 * samples_climb.c): a pure test on a pasted series' figures, no
 * database; analyzer/rules/samples.c writes the reading.
 */
#ifndef OOMLENS_SAMPLES_CLIMB_H
#define OOMLENS_SAMPLES_CLIMB_H

#include "parsers/host/memsamples.h"

/* What a trailing climb holds: indexes into the series' v[]. */
struct samples_climb {
	int trough;          /* the last dip's low: the climb starts after it */
	int from;            /* the climb's first sample (trough + 1) */
	double rise;         /* v[n-1] - v[trough]: the last tooth, dip to end */
	double climb;        /* v[n-1] - v[from]: the steady part alone */
	double amplitude;    /* the largest earlier dip-to-peak */
	double high;         /* the highest figure before the trough */
};

/* Whether series m (in bytes, fewer falls than a steady series allows)
 * ends in a climb that no earlier tooth matched: the samples after its
 * last dip rise steadily, MEMSAMPLES_MIN of them at least, by a material
 * amount (min_bytes and min_frac of where the climb starts), its rise
 * from the dip exceeds every earlier dip-to-peak amplitude, it holds
 * more samples than every earlier tooth and it ends above every earlier
 * figure. 1 and *out filled, else 0. */
int samples_trailing_climb(const struct memsamples_series *m, double dip, double min_bytes,
			   double min_frac, struct samples_climb *out);

#endif
