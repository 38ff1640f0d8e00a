/*
 * server_stats.h -- an inference server's load as server.* series: the
 * engine's periodic statistics ("Avg prompt throughput: ... Running: N
 * reqs ... GPU KV cache usage: X%", entity "vllm", or "vllm/engineN" for
 * V1's "Engine 00N:"), V0's own "Prefix cache hit rate: GPU: X%" line,
 * and the requests served counted into server.requests_total (cumulative,
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
#include "parsers/sink.h"

#define SRV_STAT_SERIES 8

struct srv_stats {
	int64_t ids[SRV_STAT_SERIES];   /* series ids for entity ent (0: not yet) */
	char ent[32];
	/* requests served */
	int req_kind;                   /* the kind counted: 0 none yet, else REQ_* */
	int64_t req_count, req_sid, req_sec;
	int req_pending;                /* a second's count not written yet */
	struct ol_time req_t;
	const char *req_ent;
	int records;                    /* samples written */
};

/* A line (message m[0..n), time t, number lineno) if it is one of the
 * above: 1 if it was (read), 0 if not, -1 when the sink failed. A number
 * missing after a statistic's label is a warning. */
int srv_stats_line(struct srv_stats *st, struct sink *s, const char *m, size_t n,
		   const struct ol_time *t, uint64_t lineno);

/* At the end of the artifact: write the open second's count. 0 or -1. */
int srv_stats_finish(struct srv_stats *st, struct sink *s);

#endif
