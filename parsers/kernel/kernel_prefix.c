/*
 * kernel_prefix.c -- recognise and strip the wrapper a log source put
 * around each kernel message; see kernel_prefix.h for the sources and the
 * contract.
 *
 * A line's first byte picks the candidate wrappers (a 256-entry class
 * table); each candidate is checked by shape and the first that fits is
 * stripped. Nested wrappers ("<4>[ 1.2] ", "kern  :warn  : [ 1.2] ",
 * "host kernel: [ 1.2] ") are stripped one after the other. A line no
 * wrapper fits is plain kernel text. journalctl -o json records are
 * decoded in kernel_journal.c.
 */
#include "parsers/kernel/kernel_prefix.h"

#include <stdio.h>
#include <string.h>

#include "parsers/kernel/kernel_scan.h"
#include "parsers/common/textclean.h"
#include "lib/timeutil.h"

/* ---------------------------------------------------------------------
 * Stamps.
 */

/* The digits at *qp, read as the fraction after a decimal point where the
 * first digit is worth scale (100000 for microseconds); digits finer than
 * the unit add nothing. *qp moves past the digits. */
static int64_t fraction(const char **qp, const char *e, int64_t scale)
{
	const char *q = *qp;
	int64_t f = 0;

	while (q < e && is_digit((unsigned char)*q)) {
		f += (*q - '0') * scale;
		scale /= 10;
		q++;
	}
	*qp = q;
	return f;
}

/* "[ 4600.123456]" at p: boot ns, returns the byte after ']' or NULL. */
static const char *dmesg_stamp(const char *p, const char *e, int64_t *ns)
{
	int64_t s = 0, us;
	const char *q;

	if (p >= e || *p != '[')
		return NULL;
	p = skip_ws(p + 1, e);
	/* "[  +0.002367]" is dmesg -H's delta from the line before, no time */
	if (p >= e || !is_digit((unsigned char)*p) || !(q = parse_int(p, e, &s)) || s < 0 ||
	    q >= e || *q != '.')
		return NULL;
	p = q + 1;
	if (p >= e || !is_digit((unsigned char)*p))
		return NULL;
	us = fraction(&p, e, 100000);
	if (p >= e || *p != ']' || s > 9000000000LL)
		return NULL;
	*ns = s * NS_PER_S + us * 1000;
	return p + 1;
}

/* Optional PRINTK_CALLER "[   T71]" / "[C3]" right after a stamp. */
static const char *caller_id(const char *p, const char *e)
{
	const char *q = skip_ws(p + 1, e);

	if (p >= e || *p != '[' || q >= e || (*q != 'T' && *q != 'C'))
		return p;
	q++;
	if (q >= e || !is_digit((unsigned char)*q))
		return p;
	while (q < e && is_digit((unsigned char)*q))
		q++;
	return q < e && *q == ']' ? q + 1 : p;
}

/* The day of month " 7" / "29" at q, then a blank and at least need more
 * bytes: the day into *d; returns the byte after the blank, or NULL. */
static const char *day_at(const char *q, const char *e, int64_t need, int *d)
{
	int64_t v;

	if (*q == ' ')
		q++;
	if (!(q = parse_int(q, e, &v)) || v < 1 || v > 31 || e - q < need + 1 || *q != ' ')
		return NULL;
	*d = (int)v;
	return q + 1;
}

/* The two-digit fields of "HH:MM:SS" at q (the caller checked its shape). */
static void clock_at(const char *q, int *h, int *mi, int *s)
{
	*h = (q[0] - '0') * 10 + q[1] - '0';
	*mi = (q[3] - '0') * 10 + q[4] - '0';
	*s = (q[6] - '0') * 10 + q[7] - '0';
}

/* "Nov 29 18:22:40[.123456] " (RFC 3164, journal short/short-precise). */
static const char *month_stamp(struct kprefix *px, const char *p, const char *e,
			       struct ol_time *t)
{
	int mon, d, h, mi, s, y;
	int64_t ns, frac = 0;
	const char *q;

