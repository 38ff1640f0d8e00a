/*
 * grafana_csv.c -- Grafana panel CSV exports into one series per Grafana
 * series (name "grafana.series", entity the series' name) and a
 * metrics_export event per file.
 *
 * The graph panel's export (Grafana 2.x-6.x) writes "Series;Time;Value"
 * (a row per point) or "Time;<series>;<series>..." (a column per series),
 * ';'-separated, values in the browser's locale ("1,721,992,142.283");
 * panel inspect (7.0+) writes "Time","<series>",... ','-separated. Either
 * separator and quoted or bare fields are read. Times: ISO 8601 with a
 * zone (UTC after the offset), Unix milliseconds or seconds; a time
 * without a zone is the browser's local time: stored as local (meta
 * time.clock), UTC with --tz.
 */
#include "parsers/tools/prom_text.h"
#include "parsers/common/seriesutil.h"
#include "lib/timeutil.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GC_MAXCOL 64

struct gc_field { const char *p; size_t n; };

struct gc_st {
	struct sink *s;
	struct input *in;
	char sep;
	int rows_layout;             /* Series;Time;Value */
	int ncol, time_col;
	char names[GC_MAXCOL][128];
	int rows, points, bad, noted_local;
	char first[96], last[96];
	json_t *series;
};

/* Split on sep, quotes respected and removed. Returns the field count. */
static int split(const char *l, size_t n, char sep, struct gc_field *f, int max)
{
	size_t i = 0;
	int k = 0;

	while (i <= n && k < max) {
		size_t s = i;
		if (i < n && l[i] == '"') {
			s = ++i;
			while (i < n && l[i] != '"')
				i++;
			f[k].p = l + s;
			f[k].n = i - s;
			while (i < n && l[i] != sep)
				i++;
		} else {
			while (i < n && l[i] != sep)
				i++;
			f[k].p = l + s;
			f[k].n = i - s;
		}
		while (f[k].n && f[k].p[f[k].n - 1] == ' ')
			f[k].n--;
		while (f[k].n && f[k].p[0] == ' ')
			f[k].p++, f[k].n--;
		k++;
		i++;
	}
	return k;
}

/* "1,721,992,142.283" (thousands), "1,5" (decimal comma), "2.0", "null". */
static int read_value(const char *p, size_t n, double *v)
{
	char buf[64];
	size_t i, o = 0, commas = 0, digits_after = 0;
	int dot = 0, thousands = 1;
	char *end;

	if (!n || n >= sizeof(buf))
		return -1;
	for (i = 0; i < n; i++) {
		if (p[i] == ',') {
			commas++;
			digits_after = 0;
		} else if (p[i] == '.') {
			if (commas && digits_after != 3)
				thousands = 0;
			dot = 1;
		} else if (p[i] >= '0' && p[i] <= '9') {
			if (!dot)
				digits_after++;
		}
	}
	if (commas && !dot && digits_after != 3)
		thousands = 0;
	for (i = 0; i < n; i++) {
		if (p[i] == ',') {
			if (thousands)
				continue;
			if (commas == 1 && !dot) {
				buf[o++] = '.';
				continue;
			}
			return -1;
		}
		buf[o++] = p[i];
	}
	buf[o] = 0;
	*v = strtod(buf, &end);
	return end != buf && !*end ? 0 : -1;
}

/* ISO 8601 (zone: UTC; none: local), or Unix ms / s. */
static int read_time(struct gc_st *st, const char *p, size_t n, struct ol_time *t)
{
	int64_t ns, x;
	size_t used;
	int off;

	*t = ol_time_none();
	if (n >= 10 && p[4] == '-' && parse_iso8601(p, n, &ns, &off) > 0) {
		const char *z = p + 19;
		int zoned = n > 19 && (mem_find(z, n - 19, "Z") || mem_find(z, n - 19, "+") ||
				       mem_find(z, n - 19, "-"));
		if (zoned) {
			t->clock = OL_CLOCK_UTC;
			t->utc_ns = ns;
		} else {
			*t = wall_time(st->s, ns);
		}
		return 0;
	}
	if (parse_uint_commas(p, n, &x, &used) == 0 && used == n && !memchr(p, ',', n)) {
		/* from 1973 on: ms from 10^11, seconds from 10^8 */
		t->clock = OL_CLOCK_UTC;
		if (x >= 100000000000LL && x < 9200000000000LL)
			t->utc_ns = x * 1000000;
		else if (x >= 100000000LL && x < 9200000000LL)
			t->utc_ns = x * NS_PER_S;
		else
			*t = ol_time_none();
		return t->clock == OL_CLOCK_UTC ? 0 : -1;
	}
	return -1;
}

