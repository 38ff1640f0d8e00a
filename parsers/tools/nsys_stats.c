/*
 * nsys_stats.c -- `nsys stats` text tables on CUDA memory into one
 * nsys_stats event per table.
 *
 * A report is announced by "Processing [x.sqlite] with [.../NAME.py]...",
 * "[i/n] Executing 'NAME' stats report" (under `nsys profile --stats`) or
 * " ** TITLE (NAME):", then a header of columns separated by two or more
 * spaces, a dashed rule, and right-aligned rows whose last column is the
 * name ("[CUDA memcpy Host-to-Device]", "cudaMalloc"). Numbers may carry
 * thousands separators. Reports read: the memory-operation sums by size
 * (gpumemsizesum, cuda_gpu_mem_size_sum: "Total (MB)", ...) and by time
 * (gpumemtimesum, cuda_gpu_mem_time_sum), and the CUDA API sum
 * (cudaapisum, cuda_api_sum: the cudaMalloc/cudaFree/cudaMemcpy... rows and
 * the top API). Other reports are recognised and skipped. A table whose
 * header the excerpt lost is told by its rows' shape (eight numbers and a
 * "[CUDA ...]" name: by time; seven: by size), marked inferred.
 *
 * "MB" is kept as printed (keys ending _mb): NVIDIA's report scripts could
 * not be read to tell 10^6 from 2^20.
 */
#include "parsers/tools/nsys_stats.h"
#include "parsers/common/seriesutil.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_MAXCOL 16
#define NS_MAXROWS 64

enum ns_kind { K_NONE, K_SIZE, K_TIME, K_API, K_OTHER };

struct ns_st {
	struct sink *s;
	struct input *in;
	int tables;
	enum ns_kind kind;
	char report[64];
	int inferred;
	int ncol;
	char cols[NS_MAXCOL][24];    /* field keys of the columns, name last */
	int in_rows, rule_seen;
	uint64_t line;
	json_t *data, *rows;
	int nrows;
	char top[128];
	int runs;                    /* tables of this report name so far */
	char last_report[64];
};

/* The kind of a report from its name. */
static enum ns_kind kind_of(const char *name)
{
	if (!strcmp(name, "gpumemsizesum") || !strcmp(name, "cuda_gpu_mem_size_sum"))
		return K_SIZE;
	if (!strcmp(name, "gpumemtimesum") || !strcmp(name, "cuda_gpu_mem_time_sum"))
		return K_TIME;
	if (!strcmp(name, "cudaapisum") || !strcmp(name, "cuda_api_sum"))
		return K_API;
	return K_OTHER;
}

/* A header cell's field key: "Total Time (ns)" -> total_time_ns. */
static void col_key(char *dst, size_t cap, const char *c, size_t n)
{
	static const struct { const char *h, *k; } map[] = {
		{ "Time (%)", "time_pct" }, { "Time(%)", "time_pct" },
		{ "Total Time (ns)", "total_time_ns" }, { "Num Calls", "count" },
		{ "Count", "count" }, { "Instances", "count" }, { "Calls", "count" },
		{ "Avg (ns)", "avg_ns" }, { "Average (ns)", "avg_ns" }, { "Med (ns)", "med_ns" },
		{ "Min (ns)", "min_ns" }, { "Max (ns)", "max_ns" }, { "StdDev (ns)", "stddev_ns" },
		{ "Total (MB)", "total_mb" }, { "Avg (MB)", "avg_mb" }, { "Med (MB)", "med_mb" },
		{ "Min (MB)", "min_mb" }, { "Max (MB)", "max_mb" }, { "StdDev (MB)", "stddev_mb" },
		{ "Name", "name" }, { "Operation", "name" }, { NULL, NULL }
	};
	int k;

	for (k = 0; map[k].h; k++)
		if (strlen(map[k].h) == n && !memcmp(map[k].h, c, n)) {
			copy_str(dst, cap, map[k].k, strlen(map[k].k));
			return;
		}
	copy_str(dst, cap, "other", 5);
}

