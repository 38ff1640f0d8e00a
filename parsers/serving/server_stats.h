/*
 * server_stats.h -- an inference server's load as server.* series: the
 * engine's periodic statistics as engine_line() read them (vLLM's "Avg
 * prompt throughput: ... Running: N reqs ... GPU KV cache usage: X%",
 * SGLang's "Decode batch. #running-req: N, ... token usage: 0.94",
 * percentages kept in percent; the entity is the engine, "vllm/engineN"
 * for V1's "Engine 00N:", "sglang/TPn" for a rank other than 0), and
 * the requests served counted into server.requests_total (cumulative,
 * one sample per second at most) from uvicorn access lines of the API
 * server (a POST answered 2xx), vLLM's "Finished request <id>" and TGI's
 * router "...: Success" lines. A server can log two of these for the same
 * request, so only the first kind seen in a file is counted. Access lines
 * carry no time: they take the last time seen.
 */
#ifndef OOMLENS_SERVER_STATS_H
#define OOMLENS_SERVER_STATS_H

#include <stddef.h>
#include <stdint.h>
#include "parsers/serving/engine_lines.h"
#include "parsers/common/sink.h"

#define SRV_STATS_ENTITIES 8

struct srv_stats {
	/* series ids by entity (0: not asked yet), the last used first: the
	 * statistics of several engines interleave */
	struct { char ent[64]; int64_t ids[ES__COUNT]; } by_ent[SRV_STATS_ENTITIES];
	int n_ent;
	/* requests served */
	int req_kind;                   /* the kind counted: 0 none yet, else REQ_* */
	int64_t req_count, req_sid, req_sec;
	int req_pending;                /* a second's count not written yet */
	struct ol_time req_t;
	const char *req_ent;
	int records;                    /* samples written */
};

/* The statistics el holds, for entity ent at time t. 0, or -1 when the
 * sink failed. */
int srv_stats_engine(struct srv_stats *st, struct sink *s, const struct engine_line *el,
		     const char *ent, const struct ol_time *t);

/* A line (message m[0..n), time t) if it says a request was served: 1 if
 * it was one of the requests-served lines (counted or not), 0 if not, -1
 * when the sink failed. */
int srv_stats_line(struct srv_stats *st, struct sink *s, const char *m, size_t n,
		   const struct ol_time *t);

/* Whether m[0..n) is uvicorn's access line for a POST answered 5xx: the
 * request failed in the app (an OOM raised while serving it). */
int srv_access_post_failed(const char *m, size_t n);

/* For an uvicorn line (one starting "INFO:  ") whose answer srv_answer_of()
 * (server_answers.h) already read as a POST answered 2xx: one request
 * served, without reading the line again. 0, or -1 when the sink failed. */
int srv_stats_access_served(struct srv_stats *st, struct sink *s, const struct ol_time *t);

/* At the end of the artifact: write the open second's count. 0 or -1. */
int srv_stats_finish(struct srv_stats *st, struct sink *s);

#endif
