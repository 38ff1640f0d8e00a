/*
 * smaps.c -- /proc/PID/smaps and smaps_rollup captures into capture and
 * mapping rows and the proc.* series (docs/schema.md). A capture is
 * either the whole file (no separator: time from the file name
 * smaps[_rollup].<pid>.<YYYYmmddTHHMMSSZ>, else none: a file's mtime is
 * when it was copied, not read) or a record after a "### " separator line. Every key of a
 * VMA block is kept: Size, Rss, Pss, Anonymous, Swap and VmFlags in
 * columns, the others in mapping.extra.
 */
#include "parsers/host/smaps.h"
#include "parsers/common/seriesutil.h"
#include "lib/timeutil.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_HEAP, K_ANON, K_FILE, K_STACK, K_GPU, K_SHMEM, K_HUGE, K_SPECIAL, K_N };
static const char *const kind_names[K_N] = {
	"heap", "anon", "file", "stack", "gpu", "shmem", "hugepage", "special"
};

struct smaps_st {
	struct sink *s;
	struct input *in;
	int records;
	/* the capture being read */
	int open;               /* a capture is in progress */
	int64_t cap_id;         /* 0 until its row exists */
	struct capsep sep;
	int have_sep;
	struct ol_time t;
	int64_t pid;
	int rollup;
	unsigned n_maps;
	int64_t tot[4];         /* rss, pss, anon, swap in kB; OL_NULL = never seen */
	int64_t kind_rss[K_N];
	/* the VMA being read */
	int in_map;
	struct ol_mapping m;
	char perms[8], dev[24], path[4096], vmflags[256];
	int64_t kps_kb;
	json_t *extra;
	unsigned bad_lines;
	unsigned extra_full;
};

/* The value of hex digit c, or -1. */
static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Hex number of 1..16 digits at s[*i]; advances *i. 0 or -1. */
static int read_hex(const char *s, size_t n, size_t *i, uint64_t *v)
{
	size_t k = *i;
	uint64_t x = 0;

	while (k < n && hexval(s[k]) >= 0 && k - *i < 16)
		x = x << 4 | (uint64_t)hexval(s[k++]);
	if (k == *i || (k < n && hexval(s[k]) >= 0))
		return -1;
	*v = x;
	*i = k;
	return 0;
}

static int has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

const char *smaps_kind(const char *path, const char *vmflags, int64_t kernel_page_kb)
{
	int k;

	if (!path || !*path)
		k = K_ANON;
	else if (!strcmp(path, "[heap]"))
		k = K_HEAP;
	else if (has_prefix(path, "[stack"))
		k = K_STACK;
	else if (has_prefix(path, "[anon_shmem:"))
		k = K_SHMEM;
	else if (has_prefix(path, "[anon:"))
		k = K_ANON;
	else if (path[0] == '[')
		k = K_SPECIAL;
	else if (has_prefix(path, "/dev/nvidia") || has_prefix(path, "/dev/dri/") ||
		 !strcmp(path, "/dev/kfd"))
		k = K_GPU;
	else if (has_prefix(path, "/anon_hugepage") || has_prefix(path, "/dev/hugepages"))
		k = K_HUGE;
	else if (has_prefix(path, "/dev/shm/") || has_prefix(path, "/memfd:") ||
		 has_prefix(path, "/SYSV") || has_prefix(path, "/dev/zero"))
		k = K_SHMEM;
	else
		k = K_FILE;
	/* hugetlbfs-backed memory whatever its name (VM_HUGETLB, big pages) */
	if (k != K_GPU && vmflags && kernel_page_kb > 4 &&
	    (strstr(vmflags, "ht ") || (strlen(vmflags) >= 2 &&
					!strcmp(vmflags + strlen(vmflags) - 2, "ht"))))
		k = K_HUGE;
	return kind_names[k];
}

/* pid and time from a file name smaps[_rollup].<pid>.<YYYYmmddTHHMMSSZ>,
 * or a pid from a /proc/<pid>/ (or <pid>/) path component. */
static void name_info(const char *path, int64_t *pid, int64_t *ns)
{
	const char *base, *p, *q;
	int y, mo, d, h, mi, se;

	*pid = *ns = OL_NULL;
	if (!path)
		return;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (has_prefix(base, "smaps")) {
		p = strchr(base, '.');
		if (p && p[1] >= '0' && p[1] <= '9') {
			*pid = strtoll(p + 1, (char **)&q, 10);
			if (*q == '.' && sscanf(q + 1, "%4d%2d%2dT%2d%2d%2dZ", &y, &mo, &d, &h, &mi,
						&se) == 6) {
				int64_t t = utc_ns(y, mo, d, h, mi, se, 0);
				if (t >= 0)
					*ns = t;
			}
			return;
		}
	}
	/* ".../1234/smaps": the parent directory's name */
	if (base > path + 1) {
		q = base - 1;
		p = q;
		while (p > path && p[-1] != '/')
			p--;
		if (p < q && strspn(p, "0123456789") == (size_t)(q - p))
			*pid = strtoll(p, NULL, 10);
	}
}

