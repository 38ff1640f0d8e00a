/*
 * query_json.c -- rows written as JSON text straight from SQLite (q_jw in
 * query.h), without a jansson object per row: the bytes are those of
 * q_row() dumped by jansson with JSON_PRESERVE_ORDER and
 * JSON_REAL_PRECISION(12), compact or indented, at a fraction of the
 * cost (the JSON report writes millions of rows).
 *
 * How the bytes are kept the same: integers are printed as jansson prints
 * them ("%lld"), reals by the rules of its "%.12g" (jsonp_dtostr), text
 * cleaned as q_json() cleans it (invalid UTF-8 and NUL become U+FFFD) and
 * escaped as jansson escapes it, and a "data" or "*_json" column re-read
 * token by token (query_json_scan.c). Whatever this cannot vouch for --
 * stored JSON that is not as jansson writes it, a key of "data" that the
 * row has already, a real that is not finite, a statement whose columns
 * repeat a name -- makes that row go through q_row() and jansson
 * instead: slower, never different.
 */
#include "analyzer/store/query_json_impl.h"
#include "lib/timeutil.h"

#include <math.h>
#include <stdlib.h>

/* Text above this is handed to stdio between rows. */
#define JW_FLUSH_AT 65536

enum col_kind { COL_PLAIN, COL_TIME, COL_JSON, COL_DATA, COL_BOOL, COL_SKIP };

/* ---- the text ---- */

void q_jw_init(struct q_jw *w, FILE *out, int indent, int base)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->indent = indent;
	w->base = base;
}

char *jw_grow(struct q_jw *w, size_t n)
{
	size_t cap = w->cap ? w->cap : 2 * JW_FLUSH_AT;
	char *b;

	if (w->failed)
		return NULL;
	while (cap - w->len < n) {
		if (cap > SIZE_MAX / 2)
			goto oom;
		cap *= 2;
	}
	if (!(b = realloc(w->buf, cap)))
		goto oom;
	w->buf = b;
	w->cap = cap;
	return b + w->len;
oom:
	w->failed = 1;
	return NULL;
}

/* Hand the text to stdio. */
static void jw_write(struct q_jw *w)
{
	if (!w->failed && w->len && fwrite(w->buf, 1, w->len, w->out) != w->len)
		w->failed = 1;
	w->len = 0;
}

void q_jw_flush(struct q_jw *w)
{
	if (w->len >= JW_FLUSH_AT)
		jw_write(w);
}

int q_jw_finish(struct q_jw *w)
{
	jw_write(w);
	free(w->buf);
	free(w->keys);
	free(w->sorted);
	free(w->held);
	w->buf = NULL;
	w->keys = NULL;
	w->sorted = NULL;
	w->held = NULL;
	w->cap = 0;
	return w->failed ? -1 : 0;
}

void q_jw_raw(struct q_jw *w, const char *s, size_t n)
{
	jw_put(w, s, n);
}

void jw_newline(struct q_jw *w, int d)
{
	size_t n = (size_t)(w->base + d) * (size_t)w->indent;
	char *p = n < SIZE_MAX / 2 ? jw_need(w, n + 1) : NULL;

	if (p) {
		*p = '\n';
		memset(p + 1, ' ', n);
		w->len += n + 1;
	}
}

void q_jw_open(struct q_jw *w, int c)
{
	jw_putc(w, (char)c);
	if (w->depth < Q_JW_DEPTH)
		w->members[w->depth] = 0;
	w->depth++;
}

void q_jw_close(struct q_jw *w, int c)
{
	int had = w->depth > 0 && w->depth <= Q_JW_DEPTH && w->members[w->depth - 1];

	w->depth--;
	if (had && w->indent)
		jw_newline(w, w->depth);
	jw_putc(w, (char)c);
}

void q_jw_elem(struct q_jw *w)
{
	jw_sep(w);
}

void q_jw_key(struct q_jw *w, const char *key)
{
	jw_sep(w);
	q_jw_text(w, key, strlen(key));
	jw_colon(w);
}

/* ---- values ---- */

const unsigned char jw_text_class[256] = {
	3, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 1, 1, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
};

size_t jw_escape(char *p, unsigned char c)
{
	static const char hex[] = "0123456789ABCDEF";
	char e = c == '"' ? '"' : c == '\\' ? '\\' : c == '\b' ? 'b' : c == '\f' ? 'f'
		 : c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : 0;

	p[0] = '\\';
	if (e) {
		p[1] = e;
		return 2;
	}
	memcpy(p + 1, "u00", 3);
	p[4] = hex[c >> 4];
	p[5] = hex[c & 15];
	return 6;
}

