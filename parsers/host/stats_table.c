/*
 * stats_table.c -- docker stats and kubectl top tables as samples of each
 * container's, pod's or node's memory in use (see stats_table.h).
 *
 * A header line names the table: docker's has the words MEM and USAGE
 * (or USAGE/LIMIT) and starts with CONTAINER or NAME; kubectl's has a
 * word MEMORY(bytes). The entity is found by the header's first words;
 * docker's figure is the first size after the entity (CPU % before it is
 * a percentage, never a size), kubectl's is the word under MEMORY(bytes)
 * (names hold no blanks, so words line up). A header seen again starts
 * the next table. Lines of any other shape (a prompt, a `watch` clock, a
 * stopped container's "--") are skipped, never guessed at.
 */
#include "parsers/host/stats_table.h"
#include "parsers/common/textclean.h"
#include "parsers/common/seriesutil.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ST_WORDS 24

enum st_kind { ST_NONE, ST_DOCKER, ST_KUBE };

struct st_cols {
	enum st_kind kind;
	int name;        /* the entity's column */
	int sub;         /* kubectl --containers: the container's column, -1 none */
	int mem;         /* kubectl: MEMORY(bytes)'s column */
	const char *pfx; /* "container", "pod", "node" */
};

/* Whether w[0..k) is a docker stats or kubectl top header; fills *out
 * only when it is. */
static int header(char **w, int k, struct st_cols *out)
{
	struct st_cols cc, *c = &cc;
	int i, mem = -1, pod = -1, node = 0, musage = 0;

	for (i = 0; i < k; i++) {
		if (!strcmp(w[i], "MEMORY(bytes)") && mem < 0)
			mem = i;
		else if (!strcmp(w[i], "POD"))
			pod = i;
		else if (!strcmp(w[i], "CPU%") || !strcmp(w[i], "CPU(%)") ||
			 !strcmp(w[i], "MEMORY%") || !strcmp(w[i], "MEMORY(%)"))
			node = 1;
		else if (!strcmp(w[i], "MEM") && i + 1 < k && !strncmp(w[i + 1], "USAGE", 5))
			musage = 1;
		else if (w[i][0] >= '0' && w[i][0] <= '9')
			return 0;
	}
	c->sub = -1;
	c->mem = mem;
	if (mem > 0) {
		c->kind = ST_KUBE;
		c->pfx = node ? "node" : "pod";
		c->name = 0;   /* NAME, or NAMESPACE / POD before NAME */
		if (pod == 0 && k > 1 && !strcmp(w[1], "NAME"))
			c->sub = 1;
		else if (!strcmp(w[0], "NAMESPACE") && k > 1 && !strcmp(w[1], "NAME"))
			c->sub = 1;
		else if (strcmp(w[0], "NAME"))
			return 0;
		*out = cc;
		return 1;
	}
	if (!musage)
		return 0;
	c->kind = ST_DOCKER;
	c->pfx = "container";
	if (!strcmp(w[0], "CONTAINER") && k > 2 && !strcmp(w[1], "ID"))
		c->name = !strcmp(w[2], "NAME") ? 1 : 0;   /* CONTAINER ID NAME, or ID alone */
	else if (!strcmp(w[0], "CONTAINER") || !strcmp(w[0], "NAME"))
		c->name = 0;
	else
		return 0;
	c->mem = -1;
	*out = cc;
	return 1;
}

/* A unit word's bytes: go-units' binary suffixes (B KiB MiB GiB TiB, as
 * BytesSize prints them), its decimal ones (kB MB GB TB), and kubectl's
 * quantities (Ki Mi Gi Ti). 0 when u is not one. */
