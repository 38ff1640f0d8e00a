/*
 * offload.h -- how much room a llama.cpp/Ollama instance's GPU plan left,
 * derived once into table `offload_fit` (analyzer/derive/offload.c;
 * docs/schema.md says its columns). Ollama prints its estimate before it
 * loads (layers offloaded of the model's, each GPU's free memory and its
 * planned allocation, the compute graph), and llama.cpp its buffers and
 * the free memory it saw: from those figures alone the pass computes the
 * headroom the plan left on its tightest GPU, what a layer costs, and how
 * many layers fit once the compute graph (or the allocation that failed)
 * has room beside them. Every figure of the row is computed from the
 * engine's own numbers, an inference: the rule offload.c judges it only
 * beside an OOM whose phase is not shown; reports read it from here.
 */
#ifndef OOMLENS_DERIVE_OFFLOAD_H
#define OOMLENS_DERIVE_OFFLOAD_H

#include <sqlite3.h>

struct strbuf;

/* Drop and rebuild table offload_fit from tables engine and oom: one row
 * per llama.cpp/Ollama instance whose plan states the free memory, what
 * it planned and its layers. 0, or -1 with why in err (may be NULL). */
int derive_offload(sqlite3 *db, struct strbuf *err);

#endif