	if (e - p < 15 || !(mon = month_from_name(p, 3)) || p[3] != ' ')
		return NULL;
	if (!(q = day_at(p + 4, e, 9, &d)))
		return NULL;
	if (!is_digit((unsigned char)q[0]) || !is_digit((unsigned char)q[1]) || q[2] != ':' ||
	    !is_digit((unsigned char)q[3]) || !is_digit((unsigned char)q[4]) || q[5] != ':' ||
	    !is_digit((unsigned char)q[6]) || !is_digit((unsigned char)q[7]))
		return NULL;
	clock_at(q, &h, &mi, &s);
	q += 8;
	if (q < e && *q == '.') {
		q++;
		frac = fraction(&q, e, 100000000);
	}
	if (q >= e || *q != ' ')
		return NULL;
	y = kprefix_year_for(px, mon, d);
	ns = utc_ns(y, mon, d, h, mi, s, (long)frac);
	if (ns < 0)
		return NULL;
	if (kprefix_date_ok(px, y, mon, d, !(px->s->opts && px->s->opts->year)))
		kprefix_set_local(px, t, ns);
	return q + 1;
}

/* The month of a localized dmesg -T stamp's token m[0..n): "3月" (Chinese,
 * Japanese), "3월" (Korean), an English abbreviation or one of
 * month_names; 0 when it is none of those (another language's name: the
 * stamp is still one). */
static int local_month(const char *m, size_t n)
{
	size_t i = 0;
	int v = 0;

	while (i < n && i < 2 && m[i] >= '0' && m[i] <= '9')
		v = v * 10 + (m[i++] - '0');
	if (i && v >= 1 && v <= 12 && n - i == 3 &&
	    (!memcmp(m + i, "\xe6\x9c\x88", 3) || !memcmp(m + i, "\xec\x9b\x94", 3)))
		return v;
	if (n == 3 && (v = month_from_name(m, 3)))
		return v;
	return kprefix_named_month(m, n);
}

/* dmesg -T under another locale, after the '[': "四 3月 20 21:01:25 2025]"
 * (zh_CN), "Do Mär 20 21:01:25 2025]" (de_DE): a weekday and a month
 * token of any bytes, then the day, the clock and the year as in C. The
 * time is set when the month is one local_month() knows; else the stamp
 * is taken off and the line has no time. */
static const char *ctime_localized(struct kprefix *px, const char *p, const char *e,
				   struct ol_time *t)
{
	const char *w = p, *m, *q;
	int mon, d, h, mi, s;
	int64_t y, ns;

	while (w < e && w - p <= 16 && *w != ' ' && *w != ']')
		w++;
	if (w == p || w >= e || *w != ' ')
		return NULL;
	for (m = ++w; w < e && w - m <= 16 && *w != ' ' && *w != ']'; w++)
		;
	if (w == m || w >= e || *w != ' ')
		return NULL;
	mon = local_month(m, (size_t)(w - m));
	if (!(q = day_at(w + 1, e, 14, &d)) || q[2] != ':' || q[5] != ':' || q[8] != ' ')
		return NULL;
	clock_at(q, &h, &mi, &s);
	if (!(q = parse_int(q + 9, e, &y)) || q >= e || *q != ']' || y < 1970 || y > 9999)
		return NULL;
	if (mon && (ns = utc_ns((int)y, mon, d, h, mi, s, 0)) >= 0 &&
	    kprefix_date_ok(px, (int)y, mon, d, 0))
		kprefix_set_local(px, t, ns);
	return q + 1;
}

/* "Thu Dec  7 00:05:00 2017]" (dmesg -T, after the '['); another
 * locale's names: ctime_localized(). */
static const char *ctime_stamp(struct kprefix *px, const char *p, const char *e,
			       struct ol_time *t)
{
	int mon, d, h, mi, s;
	int64_t y, ns;
	const char *q;

	if (e - p < 24 || p[3] != ' ' || !(mon = month_from_name(p + 4, 3)) || p[7] != ' ')
		return ctime_localized(px, p, e, t);
	if (!(q = day_at(p + 8, e, 14, &d)))
		return NULL;
	if (q[2] != ':' || q[5] != ':' || q[8] != ' ')
		return NULL;
	clock_at(q, &h, &mi, &s);
	if (!(q = parse_int(q + 9, e, &y)) || q >= e || *q != ']')
		return NULL;
	if ((ns = utc_ns((int)y, mon, d, h, mi, s, 0)) < 0)
		return NULL;
	if (kprefix_date_ok(px, (int)y, mon, d, 0))
		kprefix_set_local(px, t, ns);
	return q + 1;
}

/* " host ident[pid]: " after a syslog/journal stamp. Returns the message
 * start, or NULL when the shape is not there. strict: ident must be
 * "kernel" or carry a [pid] (used after a dmesg-like stamp). */
