/*
 * nvidia_smi_table.c -- the box-drawn `nvidia-smi` table into gpu.*
 * series and meta; see nvidia_smi_table.h.
 *
 * A table is read line by line, each line cleaned of paste damage first
 * (colours, markdown quotes). Its parts:
 *
 *   +-----------------------------------------------------------------+
 *   | NVIDIA-SMI 550.163.01   Driver Version: 550.163.01   CUDA Version: 12.4 |
 *   |---------------------+-------------------+-----------------------+
 *   | GPU  Name  Persistence-M | Bus-Id  Disp.A | Volatile Uncorr. ECC |   column names
 *   |=====================+===================+=======================|
 *   |   0  NVIDIA GeForce RTX 4090  Off | 00000000:4E:00.0 Off | Off |   index, name, bus id
 *   | 30%  29C  P8  22W / 450W |  507MiB / 24564MiB | 0%  Default |    memory, utilization
 *   +---------------------+-------------------+-----------------------+
 *   | Processes:                                                      |
 *   |  GPU   GI   CI   PID   Type   Process name          GPU Memory |  (GI, CI from 450)
 *   |    0  N/A  N/A  10734    C   /usr/bin/python3          160MiB |
 *
 * A MIG-enabled card adds a "MIG devices:" box between the two, whose
 * rows (instances, not GPUs) are passed over.
 * The newest drivers say "KMD Version" / "CUDA UMD Version"; a part
 * without its own memory (GB10) prints "Not Supported" (no sample: the
 * size is unknown, not 0). The table has no time of its own: the samples
 * take the time of a date line ("Wed Jul 29 21:51:11 2020", as nvidia-smi
 * prints above the table) met at most STAMP_LINES lines before it, as
 * local wall clock; without one they have no time.
 */
#include "parsers/gpu/nvidia_smi_table.h"
#include "parsers/common/seriesutil.h"
#include "parsers/common/textclean.h"
#include "lib/timeutil.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <string.h>

#define LINE_MAX_READ 2048
#define STAMP_LINES 4     /* a date line this close before a table is its time */
#define MAX_TOK 24
#define MAX_SEEN 512      /* distinct name meta remembered (past this, not stored) */

enum where { W_NONE, W_HEAD, W_GPUS, W_MIG, W_PROCS };

/* The state of one file. */
struct tbl_st {
	struct sink *s;
	int n;                     /* records stored */
	enum where where;
	int gpu;                   /* index of the GPU block being read, -1 */
	int procs_gi;              /* the Processes header has GI/CI columns */
	struct ol_time pend;       /* the last date line's time ... */
	int pend_age;              /* ... and how many lines ago */
	struct ol_time t;          /* the current table's time */
	int noted_local;
	uint64_t total_seen;       /* gpu.total_bytes.gpuN stored */
	uint64_t seen[MAX_SEEN];   /* hashes of the name meta stored: `nvidia-smi -l`
				    * prints the same table every interval */
	int nseen;
	char driver[48], cuda[48]; /* last stored (a table read again repeats them) */
	char line[LINE_MAX_READ];
};

struct tok { const char *p; size_t n; };

/* Split [p, e) on blanks into at most MAX_TOK tokens. */
static int tokens(const char *p, const char *e, struct tok *t)
{
	int k = 0;

	while (p < e && k < MAX_TOK) {
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= e)
			break;
		t[k].p = p;
		while (p < e && *p != ' ' && *p != '\t')
			p++;
		t[k].n = (size_t)(p - t[k].p);
		k++;
	}
	return k;
}

/* Is token t a whole non-negative integer (into *v)? */
static int tok_int(const struct tok *t, int64_t *v)
{
	size_t u;

	return parse_uint_commas(t->p, t->n, v, &u) == 0 && u == t->n;
}

static int tok_is(const struct tok *t, const char *s)
{
	return t->n == strlen(s) && !memcmp(t->p, s, t->n);
}

/* Count a record the sink returned id for; -1 when it failed. */
static int counted(struct tbl_st *st, int64_t id)
{
	if (id < 0)
		return -1;
	st->n++;
	return 0;
}