/* The capture row of the capture being read (status: NULL, or "ESRCH"
 * and the like for a capture with no VMA); its id goes to st->cap_id.
 * -1 when the sink failed. */
static int add_capture_row(struct smaps_st *st, const char *status)
{
	struct ol_capture c;
	char comm[64];

	copy_str(comm, sizeof(comm), st->sep.comm, strlen(st->sep.comm));
	c.source = st->rollup ? "smaps_rollup" : "smaps";
	c.t = st->t;
	c.pid = st->pid;
	c.comm = comm[0] ? comm : NULL;
	c.status = status;
	st->cap_id = sink_capture(st->s, &c);
	if (st->cap_id < 0)
		return -1;
	st->records++;
	return 0;
}

/* Forget the VMA being read (its extra keys are released). */
static void reset_map(struct smaps_st *st)
{
	json_decref(st->extra);
	st->extra = NULL;
	st->in_map = 0;
	st->kps_kb = OL_NULL;
	st->vmflags[0] = 0;
	st->extra_full = 0;
}

/* *tot += kb, where OL_NULL (never seen) is nothing. */
static void add_tot(int64_t *tot, int64_t kb)
{
	if (kb == OL_NULL)
		return;
	*tot = *tot == OL_NULL ? kb : *tot + kb;
}

/* Store the VMA being read (if any). */
static int end_map(struct smaps_st *st)
{
	struct ol_mapping *m = &st->m;
	int k;

	if (!st->in_map)
		return 0;
	if (!st->cap_id && add_capture_row(st, NULL) < 0)
		return -1;
	m->perms = st->perms;
	m->dev = st->dev;
	m->path = st->path[0] ? st->path : NULL;
	m->vmflags = st->vmflags[0] ? st->vmflags : NULL;
	m->kind = st->rollup ? "special"
			     : smaps_kind(st->path, m->vmflags, st->kps_kb);
	m->extra = st->extra;
	if (sink_mapping(st->s, st->cap_id, m) < 0)
		return -1;
	st->n_maps++;
	add_tot(&st->tot[0], m->rss_kb);
	add_tot(&st->tot[1], m->pss_kb);
	add_tot(&st->tot[2], m->anon_kb);
	add_tot(&st->tot[3], m->swap_kb);
	if (!st->rollup && m->rss_kb != OL_NULL)
		for (k = 0; k < K_N; k++)
			if (kind_names[k] == m->kind)
				st->kind_rss[k] += m->rss_kb;
	reset_map(st);
	return 0;
}

/* A sample of kb kB (none when OL_NULL) of series name for entity at the
 * capture's time. -1 when the sink failed. */
static int sample(struct smaps_st *st, const char *name, const char *entity, int64_t kb)
{
	if (kb == OL_NULL)
		return 0;
	return su_put_sample(st->s, name, "bytes", entity, &st->t, (double)kb * 1024.0);
}

/* Finish the capture in progress: its last VMA, then its series. */
static int end_capture(struct smaps_st *st)
{
	static const char *const names[4] = {
		"proc.rss_bytes", "proc.pss_bytes", "proc.anon_bytes", "proc.swap_bytes"
	};
	char entity[64], ent2[96];
	int i;

	if (!st->open)
		return 0;
	if (end_map(st) < 0)
		return -1;
	if (!st->cap_id && add_capture_row(st, st->sep.status[0] ? st->sep.status : "ESRCH") < 0)
		return -1;
	if (st->pid != OL_NULL)
		snprintf(entity, sizeof(entity), "pid:%lld", (long long)st->pid);
	else
		snprintf(entity, sizeof(entity), "pid:unknown");
	if (st->n_maps && st->t.clock != OL_CLOCK_NONE) {
		for (i = 0; i < 4; i++)
			if (sample(st, names[i], entity, st->tot[i]) < 0)
				return -1;
		for (i = 0; !st->rollup && i < K_N; i++) {
			snprintf(ent2, sizeof(ent2), "%s/%s", entity, kind_names[i]);
			if (sample(st, vocab_series_name(VS_PROC_KIND_RSS_BYTES), ent2,
					st->kind_rss[i]) < 0)
				return -1;
		}
	}
	st->open = 0;
	return 0;
}

