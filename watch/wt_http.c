/*
 * wt_http.c -- the text side of `oomlens watch --metrics` (wt_http.h):
 * the URL taken apart and checked, the request line, and the reply read
 * back (status, headers, a chunked body decoded) and filtered down to the
 * load samples oomlens reads. No socket here: wt_metrics.c does the
 * exchange, a fuzzer drives these (fuzz/fuzz_watch_metrics.c).
 *
 * The reply is untrusted: every length is checked against the bytes
 * there, a chunk size is bounded before it is added, and nothing is kept
 * from a line with a control byte in it.
 */
#include "watch/wt_http.h"
#include "watch/watch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The samples kept, by exact metric name. Append rows; each engine's
 * names are from the file and tag given. */
static const char *const kept_names[] = {
	/* vLLM vllm/v1/metrics/loggers.py@005a810 (v0.10.x: PrometheusStatLogger
	 * gauges and counters) and vllm/engine/metrics.py (V0: swapped, cpu cache) */
	"vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:num_requests_swapped",
	"vllm:gpu_cache_usage_perc", "vllm:kv_cache_usage_perc", "vllm:cpu_cache_usage_perc",
	"vllm:num_preemptions_total", "vllm:prompt_tokens_total", "vllm:generation_tokens_total",
	/* SGLang python/sglang/srt/metrics/collector.py@93d0487 (TokenizerMetrics and
	 * SchedulerMetricsCollector, --enable-metrics) */
	"sglang:num_running_reqs", "sglang:num_queue_reqs", "sglang:token_usage",
	"sglang:num_used_tokens",
	/* TGI backends/v3/src/backend.rs, queue.rs and router/src/server.rs@v3.3.7
	 * (gauges described in server.rs) */
	"tgi_batch_current_size", "tgi_queue_size", "tgi_batch_current_max_tokens",
	"tgi_request_count",
	/* Triton docs/user_guide/metrics.md@067c1e9 (Pending Request Count; GPU memory
	 * from DCGM; Inference Count) */
	"nv_inference_pending_request_count", "nv_inference_count", "nv_gpu_memory_used_bytes",
	"nv_gpu_memory_total_bytes",
	/* llama.cpp tools/server/server.cpp (llama-server --metrics: requests
	 * processing and deferred, read in its /metrics handler) */
	"llamacpp:requests_processing", "llamacpp:requests_deferred",
	"llamacpp:kv_cache_usage_ratio", "llamacpp:kv_cache_tokens",
	/* prometheus_client's process collector (vLLM's and SGLang's API server) */
	"process_resident_memory_bytes",
	/* LMDeploy lmdeploy/metrics/loggers.py@v0.16.0 (api_server, metrics on
	 * unless --disable-metrics) */
	"lmdeploy:num_requests_running", "lmdeploy:num_requests_waiting",
	"lmdeploy:gpu_cache_usage_perc", "lmdeploy:num_api_requests_waiting",
	NULL
};

int wt_metric_kept(const char *name, size_t n)
{
	int i;

	for (i = 0; kept_names[i]; i++)
		if (strlen(kept_names[i]) == n && !memcmp(kept_names[i], name, n))
			return 1;
	return 0;
}

