/*
 * server_unwrap.c -- take a server-log line's wrappers off (see
 * server_unwrap.h). Each wrapper has one function that recognises it at
 * the start of the message and takes it off; srv_unwrap() tries them
 * until none matches, so they may come in any order and any number
 * ("tgi-1  | 2025-...Z (Worker pid=7) INFO 11-29 ... [file.py:1] ").
 *
 * Two kinds: the carrier's wrappers (quotes, gutters, compose and
 * journald prefixes) are dropped; the engine's record header (its level,
 * time, tag, source position) is kept in l->prefix, so that the lines of
 * one multi-line record can be told from a record of their own.
 *
 * This file holds the raw line's copy, its times, the carrier's wrappers
 * and srv_unwrap() itself; the engine's record headers are in
 * server_unwrap_headers.inc, included below (one translation unit).
 */
#include "parsers/serving/server_unwrap.h"
#include "parsers/common/seriesutil.h"
#include "lib/timeutil.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

void srv_line_init(struct srv_line *l, int year, int64_t mtime_ns)
{
	memset(l, 0, sizeof(*l));
	l->msg = l->buf;
	l->year = year;
	l->mtime_ns = mtime_ns;
	l->t = ol_time_none();
	l->last_t = ol_time_none();
	l->pid = OL_NULL;
	l->rank = OL_NULL;
	l->tp = -1;
	l->sec_key = -1;
}

/* The length of an ANSI escape at raw[i..n): ESC "[" ..., caret "^[["
 * ..., syslog's "#033[" ... up to the final byte; 0 if none. */
static size_t ansi_len(const char *raw, size_t i, size_t n)
{
	size_t k;

	if (raw[i] == '\x1b' && i + 1 < n && raw[i + 1] == '[')
		k = i + 2;
	else if (raw[i] == '^' && i + 2 < n && raw[i + 1] == '[' && raw[i + 2] == '[')
		k = i + 3;
	else if (raw[i] == '#' && i + 4 < n && !memcmp(raw + i + 1, "033[", 4))
		k = i + 5;
	else
		return 0;
	while (k < n && ((raw[k] >= '0' && raw[k] <= '9') || raw[k] == ';'))
		k++;
	if (k >= n || !(raw[k] >= '@' && raw[k] <= '~'))
		return 0;   /* not a colour: kept as text */
	return k + 1 - i;
}

/* The first bytes of what copy_plain() drops: ESC, CR, '^', '#' (as
 * SRV_SPECIAL_BYTES). */
static const unsigned char special[256] = {
	['\x1b'] = 1, ['\r'] = 1, ['^'] = 1, ['#'] = 1,
};

/* 1 if raw[0..n) holds a byte copy_plain() may drop: sixteen bytes a
 * step where SSE2 is there, the last step overlapping the one before. */
static int has_special(const char *raw, size_t n)
{
	size_t i = 0;
#ifdef __SSE2__
	const __m128i esc = _mm_set1_epi8('\x1b'), cr = _mm_set1_epi8('\r');
	const __m128i caret = _mm_set1_epi8('^'), hash = _mm_set1_epi8('#');

	if (n >= 16) {
		for (;; i += 16) {
			__m128i v, hit;
			if (i + 16 > n)
				i = n - 16;
			v = _mm_loadu_si128((const __m128i *)(const void *)(raw + i));
			hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, esc), _mm_cmpeq_epi8(v, cr)),
					   _mm_or_si128(_mm_cmpeq_epi8(v, caret),
							_mm_cmpeq_epi8(v, hash)));
			if (_mm_movemask_epi8(hit))
				return 1;
			if (i + 16 == n)
				return 0;
		}
	}
#endif
	for (; i < n; i++)
		if (special[(unsigned char)raw[i]])
			return 1;
	return 0;
}

/* Copy raw[0..n) into l->buf without ANSI escape sequences and '\r',
 * l->msg at its start. A line without any of their first bytes (most
 * lines; marked 0: the caller knows it has none) is one memcpy. */
static void copy_plain(struct srv_line *l, const char *raw, size_t n, int marked)
{
	size_t i, o = 0, e;

	l->msg = l->buf;
	if (n > SRV_MSG_MAX - 1)
		n = SRV_MSG_MAX - 1;
	if (!marked || !has_special(raw, n)) {
		memcpy(l->msg, raw, n);
		l->msg[n] = 0;
		l->n = n;
		return;
	}
	for (i = 0; i < n && o < SRV_MSG_MAX - 1; i++) {
		if ((raw[i] == '\x1b' || raw[i] == '^' || raw[i] == '#') &&
		    (e = ansi_len(raw, i, n))) {
			i += e - 1;
			continue;
		}
		if (raw[i] == '\r')
			continue;
		l->msg[o++] = raw[i];
	}
	l->msg[o] = 0;
	l->n = o;
}

