/*
 * servwhatif.h -- the serving what-if (servwhatif.c): for an incident
 * with a serving engine's accounting and its recorded load, the peak each
 * candidate setting (max_num_seqs, gpu_memory_utilization, max_model_len,
 * tensor parallelism) would have reached under that load, whether the
 * OOM would have been avoided and how many requests would have queued,
 * in the derived table `serving_whatif` (docs/schema.md). One row per
 * knob is `chosen`: the value the misconfiguration advice gives, so a
 * report never names two values for one knob.
 */
#ifndef OOMLENS_SERVWHATIF_H
#define OOMLENS_SERVWHATIF_H

#include "analyzer/derive/dctx.h"

/* The pass (derive.h): drop and rebuild `serving_whatif`. 0, or -1 with
 * why in err. */
int derive_servwhatif(sqlite3 *db, struct strbuf *err);

/* The chosen value of knob ("max_num_seqs", "gpu_memory_utilization",
 * "max_model_len", "tensor_parallel_size") in `serving_whatif`: 0 with
 * *value set, -1 when the table is absent or chose nothing for it. A
 * rule that advises that knob gives this value. */
int rl_serving_choice(struct rule_ctx *c, const char *knob, double *value);

#endif
