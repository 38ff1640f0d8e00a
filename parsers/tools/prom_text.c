/*
 * prom_text.c -- the Prometheus text exposition format into series, one
 * per metric and label set, and a metrics_scrape event per file; and what
 * the query and CSV readers share with it.
 *
 * A line is "# HELP name text", "# TYPE name type", or a sample
 * `name{label="value",...} value [timestamp_ms]` (label values escape
 * \", \\ and \n; OpenMetrics' timestamps are seconds). A series is named by the metric (Prometheus names have
 * no '.', oomlens' own names always do, so the two never meet) and its
 * entity is the label set, sorted, empty labels dropped. Histogram and
 * summary families (their _bucket, _sum, _count, quantile series) are
 * skipped: they are latency, not memory or load. DCGM_FI_* families are
 * parsers/gpu/dcgm.c's. A sample's time is its own timestamp (UTC ms), else
 * the last "### <iso>" separator's, else none: a single scrape carries no
 * time of its own, and the file's mtime is not taken for one.
 *
 * vLLM's, SGLang's, TGI's, Triton's and llama-server's load metrics also
 * feed the oomlens series the rules read (server.running, server.waiting,
 * server.swapped, server.gpu_kv_usage, server.cpu_kv_usage), entity
 * "<engine> <labels>" (`oomlens watch --metrics` writes such scrapes).
 */
#include "parsers/tools/prom_text.h"
#include "parsers/common/seriesutil.h"
#include "parsers/gpu/dcgm.h"
#include "lib/timeutil.h"
#include "lib/vocab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PT_ENT 512
#define PT_FAMILIES 512

static const struct { const char *metric, *series, *unit, *engine; } prom_alias[] = {
	{ "vllm:num_requests_running", "server.running", "requests", "vllm" },
	{ "vllm:num_requests_waiting", "server.waiting", "requests", "vllm" },
	{ "vllm:num_requests_swapped", "server.swapped", "requests", "vllm" },
	{ "vllm:gpu_cache_usage_perc", "server.gpu_kv_usage", "ratio", "vllm" },
	{ "vllm:kv_cache_usage_perc", "server.gpu_kv_usage", "ratio", "vllm" },
	{ "vllm:cpu_cache_usage_perc", "server.cpu_kv_usage", "ratio", "vllm" },
	{ "sglang:num_running_reqs", "server.running", "requests", "sglang" },
	{ "sglang:num_requests_running", "server.running", "requests", "sglang" },
	{ "sglang:num_queue_reqs", "server.waiting", "requests", "sglang" },
	{ "sglang:num_requests_waiting", "server.waiting", "requests", "sglang" },
	{ "sglang:token_usage", "server.gpu_kv_usage", "ratio", "sglang" },
	/* TGI backends/v3/src/backend.rs and queue.rs@v3.3.7: the batch being run,
	 * the requests queued for the next one */
	{ "tgi_batch_current_size", "server.running", "requests", "tgi" },
	{ "tgi_queue_size", "server.waiting", "requests", "tgi" },
	/* Triton docs/user_guide/metrics.md: requests awaiting a backend's execution */
	{ "nv_inference_pending_request_count", "server.waiting", "requests", "triton" },
	/* llama.cpp tools/server/server.cpp, llama-server --metrics */
	{ "llamacpp:requests_processing", "server.running", "requests", "llama.cpp" },
	{ "llamacpp:requests_deferred", "server.waiting", "requests", "llama.cpp" },
	{ "llamacpp:kv_cache_usage_ratio", "server.gpu_kv_usage", "ratio", "llama.cpp" },
	/* LMDeploy lmdeploy/metrics/loggers.py@v0.16.0 (the engine core's
	 * scheduler gauges; KV usage is a 0..1 fraction, metrics/stats.py) */
	{ "lmdeploy:num_requests_running", "server.running", "requests", "lmdeploy" },
	{ "lmdeploy:num_requests_waiting", "server.waiting", "requests", "lmdeploy" },
	{ "lmdeploy:gpu_cache_usage_perc", "server.gpu_kv_usage", "ratio", "lmdeploy" },
	{ NULL, NULL, NULL, NULL }
};

