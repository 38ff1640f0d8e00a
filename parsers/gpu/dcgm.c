/*
 * dcgm.c -- DCGM exporter text into gpu.* series. A line is
 * `NAME{label="v",...} VALUE [TIMESTAMP_MS]`; label values may hold \",
 * \\ and \n escapes. Memory metrics are MiB. The sample time is the
 * line's own timestamp (UTC ms) when present, else the time of the last
 * "### <iso>" separator, else none (the samples are "time unknown", said in a
 * diagnostic). Metrics oomlens does not use are skipped silently.
 *
 * The entity is the GPU ("gpuN"); a MIG instance (label GPU_I_ID) is one
 * of its own, "gpuN/mig:ID", with its profile (GPU_I_PROFILE) as meta
 * gpu.mig_profile.<entity>. The labels that say where a sample comes
 * from become meta once each: DCGM_FI_DRIVER_VERSION as
 * cuda.driver_version, and a pod label as k8s.pod_gpu.<namespace>/<pod>/
 * <container> = <entity> (the pod that holds, or shares, that GPU).
 */
#include "parsers/gpu/dcgm.h"
#include "parsers/common/seriesutil.h"
#include "lib/timeutil.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define MAX_SEEN 256   /* label meta remembered (past this, not stored again) */

static const struct { const char *metric; const char *series; const char *unit;
		      double mult; } dcgm_metrics[] = {
	{ "DCGM_FI_DEV_FB_USED", "gpu.used_bytes", "bytes", 1048576.0 },
	{ "DCGM_FI_DEV_FB_FREE", "gpu.free_bytes", "bytes", 1048576.0 },
	{ "DCGM_FI_DEV_FB_TOTAL", "gpu.total_bytes", "bytes", 1048576.0 },
	{ "DCGM_FI_DEV_FB_RESERVED", "gpu.reserved_bytes", "bytes", 1048576.0 },
	{ "DCGM_FI_DEV_GPU_UTIL", "gpu.util_percent", "%", 1.0 },
	{ "DCGM_FI_DEV_MEM_COPY_UTIL", "gpu.mem_copy_util_percent", "%", 1.0 },
	{ "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gpu.gr_engine_active", "ratio", 1.0 },
	{ "DCGM_FI_PROF_DRAM_ACTIVE", "gpu.dram_active", "ratio", 1.0 },
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

/* The state of one scrape file. */
struct dcgm_st {
	struct sink *s;
	struct input *in;
	struct ol_time base;      /* the last separator's time, else none */
	int warned;               /* "no sample timestamps" said (or a separator gave one) */
	uint64_t total_seen;      /* gpu.total_bytes.gpuN stored, N < 64 */
	int count;                /* samples stored */
	char driver[48];          /* cuda.driver_version last stored */
	uint64_t seen[MAX_SEEN];  /* hashes of the label meta stored */
	int nseen;
};

/* The labels of a sample that oomlens keeps (each "" when absent). */
struct dcgm_labels {
	char gpu[32], mig[32], profile[32], driver[48];
	char pod[128], ns[128], container[128];
};

/* The index in dcgm_metrics of the metric named l[0..ml), or -1. */
static int metric_index(const char *l, size_t ml)
{
	int k;

	for (k = 0; dcgm_metrics[k].metric; k++)
		if (strlen(dcgm_metrics[k].metric) == ml && !memcmp(dcgm_metrics[k].metric, l, ml))
			return k;
	return -1;
}

/* The time of a sample whose text after the value is [p, p + n): the
 * line's own timestamp (ms) when it has one, else st->base, said once.
 * -1 when the sink failed. */
static int sample_time(struct dcgm_st *st, const char *p, size_t n, struct ol_time *t)
{
	size_t used;
	double ts;

	*t = st->base;
	if (parse_num(p, n, &ts, &used) == 0 && ts > 0 && ts < 9.2e12) {  /* ms that fit int64 ns */
		*t = ol_time_none();
		t->clock = OL_CLOCK_UTC;
		t->utc_ns = (int64_t)ts * 1000000LL;
		return 0;
	}
	if (st->warned)
		return 0;
	st->warned = 1;
	if (st->base.clock != OL_CLOCK_NONE)
		return 0;
	return sink_diagf(st->s, st->in->lineno, 0, OL_INFO,
			  "no sample timestamps and no \"### <time>\" separator: the samples"
			  " are 'time unknown' (the file's mtime says when it was copied, not"
			  " when it was scraped)") < 0 ? -1 : 0;
}

/* Store meta key = val once per file (a scrape repeats its labels on
 * every line; past MAX_SEEN distinct keys nothing more is stored).
 * -1 when the sink failed. */
static int meta_once(struct dcgm_st *st, const char *key, const char *val)
{
	uint64_t h = 1469598103934665603ull;
	const char *c;
	int i;

	for (c = key; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	for (c = val; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	for (i = 0; i < st->nseen; i++)
		if (st->seen[i] == h)
			return 0;
	if (st->nseen >= MAX_SEEN)
		return 0;
	st->seen[st->nseen++] = h;
	return sink_meta(st->s, key, val) < 0 ? -1 : 0;
}

/* The meta a sample's labels give for entity ent (driver version, MIG
 * profile, the pod on the GPU). -1 when the sink failed. */
static int label_meta(struct dcgm_st *st, const struct dcgm_labels *lb, const char *ent)
{
	char key[448];

	if (lb->driver[0] && su_put_meta_changed(st->s, st->driver, sizeof(st->driver),
					      "cuda.driver_version", lb->driver) < 0)
		return -1;
	if (lb->mig[0] && lb->profile[0]) {
		snprintf(key, sizeof(key), "gpu.mig_profile.%s", ent);
		if (meta_once(st, key, lb->profile) < 0)
			return -1;
	}
	if (lb->pod[0]) {
		snprintf(key, sizeof(key), "k8s.pod_gpu.%s/%s/%s", lb->ns, lb->pod, lb->container);
		if (meta_once(st, key, ent) < 0)
			return -1;
	}
	return 0;
}

/* Store value v of metric k for the GPU (or MIG instance) of labels lb
 * ("" gpu = gpu0) at t; the first FB_TOTAL of each GPU is also meta
 * gpu.total_bytes.gpuN. -1 when the sink failed. */
static int store(struct dcgm_st *st, int k, const struct dcgm_labels *lb,
		 const struct ol_time *t, double v)
{
	char ent[80], val[32];
	unsigned gi = 0;

	snprintf(ent, sizeof(ent), "gpu%s", lb->gpu[0] ? lb->gpu : "0");
	if (lb->mig[0])
		snprintf(ent + strlen(ent), sizeof(ent) - strlen(ent), "/mig:%s", lb->mig);
	if (su_put_sample(st->s, dcgm_metrics[k].series, dcgm_metrics[k].unit, ent, t,
		       v * dcgm_metrics[k].mult) < 0)
		return -1;
	st->count++;
	if (label_meta(st, lb, ent) < 0)
		return -1;
	if (strcmp(dcgm_metrics[k].metric, "DCGM_FI_DEV_FB_TOTAL") || !lb->gpu[0] || lb->mig[0] ||
	    sscanf(lb->gpu, "%u", &gi) != 1)
		return 0;
	snprintf(val, sizeof(val), "%.0f", v * 1048576.0);
	return note_gpu_total(st->s, &st->total_seen, gi, val);
}

/* The labels oomlens keeps from the label set l[0..n) (inside the braces). */
static void read_labels(const char *l, size_t n, struct dcgm_labels *lb)
{
	static const struct { const char *key; size_t off, cap; } keys[] = {
		{ "gpu", offsetof(struct dcgm_labels, gpu), sizeof(((struct dcgm_labels *)0)->gpu) },
		{ "GPU_I_ID", offsetof(struct dcgm_labels, mig), sizeof(((struct dcgm_labels *)0)->mig) },
		{ "GPU_I_PROFILE", offsetof(struct dcgm_labels, profile),
		  sizeof(((struct dcgm_labels *)0)->profile) },
		{ "DCGM_FI_DRIVER_VERSION", offsetof(struct dcgm_labels, driver),
		  sizeof(((struct dcgm_labels *)0)->driver) },
		{ "pod", offsetof(struct dcgm_labels, pod), sizeof(((struct dcgm_labels *)0)->pod) },
		{ "namespace", offsetof(struct dcgm_labels, ns), sizeof(((struct dcgm_labels *)0)->ns) },
		{ "container", offsetof(struct dcgm_labels, container),
		  sizeof(((struct dcgm_labels *)0)->container) },
	};
	size_t i;

	memset(lb, 0, sizeof(*lb));
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char *dst = (char *)lb + keys[i].off;
		if (label(l, n, keys[i].key, dst, keys[i].cap) < 0)
			dst[0] = 0;
	}
}

/* One sample line `NAME{labels} VALUE [TIMESTAMP_MS]` of n bytes; lines
 * of metrics oomlens does not use are passed over. -1 when the sink failed. */
static int sample_line(struct dcgm_st *st, const char *l, size_t n)
{
	struct dcgm_labels lb;
	struct ol_time t;
	size_t i, ml, le, used;
	double v;
	int k;

	for (ml = 0; ml < n && l[ml] != '{' && l[ml] != ' '; ml++)
		;
	if ((k = metric_index(l, ml)) < 0)
		return 0;
	le = ml;
	memset(&lb, 0, sizeof(lb));
	if (ml < n && l[ml] == '{') {
		if (!(le = labels_end(l + ml, n - ml)))
			return sink_diagf(st->s, st->in->lineno, 0, OL_ERROR,
					  "unterminated label set {...}") < 0 ? -1 : 0;
		read_labels(l + ml + 1, le - 1, &lb);
		le += ml;
	}
	i = le;
	if (parse_num(l + i, n - i, &v, &used) < 0)
		return sink_diagf(st->s, st->in->lineno, 0, OL_ERROR,
				  "%s: expected a number after the labels",
				  dcgm_metrics[k].metric) < 0 ? -1 : 0;
	i += used;
	if (sample_time(st, l + i, n - i, &t) < 0)
		return -1;
	if (v < 0 || v > 1e12)
		return 0;
	return store(st, k, &lb, &t, v);
}

int dcgm_parse(struct input *in, struct sink *s)
{
	struct dcgm_st st;
	struct capsep sep;
	const char *l;
	size_t n;

	memset(&st, 0, sizeof(st));
	st.s = s;
	st.in = in;
	st.base = ol_time_none();
	while (input_getline(in, &l, &n) == 1) {
		n = trim_end(l, n);
		if (capsep_parse(l, n, &sep)) {
			st.base = capsep_time(&sep);
			st.warned = 1;   /* a separator's time is the scrape's own */
			continue;
		}
		if (!n || l[0] == '#')
			continue;
		if (sample_line(&st, l, n) < 0)
			return -1;
	}
	return st.count;
}

int dcgm_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;

	if (mem_find(h, n, "DCGM_FI_") &&
	    (n > 7 && (!memcmp(h, "# HELP ", 7) || !memcmp(h, "DCGM_FI", 7) ||
		       !memcmp(h, "# TYPE ", 7) || !memcmp(h, "### ", 4))))
		return 90;
	/* a scrape pasted after other text: a sample line anywhere */
	if (mem_find(h, n, "\nDCGM_FI_") || mem_find(h, n, "# TYPE DCGM_FI_"))
		return 60;
	return 0;
}
