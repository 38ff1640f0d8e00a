/*
 * server_stats.c -- an inference server's load into server.* series (see
 * server_stats.h): one table of the statistics and the labels engines
 * print them with, and a counter of requests served sampled once a
 * second.
 */
#include "parsers/server_stats.h"
#include "parsers/seriesutil.h"
#include "lib/timeutil.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REQ_ACCESS = 1, REQ_FINISHED, REQ_TGI };

/* Each statistic's series and the labels that print it, in the order
 * read (every label found gives a sample). Percentages become ratios. */
static const struct {
	const char *series, *unit;
	double mult;
	const char *labels[2];
} stat_series[SRV_STAT_SERIES] = {
	{ "server.prompt_tokens_per_s", "tokens/s", 1, { "Avg prompt throughput: " } },
	{ "server.gen_tokens_per_s", "tokens/s", 1, { "Avg generation throughput: " } },
	{ "server.running", "requests", 1, { "Running: " } },
	{ "server.swapped", "requests", 1, { "Swapped: " } },
	{ "server.waiting", "requests", 1, { "Pending: " /* V0 */, "Waiting: " } },
	{ "server.gpu_kv_usage", "ratio", 0.01, { "GPU KV cache usage: " } },
	{ "server.cpu_kv_usage", "ratio", 0.01, { "CPU KV cache usage: " } },
	{ "server.prefix_cache_hit_rate", "ratio", 0.01,
	  { "Prefix cache hit rate: ", "GPU prefix cache hit rate: " } },
};

static int starts(const char *m, size_t n, const char *p)
{
	size_t len = strlen(p);
	return n >= len && !memcmp(m, p, len);
}

/* One sample of statistic i for entity ent. */
static int stat_sample(struct srv_stats *st, struct sink *s, size_t i, const char *ent,
		       const struct ol_time *t, double v)
{
	if (strcmp(ent, st->ent)) {  /* ids are cached per entity */
		memset(st->ids, 0, sizeof(st->ids));
		copy_str(st->ent, sizeof(st->ent), ent, strlen(ent));
	}
	if (!st->ids[i])
		st->ids[i] = sink_series(s, stat_series[i].series, stat_series[i].unit, ent);
	if (st->ids[i] < 0 || sink_sample(s, st->ids[i], t, v * stat_series[i].mult) < 0)
		return -1;
	st->records++;
	return 0;
}

/* "[Engine 000: ]Avg prompt throughput: 1.0 tokens/s, ... Running: 3 reqs, ..." */
static int stats_line(struct srv_stats *st, struct sink *s, const char *m, size_t n,
		      const struct ol_time *t, uint64_t lineno)
{
	char ent[32] = "vllm";
	const char *p;
	size_t i, k, len;
	double v;

	if (n > 7 && !memcmp(m, "Engine ", 7) && atoi(m + 7) > 0)
		snprintf(ent, sizeof(ent), "vllm/engine%d", atoi(m + 7));
	for (i = 0; i < SRV_STAT_SERIES; i++)
		for (k = 0; k < 2 && stat_series[i].labels[k]; k++) {
			if (!(p = mem_find(m, n, stat_series[i].labels[k])))
				continue;
			len = strlen(stat_series[i].labels[k]);
			if (parse_num(p + len, n - (size_t)(p + len - m), &v, NULL) == 0) {
				if (stat_sample(st, s, i, ent, t, v) < 0)
					return -1;
			} else if (sink_diagf(s, lineno, 0, OL_WARN,
					      "engine statistics: no number after \"%s\"",
					      stat_series[i].labels[k]) < 0) {
				return -1;
			}
		}
	return 0;
}

/* Write the open second's count. */
static int req_flush(struct srv_stats *st, struct sink *s)
{
	if (!st->req_pending)
		return 0;
	st->req_pending = 0;
	if (!st->req_sid)
		st->req_sid = sink_series(s, "server.requests_total", "requests", st->req_ent);
	if (st->req_sid < 0 || sink_sample(s, st->req_sid, &st->req_t, (double)st->req_count) < 0)
		return -1;
	st->records++;
	return 0;
}

/* One more request served, of kind k, at time t. */
static int req_served(struct srv_stats *st, struct sink *s, int k, const char *ent,
		      const struct ol_time *t)
{
	int64_t sec;

	if (st->req_kind && st->req_kind != k)
		return 0;
	st->req_kind = k;
	st->req_ent = ent;
	if (t->clock != OL_CLOCK_UTC && t->clock != OL_CLOCK_LOCAL) {
		st->req_count++;
		return 0;  /* cannot be placed: counted, not sampled */
	}
	sec = t->utc_ns / NS_PER_S;
	if (st->req_pending && sec != st->req_sec && req_flush(st, s) < 0)
		return -1;
	st->req_count++;
	st->req_pending = 1;
	st->req_sec = sec;
	st->req_t = *t;
	return 0;
}

/* 'INFO:     10.0.0.7:51234 - "POST /v1/completions HTTP/1.1" 200 OK' */
static int is_access_post_ok(const char *m, size_t n)
{
	const char *q = mem_find(m, n, " - \"POST ");
	const char *e;

	if (!q)
		return 0;
	e = memchr(q + 9, '"', n - (size_t)(q + 9 - m));
	return e && (size_t)(e - m) + 3 < n && e[1] == ' ' && e[2] == '2' &&
	       isdigit((unsigned char)e[3]);
}

/* The requests-served lines: 1 if m is one (counted or not), else 0. */
static int requests_line(struct srv_stats *st, struct sink *s, const char *m, size_t n,
			 const struct ol_time *t)
{
	int k;
	const char *ent = "vllm";

	if (starts(m, n, "INFO:  ")) {  /* uvicorn access and lifecycle lines */
		if (!is_access_post_ok(m, n))
			return 1;
		k = REQ_ACCESS;
	} else if (starts(m, n, "Finished request ")) {
		k = REQ_FINISHED;
	} else if (n > 9 && !memcmp(m + n - 9, ": Success", 9) &&
		   mem_find(m, n, "text_generation_router")) {
		k = REQ_TGI;
		ent = "tgi";
	} else {
		return 0;
	}
	return req_served(st, s, k, ent, t) < 0 ? -1 : 1;
}

int srv_stats_line(struct srv_stats *st, struct sink *s, const char *m, size_t n,
		   const struct ol_time *t, uint64_t lineno)
{
	double v;
	int64_t id;

	if (mem_find(m, n, "Avg prompt throughput: "))
		return stats_line(st, s, m, n, t, lineno) < 0 ? -1 : 1;
	if (starts(m, n, "Prefix cache hit rate: GPU: ")) {  /* V0 0.5-0.6, own line */
		if (parse_num(m + 28, n - 28, &v, NULL) == 0) {
			id = sink_series(s, "server.prefix_cache_hit_rate", "ratio", "vllm");
			if (id < 0 || sink_sample(s, id, t, v / 100.0) < 0)
				return -1;
			st->records++;
		}
		return 1;
	}
	return requests_line(st, s, m, n, t);
}

int srv_stats_finish(struct srv_stats *st, struct sink *s)
{
	return req_flush(st, s);
}
