/*
 * pyjson.c -- the streaming JSON / Python-literal reader; see pyjson.h.
 *
 * Tokens: strings ('...' or "...", with an optional b/r/u prefix and the
 * usual escapes), bare words (numbers, True/False/None, true/false/null,
 * names such as OrderedDict, which are dropped before a '('), the
 * punctuation { } [ ] ( ) , : and "..." (Ellipsis). Everything else is
 * noise between literals and ends a word.
 */
#include "parsers/common/pyjson.h"
#include "parsers/common/sink.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { D_KEY, D_COLON, D_VALUE };

void pj_init(struct pyjson *p, pj_fn fn, void *arg, int skip_cut_start, size_t glue_width)
{
	memset(p, 0, sizeof(*p));
	p->fn = fn;
	p->arg = arg;
	p->line = 1;
	p->skip_first = skip_cut_start;
	p->glue_width = glue_width;
	strbuf_init(&p->buf);
}

static void frame_free(struct pj_frame *f)
{
	json_decref(f->c);
	free(f->key);
	free(f->under);
	memset(f, 0, sizeof(*f));
}

void pj_release(struct pyjson *p)
{
	while (p->n > 0)
		frame_free(&p->frames[--p->n]);
	strbuf_release(&p->buf);
	free(p->top_pending);
	free(p->top_key);
	p->top_pending = p->top_key = NULL;
}

/* A key as valid UTF-8, malloc'd; NULL if out of memory. */
static char *key_dup(const char *s, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	if (strbuf_add_utf8(&sb, s, n) < 0 || strbuf_failed(&sb)) {
		strbuf_release(&sb);
		return NULL;
	}
	if (!sb.alloc)
		return strdup("");
	return strbuf_detach(&sb, NULL);
}

/* A value is complete: hand it to the callback, then attach or free it.
 * Takes the reference to v. */
static int complete(struct pyjson *p, json_t *v, char container, unsigned consumed,
		    uint64_t line, int cut)
{
	struct pj_event ev;
	struct pj_frame *f = p->n ? &p->frames[p->n - 1] : NULL;
	int r;

	if (!v)
		return -1;
	memset(&ev, 0, sizeof(ev));
	ev.kind = PJ_VALUE;
	ev.depth = p->n;
	ev.container = container;
	ev.value = v;
	ev.consumed = consumed;
	ev.line = line;
	ev.cut = cut;
	if (!f) {
		ev.key = p->top_key;
		r = p->fn(p->arg, &ev);
		json_decref(v);
		free(p->top_key);
		p->top_key = NULL;
		return r < 0 ? -1 : 0;
	}
	ev.parent_key = f->under;
	if (f->type == '{') {
		if (f->state == D_KEY || f->state == D_COLON) {
			/* the key itself (a string or a number) */
			free(f->key);
			f->key = NULL;
			if (json_is_string(v))
				f->key = key_dup(json_string_value(v), json_string_length(v));
			else if (json_is_integer(v) || json_is_real(v))
				f->key = json_dumps(v, JSON_ENCODE_ANY);
			json_decref(v);
			f->state = D_COLON;
			return 0;
		}
		ev.key = f->key;
	}
	r = p->fn(p->arg, &ev);
	if (r < 0) {
		json_decref(v);
		return -1;
	}
	if (r > 0) {
		f->consumed++;
		json_decref(v);
	} else if (f->items >= PJ_MAX_ITEMS) {
		p->dropped_items++;
		json_decref(v);
	} else if (f->type == '{') {
		if (f->key)
			json_object_set_new_nocheck(f->c, f->key, v);
		else
			json_decref(v);
		f->items++;
	} else {
		json_array_append_new(f->c, v);
		f->items++;
	}
	if (f->type == '{')
		f->state = D_KEY;
	return 0;
}

/* A bare word's value: a number or a constant; NULL for a name (dropped:
 * OrderedDict, device, torch.float32, the words of a log line). "..." is
 * Ellipsis, read as null. *none is set when the word is no value. */
static json_t *word_value(const char *w, size_t n, int *none)
{
	char *end;
	long long ll;
	double d;
	size_t sign = (w[0] == '-' || w[0] == '+');

	*none = 0;
	if (strspn(w, ".") == n && n == 3)
		return json_null();
	if (!strcmp(w, "True") || !strcmp(w, "true"))
		return json_true();
	if (!strcmp(w, "False") || !strcmp(w, "false"))
		return json_false();
	if (!strcmp(w, "None") || !strcmp(w, "null") || !strcmp(w, "nan") ||
	    !strcmp(w, "NaN") || !strcmp(w, "inf") || !strcmp(w, "Infinity") ||
	    !strcmp(w, "-inf") || !strcmp(w, "-Infinity"))
		return json_null();
	if (n > sign && ((w[sign] >= '0' && w[sign] <= '9') ||
			 (w[sign] == '.' && n > sign + 1 && w[sign + 1] >= '0' && w[sign + 1] <= '9'))) {
		if (strspn(w + sign, "0123456789") == n - sign && n < 19) {
			ll = strtoll(w, &end, 10);
			if (*end == 0)
				return json_integer(ll);
		}
		d = strtod(w, &end);
		if (*end == 0)
			return isfinite(d) ? json_real(d) : json_null();
	}
	*none = 1;
	return NULL;
}

