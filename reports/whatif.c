/*
 * whatif.c -- the what-if replay of the allocator in the report: the
 * `whatif` table (docs/schema.md; made by the whatif rule) of the latest
 * replayed snapshot, per device, as a table of scenarios (setting, fits,
 * peak reserved, what it gives back against the recorded replay) with
 * the model's agreement on the recorded trace (HTML), its answer in a few
 * lines (Markdown), and `snapshots[].whatif` in the JSON (whatif_attach,
 * called by json.c).
 *
 * "Gives back" is the recorded replay's peak reserved less the scenario's,
 * the comparison the fragmentation finding quotes too.
 */
#include "reports/section.h"
#include "reports/html_util.h"
#include "reports/md_util.h"
#include "reports/summary.h"
#include "analyzer/store/query.h"
#include "lib/common.h"

#include <math.h>
#include <string.h>

#define WHATIF_DEVICES 8

/* A whatif row as the JSON has it (?1 the snapshot; LIMIT ?2; ?3 a
 * device, or NULL for all). */
#define WHATIF_ROWS \
	"SELECT w.device, w.scenario, w.setting, w.fits, w.failed_bytes, w.failed_seq," \
	" w.peak_reserved_bytes, w.peak_allocated_bytes," \
	" CASE WHEN w.scenario = 'recorded' THEN NULL ELSE (SELECT r.peak_reserved_bytes" \
	"  FROM whatif r WHERE r.snapshot_id = w.snapshot_id AND r.device = w.device" \
	"  AND r.scenario = 'recorded') - w.peak_reserved_bytes END AS gives_back_bytes," \
	" w.segments, w.capacity_bytes, w.capacity_source, w.events," \
	" CASE WHEN w.scenario = 'recorded' THEN json_object('recorded_segment_events'," \
	"  w.recorded_segment_events, 'model_segment_events', w.model_segment_events," \
	"  'matched_segment_events', w.matched_segment_events, 'recorded_segment_bytes'," \
	"  w.recorded_segment_bytes, 'matched_segment_bytes', w.matched_segment_bytes," \
	"  'recorded_peak_reserved_bytes', w.recorded_peak_reserved_bytes, 'details'," \
	"  json(CASE WHEN json_valid(w.details) THEN w.details END)) END AS agreement_json" \
	" FROM whatif w WHERE w.snapshot_id = ?1 AND (?3 IS NULL OR w.device = ?3)" \
	" ORDER BY w.device, w.id LIMIT ?2"

/* fits 1/0/NULL as true/false/null. */
static void fits_as_bool(json_t *rows)
{
	json_t *r, *f;
	size_t i;

	json_array_foreach(rows, i, r) {
		f = json_object_get(r, "fits");
		json_object_set_new(r, "fits", json_is_integer(f) ? json_boolean(json_integer_value(f))
							: json_null());
	}
}

void whatif_attach(struct report_ctx *c, json_t *snaps)
{
	json_t *s, *rows;
	size_t i;

	if (!r_has_table(c, "whatif")) {
		json_array_foreach(snaps, i, s)
			json_object_set_new(s, "whatif", json_array());
		return;
	}
	json_array_foreach(snaps, i, s)
		json_object_set(s, "id", json_object_get(s, "snapshot_id"));
	r_attach(c, snaps, "whatif", WHATIF_ROWS, -1, NULL);
	json_array_foreach(snaps, i, s)
		if ((rows = json_object_get(s, "whatif")))
			fits_as_bool(rows);
}

/* The model: {"snapshot": id, "artifact": path, "devices": [{device,
 * rows}]} of the latest snapshot replayed; NULL when none. */