/* Short name of a memory operation, or NULL. */
static const char *op_of(const char *name)
{
	if (strstr(name, "HtoD") || strstr(name, "Host-to-Device"))
		return strstr(name, "Unified") ? NULL : "htod";
	if (strstr(name, "DtoH") || strstr(name, "Device-to-Host"))
		return strstr(name, "Unified") ? NULL : "dtoh";
	if (strstr(name, "DtoD") || strstr(name, "Device-to-Device"))
		return "dtod";
	if (strstr(name, "PtoP") || strstr(name, "Peer-to-Peer"))
		return "p2p";
	if (strstr(name, "[CUDA memset]"))
		return "memset";
	return NULL;
}

static int is_mem_api(const char *name)
{
	return strstr(name, "Malloc") || strstr(name, "Free") || strstr(name, "Memcpy") ||
	       strstr(name, "Memset") || strstr(name, "MemPool") || strstr(name, "MemAlloc") ||
	       strstr(name, "cuMemCreate") || strstr(name, "cuMemMap");
}

static void table_reset(struct ns_st *st)
{
	json_decref(st->data);
	json_decref(st->rows);
	st->data = st->rows = NULL;
	st->in_rows = st->rule_seen = st->nrows = st->ncol = 0;
	st->top[0] = 0;
	st->inferred = 0;
}

static int table_end(struct ns_st *st)
{
	struct ol_event e;
	char line[200];
	int64_t id;

	if (!st->data || !st->nrows) {
		table_reset(st);
		return 0;
	}
	if (!strcmp(st->report, st->last_report))
		st->runs++;
	else
		st->runs = 1;
	copy_str(st->last_report, sizeof(st->last_report), st->report, strlen(st->report));
	json_object_set_new(st->data, "report", json_string(st->report));
	json_object_set_new(st->data, "report_inferred", json_boolean(st->inferred));
	json_object_set_new(st->data, "run", json_integer(st->runs));
	json_object_set_new(st->data, "row_count", json_integer(st->nrows));
	json_object_set(st->data, "rows", st->rows);
	if (st->kind == K_API)
		json_object_set_new(st->data, "top_api", st->top[0] ? json_string(st->top) : json_null());
	memset(&e, 0, sizeof(e));
	e.kind = vocab_event_kind(VE_NSYS_STATS);
	e.t = ol_time_none();
	e.pid = OL_NULL;
	e.bytes = OL_NULL;
	e.line = st->line;
	snprintf(line, sizeof(line), "nsys stats %s: %d rows%s%s", st->report, st->nrows,
		 st->top[0] ? ", first " : "", st->top);
	e.summary = line;
	e.data = st->data;
	id = sink_event(st->s, &e);
	table_reset(st);
	if (id < 0)
		return -1;
	st->tables++;
	return 0;
}

/* Columns separated by two or more spaces. Returns the count. */
static int split_cols(const char *l, size_t n, const char **c, size_t *cl, int max)
{
	size_t i = 0;
	int k = 0;

	while (i < n && k < max) {
		while (i < n && l[i] == ' ')
			i++;
		if (i >= n)
			break;
		c[k] = l + i;
		while (i < n && !(l[i] == ' ' && (i + 1 >= n || l[i + 1] == ' ')))
			i++;
		cl[k] = (size_t)(l + i - c[k]);
		k++;
	}
	return k;
}

static int header_line(struct ns_st *st, const char *l, size_t n)
{
	const char *c[NS_MAXCOL];
	size_t cl[NS_MAXCOL];
	int k = split_cols(l, n, c, cl, NS_MAXCOL), i;

	if (k < 3 || (!mem_find(l, n, "(ns)") && !mem_find(l, n, "(MB)")))
		return 0;
	if (table_end(st) < 0)
		return -1;
	st->ncol = k;
	for (i = 0; i < k; i++)
		col_key(st->cols[i], sizeof(st->cols[i]), c[i], cl[i]);
	if (st->kind == K_NONE) {
		st->kind = mem_find(l, n, "(MB)") ? K_SIZE : K_OTHER;
		if (st->kind == K_SIZE)
			copy_str(st->report, sizeof(st->report), "cuda_gpu_mem_size_sum", 21);
		st->inferred = 1;
	}
	st->line = st->in->lineno;
	return 1;
}

