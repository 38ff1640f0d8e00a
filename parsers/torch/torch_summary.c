/*
 * torch_summary.c -- torch.cuda.memory_summary() tables into the
 * allocator statistics of parsers/torch/torch_memfigs.h.
 *
 * The table (torch/cuda/memory.py, memory_summary) is 77 columns of
 * "|...|": a title "PyTorch CUDA memory summary, device ID N", the
 * counters "CUDA OOMs: N | cudaMalloc retries: N", then one block per
 * metric, each its "all" row and, unless abbreviated, the "from large
 * pool" / "from small pool" rows, with the columns Cur Usage, Peak Usage,
 * Tot Alloc, Tot Freed. Sizes are `_format_size`: the integer part of
 * bytes divided by 1024 per step, printed "B", "KB", "MB", "GB" before
 * 2.0 and "B", "KiB", "MiB", "GiB" after: both spellings are powers of
 * 1024. Counts are `_format_count`: steps of 1000, "K", "M". So a cell is
 * a lower bound: the stored value is the printed number times its unit,
 * the true value is below one more unit (kept per key in the event's
 * "resolution").
 *
 * Read anywhere in a log: the first '|' of a line starts the table text
 * (ComfyUI's "Memory summary: " prefix, Ray and vLLM process tags), two
 * table lines glued together ("|===||  PyTorch ...|") are split again,
 * several tables follow each other (one per device), and an excerpt that
 * starts or stops inside a table keeps what it has (marked partial).
 * The cudaMallocAsync OOM message printed above a table ("... would exceed
 * allowed memory", "Requested : 576.00 MiB") goes with it into the event.
 */
#include "parsers/torch/torch_summary.h"
#include "parsers/torch/torch_memfigs.h"
#include "parsers/common/seriesutil.h"
#include "lib/timeutil.h"

#include <stdio.h>
#include <string.h>

/* A metric block: its row name and the memory_stats stat it prints. */
static const struct { const char *name, *stat; int is_size; } ms_blocks[] = {
	{ "Allocated memory", "allocated_bytes", 1 },
	{ "Active memory", "active_bytes", 1 },
	{ "Requested memory", "requested_bytes", 1 },
	{ "GPU reserved memory", "reserved_bytes", 1 },
	{ "Non-releasable memory", "inactive_split_bytes", 1 },
	{ "Allocations", "allocation", 0 },
	{ "Active allocs", "active", 0 },
	{ "GPU reserved segments", "segment", 0 },
	{ "Non-releasable allocs", "inactive_split", 0 },
	{ "Oversize allocations", "oversize_allocations", 0 },
	{ "Oversize GPU segments", "oversize_segments", 0 },
	{ NULL, NULL, 0 }
};

static const char *const ms_cols[4] = { "current", "peak", "allocated", "freed" };

struct ms_st {
	struct sink *s;
	struct input *in;
	int count;               /* tables stored */
	int block;               /* index into ms_blocks of the current block, -1 none */
	int block_pool_rows;     /* pool rows seen in the current block */
	int blocks, pool_blocks; /* blocks seen, blocks with pool rows */
	int titled, closed;      /* the table had its title / its closing rule */
	int in_table;
	int64_t device;
	uint64_t line;
	json_t *stats, *res, *oom;
	uint64_t oom_line;       /* where the OOM message was, 0 none */
	struct ol_time t;        /* the last capture separator's time */
};

/* "  1062 MB ", "   545    ", "  1 K ": value and its unit in bytes (or
 * 1 for counts). 0 if the cell is one. */
