/*
 * bytes.c -- one byte formatter with one precision rule (bytes.h), shared
 * by parsers' texts, the rules' findings and every report format.
 */
#include "lib/bytes.h"

#include <math.h>
#include <stdio.h>

const char *ol_fmt_bytes(char *buf, size_t n, double b)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double a = fabs(b);
	int u = 0;

	if (!n)
		return buf;
	if (!isfinite(b)) {
		snprintf(buf, n, "?");
		return buf;
	}
	while (a >= 1024 && u < 5) {
		a /= 1024;
		b /= 1024;
		u++;
	}
	/* 99.96 rounds to "100.0": take the precision of what is printed */
	if (u == 0)
		snprintf(buf, n, "%.0f B", b);
	else if (a < 9.995)
		snprintf(buf, n, "%.2f %s", b, units[u]);
	else if (a < 99.95)
		snprintf(buf, n, "%.1f %s", b, units[u]);
	else
		snprintf(buf, n, "%.0f %s", b, units[u]);
	return buf;
}
