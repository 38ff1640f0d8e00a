/*
 * memray_stats.c -- the text of `memray stats` (memray's
 * reporters/stats.py) into a memray_stats event and holders, and what
 * the JSON reader (memray_json.c) shares with it.
 *
 * The report is a list of sections, each a title printed by rich
 * ("📏 Total allocations:", "📦 Total memory allocated:", "📈 Peak memory
 * usage:" (1.18+), "📊 Histogram of allocation size:", "📂 Allocator type
 * distribution:", "🥇 Top N largest allocating locations (by size):",
 * "... (by number of allocations):", "🥇 Top N allocating modules (...)"
 * (1.20)), then its values on lines indented by a TAB (pastes often show
 * spaces; an emoji can be lost). Titles are told by their words.
 *
 * Sizes are memray's size_fmt, "%5.3f" + prefix + "B": through 1.17
 * powers of 1024 with prefixes K, M, G, T; from 1.18 (the release that
 * added the peak line) powers of 1000 with k, M, G. A report is read as
 * SI when it shows "kB" or the peak section, as binary when it shows "KB";
 * with neither it is read as binary and the event says the base was
 * assumed. Sizes are kept as printed until the report ends, then
 * converted.
 */
#include "parsers/tools/memray_stats.h"
#include "parsers/common/seriesutil.h"
#include "lib/vocab.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MR_MAXLOC 256
#define MR_BINS 16

enum mr_sec { S_NONE, S_NALLOC, S_TOTAL, S_PEAK, S_HIST, S_ALLOCATOR, S_TOP_SIZE,
	      S_TOP_COUNT, S_MOD_SIZE, S_MOD_COUNT };

struct mr_size { int set; double v; int prefix; char txt[24]; };

struct mr_loc {
	char *where;
	struct mr_size size;
	int64_t count;
	int module;
	int64_t rank;
	uint64_t line;
};

struct mr_st {
	struct sink *s;
	struct input *in;
	int reports;
	enum mr_sec sec;
	int in_report, tabs, spaces;
	int saw_kb, saw_kB, saw_peak;
	uint64_t line;
	int64_t nalloc;
	struct mr_size total, peak, hmin, hmax;
	struct { struct mr_size upper; int64_t count; int inclusive; } bins[MR_BINS];
	int nbins;
	json_t *allocators;
	struct mr_loc locs[MR_MAXLOC];
	int nlocs, rank;
};

/* ---- shared with memray_json.c ---- */

int memray_holder(struct sink *s, const char *location, int64_t bytes, int64_t count,
		  int64_t rank, int is_module, uint64_t line, const char *printed)
{
	struct ol_holder h;
	struct ol_frame f;
	const char *c1, *c2;
	char func[256], file[1024];
	int64_t id;

	memset(&h, 0, sizeof(h));
	h.tool = "memray";
	h.scope = "total";
	h.space = "host";
	h.device = OL_NULL;
	h.bytes = bytes;
	h.allocations = count;
	h.rank = rank;
	h.stack_id = OL_NULL;
	h.label = location;
	h.line = line;
	/* "func:file:line": the function has no ':', the line is after the last */
	c1 = strchr(location, ':');
	c2 = strrchr(location, ':');
	if (!is_module && c1 && c2 > c1 + 1 && c2[1] && strspn(c2 + 1, "0123456789") ==
	    strlen(c2 + 1) && strlen(c2 + 1) < 10) {
		copy_str(func, sizeof(func), location, (size_t)(c1 - location));
		copy_str(file, sizeof(file), c1 + 1, (size_t)(c2 - c1 - 1));
		memset(&f, 0, sizeof(f));
		f.name = func;
		f.file = file;
		f.line = atoll(c2 + 1);
		id = sink_stack(s, &f, 1);
		if (id < 0)
			return -1;
		h.stack_id = id;
	}
	h.data = json_pack("{s:s, s:o}", "kind", is_module ? "module" : "location",
			   "printed", printed ? json_string(printed) : json_null());
	if (!h.data)
		return -1;
	id = sink_holder(s, &h);
	json_decref(h.data);
	return id < 0 ? -1 : 0;
}