static const char *host_ident(const char *p, const char *e, struct krec *r, int strict)
{
	const char *h, *i, *ie, *b, *colon;
	int64_t v;

	p = skip_ws(p, e);
	h = p;
	while (p < e && *p != ' ')
		p++;
	if (p == h || p >= e)
		return NULL;
	if (p[-1] == ':') {
		/* no host: "Feb 10 06:02:20 kernel: ..." (journalctl and
		 * rsyslog print an empty hostname as nothing; a paste may cut
		 * it, tarkah/tickrs #61): only the kernel's own ident, so a
		 * line's first "word:" is not taken for one */
		if (p - h != 7 || memcmp(h, "kernel:", 7))
			return NULL;
		i = h;
		colon = p - 1;
	} else {
		i = p + 1;
		colon = memchr(i, ':', (size_t)(e - i));
	}
	if (!colon || colon == i)
		return NULL;
	if (memchr(i, ' ', (size_t)(colon - i)))
		return NULL;
	ie = colon;
	b = memchr(i, '[', (size_t)(colon - i));
	if (b && colon[-1] == ']' && parse_int(b + 1, colon - 1, &v)) {
		ie = b;
		r->ident_pid = v;
	} else if (strict && !((size_t)(colon - i) == 6 && !memcmp(i, "kernel", 6))) {
		return NULL;
	}
	copy_str(r->ident, sizeof(r->ident), i, ie);
	r->has_ident = 1;
	p = colon + 1;
	if (p < e && *p == ' ')
		p++;
	return p;
}

/* After "kernel: ", an optional dmesg stamp. */
static const char *maybe_stamp(const char *p, const char *e, struct krec *r)
{
	int64_t ns;
	const char *q;

	if (p < e && *p == '[' && (q = dmesg_stamp(p, e, &ns))) {
		r->t.boot_ns = ns;
		q = caller_id(q, e);
		if (q < e && *q == ' ')
			q++;
		return q;
	}
	return p;
}

/* An ISO 8601 stamp at p into t (UTC as read; the caller makes it local
 * when *had_zone is 0). Returns the byte after it, or NULL. */
static const char *iso_stamp(const char *p, const char *e, struct ol_time *t, int *had_zone)
{
	int64_t ns;
	int off, k;
	const char *z;

	if ((k = parse_iso8601(p, (size_t)(e - p), &ns, &off)) < 0)
		return NULL;
	z = p + k;
	/* a zone is whatever parse_iso8601 read after "YYYY-MM-DDTHH:MM:SS[.frac]" */
	*had_zone = z[-1] == 'Z' || memchr(p + 19, '+', (size_t)(z - p - 19)) ||
		    memchr(p + 19, '-', (size_t)(z - p - 19));
	t->utc_ns = ns;
	t->clock = OL_CLOCK_UTC;
	return z;
}

/* Prefix-less text: the whole line is the message. */
static void plain(struct krec *r, const char *p, const char *e)
{
	r->msg = p;
	r->end = e;
}

/* ---------------------------------------------------------------------
 * Stripping.
 */

/* The rest of a syslog/journal line after its stamp, " host ident[pid]:
 * [dmesg stamp] message", into r. 0 when it has not that shape. */
static int syslog_rest(const char *q, const char *e, struct krec *r)
{
	if (!(q = host_ident(q, e, r, 0)))
		return 0;
	plain(r, maybe_stamp(q, e, r), e);
	return 1;
}

/* syslog_rest after a stamp the caller already put in r->t: when the
 * rest has not that shape, the time is cleared too and 0 returned, so r
 * is as it was for the next reader. */
static int stamp_then_rest(const char *q, const char *e, struct krec *r)
{
	if (q < e && syslog_rest(q, e, r))
		return 1;
	r->t = ol_time_none();
	return 0;
}

/* Classes of a line's first byte, for the prefix dispatch. */
enum { K_OTHER, K_BRACKET, K_LT, K_DIGIT, K_UPPER, K_LOWER, K_BRACE, K_SPACE, K_N };
static unsigned char first_class[256];

/* Fill first_class once (the same values each time, so a second parse
 * starting at once does no harm). */
static void init_classes(void)
{
	int c;

	if (first_class['['])
		return;
	for (c = '0'; c <= '9'; c++)
		first_class[c] = K_DIGIT;
	for (c = 'A'; c <= 'Z'; c++)
		first_class[c] = K_UPPER;
	for (c = 'a'; c <= 'z'; c++)
		first_class[c] = K_LOWER;
	first_class[' '] = first_class['\t'] = K_SPACE;
	first_class['<'] = K_LT;
	first_class['{'] = K_BRACE;
	first_class['['] = K_BRACKET;
}

