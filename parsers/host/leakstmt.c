/*
 * leakstmt.c -- a program's own statement that it leaked memory (see
 * leakstmt.h): PyTorch's leak checks with their before/after figures,
 * a script's "Detected N bytes ... leak", and the before/after pair of
 * lines just above such a statement.
 */
#include "parsers/host/leakstmt.h"
#include "lib/vocab.h"
#include "lib/strci.h"
#include "parsers/common/seriesutil.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAIR_LINES 4   /* a before/after pair within this many lines above */

/* Offset of w in l[0..n), case-insensitive, from offset from; -1 none
 * (lib/strci.h's mem_find_ci, as an offset). */
static long ci_find(const char *l, size_t n, size_t from, const char *w)
{
	const char *p = from < n ? mem_find_ci(l + from, n - from, w) : NULL;

	return p ? (long)(p - l) : -1;
}

/* The unsigned number at l[*i] (digits, one '.'), *i past it; NAN none. */
static double number_at(const char *l, size_t n, size_t *i)
{
	char buf[40];
	size_t k = 0;
	int dot = 0;

	/* a '.' only with a digit after it: "on device 0." ends a sentence */
	while (*i < n && k + 1 < sizeof(buf) &&
	       (isdigit((unsigned char)l[*i]) || (l[*i] == '.' && !dot && k && *i + 1 < n &&
						   isdigit((unsigned char)l[*i + 1])))) {
		dot |= l[*i] == '.';
		buf[k++] = l[(*i)++];
	}
	if (!k || buf[k - 1] == '.')
		return NAN;
	buf[k] = 0;
	return strtod(buf, NULL);
}

/* The first number after phrase ph (from offset from); NAN none. The
 * offset past the number into *end when end is not NULL. */
static double figure_after(const char *l, size_t n, size_t from, const char *ph,
			   size_t *end)
{
	long p = ci_find(l, n, from, ph);
	size_t i;
	double v;

	if (p < 0)
		return NAN;
	for (i = (size_t)p + strlen(ph); i < n && !isdigit((unsigned char)l[i]); i++)
		if (i > (size_t)p + strlen(ph) + 4)
			return NAN;   /* the figure follows the phrase at once */
	v = number_at(l, n, &i);
	if (end)
		*end = i;
	return v;
}

/* The byte unit at l[i] (one space allowed before it), any case and a
 * whole word ("5 Mb", "12 bytes"): its size in bytes, 0 none. The units
 * are parse_size's (parsers/common/seriesutil.h size_unit_at). */
static double unit_at(const char *l, size_t n, size_t i)
{
	size_t len;

	if (i < n && l[i] == ' ')
		i++;
	return i <= n ? size_unit_at(l + i, n - i, SU_ANY_CASE | SU_WHOLE_WORD, &len) : 0;
}

/* The word before " driver API" / " caching allocator": CUDA or MPS. */
static const char *check_kind(const char *l, size_t n, long at)
{
	long m = ci_find(l, n, at > 8 ? (size_t)at - 8 : 0, "mps");

	return m >= 0 && m < at ? "mps_check" : "cuda_check";
}

/* The test's name: after " in " up to the '!'. */
static void check_name(const char *l, size_t n, long from, char *out, size_t cap)
{
	long p = ci_find(l, n, (size_t)from, " in ");
	size_t i, k = 0;

	out[0] = 0;
	if (p < 0)
		return;
	for (i = (size_t)p + 4; i < n && l[i] != '!' && l[i] != ' ' && k + 1 < cap; i++)
		out[k++] = l[i] == '|' ? '/' : l[i];
	out[k] = 0;
}

/* PyTorch's leak check: 1 and *o filled, 0 not one. */
static int torch_check(const char *l, size_t n, struct leak_stated *o)
{
	long at = ci_find(l, n, 0, " driver api confirmed a leak in ");
	size_t e = 0;

	o->confirmed = at >= 0;
	if (at < 0 && (at = ci_find(l, n, 0, " caching allocator reports a memory leak")) < 0)
		return 0;
	snprintf(o->said_by, sizeof(o->said_by), "%s", check_kind(l, n, at));
	check_name(l, n, at, o->name, sizeof(o->name));
	o->alloc_before = figure_after(l, n, 0, "caching allocator allocated memory was ", NULL);
	o->alloc_after = figure_after(l, n, 0, "and is now reported as ", NULL);
	{
		double d = figure_after(l, n, 0, "reported as ", &e);
		(void)d;
		d = figure_after(l, n, e, " on device ", NULL);
		o->device = isnan(d) ? -1 : (int)d;
	}
	o->driver_before = figure_after(l, n, 0, "driver allocated memory was ", &e);
	o->driver_after = isnan(o->driver_before) ? NAN : figure_after(l, n, e, " and is now ", NULL);
	if (!isnan(o->driver_before) && !isnan(o->driver_after))
		o->leaked = o->driver_after - o->driver_before;
	else if (!isnan(o->alloc_before) && !isnan(o->alloc_after))
		o->leaked = o->alloc_after - o->alloc_before;
	return 1;
}

