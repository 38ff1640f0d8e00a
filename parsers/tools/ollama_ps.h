/*
 * ollama_ps.h -- `ollama ps` pasted beside a failure: the models Ollama
 * holds, each with its size and where it sits. The table (ollama
 * cmd/cmd.go ListRunningHandler@v0.9.6) has the columns NAME, ID, SIZE,
 * PROCESSOR, [CONTEXT,] UNTIL (CONTEXT since 0.10; the FAQ's copy is
 * tab-separated). SIZE is the runner's whole estimate (llm/memory.go
 * estimate.TotalSize = memory.required.full, server/sched.go, printed by
 * format.HumanBytes in decimal units: "42 GB" is 42e9 bytes); PROCESSOR
 * is its share on the GPUs, estimate.VRAMSize (memory.required.partial)
 * over TotalSize: "100% GPU", "100% CPU", "48%/52% CPU/GPU" (a partial
 * offload: 52% on the GPUs, the rest in host memory) or "Unknown".
 *
 * Records: one Ollama offload record a model (docs/schema.md "engine"):
 * engine "ollama", instance "ollama ps <model> (<processor>)",
 * planned_total_bytes the size, requested_bytes the GPU share of it (0
 * for 100% CPU; not stated for Unknown). No event: a model loaded is no
 * failure, only the split it runs with.
 */
#ifndef OOMLENS_OLLAMA_PS_H
#define OOMLENS_OLLAMA_PS_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

/* How sure (0..100) that head holds `ollama ps`: 40 for its header line
 * ("NAME", "ID", "SIZE", "PROCESSOR"...) ending in a newline; a
 * line log, so that a server log in the same paste is read as well. */
int ollama_ps_sniff(const unsigned char *head, size_t n);

/* Read each model's row into an engine record. Returns the records
 * stored (>= 0), or -1 when the sink failed. */
int ollama_ps_parse(struct input *in, struct sink *s);

#endif
