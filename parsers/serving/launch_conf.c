/*
 * launch_conf.c -- launch commands and configurations pasted beside a
 * failure into launch.* meta (see launch_conf.h; the spellings are
 * launch_table.c's). One pass over the lines: each is cut into words at
 * blanks, quotes, commas and brackets ("--flag=value" and "KEY=value" cut
 * at the '='), and a word the table knows takes the word after it (on
 * the next line for a YAML list that puts the flag and its value on two
 * items, or a Kubernetes env entry's name/value pair). The first value a
 * file states for a knob is kept: a thread's later commands are its
 * retries, and the first is the one that failed. A value that is not a
 * number ("$NUM_SHARD", "auto") is skipped.
 */
#include "parsers/serving/launch_conf.h"
#include "parsers/serving/launch_table.h"
#include "parsers/common/seriesutil.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_WORDS 256
#define MAX_KEYS 32
#define HEAD_LOOK (64 * 1024)

struct word { const char *p; size_t n; };

struct lc_state {
	struct sink *s;
	int in_log;               /* the file is a log: only command lines are read */
	const char *engine;       /* the last entry point's engine (or the one a key
				   * names); NULL none yet */
	int entry;                /* an entry point was seen: a launch command */
	const char *phase;        /* the first entry point's whole-run phase
				   * (launch.phase), NULL none */
	int cont;                 /* the last command line ended with '\' */
	const struct launch_flag *pending; /* a flag or key whose value is on the next line */
	int pending_env;          /* pending came from an env list's "name:" */
	const char *seen[MAX_KEYS];
	int nseen, records, source_said;
	uint64_t line;
};

const char *launch_entry_point(const char *line, size_t n)
{
	int i;

	for (i = 0; launch_entries[i].text; i++)
		if (mem_find(line, n, launch_entries[i].text))
			return launch_entries[i].engine;
	return NULL;
}

const char *launch_entry_phase(const char *line, size_t n)
{
	int i;

	for (i = 0; launch_entries[i].text; i++)
		if (mem_find(line, n, launch_entries[i].text))
			return launch_entries[i].phase;
	return NULL;
}

/* 1 when the head is a log (two lines with a level word near their start,
 * or a traceback), not a pasted configuration. */
static int head_is_log(const char *h, size_t n)
{
	static const char *const levels[] = { "INFO", "WARNING", "ERROR", "DEBUG", "CRITICAL", NULL };
	const char *p = h, *end = h + n, *nl;
	int logs = 0, i;

	if (mem_find(h, n, "Traceback (most recent call last):"))
		return 1;
	for (; p < end && logs < 2; p = nl + 1) {
		size_t len;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		len = (size_t)(nl - p) < 48 ? (size_t)(nl - p) : 48;
		for (i = 0; levels[i]; i++)
			if (mem_find(p, len, levels[i])) {
				logs++;
				break;
			}
	}
	return logs >= 2;
}

/* Whether line[0..n) holds a word of table t (any engine's row) as a
 * whole word: a flag after a blank or quote, a key followed by ':', '='
 * or a blank. */
static int has_known(const struct launch_flag *t, const char *line, size_t n)
{
	for (; t->spelling; t++) {
		size_t k = strlen(t->spelling);
		const char *q = line, *e = line + n, *f;
		if ((t->engine && t->spelling[1] != '-') || t->kind == LK_TEXT)
			continue;   /* short flags alone say nothing; PyTorch's own advice
				     * names PYTORCH_CUDA_ALLOC_CONF */
		while ((f = mem_find(q, (size_t)(e - q), t->spelling))) {
			const char *a = f + k;
			int before = f == line || strchr(" \t\"'[,-", f[-1]) != NULL;
			int after = a == e || strchr(" \t\"'=:\r", *a) != NULL;
			if (before && after)
				return 1;
			q = f + 1;
		}
	}
	return 0;
}

/* 1 when h[0..n) holds an entry point or a configuration key anywhere. */
static int any_in(const char *h, size_t n)
{
	int i;

	for (i = 0; launch_entries[i].text; i++)
		if (mem_find(h, n, launch_entries[i].text))
			return 1;
	for (i = 0; launch_keys[i].spelling; i++)
		if (launch_keys[i].kind != LK_TEXT && mem_find(h, n, launch_keys[i].spelling))
			return 1;
	return 0;
}