int memray_event(struct sink *s, json_t *data, uint64_t line)
{
	struct ol_event e;
	char summary[512];
	json_t *v;
	int64_t id;

	memset(&e, 0, sizeof(e));
	e.kind = vocab_event_kind(VE_MEMRAY_STATS);
	e.t = ol_time_none();
	e.pid = OL_NULL;
	e.line = line;
	v = json_object_get(data, "peak_bytes");
	e.bytes = json_is_integer(v) ? (int64_t)json_integer_value(v) : OL_NULL;
	snprintf(summary, sizeof(summary), "memray stats:");
	if (json_is_integer(v = json_object_get(data, "total_allocations")))
		snprintf(summary + strlen(summary), sizeof(summary) - strlen(summary),
			 " %lld allocations", (long long)json_integer_value(v));
	if (json_is_integer(v = json_object_get(data, "total_allocated_bytes")))
		snprintf(summary + strlen(summary), sizeof(summary) - strlen(summary),
			 ", %.1f MiB allocated", (double)json_integer_value(v) / 1048576.0);
	if (json_is_integer(v = json_object_get(data, "peak_bytes")))
		snprintf(summary + strlen(summary), sizeof(summary) - strlen(summary),
			 ", peak %.1f MiB", (double)json_integer_value(v) / 1048576.0);
	if (json_is_string(v = json_object_get(data, "top_location")))
		snprintf(summary + strlen(summary), sizeof(summary) - strlen(summary),
			 "; top location %.300s", json_string_value(v));
	e.summary = summary;
	e.data = data;
	id = sink_event(s, &e);
	return id < 0 ? -1 : 0;
}

/* ---- the text report ---- */

/* "257.024MB", "1.000B", "2.754KB", "1.5kB": number, prefix, B. */
static int read_size(const char *p, size_t n, struct mr_size *z, struct mr_st *st)
{
	static const char prefixes[] = "kKMGTPEZ";
	size_t used;
	double v;
	const char *q;

	memset(z, 0, sizeof(*z));
	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	if (parse_num(p, n, &v, &used) < 0 || v < 0 || used >= n)
		return -1;
	if (p[used] == 'B') {
		z->prefix = 0;
	} else if (used + 1 < n && p[used + 1] == 'B' && (q = strchr(prefixes, p[used])) && *q) {
		z->prefix = q == prefixes ? 1 : (int)(q - prefixes);
		if (p[used] == 'k')
			st->saw_kB = 1;
		else if (p[used] == 'K')
			st->saw_kb = 1;
	} else {
		return -1;
	}
	z->set = 1;
	z->v = v;
	copy_str(z->txt, sizeof(z->txt), p, used + (z->prefix ? 2 : 1));
	return 0;
}

static json_t *size_json(const struct mr_size *z, double base)
{
	double b;

	if (!z->set)
		return json_null();
	b = z->v * pow(base, z->prefix);
	return b < 9.2e18 ? json_integer((json_int_t)llround(b)) : json_null();
}

static void report_reset(struct mr_st *st)
{
	int i;

	for (i = 0; i < st->nlocs; i++)
		free(st->locs[i].where);
	json_decref(st->allocators);
	/* every field from sec on belongs to the report */
	memset(&st->sec, 0, sizeof(*st) - offsetof(struct mr_st, sec));
	st->nalloc = OL_NULL;
}