/* Start a capture of the process and time in st->sep / st->t: no VMA,
 * no totals yet; a smaps_rollup separator makes it a rollup. */
static void begin_capture(struct smaps_st *st)
{
	int i;

	st->open = 1;
	st->cap_id = 0;
	st->n_maps = 0;
	for (i = 0; i < 4; i++)
		st->tot[i] = OL_NULL;
	memset(st->kind_rss, 0, sizeof(st->kind_rss));
	st->rollup = !strcmp(st->sep.src, "smaps_rollup");
}

/* A capture without a separator: the whole file. */
static int begin_implicit(struct smaps_st *st)
{
	int64_t ns;

	memset(&st->sep, 0, sizeof(st->sep));
	st->sep.utc_ns = st->sep.mono_ns = OL_NULL;
	name_info(st->s->path, &st->pid, &ns);
	st->t = ol_time_none();
	if (ns != OL_NULL) {
		st->t.clock = OL_CLOCK_UTC;
		st->t.utc_ns = ns;
	} else if (sink_diagf(st->s, st->in->lineno, 0, OL_INFO,
			      "no capture separator and no time in the file name: the capture"
			      " has no time (the file's mtime says when it was copied, not when"
			      " it was read), so no proc.* samples") < 0) {
		return -1;
	}
	if (st->pid == OL_NULL && sink_diagf(st->s, st->in->lineno, 0, OL_WARN,
			"no pid known (no separator, no <pid> in the file name)") < 0)
		return -1;
	begin_capture(st);
	return 0;
}

/* A hex number at l[*i] ended by the byte c; *i moves past both. 0, or
 * -1 when it is not there. */
static int hex_then(const char *l, size_t n, size_t *i, uint64_t *v, char c)
{
	if (read_hex(l, n, i, v) < 0 || *i >= n || l[*i] != c)
		return -1;
	(*i)++;
	return 0;
}

/* The word at l[*i]: returns its start; *i moves to the ' ' after it (or n). */
static size_t word(const char *l, size_t n, size_t *i)
{
	size_t j = *i;

	while (*i < n && l[*i] != ' ')
		(*i)++;
	return j;
}

/* "start-end perms offset dev inode [path]": 1 if it is one. With store,
 * the VMA being read becomes this one (st->m, perms, dev, path). */
static int read_header(struct smaps_st *st, const char *l, size_t n, int store)
{
	uint64_t a, b, off;
	size_t i = 0, j, dj, dn;
	int64_t ino = 0;
	char perms[8];

	if (hex_then(l, n, &i, &a, '-') < 0 || hex_then(l, n, &i, &b, ' ') < 0)
		return 0;
	j = word(l, n, &i);
	if (i - j < 4 || i - j >= sizeof(perms))
		return 0;
	copy_str(perms, sizeof(perms), l + j, i - j);
	i++;
	if (hex_then(l, n, &i, &off, ' ') < 0)
		return 0;
	dj = word(l, n, &i);
	dn = i - dj;
	if (!dn || dn >= sizeof(st->dev) || !memchr(l + dj, ':', dn))
		return 0;
	j = ++i;
	while (i < n && l[i] >= '0' && l[i] <= '9' && i - j < 18)
		ino = ino * 10 + (l[i++] - '0');
	if (i == j || (i < n && l[i] != ' '))
		return 0;
	if (!store)
		return 1;
	copy_str(st->dev, sizeof(st->dev), l + dj, dn);
	memcpy(st->perms, perms, sizeof(perms));
	while (i < n && l[i] == ' ')
		i++;
	copy_str(st->path, sizeof(st->path), l + i, n - i);
	memset(&st->m, 0, sizeof(st->m));
	st->m.start = a;
	st->m.end = b;
	st->m.offset = off;
	st->m.inode = ino;
	st->m.size_kb = st->m.rss_kb = st->m.pss_kb = st->m.anon_kb = st->m.swap_kb = OL_NULL;
	if (!strcmp(st->path, "[rollup]"))
		st->rollup = 1;
	return 1;
}