int launch_conf_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head, *p = h, *end = h + n, *nl;
	int entry = 0, flags = 0, keys = 0;

	if (n && h[0] == '{' && mem_find(h, n < 512 ? n : 512, "\"oomlens\":"))
		return 0;   /* oomlens' own JSON report */
	if (!any_in(h, n))
		return 0;   /* the common case, a log naming neither: one look per spelling */
	for (; p < end; p = nl + 1) {
		size_t len;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		len = (size_t)(nl - p);
		if (memchr(p, '\t', len) && memchr(memchr(p, '\t', len) + 1, '\t',
						   len - (size_t)((const char *)memchr(p, '\t', len) + 1 - p)))
			continue;   /* a table's row (a manifest): quotes, not a paste */
		entry |= launch_entry_point(p, len) != NULL;
		flags |= has_known(launch_flags, p, len);
		keys |= has_known(launch_keys, p, len);
	}
	if (entry && flags)
		return 60;
	/* an entry point with the engine's defaults (a compose file's
	 * entrypoint and command), or a configuration's keys: not in a log,
	 * whose lines may quote both */
	return (entry || keys) && !head_is_log(h, n) ? 60 : 0;
}

/* The words of line[0..n) into w (at most MAX_WORDS); their count. */
static int split(const char *line, size_t n, struct word *w)
{
	size_t i = 0, s;
	int k = 0;

	while (i < n && k < MAX_WORDS) {
		while (i < n && strchr(" \t\"'`,[](){}\\", line[i]))
			i++;
		for (s = i; i < n && !strchr(" \t\"'`,[](){}\\", line[i]); i++)
			;
		if (i == s)
			break;
		{
			const char *eq = memchr(line + s, '=', i - s);
			if (eq && eq > line + s) {   /* --flag=value, KEY=value */
				w[k].p = line + s, w[k++].n = (size_t)(eq - line - s);
				if (k < MAX_WORDS && eq + 1 < line + i)
					w[k].p = eq + 1, w[k++].n = (size_t)(line + i - eq - 1);
				continue;
			}
		}
		if (i - s > 1 && line[i - 1] == ':')
			w[k].p = line + s, w[k++].n = i - s - 1;   /* "key:" */
		else if (!(i - s == 1 && (line[s] == ':' || line[s] == '-' || line[s] == '=')))
			w[k].p = line + s, w[k++].n = i - s;   /* a lone ':' or list dash is no word */
	}
	return k;
}

/* The number a word states, with vLLM's human-readable suffixes (k 1e3,
 * K 2^10, m 1e6, M 2^20: vllm/engine/arg_utils.py human_readable_int);
 * true/false as 1/0. 0, or -1 when it is none. */
static int number(const struct word *w, double *v)
{
	char buf[48], *end;
	double mult = 1;
	size_t n = w->n;

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, w->p, n);
	buf[n] = 0;
	if (!strcasecmp(buf, "true") || !strcasecmp(buf, "false")) {
		*v = tolower((unsigned char)buf[0]) == 't';
		return 0;
	}
	switch (buf[n - 1]) {
	case 'k': mult = 1e3; break;
	case 'K': mult = 1024; break;
	case 'm': mult = 1e6; break;
	case 'M': mult = 1048576; break;
	}
	if (mult != 1)
		buf[--n] = 0;
	*v = strtod(buf, &end);
	if (end == buf || *end || *v < 0)
		return -1;
	*v *= mult;
	return 0;
}

/* launch.source, once a file: what stated the knobs and where. */
static int say_source(struct lc_state *st)
{
	char text[160];

	if (st->source_said)
		return 0;
	st->source_said = 1;
	if (st->entry)
		snprintf(text, sizeof(text), "%s launch command, line %llu", st->engine,
			 (unsigned long long)st->line);
	else
		snprintf(text, sizeof(text), "pasted configuration, line %llu",
			 (unsigned long long)st->line);
	st->records++;
	if (sink_meta(st->s, "launch.source", text) < 0)
		return -1;
	if (st->engine && sink_meta(st->s, "launch.engine", st->engine) < 0)
		return -1;
	if (st->phase && sink_meta(st->s, "launch.phase", st->phase) < 0)
		return -1;
	return 0;
}

/* Keep key = v unless the file stated it already. 0, or -1 when the
 * sink failed. */
static int keep(struct lc_state *st, const struct launch_flag *f, double v)
{
	char key[64], text[48];
	int i;

	for (i = 0; i < st->nseen; i++)
		if (st->seen[i] == f->key)
			return 0;
	if (st->nseen < MAX_KEYS)
		st->seen[st->nseen++] = f->key;
	if (f->kind == LK_ZERO_EAGER) {
		if (v != 0)
			return 0;
		v = 1;
	}
	if (say_source(st) < 0)
		return -1;
	snprintf(key, sizeof(key), "launch.%s", f->key);
	snprintf(text, sizeof(text), "%.10g", v);
	st->records++;
	return sink_meta(st->s, key, text) < 0 ? -1 : 0;
}