/* The engine a metric's name says (its prefix), or NULL. */
static const char *engine_of(const char *name)
{
	static const struct { const char *prefix, *engine; } pfx[] = {
		{ "vllm:", "vllm" }, { "sglang", "sglang" }, { "tgi_", "tgi" },
		{ "nv_inference_", "triton" }, { "llamacpp:", "llama.cpp" },
		{ "lmdeploy:", "lmdeploy" }, { NULL, NULL }
	};
	int i;

	for (i = 0; pfx[i].prefix; i++)
		if (!strncmp(name, pfx[i].prefix, strlen(pfx[i].prefix)))
			return pfx[i].engine;
	return NULL;
}

/* The unit a metric's name says (Prometheus naming conventions). */
static const char *unit_of(const char *name)
{
	size_t n = strlen(name);

	if (n > 6 && !strcmp(name + n - 6, "_bytes"))
		return "bytes";
	if (n > 8 && !strcmp(name + n - 8, "_seconds"))
		return "s";
	if (n > 5 && !strcmp(name + n - 5, "_perc"))
		return "ratio";
	return NULL;
}

int prom_sample(struct sink *s, const char *name, const char *entity,
		const struct ol_time *t, double v)
{
	int64_t id;
	int k;

	if (!isfinite(v))
		return 0;
	id = sink_series(s, name, unit_of(name), entity);
	if (id < 0 || sink_sample(s, id, t, v) < 0)
		return -1;
	for (k = 0; prom_alias[k].metric; k++)
		if (!strcmp(prom_alias[k].metric, name)) {
			char ent[PT_ENT + 16];
			snprintf(ent, sizeof(ent), "%s%s%s", prom_alias[k].engine,
				 entity[0] ? " " : "", entity);
			id = sink_series(s, prom_alias[k].series, prom_alias[k].unit, ent);
			if (id < 0 || sink_sample(s, id, t, v) < 0)
				return -1;
		}
	return 0;
}

void prom_entity_add(char *ent, size_t cap, const char *k, const char *v)
{
	char item[PT_ENT], *p = ent, *at = NULL;
	size_t kl = strlen(k), il;

	if (!*v || !strcmp(k, "__name__"))
		return;
	snprintf(item, sizeof(item), "%s=\"%s\"", k, v);
	/* keep the labels sorted: insert before the first larger name */
	while (*p) {
		char *eq = strchr(p, '=');
		size_t pl = eq ? (size_t)(eq - p) : strlen(p);
		int c = strncmp(k, p, kl < pl ? kl : pl);
		if (c < 0 || (c == 0 && kl < pl)) {
			at = p;
			break;
		}
		/* to the next label: past the quoted value and its comma */
		p = eq ? eq + 1 : p + strlen(p);
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (*p)
				p++;
		}
		if (*p == ',')
			p++;
	}
	il = strlen(item);
	if (strlen(ent) + il + 2 >= cap)
		return;
	if (at) {
		memmove(at + il + 1, at, strlen(at) + 1);
		memcpy(at, item, il);
		at[il] = ',';
	} else {
		if (*ent)
			strcat(ent, ",");
		strcat(ent, item);
	}
}

/* ---- the exposition format ---- */

struct px_st {
	struct sink *s;
	struct input *in;
	int samples, cut, dcgm, skipped_hist;
	struct ol_time t;            /* the last separator's */
	int have_sep;
	char hist[PT_FAMILIES][96];  /* histogram and summary families seen in # TYPE */
	int nhist;
	char families[PT_FAMILIES][96];
	int nfam;
	char engine[16], model[256];
	int untimed;
};

static void family_seen(struct px_st *st, const char *name, size_t n)
{
	int i;

	for (i = 0; i < st->nfam; i++)
		if (strlen(st->families[i]) == n && !memcmp(st->families[i], name, n))
			return;
	if (st->nfam < PT_FAMILIES)
		copy_str(st->families[st->nfam++], sizeof(st->families[0]), name, n);
}

