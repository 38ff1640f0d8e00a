/*
 * torch_model.h -- what a memory snapshot means for the timeline: a
 * consumer of snapshot records (struct ts_ops) that writes sink rows:
 * snapshot, segments, blocks, trace rows, allocation lifetimes (alloc
 * paired with free_completed per device and address), torch_oom events,
 * torch.allocated_bytes / torch.reserved_bytes series, stacks and
 * torch.allocator.<key> meta. Shared by the pickle and the flat reader.
 */
#ifndef OOMLENS_TORCH_MODEL_H
#define OOMLENS_TORCH_MODEL_H

#include "parsers/torch/torch_records.h"

struct ts_model;
/* A model writing to s; fills ops (ops->ctx = the model). NULL when out
 * of memory. */
struct ts_model *ts_model_new(struct sink *s, struct ts_ops *ops);
/* Records produced; frees the model. */
int64_t ts_model_free(struct ts_model *m);

#endif
