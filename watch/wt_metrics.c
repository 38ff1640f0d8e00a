/*
 * wt_metrics.c -- `oomlens watch --metrics URL`: the serving engine's load
 * beside the memory series. Every interval (at most once a second per
 * URL) the engine's Prometheus endpoint is read over plain HTTP
 * (wt_http.c), and the few samples oomlens uses are appended to
 * metrics.prom as a capture record, "### <iso> src=metrics url=...
 * mono=..." and the kept lines of the exposition text, which
 * parsers/tools/prom_text.c reads (the separator's time is each sample's).
 *
 * The kept samples are the engines' load gauges, learnt from their own
 * sources (wt_http.c's table cites file@tag); prom_text.c turns them into
 * the series the rules read (server.running, server.waiting,
 * server.gpu_kv_usage). Everything else of a scrape (latency histograms,
 * the bulk of it) is dropped before it is written.
 *
 * The exchange never holds the watcher up: the host is resolved once at
 * start, and the socket is non-blocking, its connect, request and reply
 * moved on by the loop's poll() (wt_loop.c) beside the kernel log, so an
 * engine that hangs delays no memory sample. Connect and reply share one
 * deadline (WT_HTTP_TIMEOUT_MS); the reply grows a buffer up to
 * WT_HTTP_MAX bytes and is refused whole when it passes it. An endpoint
 * that fails is tried again after a back-off that doubles up to a minute;
 * each new kind of failure is said once on stderr. A scrape's samples
 * take the time the request was started.
 */
#include "watch/wt_int.h"
#include "watch/wt_http.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int wt_metrics_init(struct wt_ctx *c)
{
	int i;

	for (i = 0; i < c->cfg->nmetrics; i++) {
		struct wt_metrics *m = &c->met[i];
		struct addrinfo hints, *res = NULL;
		char why[200];
		int r;

		m->url = c->cfg->metrics[i];
		if (wt_url_parse(m->url, &m->u, why, sizeof(why)) < 0) {
			fprintf(stderr, "oomlens: watch: --metrics %s: %s\n", m->url, why);
			return -1;
		}
		memset(&hints, 0, sizeof(hints));
		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		hints.ai_flags = AI_NUMERICSERV;
		r = getaddrinfo(m->u.host, m->u.port, &hints, &res);
		if (r || !res || res->ai_addrlen > sizeof(m->addr)) {
			fprintf(stderr, "oomlens: watch: --metrics %s: cannot resolve %s: %s\n", m->url,
				m->u.host, r ? gai_strerror(r) : "no address");
			if (res)
				freeaddrinfo(res);
			return -1;
		}
		memcpy(&m->addr, res->ai_addr, res->ai_addrlen);
		m->addrlen = res->ai_addrlen;
		m->family = res->ai_family;
		freeaddrinfo(res);
		wt_http_request(&m->u, &m->req);
		if (strbuf_failed(&m->req)) {
			fprintf(stderr, "oomlens: watch: out of memory\n");
			return -1;
		}
	}
	return 0;
}

/* The exchange's states (struct wt_metrics.state). */
enum { WM_CONNECTING = 1, WM_SENDING, WM_READING };

static int64_t mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* End m's exchange: close the socket, and free a reply buffer grown past
 * 256 KiB (a large reply is not kept in memory between scrapes). */
static void end_exchange(struct wt_metrics *m)
{
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
	m->state = 0;
	m->keep = 0;
	if (m->cap > (256 << 10)) {
		free(m->buf);
		m->buf = NULL;
		m->cap = 0;
	}
}