static int read_cell(const char *c, size_t n, int is_size, int64_t *v, int64_t *unit)
{
	static const struct { const char *u; int64_t m; } units[] = {
		{ "B", 1 }, { "KiB", 1LL << 10 }, { "KB", 1LL << 10 }, { "MiB", 1LL << 20 },
		{ "MB", 1LL << 20 }, { "GiB", 1LL << 30 }, { "GB", 1LL << 30 },
		{ "TiB", 1LL << 40 }, { "TB", 1LL << 40 }, { "PiB", 1LL << 50 },
		{ "PB", 1LL << 50 }, { NULL, 0 }
	};
	int64_t x;
	size_t used, i, k;

	while (n && c[n - 1] == ' ')
		n--;
	if (parse_uint_commas(c, n, &x, &used) < 0)
		return -1;
	i = used;
	while (i < n && c[i] == ' ')
		i++;
	*unit = 1;
	if (is_size) {
		for (k = 0; units[k].u; k++)
			if (n - i == strlen(units[k].u) && !memcmp(c + i, units[k].u, n - i))
				break;
		if (!units[k].u)
			return -1;
		*unit = units[k].m;
	} else if (i < n) {
		if (n - i != 1 || (c[i] != 'K' && c[i] != 'M'))
			return -1;
		*unit = c[i] == 'K' ? 1000 : 1000000;
	}
	if (x > INT64_MAX / *unit)
		return -1;
	*v = x * *unit;
	return 0;
}

static void table_reset(struct ms_st *st)
{
	json_decref(st->stats);
	json_decref(st->res);
	st->stats = st->res = NULL;
	st->block = -1;
	st->block_pool_rows = st->blocks = st->pool_blocks = 0;
	st->titled = st->closed = st->in_table = 0;
	st->device = OL_NULL;
	st->line = 0;
}

static int table_begin(struct ms_st *st)
{
	if (st->in_table)
		return 0;
	st->stats = json_object();
	st->res = json_object();
	if (!st->stats || !st->res)
		return -1;
	st->in_table = 1;
	st->line = st->in->lineno;
	return 0;
}

/* The table read so far becomes a dump. */
static int table_flush(struct ms_st *st)
{
	struct tm_dump d;
	int r;

	if (!st->in_table)
		return 0;
	memset(&d, 0, sizeof(d));
	d.stats = st->stats;
	d.resolution = st->res;
	d.source = "memory_summary";
	d.form = st->blocks > 0 && st->pool_blocks == 0 && st->blocks >= 2
		 ? "table_abbreviated" : "table";
	d.device = st->device;
	d.index = st->count;
	d.partial = !st->titled || !st->closed;
	d.line = st->line;
	d.t = st->t;
	if (st->oom) {
		d.extra = json_pack("{s:O}", "oom", st->oom);
		if (!d.extra)
			return -1;
	}
	r = tm_emit(st->s, &d);
	json_decref(d.extra);
	if (r > 0) {
		st->count++;
		json_decref(st->oom);
		st->oom = NULL;
	}
	table_reset(st);
	return r < 0 ? -1 : 0;
}

static int set_stat(struct ms_st *st, const char *key, int64_t v, int64_t unit)
{
	if (json_object_set_new(st->stats, key, json_integer(v)) < 0)
		return -1;
	if (unit > 1 && json_object_set_new(st->res, key, json_integer(unit)) < 0)
		return -1;
	return 0;
}