/* The report read so far: its event, then its holders. */
static int report_end(struct mr_st *st)
{
	double base = st->saw_kB || (st->saw_peak && !st->saw_kb) ? 1000 : 1024;
	json_t *d, *hist;
	const struct mr_loc *top = NULL, *toppy = NULL;
	int i, r = -1;

	if (!st->in_report) {
		report_reset(st);
		return 0;
	}
	for (i = 0; i < st->nlocs; i++)
		if (!st->locs[i].module && st->locs[i].size.set) {
			if (!top)
				top = &st->locs[i];
			if (!toppy && strcmp(st->locs[i].where, "<stack trace unavailable>"))
				toppy = &st->locs[i];
		}
	hist = json_array();
	for (i = 0; i < st->nbins && hist; i++)
		json_array_append_new(hist, json_pack("{s:o, s:I, s:b}", "upper_bytes",
			size_json(&st->bins[i].upper, base), "count", (json_int_t)st->bins[i].count,
			"inclusive", st->bins[i].inclusive));
	d = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:O, s:o, s:o, s:o, s:o,"
		      " s:i, s:b, s:s}",
		      "form", "text",
		      "total_allocations", ol_json_int(st->nalloc),
		      "total_allocated_bytes", size_json(&st->total, base),
		      "peak_bytes", size_json(&st->peak, base),
		      "hist_min_bytes", size_json(&st->hmin, base),
		      "hist_max_bytes", size_json(&st->hmax, base),
		      "histogram", hist ? hist : json_null(),
		      "allocators", st->allocators ? st->allocators : json_null(),
		      "top_location", top ? json_string(top->where) : json_null(),
		      "top_location_bytes", top ? size_json(&top->size, base) : json_null(),
		      "top_python_location", toppy ? json_string(toppy->where) : json_null(),
		      "top_python_location_bytes", toppy ? size_json(&toppy->size, base) : json_null(),
		      "unit_base", (int)base,
		      "unit_base_assumed", !st->saw_kB && !st->saw_kb && !st->saw_peak,
		      "indent", st->tabs ? "tabs" : st->spaces ? "spaces" : "none");
	if (!d)
		goto out;
	json_object_set_new(d, "printed", json_pack("{s:s?, s:s?}",
		"total_allocated", st->total.set ? st->total.txt : NULL,
		"peak", st->peak.set ? st->peak.txt : NULL));
	if (memray_event(st->s, d, st->line) < 0)
		goto out;
	for (i = 0; i < st->nlocs; i++) {
		const struct mr_loc *l = &st->locs[i];
		json_t *b = size_json(&l->size, base);
		int64_t bytes = json_is_integer(b) ? (int64_t)json_integer_value(b) : OL_NULL;
		json_decref(b);
		if (memray_holder(st->s, l->where, bytes, l->count, l->rank, l->module, l->line,
				  l->size.set ? l->size.txt : NULL) < 0)
			goto out;
	}
	st->reports++;
	r = 0;
out:
	json_decref(d);
	report_reset(st);
	return r;
}

/* Which section a title line opens, or S_NONE. */
static enum mr_sec title_of(const char *l, size_t n)
{
	if (mem_find(l, n, "Total allocations:"))
		return S_NALLOC;
	if (mem_find(l, n, "Total memory allocated:"))
		return S_TOTAL;
	if (mem_find(l, n, "Peak memory usage:"))
		return S_PEAK;
	if (mem_find(l, n, "Histogram of allocation size:"))
		return S_HIST;
	if (mem_find(l, n, "Allocator type distribution:"))
		return S_ALLOCATOR;
	if (mem_find(l, n, "largest allocating locations (by size):"))
		return S_TOP_SIZE;
	if (mem_find(l, n, "largest allocating locations (by number of allocations):"))
		return S_TOP_COUNT;
	if (mem_find(l, n, "allocating modules (by size):"))
		return S_MOD_SIZE;
	if (mem_find(l, n, "allocating modules (by number of allocations):"))
		return S_MOD_COUNT;
	return S_NONE;
}

static int add_loc(struct mr_st *st, const char *w, size_t wn, int module)
{
	struct mr_loc *l;

	if (st->nlocs == MR_MAXLOC)
		return 1;
	l = &st->locs[st->nlocs];
	memset(l, 0, sizeof(*l));
	l->where = malloc(wn + 1);
	if (!l->where)
		return -1;
	memcpy(l->where, w, wn);
	l->where[wn] = 0;
	l->module = module;
	l->count = OL_NULL;
	l->rank = ++st->rank;
	l->line = st->in->lineno;
	st->nlocs++;
	return 0;
}

/* "- LOCATION -> SIZE|COUNT" and "- module: SIZE total | N allocations" */
static int top_line(struct mr_st *st, const char *v, size_t n)
{
	const char *arrow, *p;
	struct mr_loc *l;
	int64_t x;
	int r;

	if (n < 3 || v[0] != '-' || v[1] != ' ')
		return 0;
	v += 2;
	n -= 2;
	if (st->sec == S_MOD_SIZE || st->sec == S_MOD_COUNT) {
		const char *colon = mem_find(v, n, ": ");
		if (!colon)
			return 0;
		if ((r = add_loc(st, v, (size_t)(colon - v), 1)) != 0)
			return r < 0 ? -1 : 0;
		l = &st->locs[st->nlocs - 1];
		read_size(colon + 2, (size_t)(v + n - colon - 2), &l->size, st);
		if ((p = mem_find(v, n, "| ")) &&
		    parse_uint_commas(p + 2, (size_t)(v + n - p - 2), &x, NULL) == 0)
			l->count = x;
		return 0;
	}
	for (arrow = NULL, p = v; (p = mem_find(p, (size_t)(v + n - p), " -> ")); p += 4)
		arrow = p;
	if (!arrow)
		return 0;
	if ((r = add_loc(st, v, (size_t)(arrow - v), 0)) != 0)
		return r < 0 ? -1 : 0;
	l = &st->locs[st->nlocs - 1];
	p = arrow + 4;
	if (st->sec == S_TOP_SIZE)
		read_size(p, (size_t)(v + n - p), &l->size, st);
	else if (parse_uint_commas(p, (size_t)(v + n - p), &x, NULL) == 0)
		l->count = x;
	return 0;
}

