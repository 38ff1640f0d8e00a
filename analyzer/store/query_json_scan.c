/*
 * query_json_scan.c -- the JSON a column holds ("data", "*_json"), read
 * back and written as jansson would dump what json_loads() makes of it,
 * token by token, without building it: strings decoded and re-escaped,
 * integers and reals printed as jansson prints them, members in their
 * order. Also the key set that tells when an object would have a key
 * twice (jansson keeps one, in the first one's place).
 *
 * It takes only what it can vouch for: jansson's grammar with no
 * whitespace (the store writes JSON_COMPACT text), no key met twice in
 * one object, no integer or real out of range, no U+0000, no lone
 * surrogate, valid UTF-8, at most SCAN_LEVELS deep. Anything else
 * returns -1 and the row goes through jansson itself (query_json.c),
 * which then decides (ignoring text it cannot load, as q_row does).
 */
#include "analyzer/store/query_json_impl.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

/* Deeper than this, a column's JSON goes through jansson. */
#define SCAN_LEVELS 32
/* Keys a row may carry (its columns and what "data" merges, at every
 * depth) before it goes through jansson; twice that many slots. */
#define JW_KEYS 256
#define JW_SLOTS (2 * JW_KEYS)

struct q_jw_key {
	uint32_t stamp;         /* the row it belongs to (q_jw.row) */
	uint32_t object;        /* the object it is a key of, within the row */
	uint32_t off, len;      /* its text ("..." escaped) in q_jw.buf */
};

/* ---- the keys of a row ---- */

/* A cheap hash of a quoted key: its length and the bytes at both ends
 * (collisions only cost a comparison). */
static uint32_t key_hash(const char *s, size_t n)
{
	uint32_t a = 0, b = 0;

	memcpy(&a, s + 1, n >= 5 ? 4 : n - 1);
	if (n >= 9)
		memcpy(&b, s + n - 5, 4);
	return (a * 0x9e3779b1u) ^ (b * 0x85ebca77u) ^ (uint32_t)n;
}

int jw_key_add(struct q_jw *w, uint32_t obj, size_t off, size_t len)
{
	uint32_t h, i;
	struct q_jw_key *k;

	if (!w->keys && !(w->keys = calloc(JW_SLOTS, sizeof(*w->keys))))
		return -1;
	if (++w->nkeys > JW_KEYS || len < 2)
		return -1;
	h = key_hash(w->buf + off, len) ^ (obj * 0xc2b2ae35u);
	for (i = h & (JW_SLOTS - 1);; i = (i + 1) & (JW_SLOTS - 1)) {
		k = &w->keys[i];
		if (k->stamp != w->row)
			break;
		if (k->object == obj && k->len == len &&
		    !memcmp(w->buf + k->off, w->buf + off, len))
			return -1;
	}
	k->stamp = w->row;
	k->object = obj;
	k->off = (uint32_t)off;
	k->len = (uint32_t)len;
	return 0;
}

void jw_keys_new_row(struct q_jw *w)
{
	if (++w->row == 0) {            /* wrapped: the stamps must be cleared */
		if (w->keys)
			memset(w->keys, 0, JW_SLOTS * sizeof(*w->keys));
		w->row = 1;
	}
	w->nkeys = 0;
	w->objects = 0;
}

/* ---- tokens ---- */

/* JSON text being read: the next byte at p, the end at e. */
struct scan {
	const unsigned char *p, *e;
};

static int scan_value(struct q_jw *w, struct scan *s, int level);