/* Take the first k bytes of the message off (the message starts after
 * them); keep = 1: they are the record header, kept in l->prefix (as much
 * as fits). */
static void take(struct srv_line *l, size_t k, int keep)
{
	size_t room = SRV_PREFIX_MAX - 1 - l->prefix_n, c = k < room ? k : room;

	if (keep) {
		memcpy(l->prefix + l->prefix_n, l->msg, c);
		l->prefix_n += c;
		l->prefix[l->prefix_n] = 0;
	}
	l->msg += k;
	l->n -= k;
}

/* k, moved past the spaces of m[0..n) that follow it. */
static size_t past_spaces(const char *m, size_t n, size_t k)
{
	while (k < n && m[k] == ' ')
		k++;
	return k;
}

/* 1 if m[0..n) starts with the string literal p. */
#define starts(m, n, p) ((n) >= sizeof(p) - 1 && !memcmp((m), (p), sizeof(p) - 1))

/* 1 if s[0..n) starts with level word w (a literal) and a space, setting
 * *used. */
#define level_is(s, n, w, used) \
	((n) > sizeof(w) - 1 && (s)[sizeof(w) - 1] == ' ' && !memcmp((s), (w), sizeof(w) - 1) && \
	 (*(used) = sizeof(w), 1))

/* A log level and its space at the start of s: sets *used, returns 1. */
static int is_level(const char *s, size_t n, size_t *used)
{
	switch (n ? s[0] : 0) {
	case 'D':
		return level_is(s, n, "DEBUG", used);
	case 'I':
		return level_is(s, n, "INFO", used);
	case 'W':
		return level_is(s, n, "WARNING", used) || level_is(s, n, "WARN", used);
	case 'E':
		return level_is(s, n, "ERROR", used);
	case 'C':
		return level_is(s, n, "CRITICAL", used);
	case 'T':
		return level_is(s, n, "TRACE", used);
	default:
		return 0;   /* most lines: no level */
	}
}

/* isdigit() without the locale's table (digits are the same in all). */
static int is_digit(char c)
{
	return (unsigned char)(c - '0') < 10;
}

static int dig2(const char *s)
{
	return is_digit(s[0]) && is_digit(s[1]) ? (s[0] - '0') * 10 + (s[1] - '0') : -1;
}

/* ---- times ---- */

static void set_utc(struct srv_line *l, int64_t ns)
{
	l->t = ol_time_none();
	l->t.clock = OL_CLOCK_UTC;
	l->t.utc_ns = ns;
}

/* A wall-clock time of unknown zone (local), unless an ISO time (UTC)
 * already gave the line's time. -1 if the sink failed. */
static int place_wall(struct srv_line *l, int64_t wall, struct sink *s)
{
	if (l->t.clock == OL_CLOCK_UTC || wall < 0)
		return 0;
	l->t = wall_time(s, wall);
	return note_local_clock(s, &l->t, &l->noted_local) < 0 ? -1 : 0;
}

/* utc_ns() of a year-less stamp in --year, else in the year that puts it
 * no later than the file's mtime; -1 when it is no time. A log's lines
 * come many to a second: the second's value is worked out once, and kept
 * in l for the lines after. */
static int64_t yearless_ns(struct srv_line *l, int mo, int d, int h, int mi, int se, long frac)
{
	int64_t key = (int64_t)mo << 32 | (int64_t)d << 24 | h << 16 | mi << 8 | se;

	if (key != l->sec_key) {
		l->sec_key = key;
		l->sec_ns = utc_ns(l->year ? l->year : year_not_after(l->mtime_ns, mo, d), mo, d, h,
				   mi, se, 0);
	}
	return l->sec_ns < 0 ? -1 : l->sec_ns + frac;   /* frac: under a second */
}

/* A year-less "MM-DD HH:MM:SS.frac" stamp (vLLM, glog, syslog), placed
 * in --year, else in the year that puts it no later than the file's mtime
 * (an inference, recorded once as meta time.year_basis), else warned
 * about once. -1 if the sink failed. */