/* Store meta key = val once per file. -1 when the sink failed. */
static int meta(struct tbl_st *st, const char *key, const char *val)
{
	uint64_t h = 1469598103934665603ull;
	const char *c;
	int i;

	for (c = key; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	h = (h ^ '=') * 1099511628211ull;
	for (c = val; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	for (i = 0; i < st->nseen; i++)
		if (st->seen[i] == h)
			return 0;
	if (st->nseen >= MAX_SEEN)
		return 0;
	st->seen[st->nseen++] = h;
	return counted(st, sink_meta(st->s, key, val));
}

static int sample(struct tbl_st *st, const char *name, const char *unit, const char *ent,
		  double v)
{
	if (su_put_sample(st->s, name, unit, ent, &st->t, v) < 0)
		return -1;
	st->n++;
	return 0;
}

/* A ctime date "Www Mmm dd HH:MM:SS YYYY" anywhere in [p, e) (the line
 * nvidia-smi prints above its table, or watch's header): its wall-clock
 * ns, or OL_NULL. */
static int64_t date_in(const char *p, const char *e)
{
	const char *q;
	int d, h, mi, se, y, mon;

	for (q = p; q + 24 <= e; q++) {
		char buf[32];
		if (q[3] != ' ' || q[7] != ' ' || !(mon = month_from_name(q + 4, 3)))
			continue;
		memcpy(buf, q + 8, 16);
		buf[16] = 0;
		if (sscanf(buf, "%2d %2d:%2d:%2d %4d", &d, &h, &mi, &se, &y) == 5 && y > 1990 &&
		    q[13] == ':' && q[16] == ':') {
			int64_t t = utc_ns(y, mon, d, h, mi, se, 0);
			if (t >= 0)
				return t;
		}
	}
	return OL_NULL;
}

/* The text after label in [p, e) up to the next run of two blanks or a
 * '|' into dst ("Driver Version: 550.163.01   CUDA..." -> "550.163.01"). */
static int label_value(const char *p, const char *e, const char *label, char *dst, size_t n)
{
	const char *c = mem_find(p, (size_t)(e - p), label), *v, *ve;

	if (!c)
		return 0;
	v = c + strlen(label);
	while (v < e && *v == ' ')
		v++;
	for (ve = v; ve < e && *ve != '|' && *ve != ' '; ve++)
		;
	if (ve == v)
		return 0;
	copy_str(dst, n, v, (size_t)(ve - v));
	return 1;
}

/* The header line: driver and CUDA versions as meta (once each value). */
static int header_line(struct tbl_st *st, const char *p, const char *e)
{
	char v[48];

	if ((label_value(p, e, "Driver Version:", v, sizeof(v)) ||
	     label_value(p, e, "KMD Version:", v, sizeof(v))) &&
	    su_put_meta_changed(st->s, st->driver, sizeof(st->driver), "cuda.driver_version", v) < 0)
		return -1;
	if ((label_value(p, e, "CUDA UMD Version:", v, sizeof(v)) ||
	     label_value(p, e, "CUDA Version:", v, sizeof(v))) &&
	    su_put_meta_changed(st->s, st->cuda, sizeof(st->cuda), "cuda.version", v) < 0)
		return -1;
	st->n++;
	return 0;
}

/* The cells of a table line "| a | b | c |" into c (at most 4). */
static int cells(const char *p, const char *e, struct tok *c)
{
	int k = 0;

	if (p < e && *p == '|')
		p++;
	while (p < e && k < 4) {
		const char *q = memchr(p, '|', (size_t)(e - p));
		if (!q)
			break;
		c[k].p = p;
		c[k].n = (size_t)(q - p);
		k++;
		p = q + 1;
	}
	return k;
}

/* First line of a GPU block: "   0  NVIDIA GeForce RTX 4090   Off " and
 * its bus-id cell: the index becomes the current GPU; name and bus id
 * are meta. 1 when the cell is such a line, 0 not, -1 sink failure. */
static int gpu_first_line(struct tbl_st *st, const struct tok *c, int nc)
{
	struct tok t[MAX_TOK];
	int k = tokens(c[0].p, c[0].p + c[0].n, t), last;
	int64_t idx;
	char key[48], val[128];
	const char *ne;

	if (k < 2 || !tok_int(&t[0], &idx) || idx > 1023)
		return 0;
	st->gpu = (int)idx;
	last = k - 1;
	if (last > 1 && (tok_is(&t[last], "On") || tok_is(&t[last], "Off") ||
			 tok_is(&t[last], "WDDM") || tok_is(&t[last], "TCC")))
		last--;
	ne = t[last].p + t[last].n;
	snprintf(key, sizeof(key), "gpu.name.gpu%d", st->gpu);
	copy_str(val, sizeof(val), t[1].p, (size_t)(ne - t[1].p));
	if (meta(st, key, val) < 0)
		return -1;
	if (nc > 1 && (k = tokens(c[1].p, c[1].p + c[1].n, t)) >= 1 && memchr(t[0].p, ':', t[0].n)) {
		snprintf(key, sizeof(key), "gpu.pci_bus_id.gpu%d", st->gpu);
		copy_str(val, sizeof(val), t[0].p, t[0].n);
		if (meta(st, key, val) < 0)
			return -1;
	}
	return 1;
}

/* "  507MiB /  24564MiB " into used and total bytes; 0 when the cell is
 * not that (e.g. "Not Supported"). */
static int mem_cell(const struct tok *c, int64_t *used, int64_t *total)
{
	const char *p = c->p, *e = c->p + c->n, *sl = memchr(p, '/', c->n);
	size_t u;

	if (!sl)
		return 0;
	*used = parse_size(p, (size_t)(sl - p), &u);
	if (*used == OL_NULL)
		return 0;
	*total = parse_size(sl + 1, (size_t)(e - sl - 1), &u);
	return *total != OL_NULL;
}

/* A line inside the GPU blocks. -1 when the sink failed. */
static int gpu_line(struct tbl_st *st, const char *p, const char *e)
{
	struct tok c[4], t[MAX_TOK];
	int nc = cells(p, e, c), r, k;
	int64_t used, total;
	char ent[32], val[32];
	double util;
	size_t u;

	if (nc < 2)
		return 0;
	if ((r = gpu_first_line(st, c, nc)))
		return r < 0 ? -1 : 0;
	if (st->gpu < 0 || !mem_cell(&c[1], &used, &total))
		return 0;
	snprintf(ent, sizeof(ent), "gpu%d", st->gpu);
	if (sample(st, vocab_series_name(VS_GPU_USED_BYTES), "bytes", ent, (double)used) < 0 ||
	    sample(st, vocab_series_name(VS_GPU_TOTAL_BYTES), "bytes", ent, (double)total) < 0)
		return -1;
	snprintf(val, sizeof(val), "%lld", (long long)total);
	if (note_gpu_total(st->s, &st->total_seen, (unsigned)st->gpu, val) < 0)
		return -1;
	if (nc > 2 && (k = tokens(c[2].p, c[2].p + c[2].n, t)) >= 1 && t[0].n > 1 &&
	    t[0].p[t[0].n - 1] == '%' && parse_num(t[0].p, t[0].n - 1, &util, &u) == 0 &&
	    u == t[0].n - 1 && sample(st, vocab_series_name(VS_GPU_UTIL_PERCENT), "%", ent,
			util) < 0)
		return -1;
	return 0;
}

/* Is t a process type column (C, G, M, C+G, M+C, ...)? */
static int type_tok(const struct tok *t)
{
	size_t i;

	if (!t->n || t->n > 5)
		return 0;
	for (i = 0; i < t->n; i++)
		if (!strchr("CGM+", t->p[i]))
			return 0;
	return 1;
}

/* A row of the Processes box: "GPU [GI CI] PID Type Process-name Memory".
 * The name may hold blanks; it is what lies between the type and the
 * memory column. -1 when the sink failed. */
static int process_row(struct tbl_st *st, const char *p, const char *e)
{
	struct tok t[MAX_TOK];
	int k, i = 1;
	int64_t gpu, pid, bytes;
	const char *ns, *ne;
	char ent[64], key[96], name[256];
	size_t u;

	while (p < e && *p == '|')
		p++;
	while (e > p && (e[-1] == '|' || e[-1] == ' '))
		e--;
	k = tokens(p, e, t);
	if (k < 4 || !tok_int(&t[0], &gpu) || gpu > 1023)
		return 0;
	/* GI and CI (450+): "N/A" or instance ids before the pid */
	if (k >= 6 && (st->procs_gi || tok_is(&t[1], "N/A")) && !type_tok(&t[2]))
		i = 3;
	if (i + 2 >= k || !tok_int(&t[i], &pid) || !type_tok(&t[i + 1]))
		return 0;
	ns = t[i + 1].p + t[i + 1].n;
	ne = t[k - 1].p;
	bytes = parse_size(t[k - 1].p, t[k - 1].n, &u);
	if (bytes == OL_NULL || u != t[k - 1].n) {
		if (!tok_is(&t[k - 1], "N/A"))
			return 0;   /* cut before its memory column */
	}
	while (ns < ne && *ns == ' ')
		ns++;
	while (ne > ns && ne[-1] == ' ')
		ne--;
	snprintf(ent, sizeof(ent), "gpu%lld/pid:%lld", (long long)gpu, (long long)pid);
	if (ne > ns) {
		copy_str(name, sizeof(name), ns, (size_t)(ne - ns));
		snprintf(key, sizeof(key), "gpu.proc_name.%s", ent);
		if (meta(st, key, name) < 0)
			return -1;
	}
	if (bytes != OL_NULL && sample(st, vocab_series_name(VS_GPU_PROC_USED_BYTES), "bytes",
			ent, (double)bytes) < 0)
		return -1;
	return 0;
}

/* The start of a table (its top border or, when the paste lost it, its
 * header line): the time of a date line just before it. */
static int table_start(struct tbl_st *st)
{
	st->where = W_HEAD;
	st->gpu = -1;
	st->t = ol_time_none();
	if (st->pend.clock != OL_CLOCK_NONE && st->pend_age <= STAMP_LINES)
		st->t = st->pend;
	st->pend = ol_time_none();
	return note_local_clock(st->s, &st->t, &st->noted_local);
}

/* One cleaned line [p, e) starting with '|' or '+'. -1 when the sink failed. */
static int table_line(struct tbl_st *st, const char *p, const char *e)
{
	size_t n = (size_t)(e - p);

	if (*p == '+') {            /* a border: a table starts, or a box ends */
		if (st->where == W_NONE)
			return table_start(st);
		return 0;
	}
	if (mem_find(p, n, "NVIDIA-SMI ")) {
		if (st->where == W_NONE && table_start(st) < 0)
			return -1;
		return header_line(st, p, e);
	}
	if (mem_find(p, n, "MIG devices:")) {      /* its rows are instances, not GPUs */
		st->where = W_MIG;
		return 0;
	}
	if (mem_find(p, n, "Processes:")) {
		if (st->where == W_NONE && table_start(st) < 0)
			return -1;
		st->where = W_PROCS;
		st->procs_gi = 0;
		return 0;
	}
	if (n > 3 && p[1] == '=' && p[2] == '=') {   /* "|====" under column names */
		if (st->where == W_HEAD)
			st->where = W_GPUS;
		return 0;
	}
	if (st->where == W_PROCS) {
		if (mem_find(p, n, " PID ") || mem_find(p, n, "Process name")) {
			st->procs_gi |= mem_find(p, n, " GI ") != NULL;
			return 0;
		}
		return process_row(st, p, e);
	}
	if (st->where == W_GPUS)
		return gpu_line(st, p, e);
	return 0;
}

int nvidia_smi_table_parse(struct input *in, struct sink *s)
{
	struct tbl_st st;
	const char *l, *p, *e;
	size_t n;
	int64_t d;

	memset(&st, 0, sizeof(st));
	st.s = s;
	st.gpu = -1;
	st.pend = ol_time_none();
	st.t = ol_time_none();
	while (input_getline(in, &l, &n) == 1) {
		n = text_clean(l, n, st.line, sizeof(st.line), TC_ANSI | TC_QUOTE);
		p = st.line;
		e = p + trim_end(p, n);
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		st.pend_age++;
		if (p < e && (*p == '|' || *p == '+')) {
			if (table_line(&st, p, e) < 0)
				return -1;
			continue;
		}
		if (p < e && st.where != W_NONE)
			st.where = W_NONE;     /* text after a table ends it */
		if ((d = date_in(p, e)) != OL_NULL) {
			st.pend = wall_time(s, d);
			st.pend_age = 0;
		}
	}
	return st.n;
}

int nvidia_smi_table_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;

	if (mem_find(h, n, "| NVIDIA-SMI ") && (mem_find(h, n, "Driver Version:") ||
						 mem_find(h, n, "KMD Version:")))
		return 85;
	if (mem_find(h, n, "| Processes:") && mem_find(h, n, "Process name"))
		return 70;
	return 0;
}
