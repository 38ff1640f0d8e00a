/*
 * correlate.h -- link the events that several artifacts saw (see
 * correlate.c). Run after ingest and clock alignment.
 */
#ifndef OOMLENS_CORRELATE_H
#define OOMLENS_CORRELATE_H

#include "analyzer/store/timeline.h"

/* Mark duplicate events with data.same_as_event, and flag artifacts that
 * may be of another incident (meta incident.apart: a gap of more than a
 * week between artifacts' times, events of several boots). 0 or -1. */
int correlate_events(struct timeline *tl);

#endif