/* One value line of the current section (indent removed). */
static int value_line(struct mr_st *st, const char *v, size_t n)
{
	const char *colon;
	int64_t x;

	switch (st->sec) {
	case S_NALLOC:
		if (parse_uint_commas(v, n, &x, NULL) == 0)
			st->nalloc = x;
		break;
	case S_TOTAL:
		read_size(v, n, &st->total, st);
		break;
	case S_PEAK:
		read_size(v, n, &st->peak, st);
		break;
	case S_HIST:
		if (n > 4 && !memcmp(v, "min:", 4))
			read_size(v + 4, n - 4, &st->hmin, st);
		else if (n > 4 && !memcmp(v, "max:", 4))
			read_size(v + 4, n - 4, &st->hmax, st);
		else if (v[0] == '<' && st->nbins < MR_BINS && (colon = memchr(v, ':', n))) {
			int incl = n > 1 && v[1] == '=';
			if (read_size(v + 1 + incl, (size_t)(colon - v) - 1 - incl,
				      &st->bins[st->nbins].upper, st) == 0 &&
			    parse_uint_commas(colon + 1, (size_t)(v + n - colon - 1), &x, NULL) == 0) {
				st->bins[st->nbins].count = x;
				st->bins[st->nbins].inclusive = incl;
				st->nbins++;
			}
		}
		break;
	case S_ALLOCATOR:
		if ((colon = memchr(v, ':', n)) &&
		    parse_uint_commas(colon + 1, (size_t)(v + n - colon - 1), &x, NULL) == 0) {
			char name[64];
			copy_str(name, sizeof(name), v, (size_t)(colon - v));
			if (!st->allocators && !(st->allocators = json_object()))
				return -1;
			json_object_set_new(st->allocators, name, json_integer(x));
		}
		break;
	case S_TOP_SIZE: case S_TOP_COUNT: case S_MOD_SIZE: case S_MOD_COUNT:
		return top_line(st, v, n);
	case S_NONE:
		break;
	}
	return 0;
}

int memray_stats_parse(struct input *in, struct sink *s)
{
	struct mr_st st;
	const char *l;
	size_t n, i;
	enum mr_sec sec;

	memset(&st, 0, sizeof(st));
	st.s = s;
	st.in = in;
	report_reset(&st);
	while (input_getline(in, &l, &n) == 1) {
		while (n && (l[n - 1] == ' ' || l[n - 1] == '\r'))
			n--;
		if ((sec = title_of(l, n)) != S_NONE) {
			if (sec == S_NALLOC && st.in_report && report_end(&st) < 0)
				return -1;
			if (!st.in_report) {
				st.in_report = 1;
				st.line = in->lineno;
			}
			st.sec = sec;
			st.rank = 0;
			if (sec == S_PEAK)
				st.saw_peak = 1;
			continue;
		}
		if (!st.in_report || !n)
			continue;
		for (i = 0; i < n && (l[i] == '\t' || l[i] == ' '); i++)
			;
		if (!i) {
			st.sec = S_NONE;  /* an unindented line: not a value */
			continue;
		}
		if (l[0] == '\t')
			st.tabs = 1;
		else
			st.spaces = 1;
		if (value_line(&st, l + i, n - i) < 0)
			return -1;
	}
	if (report_end(&st) < 0)
		return -1;
	return st.reports;
}

int memray_stats_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;
	int k = !!mem_find(h, n, "Total allocations:") + !!mem_find(h, n, "Total memory allocated:") +
		!!mem_find(h, n, "Histogram of allocation size:") +
		!!mem_find(h, n, "Allocator type distribution:") +
		!!mem_find(h, n, "largest allocating locations (by");

	return k >= 2 ? 90 : k == 1 && mem_find(h, n, "\xf0\x9f") ? 60 : 0;
}