int wt_url_parse(const char *url, struct wt_url *u, char *why, size_t whyn)
{
	const char *p, *host, *he, *pe;
	size_t i, n = strlen(url);
	long port = 80;

	memset(u, 0, sizeof(*u));
	for (i = 0; i < n; i++)
		if ((unsigned char)url[i] <= ' ' || (unsigned char)url[i] >= 0x7f) {
			snprintf(why, whyn, "a space or a control or non-ASCII byte cannot go in"
				 " a request line");
			return -1;
		}
	if (!strncasecmp(url, "https://", 8)) {
		snprintf(why, whyn, "https is not supported (no TLS): give the engine's plain"
			 " http port on this host");
		return -1;
	}
	if (strncasecmp(url, "http://", 7)) {
		snprintf(why, whyn, "only http://host:port/path is supported");
		return -1;
	}
	host = url + 7;
	pe = host + strcspn(host, "/?#");
	if (memchr(host, '@', (size_t)(pe - host))) {
		snprintf(why, whyn, "user information (user@host) is not supported");
		return -1;
	}
	if (*host == '[') {                   /* [IPv6]:port */
		he = memchr(host, ']', (size_t)(pe - host));
		if (!he || he == host + 1) {
			snprintf(why, whyn, "an IPv6 address must be written [addr]");
			return -1;
		}
		p = he + 1;
		host++;
	} else {
		he = memchr(host, ':', (size_t)(pe - host));
		if (!he)
			he = pe;
		p = he;
	}
	if (he == host || (size_t)(he - host) >= sizeof(u->host)) {
		snprintf(why, whyn, "no host, or a host name too long");
		return -1;
	}
	memcpy(u->host, host, (size_t)(he - host));
	if (p < pe && *p == ':') {
		char *end;
		port = strtol(p + 1, &end, 10);
		if (end != pe || end == p + 1 || port < 1 || port > 65535) {
			snprintf(why, whyn, "the port is not a number from 1 to 65535");
			return -1;
		}
	} else if (p != pe) {
		snprintf(why, whyn, "unexpected text after the host");
		return -1;
	}
	snprintf(u->port, sizeof(u->port), "%ld", port);
	snprintf(u->hostport, sizeof(u->hostport), "%.*s", (int)(pe - (url + 7)), url + 7);
	if (*pe == '#' || !*pe) {
		snprintf(u->path, sizeof(u->path), "/metrics");
	} else {
		size_t pl = strcspn(pe, "#");
		if (pl >= sizeof(u->path)) {
			snprintf(why, whyn, "the path is too long");
			return -1;
		}
		if (*pe == '?')
			snprintf(u->path, sizeof(u->path), "/%.*s", (int)pl, pe);
		else
			memcpy(u->path, pe, pl);
	}
	return 0;
}

void wt_http_request(const struct wt_url *u, struct strbuf *into)
{
	strbuf_reset(into);
	strbuf_addf(into, "GET %s HTTP/1.0\r\nHost: %s\r\nAccept: text/plain;version=0.0.4\r\n"
		    "User-Agent: oomlens-watch\r\nConnection: close\r\n\r\n", u->path, u->hostport);
}

/* The value of header name in h[0..n) (the headers, one per line), its
 * length in *vl; NULL when absent. */
static const char *header(const char *h, size_t n, const char *name, size_t *vl)
{
	size_t nl = strlen(name);
	const char *p = h, *e = h + n;

	while (p < e) {
		const char *le = memchr(p, '\n', (size_t)(e - p));
		if (!le)
			le = e;
		if ((size_t)(le - p) > nl && p[nl] == ':' && !strncasecmp(p, name, nl)) {
			const char *v = p + nl + 1, *ve = le;
			while (v < ve && (*v == ' ' || *v == '\t'))
				v++;
			while (ve > v && (ve[-1] == '\r' || ve[-1] == ' '))
				ve--;
			*vl = (size_t)(ve - v);
			return v;
		}
		p = le + 1;
	}
	return NULL;
}

/* Decode a chunked body b[0..n) into out. 0, or -1 with why. */
static int dechunk(const char *b, size_t n, struct strbuf *out, char *why, size_t whyn)
{
	size_t i = 0;

	for (;;) {
		size_t sz = 0, d = 0;
		const char *le;

		while (i + d < n && d < 9) {
			char c = b[i + d];
			int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
				c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
			if (v < 0)
				break;
			sz = sz * 16 + (size_t)v;
			d++;
		}
		le = d ? memchr(b + i, '\n', n - i) : NULL;
		if (!le || d == 9 || sz > WT_HTTP_MAX) {
			snprintf(why, whyn, "a chunk size is missing or too large");
			return -1;
		}
		i = (size_t)(le - b) + 1;
		if (!sz)
			return 0;
		if (sz > n - i) {
			snprintf(why, whyn, "the reply was cut short in a chunk");
			return -1;
		}
		strbuf_add(out, b + i, sz);
		i += sz;
		if (i < n && b[i] == '\r')
			i++;
		if (i < n && b[i] == '\n')
			i++;
	}
}

