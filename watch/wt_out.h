/*
 * wt_out.h -- the watcher's output folder: the files it appends to, each
 * opened without following a symbolic link and only when it is a plain
 * file of its own (one link), every record added with one write(2) so
 * that a killed watcher leaves whole records, and the folder kept under
 * a byte bound by thinning the oldest samples (records marked as an OOM
 * moment are never dropped).
 */
#ifndef OOMLENS_WT_OUT_H
#define OOMLENS_WT_OUT_H

#include <stddef.h>
#include <stdint.h>

/* The files of the folder (docs/watch.md). */
enum wt_file {
	WT_CGROUP,   /* cgroup.log: capture records of the cgroup memory files */
	WT_SMAPS,    /* smaps.log: capture records of /proc/PID/smaps_rollup */
	WT_KMSG,     /* kmsg.log: /dev/kmsg records as read (never thinned) */
	WT_GPU,      /* gpu.csv: nvidia-smi --query-gpu rows */
	WT_GPU_APPS, /* gpu-apps.csv: nvidia-smi --query-compute-apps rows */
	WT_METRICS,  /* metrics.prom: capture records of kept Prometheus samples */
	WT_NFILES
};

struct wt_out {
	int dirfd;                 /* the folder, opened O_DIRECTORY|O_NOFOLLOW */
	int fd[WT_NFILES];         /* -1 until first written */
	int64_t size[WT_NFILES];   /* bytes in each file */
	int64_t max_bytes;         /* 0: no bound */
	int full;                  /* 1: thinning found nothing left: samples dropped */
	int64_t dropped;           /* records not written because full */
};

/* Make (mode 0750) or open the folder dir, refusing a symbolic link there,
 * and remove a thinning temporary left by a killed run. 0, or -1 after
 * printing why. */
int wt_out_open(struct wt_out *o, const char *dir, int64_t max_bytes);
/* Append buf[0..n) to file f in one write(2). keep: an OOM moment, written
 * even when the bound is reached and never thinned (its separator line
 * holds " trigger="). A sample that would pass the bound first thins the
 * oldest samples. 0, or -1 after printing why (disk full, file replaced
 * by something else). */
int wt_out_put(struct wt_out *o, enum wt_file f, const char *buf, size_t n, int keep);
/* Whether file f holds nothing yet (for a CSV header). */
int wt_out_empty(const struct wt_out *o, enum wt_file f);
/* Close every file and the folder. */
void wt_out_close(struct wt_out *o);

#endif