static int place_yearless(struct srv_line *l, int mo, int d, int h, int mi, int se, long frac,
			  struct sink *s, uint64_t lineno)
{
	if (l->t.clock == OL_CLOCK_UTC)
		return 0;
	if (l->year)
		return place_wall(l, yearless_ns(l, mo, d, h, mi, se, frac), s);
	if (l->mtime_ns && mo >= 1 && mo <= 12) {
		if (!l->noted_year++ && sink_year_basis(s, l->mtime_ns) < 0)
			return -1;
		return place_wall(l, yearless_ns(l, mo, d, h, mi, se, frac), s);
	}
	if (l->warned_year++)
		return 0;
	return sink_diagf(s, lineno, 0, OL_WARN, "log time stamps have no year and neither"
			  " --year nor a file time gives one: times left unknown") < 0 ? -1 : 0;
}

/* "HH:MM:SS[.frac]" at m + k: fields set, the offset after it returned;
 * 0 when there is none. */
static size_t clock_at(const char *m, size_t n, size_t k, int *h, int *mi, int *se, long *frac)
{
	size_t j = k + 8;
	int digs = 0;

	if (n < k + 8 || m[k + 2] != ':' || m[k + 5] != ':' || (*h = dig2(m + k)) < 0 ||
	    (*mi = dig2(m + k + 3)) < 0 || (*se = dig2(m + k + 6)) < 0)
		return 0;
	*frac = 0;
	if (j < n && (m[j] == '.' || m[j] == ',')) {
		for (j++; j < n && is_digit(m[j]); j++, digs++)
			if (digs < 9)
				*frac = *frac * 10 + (m[j] - '0');
		for (; digs < 9; digs++)
			*frac *= 10;
	}
	return j;
}

/* ---- the carrier's wrappers ---- */

/* "2025-11-29T17:22:40.5Z " (UTC or with an offset), bare or in
 * brackets (CI): sets l->t. */
static int strip_iso(struct srv_line *l)
{
	const char *m = l->msg;
	size_t b = m[0] == '[';
	int64_t ns;
	int off, u;

	if (l->n <= 20 + b || !is_digit(m[b]) || m[b + 4] != '-' ||
	    m[b + 10] != 'T')
		return 0;
	if ((u = parse_iso8601(m + b, l->n - b, &ns, &off)) <= 0)
		return 0;
	if (b && (b + (size_t)u >= l->n || m[b + (size_t)u] != ']'))
		return 0;
	set_utc(l, ns);
	take(l, past_spaces(m, l->n, b + (size_t)u + b), 0);
	return 1;
}

/* kubectl logs --prefix's "[pod/NAME/CONTAINER] " (or "[pod/NAME] "):
 * the pod and container become the service, the instance the engine's
 * lines are told apart by (replicas share a container name). */
static int strip_k8s_prefix(struct srv_line *l)
{
	const char *m = l->msg, *br;
	size_t k;

	if (!starts(m, l->n, "[pod/") || !(br = memchr(m, ']', l->n < 320 ? l->n : 320)) ||
	    br == m + 5 || memchr(m + 5, ' ', (size_t)(br - m) - 5))
		return 0;
	copy_str(l->service, sizeof(l->service), m + 5, (size_t)(br - m) - 5);
	k = (size_t)(br - m) + 1;
	take(l, k < l->n && m[k] == ' ' ? k + 1 : k, 0);
	return 1;
}

/* docker-compose "vllm-1  | ", a CI gutter "  | ", a markdown quote "> ",
 * a quote bar "▎ ", a terminal UI's frame "│ ... │", an inline-code
 * backtick, torch's "[rank0]:". */
