/*
 * testutil_report.h -- what the report tests share: one full incident
 * database (t_build_incident) and the checks on a rendered report.
 */
#ifndef OOMLENS_TESTUTIL_REPORT_H
#define OOMLENS_TESTUTIL_REPORT_H

#include "testutil.h"
#include "reports/report.h"

/* Strings an artifact controls carry these in the built incident. */
#define HOSTILE_SCRIPT "<script>alert(1)</script>"
#define HOSTILE_IMG "\"><img src=x onerror=alert(1)>"
#define HOSTILE_JS "javascript:alert(1)"

/* 2025-11-29T18:22:40Z, the kernel OOM of the built incident */
#define T_REPORT_OOM 1764440560000000000LL

/* Run sql (or a printf-formatted one) on tl's database; fails the test on
 * an SQL error. */
void t_exec(struct timeline *tl, const char *sql);
void t_execf(struct timeline *tl, const char *fmt, ...);
/* A leak on an 80 GiB card over two hours, a request spike in its last
 * 8 minutes, the kernel OOM that killed the server; with_domain adds the
 * snapshot and CUDA core tables. */
void t_build_incident(struct timeline *tl, int with_domain);
/* Render tl in format f into a malloc'd NUL-terminated string (caller
 * frees); every query of the report must have worked. */
char *t_render(struct timeline *tl, enum report_format f, size_t *len);
/* Fail unless hay holds needle / fail if it does. */
void t_contains(const char *hay, const char *needle);
void t_lacks(const char *hay, const char *needle);
/* No markup from the artifacts survives in an HTML text. */
void t_no_injection(const char *out);
/* No markup from the artifacts survives in a Markdown text. */
void t_md_no_injection(const char *out);

#endif
