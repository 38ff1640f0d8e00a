/*
 * kernel_date.c -- the calendar side of a kernel log line's wrapper: the
 * zone a wall-clock stamp is read in, the year of a year-less syslog
 * stamp, and dates that do not exist ("Feb 30", "Feb 29" of a common
 * year), which are flagged rather than rolled into the next month. Used by
 * kernel_prefix.c; declared in kernel_prefix.h.
 */
#include "parsers/kernel/kernel_prefix.h"

#include "lib/timeutil.h"

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