#define NEGATION_NEAR 14   /* "without " this many bytes before "leak" negates it */

/* Whether w starts within the NEGATION_NEAR bytes before p. */
static int said_just_before(const char *l, size_t n, size_t p, const char *w)
{
	long q = ci_find(l, n, p > NEGATION_NEAR ? p - NEGATION_NEAR : 0, w);

	return q >= 0 && q < (long)p;
}

/* Whether "leak" at p is the word (leak, leaked, leaks, leaking) and not
 * negated ("no leak", "not leak", "without leak"). */
static int leak_word(const char *l, size_t n, size_t p)
{
	size_t e = p + 4;

	if (p > 0 && isalpha((unsigned char)l[p - 1]))
		return 0;
	if (e < n && (l[e] == 'y' || l[e] == 'Y'))
		return 0;   /* leaky_relu */
	return !said_just_before(l, n, p, "no ") && !said_just_before(l, n, p, "not ") &&
	       !said_just_before(l, n, p, "without ");
}

/* A leak word with a byte figure within LEAKSTMT_NEAR of it. */
static int stated(const char *l, size_t n, struct leak_stated *o)
{
	long p = ci_find(l, n, 0, "leak");
	size_t i, lo, hi;

	for (; p >= 0; p = ci_find(l, n, (size_t)p + 4, "leak")) {
		if (!leak_word(l, n, (size_t)p))
			continue;
		lo = (size_t)p > LEAKSTMT_NEAR ? (size_t)p - LEAKSTMT_NEAR : 0;
		hi = (size_t)p + LEAKSTMT_NEAR < n ? (size_t)p + LEAKSTMT_NEAR : n;
		for (i = lo; i < hi; i++) {
			size_t j = i;
			double v, u;
			if (!isdigit((unsigned char)l[i]) || (i > 0 && (isalnum((unsigned char)l[i - 1]) ||
								      l[i - 1] == '.')))
				continue;
			v = number_at(l, n, &j);
			u = unit_at(l, n, j);
			if (isnan(v) || u <= 0)
				continue;
			if (v <= 0)
				return 0;   /* "0 bytes leaked" */
			/* test/test_mps.py's TestMemoryLeak asserts "Detected {driver_after -
			 * driver_before} bytes leak of GPU memory" (pytorch#114197): the
			 * MPS driver's own figures compared, a check */
			snprintf(o->said_by, sizeof(o->said_by), "%s",
				 ci_find(l, n, 0, "leak of gpu memory") >= 0 ? "mps_check" : "stated");
			o->confirmed = 1;
			o->leaked = v * u;
			return 1;
		}
	}
	return 0;
}

int leakstmt_line(const char *l, size_t n, struct leak_stated *o)
{
	memset(o, 0, sizeof(*o));
	o->device = -1;
	o->alloc_before = o->alloc_after = o->driver_before = o->driver_after = NAN;
	o->leaked = NAN;
	return torch_check(l, n, o) || stated(l, n, o);
}

void leakstmt_init(struct leakstmt_set *m)
{
	memset(m, 0, sizeof(*m));
	m->after = NAN;
}

/* "<stem>before = N" / "<stem>after = N": the stem (before the word,
 * "driver_") and the bare figure after it, as bytes. 1 before, 2 after,
 * 0 neither. */
static int pair_line(const char *l, size_t n, char *stem, size_t cap, double *v)
{
	static const char *const w[] = { "before", "after" };
	int k;

	for (k = 0; k < 2; k++) {
		long p = ci_find(l, n < 32 ? n : 32, 0, w[k]);   /* a stem of 20 at most */
		size_t i, s = 0;
		if (p < 0 || p > 20)
			continue;
		for (i = 0; i < (size_t)p && s + 1 < cap; i++)
			if (!isspace((unsigned char)l[i]))
				stem[s++] = (char)tolower((unsigned char)l[i]);
		stem[s] = 0;
		/* a memory stem only: driver_, allocated_, mem_, rss_ */
		if (!strstr(stem, "driver") && !strstr(stem, "alloc") && !strstr(stem, "mem") &&
		    !strstr(stem, "rss"))
			return 0;
		for (i = (size_t)p + strlen(w[k]); i < n && (l[i] == ' ' || l[i] == '=' ||
							   l[i] == ':'); i++)
			;
		*v = number_at(l, n, &i);
		if (isnan(*v))
			return 0;
		if (unit_at(l, n, i) > 0)
			*v *= unit_at(l, n, i);
		else if (i != n && !isspace((unsigned char)l[i]))
			return 0;
		return k + 1;
	}
	return 0;
}

/* Whether the first 32 bytes of l hold "before" or "after" (any case,
 * "efore" or "after" around an 'f' memchr finds), so that most lines
 * cost no pair_line. */
