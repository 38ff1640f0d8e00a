/*
 * server_stats.c -- an inference server's load into server.* series (see
 * server_stats.h): the statistics engine_line() read, and a counter of
 * requests served sampled once a second.
 */
#include "parsers/serving/server_stats.h"
#include "parsers/common/seriesutil.h"
#include "lib/timeutil.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REQ_ACCESS = 1, REQ_FINISHED, REQ_TGI };

static int starts(const char *m, size_t n, const char *p)
{
	size_t len = strlen(p);
	return n >= len && m[0] == p[0] && !memcmp(m, p, len);
}

/* The series ids of entity ent (cut to fit), moved to the front of the
 * cache; a new entity takes the place of the one used longest ago. The
 * sink gives a series the same id each time it is asked within an
 * artifact, so an id kept is the one it would give. */
static int64_t *entity_ids(struct srv_stats *st, const char *ent)
{
	int i, last = st->n_ent < SRV_STATS_ENTITIES ? st->n_ent : SRV_STATS_ENTITIES - 1;

	for (i = 0; i < st->n_ent; i++)
		if (!strcmp(st->by_ent[i].ent, ent))
			break;
	if (i == st->n_ent) {   /* not kept: a fresh slot at the end */
		i = last;
		if (st->n_ent < SRV_STATS_ENTITIES)
			st->n_ent++;
		copy_str(st->by_ent[i].ent, sizeof(st->by_ent[i].ent), ent, strlen(ent));
		memset(st->by_ent[i].ids, 0, sizeof(st->by_ent[i].ids));
	}
	if (i > 0) {
		char tmp[sizeof(st->by_ent[0])];
		memcpy(tmp, &st->by_ent[i], sizeof(tmp));
		memmove(&st->by_ent[1], &st->by_ent[0], (size_t)i * sizeof(st->by_ent[0]));
		memcpy(&st->by_ent[0], tmp, sizeof(tmp));
	}
	return st->by_ent[0].ids;
}

int srv_stats_engine(struct srv_stats *st, struct sink *s, const struct engine_line *el,
		     const char *ent, const struct ol_time *t)
{
	int64_t *ids;
	int i;

	if (!el->stats_set)
		return 0;
	ids = entity_ids(st, ent);
	for (i = 0; i < ES__COUNT; i++) {
		if (!(el->stats_set >> i & 1))
			continue;
		if (!ids[i])
			ids[i] = sink_series(s, engine_stat_series((enum engine_stat)i),
					     engine_stat_unit((enum engine_stat)i), ent);
		if (ids[i] < 0 || sink_sample(s, ids[i], t, el->stats[i]) < 0)
			return -1;
		st->records++;
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
		st->req_sid = sink_series(s, vocab_series_name(VS_SERVER_REQUESTS_TOTAL),
				"requests", st->req_ent);
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
	if (st->req_pending && t->utc_ns == st->req_t.utc_ns && t->clock == st->req_t.clock &&
	    t->boot_ns == st->req_t.boot_ns && t->boot_id == st->req_t.boot_id) {
		/* at the time of the one before (access lines take the last
		 * time seen): the same second, only counted */
		st->req_ent = ent;
		st->req_count++;
		return 0;
	}
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
	const char *q = memchr(m, '"', n);
	const char *e;

	if (!q || q - m < 3 || (size_t)(m + n - q) < 6 || memcmp(q - 3, " - \"POST ", 9))
		return 0;
	q -= 3;
	e = memchr(q + 9, '"', n - (size_t)(q + 9 - m));
	return e && (size_t)(e - m) + 3 < n && e[1] == ' ' && e[2] == '2' &&
	       e[3] >= '0' && e[3] <= '9';
}

/* 'INFO:     10.0.0.7:51234 - "POST /v1/chat/completions HTTP/1.1" 500
 * Internal Server Error': uvicorn's access line for a POST answered 5xx
 * (uvicorn/protocols/http/httptools_impl.py logs it when the response
 * starts; an exception in the app is answered 500 there). */
int srv_access_post_failed(const char *m, size_t n)
{
	const char *q = memchr(m, '"', n);
	const char *e;

	if (!q || q - m < 3 || (size_t)(m + n - q) < 6 || memcmp(q - 3, " - \"POST ", 9))
		return 0;
	e = memchr(q + 6, '"', n - (size_t)(q + 6 - m));
	return e && (size_t)(e - m) + 3 < n && e[1] == ' ' && e[2] == '5' &&
	       e[3] >= '0' && e[3] <= '9';
}

int srv_stats_access_served(struct srv_stats *st, struct sink *s, const struct ol_time *t)
{
	return req_served(st, s, REQ_ACCESS, "vllm", t);
}

/* The requests-served lines: 1 if m is one (counted or not), else 0. */
static int requests_line(struct srv_stats *st, struct sink *s, const char *m, size_t n,
			 const struct ol_time *t)
{
	int k;
	const char *ent = "vllm";

	/* uvicorn's access lines: only a POST answered 2xx is a request
	 * served; its lifecycle lines, a GET /health and the engines that
	 * log through the same "INFO:     " prefix (Aphrodite, TabbyAPI:
	 * "Model weights loaded. Memory usage: ...") are none */
	if (starts(m, n, "INFO:  "))
		return is_access_post_ok(m, n) ? (req_served(st, s, REQ_ACCESS, "vllm", t) < 0 ? -1 : 1) : 0;
	if (starts(m, n, "Finished request ")) {
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
		   const struct ol_time *t)
{
	return requests_line(st, s, m, n, t);
}

int srv_stats_finish(struct srv_stats *st, struct sink *s)
{
	return req_flush(st, s);
}