/* m failed (why): say it once per kind, back off, end the exchange. */
static void failed(struct wt_ctx *c, struct wt_metrics *m, const char *why)
{
	m->backoff_ns = m->backoff_ns ? m->backoff_ns * 2 : 2000000000LL;
	if (m->backoff_ns > 60000000000LL)
		m->backoff_ns = 60000000000LL;
	m->next_ns = m->t_mono + m->backoff_ns;
	m->failures++;
	if (strncmp(m->said, why, sizeof(m->said) - 1) && !c->cfg->quiet)
		fprintf(stderr, "oomlens: watch: --metrics %s: %s (tried again in %lld s)\n",
			m->url, why, (long long)(m->backoff_ns / 1000000000));
	snprintf(m->said, sizeof(m->said), "%.*s", (int)sizeof(m->said) - 1, why);
	end_exchange(m);
}

/* m's reply is whole: keep its samples in metrics.prom. 0 or -1. */
static int finished(struct wt_ctx *c, struct wt_metrics *m)
{
	char why[300], src[WT_URL_MAX + 16];
	int64_t utc = c->utc_ns, mono = c->mono_ns;
	int kept, r = 0;

	/* the separator takes the clocks of the request's start */
	c->utc_ns = m->t_utc;
	c->mono_ns = m->t_mono;
	/* "src=metrics url=URL": readers ignore keys they do not know */
	snprintf(src, sizeof(src), "metrics url=%s", m->url);
	wt_sep(c, src, 0, NULL, NULL, m->keep ? m->trigger : NULL);
	c->utc_ns = utc;
	c->mono_ns = mono;
	kept = wt_http_reply(m->buf ? m->buf : "", m->got, &c->rec, why, sizeof(why));
	if (kept < 0) {
		failed(c, m, why);
		return 0;
	}
	if (m->backoff_ns && !c->cfg->quiet)
		fprintf(stderr, "oomlens: watch: --metrics %s: answering again\n", m->url);
	m->backoff_ns = 0;
	m->said[0] = 0;
	m->scrapes++;
	if (!kept) {
		if (!m->said_none && !c->cfg->quiet)
			fprintf(stderr, "oomlens: watch: --metrics %s: none of the load metrics oomlens"
				" reads is there (docs/watch.md lists them)\n", m->url);
		m->said_none = 1;
	} else if (strbuf_failed(&c->rec)) {
		fprintf(stderr, "oomlens: watch: out of memory\n");
		r = -1;
	} else {
		r = wt_out_put(&c->out, WT_METRICS, c->rec.buf, c->rec.len, m->keep);
	}
	end_exchange(m);
	return r;
}

