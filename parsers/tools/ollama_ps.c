/*
 * ollama_ps.c -- `ollama ps` tables into Ollama offload records (see
 * ollama_ps.h for the format and the sources that taught it).
 *
 * A table starts at its header line; each row under it is read by its
 * words, not its columns' positions (pastes lose the alignment, the
 * FAQ's copy is tab-separated): the model's name, its ID (hex), the
 * size as a number and a unit, the processor ("N% GPU", "N% CPU",
 * "A%/B% CPU/GPU" or "Unknown"). A line that is none of these ends the
 * table.
 */
#include "parsers/tools/ollama_ps.h"
#include "parsers/common/textclean.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_READ 512
#define WORDS 12

/* One word of a line. */
struct word {
	const char *p;
	size_t n;
};

/* Split l (len bytes) at blanks and tabs into at most WORDS words;
 * their count. */
static int split(const char *l, size_t len, struct word *w)
{
	const char *e = l + len;
	int n = 0;

	while (l < e && n < WORDS) {
		while (l < e && (*l == ' ' || *l == '\t'))
			l++;
		if (l == e)
			break;
		w[n].p = l;
		while (l < e && *l != ' ' && *l != '\t')
			l++;
		w[n].n = (size_t)(l - w[n].p);
		n++;
	}
	return n;
}

static int is(const struct word *w, const char *s)
{
	return w->n == strlen(s) && !memcmp(w->p, s, w->n);
}

/* 1 when the line's words are the table's header. */
static int header(const struct word *w, int n)
{
	return n >= 5 && is(&w[0], "NAME") && is(&w[1], "ID") && is(&w[2], "SIZE") &&
	       is(&w[3], "PROCESSOR");
}

/* The bytes of a size as format.HumanBytes prints it ("42 GB", "900
 * MB", "5.6 GB": decimal units), or NAN. */
static double size_of(const struct word *num, const struct word *unit)
{
	static const struct { const char *u; double m; } units[] = {
		{ "B", 1 }, { "KB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 }, { "TB", 1e12 },
	};
	char buf[24], *end;
	size_t i;
	double v;

	if (num->n >= sizeof(buf))
		return NAN;
	memcpy(buf, num->p, num->n);
	buf[num->n] = 0;
	v = strtod(buf, &end);
	if (end == buf || *end || !isfinite(v) || v < 0)
		return NAN;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (is(unit, units[i].u))
			return v * units[i].m;
	return NAN;
}

/* The percentage a word states ("52%"), or NAN. */
static double pct(const char *p, size_t n)
{
	char buf[8], *end;
	double v;

	if (!n || n >= sizeof(buf) || p[n - 1] != '%')
		return NAN;
	memcpy(buf, p, n - 1);
	buf[n - 1] = 0;
	v = strtod(buf, &end);
	return end == buf || *end || v < 0 || v > 100 ? NAN : v;
}

/* The GPU share (0..100) the PROCESSOR words at w state, the words it
 * took in *used; -1 for "Unknown"; NAN when they are not a processor. */
static double gpu_share(const struct word *w, int n, int *used)
{
	const char *slash;

	*used = 1;
	if (n >= 1 && is(&w[0], "Unknown"))
		return -1;
	*used = 2;
	if (n < 2)
		return NAN;
	if (is(&w[1], "GPU"))
		return pct(w[0].p, w[0].n);
	if (is(&w[1], "CPU"))
		return isnan(pct(w[0].p, w[0].n)) ? NAN : 100 - pct(w[0].p, w[0].n);
	if (is(&w[1], "CPU/GPU") && (slash = memchr(w[0].p, '/', w[0].n)))
		return pct(slash + 1, (size_t)(w[0].p + w[0].n - slash - 1));
	return NAN;
}

/* 1 when the word is a model ID: hex digits, 6 or more (the CLI prints
 * 12). */
static int hex_id(const struct word *w)
{
	size_t i;

	if (w->n < 6)
		return 0;
	for (i = 0; i < w->n; i++)
		if (!strchr("0123456789abcdef", w->p[i]))
			return 0;
	return 1;
}

/* Store one row: 1 stored, 0 not a row, -1 the sink failed. */
static int row(struct sink *s, const struct word *w, int n, uint64_t line)
{
	struct ol_engine e;
	char inst[160];
	double size, gpu;
	int used, k;

	if (n < 5 || !hex_id(&w[1]) || isnan(size = size_of(&w[2], &w[3])))
		return 0;
	if (isnan(gpu = gpu_share(&w[4], n - 4, &used)))
		return 0;
	memset(&e, 0, sizeof(e));
	for (k = 0; k < EF__COUNT; k++)
		e.fact[k] = NAN;
	e.fact[EF_PLANNED_TOTAL] = round(size);
	if (gpu >= 0)
		e.fact[EF_REQUESTED] = round(size * gpu / 100);
	snprintf(inst, sizeof(inst), "ollama ps %.*s (%.*s%s%.*s)", (int)(w[0].n < 80 ? w[0].n : 80),
		 w[0].p, (int)w[4].n, w[4].p, used > 1 ? " " : "", used > 1 ? (int)w[5].n : 0,
		 used > 1 ? w[5].p : "");
	e.engine = engine_kind_name(ENGINE_OLLAMA);
	e.instance = inst;
	e.line = line;
	return sink_engine(s, &e) < 0 ? -1 : 1;
}

/* The line without a paste's lead: blanks, a comment's '#', a quote's
 * '>' (the FAQ quotes its output). */
static const char *lead(const char *l, size_t *len)
{
	while (*len && (*l == ' ' || *l == '\t' || *l == '#' || *l == '>'))
		l++, (*len)--;
	return l;
}

int ollama_ps_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head, *p = h, *e;
	struct word w[WORDS];
	size_t len;

	/* a header line (its words, not a sentence naming them), ended by a
	 * newline */
	for (; p < h + n && (e = memchr(p, '\n', n - (size_t)(p - h))); p = e + 1) {
		const char *l;

		len = (size_t)(e - p);
		l = lead(p, &len);
		if (len >= 4 && !memcmp(l, "NAME", 4) && header(w, split(l, len, w)))
			return 40;
	}
	return 0;
}

int ollama_ps_parse(struct input *in, struct sink *s)
{
	char clean[LINE_MAX_READ];
	struct word w[WORDS];
	const char *l;
	size_t len;
	uint64_t no = 0;
	int rc, n, in_table = 0, stored = 0;

	while ((rc = input_getline(in, &l, &len)) == 1) {
		no++;
		len = text_clean(l, len, clean, sizeof(clean), TC_ANSI | TC_QUOTE);
		l = lead(clean, &len);
		n = split(l, len, w);
		if (header(w, n)) {
			in_table = 1;
			continue;
		}
		if (!in_table)
			continue;
		if ((rc = row(s, w, n, no)) < 0)
			return -1;
		stored += rc;
		in_table = rc == 1;
	}
	return rc < 0 ? -1 : stored;
}
