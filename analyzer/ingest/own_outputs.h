/*
 * own_outputs.h -- knowing oomlens's own outputs among the artifacts.
 *
 * A database or report oomlens wrote is not evidence: ingested again it
 * would count the incident twice (or stitch text of two errors into one
 * event). Ingest skips what this recognises, before format detection.
 */
#ifndef OOMLENS_OWN_OUTPUTS_H
#define OOMLENS_OWN_OUTPUTS_H

#include <stddef.h>

/* What the first n bytes of a file show it to be: "an oomlens database",
 * "an oomlens HTML report", ... or NULL when it is none of oomlens's. */
const char *own_output_kind(const unsigned char *head, size_t n);

#endif
