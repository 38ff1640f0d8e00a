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

/* Same device (or one unknown), requested sizes within 5% (PyTorch prints
 * "0.12 GiB": two decimals), times within two minutes (or one unknown),
 * from another artifact. */
static const char sql_torch_oom[] =
	"UPDATE event SET data = json_set(coalesce(data, '{}'), '$.same_as_event', ("
	"  SELECT o.id FROM event o WHERE o.kind = 'torch_oom' AND o.id < event.id"
	"   AND o.artifact_id IS NOT event.artifact_id"
	"   AND json_extract(o.data, '$.same_as_event') IS NULL"
	"   AND (json_extract(o.data, '$.device') IS NULL"
	"        OR json_extract(event.data, '$.device') IS NULL"
	"        OR json_extract(o.data, '$.device') = json_extract(event.data, '$.device'))"
	"   AND o.bytes IS NOT NULL AND event.bytes IS NOT NULL"
	"   AND abs(o.bytes - event.bytes) <= 0.05 * max(o.bytes, event.bytes)"
	"   AND (o.time_ns IS NULL OR event.time_ns IS NULL"
	"        OR abs(o.time_ns - event.time_ns) <= 120000000000)"
	"  ORDER BY o.id LIMIT 1))"
	" WHERE kind = 'torch_oom' AND json_valid(coalesce(data, '{}')) AND EXISTS ("
	"  SELECT 1 FROM event o WHERE o.kind = 'torch_oom' AND o.id < event.id"
	"   AND o.artifact_id IS NOT event.artifact_id"
	"   AND json_extract(o.data, '$.same_as_event') IS NULL"
	"   AND (json_extract(o.data, '$.device') IS NULL"
	"        OR json_extract(event.data, '$.device') IS NULL"
	"        OR json_extract(o.data, '$.device') = json_extract(event.data, '$.device'))"
	"   AND o.bytes IS NOT NULL AND event.bytes IS NOT NULL"
	"   AND abs(o.bytes - event.bytes) <= 0.05 * max(o.bytes, event.bytes)"
	"   AND (o.time_ns IS NULL OR event.time_ns IS NULL"
	"        OR abs(o.time_ns - event.time_ns) <= 120000000000))";

int correlate_events(struct timeline *tl)
{
	return timeline_exec(tl, sql_torch_oom);
}