void wt_metrics_start(struct wt_ctx *c, const char *trigger)
{
	int i;

	for (i = 0; i < c->cfg->nmetrics; i++) {
		struct wt_metrics *m = &c->met[i];

		if (m->fd >= 0) {            /* in flight: an OOM moment if one came */
			if (trigger && !m->keep) {
				m->keep = 1;
				snprintf(m->trigger, sizeof(m->trigger), "%s", trigger);
			}
			continue;
		}
		if (c->mono_ns < m->next_ns && !(trigger && !m->backoff_ns))
			continue;
		m->t_utc = c->utc_ns;
		m->t_mono = c->mono_ns;
		/* a tenth of slack: a sample taken late on the grid keeps its turn */
		m->next_ns = c->mono_ns + WT_METRICS_MIN_NS - WT_METRICS_MIN_NS / 10;
		m->keep = trigger != NULL;
		if (trigger)
			snprintf(m->trigger, sizeof(m->trigger), "%s", trigger);
		m->deadline_ms = mono_ms() + WT_HTTP_TIMEOUT_MS;
		m->req_off = 0;
		m->got = 0;
		m->fd = socket(m->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (m->fd < 0) {
			char why[120];
			snprintf(why, sizeof(why), "socket: %s", strerror(errno));
			failed(c, m, why);
			continue;
		}
		m->state = WM_CONNECTING;
		if (connect(m->fd, (struct sockaddr *)&m->addr, m->addrlen) == 0) {
			m->state = WM_SENDING;
		} else if (errno != EINPROGRESS) {
			char why[120];
			snprintf(why, sizeof(why), "connect: %s", strerror(errno));
			failed(c, m, why);
		}
	}
}

int wt_metrics_pollfds(struct wt_ctx *c, struct pollfd *p, int max, int *wait_ms)
{
	int64_t now = mono_ms();
	int i, n = 0;

	*wait_ms = INT_MAX;
	for (i = 0; i < c->cfg->nmetrics && n < max; i++) {
		struct wt_metrics *m = &c->met[i];
		if (m->fd < 0)
			continue;
		p[n].fd = m->fd;
		p[n].events = m->state == WM_READING ? POLLIN : POLLOUT;
		p[n].revents = 0;
		n++;
		if (m->deadline_ms - now < *wait_ms)
			*wait_ms = m->deadline_ms <= now ? 0 : (int)(m->deadline_ms - now);
	}
	return n;
}

/* Move m's exchange on without blocking. 0, or -1 when a write failed. */
static int step(struct wt_ctx *c, struct wt_metrics *m)
{
	char why[160];
	int err = 0;
	socklen_t el = sizeof(err);

	if (m->state == WM_CONNECTING) {
		struct pollfd p = { m->fd, POLLOUT, 0 };
		if (poll(&p, 1, 0) <= 0)
			goto late;
		if (getsockopt(m->fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err) {
			snprintf(why, sizeof(why), "connect: %s", strerror(err ? err : errno));
			failed(c, m, why);
			return 0;
		}
		m->state = WM_SENDING;
	}
	while (m->state == WM_SENDING) {
		ssize_t w = send(m->fd, m->req.buf + m->req_off, m->req.len - m->req_off,
				 MSG_NOSIGNAL);
		if (w < 0 && (errno == EAGAIN || errno == EINTR))
			goto late;
		if (w <= 0) {
			snprintf(why, sizeof(why), "send: %s", strerror(errno));
			failed(c, m, why);
			return 0;
		}
		m->req_off += (size_t)w;
		if (m->req_off == m->req.len)
			m->state = WM_READING;
	}
	for (;;) {
		ssize_t n;

		if (m->got == m->cap) {
			size_t cap = m->cap ? m->cap * 2 : 64 << 10;
			char *nb;
			if (m->cap >= WT_HTTP_MAX) {
				snprintf(why, sizeof(why), "the reply passed %d MiB; not kept",
					 WT_HTTP_MAX >> 20);
				failed(c, m, why);
				return 0;
			}
			if (cap > WT_HTTP_MAX)
				cap = WT_HTTP_MAX;
			if (!(nb = realloc(m->buf, cap))) {
				failed(c, m, "out of memory for the reply");
				return 0;
			}
			m->buf = nb;
			m->cap = cap;
		}
		n = recv(m->fd, m->buf + m->got, m->cap - m->got, 0);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			goto late;
		if (n < 0) {
			snprintf(why, sizeof(why), "recv: %s", strerror(errno));
			failed(c, m, why);
			return 0;
		}
		if (n == 0)
			return finished(c, m);
		m->got += (size_t)n;
	}
late:
	if (mono_ms() >= m->deadline_ms) {
		if (m->state == WM_CONNECTING)
			snprintf(why, sizeof(why), "connect: timed out after %d ms", WT_HTTP_TIMEOUT_MS);
		else
			snprintf(why, sizeof(why), "no whole reply within %d ms", WT_HTTP_TIMEOUT_MS);
		failed(c, m, why);
	}
	return 0;
}

int wt_metrics_step(struct wt_ctx *c)
{
	int i;

	for (i = 0; i < c->cfg->nmetrics; i++)
		if (c->met[i].fd >= 0 && step(c, &c->met[i]) < 0)
			return -1;
	return 0;
}

void wt_metrics_close(struct wt_ctx *c)
{
	int i;

	for (i = 0; i < c->cfg->nmetrics; i++) {
		struct wt_metrics *m = &c->met[i];
		if (m->fd >= 0)
			close(m->fd);
		m->fd = -1;
		free(m->buf);
		m->buf = NULL;
		m->cap = 0;
		strbuf_release(&m->req);
	}
}