/* "| Allocated memory      |    1062 MB |    4877 MB |   89299 MB |   88237 MB |" */
static int table_row(struct ms_st *st, const char *l, size_t n)
{
	const char *cell[6];
	size_t len[6], i, k = 0, start = 1;
	const char *name;
	size_t nl;
	const char *pool = "all";
	int b, c;

	for (i = 1; i < n && k < 6; i++)
		if (l[i] == '|') {
			cell[k] = l + start;
			len[k++] = i - start;
			start = i + 1;
		}
	if (k != 5)
		return 0;
	name = cell[0];
	nl = len[0];
	while (nl && *name == ' ')
		name++, nl--;
	while (nl && name[nl - 1] == ' ')
		nl--;
	if (nl == 15 && !memcmp(name, "from large pool", 15)) {
		pool = "large_pool";
	} else if (nl == 15 && !memcmp(name, "from small pool", 15)) {
		pool = "small_pool";
	} else {
		for (b = 0; ms_blocks[b].name; b++)
			if (strlen(ms_blocks[b].name) == nl && !memcmp(ms_blocks[b].name, name, nl))
				break;
		if (nl == 6 && !memcmp(name, "Metric", 6))
			return 0;  /* the column header */
		st->block = ms_blocks[b].name ? b : -1;
		st->block_pool_rows = 0;
		if (st->block < 0)
			return 0;  /* a row oomlens does not know (a fork's own) */
		st->blocks++;
	}
	if (st->block < 0)
		return 0;
	if (strcmp(pool, "all") && st->block_pool_rows++ == 0)
		st->pool_blocks++;
	if (table_begin(st) < 0)
		return -1;
	for (c = 0; c < 4; c++) {
		char key[96];
		int64_t v, unit;
		if (read_cell(cell[c + 1], len[c + 1], ms_blocks[st->block].is_size, &v, &unit) < 0) {
			if (sink_diagf(st->s, st->in->lineno, 0, OL_WARN,
				       "memory_summary: %s %s: cell \"%.*s\" is not a %s",
				       ms_blocks[st->block].name, ms_cols[c], (int)len[c + 1],
				       cell[c + 1], ms_blocks[st->block].is_size ? "size" : "count") < 0)
				return -1;
			continue;
		}
		snprintf(key, sizeof(key), "%s.%s.%s", ms_blocks[st->block].stat, pool, ms_cols[c]);
		if (set_stat(st, key, v, unit) < 0)
			return -1;
	}
	return 0;
}

/* "CUDA OOMs: 1" / "cudaMalloc retries: 6": the integer after the label. */
static int counter(struct ms_st *st, const char *l, size_t n, const char *label,
		   const char *key)
{
	const char *p = mem_find(l, n, label);
	int64_t v;

	if (!p)
		return 0;
	p += strlen(label);
	if (parse_uint_commas(p, (size_t)(l + n - p), &v, NULL) < 0)
		return 0;
	if (table_begin(st) < 0)
		return -1;
	return set_stat(st, key, v, 1);
}

/* One "|...|" line of a table. */
static int table_line(struct ms_st *st, const char *l, size_t n)
{
	const char *p;

	if (n >= 3 && l[1] == '=' && l[2] == '=') {
		/* a double rule: under the title's counters, or the table's end */
		if (st->in_table && st->blocks > 0) {
			st->closed = 1;
			return table_flush(st);
		}
		return 0;
	}
	if (n >= 3 && l[1] == '-' && l[2] == '-') {
		st->block = -1;  /* a single rule ends a block */
		return 0;
	}
	if ((p = mem_find(l, n, "memory summary, device ID "))) {
		int64_t dev;
		if (table_flush(st) < 0 || table_begin(st) < 0)
			return -1;
		st->titled = 1;
		p += 26;
		if (parse_uint_commas(p, (size_t)(l + n - p), &dev, NULL) == 0)
			st->device = dev;
		return 0;
	}
	if (mem_find(l, n, "CUDA OOMs:") || mem_find(l, n, "Malloc retries:"))
		return counter(st, l, n, "CUDA OOMs:", "num_ooms") < 0 ||
		       counter(st, l, n, "Malloc retries:", "num_alloc_retries") < 0 ? -1 : 0;
	return table_row(st, l, n);
}

/* The cudaMallocAsync OOM message above a table: "Requested : 576.00 MiB". */
static int oom_line(struct ms_st *st, const char *l, size_t n)
{
	static const struct { const char *label, *key; } f[] = {
		{ "Currently allocated", "allocated_bytes" }, { "Requested", "requested_bytes" },
		{ "Device limit", "device_limit_bytes" }, { "Free (according to CUDA)", "free_bytes" },
		{ NULL, NULL }
	};
	const char *colon = memchr(l, ':', n);
	size_t i, k;

	if (mem_find(l, n, "would exceed allowed memory")) {
		json_decref(st->oom);
		st->oom = json_object();
		st->oom_line = st->in->lineno;
		if (!st->oom)
			return -1;
		for (i = 0; i + 7 < n && memcmp(l + i, "device ", 7); i++)
			;
		if (i + 7 < n) {
			int64_t dev;
			if (parse_uint_commas(l + i + 7, n - i - 7, &dev, NULL) == 0)
				json_object_set_new(st->oom, "device", json_integer(dev));
		}
		return 0;
	}
	if (!st->oom || !colon || st->in->lineno > st->oom_line + 12)
		return 0;
	for (k = 0; f[k].label; k++) {
		size_t ll = strlen(f[k].label);
		int64_t v;
		if (n >= ll && !memcmp(l, f[k].label, ll)) {
			v = parse_size(colon + 1, (size_t)(l + n - colon - 1), NULL);
			if (v != OL_NULL)
				json_object_set_new(st->oom, f[k].key, json_integer(v));
			return 0;
		}
	}
	return 0;
}

