/*
 * watch.h -- the collector behind `oomlens watch`: it samples what the
 * rules read (cgroup memory files, smaps_rollup of the watched processes,
 * memory pressure, nvidia-smi's queries), follows /dev/kmsg for OOM-killer
 * reports, and on a trigger (an oom_kill counter that rises, a kernel OOM
 * report, usage above a share of the limit) captures a burst of detail.
 * Everything goes into one output folder in the formats `oomlens analyze`
 * already reads (docs/watch.md): whole records appended with one write(2)
 * each, so a watcher killed at any moment leaves complete files.
 *
 * Modules: wt_out.c (the folder: safe opens, appends, the byte bound and
 * thinning), wt_sample.c (one sample of a cgroup, a pid, the host, the
 * GPUs), wt_kmsg.c (the kernel log follower), wt_loop.c (the schedule,
 * triggers and stop), wt_arm.c (--print-arm texts), wt_metrics.c and
 * wt_http.c (--metrics: a serving engine's load from its Prometheus
 * endpoint).
 */
#ifndef OOMLENS_WATCH_H
#define OOMLENS_WATCH_H

#include <stddef.h>
#include <stdint.h>

#define WT_MAX_CGROUPS 16
#define WT_MAX_PIDS 64
#define WT_MAX_METRICS 8

/* What `oomlens watch` was asked to do (cmd_watch.c fills it). */
struct wt_config {
	const char *cgroups[WT_MAX_CGROUPS]; /* cgroup folders (/sys/fs/cgroup/...) */
	int ncgroups;
	int pids[WT_MAX_PIDS];               /* processes watched by pid */
	int npids;
	int gpus;              /* 1: sample nvidia-smi when present */
	const char *metrics[WT_MAX_METRICS]; /* serving engines' Prometheus URLs */
	int nmetrics;
	const char *out;       /* output folder (made if missing) */
	int64_t interval_ns;   /* sampling period (> 0) */
	int64_t for_ns;        /* stop after this long; 0: until a signal */
	int64_t max_bytes;     /* bound on the folder's files; 0: none */
	double threshold;      /* usage share of the limit that triggers (0.9) */
	const char *kmsg_path; /* "/dev/kmsg" unless a test names another */
	int quiet;             /* 1: no progress lines on stderr */
};

/* Run the collector until cfg->for_ns elapses, or SIGINT/SIGTERM. The
 * output folder is made if missing; it must not be (or lie inside) one of
 * the watched cgroup folders. Returns 0 after a clean stop, -1 after
 * printing why it could not start or had to stop (stderr). */
int wt_run(const struct wt_config *cfg);

/* Whether url is one --metrics takes (http://host[:port][/path]). 0, or
 * -1 with why (for the command line's usage error). */
int wt_metrics_url_check(const char *url, char *why, size_t whyn);

/* The arming text for engine (wt_arm_engines) on stdout.
 * 0, or -1 when the engine is not one of those. */
int wt_print_arm(const char *engine);
/* The engines --print-arm knows, space-separated. */
extern const char wt_arm_engines[];

#endif
