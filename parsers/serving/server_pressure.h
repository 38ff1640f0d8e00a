/*
 * server_pressure.h -- an engine's own start-up projection of the memory
 * a model will take against the machine's RAM, as server.* meta
 * (docs/formats.md "Server logs"): Rapid-MLX / vllm-mlx print it before
 * they load a model on Apple Silicon (vllm_mlx/cli.py
 * _check_memory_capacity@v0.12.18):
 *
 *     !! Memory pressure warning: this model is likely too large for your hardware.
 *       Model on disk:             19.0 GB
 *       Est. working set:          28.5 GB  (model x 1.5 — short-chat workload; ...)
 *       Currently used by OS:      20.0 GB
 *       Total system RAM:          48.0 GB  (101% projected utilization)
 *
 * ("Memory pressure note:" from 65 %, "warning" from 85 %.) The figures
 * are GiB (the source divides by 1024**3); the share is (in use + working
 * set) / RAM, as the engine rounds it to a percent. A projection is no failure: it only says what the engine
 * expected; analyzer/rules/projected.c weighs it against a later OOM.
 */
#ifndef OOMLENS_SERVER_PRESSURE_H
#define OOMLENS_SERVER_PRESSURE_H

#include <stddef.h>
#include <stdint.h>
#include "parsers/common/sink.h"

struct srv_pressure {
	double working;             /* "Est. working set:" in bytes; < 0 unread */
	double used;                /* "Currently used by OS:" in bytes; < 0 unread */
	int armed;                  /* working and used are this block's (0: zeroed state) */
};

/* One line engine_line() marked (its pressure flag), msg[0..n), line
 * lineno of the log: the block's working set and in-use figures are kept;
 * its "Total system RAM: X GB (N% projected utilization)" line writes one
 * server.projection row, {projected_bytes (in use + working set when both
 * were read in this block, else share x RAM), ram_bytes, share, line}, so
 * that a rule takes the start-up before the failure it judges. Returns 1
 * when meta was written, 0 when the line gave none, -1 when the sink
 * failed. */
int srv_pressure_line(struct srv_pressure *p, struct sink *s, const char *msg, size_t n,
		      uint64_t lineno);

#endif
