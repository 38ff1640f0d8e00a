/*
 * answer_parts.h -- what the answer's files (answer.c, answer_what.c,
 * answer_failures.c) share: the events that count as another failure or
 * as an unexplained kill, and the parts load_answer joins. Internal to
 * reports/; load_answer itself is declared in reports/section.h.
 */
#ifndef OOMLENS_ANSWER_PARTS_H
#define OOMLENS_ANSWER_PARTS_H

#include "reports/section.h"
#include "lib/strbuf.h"

#include <jansson.h>
#include <stdint.h>

/* The failures besides the OOM (failures() below): Xid errors, crashes,
 * CUDA exceptions, NCCL and cuBLAS failures, engine deaths. */
#define FAILURE_WHERE \
	" WHERE e.kind IN ('gpu_xid', 'process_crash', 'cuda_exception')" \
	" OR (e.kind IN ('server_error', 'engine_error', 'mem_failure') AND (" \
	"  e.summary LIKE '%NCCL%' OR e.summary LIKE '%CUBLAS%' OR e.summary LIKE '%EngineDead%'" \
	"  OR e.summary LIKE '%engine core%died%' OR e.summary LIKE '%EngineCore%died%'" \
	"  OR e.summary LIKE '%Engine process failed%'))"

/* A SIGKILL recorded without an OOM (analyzer/rules/settle.c's
 * rl_unexplained_kill: the same events). */
#define KILL_WHERE \
	" WHERE e.kind = 'process_crash' AND json_valid(e.data) AND" \
	" (json_extract(e.data, '$.signal') = 'SIGKILL' OR json_extract(e.data, '$.exit_code') = 137)"

/* answer_what.c. The sentence of what happened, from row 1 of oom and
 * phase (the verdict's; NULL: row 1's own), appended to out. */
void answer_what_happened(struct report_ctx *c, struct strbuf *out, const char *phase);
/* answer_what.c. What became of the server the OOM hit (oom.survival of
 * row 1), a sentence appended to out; nothing when the log says neither. */
void answer_fate(struct report_ctx *c, struct strbuf *out);
/* answer_failures.c. The failures besides the OOM as a new JSON array of
 * {kind, what, meaning, source} in time order, at most six; *total: how
 * many there are in all. */
json_t *answer_failures(struct report_ctx *c, int64_t *total);
/* answer_failures.c. The damaged artifacts (status partial or failed) as
 * a new JSON array of rows, at most four. */
json_t *answer_damaged(struct report_ctx *c);

#endif