static int strip_carrier(struct srv_line *l)
{
	const char *m = l->msg;
	size_t n = l->n, k = 0;

	if (m[0] == '>' && (n == 1 || m[1] == ' '))
		k = n == 1 ? 1 : 2;
	else if (starts(m, n, "\xe2\x96\x8e"))
		k = past_spaces(m, n, 3);
	else if (starts(m, n, "\xe2\x94\x82")) {
		/* a terminal UI's frame (k9s, Lens: "│ line ... │"): both borders */
		k = past_spaces(m, n, 3);
		if (n >= k + 3 && !memcmp(m + n - 3, "\xe2\x94\x82", 3)) {
			size_t e = n - 3;
			while (e > k && m[e - 1] == ' ')
				e--;
			l->msg[e] = 0;
			l->n = e;
		}
	}
	else if (m[0] == '`')
		k = past_spaces(m, n, 1);
	else if (starts(m, n, "[rank") && is_digit(m[5])) {
		for (k = 5; k < n && is_digit(m[k]); k++)
			;
		if (k + 1 >= n || m[k] != ']' || m[k + 1] != ':')
			return 0;
		l->carrier_rank = k - 5 < 6 ? atoi(m + 5) : -1;
		/* the prefix is "[rankN]:" and one space; the blanks after it
		 * are the line's own (a traceback's frames are indented under
		 * its "Traceback" line, which server_join.c reads) */
		k += 2;
		if (k < n && m[k] == ' ')
			k++;
	} else {
		/* the gutter's indent may hold tabs (milabench's report of a
		 * run's exception: "    \t| Traceback ...") */
		size_t j = 0, e;
		while (m[j] == ' ' || m[j] == '\t')   /* strspn(m, " \t"), without its call */
			j++;
		e = j;
		if (j < n && m[j] != '|' && (l->service[0] || j || !isalpha((unsigned char)m[0])))
			return 0;   /* a gutter, or one service a line named without indent */
		if (!memchr(m + j, '|', n - j))
			return 0;   /* no bar: neither (most lines, told at once) */
		while (e < n && e - j < SRV_NAME_MAX - 1 && (isalnum((unsigned char)m[e]) ||
				 m[e] == '_' || m[e] == '-' || m[e] == '.'))
			e++;
		k = past_spaces(m, n, e);
		if (k >= n || m[k] != '|' || (k + 1 < n && m[k + 1] != ' ') || (e > j && k == e))
			return 0;   /* a name needs its spaces */
		if (e > j)
			copy_str(l->service, sizeof(l->service), m + j, e - j);
		/* one space goes with the bar; a traceback's frame keeps the
		 * indent under its "Traceback" line (server_join.c) */
		k = k + 1 < n && m[k + 1] == ' ' ? k + 2 : k + 1;
		if (!starts(m + past_spaces(m, n, k), n - past_spaces(m, n, k), "File \""))
			k = past_spaces(m, n, k);
	}
	take(l, k, 0);
	return 1;
}

/* journald / syslog "Aug 19 18:34:30 host ident[pid]: ": the time, and
 * Ollama as the hint when the ident is its. A paste that indents the
 * whole journal ("    Apr 29 12:31:50 gravitino ollama[1654667]: [GIN]
 * ...", a GitHub issue's indented block) is the same header: its spaces
 * go with it, so that the message under it (a GIN access line, a Go
 * runner's record) is read as it is unindented. -1 if the sink failed. */
static int strip_syslog(struct srv_line *l, struct sink *s, uint64_t lineno)
{
	size_t ind = past_spaces(l->msg, l->n, 0);
	const char *m = l->msg + ind, *c;
	size_t n = l->n - ind, j, e;
	int mo, d, h, mi, se;
	long frac;

	if (n < 20 || m[3] != ' ' || !isupper((unsigned char)m[0]) || !(mo = month_from_name(m, 3)))
		return 0;
	d = m[4] == ' ' ? dig2((char[]){ '0', m[5] }) : dig2(m + 4);
	if (d <= 0 || m[6] != ' ' || !(j = clock_at(m, n, 7, &h, &mi, &se, &frac)) ||
	    j >= n || m[j] != ' ')
		return 0;
	e = j + 1;
	while (e < n && m[e] != ' ')
		e++;   /* the host */
	c = memchr(m + e, ':', n - e < 64 ? n - e : 64);
	if (e >= n || !c || (size_t)(c - m) + 1 >= n || c[1] != ' ' || memchr(m + e + 1, ' ',
			(size_t)(c - m) - e - 1))
		return 0;
	if (place_yearless(l, mo, d, h, mi, se, frac, s, lineno) < 0)
		return -1;
	/* "ollama[1186]", "ollama.listener[2840147]": Ollama's unit, whose
	 * llama.cpp runner's lines name no engine of their own */
	if ((size_t)(c - m) - e - 1 >= 6 && !memcmp(m + e + 1, "ollama", 6))
		l->hint = ENGINE_OLLAMA;
	take(l, ind + (size_t)(c - m) + 2, 0);
	return 1;
}

/* An indented paste: the spaces before a pid tag, an ISO time or vLLM's
 * header (never a traceback's indented lines). */
static int strip_indent(struct srv_line *l)
{
	const char *m = l->msg, *close;
	size_t k = past_spaces(m, l->n, 0), n = l->n, u;

	if (!k || k + 16 >= n)
		return 0;
	if ((m[k] == '(' && (close = memchr(m + k, ')', n - k < 128 ? n - k : 128)) &&
	     memmem(m + k, (size_t)(close - m) - k, " pid=", 5)) ||
	    (is_digit(m[k]) && m[k + 4] == '-' && m[k + 10] == 'T') ||
	    (is_level(m + k, n - k, &u) && k + u + 5 < n && m[k + u + 2] == '-' &&
	     dig2(m + k + u) > 0)) {
		take(l, k, 0);
		return 1;
	}
	return 0;
}

