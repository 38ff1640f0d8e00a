/*
 * torch_profiler.c -- the PyTorch profiler's key_averages().table() with
 * its memory columns, into holders and one torch_profiler_table event per
 * table.
 *
 * The table (torch/autograd/profiler_util.py, _build_table) is a name
 * column, then right-aligned 12-wide columns: Self CPU %, Self CPU, CPU
 * total %, CPU total, CPU time avg, [Self CUDA, Self CUDA %, CUDA total,
 * CUDA time avg,] with profile_memory CPU Mem, Self CPU Mem and, when any
 * device memory was seen, CUDA Mem, Self CUDA Mem (the device name
 * upper-cased: XPU, ...), then # of Calls, [Input Shapes, Source Location,
 * Total FLOPs]. The 1.4-1.6 autograd profiler printed 15-wide left-aligned
 * columns with the same order ("Number of Calls", "Input Shapes" last).
 * A row is read from its right end by the shape of each value, so a row
 * reads alike in every layout, with or without the header above it (an
 * excerpt often has only rows): a trailing "[...]" shapes column and a
 * FLOPs column are dropped, then the call count, then the memory values
 * ("N b" / "1.23 Kb|Mb|Gb" before 2.8, "N B" / "KB|MB|GB" after; every
 * one a power of 1024, two decimals, negative for net frees), then the
 * times and percentages; what is left is the operator's name. Two memory
 * values are CPU Mem and Self CPU Mem; four add the device's.
 *
 * Process tags that Ray and vLLM put before each line ("(EngineCore_DP0
 * pid=4220) ") are removed. A table ends at "Self CPU time total:", at a
 * new header, or at the end of the input.
 */
#include "parsers/torch/torch_profiler.h"
#include "parsers/common/seriesutil.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PF_MAXTOK 64

struct pf_row {
	const char *name;
	size_t name_len;
	int nmem;
	int64_t mem[4];               /* bytes; CPU, Self CPU, device, Self device */
	char mem_txt[4][24];          /* as printed */
	int64_t calls;
};

/* What a table has seen so far: the holders are written as rows come,
 * the figures go into the table's event at its end. */
struct pf_best { int set; int64_t bytes, calls; char op[64]; char txt[24]; };

struct pf_st {
	struct sink *s;
	struct input *in;
	int tables, holders;
	int in_table, has_header, rows;
	char device[16];              /* "CUDA", "XPU", ... from the header */
	char wrapper[64];
	uint64_t line;
	unsigned units;               /* bit per unit spelling seen */
	struct pf_best top[4], min_self_cpu;
	double self_cpu_total_s, self_dev_total_s;
	int64_t mem_rows;
};

static const char *const unit_names[] = { "b", "Kb", "Mb", "Gb", "B", "KB", "MB", "GB" };

/* A memory unit token: its multiplier, and its index in unit_names. */
static int64_t mem_unit(const char *t, size_t n, int *idx)
{
	int k;

	for (k = 0; k < 8; k++)
		if (strlen(unit_names[k]) == n && !memcmp(t, unit_names[k], n)) {
			*idx = k;
			return 1LL << (10 * (k % 4));
		}
	return 0;
}

/* "12.345", "-631.96", "800": a decimal number. */
static int is_num(const char *t, size_t n, double *v)
{
	size_t used;

	return parse_num(t, n, v, &used) == 0 && used == n && (t[0] != '+');
}

static int is_int_tok(const char *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i] < '0' || t[i] > '9')
			return 0;
	return n > 0;
}

/* "105.892us", "1.780ms", "3.2s", "0.00%", "NaN" */
static int is_time_or_pct(const char *t, size_t n)
{
	double v;

	if (n == 3 && !memcmp(t, "NaN", 3))
		return 1;
	if (n > 1 && t[n - 1] == '%')
		return is_num(t, n - 1, &v);
	if (n > 2 && (!memcmp(t + n - 2, "us", 2) || !memcmp(t + n - 2, "ms", 2)))
		return is_num(t, n - 2, &v);
	if (n > 1 && t[n - 1] == 's')
		return is_num(t, n - 1, &v);
	return 0;
}

/* Drop trailing spaces and an Input Shapes column ("[[3, 4], []]") from
 * the end of a row; -1 if its brackets do not balance. */
