/*
 * torch_snapshot.h -- PyTorch CUDA caching-allocator memory snapshots
 * (torch.cuda.memory._dump_snapshot pickles, every schema generation, and
 * the flat JSON Lines form of `oomlens convert`): the readers' interface
 * for the rest of oomlens.
 *
 * Inside, in the order data flows (each layer includes only the ones to
 * its right, and all of them torch_records.h, their shared records):
 *
 *   readers  torch_snapshot.c (pickle, via pickle.h) and torch_flat.c
 *            (JSON Lines): input -> records (struct ts_ops calls)
 *   pipe     torch_pipe.h: the pickle reader decodes in a second thread
 *   model    torch_model.h: records -> sink rows (both readers)
 *   writer   torch_flat.c: records -> JSON Lines (convert)
 */
#ifndef OOMLENS_TORCH_SNAPSHOT_H
#define OOMLENS_TORCH_SNAPSHOT_H

#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "parsers/torch/torch_records.h"
#include "lib/input.h"

/* ---- the pickle reader (torch_snapshot.c) ---- */

int torch_snapshot_sniff(const unsigned char *head, size_t n);
/* Read a snapshot pickle into s: decoded in a second thread, stored in
 * this one. Returns records (>= 0) or -1. */
int torch_snapshot_parse(struct input *in, struct sink *s);
/* Decode the pickle in `in` into ops, in this thread (diagnostics on s).
 * Returns the records produced, or -1 if ops failed. */
int torch_snapshot_decode(struct input *in, struct sink *s, const struct ts_ops *ops);

/* ---- the flat form (torch_flat.c) ---- */

#define TS_FLAT_MAGIC "oomlens-torch-snapshot"
#define TS_FLAT_VERSION 1
int torch_flat_sniff(const unsigned char *head, size_t n);
int torch_flat_parse(struct input *in, struct sink *s);
struct ts_writer;
/* A writer of the flat form to f (fills ops); diagnostics about the
 * output on s. */
struct ts_writer *ts_writer_new(FILE *f, struct sink *s, struct ts_ops *ops);
/* Lines written, or -1 if a write failed; frees the writer. */
int64_t ts_writer_free(struct ts_writer *w);

#endif