static double unit_of(const char *u, size_t n)
{
	static const struct { const char *u; double b; } t[] = {
		{ "B", 1 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
		{ "TiB", 1099511627776.0 }, { "kB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 },
		{ "TB", 1e12 }, { "Ki", 1024.0 }, { "Mi", 1048576.0 }, { "Gi", 1073741824.0 },
		{ "Ti", 1099511627776.0 }, { NULL, 0 }
	};
	int i;

	for (i = 0; t[i].u; i++)
		if (strlen(t[i].u) == n && !strncmp(u, t[i].u, n))
			return t[i].b;
	return 0;
}

/* The size that w (and next, when w is a bare number: docker 1.x's "41.16
 * MiB/994") states, in bytes; a '/' ends the size ("1.8MiB/31GiB").
 * kube: a bare whole number is bytes (a quantity without suffix).
 * Returns -1 when w is not a size. */
static double size_of(const char *w, const char *next, int kube)
{
	char *end;
	double v;
	size_t n;

	if (*w < '0' || *w > '9')
		return -1;
	v = strtod(w, &end);
	n = strcspn(end, "/");
	if (n == 0 && !*end && kube)
		return strchr(w, '.') ? -1 : v;
	if (n == 0 && !*end && next)   /* the unit is the next word */
		return unit_of(next, strcspn(next, "/")) > 0 ?
		       v * unit_of(next, strcspn(next, "/")) : -1;
	if (n == 0 || (end[n] && end[n] != '/'))
		return -1;
	return unit_of(end, n) > 0 ? v * unit_of(end, n) : -1;
}

/* A row's entity (into ent, size en) and memory in bytes; -1 when w[0..k)
 * is not a row of table c. */
static double row(const struct st_cols *c, char **w, int k, char *ent, size_t en)
{
	double b = -1;
	int i;

	if (c->kind == ST_NONE || k <= c->name)
		return -1;
	if (c->kind == ST_KUBE) {
		if (k <= c->mem || (b = size_of(w[c->mem], NULL, 1)) < 0)
			return -1;
	} else {
		for (i = c->name + 1; i < k && b < 0; i++)
			if (strchr(w[i], '%'))
				continue;
			else
				b = size_of(w[i], i + 1 < k ? w[i + 1] : NULL, 0);
		if (b < 0)
			return -1;
	}
	if (c->sub >= 0 && c->sub < k)
		snprintf(ent, en, "%s:%s/%s", c->pfx, w[c->name], w[c->sub]);
	else
		snprintf(ent, en, "%s:%s", c->pfx, w[c->name]);
	return b;
}

/* A line of `rocm-smi --showmeminfo vram` (ROCm/rocm_smi_lib
 * python_smi_tools/rocm_smi.py@rocm-6.0.0 showMemInfo, printed by printLog
 * as "GPU[N]\t\t: VRAM Total Used Memory (B): <bytes>", and "VRAM Total
 * Memory (B)" the card's total). Returns the card's index and sets *b and
 * *used (1 the used figure, 0 the total), or -1 when l is not one. */
static int rocm_line(const char *l, size_t n, double *b, int *used)
{
	static const char u[] = ": VRAM Total Used Memory (B): ", t[] = ": VRAM Total Memory (B): ";
	char buf[160], *p, *end;
	long gpu;

	while (n && (*l == ' ' || *l == '\t')) {
		l++;
		n--;
	}
	if (n < 8 || n >= sizeof(buf) || memcmp(l, "GPU[", 4))
		return -1;
	memcpy(buf, l, n);
	buf[n] = 0;
	gpu = strtol(buf + 4, &end, 10);
	if (end == buf + 4 || *end != ']' || gpu < 0 || gpu > 1024)
		return -1;
	if ((p = strstr(end, u)) != NULL) {
		*used = 1;
		p += sizeof(u) - 1;
	} else if ((p = strstr(end, t)) != NULL) {
		*used = 0;
		p += sizeof(t) - 1;
	} else {
		return -1;
	}
	if (*p < '0' || *p > '9')
		return -1;
	*b = strtod(p, &end);
	while (*end == ' ' || *end == '\r')
		end++;
	return *end ? -1 : (int)gpu;
}

int stats_table_sniff(const unsigned char *head, size_t n)
{
	struct st_cols c = { ST_NONE, 0, -1, -1, "" };
	size_t i = 0;
	int lines = 0;

	while (i < n && lines < 12) {
		const unsigned char *nl = memchr(head + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (head + i)) : n - i;
		char buf[512], *w[ST_WORDS], ent[96];
		int k = text_words((const char *)head + i, len, buf, sizeof(buf), w, ST_WORDS);

		double b;
		int used;

		i += len + 1;
		lines++;
		if (rocm_line((const char *)head + i - len - 1, len, &b, &used) >= 0)
			return 55;
		if (!k)
			continue;
		if (c.kind != ST_NONE)
			return row(&c, w, k, ent, sizeof(ent)) >= 0 ? 55 : 0;
		header(w, k, &c);
	}
	return 0;
}

int stats_table_parse(struct input *in, struct sink *s)
{
	struct st_cols c = { ST_NONE, 0, -1, -1, "" };
	struct ol_time none = ol_time_none();
	const char *l;
	size_t len;
	int rc, n = 0;

	while ((rc = input_getline(in, &l, &len)) == 1) {
		char buf[512], *w[ST_WORDS], ent[96];
		int k = text_words(l, len, buf, sizeof(buf), w, ST_WORDS), gpu, used;
		double b;

		if ((gpu = rocm_line(l, len, &b, &used)) >= 0) {
			snprintf(ent, sizeof(ent), "amdgpu%d", gpu);
			if (su_put_sample(s, vocab_series_name(used ? VS_GPU_USED_BYTES :
					  VS_GPU_TOTAL_BYTES), "bytes", ent, &none, b) < 0)
				return -1;
			n++;
			continue;
		}
		if (!k || header(w, k, &c) || (b = row(&c, w, k, ent, sizeof(ent))) < 0)
			continue;
		if (su_put_sample(s, vocab_series_name(VS_CGROUP_CURRENT_BYTES), "bytes", ent,
				  &none, b) < 0)
			return -1;
		n++;
	}
	if (rc < 0 && sink_diagf(s, in->lineno, 0, OL_ERROR, "read error after line %llu",
				 (unsigned long long)in->lineno) < 0)
		return -1;
	return n;
}