static int strip_shapes(const char *l, size_t *len)
{
	size_t n = *len, j;
	int depth = 0;

	while (n && (l[n - 1] == ' ' || l[n - 1] == '\r'))
		n--;
	if (n && l[n - 1] == ']') {
		for (j = n; j > 0;) {
			j--;
			if (l[j] == ']')
				depth++;
			else if (l[j] == '[' && --depth == 0)
				break;
		}
		if (depth)
			return -1;
		n = j;
		while (n && l[n - 1] == ' ')
			n--;
	}
	*len = n;
	return 0;
}

/* Read one row; 1 if l is a row of the table, 0 if not. *units gets the
 * memory unit spellings seen. */
static int parse_row(const char *l, size_t n, struct pf_row *r, unsigned *units)
{
	const char *tok[PF_MAXTOK];
	size_t tl[PF_MAXTOK], i = 0;
	int nt = 0, k, times = 0, pcts = 0;

	memset(r, 0, sizeof(*r));
	if (strip_shapes(l, &n) < 0)
		return 0;
	while (i < n) {
		while (i < n && l[i] == ' ')
			i++;
		if (i >= n)
			break;
		if (nt == PF_MAXTOK)
			return 0;
		tok[nt] = l + i;
		while (i < n && l[i] != ' ')
			i++;
		tl[nt] = (size_t)(l + i - tok[nt]);
		nt++;
	}
	k = nt - 1;
	/* a FLOPs column: "--" or a number after the call count */
	if (k >= 1 && ((tl[k] == 2 && !memcmp(tok[k], "--", 2)) ||
		       (memchr(tok[k], '.', tl[k]) && is_int_tok(tok[k - 1], tl[k - 1]))))
		k--;
	if (k < 1 || !is_int_tok(tok[k], tl[k]) || tl[k] > 18)
		return 0;
	if (parse_uint_commas(tok[k], tl[k], &r->calls, NULL) < 0)
		return 0;
	k--;
	/* memory values, right to left: "NUM UNIT" */
	{
		int64_t mem[4];
		char txt[4][24];
		int m = 0;
		while (k >= 1 && m < 4) {
			int ui;
			int64_t mult = mem_unit(tok[k], tl[k], &ui);
			double v;
			if (!mult || !is_num(tok[k - 1], tl[k - 1], &v))
				break;
			if (v > 9e18 / (double)mult || v < -9e18 / (double)mult)
				return 0;
			mem[m] = (int64_t)(v * (double)mult + (v < 0 ? -0.5 : 0.5));
			snprintf(txt[m], sizeof(txt[m]), "%.*s %.*s", (int)tl[k - 1], tok[k - 1],
				 (int)tl[k], tok[k]);
			*units |= 1u << ui;
			m++;
			k -= 2;
		}
		if (m != 0 && m != 2 && m != 4)
			return 0;
		r->nmem = m;
		for (i = 0; i < (size_t)m; i++) {  /* into left-to-right order */
			r->mem[i] = mem[m - 1 - i];
			memcpy(r->mem_txt[i], txt[m - 1 - i], sizeof(txt[0]));
		}
	}
	while (k >= 0 && is_time_or_pct(tok[k], tl[k])) {
		if (tok[k][tl[k] - 1] == '%')
			pcts++;
		else
			times++;
		k--;
	}
	if (k < 0 || pcts < 1 || times < 2)
		return 0;
	r->name = tok[0];
	r->name_len = (size_t)(tok[k] + tl[k] - tok[0]);
	return 1;
}

/* Remove "(Name pid=N) " process tags; returns the text after them. */
static const char *strip_tags(const char *l, size_t *n, char *tag, size_t cap)
{
	const char *close;

	tag[0] = 0;
	while (*n > 2 && l[0] == '(' && (close = memchr(l, ')', *n)) &&
	       mem_find(l, (size_t)(close - l), "pid=")) {
		copy_str(tag, cap, l, (size_t)(close - l) + 1);
		*n -= (size_t)(close - l) + 1;
		l = close + 1;
		while (*n && *l == ' ')
			l++, (*n)--;
	}
	return l;
}

static void keep_best(struct pf_best *b, int64_t v, int want_max, const struct pf_row *r,
		      const char *txt)
{
	if (b->set && (want_max ? v <= b->bytes : v >= b->bytes))
		return;
	b->set = 1;
	b->bytes = v;
	b->calls = r->calls;
	copy_str(b->op, sizeof(b->op), r->name, r->name_len);
	copy_str(b->txt, sizeof(b->txt), txt, strlen(txt));
}

