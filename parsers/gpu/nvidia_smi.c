/*
 * nvidia_smi.c -- nvidia-smi CSV query logs into gpu.* series.
 *
 * A header line names the columns ("memory.used [MiB]"); it may come
 * again after a restart and then replaces the column list. Without any
 * header (noheader) the columns are told by their shape: a
 * "YYYY/MM/DD HH:MM:SS.mmm" time, a GPU-uuid, a small integer before any
 * size = index, other text = name, then the sizes in the documented
 * default order memory.used, memory.total, memory.free, memory.reserved,
 * and percentages utilization.gpu then utilization.memory (a warning says
 * so). Times are local wall clock without zone: OL_CLOCK_LOCAL unless
 * --tz was given. "[N/A]" and the other bracketed non-values are unknown
 * (no sample), never 0. A process_name column is meta
 * gpu.proc_name.<gpu>/pid:P, as the table form gives it.
 */
#include "parsers/gpu/nvidia_smi.h"
#include "parsers/common/seriesutil.h"
#include "lib/timeutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum col {
	C_OTHER, C_TS, C_INDEX, C_UUID, C_NAME, C_USED, C_TOTAL, C_FREE, C_RESERVED,
	C_UTIL, C_UTILMEM, C_PID, C_PNAME, C_PUSED
};

static const struct { const char *name; enum col col; } col_names[] = {
	{ "timestamp", C_TS }, { "index", C_INDEX }, { "uuid", C_UUID },
	{ "gpu_uuid", C_UUID }, { "name", C_NAME }, { "gpu_name", C_NAME },
	{ "memory.used", C_USED }, { "memory.total", C_TOTAL }, { "memory.free", C_FREE },
	{ "memory.reserved", C_RESERVED }, { "utilization.gpu", C_UTIL },
	{ "utilization.memory", C_UTILMEM }, { "pid", C_PID },
	{ "process_name", C_PNAME }, { "used_gpu_memory", C_PUSED },
	{ "used_memory", C_PUSED }, { "pci.bus_id", C_OTHER }, { "gpu_bus_id", C_OTHER },
	{ "driver_version", C_OTHER }, { "temperature.gpu", C_OTHER },
	{ "power.draw", C_OTHER }, { "count", C_OTHER }, { "serial", C_OTHER },
	{ "clocks.sm", C_OTHER }, { "pstate", C_OTHER }, { NULL, C_OTHER }
};

#define MAXCOL 48
#define MAXGPU 64
#define MAX_NAMES 512

struct smi_st {
	struct sink *s;
	struct input *in;
	int n;
	int ncol;
	enum col cols[MAXCOL];
	int header, guessed, warned_time, noted_local;
	uint64_t total_seen;                /* gpu.total_bytes.gpuN stored, N < 64 */
	char uuids[MAXGPU][48];             /* uuid -> index, from rows with both */
	int uuid_idx[MAXGPU];
	int nuuid;
	uint64_t names[MAX_NAMES];          /* hashes of gpu.proc_name meta stored */
	int nnames;
};

struct field { const char *p; size_t n; };

/* Split on "," and trim spaces. Returns the field count (<= MAXCOL). */
static int split(const char *l, size_t n, struct field *f)
{
	int k = 0;
	size_t i = 0, j;

	while (i <= n && k < MAXCOL) {
		for (j = i; j < n && l[j] != ','; j++)
			;
		f[k].p = l + i;
		f[k].n = j - i;
		while (f[k].n && (f[k].p[0] == ' ' || f[k].p[0] == '\t')) {
			f[k].p++;
			f[k].n--;
		}
		while (f[k].n && (f[k].p[f[k].n - 1] == ' ' || f[k].p[f[k].n - 1] == '\r'))
			f[k].n--;
		k++;
		i = j + 1;
	}
	return k;
}

/* The column a header field names ("memory.used [MiB]": the unit is not
 * part of the name); *known is 0 for a name not in col_names. */
static enum col col_of(const struct field *f, int *known)
{
	size_t n = f->n;
	const char *b = memchr(f->p, '[', n);
	int i;

	if (b)
		n = (size_t)(b - f->p);
	while (n && f->p[n - 1] == ' ')
		n--;
	for (i = 0; col_names[i].name; i++)
		if (strlen(col_names[i].name) == n && !memcmp(col_names[i].name, f->p, n)) {
			*known = 1;
			return col_names[i].col;
		}
	*known = 0;
	return C_OTHER;
}

