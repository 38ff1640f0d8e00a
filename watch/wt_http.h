/*
 * wt_http.h -- the watcher's one network use: `--metrics URL`, a plain
 * HTTP GET of a serving engine's Prometheus endpoint on this host, and
 * the filter that keeps, of its reply, only the load samples oomlens
 * reads (the table in wt_http.c). Deliberately small: `http://host:port/path`
 * only, no TLS, no redirects, no proxies, no authentication; a connect
 * and read deadline and a byte bound on the reply.
 *
 * The URL and reply functions take no socket and allocate only into the
 * caller's strbuf, so a fuzzer can drive them (fuzz/fuzz_watch_metrics.c).
 */
#ifndef OOMLENS_WT_HTTP_H
#define OOMLENS_WT_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include "lib/strbuf.h"

#define WT_URL_MAX 512
/* The most bytes of a reply read (headers and body): vLLM's /metrics with
 * every histogram is some 100 KiB per model; more is refused, not cut. */
#define WT_HTTP_MAX (4 << 20)
/* The deadline of one scrape, connect to last byte. */
#define WT_HTTP_TIMEOUT_MS 2000

/* A --metrics URL taken apart. */
struct wt_url {
	char host[256];         /* a name, an IPv4 address or an IPv6 one (no brackets) */
	char port[8];           /* decimal, "80" when the URL gives none */
	char path[WT_URL_MAX];  /* from the first '/', "/metrics" when the URL has none */
	char hostport[270];     /* for the Host: header, as the URL wrote it */
};

/* Parse url ("http://host[:port][/path]"). 0, or -1 with why (a sentence
 * for the user: the scheme refused, TLS, user info, a bad port, a
 * character that cannot go in a request line). */
int wt_url_parse(const char *url, struct wt_url *u, char *why, size_t whyn);

/* The request for u: "GET path HTTP/1.0" with Host, Accept (the text
 * format), User-Agent and Connection: close. into is reset first. */
void wt_http_request(const struct wt_url *u, struct strbuf *into);

/* A whole reply r[0..n) (status line, headers, body; a chunked body is
 * decoded): the kept samples, with the # HELP and # TYPE lines of their
 * families, appended to out. Returns the samples kept (0 is a success:
 * an engine that exposes none of them), or -1 with why (not HTTP, a
 * status other than 200, a redirect, headers or a chunk cut short). */
int wt_http_reply(const char *r, size_t n, struct strbuf *out, char *why, size_t whyn);

/* Whether a metric name is one oomlens keeps (wt_http.c's table). */
int wt_metric_kept(const char *name, size_t n);

#endif