/* A histogram or summary sample: its family was typed so, or its name or
 * labels say so. */
static int is_hist(const struct px_st *st, const char *name, size_t n, const char *ent)
{
	static const char *const suffixes[] = { "_bucket", "_sum", "_count", "_created", NULL };
	int i, k;

	if (strstr(ent, "le=\"") == ent || strstr(ent, ",le=\"") || strstr(ent, "quantile=\""))
		return 1;
	for (k = 0; suffixes[k]; k++) {
		size_t sl = strlen(suffixes[k]);
		if (n > sl && !memcmp(name + n - sl, suffixes[k], sl)) {
			if (!strcmp(suffixes[k], "_bucket"))
				return 1;
			for (i = 0; i < st->nhist; i++)
				if (strlen(st->hist[i]) == n - sl && !memcmp(st->hist[i], name, n - sl))
					return 1;
		}
	}
	return 0;
}

/* {k="v",...}: the entity; returns the index after '}', or 0 if the set
 * does not close (a line cut short). */
static size_t read_labels(struct px_st *st, const char *l, size_t n, char *ent, size_t cap)
{
	size_t i = 1;
	char k[128], v[PT_ENT];

	ent[0] = 0;
	while (i < n) {
		size_t ks, o = 0;
		while (i < n && (l[i] == ' ' || l[i] == ','))
			i++;
		if (i < n && l[i] == '}')
			return i + 1;
		ks = i;
		while (i < n && l[i] != '=' && l[i] != '}')
			i++;
		if (i + 1 >= n || l[i] != '=' || l[i + 1] != '"')
			return 0;
		copy_str(k, sizeof(k), l + ks, i - ks);
		for (i += 2; i < n && l[i] != '"'; i++) {
			char c = l[i];
			if (c == '\\' && i + 1 < n) {
				c = l[++i];
				if (c == 'n')
					c = '\n';
			}
			if (o + 1 < sizeof(v))
				v[o++] = c;
		}
		if (i >= n)
			return 0;
		v[o] = 0;
		i++;
		if (!strcmp(k, "model_name") || (!strcmp(k, "name") && !st->model[0]))
			copy_str(st->model, sizeof(st->model), v, strlen(v));
		prom_entity_add(ent, cap, k, v);
	}
	return 0;
}

/* A sample's timestamp: integer milliseconds (the text format), or
 * seconds with a fraction or of ten digits at most (OpenMetrics). 1 with
 * *ns set, 0 if there is none. */
static int sample_ts(const char *p, size_t n, int64_t *ns)
{
	int64_t x, frac = 0, scale = 1;
	size_t used, i;

	while (n && *p == ' ')
		p++, n--;
	if (parse_uint_commas(p, n, &x, &used) < 0 || memchr(p, ',', used))
		return 0;
	if (used < n && p[used] == '.') {
		for (i = used + 1; i < n && i < used + 10 && p[i] >= '0' && p[i] <= '9'; i++) {
			frac = frac * 10 + (p[i] - '0');
			scale *= 10;
		}
		if (x >= 9200000000LL)
			return 0;
		*ns = x * NS_PER_S + frac * (NS_PER_S / scale);
		return x > 0;
	}
	if (x <= 0 || x >= 9200000000000LL)
		return 0;
	*ns = used <= 10 ? x * NS_PER_S : x * 1000000;
	return 1;
}

