/*
 * cgroup.c -- cgroup memory files into cgroup.* series and meta
 * (docs/schema.md). Which file a body is comes from the record's
 * src=cgroup:<file>, else the artifact's file name, else the keys it
 * holds. A single copied file has no time (its mtime is the copy's): its
 * samples are stored without one, "time unknown"; the entity is the record's cgroup= path, else the
 * directory the file was copied into.
 */
#include "parsers/host/cgroup.h"
#include "parsers/common/seriesutil.h"
#include "lib/timeutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a value of a file (or a key of a key-value file) becomes. */
struct cg_map {
	const char *file;   /* file name */
	const char *key;    /* NULL: a one-value file */
	const char *name;   /* series name or meta key */
	const char *unit;   /* NULL: meta, not a series */
};

static const struct cg_map cg_maps[] = {
	{ "memory.current", NULL, "cgroup.current_bytes", "bytes" },
	{ "memory.usage_in_bytes", NULL, "cgroup.current_bytes", "bytes" },
	{ "memory.peak", NULL, "cgroup.peak_bytes", "bytes" },
	{ "memory.max_usage_in_bytes", NULL, "cgroup.peak_bytes", "bytes" },
	{ "memory.swap.current", NULL, "cgroup.swap_bytes", "bytes" },
	{ "memory.memsw.usage_in_bytes", NULL, "cgroup.memsw_bytes", "bytes" },
	{ "memory.failcnt", NULL, "cgroup.max_events", "count" },
	/* v1's memory+swap limit is another limit: its refusals apart */
	{ "memory.memsw.failcnt", NULL, "cgroup.memsw_max_events", "count" },
	{ "memory.max", NULL, "cgroup.max_bytes", NULL },
	{ "memory.limit_in_bytes", NULL, "cgroup.max_bytes", NULL },
	{ "memory.high", NULL, "cgroup.high_bytes", NULL },
	{ "memory.swap.max", NULL, "cgroup.swap_max_bytes", NULL },
	{ "memory.memsw.limit_in_bytes", NULL, "cgroup.memsw_max_bytes", NULL },
	{ "memory.events", "oom", "cgroup.oom", "count" },
	{ "memory.events", "oom_kill", "cgroup.oom_kill", "count" },
	{ "memory.events", "max", "cgroup.max_events", "count" },
	{ "memory.oom_control", "oom_kill", "cgroup.oom_kill", "count" },
	{ "memory.stat", "anon", "cgroup.anon_bytes", "bytes" },      /* v2 */
	{ "memory.stat", "file", "cgroup.file_bytes", "bytes" },      /* v2 */
	{ "memory.stat", "rss", "cgroup.anon_bytes", "bytes" },       /* v1 */
	{ "memory.stat", "cache", "cgroup.file_bytes", "bytes" },     /* v1 */
	{ "memory.stat", "shmem", "cgroup.shmem_bytes", "bytes" },
	{ "memory.stat", "swap", "cgroup.swap_bytes", "bytes" },      /* v1 */
	{ NULL, NULL, NULL, NULL }
};

/* Files that are key-value lists. */
static int kv_file(const char *f)
{
	return !strcmp(f, "memory.events") || !strcmp(f, "memory.stat") ||
	       !strcmp(f, "memory.oom_control") || !strcmp(f, "memory.events.local") ||
	       !strcmp(f, "memory.swap.events");
}

/* v1 "unlimited" is LONG_MAX rounded down to a page (9223372036854771712
 * with 4 KiB pages, less with 64 KiB): anything from 2^62 up. */
#define CG_UNLIMITED (1LL << 62)

struct cg_st {
	struct sink *s;
	struct input *in;
	int n;                    /* values stored */
	char file[64];            /* file of the current record ("" = unknown) */
	char entity[512];
	struct ol_time t;
	int body_lines;           /* lines of the current record */
	char last_meta[4][32];    /* last value per meta key, to skip repeats */
};

static const char *const meta_keys[4] = {
	"cgroup.max_bytes", "cgroup.high_bytes", "cgroup.swap_max_bytes",
	"cgroup.memsw_max_bytes"
};

/* Store a limit key = val, unless it repeats the value last stored under
 * key (a series of readings repeats the same limit). -1 when the sink failed. */
static int put_meta(struct cg_st *st, const char *key, const char *val)
{
	int i, r;

	for (i = 0; i < 4; i++)
		if (!strcmp(meta_keys[i], key))
			break;
	if (i < 4)
		r = su_put_meta_changed(st->s, st->last_meta[i], sizeof(st->last_meta[i]), key, val);
	else
		r = sink_meta(st->s, key, val) < 0 ? -1 : 1;
	if (r > 0)
		st->n++;
	return r < 0 ? -1 : 0;
}

/* Store value v (or "max") read for map m: a limit as meta ("max" from
 * CG_UNLIMITED up), a counter as a sample of its series. */
