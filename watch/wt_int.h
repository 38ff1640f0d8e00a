/*
 * wt_int.h -- what the watcher's modules share (not for other folders):
 * the run's context, one watched cgroup, and the sampling and kmsg calls
 * the loop (wt_loop.c) makes.
 */
#ifndef OOMLENS_WT_INT_H
#define OOMLENS_WT_INT_H

#include "watch/watch.h"
#include "watch/wt_out.h"
#include "watch/wt_http.h"
#include "lib/strbuf.h"

#include <poll.h>
#include <sys/socket.h>

/* One watched cgroup and what its last sample read. */
struct wt_cg {
	const char *dir;      /* the folder given (/sys/fs/cgroup/memory/x) */
	char name[256];       /* the kernel's name for it (/x), or "" */
	int v2;               /* 1: cgroup v2 files (memory.current...) */
	int64_t usage;        /* bytes, -1 unknown */
	int64_t limit;        /* bytes, -1 none or unknown */
	int64_t oom_kill;     /* the oom_kill counter, -1 unknown */
	int over;             /* 1: usage is above the threshold (edge trigger) */
};

/* One --metrics endpoint and its exchange in flight (wt_metrics.c). */
struct wt_metrics {
	const char *url;      /* as given */
	struct wt_url u;
	struct sockaddr_storage addr;  /* resolved once, at start */
	socklen_t addrlen;
	int family;
	int fd;               /* the exchange's socket, -1 when none is in flight */
	int state;            /* WM_CONNECTING, WM_SENDING, WM_READING */
	int keep;             /* 1: the exchange was started or joined at a trigger */
	char trigger[16];     /* why, when keep */
	int64_t deadline_ms;  /* mono ms the exchange must end by */
	int64_t t_utc, t_mono; /* the clocks when it started: the samples' time */
	struct strbuf req;    /* the request, sent from req_off */
	size_t req_off;
	char *buf;            /* the reply so far, got of cap bytes (cap <= WT_HTTP_MAX) */
	size_t got, cap;
	int64_t next_ns;      /* mono time of the next scrape */
	int64_t backoff_ns;   /* 0, or the wait after the last failure */
	long scrapes, failures;
	char said[120];       /* the last failure said on stderr */
	int said_none;        /* 1: "none of the load metrics" was said */
};
/* A URL is scraped at most once a second, whatever --interval. */
#define WT_METRICS_MIN_NS 1000000000LL

/* The run's context. */
struct wt_ctx {
	const struct wt_config *cfg;
	struct wt_out out;
	struct wt_cg cg[WT_MAX_CGROUPS];
	char boot_id[48];     /* /proc/sys/kernel/random/boot_id, or "" */
	int64_t utc_ns;       /* the time of the sample being taken */
	int64_t mono_ns;      /* CLOCK_MONOTONIC of that moment */
	struct strbuf rec;    /* the record being built */
	char *buf;            /* a read buffer of WT_BUF bytes */
	int have_smi;         /* 1: nvidia-smi found in PATH */
	int64_t gpu_next_ns;  /* mono time of the next GPU sample */
	int kmsg_fd;          /* /dev/kmsg, -1 when it cannot be read */
	int kmsg_oom;         /* 1: an OOM report line was read since last asked */
	int kmsg_eof;         /* 1: the follower read end of file (a plain file or
			       * /dev/null given for /dev/kmsg): polled no more,
			       * read again each tick */
	int kmsg_in_report;   /* 1: between a report's header and its kill line */
	struct wt_metrics met[WT_MAX_METRICS];
};
#define WT_BUF (256 * 1024)

/* Start c->rec with a separator: src, then the optional pid/comm and
 * cgroup, the clocks, and the trigger. */
void wt_sep(struct wt_ctx *c, const char *src, int pid, const char *comm,
	    const char *cgname, const char *trigger);
/* Set cg's name and version from its folder. 0, or -1 when the folder
 * holds no memory controller file (said). */
int wt_cg_init(struct wt_cg *cg, const char *dir);
/* Take the clock readings of a new sample into c. */
void wt_now(struct wt_ctx *c);
/* Sample cgroup cg's memory files into cgroup.log (and read usage, limit
 * and oom_kill back into cg). trigger: NULL, or why this is an OOM moment
 * (the records are then marked and never thinned); burst adds the files a
 * trigger wants beyond the usual ones. 0 or -1 (a write failed). */
int wt_sample_cgroup(struct wt_ctx *c, struct wt_cg *cg, const char *trigger);
/* smaps_rollup of every process in cg (cgroup.procs) into smaps.log. */
int wt_sample_procs(struct wt_ctx *c, const struct wt_cg *cg, const char *trigger);
/* smaps_rollup of process pid into smaps.log (a process gone is skipped). */
int wt_sample_pid(struct wt_ctx *c, int pid, const char *cgname, const char *trigger);
/* The host's memory pressure (/proc/pressure/memory) into cgroup.log. */
int wt_sample_host(struct wt_ctx *c, const char *trigger);
/* nvidia-smi's GPU and compute-apps queries into gpu.csv and gpu-apps.csv
 * (nothing when nvidia-smi is absent). force: now, whatever the period. */
int wt_sample_gpus(struct wt_ctx *c, int force);

/* Take the --metrics URLs apart and resolve their hosts (once: no name
 * look-up in the loop). c->met[] must have fd -1 and req initialised
 * (wt_run does it, so that wt_metrics_close is safe on any path). 0, or
 * -1 after saying why (a URL refused, a host that does not resolve). */
int wt_metrics_init(struct wt_ctx *c);
/* Start a scrape of each endpoint whose time has come (every interval, at
 * most once a second; a trigger starts one at once unless the endpoint is
 * failing, and marks one in flight as an OOM moment). Never blocks: the
 * exchange goes on in wt_metrics_step. */
void wt_metrics_start(struct wt_ctx *c, const char *trigger);
/* The sockets of the exchanges in flight, into p (at most max), and the
 * milliseconds until the first of their deadlines (INT_MAX: none). */
int wt_metrics_pollfds(struct wt_ctx *c, struct pollfd *p, int max, int *wait_ms);
/* Move every exchange in flight on as far as it goes without blocking;
 * a finished one appends its kept samples to metrics.prom, a failed or
 * late one is said and backed off (never an error). 0, or -1 when a
 * write failed. */
int wt_metrics_step(struct wt_ctx *c);
/* Abandon the exchanges in flight and free their buffers. */
void wt_metrics_close(struct wt_ctx *c);

/* Open the kernel log follower at its end (c->kmsg_fd; -1 with a note when
 * it cannot be read: the watcher goes on without it). */
void wt_kmsg_open(struct wt_ctx *c, const char *path);
/* Copy the records waiting in the kernel log into kmsg.log, setting
 * c->kmsg_oom when one is part of an OOM-killer report. 0 or -1. */
int wt_kmsg_drain(struct wt_ctx *c);
void wt_kmsg_close(struct wt_ctx *c);

#endif
