/*
 * kernel_date.c -- the calendar side of a kernel log line's wrapper: the
 * zone a wall-clock stamp is read in, the year of a year-less syslog
 * stamp, and dates that do not exist ("Feb 30", "Feb 29" of a common
 * year), which are flagged rather than rolled into the next month, and the
 * month names of the locales dmesg -T is met under. Used by
 * kernel_prefix.c; declared in kernel_prefix.h.
 */
#include "parsers/kernel/kernel_prefix.h"

#include "lib/strci.h"
#include "lib/timeutil.h"

#include <string.h>

void kprefix_set_local(struct kprefix *px, struct ol_time *t, int64_t ns)
{
	const struct ingest_opts *o = px->s->opts;

	if (o && o->tz_known) {
		t->clock = OL_CLOCK_UTC;
		t->utc_ns = ns - (int64_t)o->tz_offset_s * NS_PER_S;
	} else {
		t->clock = OL_CLOCK_LOCAL;
		t->utc_ns = ns;
	}
}

int kprefix_year_for(struct kprefix *px, int mon, int d)
{
	int y;

	if (px->s->opts && px->s->opts->year) {
		if (!px->year)
			px->year = px->s->opts->year;
		if (px->last_mon && mon < px->last_mon && px->last_mon - mon >= 6)
			px->year++;
		px->last_mon = mon;
		return px->year;
	}
	if (px->mtime_ns) {
		y = year_not_after(px->mtime_ns, mon, d);
		if (!px->year_noted++)
			sink_year_basis(px->s, px->mtime_ns);
		return y;
	}
	if (!px->year_warned) {
		sink_diagf(px->s, px->in->lineno, 0, OL_WARN,
			   "time stamps have no year and the file has no mtime; assuming 1970 "
			   "(give --year)");
		px->year_warned = 1;
	}
	return 1970;
}

int kprefix_date_ok(struct kprefix *px, int y, int mon, int d, int inferred)
{
	static const char names[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

	if (d <= days_in_month(y, mon))
		return 1;
	if (px->bad_dates++ < 8)
		sink_diagf(px->s, px->in->lineno, 0, OL_WARN, "the date %.3s %d does not exist "
			   "in %d (%s): the line is kept without a time", names + 3 * (mon - 1),
			   d, y, inferred ? "the year is inferred; no year near the file's "
			   "mtime has it" : "the year as given");
	else if (px->bad_dates == 9)
		sink_diagf(px->s, px->in->lineno, 0, OL_WARN, "more lines with dates that do "
			   "not exist are kept without a time; not listed");
	return 0;
}

/* glibc's abbreviated month names (%b, locales/<ll>_<CC> abmon) of the
 * locales dmesg -T is met under, lower-cased, without a trailing dot,
 * '|' between them: de, fr, es, it, pt, nl, ru (UTF-8); sv and da ("maj",
 * localedata/locales/sv_SE) and pl (localedata/locales/pl_PL: sty lut mar
 * kwi maj cze lip sie wrz paź lis gru), read at glibc@5176a83 and c0c259c.
 * The languages agree where they share a spelling ("mar", "mai", "ago"). */
static const char *const month_names[12] = {
	"jan|janv|ene|gen|jän|\xd1\x8f\xd0\xbd\xd0\xb2|sty",
	"feb|f\xc3\xa9vr|fev|\xd1\x84\xd0\xb5\xd0\xb2|lut",
	"m\xc3\xa4r|mar|mars|mrt|\xd0\xbc\xd0\xb0\xd1\x80",
	"apr|avr|abr|\xd0\xb0\xd0\xbf\xd1\x80|kwi",
	"mai|may|mag|mei|\xd0\xbc\xd0\xb0\xd1\x8f|\xd0\xbc\xd0\xb0\xd0\xb9|maj",
	"jun|juin|giu|\xd0\xb8\xd1\x8e\xd0\xbd|cze",
	"jul|juil|lug|\xd0\xb8\xd1\x8e\xd0\xbb|lip",
	"aug|ao\xc3\xbbt|ago|\xd0\xb0\xd0\xb2\xd0\xb3|sie",
	"sep|sept|set|\xd1\x81\xd0\xb5\xd0\xbd|wrz",
	"okt|oct|ott|out|\xd0\xbe\xd0\xba\xd1\x82|pa\xc5\xba",
	"nov|\xd0\xbd\xd0\xbe\xd1\x8f|lis",
	"dez|d\xc3\xa9\x63|dic|dec|\xd0\xb4\xd0\xb5\xd0\xba|gru",
};

/* kernel_prefix.h. ASCII letters are compared without case, other bytes
 * as they are. */
int kprefix_named_month(const char *m, size_t n)
{
	int k;

	if (n && m[n - 1] == '.')
		n--;
	if (!n)
		return 0;
	for (k = 0; k < 12; k++) {
		const char *a = month_names[k], *bar;
		for (;; a = bar + 1) {
			size_t l = (bar = strchr(a, '|')) ? (size_t)(bar - a) : strlen(a);
			if (l == n && mem_eq_ci(a, m, n))
				return k + 1;
			if (!bar)
				break;
		}
	}
	return 0;
}