static int sample_line(struct px_st *st, const char *l, size_t n)
{
	char name[256], ent[PT_ENT];
	size_t ml, i, used;
	double v;
	int64_t ms;
	struct ol_time t = st->t;

	for (ml = 0; ml < n && l[ml] != '{' && l[ml] != ' '; ml++)
		;
	if (!ml || ml >= sizeof(name))
		return 0;
	for (i = 0; i < ml; i++)
		if (!(l[i] == '_' || l[i] == ':' || (l[i] >= 'a' && l[i] <= 'z') ||
		      (l[i] >= 'A' && l[i] <= 'Z') || (i && l[i] >= '0' && l[i] <= '9')))
			return 0;  /* not a metric name: some other line */
	copy_str(name, sizeof(name), l, ml);
	i = ml;
	ent[0] = 0;
	if (i < n && l[i] == '{') {
		size_t e = read_labels(st, l + i, n - i, ent, sizeof(ent));
		if (!e) {
			st->cut++;
			return sink_diagf(st->s, st->in->lineno, 0, OL_WARN,
					  "%s: label set does not close (line cut short?)", name) < 0 ? -1 : 0;
		}
		i += e;
	}
	if (!strncmp(name, "DCGM_FI_", 8)) {
		st->dcgm++;
		return 0;
	}
	while (i < n && l[i] == ' ')
		i++;
	if (i < n && (l[i] == '+' || l[i] == '-' || l[i] == 'N') &&
	    (mem_find(l + i, n - i, "Inf") == l + i + 1 || mem_find(l + i, n - i, "NaN") == l + i))
		return 0;
	if (parse_num(l + i, n - i, &v, &used) < 0 || (i + used < n && l[i + used] != ' '))
		return sink_diagf(st->s, st->in->lineno, 0, OL_WARN,
				  "%s: expected a number after the labels", name) < 0 ? -1 : 0;
	i += used;
	if (sample_ts(l + i, n - i, &ms)) {
		t = ol_time_none();
		t.clock = OL_CLOCK_UTC;
		t.utc_ns = ms;
	} else if (t.clock == OL_CLOCK_NONE) {
		st->untimed++;
	}
	family_seen(st, name, ml);
	if (is_hist(st, name, ml, ent)) {
		st->skipped_hist++;
		return 0;
	}
	if (!st->engine[0] && engine_of(name))
		copy_str(st->engine, sizeof(st->engine), engine_of(name), strlen(engine_of(name)));
	if (prom_sample(st->s, name, ent, &t, v) < 0)
		return -1;
	st->samples++;
	return 0;
}

/* "# HELP name ..." / "# TYPE name gauge" */
static void comment_line(struct px_st *st, const char *l, size_t n)
{
	const char *nm;
	size_t nl;

	if (n < 8 || (memcmp(l, "# HELP ", 7) && memcmp(l, "# TYPE ", 7)))
		return;
	nm = l + 7;
	for (nl = 0; nm + nl < l + n && nm[nl] != ' '; nl++)
		;
	if (!strncmp(nm, "DCGM_FI_", 8))
		return;
	family_seen(st, nm, nl);
	if (!st->engine[0] && engine_of(nm))
		copy_str(st->engine, sizeof(st->engine), engine_of(nm), strlen(engine_of(nm)));
	if (l[2] == 'T' && (mem_find(nm + nl, (size_t)(l + n - nm - nl), " histogram") ||
			    mem_find(nm + nl, (size_t)(l + n - nm - nl), " summary")) &&
	    st->nhist < PT_FAMILIES)
		copy_str(st->hist[st->nhist++], sizeof(st->hist[0]), nm, nl);
}

static int scrape_event(struct px_st *st)
{
	struct ol_event e;
	char line[200];
	int64_t id;

	memset(&e, 0, sizeof(e));
	e.kind = vocab_event_kind(VE_METRICS_SCRAPE);
	e.t = ol_time_none();
	e.pid = OL_NULL;
	e.bytes = OL_NULL;
	snprintf(line, sizeof(line), "metrics scrape: %d families, %d samples%s%s", st->nfam,
		 st->samples, st->engine[0] ? " from " : "", st->engine);
	e.summary = line;
	e.data = json_pack("{s:i, s:i, s:o, s:o, s:i, s:i, s:i}", "families", st->nfam,
			   "samples", st->samples,
			   "engine", st->engine[0] ? json_string(st->engine) : json_null(),
			   "model", st->model[0] ? ol_json_strn(st->model, strlen(st->model)) : json_null(),
			   "cut_lines", st->cut, "dcgm_samples_skipped", st->dcgm,
			   "histogram_samples_skipped", st->skipped_hist);
	if (!e.data)
		return -1;
	id = sink_event(st->s, &e);
	json_decref(e.data);
	return id < 0 ? -1 : 0;
}