/* "2025/11/29 18:22:40.123" -> wall ns, or OL_NULL. */
static int64_t read_ts(const struct field *f)
{
	int y, mo, d, h, mi, se, ms = 0;
	char buf[40];
	int64_t t;

	if (f->n < 19 || f->n >= sizeof(buf))
		return OL_NULL;
	memcpy(buf, f->p, f->n);
	buf[f->n] = 0;
	if (sscanf(buf, "%4d/%2d/%2d %2d:%2d:%2d.%3d", &y, &mo, &d, &h, &mi, &se, &ms) < 6)
		return OL_NULL;
	t = utc_ns(y, mo, d, h, mi, se, (long)ms * 1000000L);
	return t < 0 ? OL_NULL : t;
}

/* Is the whole field a non-negative integer (into *v)? */
static int is_int(const struct field *f, int64_t *v)
{
	size_t u;
	return parse_uint_commas(f->p, f->n, v, &u) == 0 && u == f->n;
}

/* Column roles of a header-less row, by shape (see the top comment). */
static void guess_cols(struct smi_st *st, const struct field *f, int k)
{
	static const enum col mem_order[] = { C_USED, C_TOTAL, C_FREE, C_RESERVED };
	static const enum col pct_order[] = { C_UTIL, C_UTILMEM };
	int i, nmem = 0, npct = 0, have_index = 0;
	int64_t v;

	for (i = 0; i < k; i++) {
		const struct field *x = &f[i];
		enum col c = C_OTHER;
		if (read_ts(x) != OL_NULL)
			c = C_TS;
		else if (x->n > 4 && !memcmp(x->p, "GPU-", 4))
			c = C_UUID;
		else if (x->n > 4 && !memcmp(x->p + x->n - 4, " MiB", 4))
			c = nmem < 4 ? mem_order[nmem++] : C_OTHER;
		else if (x->n > 2 && !memcmp(x->p + x->n - 2, " %", 2))
			c = npct < 2 ? pct_order[npct++] : C_OTHER;
		else if (is_int(x, &v) && v < 64 && !have_index && !nmem) {
			c = C_INDEX;
			have_index = 1;
		} else if (is_int(x, &v))
			c = nmem < 4 ? mem_order[nmem++] : C_OTHER;
		else if (x->n && x->p[0] != '[' && memchr(x->p, ':', x->n) == NULL)
			c = C_NAME;
		st->cols[i] = c;
	}
	st->ncol = k;
	st->guessed = 1;
}

/* A size column: "78012 MiB", or a bare number read as MiB (nvidia-smi
 * prints every memory field in MiB). OL_NULL for "[N/A]" and the like. */
static int64_t read_mib(const struct field *f)
{
	size_t u;
	int64_t b;
	double v;

	if (!f->n || f->p[0] == '[')
		return OL_NULL;
	b = parse_size(f->p, f->n, &u);
	if (b != OL_NULL && u == f->n)
		return b;
	if (parse_num(f->p, f->n, &v, &u) == 0 && u == f->n && v >= 0 && v < 1e12)
		return (int64_t)(v * 1048576.0);
	return OL_NULL;
}

/* A percentage field "87 %" or "87" into *v. 0, or -1 for "[N/A]" and
 * anything else. */
static int read_pct(const struct field *f, double *v)
{
	size_t u;

	if (!f->n || f->p[0] == '[' || parse_num(f->p, f->n, v, &u) < 0)
		return -1;
	while (u < f->n && f->p[u] == ' ')
		u++;
	return (u == f->n || (u + 1 == f->n && f->p[u] == '%')) ? 0 : -1;
}

/* Store one sample and count it. -1 when the sink failed. */
static int put(struct smi_st *st, const char *name, const char *unit, const char *entity,
	       const struct ol_time *t, double v)
{
	if (su_put_sample(st->s, name, unit, entity, t, v) < 0)
		return -1;
	st->n++;
	return 0;
}

/* The GPU index an earlier row gave uuid u, or -1. */
static int uuid_index(struct smi_st *st, const struct field *u)
{
	int i;

	for (i = 0; i < st->nuuid; i++)
		if (strlen(st->uuids[i]) == u->n && !memcmp(st->uuids[i], u->p, u->n))
			return st->uuid_idx[i];
	return -1;
}

/* The fields of one row by role (NULL: the row has no such column). */
struct row_fields {
	const struct field *ts, *idx, *uuid, *pid, *util, *pused, *pname;
	const struct field *mem[4];   /* used, total, free, reserved */
};

/* Point rf at the fields of a row of k fields f by the column list's roles
 * (the last column of a role wins). */