void q_jw_text(struct q_jw *w, const char *text, size_t n)
{
	const unsigned char *s = (const unsigned char *)text;
	char *p = jw_need(w, 6 * n + 2), *start = p;
	size_t i = 0, k;

	if (!p)
		return;
	*p++ = '"';
	while (i < n) {
		size_t run = i;
		while (run < n && !jw_text_class[s[run]])
			run++;
		memcpy(p, s + i, run - i);
		p += run - i;
		if ((i = run) >= n)
			break;
		if (jw_text_class[s[i]] <= 2) {
			p += jw_escape(p, s[i++]);
		} else if (s[i] >= 0x80 && (k = utf8_seq_len(s + i, n - i))) {
			memcpy(p, s + i, k);
			p += k;
			i += k;
		} else {                /* NUL, or not UTF-8 */
			memcpy(p, "\xef\xbf\xbd", 3);
			p += 3;
			i++;
		}
	}
	*p++ = '"';
	w->len += (size_t)(p - start);
}

void q_jw_int(struct q_jw *w, int64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char tmp[24], *q = tmp + sizeof(tmp);
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	if (u < 10 && v >= 0) {
		jw_putc(w, (char)('0' + u));
		return;
	}
	while (u >= 100) {
		q -= 2;
		memcpy(q, pairs + 2 * (u % 100), 2);
		u /= 100;
	}
	if (u >= 10) {
		q -= 2;
		memcpy(q, pairs + 2 * u, 2);
	} else {
		*--q = (char)('0' + u);
	}
	if (v < 0)
		*--q = '-';
	jw_put(w, q, (size_t)(tmp + sizeof(tmp) - q));
}

/* a (finite, > 0) rounded to 12 significant digits as printf rounds:
 * *m in [1e11, 1e12) and the decimal exponent *x of its first digit; 0
 * when this cannot be sure (out of [1e-20, 1e15), or within reach of a
 * tie: the scaled value carries at most two roundings -- the product's
 * and, past 1e22, the power of ten's -- 2.3e-4 at 1e12). */
static int round12(double a, uint64_t *m, int *x)
{
	static const double p10[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
		1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23,
		1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31
	};
	double s, f;
	int e, k;

	if (!(a >= 1e-20 && a < 1e15))
		return 0;
	for (e = 14; e > -20 && a < (e >= 0 ? p10[e] : 1.0 / p10[-e]); e--)
		;
	k = 11 - e;
	s = k >= 0 ? a * p10[k] : a / p10[-k];
	f = floor(s);
	if (f < 1e11 || f >= 1e12 || fabs(s - f - 0.5) < 1e-3)
		return 0;
	*m = (uint64_t)f + (s - f > 0.5);
	if (*m == UINT64_C(1000000000000)) {
		*m = UINT64_C(100000000000);
		e++;
	}
	*x = e;
	return 1;
}

/* The "%.12g" of a positive v from its digits (round12), then jansson's
 * changes: ".0" where it would read as an integer, the exponent without
 * '+' or leading zeros. Into out (40 bytes); its length. */
static size_t format12(char *out, uint64_t m, int x)
{
	char d[12];
	int i, last, n = 0;

	for (i = 11; i >= 0; i--, m /= 10)
		d[i] = (char)('0' + m % 10);
	for (last = 11; last > 0 && d[last] == '0'; last--)
		;
	if (x >= 12 || x < -4) {        /* %g's exponent form */
		out[n++] = d[0];
		if (last > 0) {
			out[n++] = '.';
			memcpy(out + n, d + 1, (size_t)last);
			n += last;
		}
		out[n++] = 'e';
		if (x < 0) {
			out[n++] = '-';
			x = -x;
		}
		if (x >= 10)
			out[n++] = (char)('0' + x / 10);
		out[n++] = (char)('0' + x % 10);
		return (size_t)n;
	}
	if (x >= 0) {
		memcpy(out, d, (size_t)x + 1);
		n = x + 1;
		out[n++] = '.';
		if (last > x) {
			memcpy(out + n, d + x + 1, (size_t)(last - x));
			n += last - x;
		} else {
			out[n++] = '0';
		}
		return (size_t)n;
	}
	out[n++] = '0';
	out[n++] = '.';
	for (i = -1; i > x; i--)
		out[n++] = '0';
	memcpy(out + n, d, (size_t)last + 1);
	return (size_t)(n + last + 1);
}

