/*
 * seriesutil.c -- helpers shared by the time-series parsers; see
 * seriesutil.h.
 */
#include "parsers/common/seriesutil.h"
#include "lib/timeutil.h"
#include "lib/vocab.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t first_line_len(const char *s, size_t n)
{
	const char *eol = memchr(s, '\n', n);

	return eol ? (size_t)(eol - s) : n;
}

size_t trim_end(const char *s, size_t n)
{
	while (n && (s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	return n;
}

const char *mem_find(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle));
}

void copy_str(char *dst, size_t cap, const char *s, size_t n)
{
	if (!cap)
		return;
	if (n > cap - 1)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = 0;
}

int parse_num(const char *s, size_t n, double *v, size_t *used)
{
	char buf[64], *end;
	size_t i = 0, k;

	while (i < n && s[i] == ' ')
		i++;
	for (k = i; k < n && k - i < sizeof(buf) - 1 &&
		    (strchr("0123456789.+-eE", s[k]) && s[k]); k++)
		;
	if (k == i)
		return -1;
	memcpy(buf, s + i, k - i);
	buf[k - i] = 0;
	*v = strtod(buf, &end);
	if (end == buf)
		return -1;
	if (used)
		*used = i + (size_t)(end - buf);
	return 0;
}

int parse_num_gb(const char *s, size_t n, double *v)
{
	const char *p = s, *end = s + n;
	size_t used;

	if (parse_num(p, n, v, &used) < 0 || *v < 0)
		return -1;
	p += used;
	while (p < end && *p == ' ')
		p++;
	return (size_t)(end - p) >= 2 && p[0] == 'G' && p[1] == 'B' ? 0 : -1;
}

int parse_uint_commas(const char *s, size_t n, int64_t *v, size_t *used)
{
	size_t i = 0;
	int64_t x = 0;
	int digits = 0;

	while (i < n && s[i] == ' ')
		i++;
	for (; i < n; i++) {
		if (s[i] >= '0' && s[i] <= '9') {
			if (x > (INT64_MAX - 9) / 10)
				return -1;
			x = x * 10 + (s[i] - '0');
			digits++;
		} else if (s[i] == ',' && digits && i + 1 < n && s[i + 1] >= '0' &&
			   s[i + 1] <= '9') {
			continue;
		} else {
			break;
		}
	}
	if (!digits)
		return -1;
	*v = x;
	if (used)
		*used = i;
	return 0;
}

/* In the order they are tried: a longer unit before its prefix ("bytes"
 * before "byte", every unit before "B"). */
static const struct { const char *name; double mult; } size_units[] = {
	{ "bytes", 1 }, { "byte", 1 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 },
	{ "GiB", 1073741824.0 }, { "TiB", 1099511627776.0 }, { "kB", 1024.0 },
	{ "KB", 1024.0 }, { "MB", 1048576.0 }, { "GB", 1073741824.0 },
	{ "TB", 1099511627776.0 }, { "B", 1 }, { NULL, 0 }
};

double size_unit_at(const char *s, size_t n, unsigned flags, size_t *len)
{
	size_t k, l, j;

	*len = 0;
	for (k = 0; size_units[k].name; k++) {
		const char *u = size_units[k].name;
		l = strlen(u);
		if (l > n)
			continue;
		for (j = 0; j < l; j++)
			if (s[j] != u[j] && (!(flags & SU_ANY_CASE) ||
					     tolower((unsigned char)s[j]) != tolower((unsigned char)u[j])))
				break;
		if (j < l)
			continue;
		if ((flags & SU_WHOLE_WORD) && l < n && isalnum((unsigned char)s[l]))
			continue;
		*len = l;
		return size_units[k].mult;
	}
	return 0;
}

int64_t parse_size(const char *s, size_t n, size_t *used)
{
	double v, mult;
	size_t u, i, l;

	if (used)
		*used = 0;
	if (parse_num(s, n, &v, &u) < 0 || v < 0)
		return OL_NULL;
	i = u;
	while (i < n && s[i] == ' ')
		i++;
	mult = size_unit_at(s + i, n - i, 0, &l);
	if (mult <= 0 || v * mult > 9.2e18)
		return OL_NULL;
	if (used)
		*used = i + l;
	return (int64_t)(v * mult + 0.5);
}

struct ol_time wall_time(const struct sink *s, int64_t wall_ns)
{
	struct ol_time t = ol_time_none();

	if (wall_ns == OL_NULL)
		return t;
	if (s->opts && s->opts->tz_known) {
		t.clock = OL_CLOCK_UTC;
		t.utc_ns = wall_ns - (int64_t)s->opts->tz_offset_s * NS_PER_S;
	} else {
		t.clock = OL_CLOCK_LOCAL;
		t.utc_ns = wall_ns;
	}
	return t;
}

