/*
 * correlate.c -- events that two artifacts both saw.
 *
 * One CUDA OOM usually reaches the incident folder twice: as the `oom`
 * entry of the allocator snapshot (exact request size, no message) and as
 * the OutOfMemoryError in the server's log (rounded sizes, the whole
 * message). Both are kept, each with its artifact; the later one is
 * marked with `same_as_event` (the id of the first) so that counts and
 * reports can show one OOM. Runs after the clocks are aligned.
 *
 * An incident folder can also hold what is not one incident: a log from
 * another week, or from another boot of the machine. Those are flagged
 * (meta incident.apart, run-wide), never dropped: a reader decides.
 */
#include "analyzer/store/correlate.h"
#include "analyzer/store/timeline_parts.h"
#include "lib/strbuf.h"
#include "lib/timeutil.h"

#include <stdio.h>

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

/* Artifacts whose times lie this far from all the others' are flagged. */
#define APART_NS (7 * 86400 * NS_PER_S)

/* Each artifact's span of times on the UTC (or local) clock: its events,
 * and the first and last samples of the series it created (from their
 * blocks, samples_read.c). A series' lo and hi are NULL together (it
 * has a timed sample or not), and min() and max() skip NULLs, so the
 * artifacts without a time are left out by HAVING: a WHERE on t.lo was
 * pushed into the UNION and decoded every series' first time twice. */
static const char sql_spans[] =
	"SELECT a.id, a.path, min(t.lo), max(t.hi) FROM artifact a JOIN ("
	"  SELECT artifact_id AS aid, time_ns AS lo, time_ns AS hi FROM event"
	"   WHERE time_ns IS NOT NULL"
	"  UNION ALL SELECT s.artifact_id,"
	"   sample_first_ns(s.id), sample_last_ns(s.id)"
	"   FROM series s) t ON t.aid = a.id"
	" GROUP BY a.id HAVING min(t.lo) IS NOT NULL ORDER BY min(t.lo), a.id";

/* One warning row: meta incident.apart = text. */
static int note_apart(struct timeline *tl, struct strbuf *text)
{
	int r = strbuf_failed(text) ? -1 : timeline_meta(tl, "incident.apart", text->buf);

	strbuf_reset(text);
	return r;
}

/* Flag every gap of more than APART_NS between the spans of consecutive
 * artifacts (in time order): the ones after it may be another incident. */
static int flag_time_gaps(struct timeline *tl, struct strbuf *text)
{
	sqlite3_stmt *st = timeline_stmt(tl, sql_spans);
	int64_t end = OL_NULL;
	char a[40], b[40];
	struct strbuf prev = STRBUF_INIT;
	int r = 0;

	if (!st)
		return -1;
	while (r == 0 && sqlite3_step(st) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(st, 1);
		int64_t lo = sqlite3_column_int64(st, 2), hi = sqlite3_column_int64(st, 3);
		if (end != OL_NULL && lo - end > APART_NS) {
			format_iso8601(end, a, sizeof(a));
			format_iso8601(lo, b, sizeof(b));
			strbuf_addf(text, "%s begins %lld days after the artifacts before it end"
				    " (%.10s, last in %s; it begins %.10s): possibly another incident",
				    path ? path : "?", (long long)((lo - end) / (86400 * NS_PER_S)),
				    a, prev.buf, b);
			r = note_apart(tl, text);
		}
		if (end == OL_NULL || hi > end) {
			end = hi;
			strbuf_reset(&prev);
			strbuf_addstr(&prev, path ? path : "?");
		}
	}
	sqlite3_reset(st);
	strbuf_release(&prev);
	return r;
}

static const char sql_boots[] =
	"SELECT count(DISTINCT boot_id), group_concat(DISTINCT boot_id) FROM event"
	" WHERE boot_id IS NOT NULL";

/* Events of several boots of the machine: kernel times of different boots
 * are not one clock, and the logs may be of different incidents. */
static int flag_boots(struct timeline *tl, struct strbuf *text)
{
	sqlite3_stmt *st = timeline_stmt(tl, sql_boots);
	int r = 0;

	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 1) {
		const char *ids = (const char *)sqlite3_column_text(st, 1);
		strbuf_addf(text, "events come from %lld boots of the machine (boot ids %.300s):"
			    " possibly more than one incident", (long long)sqlite3_column_int64(st, 0),
			    ids ? ids : "?");
		r = note_apart(tl, text);
	}
	sqlite3_reset(st);
	return r;
}

int correlate_events(struct timeline *tl)
{
	struct strbuf text = STRBUF_INIT;
	int r;

	r = timeline_exec(tl, sql_torch_oom);
	if (r == 0)
		r = timeline_exec(tl, "DELETE FROM meta WHERE key = 'incident.apart'");
	if (r == 0)
		r = flag_time_gaps(tl, &text);
	if (r == 0)
		r = flag_boots(tl, &text);
	strbuf_release(&text);
	return r;
}