json_t *load_whatif(struct report_ctx *c)
{
	sqlite3_stmt *st;
	int64_t snap;
	json_t *m, *devs;

	if (!r_has_table(c, "whatif") ||
	    (snap = r_int(c, "SELECT max(snapshot_id) FROM whatif", OL_NULL)) == OL_NULL)
		return NULL;
	devs = json_array();
	st = r_prepare(c, "SELECT DISTINCT device FROM whatif WHERE snapshot_id = ? ORDER BY device"
		       " LIMIT 8");
	if (st) {
		sqlite3_stmt *rows = r_prepare(c, WHATIF_ROWS);
		sqlite3_bind_int64(st, 1, snap);
		while (rows && sqlite3_step(st) == SQLITE_ROW) {
			json_t *rs;
			sqlite3_bind_int64(rows, 1, snap);
			sqlite3_bind_int64(rows, 2, 16);
			sqlite3_bind_int64(rows, 3, sqlite3_column_int64(st, 0));
			rs = q_rows_next(rows, -1);
			sqlite3_reset(rows);
			fits_as_bool(rs);
			json_array_append_new(devs, json_pack("{s:I, s:o}", "device",
				(json_int_t)sqlite3_column_int64(st, 0), "rows", rs));
		}
		sqlite3_finalize(rows);
	}
	sqlite3_finalize(st);
	m = json_pack("{s:I, s:o, s:o}", "snapshot", (json_int_t)snap, "devices", devs,
		      "artifact", json_null());
	st = r_prepare(c, "SELECT a.path FROM snapshot s JOIN artifact a ON a.id = s.artifact_id"
		       " WHERE s.id = ?");
	if (st) {
		sqlite3_bind_int64(st, 1, snap);
		if (sqlite3_step(st) == SQLITE_ROW)
			json_object_set_new(m, "artifact", q_json(st, 0));
		sqlite3_finalize(st);
	}
	return m;
}

/* ---- for people ---------------------------------------------------------- */

static const struct { const char *scenario, *name; } names[] = {
	{ "recorded", "as recorded (the model's proof)" },
	{ "baseline", "recorded settings, the cache laid out afresh" },
	{ "expandable_segments", "expandable segments" },
	{ "max_split_size_mb", "max_split_size_mb (the best value tried)" },
	{ "empty_cache", "nothing cached (the best any setting can do)" },
};

static const char *scenario_name(const json_t *r)
{
	const char *s = json_string_value(json_object_get(r, "scenario"));
	size_t i;

	for (i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].scenario, s))
			return names[i].name;
	return s ? s : "?";
}

static const json_t *row_of(const json_t *rows, const char *scenario)
{
	const json_t *r;
	size_t i;

	json_array_foreach(rows, i, r)
		if (!strcmp(json_string_value(json_object_get(r, "scenario")) ?
			    json_string_value(json_object_get(r, "scenario")) : "", scenario))
			return r;
	return NULL;
}

/* The model's agreement on the recorded trace, for people (raw text). */
static void agreement(struct strbuf *sb, const json_t *rec)
{
	const json_t *a = json_object_get(rec, "agreement"), *d = json_object_get(a, "details");
	int64_t n = jv_int(json_object_get(a, "recorded_segment_events"));
	int64_t m = jv_int(json_object_get(a, "matched_segment_events"));
	int64_t ooms = jv_int(json_object_get(d, "recorded_ooms"));

	if (n > 0)
		strbuf_addf(sb, "The model reproduces %lld of the trace's %lld recorded segment events"
			    " (%.0f %%)", (long long)m, (long long)n, 100.0 * (double)m / (double)n);
	else
		strbuf_addstr(sb, "The trace records no segment event, so the model could not be"
			      " checked on it");
	if (ooms > 0)
		strbuf_addf(sb, "; it reproduces %lld of its %lld recorded OOM%s",
			    (long long)jv_int(json_object_get(d, "ooms_reproduced")), (long long)ooms,
			    ooms > 1 ? "s" : "");
	strbuf_addch(sb, '.');
}

/* The answer for people: the failed request and, per setting, whether it
 * would have fitted and the peak reserved (raw text). */