/* Every table line is "|" + 75 columns + "|". */
#define MS_WIDTH 77

/* A line that ends with one or more whole table lines (glued together, or
 * after a prefix): each in order. */
static int whole_lines(struct ms_st *st, const char *l, size_t n)
{
	size_t start = n;
	const char *bar;

	while (start >= MS_WIDTH && l[start - 1] == '|' && l[start - MS_WIDTH] == '|')
		start -= MS_WIDTH;
	if (start) {
		bar = memchr(l, '|', start);
		if (oom_line(st, l, bar ? (size_t)(bar - l) : start) < 0)
			return -1;
	}
	for (; start < n; start += MS_WIDTH)
		if (table_line(st, l + start, MS_WIDTH) < 0)
			return -1;
	return 0;
}

int torch_summary_parse(struct input *in, struct sink *s)
{
	struct ms_st st;
	struct capsep sep;
	const char *l, *bar;
	size_t n;
	int r;

	memset(&st, 0, sizeof(st));
	st.s = s;
	st.in = in;
	st.t = ol_time_none();
	table_reset(&st);
	while ((r = input_getline(in, &l, &n)) == 1) {
		while (n && (l[n - 1] == ' ' || l[n - 1] == '\r'))
			n--;
		if (capsep_parse(l, n, &sep)) {
			if (table_flush(&st) < 0)
				goto fail;
			st.t = capsep_time(&sep);
			continue;
		}
		bar = memchr(l, '|', n);
		if (!bar) {
			if (oom_line(&st, l, n) < 0)
				goto fail;
			continue;
		}
		if (n >= MS_WIDTH && l[n - 1] == '|' && l[n - MS_WIDTH] == '|') {
			/* the table's own width from the end: a prefix with '|'
			 * in it ("INFO | rank0 | ...") cannot mislead */
			if (whole_lines(&st, l, n) < 0)
				goto fail;
			continue;
		}
		if (oom_line(&st, l, (size_t)(bar - l)) < 0)
			goto fail;
		n -= (size_t)(bar - l);
		l = bar;
		/* one line, or several glued: "|===...===||   PyTorch ...|" */
		while (n >= 2) {
			const char *glue = mem_find(l + 1, n - 1, "||");
			size_t seg = glue ? (size_t)(glue - l) + 1 : n;
			if (l[seg - 1] == '|' && table_line(&st, l, seg) < 0)
				goto fail;
			l += seg;
			n -= seg;
		}
	}
	if (table_flush(&st) < 0)
		goto fail;
	json_decref(st.oom);
	return st.count;
fail:
	table_reset(&st);
	json_decref(st.oom);
	return -1;
}

int torch_summary_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;

	if (mem_find(h, n, "memory summary, device ID ") && mem_find(h, n, "Cur Usage"))
		return 95;
	if (mem_find(h, n, "memory summary, device ID "))
		return 85;
	if ((mem_find(h, n, "|       from large pool |") || mem_find(h, n, "| Allocated memory ") ||
	     mem_find(h, n, "| GPU reserved memory ") || mem_find(h, n, "| Non-releasable allocs ") ||
	     mem_find(h, n, "| Oversize GPU segments ")) &&
	    mem_find(h, n, "|------------------"))
		return 80;
	return 0;
}