/* "Key:   value [kB]" inside a VMA block. 1 if it is a field. */
static int read_field(struct smaps_st *st, const char *l, size_t n)
{
	char key[48];
	size_t i = 0, j;
	int64_t v = 0;
	int digits = 0;

	while (i < n && i < sizeof(key) - 1 &&
	       ((l[i] >= 'A' && l[i] <= 'Z') || (l[i] >= 'a' && l[i] <= 'z') ||
		(l[i] >= '0' && l[i] <= '9') || l[i] == '_'))
		i++;
	if (!i || i >= n || l[i] != ':')
		return 0;
	copy_str(key, sizeof(key), l, i);
	i++;
	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	if (!strcmp(key, "VmFlags")) {
		while (n > i && l[n - 1] == ' ')
			n--;
		copy_str(st->vmflags, sizeof(st->vmflags), l + i, n - i);
		return 1;
	}
	for (j = i; j < n && l[j] >= '0' && l[j] <= '9' && digits < 18; j++, digits++)
		v = v * 10 + (l[j] - '0');
	if (!st->extra && !(st->extra = json_object()))
		return 1;
	if (json_object_size(st->extra) >= 64 && !json_object_get(st->extra, key)) {
		/* a hostile block of endless distinct keys: memory stays bounded */
		if (!st->extra_full++)
			sink_diagf(st->s, st->in->lineno, 0, OL_WARN,
				   "more than 64 extra keys in one VMA block: the rest dropped");
		return 1;
	}
	if (!digits || (j < n && !(n - j == 3 && !memcmp(l + j, " kB", 3)))) {
		/* a value oomlens does not know the form of: kept as text */
		json_object_set_new(st->extra, key, ol_json_strn(l + i, n - i));
		return 1;
	}
	if (!strcmp(key, "Size"))
		st->m.size_kb = v;
	else if (!strcmp(key, "Rss"))
		st->m.rss_kb = v;
	else if (!strcmp(key, "Pss"))
		st->m.pss_kb = v;
	else if (!strcmp(key, "Anonymous"))
		st->m.anon_kb = v;
	else if (!strcmp(key, "Swap"))
		st->m.swap_kb = v;
	else {
		if (!strcmp(key, "KernelPageSize"))
			st->kps_kb = v;
		json_object_set_new(st->extra, key, json_integer(v));
	}
	return 1;
}

/* A line smaps cannot read: a warning what, for the first 100 only (the
 * rest are counted at the end). -1 when the sink failed. */
static int bad_line(struct smaps_st *st, const char *what)
{
	if (++st->bad_lines > 100)
		return 0;
	return sink_diagf(st->s, st->in->lineno, 0, OL_WARN, "%s", what) < 0 ? -1 : 0;
}

int smaps_parse(struct input *in, struct sink *s)
{
	struct smaps_st st;
	const char *l;
	size_t n;
	int r, rc = -1;

	memset(&st, 0, sizeof(st));
	st.s = s;
	st.in = in;
	st.pid = OL_NULL;
	st.kps_kb = OL_NULL;
	while ((r = input_getline(in, &l, &n)) == 1) {
		if (in->line_cut && bad_line(&st, "line longer than the read buffer: cut") < 0)
			goto out;
		if (n && l[n - 1] == '\r')
			n--;
		if (capsep_parse(l, n, &st.sep)) {
			if (end_capture(&st) < 0)
				goto out;
			st.t = capsep_time(&st.sep);
			st.pid = st.sep.pid;
			if (st.sep.utc_ns == OL_NULL &&
			    sink_diagf(s, in->lineno, 0, OL_ERROR,
				       "capture separator without a readable ISO 8601 time"
				       " (expected \"### 2025-11-29T18:22:40.123456Z pid=...\")") < 0)
				goto out;
			if (capsep_anchor(s, &st.sep, "smaps capture separator (UTC time + mono=)") < 0)
				goto out;
			begin_capture(&st);
			continue;
		}
		if (read_header(&st, l, n, 0)) {
			if (!st.open && begin_implicit(&st) < 0)
				goto out;
			if (end_map(&st) < 0)
				goto out;
			read_header(&st, l, n, 1);
			st.in_map = 1;
			continue;
		}
		if (!n)
			continue;
		if (st.in_map && read_field(&st, l, n))
			continue;
		if (bad_line(&st, st.in_map ? "not an smaps field (expected \"Key: value kB\")"
				: "not an smaps VMA header (expected"
				  " \"start-end perms offset dev inode path\")") < 0)
			goto out;
	}
	if (end_capture(&st) < 0)
		goto out;
	if (st.bad_lines > 100 && sink_diagf(s, 0, 0, OL_WARN,
					     "%u more unreadable lines not listed",
					     st.bad_lines - 100) < 0)
		goto out;
	rc = st.records;
out:
	json_decref(st.extra);
	return rc;
}

int smaps_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;
	size_t l = first_line_len(h, n);
	struct capsep sep;

	if (capsep_parse(h, l, &sep))
		return has_prefix(sep.src, "smaps") ? 95 : 0;
	{
		struct smaps_st st;
		memset(&st, 0, sizeof(st));
		if (read_header(&st, h, l, 0) && mem_find(h, n, "\nRss:"))
			return 90;
	}
	return 0;
}
