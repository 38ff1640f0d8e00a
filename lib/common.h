/*
 * common.h -- the vocabulary every layer shares: the version, and the
 * value that stands for "unknown" in an integer field.
 *
 * Kept tiny on purpose: any file may include it without pulling in a
 * layer it must not know about (a report needs the version, not the CLI;
 * a rule needs OL_NULL, not the parser interface).
 */
#ifndef OOMLENS_COMMON_H
#define OOMLENS_COMMON_H

#include <stdint.h>

#define OOMLENS_VERSION "0.1.0"

/* The marks by which oomlens knows its own reports, so that it never
 * ingests them as evidence: the HTML report's head holds this meta tag
 * (with the version after it), and the JSON report's first key is
 * "oomlens". (Databases carry their SQLite application id.) */
#define OOMLENS_HTML_GENERATOR "<meta name=generator content=\"oomlens "

/* An unknown integer (a time, a size, a pid) is OL_NULL, never 0; it is
 * stored as SQL NULL. */
#define OL_NULL INT64_MIN

#endif