/* A scrape whose only metrics are DCGM_FI_* (one that parsers/gpu/dcgm.c did
 * not recognise, e.g. after a "$ curl ..." line): 1 if the head says so. */
static int dcgm_only(struct input *in)
{
	const char *h, *l, *e;
	size_t n;

	h = (const char *)input_peek(in, 64 * 1024, &n);
	if (!mem_find(h, n, "DCGM_FI_"))
		return 0;
	for (l = h, e = h + n; l < e;) {
		const char *nl = memchr(l, '\n', (size_t)(e - l));
		size_t len = nl ? (size_t)(nl - l) : (size_t)(e - l);
		const char *name = len > 7 && (!memcmp(l, "# HELP ", 7) || !memcmp(l, "# TYPE ", 7))
				   ? l + 7 : l;
		if (name < l + len && ((*name >= 'a' && *name <= 'z') || *name == '_' ||
				       (*name >= 'A' && *name <= 'Z')) &&
		    strncmp(name, "DCGM_FI_", 8) && (l != name || memchr(l, '{', len)))
			return 0;  /* another family */
		l = nl ? nl + 1 : e;
	}
	return 1;
}

int prom_text_parse(struct input *in, struct sink *s)
{
	struct px_st *st = calloc(1, sizeof(*st));
	struct capsep sep;
	const char *l;
	size_t n;
	int r = -1;

	if (!st)
		return -1;
	if (dcgm_only(in)) {
		free(st);
		return dcgm_parse(in, s);
	}
	st->s = s;
	st->in = in;
	st->t = ol_time_none();
	while (input_getline(in, &l, &n) == 1) {
		while (n && (l[n - 1] == '\r' || l[n - 1] == ' '))
			n--;
		if (capsep_parse(l, n, &sep)) {
			st->t = capsep_time(&sep);
			st->have_sep = 1;
			continue;
		}
		if (!n)
			continue;
		if (l[0] == '#') {
			comment_line(st, l, n);
			continue;
		}
		if (sample_line(st, l, n) < 0)
			goto out;
	}
	if (st->dcgm && sink_diagf(s, 0, 0, OL_INFO, "%d DCGM_FI_* samples left to the dcgm"
				   " reader", st->dcgm) < 0)
		goto out;
	if (st->untimed && sink_diagf(s, 0, 0, OL_INFO, "%d samples without a timestamp or a"
				      " ### separator: stored with no time", st->untimed) < 0)
		goto out;
	if ((st->nfam || st->samples) && scrape_event(st) < 0)
		goto out;
	r = st->samples + (st->nfam || st->samples ? 1 : 0);
out:
	free(st);
	return r;
}

int prom_text_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;
	int typed = mem_find(h, n, "# TYPE ") && mem_find(h, n, "# HELP ");
	int known = mem_find(h, n, "vllm:") || mem_find(h, n, "sglang:") || mem_find(h, n, "sglang_") ||
		    mem_find(h, n, "container_memory_") || mem_find(h, n, "process_resident_memory") ||
		    mem_find(h, n, "tgi_queue_size") || mem_find(h, n, "nv_inference_") ||
		    mem_find(h, n, "llamacpp:") || mem_find(h, n, "lmdeploy:");

	/* `oomlens watch --metrics`'s metrics.prom: its own separator, whatever
	 * the kept families print of # HELP and # TYPE */
	if (n > 4 && !memcmp(h, "### ", 4)) {
		const char *nl = memchr(h, '\n', n);
		if (mem_find(h, nl ? (size_t)(nl - h) : n, " src=metrics "))
			return 90;
	}

	if (mem_find(h, n, "DCGM_FI_") && !known)  /* parsers/gpu/dcgm.c's */
		return mem_find(h, n, "DCGM_FI_DEV_") && typed && !dcgm_sniff(head, n) ? 50 : 0;
	if (typed && known)
		return 85;
	if (typed)
		return 70;
	if (known && (mem_find(h, n, "{") && mem_find(h, n, "=\"")))
		return 65;
	return 0;
}
