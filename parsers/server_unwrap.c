/*
 * server_unwrap.c -- take a server-log line's wrappers off (see
 * server_unwrap.h). Each wrapper has one function that recognises it at
 * the start of the message and takes it off; srv_unwrap() tries them
 * until none matches, so they may come in any order and any number
 * ("2025-...Z (Worker pid=7) INFO 11-29 ... [file.py:1] ").
 */
#include "parsers/server_unwrap.h"
#include "parsers/seriesutil.h"
#include "lib/timeutil.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void srv_line_init(struct srv_line *l, int year, int64_t mtime_ns)
{
	memset(l, 0, sizeof(*l));
	l->year = year;
	l->mtime_ns = mtime_ns;
	l->t = ol_time_none();
	l->last_t = ol_time_none();
	l->pid = OL_NULL;
}

/* Copy raw[0..n) into l->msg without ANSI escape sequences and '\r'. */
static void copy_plain(struct srv_line *l, const char *raw, size_t n)
{
	size_t i, o = 0;

	for (i = 0; i < n && o < SRV_MSG_MAX - 1; i++) {
		if (raw[i] == '\x1b' && i + 1 < n && raw[i + 1] == '[') {
			i += 2;
			while (i < n && !(raw[i] >= '@' && raw[i] <= '~'))
				i++;
			continue;
		}
		if (raw[i] == '\r')
			continue;
		l->msg[o++] = raw[i];
	}
	l->msg[o] = 0;
	l->n = o;
}

/* Take the first k bytes of the message off, keeping them in l->prefix
 * (as much as fits). */
static void take_off(struct srv_line *l, size_t k)
{
	size_t room = SRV_PREFIX_MAX - 1 - l->prefix_n, c = k < room ? k : room;

	memcpy(l->prefix + l->prefix_n, l->msg, c);
	l->prefix_n += c;
	l->prefix[l->prefix_n] = 0;
	memmove(l->msg, l->msg + k, l->n - k + 1);
	l->n -= k;
}

/* k, moved past the spaces of m[0..n) that follow it. */
static size_t past_spaces(const char *m, size_t n, size_t k)
{
	while (k < n && m[k] == ' ')
		k++;
	return k;
}

/* A log level and its space at the start of s: sets *used, returns 1. */
static int is_level(const char *s, size_t n, size_t *used)
{
	static const char *const lv[] = { "DEBUG", "INFO", "WARNING", "WARN", "ERROR",
					  "CRITICAL", "TRACE", NULL };
	int i;

	for (i = 0; lv[i]; i++) {
		size_t len = strlen(lv[i]);
		if (n > len && !memcmp(s, lv[i], len) && s[len] == ' ') {
			*used = len + 1;
			return 1;
		}
	}
	return 0;
}

static int dig2(const char *s)
{
	return isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[1])
		? (s[0] - '0') * 10 + (s[1] - '0') : -1;
}

/* "2025-11-29T17:22:40.5Z " (UTC or with an offset): sets l->t. */
static int strip_iso(struct srv_line *l)
{
	const char *m = l->msg;
	int64_t ns;
	int off, u;

	if (l->n <= 20 || !isdigit((unsigned char)m[0]) || m[4] != '-' || m[10] != 'T')
		return 0;
	if ((u = parse_iso8601(m, l->n, &ns, &off)) <= 0)
		return 0;
	l->t = ol_time_none();
	l->t.clock = OL_CLOCK_UTC;
	l->t.utc_ns = ns;
	take_off(l, past_spaces(m, l->n, (size_t)u));
	return 1;
}

/* "(VllmWorkerProcess pid=1234) ", "(EngineCore_DP0 pid=7) ": sets l->pid. */
static int strip_pid_tag(struct srv_line *l)
{
	const char *m = l->msg, *close, *p;

	if (l->n <= 6 || m[0] != '(')
		return 0;
	close = memchr(m, ')', l->n < 128 ? l->n : 128);
	p = close ? memmem(m, (size_t)(close - m), " pid=", 5) : NULL;
	if (!p)
		return 0;
	l->pid = strtoll(p + 5, NULL, 10);
	take_off(l, past_spaces(m, l->n, (size_t)(close - m) + 1));
	return 1;
}

/* The "MM-DD HH:MM:SS[.frac]" of vLLM's prefix at m + k, followed by a
 * space: its wall-clock time in *wall (OL_NULL when no year is known) and
 * the offset of that space; 0 when there is none. */
