/*
 * wt_int.h -- what the watcher's modules share (not for other folders):
 * the run's context, one watched cgroup, and the sampling and kmsg calls
 * the loop (wt_loop.c) makes.
 */
#ifndef OOMLENS_WT_INT_H
#define OOMLENS_WT_INT_H

#include "watch/watch.h"
#include "watch/wt_out.h"
#include "lib/strbuf.h"

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
	int kmsg_in_report;   /* 1: between a report's header and its kill line */
};
#define WT_BUF (256 * 1024)

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

/* Open the kernel log follower at its end (c->kmsg_fd; -1 with a note when
 * it cannot be read: the watcher goes on without it). */
void wt_kmsg_open(struct wt_ctx *c, const char *path);
/* Copy the records waiting in the kernel log into kmsg.log, setting
 * c->kmsg_oom when one is part of an OOM-killer report. 0 or -1. */
int wt_kmsg_drain(struct wt_ctx *c);
void wt_kmsg_close(struct wt_ctx *c);

#endif
