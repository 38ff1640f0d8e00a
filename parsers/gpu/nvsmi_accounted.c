/*
 * nvsmi_accounted.c -- nvidia-smi --query-accounted-apps CSV into the
 * peak GPU memory of each accounted process; see nvsmi_accounted.h.
 *
 * The header names the columns ("pid, max_memory_usage [MiB], ..."); a
 * header met again (the command run twice into one file) replaces them.
 * A row's value may carry its unit ("4989 MiB", "14193 ms") or not
 * (nounits); "[N/A]", "[Not Supported]" and the like are unknown: no
 * record, never 0.
 */
#include "parsers/gpu/nvsmi_accounted.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

#define MAXCOL 24

enum acol { A_OTHER, A_PID, A_MAXMEM, A_BUS, A_UUID, A_NAME, A_TIME };

struct afield {
	const char *p;
	size_t n;
};

struct acct {
	struct sink *s;
	int ncol;
	enum acol cols[MAXCOL];
	int n;                 /* records */
};

/* Split a CSV line at commas into f (at most MAXCOL), blanks trimmed.
 * Returns the count. nvidia-smi quotes nothing: a name holds no comma. */
static int split(const char *l, size_t n, struct afield *f)
{
	size_t i = 0;
	int k = 0;

	while (i <= n && k < MAXCOL) {
		size_t s = i, e;
		while (i < n && l[i] != ',')
			i++;
		e = i;
		while (s < e && (l[s] == ' ' || l[s] == '\t'))
			s++;
		while (e > s && (l[e - 1] == ' ' || l[e - 1] == '\t' || l[e - 1] == '\r'))
			e--;
		f[k].p = l + s;
		f[k].n = e - s;
		k++;
		i++;
	}
	return k;
}

/* A header field's column: its name up to " [unit]". */
static enum acol col_of(const struct afield *f)
{
	static const struct { const char *name; enum acol col; } names[] = {
		{ "pid", A_PID }, { "max_memory_usage", A_MAXMEM }, { "gpu_bus_id", A_BUS },
		{ "gpu_uuid", A_UUID }, { "gpu_name", A_NAME }, { "time", A_TIME },
	};
	size_t n = 0, i;

	while (n < f->n && f->p[n] != ' ' && f->p[n] != '[')
		n++;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == n && !memcmp(f->p, names[i].name, n))
			return names[i].col;
	return A_OTHER;
}

/* 1 when the line is an accounted-apps header: "pid" and
 * "max_memory_usage" among its fields. */
static int is_header(const char *l, size_t n)
{
	struct afield f[MAXCOL];
	int k = split(l, n, f), i, pid = 0, mem = 0;

	for (i = 0; i < k; i++) {
		enum acol c = col_of(&f[i]);
		pid |= c == A_PID;
		mem |= c == A_MAXMEM;
	}
	return pid && mem;
}

/* A whole number at the start of f ("4989", "4989 MiB"); -1 when the
 * field is not one ("[N/A]"). *unit: what follows it, trimmed. */
static long long number_of(const struct afield *f, const char **unit, size_t *ulen)
{
	long long v = 0;
	size_t i = 0;

	if (!f->n || f->p[0] < '0' || f->p[0] > '9')
		return -1;
	while (i < f->n && f->p[i] >= '0' && f->p[i] <= '9') {
		if (v > (1LL << 50))
			return -1;
		v = v * 10 + (f->p[i++] - '0');
	}
	while (i < f->n && f->p[i] == ' ')
		i++;
	*unit = f->p + i;
	*ulen = f->n - i;
	return v;
}

/* Bytes of a max_memory_usage field (MiB unless it says otherwise); -1
 * when unknown. */