/* jansson's jsonp_dtostr at precision 12, through snprintf. */
static size_t format_printf(char *tmp, double v)
{
	char *e;
	int n = snprintf(tmp, 40, "%.12g", v);

	if (n < 0 || n >= 37)
		return 0;
	e = strchr(tmp, 'e');
	if (!e && !strchr(tmp, '.')) {
		memcpy(tmp + n, ".0", 3);
		n += 2;
	}
	if (e) {
		char *start = e + 1, *end = e + 2;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, (size_t)(tmp + n - end) + 1);
			n -= (int)(end - start);
		}
	}
	return (size_t)n;
}

void jw_real(struct q_jw *w, double v)
{
	char tmp[48];
	uint64_t m;
	size_t n;
	int x;

	if (v == 0) {                   /* "%.12g" gives "0" or "-0", then ".0" */
		if (signbit(v))
			jw_put(w, "-0.0", 4);
		else
			jw_put(w, "0.0", 3);
		return;
	}
	if (round12(fabs(v), &m, &x)) {
		tmp[0] = '-';
		n = format12(tmp + (v < 0), m, x) + (v < 0);
	} else {
		n = format_printf(tmp, v);
	}
	jw_put(w, tmp, n);
}

int q_jw_real(struct q_jw *w, double v)
{
	if (!isfinite(v))
		return -1;
	jw_real(w, v);
	return 0;
}

/* ns as q_json_time() makes it (format_iso8601, quoted): the date of
 * the last day written is kept, the time of day put together here, in
 * digits as its "%02d:%02d:%02d.%06ld" gives them. */
static void jw_time(struct q_jw *w, int64_t ns)
{
	int64_t secs = ns / 1000000000, rem = ns % 1000000000, day, sod;
	int f[4], i;
	char buf[40], *p;

	if (rem < 0) {
		secs--;
		rem += 1000000000;
	}
	day = secs / 86400;
	sod = secs % 86400;
	if (sod < 0) {
		sod += 86400;
		day--;
	}
	if (!w->day_len || day != w->day) {
		format_iso8601(ns, buf, sizeof(buf));
		if (strlen(buf) != 27 || buf[10] != 'T') {      /* a year of another width */
			w->day_len = 0;
			q_jw_text(w, buf, strlen(buf));
			return;
		}
		memcpy(w->day_text, buf, 11);
		w->day_len = 11;
		w->day = day;
	}
	if (!(p = jw_need(w, 29)))
		return;
	*p++ = '"';
	memcpy(p, w->day_text, 11);
	p += 11;
	f[0] = (int)(sod / 3600);
	f[1] = (int)(sod / 60 % 60);
	f[2] = (int)(sod % 60);
	for (i = 0; i < 3; i++) {
		*p++ = (char)('0' + f[i] / 10);
		*p++ = (char)('0' + f[i] % 10);
		*p++ = i < 2 ? ':' : '.';
	}
	f[3] = (int)(rem / 1000);
	for (i = 5; i >= 0; i--, f[3] /= 10)
		p[i] = (char)('0' + f[3] % 10);
	memcpy(p + 6, "Z\"", 2);
	w->len += 29;
}

/* ---- rows ---- */

/* Whether s has a byte beyond ASCII: jansson refuses a key that is not
 * UTF-8 (the member is then missing), which only q_row can reproduce. */
static int has_high_byte(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return 1;
	return 0;
}

/* The key a column gives (q_row's rules) into key (64 bytes, as q_row
 * cuts an "x_json" key), and its kind; COL_SKIP for a name this leaves
 * to jansson (a long one, or one beyond ASCII). */
static enum col_kind col_key(const char *name, char *key)
{
	size_t n = strlen(name);

	key[0] = '\0';
	if (!strcmp(name, "data"))
		return COL_DATA;
	if (has_high_byte(name))
		return COL_SKIP;
	if (n >= 5 && !strcmp(name + n - 5, "_json")) {
		snprintf(key, 64, "%.*s", (int)(n - 5), name);
		return COL_JSON;
	}
	if (n >= 64)
		return COL_SKIP;
	memcpy(key, name, n + 1);
	return n >= 4 && !strcmp(name + n - 4, "time") ? COL_TIME : COL_PLAIN;
}