static int put_value(struct cg_st *st, const struct cg_map *m, int is_max, int64_t v)
{
	char buf[32];

	if (!m->unit) {
		if (is_max || v >= CG_UNLIMITED)
			snprintf(buf, sizeof(buf), "max");
		else
			snprintf(buf, sizeof(buf), "%lld", (long long)v);
		return put_meta(st, m->name, buf);
	}
	if (is_max)
		return 0;
	if (su_put_sample(st->s, m->name, m->unit, st->entity, &st->t, (double)v) < 0)
		return -1;
	st->n++;
	return 0;
}

/* A decimal integer, or "max" (*is_max). 0 if the whole token is one. */
static int read_value(const char *s, size_t n, int64_t *v, int *is_max)
{
	size_t i;
	int64_t x = 0;

	*is_max = 0;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 3 && !memcmp(s, "max", 3)) {
		*is_max = 1;
		*v = OL_NULL;
		return 0;
	}
	if (!n || n > 19)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || x > (INT64_MAX - (s[i] - '0')) / 10)
			return -1;
		x = x * 10 + (s[i] - '0');
	}
	if (x < 0)
		return -1;
	*v = x;
	return 0;
}

/* Guess a key-value file from one of its keys when the name is unknown. */
static const char *file_from_key(const char *k, size_t kl)
{
#define KEY(lit) (kl == sizeof(lit) - 1 && !memcmp(k, lit, kl))
	if (KEY("low") || KEY("high") || KEY("oom") || KEY("oom_group_kill"))
		return "memory.events";
	if (KEY("oom_kill_disable") || KEY("under_oom"))
		return "memory.oom_control";
	if (KEY("anon") || KEY("file") || KEY("cache") || KEY("rss") || KEY("kernel_stack") ||
	    KEY("mapped_file") || KEY("inactive_anon"))
		return "memory.stat";
	return NULL;
#undef KEY
}

/* One line of a cgroup file's body: "key value" of a key-value file (the
 * file told from the key when unknown), or the one value of a one-value
 * file; what oomlens uses becomes a sample or a meta setting, a line that
 * is not the file's shape a diagnostic. -1 when the sink failed. */
static int body_line(struct cg_st *st, const char *l, size_t n)
{
	const struct cg_map *m;
	int64_t v;
	int is_max;
	size_t k;

	n = trim_end(l, n);
	if (!n)
		return 0;
	st->body_lines++;
	for (k = 0; k < n && l[k] != ' '; k++)
		;
	if (k < n) {  /* "key value" */
		const char *key = l;
		size_t kl = k;
		if (!st->file[0]) {
			const char *f = file_from_key(key, kl);
			if (f)
				copy_str(st->file, sizeof(st->file), f, strlen(f));
		}
		if (!kv_file(st->file)) {
			if (st->file[0] && !strcmp(st->file, "memory.pressure"))
				return 0;
			return st->file[0] && strncmp(st->file, "memory.", 7) == 0 ? 0 :
				sink_diagf(st->s, st->in->lineno, 0, OL_WARN,
					   "\"key value\" line in a cgroup file oomlens cannot"
					   " name (%s)", st->file[0] ? st->file : "no file name")
				< 0 ? -1 : 0;
		}
		while (k < n && l[k] == ' ')
			k++;
		if (read_value(l + k, n - k, &v, &is_max) < 0)
			return sink_diagf(st->s, st->in->lineno, 0, OL_ERROR,
					  "%s: expected \"%.*s <integer>\"", st->file, (int)kl,
					  key) < 0 ? -1 : 0;
		for (m = cg_maps; m->file; m++)
			if (m->key && !strcmp(m->file, st->file) && strlen(m->key) == kl &&
			    !memcmp(m->key, key, kl))
				return put_value(st, m, is_max, v);
		return 0;  /* a key oomlens does not use */
	}
	/* a one-value file */
	if (read_value(l, n, &v, &is_max) < 0)
		return sink_diagf(st->s, st->in->lineno, 0, OL_ERROR,
				  "%s: expected an integer or \"max\"",
				  st->file[0] ? st->file : "cgroup file") < 0 ? -1 : 0;
	if (st->body_lines > 1 && !kv_file(st->file))
		return sink_diagf(st->s, st->in->lineno, 0, OL_WARN,
				  "%s: more than one value in a one-value file; ignored",
				  st->file) < 0 ? -1 : 0;
	for (m = cg_maps; m->file; m++)
		if (!m->key && !strcmp(m->file, st->file))
			return put_value(st, m, is_max, v);
	if (!st->file[0])
		return sink_diagf(st->s, st->in->lineno, 0, OL_WARN,
				  "a lone value but no file name to say what it is") < 0 ? -1 : 0;
	return 0;  /* memory.low, memory.min, memory.oom.group, ...: not used */
}

/* The entity of a reading without cgroup=: the directory it was copied
 * into (the artifact's path less its file name), "." without one. */
