/*
 * unknowns.c -- what the report could not determine: the evidence the
 * verdict missed, times not on UTC, artifacts not read, years inferred,
 * artifacts that may be of another incident, families of evidence absent
 * from the database.
 */
#include "reports/section.h"
#include "reports/html_util.h"
#include "reports/md_util.h"
#include "analyzer/store/query.h"

#define NOT_READ_CAP 50

/* The JSON's unknowns object. Capped: the first NOT_READ_CAP artifacts
 * not read, "series": true when there is a time series, and no
 * events_local_time (a pass over every event: the HTML takes it from the
 * event_counts model, the Markdown does not show it). */
/* The families of evidence whose table may be absent. */
static const char *const domain[] = {
	"snapshot", "segment", "block", "trace", "alloc", "gpu_device", "gpu_context",
	"gpu_module", "gpu_grid", "gpu_region", "thread", NULL
};

/* The lists of the unknowns object, one query each. */
#define NOT_READ_SQL "SELECT path, status, errors FROM artifact WHERE status IN ('failed'," \
	" 'partial', 'no_records') ORDER BY id"
#define INFERRED_SQL "SELECT a.path, m.value AS basis FROM meta m JOIN artifact a" \
	" ON a.id = m.artifact_id WHERE m.key = 'time.year_basis' ORDER BY a.id"
#define APART_SQL "SELECT value AS note FROM meta WHERE key = 'incident.apart'" \
	" AND artifact_id IS NULL ORDER BY rowid"

/* events with no time at all (a log without stamps): neither on UTC nor
 * on the boot clock; events_not_on_utc counts them too */
#define EVENTS_UNTIMED "SELECT count(*) FROM event WHERE time_ns IS NULL AND boot_ns IS NULL"

json_t *load_unknowns(struct report_ctx *c)
{
	const json_t *missing = json_object_get(c->sum.verdict, "missing");
	json_t *o = json_object(), *absent = json_array();
	int i;

	json_object_set_new(o, "missing", missing ? json_incref((json_t *)missing) : json_null());
	json_object_set_new(o, "events_not_on_utc",
		json_integer(r_int(c, "SELECT count(*) FROM event WHERE time_ns IS NULL", 0)));
	json_object_set_new(o, "events_untimed", json_integer(r_int(c, EVENTS_UNTIMED, 0)));
	if (!c->capped)
		json_object_set_new(o, "events_local_time",
				    json_integer(r_int(c, EVENTS_LOCAL_TIME, 0)));
	json_object_set_new(o, "samples_not_on_utc",
		json_integer(r_int(c, Q_UNTIMED_SAMPLES, 0)));
	json_object_set_new(o, "artifacts_not_read", r_rows(c, NOT_READ_SQL,
							   r_cap(c, NOT_READ_CAP)));
	for (i = 0; domain[i]; i++)
		if (!r_has_table(c, domain[i]))
			json_array_append_new(absent, json_string(domain[i]));
	json_object_set_new(o, "tables_absent", absent);
	json_object_set_new(o, "inferred_years", r_rows(c, INFERRED_SQL,
							r_cap(c, NOT_READ_CAP)));
	json_object_set_new(o, "possibly_different", r_rows(c, APART_SQL,
							    r_cap(c, NOT_READ_CAP)));
	if (c->capped)
		json_object_set_new(o, "series", json_boolean(r_int(c, "SELECT count(*) FROM"
						 " (SELECT 1 FROM series LIMIT 1)", 0)));
	return o;
}

/* Member key of the unknowns object: the rows of sql, row by row, as an
 * array at the object's first level ([] when the query fails, as r_rows
 * gives it; r_prepare records why). 0 or -1 (a write failed). */
static int stream_list(struct report_ctx *c, FILE *out, const char *key, const char *sql)
{
	fprintf(out, ",\n  \"%s\": ", key);
	return r_stream_rows(c, out, 1, sql);
}

/* Member key: v (a count or a small value) of the unknowns object, taking
 * v's reference. 0 or -1. */
static int stream_value(FILE *out, const char *key, json_t *v, int first)
{
	int r;

	fprintf(out, "%s\n  \"%s\": ", first ? "" : ",", key);
	r = q_write_json_at(out, v ? v : json_null(), JSON_INDENT(2) | JSON_PRESERVE_ORDER |
			    JSON_ENCODE_ANY | JSON_REAL_PRECISION(12), 2);
	json_decref(v);
	return r;
}

/* The JSON report's unknowns object (load_unknowns' model, full, dumped:
 * the same bytes), its lists written row by row. 0 or -1. */
