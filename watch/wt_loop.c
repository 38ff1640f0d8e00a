/*
 * wt_loop.c -- the watcher's schedule (wt_run, watch.h): a sample every
 * interval on a fixed grid (a slow sample does not shift the next ones),
 * the kernel log drained as soon as poll() says it has records, a burst
 * of detail on a trigger, and a clean stop at --for, SIGINT or SIGTERM.
 *
 * Triggers: a cgroup's oom_kill counter that rises, a line of a kernel
 * OOM-killer report, a cgroup's usage crossing the threshold share of its
 * limit (on the rising edge only: a cgroup that stays high bursts once).
 * Bursts are at most one per interval; each marks its records with
 * trigger=<why> in their separator, which keeps them through thinning.
 *
 * The --metrics exchanges (wt_metrics.c) are started with each sample and
 * moved on whenever poll() says their sockets are ready, so an engine that
 * is slow to answer never delays the memory samples or the kernel log.
 */

#include "watch/wt_int.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t wt_stop;

static void on_signal(int sig)
{
	(void)sig;
	wt_stop = 1;
}

/* 1 when the program nvidia-smi is in PATH. */
static int find_smi(void)
{
	const char *path = getenv("PATH"), *p, *e;
	char buf[PATH_MAX];

	for (p = path; p && *p; p = *e ? e + 1 : e) {
		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		snprintf(buf, sizeof(buf), "%.*s/nvidia-smi", (int)(e - p), p);
		if (e > p && access(buf, X_OK) == 0)
			return 1;
	}
	return 0;
}

static void read_boot_id(struct wt_ctx *c)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	size_t n;

	c->boot_id[0] = 0;
	if (!f)
		return;
	if (fgets(c->boot_id, sizeof(c->boot_id), f)) {
		n = strcspn(c->boot_id, "\n ");
		c->boot_id[n] = 0;
	}
	fclose(f);
}

/* Refuse an output folder inside /proc, /sys, /dev or a watched cgroup
 * (the evidence being watched). 0 or -1 (said). */
static int check_out(const struct wt_config *cfg)
{
	char out[PATH_MAX], cg[PATH_MAX];
	static const char *const banned[] = { "/proc", "/sys", "/dev", NULL };
	int i;

	if (!realpath(cfg->out, out)) {
		fprintf(stderr, "oomlens: watch: %s: %s\n", cfg->out, strerror(errno));
		return -1;
	}
	for (i = 0; banned[i]; i++) {
		size_t n = strlen(banned[i]);
		if (!strncmp(out, banned[i], n) && (out[n] == '/' || !out[n])) {
			fprintf(stderr, "oomlens: watch: the output folder %s lies in %s; refused\n",
				out, banned[i]);
			return -1;
		}
	}
	for (i = 0; i < cfg->ncgroups; i++) {
		size_t n;
		if (!realpath(cfg->cgroups[i], cg))
			continue;
		n = strlen(cg);
		if (!strncmp(out, cg, n) && (out[n] == '/' || !out[n])) {
			fprintf(stderr, "oomlens: watch: the output folder lies inside the watched"
				" cgroup %s; refused\n", cg);
			return -1;
		}
	}
	return 0;
}

/* One sample of everything watched; trigger as in wt_sample_cgroup. */
static int sample_all(struct wt_ctx *c, const char *trigger)
{
	int i;

	wt_now(c);
	for (i = 0; i < c->cfg->ncgroups; i++)
		if (wt_sample_cgroup(c, &c->cg[i], trigger) < 0 ||
		    wt_sample_procs(c, &c->cg[i], trigger) < 0)
			return -1;
	for (i = 0; i < c->cfg->npids; i++)
		if (wt_sample_pid(c, c->cfg->pids[i], NULL, trigger) < 0)
			return -1;
	if (wt_sample_host(c, trigger) < 0 || wt_sample_gpus(c, trigger != NULL) < 0)
		return -1;
	wt_metrics_start(c, trigger);
	return 0;
}

/* Why the last sample should trigger a burst (NULL: it should not):
 * oom_kill counters against their values before (prev), the threshold. */
static const char *check_triggers(struct wt_ctx *c, const int64_t *prev)
{
	const char *why = NULL;
	int i;

	for (i = 0; i < c->cfg->ncgroups; i++) {
		struct wt_cg *cg = &c->cg[i];
		int over = cg->usage >= 0 && cg->limit > 0 &&
			   (double)cg->usage >= c->cfg->threshold * (double)cg->limit;

		if (prev[i] >= 0 && cg->oom_kill > prev[i])
			why = "oom_kill";
		else if (over && !cg->over && !why)
			why = "threshold";
		cg->over = over;
	}
	return why;
}