/* A cell as printed: an integer, or a decimal. */
static json_t *number(double v, int integral)
{
	return integral ? json_integer((json_int_t)v) : json_real(v);
}

/* A row: ncol-1 numbers, then the name. */
static int row_line(struct ns_st *st, const char *l, size_t n)
{
	double v[NS_MAXCOL];
	int integral[NS_MAXCOL];
	char name[128];
	json_t *row;
	size_t i = 0, used;
	int k, nnum = st->ncol ? st->ncol - 1 : NS_MAXCOL - 1;
	const char *op;

	for (k = 0; k < nnum; k++) {
		char buf[48];
		size_t o = 0;
		while (i < n && l[i] == ' ')
			i++;
		if (i >= n || !((l[i] >= '0' && l[i] <= '9') || l[i] == '-'))
			break;
		while (i < n && l[i] != ' ' && o + 1 < sizeof(buf)) {
			if (l[i] != ',')
				buf[o++] = l[i];
			i++;
		}
		buf[o] = 0;
		if (parse_num(buf, o, &v[k], &used) < 0 || used != o)
			return 0;
		integral[k] = !memchr(buf, '.', o) && !memchr(buf, 'e', o) && v[k] < 9e15 && v[k] > -9e15;
	}
	while (i < n && l[i] == ' ')
		i++;
	if (k < 5 || i >= n || (st->ncol && k != st->ncol - 1))
		return 0;
	copy_str(name, sizeof(name), l + i, n - i);
	if (!st->ncol) {
		/* no header: the shape says which table */
		if (strncmp(name, "[CUDA ", 6) || (k != 8 && k != 7))
			return 0;
		static const char *const tcols[] = { "time_pct", "total_time_ns", "count", "avg_ns",
			"med_ns", "min_ns", "max_ns", "stddev_ns" };
		static const char *const scols[] = { "total_mb", "count", "avg_mb", "med_mb",
			"min_mb", "max_mb", "stddev_mb" };
		st->ncol = k + 1;
		for (i = 0; i < (size_t)k; i++)
			copy_str(st->cols[i], sizeof(st->cols[i]), k == 8 ? tcols[i] : scols[i],
				 strlen(k == 8 ? tcols[i] : scols[i]));
		copy_str(st->cols[k], sizeof(st->cols[k]), "name", 4);
		st->kind = k == 8 ? K_TIME : K_SIZE;
		copy_str(st->report, sizeof(st->report), k == 8 ? "cuda_gpu_mem_time_sum"
			 : "cuda_gpu_mem_size_sum", 21);
		st->inferred = 1;
		st->line = st->in->lineno;
	}
	if (!st->data && (!(st->data = json_object()) || !(st->rows = json_array())))
		return -1;
	if (!st->nrows++)
		copy_str(st->top, sizeof(st->top), name, strlen(name));
	if (st->kind == K_OTHER || (st->kind == K_API && !is_mem_api(name)))
		return 1;
	row = json_object();
	json_object_set_new(row, "name", ol_json_strn(name, strlen(name)));
	for (i = 0; i < (size_t)k; i++)
		json_object_set_new(row, st->cols[i], number(v[i], integral[i]));
	if (st->nrows <= NS_MAXROWS)
		json_array_append(st->rows, row);
	/* flat figures: htod_total_mb, cudaMalloc_calls, ... */
	op = st->kind == K_API ? name : op_of(name);
	for (i = 0; op && i < (size_t)k; i++) {
		char key[160];
		const char *c = st->cols[i];
		if (!strcmp(c, "other") || !strcmp(c, "time_pct"))
			continue;
		snprintf(key, sizeof(key), "%s_%s", op,
			 st->kind == K_API && !strcmp(c, "count") ? "calls" :
			 st->kind == K_TIME && !strcmp(c, "count") ? "count" : c);
		if (!json_object_get(st->data, key))
			json_object_set_new(st->data, key, number(v[i], integral[i]));
	}
	json_decref(row);
	return 1;
}

