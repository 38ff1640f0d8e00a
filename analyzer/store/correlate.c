/*
 * correlate.c -- events that two artifacts both saw.
 *
 * One CUDA OOM usually reaches the incident folder twice: as the `oom`
 * entry of the allocator snapshot (exact request size, no message) and as
 * the OutOfMemoryError in the server's log (rounded sizes, the whole
 * message). Both are kept, each with its artifact; the later one is
 * marked with `same_as_event` (the id of the first) so that counts and
 * reports can show one OOM. Runs after the clocks are aligned.
 */
#include "analyzer/store/correlate.h"

/* The earlier torch_oom events o that event (the row being updated) is
 * the same OOM as: same device (or one unknown), requested sizes within
 * 5% (PyTorch prints "0.12 GiB": two decimals), times within two minutes
 * (or one unknown), from another artifact, and not itself a repeat. */
#define SAME_OOM \
	" FROM event o WHERE o.kind = 'torch_oom' AND o.id < event.id" \
	"   AND o.artifact_id IS NOT event.artifact_id" \
	"   AND json_extract(o.data, '$.same_as_event') IS NULL" \
	"   AND (json_extract(o.data, '$.device') IS NULL" \
	"        OR json_extract(event.data, '$.device') IS NULL" \
	"        OR json_extract(o.data, '$.device') = json_extract(event.data, '$.device'))" \
	"   AND o.bytes IS NOT NULL AND event.bytes IS NOT NULL" \
	"   AND abs(o.bytes - event.bytes) <= 0.05 * max(o.bytes, event.bytes)" \
	"   AND (o.time_ns IS NULL OR event.time_ns IS NULL" \
	"        OR abs(o.time_ns - event.time_ns) <= 120000000000)"

/* The first match is chosen as each row is updated, so a repeat marked a
 * moment ago is no longer a match for the rows after it. */
static const char sql_torch_oom[] =
	"UPDATE event SET data = json_set(coalesce(data, '{}'), '$.same_as_event', ("
	"  SELECT o.id" SAME_OOM " ORDER BY o.id LIMIT 1))"
	" WHERE kind = 'torch_oom' AND json_valid(coalesce(data, '{}'))"
	" AND EXISTS (SELECT 1" SAME_OOM ")";

int correlate_events(struct timeline *tl)
{
	return timeline_exec(tl, sql_torch_oom);
}