static long long bytes_of(const struct afield *f)
{
	const char *u;
	size_t un;
	long long v = number_of(f, &u, &un);

	int shift = -1;

	if (v < 0)
		return -1;
	if (un == 3 && !memcmp(u, "KiB", 3))
		shift = 10;
	else if (un == 3 && !memcmp(u, "GiB", 3))
		shift = 30;
	else if (un == 0 || (un == 3 && !memcmp(u, "MiB", 3)))
		shift = 20;
	/* a figure past int64 in bytes is no process's memory */
	if (shift < 0 || v > (LLONG_MAX >> shift))
		return -1;
	return v << shift;
}

static int put_meta(struct acct *a, enum vocab_meta m, const char *var, long long v)
{
	char key[300], val[32];

	snprintf(key, sizeof(key), "%s%s", vocab_meta_key(m), var);
	snprintf(val, sizeof(val), "%lld", v);
	if (sink_meta(a->s, key, val) < 0)
		return -1;
	a->n++;
	return 0;
}

/* One data row. Returns 0, or -1 when the sink failed. */
static int row(struct acct *a, const char *l, size_t n, uint64_t lineno)
{
	struct afield f[MAXCOL], *pid = NULL, *mem = NULL, *card = NULL, *tm = NULL;
	char var[200];
	const char *u;
	size_t un;
	long long p, b, ms;
	int k = split(l, n, f), i, rank = 0;

	for (i = 0; i < k && i < a->ncol; i++) {
		switch (a->cols[i]) {
		case A_PID: pid = &f[i]; break;
		case A_MAXMEM: mem = &f[i]; break;
		case A_TIME: tm = &f[i]; break;
		case A_BUS: card = &f[i]; rank = 3; break;
		case A_UUID: if (rank < 2) { card = &f[i]; rank = 2; } break;
		case A_NAME: if (rank < 1) { card = &f[i]; rank = 1; } break;
		default: break;
		}
	}
	if (!pid || !mem || (p = number_of(pid, &u, &un)) < 0 || un) {
		return sink_diagf(a->s, lineno, 0, OL_WARN, "line %llu: expected a row of %d"
				  " fields with a pid and a max_memory_usage; skipped",
				  (unsigned long long)lineno, a->ncol) < 0 ? -1 : 0;
	}
	if ((b = bytes_of(mem)) < 0)
		return 0;  /* [N/A]: accounting knew no peak for it */
	snprintf(var, sizeof(var), "%.*s/pid:%lld", card && card->n ? (int)(card->n > 120 ? 120 : card->n) : 3,
		 card && card->n ? card->p : "gpu", p);
	if (put_meta(a, VM_GPU_PROC_PEAK_BYTES, var, b) < 0)
		return -1;
	if (tm && (ms = number_of(tm, &u, &un)) >= 0 && (un == 0 || (un == 2 && !memcmp(u, "ms", 2))))
		return put_meta(a, VM_GPU_PROC_RUNTIME_MS, var, ms);
	return 0;
}

int nvsmi_accounted_parse(struct input *in, struct sink *s)
{
	struct acct a = { s, 0, { A_OTHER }, 0 };
	const char *line;
	size_t len;
	int rc;

	while ((rc = input_getline(in, &line, &len)) == 1) {
		if (!len || (len == 1 && line[0] == '\r'))
			continue;
		if (is_header(line, len)) {
			struct afield f[MAXCOL];
			int i;
			a.ncol = split(line, len, f);
			for (i = 0; i < a.ncol; i++)
				a.cols[i] = col_of(&f[i]);
			continue;
		}
		if (!a.ncol) {
			if (sink_diagf(s, in->lineno, 0, OL_WARN, "line %llu: a row before any header;"
				       " skipped", (unsigned long long)in->lineno) < 0)
				return -1;
			continue;
		}
		if (row(&a, line, len, in->lineno) < 0)
			return -1;
	}
	if (rc < 0 && sink_diagf(s, in->lineno, 0, OL_ERROR, "read error after line %llu",
				 (unsigned long long)in->lineno) < 0)
		return -1;
	return a.n;
}

int nvsmi_accounted_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head, *nl = memchr(h, '\n', n);

	return is_header(h, nl ? (size_t)(nl - h) : n) ? 95 : 0;
}
