/*
 * dcgm.c -- DCGM exporter text into gpu.* series. A line is
 * `NAME{label="v",...} VALUE [TIMESTAMP_MS]`; label values may hold \",
 * \\ and \n escapes. Memory metrics are MiB. The sample time is the
 * line's own timestamp (UTC ms) when present, else the time of the last
 * "### <iso>" separator, else the file's mtime (approximate, said in a
 * diagnostic). Metrics oomlens does not use are skipped silently.
 */
#include "parsers/dcgm.h"
#include "parsers/seriesutil.h"
#include "lib/timeutil.h"

#include <stdio.h>
#include <string.h>

static const struct { const char *metric; const char *series; const char *unit;
		      double mult; } dcgm_metrics[] = {
	{ "DCGM_FI_DEV_FB_USED", "gpu.used_bytes", "bytes", 1048576.0 },
	{ "DCGM_FI_DEV_FB_FREE", "gpu.free_bytes", "bytes", 1048576.0 },
	{ "DCGM_FI_DEV_FB_TOTAL", "gpu.total_bytes", "bytes", 1048576.0 },
	{ "DCGM_FI_DEV_FB_RESERVED", "gpu.reserved_bytes", "bytes", 1048576.0 },
	{ "DCGM_FI_DEV_GPU_UTIL", "gpu.util_percent", "%", 1.0 },
	{ NULL, NULL, NULL, 0 }
};

/* Find label key's value in {...}; unescaped into out. 0 if found. */
static int label(const char *l, size_t n, const char *key, char *out, size_t cap)
{
	size_t i = 0, kl = strlen(key), o = 0;

	while (i < n) {
		size_t ks = i;
		while (i < n && l[i] != '=' && l[i] != ',' && l[i] != '}')
			i++;
		if (i + 1 >= n || l[i] != '=' || l[i + 1] != '"')
			return -1;
		{
			int match = i - ks == kl && !memcmp(l + ks, key, kl);
			i += 2;
			o = 0;
			while (i < n && l[i] != '"') {
				char c = l[i];
				if (c == '\\' && i + 1 < n) {
					c = l[++i];
					if (c == 'n')
						c = '\n';
				}
				if (match && o + 1 < cap)
					out[o++] = c;
				i++;
			}
			if (i >= n)
				return -1;
			i++;  /* closing quote */
			if (match) {
				out[o] = 0;
				return 0;
			}
		}
		while (i < n && (l[i] == ',' || l[i] == ' '))
			i++;
		if (i < n && l[i] == '}')
			return -1;
	}
	return -1;
}

/* Index just after the closing '}' of a label set starting at l[0] == '{'
 * (quotes and escapes respected), or 0 if it does not close. */
static size_t labels_end(const char *l, size_t n)
{
	size_t i;
	int q = 0;

	for (i = 1; i < n; i++) {
		if (q && l[i] == '\\') {
			i++;
			continue;
		}
		if (l[i] == '"')
			q = !q;
		else if (!q && l[i] == '}')
			return i + 1;
	}
	return 0;
}

int dcgm_parse(struct input *in, struct sink *s)
{
	struct ol_time base = ol_time_none(), t;
	struct capsep sep;
	uint64_t total_seen = 0;
	const char *l;
	size_t n, i, ml, le;
	int count = 0, k, warned = 0;
	char gpu[32], ent[64];
	double v, ts;

	if (in->mtime > 0) {
		base.clock = OL_CLOCK_UTC;
		base.utc_ns = in->mtime * NS_PER_S;
	}
	while (input_getline(in, &l, &n) == 1) {
		while (n && (l[n - 1] == '\r' || l[n - 1] == ' '))
			n--;
		if (capsep_parse(l, n, &sep)) {
			base = capsep_time(&sep);
			warned = 1;
			continue;
		}
		if (!n || l[0] == '#')
			continue;
		for (ml = 0; ml < n && l[ml] != '{' && l[ml] != ' '; ml++)
			;
		for (k = 0; dcgm_metrics[k].metric; k++)
			if (strlen(dcgm_metrics[k].metric) == ml &&
			    !memcmp(dcgm_metrics[k].metric, l, ml))
				break;
		if (!dcgm_metrics[k].metric)
			continue;
		le = ml;
		gpu[0] = 0;
		if (ml < n && l[ml] == '{') {
			le = labels_end(l + ml, n - ml);
			if (!le) {
				if (sink_diagf(s, in->lineno, 0, OL_ERROR,
					       "unterminated label set {...}") < 0)
					return -1;
				continue;
			}
			if (label(l + ml + 1, le - 1, "gpu", gpu, sizeof(gpu)) < 0)
				gpu[0] = 0;
			le += ml;
		}
		i = le;
		if (parse_num(l + i, n - i, &v, &ml) < 0) {
			if (sink_diagf(s, in->lineno, 0, OL_ERROR,
				       "%s: expected a number after the labels",
				       dcgm_metrics[k].metric) < 0)
				return -1;
			continue;
		}
		i += ml;
		t = base;
		if (parse_num(l + i, n - i, &ts, &ml) == 0 && ts > 0 && ts < 9.2e12) {  /* ms that fit int64 ns */
			t = ol_time_none();
			t.clock = OL_CLOCK_UTC;
			t.utc_ns = (int64_t)ts * 1000000LL;
		} else if (!warned) {
			warned = 1;
			if (sink_diagf(s, in->lineno, 0, base.clock == OL_CLOCK_NONE ? OL_WARN : OL_INFO,
				       base.clock == OL_CLOCK_NONE
				       ? "no sample timestamps and no file time: samples have no time"
				       : "no sample timestamps: scrape time taken from the file's"
					 " mtime (approximate)") < 0)
				return -1;
		}
		if (v < 0 || v > 1e12)
			continue;
		snprintf(ent, sizeof(ent), "gpu%s", gpu[0] ? gpu : "0");
		{
			int64_t id = sink_series(s, dcgm_metrics[k].series, dcgm_metrics[k].unit, ent);
			if (id < 0 || sink_sample(s, id, &t, v * dcgm_metrics[k].mult) < 0)
				return -1;
			count++;
		}
		if (k == 2 && gpu[0]) {
			unsigned gi = 0;
			if (sscanf(gpu, "%u", &gi) == 1 && gi < 64 && !(total_seen & (1ull << gi))) {
				char key[48], val[32];
				total_seen |= 1ull << gi;
				snprintf(key, sizeof(key), "gpu.total_bytes.gpu%u", gi);
				snprintf(val, sizeof(val), "%.0f", v * 1048576.0);
				if (sink_meta(s, key, val) < 0)
					return -1;
			}
		}
	}
	return count;
}

int dcgm_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;

	if (mem_find(h, n, "DCGM_FI_DEV_") &&
	    (n > 7 && (!memcmp(h, "# HELP ", 7) || !memcmp(h, "DCGM_FI", 7) ||
		       !memcmp(h, "# TYPE ", 7) || !memcmp(h, "### ", 4))))
		return 90;
	return 0;
}
