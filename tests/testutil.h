/*
 * testutil.h -- what the cmocka tests share: an in-memory timeline fed
 * from a string or a file, and one-value SQL queries to assert on.
 */
#ifndef OOMLENS_TESTUTIL_H
#define OOMLENS_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "analyzer/store/timeline.h"

/* A fresh in-memory timeline (fails the test if it cannot). */
struct timeline *t_open(void);
void t_close(struct timeline *tl);
/* Parse text (n bytes; n = 0 means strlen) as one artifact named name with
 * the parser of format kind; returns what the parser returned. */
int t_parse_mem(struct timeline *tl, const char *kind, const char *name,
		const char *text, size_t n);
/* Parse a file (path relative to the source tree) with detection. */
int t_parse_file(struct timeline *tl, const char *relpath);
/* Parse a file of the source tree as kind (no detection): t_parse_mem's
 * result. */
int t_parse_file_as(struct timeline *tl, const char *kind, const char *relpath);
/* Write text to a file of its own under /tmp and ingest it with
 * detection, as a user's file is (a year-less stamp takes the file's
 * time): 1 when it was read, else 0. */
int t_parse_text(struct timeline *tl, const char *text);
/* First column of the first row of a printf-formatted query. */
int64_t t_int(struct timeline *tl, const char *fmt, ...);       /* NULL -> OL_NULL */
double t_real(struct timeline *tl, const char *fmt, ...);
const char *t_text(struct timeline *tl, const char *fmt, ...);  /* static buffer, "(null)" */
/* The phase of the first OOM event (torch_oom, mem_failure) of a parsed
 * log, as its parser set it; t_text's buffer, "(null)" when none. */
const char *t_first_phase(struct timeline *tl);
/* Derive the oom table, then assert row 1's phase, phase_source and the
 * path of the paste that placed it (phase_artifact). */
void t_expect_oom(struct timeline *tl, const char *phase, const char *src,
		  const char *from);
/* Read a whole file of the source tree; caller frees. */
char *t_slurp(const char *relpath, size_t *n);
/* t_slurp of relpath with insert put before its line `at` (1-based): an
 * edge case made from a real file; *n its length. Caller frees. */
char *t_slurp_with_line(const char *relpath, int at, const char *insert, size_t *n);
/* Absolute path of a file in the source tree (static buffer). */
const char *t_src(const char *relpath);

#endif