static void row_fields(const struct smi_st *st, const struct field *f, int k,
		       struct row_fields *rf)
{
	int i;

	memset(rf, 0, sizeof(*rf));
	for (i = 0; i < k; i++)
		switch (st->cols[i]) {
		case C_TS: rf->ts = &f[i]; break;
		case C_INDEX: rf->idx = &f[i]; break;
		case C_UUID: rf->uuid = &f[i]; break;
		case C_USED: rf->mem[0] = &f[i]; break;
		case C_TOTAL: rf->mem[1] = &f[i]; break;
		case C_FREE: rf->mem[2] = &f[i]; break;
		case C_RESERVED: rf->mem[3] = &f[i]; break;
		case C_UTIL: rf->util = &f[i]; break;
		case C_PID: rf->pid = &f[i]; break;
		case C_PUSED: rf->pused = &f[i]; break;
		case C_PNAME: rf->pname = &f[i]; break;
		default: break;
		}
}

/* The time of a row from its timestamp field ts (NULL: none, said once).
 * Returns 0 with *t set, 1 when the row is to be skipped (its time is
 * unreadable: an error was recorded), -1 when the sink failed. */
static int row_time(struct smi_st *st, const struct field *ts, struct ol_time *t)
{
	int64_t v;

	*t = ol_time_none();
	if (!ts) {
		if (!st->warned_time++ &&
		    sink_diagf(st->s, st->in->lineno, 0, OL_WARN,
			       "no timestamp column: samples have no time") < 0)
			return -1;
		return 0;
	}
	v = read_ts(ts);
	if (v == OL_NULL)
		return sink_diagf(st->s, st->in->lineno, 0, OL_ERROR,
				  "timestamp \"%.*s\" is not YYYY/MM/DD HH:MM:SS.mmm",
				  (int)(ts->n > 40 ? 40 : ts->n), ts->p) < 0 ? -1 : 1;
	*t = wall_time(st->s, v);
	return note_local_clock(st->s, t, &st->noted_local) < 0 ? -1 : 0;
}

/* The GPU of a row: its index, else the index its uuid had in an earlier
 * row (learned here), into gpu as "gpuN", else the uuid itself, else
 * "gpu0". Returns the index, or -1 when none is known. */
static int row_gpu(struct smi_st *st, const struct row_fields *rf, char *gpu, size_t n)
{
	const struct field *uuid = rf->uuid;
	int64_t v;
	int gi = -1;

	if (rf->idx && is_int(rf->idx, &v) && v < 1000000)
		gi = (int)v;
	if (gi < 0 && uuid)
		gi = uuid_index(st, uuid);
	if (gi >= 0 && uuid && uuid_index(st, uuid) < 0 && st->nuuid < MAXGPU) {
		copy_str(st->uuids[st->nuuid], sizeof(st->uuids[0]), uuid->p, uuid->n);
		st->uuid_idx[st->nuuid++] = gi;
	}
	if (gi >= 0)
		snprintf(gpu, n, "gpu%d", gi);
	else if (uuid && uuid->n)
		snprintf(gpu, n, "%.*s", (int)(uuid->n > 60 ? 60 : uuid->n), uuid->p);
	else
		snprintf(gpu, n, "gpu0");
	return gi;
}

/* The process name of entity ent as meta gpu.proc_name.<ent>, once per
 * file (a -l loop repeats every process each interval; past MAX_NAMES
 * distinct names nothing more is stored). -1 when the sink failed. */
