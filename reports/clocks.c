/*
 * clocks.c -- how the sources were put on one UTC clock: the anchors that
 * placed boot-relative times (an artifact that saw both clocks, or
 * --boot-time), and the sources whose wall-clock times have no zone. The
 * JSON report's anchors; in the HTML, the end of the artifacts section.
 */
#include "reports/section.h"
#include "reports/html_util.h"
#include "analyzer/store/query.h"
#include "lib/common.h"

#include <sqlite3.h>
#include <stdlib.h>

#define ANCHORS_CAP 20
#define LOCAL_CAP 20

/* The artifacts that stored wall-clock times of unknown zone. */
#define LOCAL_IDS "SELECT artifact_id FROM meta WHERE key = 'time.clock' AND value = 'local'" \
		  " UNION SELECT artifact_id FROM event WHERE clock = 'local'"

/* Every anchor, as the JSON's anchors array has it. */
#define ANCHORS_SQL "SELECT a.path AS artifact, n.boot_id," \
	" CASE WHEN n.boot_ns IS NULL THEN NULL ELSE n.boot_ns / 1e9 END AS boot_s," \
	" n.utc_ns AS utc_time, n.how FROM anchor n" \
	" LEFT JOIN artifact a ON a.id = n.artifact_id ORDER BY n.id"

/* The JSON report's anchors array written row by row (load_anchors'
 * model, full, dumped: the same bytes; [] when the query fails, which
 * r_prepare records for the report's error). 0 or -1 (a write failed). */
int stream_anchors(struct report_ctx *c, FILE *out)
{
	return r_stream_rows(c, out, 0, ANCHORS_SQL);
}

/* The JSON's anchors array. Capped: a list of the first ANCHORS_CAP, and
 * "local": the count of local-time sources and "local_sources", an
 * r_table of the first LOCAL_CAP (source, kind). */
json_t *load_anchors(struct report_ctx *c)
{
	json_t *rows = r_rows(c, ANCHORS_SQL, r_cap(c, ANCHORS_CAP));
	json_t *m;
	int64_t total = (int64_t)json_array_size(rows), local;

	if (!c->capped)
		return rows;
	if (total >= ANCHORS_CAP)
		total = r_int(c, "SELECT count(*) FROM anchor", total);
	m = r_list(c, rows, total);
	local = r_int(c, "SELECT count(*) FROM (" LOCAL_IDS ")", 0);
	json_object_set_new(m, "local", json_integer(local));
	if (local)
		json_object_set_new(m, "local_sources", r_table(c, "SELECT a.path AS source, a.kind"
				    " FROM artifact a WHERE a.id IN (" LOCAL_IDS ") ORDER BY a.id"
				    " LIMIT 20", -1, LOCAL_CAP));
	return m;
}

/* The boot time an anchor placed, in seconds to the microsecond, as
 * SQLite's round(x, 6) gives it as text. */
static void boot_seconds(struct strbuf *sb, const json_t *v)
{
	char buf[64];

	sqlite3_snprintf(sizeof(buf), buf, "%!.6f", jv_real(v));
	sqlite3_snprintf(sizeof(buf), buf, "%!.15g", strtod(buf, NULL));
	strbuf_addstr(sb, buf);
}

/* One anchor: where it came from, how, the boot, the boot time and the UTC
 * time it placed there. */
static void html_anchor(struct strbuf *sb, const json_t *a)
{
	strbuf_addstr(sb, "<tr><td>");
	if (jv_null(a, "artifact"))
		strbuf_addstr(sb, "--boot-time");
	else
		h_key(sb, a, "artifact");
	strbuf_addstr(sb, "</td><td>");
	h_key(sb, a, "how");
	strbuf_addstr(sb, json_is_number(json_object_get(a, "boot_id")) ? "</td><td class=n>"
									 : "</td><td>");
	h_key(sb, a, "boot_id");
	if (jv_null(a, "boot_s")) {
		strbuf_addstr(sb, "</td><td><span class=muted>-</span>");
	} else {
		strbuf_addstr(sb, "</td><td class=n>");
		boot_seconds(sb, json_object_get(a, "boot_s"));
	}
	if (jv_null(a, "utc_time")) {
		strbuf_addstr(sb, "</td><td><span class=muted>-</span></td></tr>\n");
	} else {
		strbuf_addstr(sb, "</td><td class=t>");
		strbuf_addstr(sb, json_string_value(json_object_get(a, "utc_time")));
		strbuf_addstr(sb, "</td></tr>\n");
	}
}

/* How the clocks were aligned: the anchors, the local-time sources. */
void html_clocks(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const json_t *rows = model_rows(m), *a;
	size_t i;

	(void)c;
	strbuf_addstr(sb, "<h3>Clocks</h3>\n");
	if (!model_total(m) && !jv_int(json_object_get(m, "local"))) {
		strbuf_addstr(sb, "<p class=muted>Every time was read on UTC (or on no clock):"
				  " no alignment was needed.</p>\n");
		return;
	}
	if (model_total(m)) {
		strbuf_addstr(sb, "<p>Boot-relative times (dmesg stamps) were placed on UTC with"
				  " these anchors; the median offset per boot is used.</p>\n");
		strbuf_addstr(sb, "<table><tr><th>source</th><th>how</th><th>boot_id</th>"
				  "<th>boot_seconds</th><th>utc_time_ns</th></tr>\n");
		json_array_foreach(rows, i, a)
			html_anchor(sb, a);
		strbuf_addstr(sb, "</table>\n");
		h_more(sb, model_total(m), (int64_t)json_array_size(rows), "");
	}
	if (jv_int(json_object_get(m, "local"))) {
		strbuf_addstr(sb, "<p>These sources give wall-clock times without a zone; they"
				  " are read as if UTC (give <code>--tz</code> to place them):</p>\n");
		h_table(sb, json_object_get(m, "local_sources"));
	}
}