/* A prefix reader: one wrapper shape at the start of [p, e). When the
 * line has that shape, it strips it into r (calling strip on the rest for
 * a nested wrapper) and returns strip's value (1, or 2 for an indented
 * continuation); when not, it returns 0 with r as it was. */
typedef int prefix_reader(struct kprefix *px, const char *p, const char *e, struct krec *r);

static int strip(struct kprefix *px, const char *l, const char *e, struct krec *r);
static int wrapper(struct kprefix *px, const char *p, const char *e, struct krec *r);

/* An indented line. The rule that decides: when what follows the blanks
 * is itself a whole wrapped line -- a dmesg stamp "  [ 1.2] ..." (-T and
 * -d too), or any wrapper a reader below recognises by its full shape (a
 * syslog or journal stamp with its host and "ident:", an ISO or unix
 * stamp, a /dev/kmsg record) -- the blanks are a paste's indentation (a
 * tab- or space-indented copy of a log) and the line is read as that
 * wrapper. A multi-line printk's continuation never starts with such a
 * stamp, so anything else stays a continuation, which takes the last
 * record's time. */
static int indented(struct kprefix *px, const char *p, const char *e, struct krec *r)
{
	const char *q = skip_ws(p, e);
	int rc;

	if ((rc = wrapper(px, q, e, r)))
		return rc;
	plain(r, q, e);
	r->t = px->last_t;
	r->continuation = 1;
	r->bare = 1;
	return 2;
}

/* dmesg "[ 4600.123456] [caller] ", and journalctl -o short-monotonic
 * "[ 4600.123456] host kernel: ". */
static int dmesg_stamped(struct kprefix *px, const char *p, const char *e, struct krec *r)
{
	const char *q, *m;
	int64_t ns;

	(void)px;
	if (!(q = dmesg_stamp(p, e, &ns)))
		return 0;
	r->t.clock = OL_CLOCK_BOOT;
	r->t.boot_ns = ns;
	q = caller_id(q, e);
	if (q < e && *q == ' ')
		q++;
	if ((m = host_ident(q, e, r, 1)))
		q = m;
	plain(r, q, e);
	return 1;
}

/* dmesg -H/-d/-w's relative stamp "[  +0.002367] ": the time since the
 * line before, no time of its own (the line keeps none; a delta is never
 * summed into a time the log does not give). */
static int dmesg_delta(struct kprefix *px, const char *p, const char *e, struct krec *r)
{
	const char *q = skip_ws(p + 1, e);
	int64_t s;

	(void)px;
	if (q >= e || *q != '+' || !(q = parse_int(q + 1, e, &s)) || q >= e || *q != '.')
		return 0;
	for (q++; q < e && is_digit((unsigned char)*q); q++)
		;
	if (q >= e || *q != ']')
		return 0;
	q++;
	if (q < e && *q == ' ')
		q++;
	plain(r, q, e);
	return 1;
}

/* dmesg -T "[Thu Dec  7 00:05:00 2017] ". */
static int dmesg_ctime(struct kprefix *px, const char *p, const char *e, struct krec *r)
{
	const char *q = ctime_stamp(px, p + 1, e, &r->t);

	if (!q)
		return 0;
	if (q < e && *q == ' ')
		q++;
	plain(r, q, e);
	return 1;
}

/* The RFC 5424 header after "<N>1 " and its stamp, at q: "host app procid
 * msgid [sd]... [BOM]msg"; app becomes the ident, a numeric procid its pid. */
static void rfc5424_rest(const char *q, const char *e, struct krec *r)
{
	const char *f[5];
	int64_t v = 0;
	int i;

	for (i = 0; i < 5; i++) {   /* host app procid msgid sd */
		q = skip_ws(q, e);
		f[i] = q;
		if (i == 4 && q < e && *q == '[') {
			const char *c = memchr(q, ']', (size_t)(e - q));
			q = c ? c + 1 : e;
			while (q < e && *q == '[' && (c = memchr(q, ']', (size_t)(e - q))))
				q = c + 1;
		} else {
			while (q < e && *q != ' ')
				q++;
		}
		if (i == 1)
			copy_str(r->ident, sizeof(r->ident), f[1], q);
		if (i == 2 && parse_int(f[2], q, &v) == q)
			r->ident_pid = v;
	}
	r->has_ident = 1;
	if (q < e && *q == ' ')
		q++;
	if (e - q >= 3 && (unsigned char)q[0] == 0xef && (unsigned char)q[1] == 0xbb &&
	    (unsigned char)q[2] == 0xbf)
		q += 3;   /* BOM */
	plain(r, maybe_stamp(q, e, r), e);
}

