/*
 * server_deepspeed.h -- what DeepSpeed prints about memory, read by the
 * server-log parser (parsers/serving/server_log.c).
 *
 * DeepSpeed's see_memory_usage() (deepspeed/runtime/utils.py) logs, at
 * the points of its set-up and steps it names ("Stage 3 initialize
 * beginning", "After creating fp32 partitions"...), one line of the
 * allocator's figures of the current device,
 *
 *     [2024-10-28 17:59:22,056] [INFO] [utils.py:801:see_memory_usage] MA 0.0 GB
 *         Max_MA 0.0 GB         CA 0.0 GB         Max_CA 0 GB
 *
 * (MA: torch.cuda.memory_allocated, Max_MA: max_memory_allocated, CA:
 * memory_reserved, Max_CA: max_memory_reserved, in GB of 2^30 bytes,
 * rounded to two places), and the host's "CPU Virtual Memory:  used =
 * 22.38 GB, percent = 8.9%". The device line becomes samples of the
 * torch.* series (no entity: the line does not name the device).
 */
#ifndef OOMLENS_SERVER_DEEPSPEED_H
#define OOMLENS_SERVER_DEEPSPEED_H

#include <stddef.h>
#include "parsers/common/sink.h"

/* 1 when line msg[0..n) (at t) is see_memory_usage's device line and its
 * figures were stored, 0 when it is not such a line, -1 when the sink
 * failed. */
int ds_memory_line(struct sink *s, const char *msg, size_t n, const struct ol_time *t);

#endif