static size_t vllm_stamp(const struct srv_line *l, size_t k, int64_t *wall)
{
	const char *m = l->msg;
	size_t n = l->n, j = k + 14;
	int mo, d, h, mi, se;
	long frac = 0;

	if (n < k + 15 || m[k + 2] != '-' || m[k + 5] != ' ' || m[k + 8] != ':' || m[k + 11] != ':')
		return 0;
	mo = dig2(m + k), d = dig2(m + k + 3), h = dig2(m + k + 6);
	mi = dig2(m + k + 9), se = dig2(m + k + 12);
	if (j < n && (m[j] == '.' || m[j] == ',')) {
		int digs = 0;
		for (j++; j < n && isdigit((unsigned char)m[j]); j++, digs++)
			if (digs < 9)
				frac = frac * 10 + (m[j] - '0');
		for (; digs < 9; digs++)
			frac *= 10;
	}
	if (mo <= 0 || d <= 0 || h < 0 || mi < 0 || se < 0 || j >= n || m[j] != ' ')
		return 0;
	if (l->year)
		*wall = utc_ns(l->year, mo, d, h, mi, se, frac);
	else if (l->mtime_ns && mo <= 12)
		*wall = utc_ns(year_not_after(l->mtime_ns, mo, d), mo, d, h, mi, se, frac);
	else
		*wall = OL_NULL;
	return j;
}

/* Place vLLM's local stamp, unless an ISO time (kubectl --timestamps,
 * UTC) already gave the line's time. -1 if the sink failed. */
static int place_vllm_time(struct srv_line *l, int64_t wall, struct sink *s, uint64_t lineno)
{
	if (l->t.clock == OL_CLOCK_UTC)
		return 0;
	if (l->year || l->mtime_ns) {
		if (wall >= 0)
			l->t = wall_time(s, wall);
		if (!l->year && !l->noted_year++ && sink_year_basis(s, l->mtime_ns) < 0)
			return -1;
		return note_local_clock(s, &l->t, &l->noted_local) < 0 ? -1 : 0;
	}
	if (l->warned_year++)
		return 0;
	return sink_diagf(s, lineno, 0, OL_WARN, "vLLM time stamps have no year and neither"
			  " --year nor a file time gives one: times left unknown") < 0 ? -1 : 0;
}

/* "INFO 11-29 18:22:40[.123] [loggers.py:116] " or "... metrics.py:455] ".
 * 1 if taken off, 0 if absent, -1 if the sink failed. */
static int strip_vllm(struct srv_line *l, struct sink *s, uint64_t lineno)
{
	const char *m = l->msg, *br;
	size_t k, j, n = l->n;
	int64_t wall;

	if (!is_level(m, n, &k) || !(j = vllm_stamp(l, k, &wall)))
		return 0;
	if (place_vllm_time(l, wall, s, lineno) < 0)
		return -1;
	j++;
	/* "[file.py:N] " or "file.py:N] " */
	br = memchr(m + j, ']', n - j < 96 ? n - j : 96);
	if (br && memchr(m + j, ':', (size_t)(br - (m + j))) &&
	    !memchr(m + j, ' ', (size_t)(br - (m + j)))) {
		j = (size_t)(br - m) + 1;
		if (j < n && m[j] == ' ')
			j++;
	}
	take_off(l, j);
	return 1;
}

/* TGI, after its UTC time: "INFO text_generation_launcher: " or the span
 * form "INFO download{...}: ". */
static int strip_tgi(struct srv_line *l)
{
	const char *m = l->msg;
	size_t k, j, e, n = l->n;

	if (l->t.clock != OL_CLOCK_UTC || !is_level(m, n, &k))
		return 0;
	j = past_spaces(m, n, k);
	for (e = j; e < n && m[e] != ' '; e++)
		;
	if (e > j && m[e - 1] == ':')
		j = e + 1;
	else if (e > j + 2 && m[e - 1] == '}')
		j = e + 1;
	take_off(l, j > n ? n : j);
	return 1;
}

int srv_unwrap(struct srv_line *l, const char *raw, size_t n, struct sink *s, uint64_t lineno)
{
	int r;

	copy_plain(l, raw, n);
	l->t = ol_time_none();
	l->pid = OL_NULL;
	l->prefix_n = 0;
	l->prefix[0] = 0;
	for (;;) {
		if (strip_iso(l) || strip_pid_tag(l))
			continue;
		if ((r = strip_vllm(l, s, lineno)) < 0)
			return -1;
		if (r)
			continue;
		strip_tgi(l);  /* the last wrapper: what follows is the message */
		break;
	}
	if (l->t.clock != OL_CLOCK_NONE)
		l->last_t = l->t;
	else
		l->t = l->last_t;
	return 0;
}
