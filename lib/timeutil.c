/*
 * timeutil.c -- UTC calendar arithmetic and time stamp parsing; see
 * timeutil.h. The date algorithms are Howard Hinnant's civil calendar.
 */
#include "lib/timeutil.h"

#include <stdio.h>
#include <string.h>

int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

void civil_from_ns(int64_t ns, int *y, int *mon, int *day)
{
	int64_t z = ns / NS_PER_S, era;
	unsigned doe, yoe, doy, mp;

	if (ns < 0 && ns % NS_PER_S)
		z--;
	z = (z >= 0 ? z : z - 86399) / 86400 + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*day = (int)(doy - (153 * mp + 2) / 5 + 1);
	*mon = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*mon <= 2));
}

int days_in_month(int64_t y, int mon)
{
	static const unsigned char n[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	if (mon < 1 || mon > 12)
		return 0;
	if (mon == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
		return 29;
	return n[mon - 1];
}

int year_not_after(int64_t mtime_ns, int mon, int day)
{
	int y, m, d, k;

	civil_from_ns(mtime_ns, &y, &m, &d);
	if (days_from_civil(y, (unsigned)mon, (unsigned)day) > days_from_civil(y, (unsigned)m,
									  (unsigned)d) + 1)
		y--;
	for (k = 0; k <= 8 && day > days_in_month(y - k, mon); k++)
		;
	return k <= 8 ? y - k : y;
}

int64_t utc_ns(int y, int mon, int day, int h, int min, int s, long nsec)
{
	if (mon < 1 || mon > 12 || day < 1 || day > 31 || h < 0 || h > 23 || min < 0 ||
	    min > 59 || s < 0 || s > 60 || nsec < 0 || nsec >= NS_PER_S || y < 1900 || y > 2261)  /* int64 ns ends in 2262 */
		return -1;
	return ((days_from_civil(y, (unsigned)mon, (unsigned)day) * 86400 + h * 3600 +
		 min * 60 + s) * NS_PER_S) + nsec;
}

int month_from_name(const char *s, size_t n)
{
	static const char names[] = "janfebmaraprmayjunjulaugsepoctnovdec";
	char m[3];
	int i;

	if (n < 3)
		return 0;
	for (i = 0; i < 3; i++)
		m[i] = (char)(s[i] | 0x20);
	for (i = 0; i < 12; i++)
		if (!memcmp(names + 3 * i, m, 3))
			return i + 1;
	return 0;
}

/* Read exactly w digits at s[*i]; -1 if not digits. */
static int digits(const char *s, size_t n, size_t *i, int w)
{
	int v = 0, k;

	if (*i + (size_t)w > n)
		return -1;
	for (k = 0; k < w; k++) {
		char c = s[*i + (size_t)k];
		if (c < '0' || c > '9')
			return -1;
		v = v * 10 + (c - '0');
	}
	*i += (size_t)w;
	return v;
}

int parse_tz_offset(const char *s, size_t n, int *off)
{
	size_t i = 1;
	int h, m = 0, sign;

	if (n == 1 && s[0] == 'Z') {
		*off = 0;
		return 0;
	}
	if (n == 3 && !memcmp(s, "UTC", 3)) {
		*off = 0;
		return 0;
	}
	if (n < 3 || (s[0] != '+' && s[0] != '-'))
		return -1;
	sign = s[0] == '-' ? -1 : 1;
	if ((h = digits(s, n, &i, 2)) < 0)
		return -1;
	if (i < n && s[i] == ':')
		i++;
	if (i < n && (m = digits(s, n, &i, 2)) < 0)
		return -1;
	if (i != n || h > 23 || m > 59)
		return -1;
	*off = sign * (h * 3600 + m * 60);
	return 0;
}

int parse_iso8601(const char *s, size_t n, int64_t *ns, int *off)
{
	size_t i = 0, z;
	int y, mo, d, h, mi, se, zoff = 0, have_zone = 0;
	long frac = 0, scale = 100000000;
	int64_t t;

	if ((y = digits(s, n, &i, 4)) < 0 || i >= n || s[i++] != '-' ||
	    (mo = digits(s, n, &i, 2)) < 0 || i >= n || s[i++] != '-' ||
	    (d = digits(s, n, &i, 2)) < 0 || i >= n || (s[i] != 'T' && s[i] != ' '))
		return -1;
	i++;
	if ((h = digits(s, n, &i, 2)) < 0 || i >= n || s[i++] != ':' ||
	    (mi = digits(s, n, &i, 2)) < 0 || i >= n || s[i++] != ':' ||
	    (se = digits(s, n, &i, 2)) < 0)
		return -1;
	if (i < n && (s[i] == '.' || s[i] == ',')) {
		i++;
		if (i >= n || s[i] < '0' || s[i] > '9')
			return -1;
		while (i < n && s[i] >= '0' && s[i] <= '9') {
			if (scale) {
				frac += (s[i] - '0') * scale;
				scale /= 10;
			}
			i++;
		}
	}
	if (i < n && (s[i] == 'Z' || s[i] == '+' || s[i] == '-')) {
		z = i + 1;
		if (s[i] != 'Z')
			while (z < n && z < i + 6 && ((s[z] >= '0' && s[z] <= '9') || s[z] == ':'))
				z++;
		if (parse_tz_offset(s + i, z - i, &zoff) < 0)
			return -1;
		have_zone = 1;
		i = z;
	}
	t = utc_ns(y, mo, d, h, mi, se, frac);
	if (t < 0)
		return -1;
	*ns = t - (int64_t)zoff * NS_PER_S;
	if (off)
		*off = zoff;
	(void)have_zone;
	return (int)i;
}

void format_iso8601(int64_t ns, char *buf, size_t n)
{
	int y, mo, d;
	int64_t secs = ns / NS_PER_S, sod, rem = ns % NS_PER_S;
	long us;

	/* floor division without secs * NS_PER_S, which overflows near INT64_MIN */
	if (rem < 0) {
		secs--;
		rem += NS_PER_S;
	}
	us = (long)(rem / 1000);
	civil_from_ns(ns, &y, &mo, &d);
	sod = secs % 86400;
	if (sod < 0)
		sod += 86400;
	snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", y, mo, d, (int)(sod / 3600),
		 (int)(sod / 60 % 60), (int)(sod % 60), us);
}