static void answer(struct strbuf *sb, const json_t *rows)
{
	static const char *const sc[] = { "expandable_segments", "max_split_size_mb", "empty_cache" };
	const json_t *rec = row_of(rows, "recorded"), *r, *f, *set;
	char b[32], b2[32];
	double g;
	size_t i;

	if (!rec)
		return;
	f = json_object_get(rec, "fits");
	fmt_bytes(b, sizeof(b), jv_real(json_object_get(rec, "failed_bytes")));
	if (json_is_false(f))
		strbuf_addf(sb, "With the recorded settings the %s request fails, as it did.", b);
	else if (json_is_true(f))
		strbuf_addstr(sb, "With the recorded settings every request fits.");
	else
		strbuf_addstr(sb, "No capacity is known: whether a request fails is not said.");
	for (i = 0; i < sizeof(sc) / sizeof(sc[0]); i++) {
		if (!(r = row_of(rows, sc[i])))
			continue;
		f = json_object_get(r, "fits");
		set = json_object_get(r, "setting");
		if (i < 2) {
			strbuf_addstr(sb, " With ");
			strbuf_add_utf8(sb, json_string_value(set) ? json_string_value(set) : "?",
					json_string_value(set) ? json_string_length(set) : 1);
		} else {
			strbuf_addstr(sb, " With nothing cached");
		}
		fmt_bytes(b, sizeof(b), jv_real(json_object_get(r, "peak_reserved_bytes")));
		strbuf_addf(sb, " %s, peak reserved %s", json_is_true(f) ? "it fits" :
			    json_is_false(f) ? "it still fails" : "(fit unknown)", b);
		g = jv_real(json_object_get(r, "gives_back_bytes"));
		if (!jv_null(r, "gives_back_bytes") && fabs(g) >= 1048576) {
			fmt_bytes(b2, sizeof(b2), fabs(g));
			strbuf_addf(sb, " (%s %s than recorded)", b2, g > 0 ? "less" : "more");
		}
		strbuf_addch(sb, '.');
	}
	if (i && (r = row_of(rows, "empty_cache")) && json_is_false(json_object_get(r, "fits")))
		strbuf_addstr(sb, " Even with nothing cached it fails: the memory was in use, not"
			      " lost to fragmentation.");
}

/* The capacity the replay ran against, for people (raw text). */
static void capacity(struct strbuf *sb, const json_t *rec)
{
	static const char *const src[][2] = {
		{ "oom", "reserved at the trace's OOM plus the free memory it reported" },
		{ "torch_oom", "a log's OOM message: reserved plus free" },
		{ "peak_reserved", "the trace's highest reserved, where the allocator released its"
		  " cache under pressure" },
		{ "gpu_total", "the card's total" },
	};
	const char *cs = json_string_value(json_object_get(rec, "capacity_source"));
	char b[32];
	size_t i;

	if (jv_null(rec, "capacity_bytes")) {
		strbuf_addstr(sb, " No capacity is known (no OOM in the trace, no card total).");
		return;
	}
	fmt_bytes(b, sizeof(b), jv_real(json_object_get(rec, "capacity_bytes")));
	strbuf_addf(sb, " Capacity %s", b);
	for (i = 0; cs && i < sizeof(src) / sizeof(src[0]); i++)
		if (!strcmp(src[i][0], cs))
			strbuf_addf(sb, " (%s)", src[i][1]);
	strbuf_addch(sb, '.');
}

static void html_fits(struct strbuf *sb, const json_t *r)
{
	const json_t *f = json_object_get(r, "fits");
	char b[32];

	if (json_is_true(f)) {
		strbuf_addstr(sb, "<td><b>fits</b></td>");
		return;
	}
	if (!json_is_false(f)) {
		strbuf_addstr(sb, "<td class=muted>unknown</td>");
		return;
	}
	fmt_bytes(b, sizeof(b), jv_real(json_object_get(r, "failed_bytes")));
	strbuf_addf(sb, "<td class=err>fails: %s", b);
	if (!jv_null(r, "failed_seq"))
		strbuf_addf(sb, " at event %lld", (long long)jv_int(json_object_get(r, "failed_seq")));
	strbuf_addstr(sb, "</td>");
}