static json_t *best_json(const struct pf_best *b)
{
	if (!b->set)
		return json_null();
	return json_pack("{s:s, s:I, s:s, s:I}", "operator", b->op, "bytes", (json_int_t)b->bytes,
			 "printed", b->txt, "calls", (json_int_t)b->calls);
}

/* A holder for one memory column of a row, when it is not zero. */
static int put_holder(struct pf_st *st, const struct pf_row *r, int col)
{
	struct ol_holder h;
	char label[128], column[32];
	int64_t id;

	if (!r->mem[col])
		return 0;
	memset(&h, 0, sizeof(h));
	h.tool = "torch_profiler";
	h.scope = col % 2 ? "self" : "inclusive";
	h.space = col >= 2 ? "device" : "host";
	h.device = OL_NULL;
	h.bytes = r->mem[col];
	h.allocations = OL_NULL;
	h.rank = st->rows;
	h.stack_id = OL_NULL;
	copy_str(label, sizeof(label), r->name, r->name_len);
	h.label = label;
	h.line = st->in->lineno;
	snprintf(column, sizeof(column), "%s%s Mem", col % 2 ? "Self " : "",
		 col >= 2 ? st->device : "CPU");
	h.data = json_pack("{s:s, s:I, s:s}", "printed", r->mem_txt[col], "calls",
			   (json_int_t)r->calls, "column", column);
	if (!h.data)
		return -1;
	id = sink_holder(st->s, &h);
	json_decref(h.data);
	if (id < 0)
		return -1;
	st->holders++;
	return 0;
}

static int table_row(struct pf_st *st, const struct pf_row *r)
{
	int c;

	if (!st->in_table) {
		st->in_table = 1;
		st->line = st->in->lineno;
	}
	st->rows++;
	if (r->nmem)
		st->mem_rows++;
	for (c = 0; c < r->nmem; c++) {
		keep_best(&st->top[c], r->mem[c], 1, r, r->mem_txt[c]);
		if (c == 1 && r->mem[c] < 0)
			keep_best(&st->min_self_cpu, r->mem[c], 0, r, r->mem_txt[c]);
		if (put_holder(st, r, c) < 0)
			return -1;
	}
	return 0;
}

static void table_reset(struct pf_st *st)
{
	st->in_table = st->has_header = st->rows = 0;
	st->units = 0;
	st->mem_rows = 0;
	memset(st->top, 0, sizeof(st->top));
	memset(&st->min_self_cpu, 0, sizeof(st->min_self_cpu));
	st->self_cpu_total_s = st->self_dev_total_s = -1;
	snprintf(st->device, sizeof(st->device), "CUDA");
}

static int table_end(struct pf_st *st)
{
	struct ol_event e;
	json_t *units;
	char summary[256];
	int k;
	int64_t id;

	if (!st->in_table || !st->rows) {
		table_reset(st);
		return 0;
	}
	units = json_array();
	for (k = 0; k < 8; k++)
		if (st->units & (1u << k))
			json_array_append_new(units, json_string(unit_names[k]));
	memset(&e, 0, sizeof(e));
	e.kind = vocab_event_kind(VE_TORCH_PROFILER_TABLE);
	e.t = ol_time_none();
	e.pid = OL_NULL;
	e.bytes = st->top[3].set ? st->top[3].bytes : OL_NULL;
	e.line = st->line;
	k = st->top[3].set && st->top[3].bytes > 0 ? 3 : st->top[1].set && st->top[1].bytes > 0 ? 1 : -1;
	snprintf(summary, sizeof(summary), "profiler table: %d operator%s", st->rows,
		 st->rows == 1 ? "" : "s");
	if (k >= 0)
		snprintf(summary + strlen(summary), sizeof(summary) - strlen(summary),
			 ", most Self %s Mem: %s %s", k == 3 ? st->device : "CPU", st->top[k].op,
			 st->top[k].txt);
	e.summary = summary;
	e.data = json_pack("{s:i, s:i, s:s, s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			   "rows", st->rows, "memory_rows", (int)st->mem_rows, "device", st->device,
			   "units", units, "header", st->has_header,
			   "wrapper", st->wrapper[0] ? json_string(st->wrapper) : json_null(),
			   "top_cpu_mem", best_json(&st->top[0]),
			   "top_self_cpu_mem", best_json(&st->top[1]),
			   "top_device_mem", best_json(&st->top[2]),
			   "top_self_device_mem", best_json(&st->top[3]),
			   "min_self_cpu_mem", best_json(&st->min_self_cpu),
			   "self_cpu_time_total_s", st->self_cpu_total_s >= 0
			   ? json_real(st->self_cpu_total_s) : json_null(),
			   "self_device_time_total_s", st->self_dev_total_s >= 0
			   ? json_real(st->self_dev_total_s) : json_null());
	if (!e.data)
		return -1;
	id = sink_event(st->s, &e);
	json_decref(e.data);
	if (id < 0)
		return -1;
	st->tables++;
	table_reset(st);
	return 0;
}