int q_jw_cols_init(struct q_jw_cols *c, sqlite3_stmt *st, const char *skip,
		   const char *boolean)
{
	char keys[Q_JW_COLS][64];
	struct q_jw kw;
	int i, j, found_bool = !boolean;

	memset(c, 0, sizeof(*c));
	c->st = st;
	c->skip = skip;
	c->boolean = boolean;
	strbuf_init(&c->keytext);
	c->n = st ? sqlite3_column_count(st) : 0;
	if (c->n > Q_JW_COLS) {
		c->slow = 1;
		return 0;
	}
	q_jw_init(&kw, NULL, 0, 0);
	for (i = 0; i < c->n; i++) {
		const char *name = sqlite3_column_name(st, i);
		enum col_kind k;
		keys[i][0] = '\0';
		k = name ? col_key(name, keys[i]) : COL_SKIP;
		if (k == COL_SKIP)
			c->slow = 1;
		if (k == COL_DATA)
			c->has_data = 1;
		else if (skip && !strcmp(keys[i], skip))
			k = COL_SKIP;
		else if (boolean && !strcmp(keys[i], boolean)) {
			if (k != COL_PLAIN)
				c->slow = 1;    /* q_row's value of a time or JSON column */
			k = COL_BOOL, found_bool = 1;
		}
		c->kind[i] = (unsigned char)k;
		for (j = 0; j < i && k != COL_DATA; j++)
			if (c->kind[j] != COL_DATA && !strcmp(keys[i], keys[j]))
				c->slow = 1;    /* a repeated key: jansson's replacing */
		kw.len = 0;
		q_jw_text(&kw, keys[i], strlen(keys[i]));
		if (kw.failed)
			break;
		c->key_off[i] = (uint32_t)c->keytext.len;
		strbuf_add(&c->keytext, kw.buf, kw.len);
		c->key_len[i] = (uint32_t)kw.len;
	}
	if (!found_bool || (c->has_data && (skip || boolean)))
		c->slow = 1;
	kw.len = 0;
	return q_jw_finish(&kw) < 0 || strbuf_failed(&c->keytext) ? -1 : 0;
}

void q_jw_cols_release(struct q_jw_cols *c)
{
	strbuf_release(&c->keytext);
}

/* col_member by the pieces, wherever the writer stands. */
static int col_member_slow(struct q_jw *w, const struct q_jw_cols *c, int i)
{
	size_t off;

	jw_sep(w);
	off = w->len;
	jw_put(w, c->keytext.buf + c->key_off[i], c->key_len[i]);
	if (c->has_data && jw_key_add(w, 0, off, w->len - off) < 0)
		return -1;
	jw_colon(w);
	return 0;
}

/* Member key of column i, recorded in the row's key set when "data" may
 * bring the same one: 0 or -1. */
static int col_member(struct q_jw *w, const struct q_jw_cols *c, int i)
{
	size_t off, key = c->key_len[i], ind;
	int d = w->depth;
	char *p;

	if (d <= 0 || d > Q_JW_DEPTH || w->base < 0 || w->indent < 0)
		return col_member_slow(w, c, i);
	/* the separator, newline, indentation, key and colon at once */
	ind = w->indent ? (size_t)(w->base + d) * (size_t)w->indent : 0;
	if (!(p = jw_need(w, key + ind + 5)))
		return 0;
	if (w->members[d - 1])
		*p++ = ',';
	w->members[d - 1] = 1;
	if (w->indent) {
		*p++ = '\n';
		memset(p, ' ', ind);
		p += ind;
	}
	memcpy(p, c->keytext.buf + c->key_off[i], key);
	off = (size_t)(p - w->buf);
	p += key;
	*p++ = ':';
	if (w->indent)
		*p++ = ' ';
	w->len = (size_t)(p - w->buf);
	return c->has_data && jw_key_add(w, 0, off, key) < 0 ? -1 : 0;
}

/* A column's value v (of type type) as q_json() makes it: 0, or -1 for a
 * value jansson would leave out (a real that is not finite). */
static int col_value(struct q_jw *w, sqlite3_value *v, int type)
{
	const char *t;

	switch (type) {
	case SQLITE_INTEGER:
		q_jw_int(w, sqlite3_value_int64(v));
		return 0;
	case SQLITE_FLOAT:
		return q_jw_real(w, sqlite3_value_double(v));
	case SQLITE_TEXT:
	case SQLITE_BLOB:
		t = (const char *)sqlite3_value_text(v);
		if (t)
			q_jw_text(w, t, (size_t)sqlite3_value_bytes(v));
		else
			jw_put(w, "\"\"", 2);
		return 0;
	default:
		jw_put(w, "null", 4);
		return 0;
	}
}

/* A column's stored JSON v: merged ("data") or as the value. 0 or -1. */
static int col_json(struct q_jw *w, sqlite3_value *v, int merge)
{
	const unsigned char *t = sqlite3_value_text(v);

	return jw_scan_json(w, t, t ? (size_t)sqlite3_value_bytes(v) : 0, merge);
}