/* One device's table and answer. */
static void html_device(struct strbuf *sb, const json_t *d)
{
	const json_t *rows = json_object_get(d, "rows"), *rec = row_of(rows, "recorded"), *r;
	struct strbuf t = STRBUF_INIT;
	size_t i;

	strbuf_addf(sb, "<h3>cuda:%lld: %lld requests replayed</h3>\n",
		    (long long)jv_int(json_object_get(d, "device")),
		    (long long)jv_int(json_object_get(rec ? rec : json_array_get(rows, 0), "events")));
	answer(&t, rows);
	if (rec)
		capacity(&t, rec);
	strbuf_addstr(sb, "<p>");
	h_text(sb, t.buf, t.len);
	strbuf_reset(&t);
	if (rec)
		agreement(&t, rec);
	strbuf_addstr(sb, "</p>\n<p class=muted>");
	h_text(sb, t.buf, t.len);
	strbuf_inherit(sb, &t);
	strbuf_release(&t);
	strbuf_addstr(sb, "</p>\n<table><tr><th>scenario</th><th>setting</th><th>fits</th>"
			  "<th class=n>peak reserved</th><th class=n>gives back</th>"
			  "<th class=n>peak allocated</th><th class=n>segments</th></tr>\n");
	json_array_foreach(rows, i, r) {
		strbuf_addstr(sb, "<tr><td>");
		h_text(sb, scenario_name(r), (size_t)-1);
		strbuf_addstr(sb, "</td>");
		h_in(sb, "<td><code>", r, "setting", "</code></td>");
		html_fits(sb, r);
		h_bytes_td(sb, json_object_get(r, "peak_reserved_bytes"));
		h_bytes_td(sb, json_object_get(r, "gives_back_bytes"));
		h_bytes_td(sb, json_object_get(r, "peak_allocated_bytes"));
		h_num_td(sb, json_object_get(r, "segments"));
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
}

void html_whatif(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const json_t *d;
	size_t i;

	(void)c;
	if (!m || !json_array_size(json_object_get(m, "devices"))) {
		h_na(sb, "Not available: no PyTorch snapshot with an allocation trace was replayed"
			 " (the what-if needs <code>_record_memory_history()</code>'s trace).");
		return;
	}
	strbuf_addstr(sb, "<p class=muted>The snapshot's allocation trace (<code>");
	h_key(sb, m, "artifact");
	strbuf_addstr(sb, "</code>) replayed through a model of PyTorch's caching allocator,"
			  " with the recorded settings and with others. <i>Gives back</i> is the"
			  " recorded replay's peak reserved less the scenario's.</p>\n");
	json_array_foreach(json_object_get(m, "devices"), i, d)
		html_device(sb, d);
}

void md_whatif(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const json_t *d, *rec;
	struct strbuf t = STRBUF_INIT;
	size_t i;

	(void)c;
	if (!m || !json_array_size(json_object_get(m, "devices")))
		return;
	strbuf_addstr(sb, "### What-if: the allocator trace replayed\n\n");
	json_array_foreach(json_object_get(m, "devices"), i, d) {
		rec = row_of(json_object_get(d, "rows"), "recorded");
		strbuf_reset(&t);
		answer(&t, json_object_get(d, "rows"));
		if (rec) {
			strbuf_addch(&t, ' ');
			agreement(&t, rec);
		}
		strbuf_addf(sb, "- **cuda:%lld:** ", (long long)jv_int(json_object_get(d, "device")));
		md_text(sb, t.buf, t.len);
		strbuf_addstr(sb, "\n");
	}
	strbuf_inherit(sb, &t);
	strbuf_release(&t);
	strbuf_addstr(sb, "\n");
}