/* "Self CPU time total: 1.234s" / "Self CUDA time total: 5.6ms" */
static double total_time(const char *p, size_t n)
{
	double v;
	size_t used;

	while (n && *p == ' ')
		p++, n--;
	if (parse_num(p, n, &v, &used) < 0)
		return -1;
	if (used + 2 <= n && !memcmp(p + used, "us", 2))
		return v / 1e6;
	if (used + 2 <= n && !memcmp(p + used, "ms", 2))
		return v / 1e3;
	if (used + 1 <= n && p[used] == 's')
		return v;
	return -1;
}

/* A header line: the device's name from "Self XPU Mem". */
static int header_line(struct pf_st *st, const char *l, size_t n)
{
	const char *p = mem_find(l, n, "Self ");

	if (!mem_find(l, n, "Name") || !(mem_find(l, n, "Self CPU") || mem_find(l, n, "CPU total")))
		return 0;
	if (table_end(st) < 0)
		return -1;
	st->in_table = st->has_header = 1;
	st->line = st->in->lineno;
	while (p) {
		const char *q = p + 5, *e = q;
		while (e < l + n && e[0] >= 'A' && e[0] <= 'Z')
			e++;
		if (e + 4 <= l + n && !memcmp(e, " Mem", 4) && (e - q != 3 || memcmp(q, "CPU", 3)))
			copy_str(st->device, sizeof(st->device), q, (size_t)(e - q));
		p = mem_find(p + 5, (size_t)(l + n - p - 5), "Self ");
	}
	return 1;
}

int torch_profiler_parse(struct input *in, struct sink *s)
{
	struct pf_st st;
	struct pf_row r;
	const char *l, *p;
	size_t n;
	char tag[64];
	int rc;

	memset(&st, 0, sizeof(st));
	st.s = s;
	st.in = in;
	table_reset(&st);
	while (input_getline(in, &l, &n) == 1) {
		l = strip_tags(l, &n, tag, sizeof(tag));
		if ((p = mem_find(l, n, "Self CPU time total:"))) {
			st.self_cpu_total_s = total_time(p + 20, (size_t)(l + n - p - 20));
			continue;
		}
		if ((p = mem_find(l, n, " time total:")) && mem_find(l, (size_t)(p - l), "Self ")) {
			st.self_dev_total_s = total_time(p + 12, (size_t)(l + n - p - 12));
			if (table_end(&st) < 0)
				return -1;
			continue;
		}
		if ((rc = header_line(&st, l, n)) < 0)
			return -1;
		if (rc)
			continue;
		if (parse_row(l, n, &r, &st.units)) {
			if (!st.rows && tag[0])
				copy_str(st.wrapper, sizeof(st.wrapper), tag, strlen(tag));
			if (table_row(&st, &r) < 0)
				return -1;
		} else if (st.self_cpu_total_s >= 0 && st.rows) {
			if (table_end(&st) < 0)  /* a CPU-only table ends at its one total */
				return -1;
		}
	}
	if (table_end(&st) < 0)
		return -1;
	return st.tables + st.holders;
}

int torch_profiler_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head, *e = h + n, *l = h;
	int rows = 0, lines = 0;
	unsigned units = 0;
	struct pf_row r;
	char tag[64];

	if ((mem_find(h, n, "Self CPU Mem") || mem_find(h, n, "Self CUDA Mem")) &&
	    mem_find(h, n, "Name"))
		return 90;
	while (l < e && lines++ < 400 && rows < 2) {
		const char *nl = memchr(l, '\n', (size_t)(e - l));
		size_t len = nl ? (size_t)(nl - l) : (size_t)(e - l);
		const char *t = strip_tags(l, &len, tag, sizeof(tag));
		if (parse_row(t, len, &r, &units) && r.nmem)
			rows++;
		l = nl ? nl + 1 : e;
	}
	if (rows >= 1 && mem_find(h, n, "Self CPU %"))
		return 85;
	return rows >= 2 ? 75 : rows ? 55 : 0;
}
