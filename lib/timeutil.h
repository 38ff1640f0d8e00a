/*
 * timeutil.h -- calendar arithmetic and the time stamp forms found in
 * logs. Everything is UTC nanoseconds since the epoch (int64_t); no
 * function here consults the process's time zone.
 */
#ifndef OOMLENS_TIMEUTIL_H
#define OOMLENS_TIMEUTIL_H

#include <stddef.h>
#include <stdint.h>

#define NS_PER_S 1000000000LL

/* Days since 1970-01-01 of a proleptic Gregorian date (month 1..12). */
int64_t days_from_civil(int64_t y, unsigned m, unsigned d);
/* ns since the epoch of a UTC calendar time; -1 on an invalid field. */
int64_t utc_ns(int y, int mon, int day, int h, int min, int s, long nsec);
/* 1..12 for an English three-letter month name (any case), else 0. */
int month_from_name(const char *s, size_t n);
/* Year, month, day of a UTC ns time. */
void civil_from_ns(int64_t ns, int *y, int *mon, int *day);
/* Days in month mon (1..12) of year y, proleptic Gregorian; 0 for a month
 * out of range. */
int days_in_month(int64_t y, int mon);
/* The year of a year-less date (mon 1..12, day) in a file last written at
 * mtime_ns (UTC): the mtime's year, or the one before when the date would
 * fall more than a day after the mtime (a log holds no line written after
 * the file; the day of slack covers an unknown zone). A year where the date
 * exists is preferred: "Feb 29" goes back to the latest leap year not after
 * that (at most 8 years back); a date no year has (Feb 30) keeps the year
 * found, for the caller to flag. */
int year_not_after(int64_t mtime_ns, int mon, int day);

/* "2023-05-10T12:34:56[.frac][Z|+HH:MM|+HHMM]" (a space for 'T' too).
 * Sets *ns (UTC, the offset applied) and *off (seconds east of UTC, 0 when
 * the text gave no zone). Returns the number of bytes used, or -1. */
int parse_iso8601(const char *s, size_t n, int64_t *ns, int *off);
/* "+HH:MM", "-HHMM", "Z", "UTC": seconds east of UTC. 0 or -1. */
int parse_tz_offset(const char *s, size_t n, int *off);
/* Format ns as "2023-05-10T12:34:56.123456Z" (microseconds) into buf. */
void format_iso8601(int64_t ns, char *buf, size_t n);

#endif