/* The word or string being read is over: complete its value. */
static int end_token(struct pyjson *p)
{
	int tok = p->tok, none;
	json_t *v;

	if (!tok)
		return 0;
	p->tok = 0;
	if (strbuf_failed(&p->buf))
		return -1;
	if (tok == 'w') {
		v = word_value(p->buf.buf, p->buf.len, &none);
		free(p->top_pending);
		p->top_pending = NULL;
		if (none)
			return 0;
	} else {
		v = ol_json_strn(p->buf.buf, p->buf.len);
		if (!p->n && v) {
			/* a top-level string is a value only as a key: hold it */
			free(p->top_pending);
			p->top_pending = key_dup(p->buf.buf, p->buf.len);
			json_decref(v);
			return p->top_pending ? 0 : -1;
		}
	}
	return complete(p, v, 0, 0, p->tok_line, 0);
}

static int open_container(struct pyjson *p, char type)
{
	struct pj_frame *f;
	const char *under = NULL;

	if (p->n >= PJ_MAX_DEPTH) {
		p->skip++;
		p->too_deep++;
		return 0;
	}
	if (p->n) {
		struct pj_frame *up = &p->frames[p->n - 1];
		if (up->type == '{') {
			if (up->state != D_VALUE)
				up->state = D_VALUE;  /* a container as a key: read as a value */
			under = up->key;
		}
	} else {
		under = p->top_key;
	}
	f = &p->frames[p->n];
	memset(f, 0, sizeof(*f));
	f->type = type;
	f->line = p->line;
	f->c = type == '{' ? json_object() : json_array();
	f->under = under ? strdup(under) : NULL;
	if (!f->c || (under && !f->under)) {
		frame_free(f);
		return -1;
	}
	p->n++;
	return 0;
}

/* Close the innermost container and complete it as a value. */
static int pop_complete(struct pyjson *p, int cut)
{
	struct pj_frame f = p->frames[--p->n];

	memset(&p->frames[p->n], 0, sizeof(p->frames[p->n]));
	free(f.key);
	free(f.under);
	return complete(p, f.c, f.type, f.consumed, f.line, cut);
}

static int close_container(struct pyjson *p, char closer)
{
	char want = closer == '}' ? '{' : closer == ']' ? '[' : '(';
	int i;

	if (p->skip) {
		p->skip--;
		return 0;
	}
	for (i = p->n - 1; i >= 0 && p->frames[i].type != want; i--)
		;
	if (i < 0) {
		struct pj_event ev;
		if (p->n)
			return 0;  /* a stray closer inside something else: noise */
		memset(&ev, 0, sizeof(ev));
		ev.kind = PJ_STRAY_CLOSE;
		ev.container = want;
		ev.line = p->line;
		return p->fn(p->arg, &ev) < 0 ? -1 : 0;
	}
	while (p->n - 1 > i)  /* containers left open inside: dropped */
		frame_free(&p->frames[--p->n]);
	return pop_complete(p, 0);
}

/* Punctuation outside strings and words. */
static int punct(struct pyjson *p, char c)
{
	struct pj_frame *f = p->n ? &p->frames[p->n - 1] : NULL;
	int had_pending = p->top_pending != NULL;

	if (c == ':' && !f && had_pending) {
		free(p->top_key);
		p->top_key = p->top_pending;
		p->top_pending = NULL;
		return 0;
	}
	free(p->top_pending);
	p->top_pending = NULL;
	switch (c) {
	case '{': case '[': case '(':
		return open_container(p, c);
	case '}': case ']': case ')':
		return close_container(p, c);
	case ':':
		if (f && f->type == '{' && f->state == D_COLON)
			f->state = D_VALUE;
		return 0;
	case ',':
		if (f && f->type == '{') {
			f->state = D_KEY;
			free(f->key);
			f->key = NULL;
		}
		else if (!f) {
			free(p->top_key);
			p->top_key = NULL;
		}
		return 0;
	}
	return 0;
}

static int is_word_char(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '_' || c == '.' || c == '+' || c == '-' || c >= 0x80;
}

/* Append one UTF-8 encoded code point. */
static void add_cp(struct strbuf *b, unsigned cp)
{
	char u[4];

	if (cp >= 0xd800 && cp <= 0xdfff)
		cp = 0xfffd;
	if (cp < 0x80) {
		strbuf_addch(b, (int)cp);
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		strbuf_add(b, u, 2);
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		strbuf_add(b, u, 3);
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		strbuf_add(b, u, 4);
	}
}

static void str_add(struct pyjson *p, const char *s, size_t n)
{
	if (p->buf.len + n > PJ_MAX_STRING) {
		if (p->buf.len < PJ_MAX_STRING)
			p->cut_strings++;
		n = p->buf.len < PJ_MAX_STRING ? PJ_MAX_STRING - p->buf.len : 0;
	}
	strbuf_add(&p->buf, s, n);
}