int stream_unknowns(struct report_ctx *c, FILE *out)
{
	const json_t *missing = json_object_get(c->sum.verdict, "missing");
	json_t *absent = json_array();
	int r = 0, i;

	fputc('{', out);
	r |= stream_value(out, "missing", missing ? json_incref((json_t *)missing) : json_null(),
			  1);
	r |= stream_value(out, "events_not_on_utc", json_integer(r_int(c, "SELECT count(*)"
			  " FROM event WHERE time_ns IS NULL", 0)), 0);
	r |= stream_value(out, "events_untimed", json_integer(r_int(c, EVENTS_UNTIMED, 0)), 0);
	r |= stream_value(out, "events_local_time", json_integer(r_int(c, EVENTS_LOCAL_TIME, 0)),
			  0);
	r |= stream_value(out, "samples_not_on_utc", json_integer(r_int(c, Q_UNTIMED_SAMPLES,
			  0)), 0);
	r |= stream_list(c, out, "artifacts_not_read", NOT_READ_SQL);
	for (i = 0; domain[i]; i++)
		if (!r_has_table(c, domain[i]))
			json_array_append_new(absent, json_string(domain[i]));
	r |= stream_value(out, "tables_absent", absent, 0);
	r |= stream_list(c, out, "inferred_years", INFERRED_SQL);
	r |= stream_list(c, out, "possibly_different", APART_SQL);
	fputs("\n}", out);
	return r ? -1 : 0;
}

/* --- HTML ------------------------------------------------------------------- */

/* The counts of things not placed (local: from event_counts; boot: the
 * chart is on the boot clock, nothing being on UTC); returns the items
 * written. */
static int html_not_placed(struct strbuf *sb, const json_t *m, int64_t local, int boot)
{
	int64_t n, untimed;
	int items = 0;

	untimed = jv_int_or_null(m, "events_untimed");
	if (untimed > 0) {
		strbuf_addf(sb, "<li>%lld event%s carr%s no time at all (a log without"
			    " timestamps): placed by line order, not drawn.</li>",
			    (long long)untimed, untimed == 1 ? "" : "s", untimed == 1 ? "ies" : "y");
		items++;
	}
	if ((n = jv_int_or_null(m, "events_not_on_utc") - (untimed > 0 ? untimed : 0)) > 0) {
		strbuf_addf(sb, "<li>%lld events are only on the boot clock (no anchor placed them on"
			    " UTC; give <code>--boot-time</code>): they are listed as boot+seconds and"
			    " %s.</li>", (long long)n, boot ? "drawn on the chart against seconds since"
			    " boot" : "not drawn on the chart");
		items++;
	}
	if ((n = local) > 0) {
		strbuf_addf(sb, "<li>%lld events carry a wall-clock time of unknown zone, read as"
			    " if UTC (give <code>--tz</code>).</li>", (long long)n);
		items++;
	}
	if ((n = jv_int_or_null(m, "samples_not_on_utc")) > 0) {
		strbuf_addf(sb, "<li>%lld samples have no UTC time and are not drawn%s.</li>",
			    (long long)n, boot ? " on UTC: those on the boot clock are drawn against"
			    " seconds since boot" : "");
		items++;
	}
	return items;
}

/* The artifacts not read; returns the items written. */
static int html_not_read(struct strbuf *sb, const json_t *m)
{
	const json_t *a;
	size_t i;

	json_array_foreach(json_object_get(m, "artifacts_not_read"), i, a) {
		strbuf_addstr(sb, "<li><code>");
		h_key(sb, a, "path");
		strbuf_addstr(sb, "</code> was ");
		h_key(sb, a, "status");
		strbuf_addf(sb, " (%lld errors, see <a href=\"#artifacts\">artifacts</a>).</li>",
			    (long long)jv_int(json_object_get(a, "errors")));
	}
	return (int)json_array_size(json_object_get(m, "artifacts_not_read"));
}

/* The years inferred and the artifacts that may be of another incident;
 * returns the items written. */
static int html_inferred(struct strbuf *sb, const json_t *m)
{
	const json_t *a;
	size_t i;
	int items = 0;

	json_array_foreach(json_object_get(m, "inferred_years"), i, a) {
		strbuf_addstr(sb, "<li>The times of <code>");
		h_key(sb, a, "path");
		strbuf_addstr(sb, "</code> carry no year: it was ");
		h_key(sb, a, "basis");
		strbuf_addstr(sb, " (give <code>--year</code> if that is wrong).</li>");
		items++;
	}
	json_array_foreach(json_object_get(m, "possibly_different"), i, a) {
		strbuf_addstr(sb, "<li><b>Possibly not one incident:</b> ");
		h_key(sb, a, "note");
		strbuf_addstr(sb, ".</li>");
		items++;
	}
	return items;
}

