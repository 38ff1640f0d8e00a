/*
 * bytes.h -- the one way oomlens prints a number of bytes for people.
 *
 * Every byte figure a person reads (a finding's title and advice, a
 * parser's diagnostic, every report format) is printed by ol_fmt_bytes(),
 * so one figure reads the same in every section and every output: a
 * finding that says "51.1 GiB" is never "51.12 GiB" in the summary.
 *
 * The rule: binary prefixes (B, KiB, MiB, GiB, TiB, PiB), the unit the
 * value first stays under 1024 in, and three significant digits there:
 * two decimals under 10 ("9.87 GiB"), one under 100 ("51.1 GiB"), none
 * from 100 ("512 MiB", "113 GiB"); whole bytes under 1 KiB ("512 B").
 * Negative values keep their sign ("-3.00 MiB"); a value that is not
 * finite prints "?". Machine-readable outputs (JSON, the database) keep
 * the raw number beside any such text.
 */
#ifndef OOMLENS_BYTES_H
#define OOMLENS_BYTES_H

#include <stddef.h>

/* b bytes for people into buf[n] (always NUL-terminated when n > 0), by
 * the rule above. Returns buf, so it can be an argument of a printf. */
const char *ol_fmt_bytes(char *buf, size_t n, double b);

#endif
