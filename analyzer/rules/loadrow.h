/*
 * loadrow.h -- the derived row `oom_load` (analyzer/derive/load.c) as
 * the rules read it: what the program was doing at the OOM, the load at
 * the failure and before it. Rules progress.c, spike.c and leak.c judge
 * it; none recomputes it.
 */
#ifndef OOMLENS_RULES_LOADROW_H
#define OOMLENS_RULES_LOADROW_H

#include "analyzer/rules/rules.h"

/* The row of oom_load; NAN where the column is NULL. */
struct load_row {
	char doing[16];                  /* "training", "serving" */
	char step_source[16];            /* "bar", "deepspeed", "" */
	double steps_done, steps_total, first_step, bars, at_start, mem_first, mem_last;
	double epoch, logged_steps;      /* the Trainer's log dicts */
	double running, waiting, kv;     /* at the OOM */
	double running_before, waiting_before, kv_before, window_s, samples;
	double running_typical, samples_before;   /* the window before the OOM's sample */
	double kv_slope_min, kv_r2, kv_samples;   /* KV usage's trend (points a minute) */
};

/* Read the row into *r: 1 read, 0 no row (or no table), -1 failed. */
int load_row_read(struct rule_ctx *c, struct load_row *r);

#endif