static int point(struct gc_st *st, const char *series, size_t sn, const struct gc_field *tf,
		 const struct gc_field *vf)
{
	struct ol_time t;
	char ent[128];
	double v;
	int64_t id;

	if (read_time(st, tf->p, tf->n, &t) < 0 || read_value(vf->p, vf->n, &v) < 0) {
		if (vf->n && !(vf->n == 4 && !memcmp(vf->p, "null", 4)))
			st->bad++;
		return 0;
	}
	if (note_local_clock(st->s, &t, &st->noted_local) < 0)
		return -1;
	copy_str(ent, sizeof(ent), series, sn);
	id = sink_series(st->s, vocab_series_name(VS_GRAFANA_SERIES), NULL, ent);
	if (id < 0 || sink_sample(st->s, id, &t, v) < 0)
		return -1;
	if (!st->points)
		snprintf(st->first, sizeof(st->first), "%.*s:%.*s", (int)tf->n, tf->p, (int)vf->n, vf->p);
	snprintf(st->last, sizeof(st->last), "%.*s:%.*s", (int)tf->n, tf->p, (int)vf->n, vf->p);
	st->points++;
	if (!json_object_get(st->series, ent))
		json_object_set_new(st->series, ent, json_true());
	return 0;
}

static int header(struct gc_st *st, const char *l, size_t n)
{
	struct gc_field f[GC_MAXCOL];
	int k, i;

	st->sep = memchr(l, ';', n) ? ';' : ',';
	k = split(l, n, st->sep, f, GC_MAXCOL);
	if (k >= 3 && f[0].n == 6 && !memcmp(f[0].p, "Series", 6) && f[1].n == 4 &&
	    !memcmp(f[1].p, "Time", 4)) {
		st->rows_layout = 1;
		return 1;
	}
	if (k < 2 || f[0].n != 4 || memcmp(f[0].p, "Time", 4))
		return 0;
	st->ncol = k;
	for (i = 1; i < k; i++)
		copy_str(st->names[i], sizeof(st->names[i]), f[i].p, f[i].n);
	return 1;
}

static int export_event(struct gc_st *st)
{
	struct ol_event e;
	char line[200];
	int64_t id;

	memset(&e, 0, sizeof(e));
	e.kind = vocab_event_kind(VE_METRICS_EXPORT);
	e.t = ol_time_none();
	e.pid = OL_NULL;
	e.bytes = OL_NULL;
	e.line = 1;
	snprintf(line, sizeof(line), "Grafana CSV: %zu series, %d points",
		 json_object_size(st->series), st->points);
	e.summary = line;
	e.data = json_pack("{s:s, s:s, s:i, s:i, s:O, s:s, s:s, s:i}",
			   "layout", st->rows_layout ? "series_as_rows" : "series_as_columns",
			   "sep", st->sep == ';' ? "semicolon" : "comma", "rows", st->rows,
			   "points", st->points, "series", st->series, "first", st->first,
			   "last", st->last, "unreadable_values", st->bad);
	if (!e.data)
		return -1;
	id = sink_event(st->s, &e);
	json_decref(e.data);
	return id < 0 ? -1 : 0;
}

int grafana_csv_parse(struct input *in, struct sink *s)
{
	struct gc_st *st = calloc(1, sizeof(*st));
	struct gc_field f[GC_MAXCOL];
	const char *l;
	size_t n;
	int r = -1, k, i, have_header = 0;

	if (!st || !(st->series = json_object())) {
		free(st);
		return -1;
	}
	st->s = s;
	st->in = in;
	while (input_getline(in, &l, &n) == 1) {
		while (n && (l[n - 1] == '\r' || l[n - 1] == ' '))
			n--;
		if (!n)
			continue;
		if (!have_header) {
			have_header = header(st, l, n);
			continue;
		}
		k = split(l, n, st->sep, f, GC_MAXCOL);
		st->rows++;
		if (st->rows_layout) {
			/* "1,721,992,142.283" after a ';' is one value, commas and all */
			if (k >= 3 && point(st, f[0].p, f[0].n, &f[1], &f[2]) < 0)
				goto out;
			continue;
		}
		for (i = 1; i < k && i < st->ncol; i++)
			if (point(st, st->names[i], strlen(st->names[i]), &f[0], &f[i]) < 0)
				goto out;
	}
	if (st->bad && sink_diagf(s, 0, 0, OL_WARN, "%d values that are not numbers", st->bad) < 0)
		goto out;
	if (have_header && export_event(st) < 0)
		goto out;
	r = st->points + (have_header ? 1 : 0);
out:
	json_decref(st->series);
	free(st);
	return r;
}

int grafana_csv_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;
	const char *eol = memchr(h, '\n', n);
	size_t l = eol ? (size_t)(eol - h) : n;

	if ((l >= 17 && !memcmp(h, "Series;Time;Value", 17)) ||
	    (l >= 23 && !memcmp(h, "\"Series\";\"Time\";\"Value\"", 23)))
		return 90;
	if (l >= 7 && (!memcmp(h, "Time;", 5) || !memcmp(h, "Time,", 5) ||
		       !memcmp(h, "\"Time\";", 7) || !memcmp(h, "\"Time\",", 7)) &&
	    eol && eol + 5 < h + n &&
	    (eol[1] == '"' || (eol[1] >= '0' && eol[1] <= '9')))
		return 75;
	return 0;
}