static int64_t mono_now(void)
{
	struct timespec m;

	clock_gettime(CLOCK_MONOTONIC, &m);
	return (int64_t)m.tv_sec * 1000000000 + m.tv_nsec;
}

/* The loop proper, once c is set up. 0 or -1. */
static int loop(struct wt_ctx *c)
{
	const struct wt_config *cfg = c->cfg;
	int64_t start = mono_now(), next = start, last_burst = start - cfg->interval_ns;
	int64_t prev[WT_MAX_CGROUPS];
	int i, bursts = 0;
	long samples = 0;

	while (!wt_stop) {
		int64_t now = mono_now();
		const char *why = NULL;
		struct pollfd pfd[1 + WT_MAX_METRICS];
		int np = 0, mwait;

		if (cfg->for_ns > 0 && now - start >= cfg->for_ns)
			break;
		if (now >= next) {
			for (i = 0; i < cfg->ncgroups; i++)
				prev[i] = c->cg[i].oom_kill;
			if (sample_all(c, NULL) < 0)
				return -1;
			samples++;
			why = check_triggers(c, prev);
			while (next <= now)
				next += cfg->interval_ns;
		} else {
			int64_t wait = next - now;
			int wait_ms;
			if (cfg->for_ns > 0 && start + cfg->for_ns - now < wait)
				wait = start + cfg->for_ns - now;
			wait_ms = (int)((wait + 999999) / 1000000);
			/* at a file's end poll says readable forever: read it each tick */
			if (c->kmsg_fd >= 0 && !c->kmsg_eof) {
				pfd[0].fd = c->kmsg_fd;
				pfd[0].events = POLLIN;
				pfd[0].revents = 0;
				np = 1;
			}
			/* the metrics exchanges in flight wake the loop too */
			np += wt_metrics_pollfds(c, pfd + np, WT_MAX_METRICS, &mwait);
			if (mwait < wait_ms)
				wait_ms = mwait;
			if (poll(pfd, (nfds_t)np, wait_ms) < 0 && errno != EINTR)
				return -1;
		}
		if (wt_kmsg_drain(c) < 0 || wt_metrics_step(c) < 0)
			return -1;
		if (c->kmsg_oom && !why)
			why = "kmsg";
		c->kmsg_oom = 0;
		if (why && mono_now() - last_burst >= cfg->interval_ns) {
			if (!cfg->quiet)
				fprintf(stderr, "oomlens: watch: %s: capturing a burst\n", why);
			if (sample_all(c, why) < 0)
				return -1;
			last_burst = mono_now();
			bursts++;
		}
	}
	(void)wt_kmsg_drain(c);
	if (!cfg->quiet)
		fprintf(stderr, "oomlens: watch: stopped after %ld samples, %d bursts%s\n", samples,
			bursts, c->out.dropped ? " (samples dropped at the byte bound)" : "");
	return 0;
}

int wt_run(const struct wt_config *cfg)
{
	struct wt_ctx c;
	struct sigaction sa;
	int i, r = -1;

	memset(&c, 0, sizeof(c));
	c.cfg = cfg;
	c.kmsg_fd = -1;
	strbuf_init(&c.rec);
	for (i = 0; i < WT_MAX_METRICS; i++) {
		c.met[i].fd = -1;
		strbuf_init(&c.met[i].req);
	}
	for (i = 0; i < cfg->ncgroups; i++)
		if (wt_cg_init(&c.cg[i], cfg->cgroups[i]) < 0)
			return -1;
	if (wt_out_open(&c.out, cfg->out, cfg->max_bytes) < 0)
		return -1;
	if (check_out(cfg) < 0)
		goto done;
	c.buf = malloc(WT_BUF);
	if (!c.buf) {
		fprintf(stderr, "oomlens: watch: out of memory\n");
		goto done;
	}
	if (wt_metrics_init(&c) < 0)
		goto done;
	read_boot_id(&c);
	c.have_smi = cfg->gpus && find_smi();
	if (cfg->gpus && !c.have_smi && !cfg->quiet)
		fprintf(stderr, "oomlens: watch: --gpus: nvidia-smi is not in PATH; no GPU samples\n");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: poll() returns at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	wt_stop = 0;
	wt_kmsg_open(&c, cfg->kmsg_path ? cfg->kmsg_path : "/dev/kmsg");
	if (!cfg->quiet)
		fprintf(stderr, "oomlens: watch: %d cgroup(s), %d pid(s), %d metrics endpoint(s)"
			" every %.3f s into %s\n", cfg->ncgroups, cfg->npids, cfg->nmetrics,
			(double)cfg->interval_ns / 1e9, cfg->out);
	r = loop(&c);
done:
	wt_kmsg_close(&c);
	wt_metrics_close(&c);
	wt_out_close(&c.out);
	strbuf_release(&c.rec);
	free(c.buf);
	return r;
}