/* Keep, of the exposition text b[0..n), the lines of kept families. */
static int filter(const char *b, size_t n, struct strbuf *out)
{
	const char *p = b, *e = b + n;
	int kept = 0;

	while (p < e) {
		const char *le = memchr(p, '\n', (size_t)(e - p)), *name = p, *q;
		size_t len, i;
		int ok = 1;

		if (!le)
			le = e;
		len = (size_t)(le - p);
		while (len && (p[len - 1] == '\r' || p[len - 1] == ' '))
			len--;
		for (i = 0; i < len && ok; i++)
			ok = (unsigned char)p[i] >= ' ' || p[i] == '\t';
		if (ok && len > 7 && (!memcmp(p, "# HELP ", 7) || !memcmp(p, "# TYPE ", 7)))
			name = p + 7;
		else if (ok && len && p[0] == '#')
			ok = 0;
		for (q = name; ok && q < p + len && *q != ' ' && *q != '{'; q++)
			;
		if (ok && q > name && wt_metric_kept(name, (size_t)(q - name))) {
			strbuf_add(out, p, len);
			strbuf_addch(out, '\n');
			kept += name == p;
		}
		p = le + 1;
	}
	return kept;
}

int wt_http_reply(const char *r, size_t n, struct strbuf *out, char *why, size_t whyn)
{
	const char *he, *body, *v;
	size_t hl, bl, vl;
	int status, kept;

	if (n < 12 || memcmp(r, "HTTP/1.", 7) || r[8] != ' ' || r[9] < '1' || r[9] > '5' ||
	    r[10] < '0' || r[10] > '9' || r[11] < '0' || r[11] > '9') {
		snprintf(why, whyn, "the reply is not HTTP/1.x");
		return -1;
	}
	status = (r[9] - '0') * 100 + (r[10] - '0') * 10 + (r[11] - '0');
	he = memmem(r, n, "\r\n\r\n", 4);
	if (he) {
		body = he + 4;
	} else if ((he = memmem(r, n, "\n\n", 2))) {
		body = he + 2;
	} else {
		snprintf(why, whyn, "the reply was cut short in its headers");
		return -1;
	}
	hl = (size_t)(he - r);
	bl = n - (size_t)(body - r);
	if (status >= 300 && status < 400) {
		v = header(r, hl, "Location", &vl);
		snprintf(why, whyn, "status %d: redirects are not followed%s%.*s", status,
			 v ? " (Location: " : "", v ? (int)(vl > 200 ? 200 : vl) : 0, v ? v : "");
		if (v)
			strncat(why, ")", whyn - strlen(why) - 1);
		return -1;
	}
	if (status != 200) {
		snprintf(why, whyn, "status %d", status);
		return -1;
	}
	if ((v = header(r, hl, "Content-Encoding", &vl)) && !(vl == 8 && !strncasecmp(v, "identity", 8))) {
		snprintf(why, whyn, "a compressed reply (Content-Encoding: %.*s) is not read",
			 (int)(vl > 40 ? 40 : vl), v);
		return -1;
	}
	if ((v = header(r, hl, "Transfer-Encoding", &vl)) && vl >= 7 &&
	    !strncasecmp(v + vl - 7, "chunked", 7)) {
		struct strbuf dec;
		strbuf_init(&dec);
		if (dechunk(body, bl, &dec, why, whyn) < 0 || strbuf_failed(&dec)) {
			if (strbuf_failed(&dec))
				snprintf(why, whyn, "out of memory");
			strbuf_release(&dec);
			return -1;
		}
		kept = filter(dec.buf ? dec.buf : "", dec.len, out);
		strbuf_release(&dec);
		return kept;
	}
	if ((v = header(r, hl, "Content-Length", &vl))) {
		/* the value's digits only: the reply is not NUL-terminated */
		unsigned long long cl = 0;
		size_t i = 0;
		int digits = 0;

		while (i < vl && (v[i] == ' ' || v[i] == '\t'))
			i++;
		for (; i < vl && v[i] >= '0' && v[i] <= '9' && cl < (1ULL << 60); i++, digits++)
			cl = cl * 10 + (unsigned)(v[i] - '0');
		if (digits && cl > bl) {
			snprintf(why, whyn, "the reply was cut short (%zu of %llu bytes)", bl, cl);
			return -1;
		}
		if (digits)
			bl = (size_t)cl;
	}
	return filter(body, bl, out);
}

int wt_metrics_url_check(const char *url, char *why, size_t whyn)
{
	struct wt_url u;

	return wt_url_parse(url, &u, why, whyn);
}