static int pair_gate(const char *l, size_t n)
{
	size_t m = n < 32 ? n : 32, j;
	const char *p;
	int c;

	for (c = 0; c < 2; c++)
		for (p = l; (p = memchr(p, c ? 'F' : 'f', m - (size_t)(p - l))); p++) {
			j = (size_t)(p - l);
			if (j >= 1 && j + 3 < m &&
			    (((l[j - 1] | 0x20) == 'a' && (l[j + 1] | 0x20) == 't' &&
			      (l[j + 2] | 0x20) == 'e' && (l[j + 3] | 0x20) == 'r') ||
			     ((l[j - 1] | 0x20) == 'e' && (l[j + 1] | 0x20) == 'o' &&
			      (l[j + 2] | 0x20) == 'r' && (l[j + 3] | 0x20) == 'e')))
				return 1;
		}
	return 0;
}

/* Whether l holds "leak" in any case: memchr (vectorised in libc) for
 * the 'k' or 'K', then its three bytes before; a server log's lines are
 * read here each, so the scan must cost little more than the newline
 * pass (bench/check.sh server_log). */
static int says_leak(const char *l, size_t n)
{
	const char *p;
	size_t i;
	int c;

	for (c = 0; c < 2; c++)
		for (p = l; (p = memchr(p, c ? 'K' : 'k', n - (size_t)(p - l))); p++) {
			i = (size_t)(p - l);
			if (i >= 3 && (l[i - 1] | 0x20) == 'a' && (l[i - 2] | 0x20) == 'e' &&
			    (l[i - 3] | 0x20) == 'l')
				return 1;
		}
	return 0;
}

void leakstmt_take(struct leakstmt_set *m, const char *l, size_t n)
{
	struct leak_stated o;
	char stem[24];
	double v;
	int k;

	m->line++;
	k = pair_gate(l, n) ? pair_line(l, n, stem, sizeof(stem), &v) : 0;
	if (k == 1) {
		memcpy(m->stem, stem, sizeof(m->stem));
		m->before = v;
		m->before_set = 1;
		m->after = NAN;
		m->pair_line = m->line;
		return;
	}
	if (k == 2 && m->before_set && !strcmp(stem, m->stem) &&
	    m->line - m->pair_line <= PAIR_LINES) {
		m->after = v;
		m->pair_line = m->line;
		return;
	}
	if (!says_leak(l, n))
		return;
	if (m->n >= LEAKSTMT_MAX || !leakstmt_line(l, n, &o))
		return;
	if (isnan(o.driver_before) && m->before_set && !isnan(m->after) &&
	    m->line - m->pair_line <= PAIR_LINES) {
		o.driver_before = m->before;
		o.driver_after = m->after;
		if (!strcmp(o.said_by, "stated"))   /* a check's name is its test's */
			snprintf(o.name, sizeof(o.name), "%s", m->stem);
	}
	m->s[m->n++] = o;
}

/* "v|" or "|" when v is NAN. */
static size_t put(char *buf, size_t cap, size_t o, double v)
{
	int w = isnan(v) ? snprintf(buf + o, cap - o, "|") : snprintf(buf + o, cap - o, "%.0f|", v);

	return w < 0 || (size_t)w >= cap - o ? cap : o + (size_t)w;
}

int leakstmt_finish(struct leakstmt_set *m, struct sink *sk)
{
	char key[64], val[320];
	int i, out = 0;

	for (i = 0; i < m->n; i++) {
		const struct leak_stated *s = &m->s[i];
		size_t o = (size_t)snprintf(val, sizeof(val), "%s|%d|%d|", s->said_by, s->confirmed,
					    s->device);
		o = put(val, sizeof(val), o, s->alloc_before);
		o = put(val, sizeof(val), o, s->alloc_after);
		o = put(val, sizeof(val), o, s->driver_before);
		o = put(val, sizeof(val), o, s->driver_after);
		o = put(val, sizeof(val), o, s->leaked);
		if (o >= sizeof(val))
			continue;
		snprintf(val + o, sizeof(val) - o, "%s", s->name);
		snprintf(key, sizeof(key), "%s%d", vocab_meta_key(VM_LEAK_STATED), out);
		if (sink_meta(sk, key, val) < 0)
			return -1;
		out++;
	}
	return out;
}

/* The field at *p up to '|' as a number (NAN empty), *p past the bar. */
static double field(const char **p)
{
	const char *bar = strchr(*p, '|');
	double v = NAN;

	if (!bar)
		return NAN;
	if (bar > *p)
		v = strtod(*p, NULL);
	*p = bar + 1;
	return v;
}

int leakstmt_decode(const char *val, struct leak_stated *o)
{
	const char *p = strchr(val, '|');
	size_t k;
	double d;

	memset(o, 0, sizeof(*o));
	if (!p || (k = (size_t)(p - val)) >= sizeof(o->said_by))
		return -1;
	memcpy(o->said_by, val, k);
	o->said_by[k] = 0;
	p++;
	o->confirmed = field(&p) == 1;
	d = field(&p);
	o->device = isnan(d) ? -1 : (int)d;
	o->alloc_before = field(&p);
	o->alloc_after = field(&p);
	o->driver_before = field(&p);
	o->driver_after = field(&p);
	o->leaked = field(&p);
	snprintf(o->name, sizeof(o->name), "%s", p);
	return 0;
}