/* The row's members by the rules of q_row(), without jansson: 0, or -1
 * when this one must go through jansson (the caller drops the text).
 * Each column is fetched once, as a value (sqlite3_column_value), and
 * read with sqlite3_value_*: the same conversions as sqlite3_column_*,
 * half the calls. The value is unprotected, which is safe here: it is
 * read by the thread that steps st, before the next step. */
static int row_fast(struct q_jw *w, const struct q_jw_cols *c)
{
	sqlite3_stmt *st = c->st;
	int i;

	for (i = 0; i < c->n; i++) {
		sqlite3_value *v = sqlite3_column_value(st, i);
		int type = sqlite3_value_type(v);
		switch (c->kind[i]) {
		case COL_SKIP:
			break;
		case COL_DATA:
			if (type == SQLITE_TEXT && col_json(w, v, 1) < 0)
				return -1;
			break;
		case COL_JSON:
			if (col_member(w, c, i) < 0)
				return -1;
			if (type != SQLITE_TEXT)
				jw_put(w, "null", 4);
			else if (col_json(w, v, 0) < 0)
				return -1;
			break;
		case COL_TIME:
			if (col_member(w, c, i) < 0)
				return -1;
			if (type == SQLITE_NULL) {
				jw_put(w, "null", 4);
				break;
			}
			jw_time(w, sqlite3_value_int64(v));
			break;
		case COL_BOOL:
			if (col_member(w, c, i) < 0)
				return -1;
			if (type == SQLITE_INTEGER && sqlite3_value_int64(v))
				jw_put(w, "true", 4);
			else
				jw_put(w, "false", 5);
			break;
		default:
			if (col_member(w, c, i) < 0 || col_value(w, v, type) < 0)
				return -1;
			break;
		}
	}
	return 0;
}

/* jansson's text of a value, each newline followed by the indentation of
 * where the value stands. */
static int dump_put(const char *s, size_t n, void *arg)
{
	struct q_jw *w = arg;
	const char *nl;

	while (w->indent && n && (nl = memchr(s, '\n', n))) {
		jw_put(w, s, (size_t)(nl - s));
		jw_newline(w, w->depth);
		n -= (size_t)(nl - s) + 1;
		s = nl + 1;
	}
	jw_put(w, s, n);
	return w->failed ? -1 : 0;
}

/* The row's members through q_row() and jansson, with the caller's
 * changes (the boolean column, the column left out) made as the callers
 * of q_row() make them. */
static int row_slow(struct q_jw *w, const struct q_jw_cols *c)
{
	size_t flags = JSON_ENCODE_ANY | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12) |
		       (w->indent ? JSON_INDENT(w->indent) : JSON_COMPACT);
	json_t *o = q_row(c->st), *v;
	const char *key;
	int r = 0;

	if (!o)
		return -1;
	if (c->boolean)
		json_object_set_new(o, c->boolean,
			json_boolean(json_integer_value(json_object_get(o, c->boolean))));
	if (c->skip)
		json_object_del(o, c->skip);
	json_object_foreach(o, key, v) {
		jw_sep(w);
		q_jw_text(w, key, strlen(key));
		jw_colon(w);
		if (json_dump_callback(v, dump_put, w, flags) < 0)
			r = -1;
	}
	json_decref(o);
	return r;
}

int q_jw_row(struct q_jw *w, const struct q_jw_cols *c)
{
	size_t mark = w->len;
	int depth = w->depth, in = depth > 0 && depth <= Q_JW_DEPTH;
	unsigned char had = in ? w->members[depth - 1] : 0;

	if (!c->slow) {
		jw_keys_new_row(w);
		if (row_fast(w, c) == 0) {
			w->rows_fast++;
			return 0;
		}
		w->len = mark;
		w->depth = depth;
		if (in)
			w->members[depth - 1] = had;
	}
	w->rows_slow++;
	return row_slow(w, c);
}

int q_jw_rows(struct q_jw *w, const struct q_jw_cols *c)
{
	int r = 0;

	q_jw_open(w, '[');
	while (c->st && sqlite3_step(c->st) == SQLITE_ROW) {
		q_jw_elem(w);
		q_jw_open(w, '{');
		if (q_jw_row(w, c) < 0)
			r = -1;
		q_jw_close(w, '}');
		q_jw_flush(w);  /* between rows: the text is never held whole */
	}
	q_jw_close(w, ']');
	if (c->st)
		sqlite3_reset(c->st);
	return r;
}
