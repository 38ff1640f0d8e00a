/*
 * torch_pipe.h -- run a snapshot producer in a second thread, so that
 * decoding and storing (model + SQLite, in the caller's thread) overlap.
 *
 * The producer (a decode function: input -> struct ts_ops calls) runs in
 * the second thread against a sink of its own that takes diagnostics
 * only; its records and diagnostics travel, in order, in batches to the
 * caller's thread, which replays them into ops and onto s. So every sink
 * op and every ops call happens in the caller's thread (sink.h).
 */
#ifndef OOMLENS_TORCH_PIPE_H
#define OOMLENS_TORCH_PIPE_H

#include "parsers/torch/torch_records.h"
#include "lib/input.h"

/* A producer: read in, hand records to ops, diagnostics to s. Returns
 * records (>= 0), or -1 if ops failed. */
typedef int (*ts_decode_fn)(struct input *in, struct sink *s, const struct ts_ops *ops);

/* decode(in, ...) in a second thread, its output replayed into ops and s
 * here. Falls back to calling decode here if no thread can start.
 * Returns 0, or -1 if ops, the sink or the decoder failed. */
int ts_pipe_run(struct input *in, struct sink *s, ts_decode_fn decode,
		const struct ts_ops *ops);

#endif