/* A line that names a report. */
static int report_line(struct ns_st *st, const char *l, size_t n)
{
	const char *p, *q;
	char name[64];

	name[0] = 0;
	if ((p = mem_find(l, n, "/reports/")) && (q = mem_find(p, (size_t)(l + n - p), ".py]")))
		copy_str(name, sizeof(name), p + 9, (size_t)(q - p - 9));
	else if ((p = mem_find(l, n, "Executing '")) && (q = memchr(p + 11, '\'', (size_t)(l + n - p - 11))))
		copy_str(name, sizeof(name), p + 11, (size_t)(q - p - 11));
	else if ((p = mem_find(l, n, " ** ")) && n > 3 && l[n - 1] == ':' && l[n - 2] == ')' &&
		 (q = memrchr(l, '(', n)))
		copy_str(name, sizeof(name), q + 1, (size_t)(l + n - q - 3));
	else if (mem_find(l, n, "CUDA API Statistics:"))
		copy_str(name, sizeof(name), "cudaapisum", 10);
	else if (mem_find(l, n, "CUDA Memory Operation Statistics (by size"))
		copy_str(name, sizeof(name), "gpumemsizesum", 13);
	else if (mem_find(l, n, "CUDA Memory Operation Statistics (by time"))
		copy_str(name, sizeof(name), "gpumemtimesum", 13);
	if (!name[0])
		return 0;
	if (st->report[0] && !strcmp(name, st->report) && !st->nrows && st->kind != K_NONE)
		return 1;  /* the same report named twice ("Processing", then " ** ") */
	if (table_end(st) < 0)
		return -1;
	copy_str(st->report, sizeof(st->report), name, strlen(name));
	st->kind = kind_of(name);
	st->ncol = 0;
	return 1;
}

/* " --------  ---------------  ...": dashes and spaces only. */
static int is_rule(const char *l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (l[i] != ' ' && l[i] != '-')
			return 0;
	return mem_find(l, n, "---") != NULL;
}

int nsys_stats_parse(struct input *in, struct sink *s)
{
	struct ns_st st;
	const char *l;
	size_t n;
	int r;

	memset(&st, 0, sizeof(st));
	st.s = s;
	st.in = in;
	while (input_getline(in, &l, &n) == 1) {
		while (n && (l[n - 1] == ' ' || l[n - 1] == '\r'))
			n--;
		if ((r = report_line(&st, l, n)) < 0)
			goto fail;
		if (r)
			continue;
		if (n > 3 && is_rule(l, n)) {
			st.rule_seen = 1;
			continue;
		}
		if ((r = header_line(&st, l, n)) < 0)
			goto fail;
		if (r)
			continue;
		if (!n) {
			if (st.nrows && table_end(&st) < 0)
				goto fail;
			continue;
		}
		if ((r = row_line(&st, l, n)) < 0)
			goto fail;
		if (!r && st.nrows && table_end(&st) < 0)
			goto fail;
	}
	if (table_end(&st) < 0)
		goto fail;
	return st.tables;
fail:
	table_reset(&st);
	return -1;
}

int nsys_stats_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;

	int cols = mem_find(h, n, "(ns)") || mem_find(h, n, "(MB)");

	/* a report's own names; the generic announcements ("... stats
	 * report", an nsight-systems path) only with a table's columns: a
	 * note that mentions a memray "stats report" is no nsys output */
	if (mem_find(h, n, "(cuda_gpu_mem_") || mem_find(h, n, "(gpumemsizesum)") ||
	    mem_find(h, n, "(cuda_api_sum)") || mem_find(h, n, "CUDA API Statistics:"))
		return cols ? 90 : 60;
	if ((mem_find(h, n, "nsight-systems") || mem_find(h, n, "' stats report")) && cols)
		return 90;
	if (mem_find(h, n, "[CUDA memcpy ") && (mem_find(h, n, "(ns)") || mem_find(h, n, "(MB)") ||
						 mem_find(h, n, "  ---")))
		return 75;
	return 0;
}