int su_put_sample(struct sink *s, const char *name, const char *unit, const char *entity,
	       const struct ol_time *t, double v)
{
	int64_t id = sink_series(s, name, unit, entity);

	return id < 0 || sink_sample(s, id, t, v) < 0 ? -1 : 0;
}

int su_put_meta_changed(struct sink *s, char *last, size_t cap, const char *key,
		     const char *val)
{
	if (!strcmp(last, val))
		return 0;
	copy_str(last, cap, val, strlen(val));
	return sink_meta(s, key, val) < 0 ? -1 : 1;
}

int note_gpu_total(struct sink *s, uint64_t *seen, unsigned gpu, const char *val)
{
	char key[48];

	if (gpu >= 64 || (*seen & (1ull << gpu)))
		return 0;
	*seen |= 1ull << gpu;
	snprintf(key, sizeof(key), "gpu.total_bytes.gpu%u", gpu);
	return sink_meta(s, key, val) < 0 ? -1 : 0;
}

int note_local_clock(struct sink *s, const struct ol_time *t, int *noted)
{
	if (*noted || t->clock != OL_CLOCK_LOCAL)
		return 0;
	*noted = 1;
	return sink_meta(s, vocab_meta_key(VM_TIME_CLOCK), "local") < 0 ? -1 : 0;
}


/* "key=value" tokens after the time; value runs to the next space. */
static void sep_kv(struct capsep *sep, const char *k, size_t kl, const char *v, size_t vl)
{
	int64_t x;
	double d;

#define KEY(lit) (kl == sizeof(lit) - 1 && !memcmp(k, lit, kl))
	if (KEY("pid")) {
		if (parse_uint_commas(v, vl, &x, NULL) == 0)
			sep->pid = x;
	} else if (KEY("src")) {
		copy_str(sep->src, sizeof(sep->src), v, vl);
	} else if (KEY("comm")) {
		copy_str(sep->comm, sizeof(sep->comm), v, vl);
	} else if (KEY("boot_id")) {
		copy_str(sep->boot_id, sizeof(sep->boot_id), v, vl);
	} else if (KEY("status")) {
		copy_str(sep->status, sizeof(sep->status), v, vl);
	} else if (KEY("cgroup")) {
		copy_str(sep->cgroup, sizeof(sep->cgroup), v, vl);
	} else if (KEY("mono")) {
		size_t u;
		if (parse_num(v, vl, &d, &u) == 0 && u == vl && d >= 0 && d < 9e9)
			sep->mono_ns = (int64_t)(d * 1e9 + 0.5);
	}
#undef KEY
}

int capsep_parse(const char *line, size_t len, struct capsep *sep)
{
	size_t i, j;
	int off;

	if (len < 5 || memcmp(line, "### ", 4) != 0)
		return 0;
	memset(sep, 0, sizeof(*sep));
	sep->utc_ns = sep->pid = sep->mono_ns = OL_NULL;
	for (i = 4; i < len && line[i] != ' '; i++)
		;
	if (parse_iso8601(line + 4, i - 4, &sep->utc_ns, &off) < 0)
		sep->utc_ns = OL_NULL;
	while (i < len) {
		size_t eq = 0;
		while (i < len && line[i] == ' ')
			i++;
		for (j = i; j < len && line[j] != ' '; j++)
			if (line[j] == '=' && !eq)
				eq = j;
		if (eq)
			sep_kv(sep, line + i, eq - i, line + eq + 1, j - eq - 1);
		i = j;
	}
	return 1;
}

int capsep_anchor(struct sink *s, const struct capsep *sep, const char *how)
{
	if (sep->utc_ns == OL_NULL || sep->mono_ns == OL_NULL)
		return 0;
	return sink_anchor(s, sep->boot_id[0] ? sep->boot_id : NULL, sep->mono_ns, sep->utc_ns,
			   how) < 0 ? -1 : 0;
}

struct ol_time capsep_time(const struct capsep *sep)
{
	struct ol_time t = ol_time_none();

	t.boot_ns = sep->mono_ns;
	t.boot_id = sep->boot_id[0] ? sep->boot_id : NULL;
	if (sep->utc_ns != OL_NULL) {
		t.clock = OL_CLOCK_UTC;
		t.utc_ns = sep->utc_ns;
	} else if (sep->mono_ns != OL_NULL) {
		t.clock = OL_CLOCK_BOOT;
	}
	return t;
}

int quoted_key(const char *s, size_t n, const char *key)
{
	const char *p = s, *e = s + n;

	while ((p = mem_find(p, (size_t)(e - p), key)) != NULL) {
		const char *q = p + strlen(key);
		if (p > s && (p[-1] == '\'' || p[-1] == '"')) {
			while (q < e && *q != p[-1] && *q != '\n' && q - p < 80)
				q++;
			if (q + 1 < e && *q == p[-1] && (q[1] == ':' || q[1] == ',' ||
							(q[1] == ' ' && q + 2 < e && q[2] == ':')))
				return 1;
		}
		p++;
	}
	return 0;
}