/* Every unknown as an item, or "Nothing". */
void html_unknowns(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const struct report_summary *s = &c->sum;
	const json_t *counts = report_model(c, "event_counts");
	int items = 0;

	strbuf_addstr(sb, "<ul>");
	if (s->missing.len) {
		strbuf_addstr(sb, "<li><b>Evidence that would have decided the verdict:</b> ");
		h_text(sb, s->missing.buf, s->missing.len);
		strbuf_addstr(sb, "</li>");
		items++;
	}
	if (!s->has_verdict) {
		strbuf_addstr(sb, "<li>No verdict is recorded: the rules were not run on this"
				  " database (<code>oomlens analyze</code> runs them).</li>");
		items++;
	}
	if (!s->has_oom && r_int(c, "SELECT count(*) FROM event WHERE kind = 'process_crash' AND"
				 " json_valid(data) AND (json_extract(data, '$.signal') = 'SIGKILL' OR"
				 " json_extract(data, '$.exit_code') = 137)", 0) > 0) {
		strbuf_addstr(sb, "<li>No OOM recorded, but a kill of unknown cause was seen: the"
				  " node's kernel log around it would say whether its OOM killer sent"
				  " it.</li>");
		items++;
	} else if (!s->has_oom) {
		strbuf_addstr(sb, "<li>No artifact records an OOM, a kill or a memory failure: this"
				  " report is a memory profile, not the account of a failure.</li>");
		items++;
	}
	items += html_not_placed(sb, m, jv_int(json_object_get(counts, "local")), c->chart_on_boot);
	items += html_not_read(sb, m);
	items += html_inferred(sb, m);
	if (!json_is_true(json_object_get(m, "series"))) {
		strbuf_addf(sb, "<li>No memory time series (nvidia-smi/DCGM log, cgroup or smaps"
			    " captures, snapshot trace): how memory grew%s is unknown.</li>",
			    s->has_oom ? " before the OOM" : " over time");
		items++;
	}
	if (!r_has_table(c, "snapshot") || !r_snapshots(c)) {
		strbuf_addstr(sb, "<li>No PyTorch memory snapshot: which code held the GPU memory is"
				  " unknown.</li>");
		items++;
	}
	if (!items)
		strbuf_addstr(sb, "<li>Nothing: every artifact was read and every time placed on"
				  " UTC.</li>");
	strbuf_addstr(sb, "</ul>");
}

/* --- Markdown ----------------------------------------------------------------- */

void md_unknowns(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	int64_t untimed = jv_int(json_object_get(m, "events_untimed"));
	int64_t boot = jv_int(json_object_get(m, "events_not_on_utc")) - (untimed > 0 ? untimed : 0);
	const json_t *years = json_object_get(m, "inferred_years");
	const json_t *apart = json_object_get(m, "possibly_different");
	const json_t *a;
	size_t i;

	if (!c->sum.missing.len && boot <= 0 && untimed <= 0 && !json_array_size(years) &&
	    !json_array_size(apart))
		return;
	strbuf_addstr(sb, "### Not determined\n\n");
	if (c->sum.missing.len) {
		strbuf_addstr(sb, "- Missing evidence: ");
		md_text(sb, c->sum.missing.buf, c->sum.missing.len);
		strbuf_addstr(sb, "\n");
	}
	if (untimed > 0)
		strbuf_addf(sb, "- %lld event%s with no time at all (a log without timestamps),"
			    " placed by line order\n", (long long)untimed, untimed == 1 ? "" : "s");
	if (boot > 0)
		strbuf_addf(sb, "- %lld events only on the boot clock (not placed on UTC)\n",
			    (long long)boot);
	json_array_foreach(years, i, a) {
		strbuf_addstr(sb, "- Year of ");
		md_key(sb, a, "path");
		strbuf_addstr(sb, ": ");
		md_key(sb, a, "basis");
		strbuf_addstr(sb, "\n");
	}
	json_array_foreach(apart, i, a) {
		strbuf_addstr(sb, "- Possibly not one incident: ");
		md_key(sb, a, "note");
		strbuf_addstr(sb, "\n");
	}
	strbuf_addstr(sb, "\n");
}