/* ---- the engine's record headers ---- */

#include "parsers/serving/server_unwrap_headers.inc"

/* A CRI node log line (containerd, CRI-O: /var/log/pods/.../0.log):
 * "2024-05-01T10:00:00.123456789Z stdout F <line>", the stream stdout or
 * stderr, the tag F (full) or P (partial: the line goes on in the next
 * one; a tag-less "<time> stdout <line>" is full). Sets *ns (UTC), *body
 * (the offset of <line>) and *flag ('F' or 'P'); 0 when raw is not one. */
static int cri_split(const char *raw, size_t n, int64_t *ns, size_t *body, char *flag)
{
	size_t k;
	int off, u;

	if (n < 28 || !is_digit(raw[0]) || raw[4] != '-' || raw[10] != 'T' ||
	    (!memmem(raw + 19, n - 19 < 24 ? n - 19 : 24, " stdout", 7) &&
	     !memmem(raw + 19, n - 19 < 24 ? n - 19 : 24, " stderr", 7)) ||
	    (u = parse_iso8601(raw, n, ns, &off)) <= 0 || (size_t)u + 7 > n || raw[u] != ' ')
		return 0;
	k = (size_t)u + 1;
	if (memcmp(raw + k, "stdout", 6) && memcmp(raw + k, "stderr", 6))
		return 0;
	k += 6;
	if (k == n) {   /* an empty line */
		*flag = 'F';
		*body = n;
		return 1;
	}
	if (raw[k] != ' ')
		return 0;
	k++;
	*flag = 'F';
	if (k < n && (raw[k] == 'F' || raw[k] == 'P') && (k + 1 == n || raw[k + 1] == ' ')) {
		*flag = raw[k];
		k += k + 1 < n ? 2 : 1;
	}
	*body = k;
	return 1;
}

/* Append raw[0..n) to the partial line held (what does not fit in
 * SRV_MSG_MAX is dropped: a line is cut there anyway). */
static void part_add(struct srv_line *l, const char *raw, size_t n)
{
	size_t room = SRV_MSG_MAX - 1 - l->part_n;

	if (n > room)
		n = room;
	memcpy(l->part + l->part_n, raw, n);
	l->part_n += n;
}

int srv_unwrap(struct srv_line *l, const char *raw, size_t n, int marked, struct sink *s,
	       uint64_t lineno)
{
	int r, rounds, cri = 0;
	int64_t cri_ns = 0;
	size_t body;
	char flag;

	/* a CRI node log's wrapper first: its partial lines are joined before
	 * anything else is read in them */
	if (n >= 28 && is_digit(raw[0]) && cri_split(raw, n, &cri_ns, &body, &flag)) {
		if (flag == 'P') {
			if (!l->part_n)
				l->part_ns = cri_ns;
			part_add(l, raw + body, n - body);
			return 1;
		}
		cri = 1;
		if (l->part_n) {
			part_add(l, raw + body, n - body);
			raw = l->part;
			n = l->part_n;
			cri_ns = l->part_ns;   /* the line's time: its first piece's */
			l->part_n = 0;
		} else {
			raw += body;
			n -= body;
		}
		marked = 1;
	}
	copy_plain(l, raw, n, marked);
	l->t = ol_time_none();
	l->pid = l->rank = OL_NULL;
	l->tp = l->carrier_rank = -1;
	l->tag[0] = l->service[0] = 0;
	l->hint = ENGINE_NONE;
	l->prefix_n = 0;
	l->prefix[0] = 0;
	if (cri)
		set_utc(l, cri_ns);   /* exact, UTC: the line's time unless it has its own UTC */
	/* uvicorn's own lines, most of a busy server's log: no wrapper starts
	 * with "INFO:" (a level needs its space, a service name its '|') */
	rounds = starts(l->msg, l->n, "INFO:") ? 16 : 0;
	for (; rounds < 16 && l->n; rounds++) {
		if (strip_iso(l) || strip_k8s_prefix(l) || strip_pid_tag(l) || strip_carrier(l) ||
		    strip_indent(l) || strip_json(l) || strip_stage(l))
			continue;
		if ((r = strip_vllm(l, s, lineno)) || (r = strip_syslog(l, s, lineno)) ||
		    (r = strip_glog(l, s, lineno)) || (r = strip_sglang(l, s))) {
			if (r < 0)
				return -1;
			continue;
		}
		strip_tgi(l);  /* the last wrapper: what follows is the message */
		break;
	}
	if (l->t.clock != OL_CLOCK_NONE)
		l->last_t = l->t;
	else
		l->t = l->last_t;
	return 0;
}