/* The character an escape letter stands for, or 0 if it is no escape. */
static int escape_char(char c)
{
	switch (c) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case 'b': return '\b';
	case 'f': return '\f';
	case '\\': return '\\';
	case '\'': return '\'';
	case '"': return '"';
	case '/': return '/';
	}
	return 0;
}

/* One character inside a string (not its closing quote): escapes. */
static void string_char(struct pyjson *p, char c)
{
	int e;

	if (p->esc == 'u' || p->esc == 'x') {
		int h = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10
			: (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
		if (h < 0) {
			p->esc = 0;
			add_cp(&p->buf, 0xfffd);
			str_add(p, &c, 1);
			return;
		}
		p->esc_val = p->esc_val * 16 + (unsigned)h;
		if (--p->esc_left == 0) {
			add_cp(&p->buf, p->esc_val ? p->esc_val : 0xfffd);
			p->esc = 0;
		}
		return;
	}
	if (p->esc) {
		p->esc = 0;
		if (c == 'u' || c == 'x') {
			p->esc = c;
			p->esc_val = 0;
			p->esc_left = c == 'u' ? 4 : 2;
			return;
		}
		e = escape_char(c);
		if (e) {
			char ch = (char)e;
			str_add(p, &ch, 1);
		} else {
			char two[2] = { '\\', c };  /* unknown escape: kept as written */
			str_add(p, two, 2);
		}
		return;
	}
	if (c == '\\') {
		p->esc = '\\';
		return;
	}
	str_add(p, &c, 1);
}

/* A string prefix (b, r, u, f, rb, br...) just before a quote. */
static int is_prefix(const struct strbuf *w)
{
	size_t i;

	if (!w->len || w->len > 2)
		return 0;
	for (i = 0; i < w->len; i++)
		if (!strchr("bBrRuUfF", w->buf[i]))
			return 0;
	return 1;
}

static int line_break(struct pyjson *p);

int pj_feed(struct pyjson *p, const char *s, size_t n)
{
	size_t i;

	if (p->stopped)
		return -1;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\n') {
			if (p->glue_width && p->col == p->glue_width) {
				p->col = 0;  /* a piece of a longer line: glued */
				continue;
			}
			p->col = 0;
			if (line_break(p) < 0)
				goto stop;
			continue;
		}
		p->col++;
		if (p->tok == '\'' || p->tok == '"') {
			if (c == p->tok && !p->esc) {
				if (end_token(p) < 0)
					goto stop;
			} else {
				string_char(p, c);
			}
			continue;
		}
		if (c == '\'' || c == '"') {
			if (p->tok == 'w' && p->skip_first && !p->started) {
				/* the input began inside a string: drop its tail */
				p->tok = 0;
				p->started = 1;
				continue;
			}
			if (p->tok == 'w' && is_prefix(&p->buf))
				p->tok = 0;
			else if (end_token(p) < 0)
				goto stop;
			p->started = 1;
			p->tok = c;
			p->esc = 0;
			p->tok_line = p->line;
			strbuf_reset(&p->buf);
			continue;
		}
		if (is_word_char((unsigned char)c)) {
			if (p->tok != 'w') {
				p->tok = 'w';
				p->tok_line = p->line;
				strbuf_reset(&p->buf);
			}
			str_add(p, &c, 1);
			continue;
		}
		if (p->tok == 'w') {
			p->started = 1;
			if (end_token(p) < 0)
				goto stop;
		}
		if (strchr("{}[](),:", c) && c) {
			p->started = 1;
			if (punct(p, c) < 0)
				goto stop;
		}
	}
	return 0;
stop:
	p->stopped = 1;
	return -1;
}

/* A line break: ends a word; breaks a string. */
static int line_break(struct pyjson *p)
{
	if (p->tok == '\'' || p->tok == '"') {
		p->broken_strings++;
		p->tok = 0;
	} else if (p->tok == 'w') {
		p->started = 1;
		if (end_token(p) < 0)
			return -1;
	}
	p->line++;
	return 0;
}

int pj_end(struct pyjson *p)
{
	int open;

	if (p->stopped)
		return -1;
	if (p->tok == 'w' && end_token(p) < 0)
		return -1;
	p->tok = 0;
	open = p->n;
	while (p->n > 0)
		if (pop_complete(p, 1) < 0) {
			p->stopped = 1;
			return -1;
		}
	return open;
}

int pj_number(const json_t *v, double *out)
{
	char buf[64], *end;
	size_t n;

	if (json_is_integer(v)) {
		*out = (double)json_integer_value(v);
		return 0;
	}
	if (json_is_real(v)) {
		*out = json_real_value(v);
		return 0;
	}
	if (!json_is_string(v))
		return -1;
	n = json_string_length(v);
	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, json_string_value(v), n);
	buf[n] = 0;
	*out = strtod(buf, &end);
	return *end || !isfinite(*out) ? -1 : 0;
}

int pj_int(const json_t *v, int64_t *out)
{
	double d;

	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 0;
	}
	if (json_is_real(v)) {
		d = json_real_value(v);
		if (d != floor(d) || d < -9.2e18 || d > 9.2e18)
			return -1;
		*out = (int64_t)d;
		return 0;
	}
	return -1;
}