/* Four hex digits at p (jansson's decode_unicode_escape), or -1. */
static long hex4(const unsigned char *p)
{
	long v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		int c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v += c - '0';
		else if (c >= 'a' && c <= 'f')
			v += c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v += c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* Code point cp (of a \u escape) written at o as jansson dumps it; its
 * length. */
static size_t put_codepoint(char *o, unsigned long cp)
{
	if (cp < 0x20 || cp == '"' || cp == '\\')
		return jw_escape(o, (unsigned char)cp);
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A \u escape at p ('u', then hex; end e) decoded, a surrogate pair
 * joined: the code point, with *len the length after the backslash; -1
 * for what jansson refuses (a lone surrogate) or this does not take
 * (U+0000, which json_loads refuses without JSON_ALLOW_NUL). */
static long unicode_escape(const unsigned char *p, const unsigned char *e, size_t *len)
{
	long cp, lo;

	if (e - p < 5 || (cp = hex4(p + 1)) <= 0)
		return -1;
	*len = 5;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return -1;
	if (cp < 0xd800 || cp > 0xdbff)
		return cp;
	if (e - p < 11 || p[5] != '\\' || p[6] != 'u' || (lo = hex4(p + 7)) < 0xdc00 ||
	    lo > 0xdfff)
		return -1;
	*len = 11;
	return ((cp - 0xd800) << 10) + (lo - 0xdc00) + 0x10000;
}

/* The string token at s->p ('"') written as jansson dumps what it
 * decodes to (never longer than the token). 0 or -1. */
static int scan_string(struct q_jw *w, struct scan *s)
{
	const unsigned char *p = s->p + 1, *e = s->e;
	char *o = jw_need(w, (size_t)(e - s->p) + 2), *start = o;
	size_t k;
	long cp;

	if (!o)
		return -1;
	*o++ = '"';
	for (;;) {
		const unsigned char *run = p;
		while (run < e && !jw_text_class[*run])
			run++;
		memcpy(o, p, (size_t)(run - p));
		o += run - p;
		if ((p = run) >= e)
			return -1;
		if (*p == '"')
			break;
		if (*p >= 0x80) {
			if (!(k = utf8_seq_len(p, (size_t)(e - p))))
				return -1;
			memcpy(o, p, k);
			o += k;
			p += k;
			continue;
		}
		if (*p != '\\' || e - p < 2)
			return -1;              /* a control character */
		switch (*++p) {
		case 'u':
			if ((cp = unicode_escape(p, e, &k)) < 0)
				return -1;
			o += put_codepoint(o, (unsigned long)cp);
			p += k;
			break;
		case '/':
			*o++ = '/';
			p++;
			break;
		case '"': case '\\': case 'b': case 'f': case 'n': case 'r': case 't':
			*o++ = '\\';
			*o++ = (char)*p++;
			break;
		default:
			return -1;
		}
	}
	*o++ = '"';
	s->p = p + 1;
	w->len += (size_t)(o - start);
	return 0;
}

static int is_digit(const unsigned char *p, const unsigned char *e)
{
	return p < e && *p >= '0' && *p <= '9';
}

/* The number token at s->p, by jansson's grammar: an integer printed
 * back as jansson prints it (-1 out of int64's range: jansson refuses
 * it), a real through jw_real (-1 when strtod says out of range). */
static int scan_number(struct q_jw *w, struct scan *s)
{
	const unsigned char *p = s->p, *e = s->e;
	int neg = 0, real = 0;
	uint64_t u = 0;

	if (p < e && *p == '-')
		neg = 1, p++;
	if (!is_digit(p, e) || (*p == '0' && is_digit(p + 1, e)))
		return -1;
	for (; is_digit(p, e); p++) {
		unsigned d = (unsigned)(*p - '0');
		if (u > (UINT64_C(9223372036854775807) + (uint64_t)neg - d) / 10)
			real |= 2;              /* past int64: an error if an integer */
		else
			u = u * 10 + d;
	}
	if (p < e && *p == '.') {
		real = 1;
		if (!is_digit(++p, e))
			return -1;
		while (is_digit(p, e))
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		real = 1;
		if (++p < e && (*p == '+' || *p == '-'))
			p++;
		if (!is_digit(p, e))
			return -1;
		while (is_digit(p, e))
			p++;
	}
	if (real & 1) {
		char tmp[64], *end;
		size_t n = (size_t)(p - s->p);
		double d;
		if (n >= sizeof(tmp))
			return -1;
		memcpy(tmp, s->p, n);
		tmp[n] = '\0';
		errno = 0;
		d = strtod(tmp, &end);
		if (errno || !isfinite(d))
			return -1;
		jw_real(w, d);
	} else if (real) {
		return -1;
	} else {
		q_jw_int(w, neg ? (int64_t)(0 - u) : (int64_t)u);
	}
	s->p = p;
	return 0;
}

/* The members of the object whose '{' s->p has just passed, up to its
 * '}', written into the open object as members of key set obj. */
static int scan_members(struct q_jw *w, struct scan *s, int level, uint32_t obj)
{
	if (s->p < s->e && *s->p == '}') {
		s->p++;
		return 0;
	}
	for (;;) {
		size_t off;
		if (s->p >= s->e || *s->p != '"')
			return -1;
		jw_sep(w);
		off = w->len;
		if (scan_string(w, s) < 0 || jw_key_add(w, obj, off, w->len - off) < 0)
			return -1;
		if (s->p >= s->e || *s->p++ != ':')
			return -1;
		jw_colon(w);
		if (scan_value(w, s, level + 1) < 0 || s->p >= s->e)
			return -1;
		if (*s->p == '}') {
			s->p++;
			return 0;
		}
		if (*s->p++ != ',')
			return -1;
	}
}

/* The elements of the array whose '[' s->p has just passed. */
static int scan_elements(struct q_jw *w, struct scan *s, int level)
{
	if (s->p < s->e && *s->p == ']') {
		s->p++;
		return 0;
	}
	for (;;) {
		jw_sep(w);
		if (scan_value(w, s, level + 1) < 0 || s->p >= s->e)
			return -1;
		if (*s->p == ']') {
			s->p++;
			return 0;
		}
		if (*s->p++ != ',')
			return -1;
	}
}

/* The literal word at s->p, if it is one: 0 or -1. */
static int scan_word(struct q_jw *w, struct scan *s, const char *word, size_t n)
{
	if ((size_t)(s->e - s->p) < n || memcmp(s->p, word, n))
		return -1;
	jw_put(w, word, n);
	s->p += n;
	return 0;
}

static int scan_value(struct q_jw *w, struct scan *s, int level)
{
	int r;

	if (s->p >= s->e || level > SCAN_LEVELS)
		return -1;
	switch (*s->p) {
	case '"':
		return scan_string(w, s);
	case '{':
		s->p++;
		q_jw_open(w, '{');
		r = scan_members(w, s, level, ++w->objects);
		q_jw_close(w, '}');
		return r;
	case '[':
		s->p++;
		q_jw_open(w, '[');
		r = scan_elements(w, s, level);
		q_jw_close(w, ']');
		return r;
	case 't':
		return scan_word(w, s, "true", 4);
	case 'f':
		return scan_word(w, s, "false", 5);
	case 'n':
		return scan_word(w, s, "null", 4);
	default:
		return scan_number(w, s);
	}
}

int jw_scan_json(struct q_jw *w, const unsigned char *text, size_t n, int merge)
{
	struct scan s;

	if (!text || !n || (*text != '{' && (merge || *text != '[')))
		return -1;
	s.p = text;
	s.e = text + n;
	if (merge) {
		s.p++;
		if (scan_members(w, &s, 1, 0) < 0)
			return -1;
	} else if (scan_value(w, &s, 0) < 0) {
		return -1;
	}
	return s.p == s.e ? 0 : -1;
}
