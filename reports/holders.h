/*
 * holders.h -- what the holders section's files share (holders.c: the
 * tables; holders_chart.c: the Active Memory Timeline of the top holders).
 */
#ifndef OOMLENS_REPORTS_HOLDERS_H
#define OOMLENS_REPORTS_HOLDERS_H

#include "reports/section.h"

/* The timeline of device in snapshot snap: {"bands": [{holder_id, rank,
 * label}], the last the other holders; "cols": [{seq, time_ns, bytes:
 * [per band]}]}, or NULL when there is none. */
json_t *holders_timeline_load(struct report_ctx *c, int64_t snap, int64_t device);
/* Device d's timeline (d: a device of the holders model m) as an inline
 * SVG with its legend; nothing when it has none. */
void html_holders_timeline(struct strbuf *sb, const json_t *m, const json_t *d);
/* The replay's figures of device d in the model's snapshot.recording
 * (NULL when the device has no trace). */
const json_t *holders_replay_of(const json_t *m, int64_t d);

/* The diagnostic tools' holders (holders_tools.c): [{title, tool,
 * artifact, space, rows: [holder rows with their frames], total}], one
 * list per tool report and list, in the tool's order. */
json_t *holders_tools_load(struct report_ctx *c);
void html_holders_tools(struct strbuf *sb, const json_t *lists);
void md_holders_tools(struct strbuf *sb, const json_t *lists);

#endif