/* A syslog priority "<4>": raw dmesg "<4>[ 1.2] " (the stamp stripped in
 * turn), or RFC 5424 "<4>1 ISO host app procid msgid sd msg". */
static int priority(struct kprefix *px, const char *p, const char *e, struct krec *r)
{
	const char *q;
	int64_t v;
	int zone;

	if (!(q = parse_int(p + 1, e, &v)) || q >= e || *q != '>')
		return 0;
	q++;
	if (q < e && *q == '[')
		return strip(px, q, e, r);
	if (e - q > 2 && q[0] == '1' && q[1] == ' ' && (q = iso_stamp(q + 2, e, &r->t, &zone))) {
		if (!zone)
			kprefix_set_local(px, &r->t, r->t.utc_ns);
		rfc5424_rest(q, e, r);
		return 1;
	}
	return 0;
}

/* ISO 8601 stamp, then " host ident: ": rsyslog RFC 3339, journalctl
 * short-iso[-precise]; or dmesg --time-format iso, whose stamp has a
 * comma before its microseconds and the message right after it. */
static int iso_syslog(struct kprefix *px, const char *p, const char *e, struct krec *r)
{
	const char *q;
	int zone;

	if (e - p <= 19 || p[4] != '-' || !(q = iso_stamp(p, e, &r->t, &zone)))
		return 0;
	if (!zone)
		kprefix_set_local(px, &r->t, r->t.utc_ns);
	if (p[19] == ',' && q < e && *q == ' ') {
		plain(r, q + 1, e);
		return 1;
	}
	return stamp_then_rest(q, e, r);
}

/* journalctl -o short-unix "1683722096.123456 host kernel: ". */
static int short_unix(struct kprefix *px, const char *p, const char *e, struct krec *r)
{
	const char *q, *s;
	int64_t v, us;

	(void)px;
	if (!(q = parse_int(p, e, &v)) || q >= e || *q != '.' || v <= 100000000 ||
	    v >= 9000000000LL)
		return 0;
	s = q + 1;
	us = fraction(&s, e, 100000);
	if (s >= e || *s != ' ' || !syslog_rest(s, e, r))
		return 0;
	r->t.clock = OL_CLOCK_UTC;
	r->t.utc_ns = v * NS_PER_S + us * 1000;
	return 1;
}

/* /dev/kmsg "6,51234,4607765352,-[,caller=T1];text": priority, sequence,
 * microseconds since boot, flags, then the text after ';'. */
static int kmsg(struct kprefix *px, const char *p, const char *e, struct krec *r)
{
	const char *q, *s, *semi;
	int64_t v, seq, us;

	(void)px;
	if (!(q = parse_int(p, e, &v)) || q >= e || *q != ',')
		return 0;
	s = q + 1;
	if (!(s = parse_int(s, e, &seq)) || s >= e || *s != ',' ||
	    !(s = parse_int(s + 1, e, &us)) || s >= e || *s != ',' ||
	    !(semi = memchr(s, ';', (size_t)(e - s))) || semi - s >= 64 ||
	    us < 0 || us >= 9000000000000000LL)
		return 0;
	r->t.clock = OL_CLOCK_BOOT;
	r->t.boot_ns = us * 1000;
	plain(r, semi + 1, e);
	return 1;
}

/* RFC 3164 and journalctl short / short-precise: "Nov 29 18:22:40[.123456]
 * host ident: ". */
static int rfc3164(struct kprefix *px, const char *p, const char *e, struct krec *r)
{
	const char *q = month_stamp(px, p, e, &r->t);

	return q ? stamp_then_rest(q, e, r) : 0;
}

/* journalctl -o short-full "Wed 2023-05-10 12:34:56 UTC host kernel: ":
 * UTC for a UTC or GMT zone word, else local. */