static int proc_name(struct smi_st *st, const char *ent, const struct field *name)
{
	uint64_t h = 1469598103934665603ull;
	char key[128], val[256];
	const char *c;
	int i;

	snprintf(key, sizeof(key), "gpu.proc_name.%s", ent);
	copy_str(val, sizeof(val), name->p, name->n);
	for (c = key; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	for (c = val; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	for (i = 0; i < st->nnames; i++)
		if (st->names[i] == h)
			return 0;
	if (st->nnames >= MAX_NAMES)
		return 0;
	st->names[st->nnames++] = h;
	return sink_meta(st->s, key, val) < 0 ? -1 : 0;
}

/* A --query-compute-apps row: one process's memory on gpu. */
static int compute_app(struct smi_st *st, const struct row_fields *rf, const char *gpu,
		       const struct ol_time *t)
{
	char ent[96];
	int64_t v;

	if (!rf->pid || !is_int(rf->pid, &v))
		return sink_diagf(st->s, st->in->lineno, 0, OL_WARN,
				  "compute-apps row without a pid: skipped") < 0 ? -1 : 0;
	snprintf(ent, sizeof(ent), "%s/pid:%lld", gpu, (long long)v);
	if (rf->pname && rf->pname->n && proc_name(st, ent, rf->pname) < 0)
		return -1;
	if (rf->pused && (v = read_mib(rf->pused)) != OL_NULL)
		return put(st, "gpu.proc_used_bytes", "bytes", ent, t, (double)v);
	return 0;
}

/* A --query-gpu row: the card's memory columns and utilization. */
static int gpu_memory(struct smi_st *st, const struct row_fields *rf, const char *gpu,
		      int gi, const struct ol_time *t)
{
	static const char *const names[4] = {
		"gpu.used_bytes", "gpu.total_bytes", "gpu.free_bytes", "gpu.reserved_bytes"
	};
	char val[32];
	int64_t v;
	double d;
	int i;

	for (i = 0; i < 4; i++) {
		if (!rf->mem[i] || (v = read_mib(rf->mem[i])) == OL_NULL)
			continue;
		if (put(st, names[i], "bytes", gpu, t, (double)v) < 0)
			return -1;
		if (i == 1 && gi >= 0) {
			snprintf(val, sizeof(val), "%lld", (long long)v);
			if (note_gpu_total(st->s, &st->total_seen, (unsigned)gi, val) < 0)
				return -1;
		}
	}
	if (rf->util && read_pct(rf->util, &d) == 0 &&
	    put(st, "gpu.util_percent", "%", gpu, t, d) < 0)
		return -1;
	return 0;
}

/* One data row of k fields. A row whose field count is not the header's
 * is skipped with a warning. -1 when the sink failed. */
static int row(struct smi_st *st, const struct field *f, int k)
{
	struct row_fields rf;
	struct ol_time t;
	char gpu[64];
	int gi, r;

	if (k != st->ncol)
		return sink_diagf(st->s, st->in->lineno, 0, OL_WARN,
				  "%d fields where the header has %d: row skipped", k,
				  st->ncol) < 0 ? -1 : 0;
	row_fields(st, f, k, &rf);
	if ((r = row_time(st, rf.ts, &t)))
		return r < 0 ? -1 : 0;
	gi = row_gpu(st, &rf, gpu, sizeof(gpu));
	if (rf.pid || rf.pused)
		return compute_app(st, &rf, gpu, &t);
	return gpu_memory(st, &rf, gpu, gi, &t);
}

int nvidia_smi_parse(struct input *in, struct sink *s)
{
	struct smi_st st;
	struct field f[MAXCOL];
	const char *l;
	size_t n;
	int k, i, known, nknown;

	memset(&st, 0, sizeof(st));
	st.s = s;
	st.in = in;
	while (input_getline(in, &l, &n) == 1) {
		n = trim_end(l, n);
		if (!n || mem_find(l, n, "No running processes found") ||
		    mem_find(l, n, "No devices were found"))
			continue;
		k = split(l, n, f);
		for (i = nknown = 0; i < k; i++) {
			col_of(&f[i], &known);
			nknown += known;
		}
		if (nknown && nknown * 2 >= k) {  /* a header (again) */
			for (i = 0; i < k; i++)
				st.cols[i] = col_of(&f[i], &known);
			st.ncol = k;
			st.header = 1;
			continue;
		}
		if (!st.header && !st.guessed) {
			guess_cols(&st, f, k);
			if (sink_diagf(s, in->lineno, 0, OL_WARN,
				       "no CSV header (noheader): columns told by their shape;"
				       " sizes taken in the order memory.used, memory.total,"
				       " memory.free") < 0)
				return -1;
		}
		if (row(&st, f, k) < 0)
			return -1;
	}
	return st.n;
}

int nvidia_smi_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;
	size_t l = first_line_len(h, n);
	struct field f[MAXCOL];
	int k, i, known, nknown = 0, has_mem = 0;

	k = split(h, l, f);
	for (i = 0; i < k; i++) {
		enum col c = col_of(&f[i], &known);
		nknown += known;
		has_mem |= c == C_USED || c == C_TOTAL || c == C_FREE || c == C_PUSED ||
			   c == C_PID;
	}
	if (nknown >= 2 && has_mem && nknown * 2 >= k)
		return 90;
	/* noheader: "2025/11/29 18:22:40.123, 0, ..., 78012 MiB, ..." */
	if (k >= 3 && read_ts(&f[0]) != OL_NULL && mem_find(h, l, " MiB"))
		return 80;
	return 0;
}