/* An env list's text value (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True)
 * from the raw line, after the key: up to a blank or quote. */
static int keep_text(struct lc_state *st, const struct launch_flag *f, const char *line,
		     size_t n, const struct word *kw)
{
	const char *p = kw->p + kw->n, *e = line + n, *v;
	char key[96], text[256];
	int i;

	while (p < e && strchr("\"' \t=:", *p))
		p++;
	for (v = p; p < e && !strchr("\"' \t", *p); p++)
		;
	if (p == v)
		return 0;
	for (i = 0; i < st->nseen; i++)
		if (st->seen[i] == f->key)
			return 0;
	if (st->nseen < MAX_KEYS)
		st->seen[st->nseen++] = f->key;
	snprintf(key, sizeof(key), "env.%s", f->key);
	copy_str(text, sizeof(text), v, (size_t)(p - v));
	st->records++;
	return sink_meta(st->s, key, text) < 0 ? -1 : 0;
}

/* The words of one line that is read: flags (and, in a configuration,
 * keys) with their values. */
static int words(struct lc_state *st, const char *line, size_t n, int keys)
{
	struct word w[MAX_WORDS];
	int k = split(line, n, w), i = 0;
	double v;

	if (st->pending && k > 0) {
		const struct launch_flag *f = st->pending;
		if (st->pending_env && w[0].n == 5 && !memcmp(w[0].p, "value", 5))
			i = 1;
		st->pending = NULL;
		if (i < k && w[i].p[0] != '-' && number(&w[i], &v) == 0 && keep(st, f, v) < 0)
			return -1;
	}
	st->pending = NULL;
	for (; i < k; i++) {
		const struct launch_flag *f = NULL;
		int is_flag = w[i].p[0] == '-';
		if (is_flag)
			f = launch_find(launch_flags, w[i].p, w[i].n, st->engine);
		else if (keys)
			f = launch_find(launch_keys, w[i].p, w[i].n, st->engine);
		if (!f)
			continue;
		if (!st->engine && f->hint)
			st->engine = f->hint;   /* Ollama's, TGI's own names */
		if (f->kind == LK_TEXT) {
			/* a setting's line opens with its name ("- NAME=", "export
			 * NAME=", "ENV NAME "); elsewhere the name is quoted (PyTorch's
			 * advice "try setting PYTORCH_CUDA_ALLOC_CONF=...") */
			if (i <= 1 && keep_text(st, f, line, n, &w[i]) < 0)
				return -1;
			continue;
		}
		if (i + 1 < k && w[i + 1].p[0] != '-' && number(&w[i + 1], &v) == 0) {
			if (keep(st, f, v) < 0)
				return -1;
			i++;
		} else if (f->kind == LK_ON) {
			if (keep(st, f, 1) < 0)
				return -1;
		} else if (i + 1 == k) {
			st->pending = f;   /* its value is the next line's first word */
			st->pending_env = i > 0 && w[i - 1].n == 4 && !memcmp(w[i - 1].p, "name", 4);
		}
	}
	return 0;
}

/* One line. */
static int one_line(struct lc_state *st, const char *line, size_t n)
{
	const char *engine = launch_entry_point(line, n);
	size_t e = n;
	int read = 0;

	if (engine) {
		st->engine = engine;
		st->phase = st->source_said ? st->phase : launch_entry_phase(line, n);
		st->entry = 1;
		if (!st->source_said && say_source(st) < 0)
			return -1;
		read = 1;
	} else if (st->cont || !st->in_log) {
		read = 1;
	}
	while (e && (line[e - 1] == ' ' || line[e - 1] == '\t' || line[e - 1] == '\r'))
		e--;
	st->cont = read && e && line[e - 1] == '\\';
	if (!read)
		return 0;
	return words(st, line, n, !st->in_log);
}

int launch_conf_parse(struct input *in, struct sink *s)
{
	struct lc_state st;
	const unsigned char *head;
	const char *line;
	size_t n;
	int r;

	memset(&st, 0, sizeof(st));
	st.s = s;
	head = input_peek(in, HEAD_LOOK, &n);
	st.in_log = head && head_is_log((const char *)head, n);
	while ((r = input_getline(in, &line, &n)) == 1) {
		st.line++;
		if (one_line(&st, line, n) < 0)
			return -1;
	}
	if (r < 0)
		sink_diagf(s, st.line, 0, OL_ERROR, "read error after this line");
	return st.records;
}
