/*
 * servwhatif.c -- the serving what-if in the report: the derived table
 * `serving_whatif` (analyzer/derive/servwhatif.c) as it is, one row per
 * candidate setting with the peak it would have reached under the
 * incident's recorded load, whether the OOM would have been avoided, the
 * requests that would have queued and the KV pool it leaves; the chosen
 * row of each knob is the value the advice gives. JSON key
 * `serving_whatif` (docs/json.md), a table in HTML, a list in Markdown
 * (and so in the text report). Nothing here computes: it picks the rows.
 */
#include "reports/section.h"
#include "reports/html_util.h"
#include "reports/md_util.h"
#include "lib/bytes.h"
#include "lib/common.h"

#include <stdio.h>
#include <string.h>

#define SERVWHATIF_SQL "SELECT knob, value, recorded, peak_bytes, total_bytes, avoided," \
	" running, queued, kv_cache_tokens, max_concurrency, chosen, note" \
	" FROM serving_whatif ORDER BY id"

/* The 0/1 columns as booleans, as the JSON report has them. */
static void as_bools(json_t *rows)
{
	static const char *const keys[] = { "recorded", "avoided", "chosen" };
	json_t *r, *v;
	size_t i, k;

	json_array_foreach(rows, i, r)
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			v = json_object_get(r, keys[k]);
			json_object_set_new(r, keys[k], json_is_integer(v) ?
					    json_boolean(json_integer_value(v)) : json_null());
		}
}

json_t *load_servwhatif(struct report_ctx *c)
{
	json_t *rows;

	if (!r_has_table(c, "serving_whatif"))
		return json_array();
	rows = r_rows(c, SERVWHATIF_SQL, -1);
	as_bools(rows);
	return rows;
}

/* The derived row `oom_load` (analyzer/derive/load.c) as it is: JSON key
 * `oom_load`, an object, null when there is no row. The other formats
 * say it through the findings that read it (progress.c, spike.c, leak.c). */
json_t *load_oom_load(struct report_ctx *c)
{
	json_t *rows, *row;

	if (!r_has_table(c, "oom_load"))
		return json_null();
	rows = r_rows(c, "SELECT doing, steps_done, steps_total, first_step, bars, at_start,"
		      " max_mem_first_mb, max_mem_last_mb, entity, running, waiting, kv_usage_pct,"
		      " running_before, waiting_before, kv_usage_before_pct, window_s, samples,"
		      " epoch, logged_steps, step_source, running_typical, samples_before,"
		      " kv_slope_pct_min, kv_r2, kv_samples"
		      " FROM oom_load ORDER BY oom_id LIMIT 1", -1);
	row = json_array_size(rows) ? json_incref(json_array_get(rows, 0)) : json_null();
	json_decref(rows);
	return row;
}

/* A candidate's value as the engine's flag takes it. */
static void value_text(char *buf, size_t n, const json_t *r)
{
	const char *knob = json_string_value(json_object_get(r, "knob"));
	double v = jv_real(json_object_get(r, "value"));

	if (knob && !strcmp(knob, "gpu_memory_utilization"))
		snprintf(buf, n, "%.2f", v);
	else
		snprintf(buf, n, "%.0f", v);
}

/* "avoided", "OOM" and the row's role. */
static const char *row_outcome(const json_t *r)
{
	return json_is_true(json_object_get(r, "avoided")) ? "avoided" : "OOM";
}

static const char *row_role(const json_t *r)
{
	return json_is_true(json_object_get(r, "recorded")) ? "as recorded" :
	       json_is_true(json_object_get(r, "chosen")) ? "chosen: the advice" : "";
}

void html_servwhatif(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const json_t *r;
	char b[48];
	size_t i;

	(void)c;
	if (!json_array_size(m)) {
		h_na(sb, "no serving what-if: it needs a serving engine's load (running requests),"
		     " the card's memory over time and an OOM that this load explains");
		return;
	}
	strbuf_addstr(sb, "<p>The peak each setting would have reached under the incident's"
		      " recorded load (baseline + per-request memory &times; requests running),"
		      " per card.</p><table><tr><th>knob</th><th>value</th><th></th>"
		      "<th>peak</th><th>card</th><th>outcome</th><th>running</th>"
		      "<th>queued</th><th>KV tokens</th><th>max concurrency</th><th>note</th></tr>");
	json_array_foreach(m, i, r) {
		strbuf_addstr(sb, "<tr><td>");
		h_key(sb, r, "knob");
		value_text(b, sizeof(b), r);
		strbuf_addf(sb, "</td><td class=n>%s</td><td>%s</td>", b, row_role(r));
		h_bytes_td(sb, json_object_get(r, "peak_bytes"));
		h_bytes_td(sb, json_object_get(r, "total_bytes"));
		strbuf_addf(sb, "<td>%s</td>", row_outcome(r));
		h_num_td(sb, json_object_get(r, "running"));
		h_num_td(sb, json_object_get(r, "queued"));
		h_num_td(sb, json_object_get(r, "kv_cache_tokens"));
		strbuf_addstr(sb, "<td class=n>");
		h_key(sb, r, "max_concurrency");
		strbuf_addstr(sb, "</td><td>");
		h_key(sb, r, "note");
		strbuf_addstr(sb, "</td></tr>");
	}
	strbuf_addstr(sb, "</table>");
}

void md_servwhatif(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const json_t *r, *q;
	char b[48], p[40], t[40];
	size_t i;

	(void)c;
	if (!json_array_size(m))
		return;
	strbuf_addstr(sb, "### Serving what-if: each setting under the recorded load\n\n");
	json_array_foreach(m, i, r) {
		value_text(b, sizeof(b), r);
		ol_fmt_bytes(p, sizeof(p), jv_real(json_object_get(r, "peak_bytes")));
		ol_fmt_bytes(t, sizeof(t), jv_real(json_object_get(r, "total_bytes")));
		strbuf_addstr(sb, "- ");
		md_key(sb, r, "knob");
		strbuf_addf(sb, " %s%s%s%s: peak %s of %s, %s", b, *row_role(r) ? " (" : "",
			    row_role(r), *row_role(r) ? ")" : "", p, t, row_outcome(r));
		q = json_object_get(r, "queued");
		if (json_is_integer(q) && json_integer_value(q) > 0)
			strbuf_addf(sb, ", %lld requests would have queued",
				    (long long)json_integer_value(q));
		if (!jv_null(r, "note")) {
			strbuf_addstr(sb, "; ");
			md_key(sb, r, "note");
		}
		strbuf_addstr(sb, "\n");
	}
	strbuf_addstr(sb, "\n");
}
