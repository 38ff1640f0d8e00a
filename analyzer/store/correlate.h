/*
 * correlate.h -- link the events that several artifacts saw (see
 * correlate.c). Run after ingest and clock alignment.
 */
#ifndef OOMLENS_CORRELATE_H
#define OOMLENS_CORRELATE_H

#include "analyzer/store/timeline.h"

/* Mark duplicate events with data.same_as_event. 0 or -1. */
int correlate_events(struct timeline *tl);

#endif
