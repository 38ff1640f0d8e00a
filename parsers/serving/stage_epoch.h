/*
 * stage_epoch.h -- the epoch counter a training loop's stage line names
 * ("Epoch: [3]", "Epoch 3/10", "epoch 3"), kept with the log's last stage
 * (meta server.last_stage's "epoch") so that the rules can tell a failure
 * at the loop's first steps from one after whole epochs of the same data
 * had fit (analyzer/rules/lean_when.c).
 */
#ifndef OOMLENS_SERVING_STAGE_EPOCH_H
#define OOMLENS_SERVING_STAGE_EPOCH_H

#include <stddef.h>

/* The number after the first word "epoch" (any case) of line l (n bytes,
 * no NUL needed) when only ' ', ':', '[' or '#' stand between them: 0 to
 * 1e6, or -1 when the line names none ("epochs: 10", "num_epochs=3",
 * "Epoch:" with no number). */
long stage_epoch(const char *l, size_t n);

#endif