static int short_full(struct kprefix *px, const char *p, const char *e, struct krec *r)
{
	const char *q, *z;
	int zone;

	if (e - p <= 28 || p[3] != ' ' || !is_digit((unsigned char)p[4]) || p[8] != '-' ||
	    !(q = iso_stamp(p + 4, e, &r->t, &zone)))
		return 0;
	z = q + 1;
	while (z < e && *z != ' ')
		z++;
	if (q < e && *q == ' ' && !(z - q == 4 && !memcmp(q + 1, "UTC", 3)) &&
	    !(z - q == 4 && !memcmp(q + 1, "GMT", 3)))
		kprefix_set_local(px, &r->t, r->t.utc_ns);
	return stamp_then_rest(z, e, r);
}

/* dmesg -x "kern  :warn  : [ 1.2] " (the stamp stripped in turn), and a
 * bare "kernel: [ 1.2] msg" (a syslog line whose stamp and host were cut
 * off when it was pasted). */
static int dmesg_x(struct kprefix *px, const char *p, const char *e, struct krec *r)
{
	const char *q;

	if (starts(p, e, "kernel: ")) {
		snprintf(r->ident, sizeof(r->ident), "kernel");
		r->has_ident = 1;
		plain(r, maybe_stamp(p + 8, e, r), e);
		if (r->t.boot_ns != OL_NULL)
			r->t.clock = OL_CLOCK_BOOT;
		return 1;
	}
	if (!starts(p, e, "kern") || !(q = memchr(p, ':', (size_t)(e - p))) || q - p >= 8 ||
	    skip_ws(p + 4, q) != q || !(q = memchr(q + 1, ':', (size_t)(e - q - 1))) ||
	    q - p >= 20)
		return 0;
	q++;
	if (q < e && *q == ' ')
		q++;
	if (q < e && *q == '[')
		return strip(px, q, e, r);
	plain(r, q, e);
	return 1;
}

/* The readers to try, in order, for each class of a line's first byte. */
static prefix_reader *const readers[K_N][3] = {
	[K_SPACE] = { indented },
	[K_BRACKET] = { dmesg_stamped, dmesg_ctime, dmesg_delta },
	[K_LT] = { priority },
	[K_DIGIT] = { iso_syslog, short_unix, kmsg },
	[K_UPPER] = { rfc3164, short_full },
	[K_LOWER] = { dmesg_x },
};

/* Strip the prefix of one text line into r (kprefix_strip without the
 * bookkeeping): pasted "> " quote marks (a diff "+" before them, a code
 * fence glued to the line: textclean.h), then the first reader of the
 * line's first-byte class that fits; a line none fits is plain text. */
static int strip(struct kprefix *px, const char *l, const char *e, struct krec *r)
{
	const char *p = l;
	int rc;

	memset(r, 0, sizeof(*r));
	r->t = ol_time_none();
	r->ident_pid = OL_NULL;
	if (p < e && (*p == '>' || *p == '+' || *p == '`')) {
		size_t n = (size_t)(e - p);
		p = text_unquote(p, &n);
	}
	if ((rc = wrapper(px, p, e, r)))
		return rc;
	plain(r, p, e);
	r->bare = 1;
	return 1;
}

/* The first reader of p's first-byte class that recognises the wrapper
 * at the start of [p, e), its value (1, or 2 for an indented
 * continuation); 0 when none does (r as it was). indented() calls it on
 * the text after the blanks, which never starts with a blank. */
static int wrapper(struct kprefix *px, const char *p, const char *e, struct krec *r)
{
	prefix_reader *const *rd;
	int i, rc;

	if (p >= e)
		return 0;
	rd = readers[first_class[(unsigned char)*p]];
	for (i = 0; i < 3 && rd[i]; i++)
		if ((rc = rd[i](px, p, e, r)))
			return rc;
	return 0;
}

/* ---------------------------------------------------------------------
 * Interface.
 */

void kprefix_init(struct kprefix *px, struct input *in, struct sink *s)
{
	memset(px, 0, sizeof(*px));
	init_classes();
	px->s = s;
	px->in = in;
	px->last_t = ol_time_none();
	strbuf_init(&px->msg);
	if (in->mtime > 0)
		px->mtime_ns = in->mtime * NS_PER_S;
}

void kprefix_release(struct kprefix *px)
{
	strbuf_release(&px->msg);
}

int kprefix_strip(struct kprefix *px, const char *l, const char *e, struct krec *r)
{
	int rc = strip(px, l, e, r);

	if (r->t.clock != OL_CLOCK_NONE)
		px->last_t = r->t;
	return rc;
}