static void set_entity_from_path(struct cg_st *st)
{
	const char *p = st->s->path, *slash;

	if (!p || !(slash = strrchr(p, '/'))) {
		copy_str(st->entity, sizeof(st->entity), ".", 1);
		return;
	}
	/* a copy that kept the sysfs layout names the cgroup itself:
	 * ".../sys/fs/cgroup[/memory]/kubepods.slice/x" -> "/kubepods.slice/x",
	 * the form the kernel prints in oom_memcg= */
	{
		const char *fs = p, *q;
		while ((q = strstr(fs, "/sys/fs/cgroup")) && q < slash)
			fs = q + 14;
		if (fs != p) {
			if (!strncmp(fs, "/memory/", 8) || (!strncmp(fs, "/memory", 7) && fs + 7 == slash))
				fs += 7;
			if (fs >= slash)
				copy_str(st->entity, sizeof(st->entity), "/", 1);
			else
				copy_str(st->entity, sizeof(st->entity), fs, (size_t)(slash - fs));
			return;
		}
	}
	copy_str(st->entity, sizeof(st->entity), p, (size_t)(slash - p));
}

/* A "### <iso> src=cgroup:<file> cgroup=<path>" separator: the record
 * after it has that file, entity and time. -1 when the sink failed. */
static int record_start(struct cg_st *st, const struct capsep *sep)
{
	struct sink *s = st->s;

	st->t = capsep_time(sep);
	st->body_lines = 0;
	st->file[0] = 0;
	if (!strncmp(sep->src, "cgroup:", 7))
		copy_str(st->file, sizeof(st->file), sep->src + 7, strlen(sep->src + 7));
	else if (sink_diagf(s, st->in->lineno, 0, OL_WARN,
			    "record without src=cgroup:<file>: file told from its keys") < 0)
		return -1;
	if (sep->cgroup[0])
		copy_str(st->entity, sizeof(st->entity), sep->cgroup, strlen(sep->cgroup));
	else
		set_entity_from_path(st);
	if (sep->utc_ns == OL_NULL &&
	    sink_diagf(s, st->in->lineno, 0, OL_ERROR,
		       "record separator without a readable ISO 8601 time") < 0)
		return -1;
	return capsep_anchor(s, sep, "cgroup record separator (UTC time + mono=)");
}

/* A file without separators is one copied reading: its file name says
 * what it is, and nothing says when it was read (its mtime is when it was
 * copied). -1 when the sink failed. */
static int single_file(struct cg_st *st)
{
	struct sink *s = st->s;
	const char *base = s->path ? strrchr(s->path, '/') : NULL;

	base = base ? base + 1 : s->path;
	if (base && !strncmp(base, "memory.", 7))
		copy_str(st->file, sizeof(st->file), base, strlen(base));
	set_entity_from_path(st);
	st->t = ol_time_none();
	return sink_diagf(s, 0, 0, OL_INFO, "single cgroup reading with no time of its own:"
			  " its samples are 'time unknown' (the file's mtime says when it was"
			  " copied, not when it was read)") < 0 ? -1 : 0;
}

int cgroup_parse(struct input *in, struct sink *s)
{
	struct cg_st st;
	struct capsep sep;
	const char *l;
	size_t n;
	int first = 1;

	memset(&st, 0, sizeof(st));
	st.s = s;
	st.in = in;
	st.t = ol_time_none();
	while (input_getline(in, &l, &n) == 1) {
		if (capsep_parse(l, n, &sep)) {
			if (record_start(&st, &sep) < 0)
				return -1;
		} else {
			if (first && single_file(&st) < 0)
				return -1;
			if (body_line(&st, l, n) < 0)
				return -1;
		}
		first = 0;
	}
	return st.n;
}

int cgroup_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;
	struct capsep sep;

	if (capsep_parse(h, first_line_len(h, n), &sep))
		return !strncmp(sep.src, "cgroup:", 7) ? 95 : 0;
	if (n > 4 && !memcmp(h, "low ", 4) && mem_find(h, n, "\noom_kill "))
		return 85;
	if (n > 17 && !memcmp(h, "oom_kill_disable ", 17) && mem_find(h, n, "\nunder_oom "))
		return 85;
	if (n > 5 && !memcmp(h, "anon ", 5) && mem_find(h, n, "\nfile ") &&
	    mem_find(h, n, "\nkernel"))
		return 85;
	if (n > 6 && !memcmp(h, "cache ", 6) && mem_find(h, n, "\nrss ") &&
	    mem_find(h, n, "\nmapped_file "))
		return 85;
	return 0;
}

int cgroup_name_sniff(const char *path, const unsigned char *head, size_t n)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	int64_t v;
	int is_max;

	base = base ? base + 1 : path;
	if (!base || strncmp(base, "memory.", 7) != 0)
		return 0;
	while (n && (head[n - 1] == '\n' || head[n - 1] == ' '))
		n--;
	return n && !memchr(head, '\n', n) && read_value((const char *)head, n, &v, &is_max) == 0;
}
