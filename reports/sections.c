/*
 * sections.c -- the table of the report's sections (see section.h), the
 * report context that loads each section's model once, and the reading
 * helpers the loaders share.
 *
 * To add a section: write its loader and renderers in a file named for
 * it, declare them in section.h and add one row here, where it should
 * stand in the HTML, the Markdown and the JSON key order alike.
 */
#include "reports/section.h"
#include "reports/holders.h"
#include "analyzer/store/query.h"
#include "lib/common.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct section report_sections[] = {
	/* id, anchor, nav, heading, json, load, html, md, stream */
	{ "oomlens", NULL, NULL, NULL, 1, load_version, NULL, NULL, NULL },
	{ "schema", NULL, NULL, NULL, 1, load_schema, NULL, NULL, NULL },
	/* the first screen: what happened, evidence, the fix (answer.c) */
	{ "answer", NULL, NULL, NULL, 1, load_answer, NULL, NULL, NULL },
	{ "verdict", NULL, NULL, NULL, 1, load_verdict, NULL, NULL, NULL },
	{ "summary", NULL, NULL, NULL, 1, load_summary, NULL, NULL, NULL },
	/* each account's peak per measure (table peak, peaks.c) */
	{ "peaks", NULL, NULL, NULL, 1, load_peaks, NULL, NULL, NULL },
	/* each account's headroom, growth, time to its limit (table profile) */
	{ "profile", NULL, NULL, NULL, 1, load_profile, NULL, NULL, NULL },
	{ "ledger", NULL, "Ledger", "Memory ledger: what filled each card and the host", 1,
	  load_ledger, html_ledger, md_ledger, NULL },
	{ "timeline", NULL, "Timeline", "Timeline", 0, NULL, html_timeline, NULL, NULL },
	{ "findings", NULL, "Findings", "Findings", 1, load_findings, html_findings,
	  md_findings, NULL },
	{ "events", NULL, "Events", "What happened", 1, load_events, html_events, md_events,
	  stream_events },
	{ "oom_tasks", "tasks", "Processes", "Processes at the kernel OOM", 1, load_oom_tasks,
	  html_oom_tasks, NULL, stream_oom_tasks },
	{ "engines", NULL, "Engines", "Serving engines: their memory accounting", 1, load_engines,
	  html_engines, md_engines, NULL },
	/* the training progress or the serving load at the OOM (table oom_load) */
	{ "oom_load", NULL, NULL, NULL, 1, load_oom_load, NULL, NULL, NULL },
	{ "serving_whatif", NULL, "Serving what-if", "Serving what-if: each setting under the recorded load", 1, load_servwhatif, html_servwhatif, md_servwhatif, NULL },
	{ "holders", NULL, "Holders", "What held the memory: live memory by allocation stack", 0,
	  load_holders, html_holders, md_holders, NULL },
	{ "whatif", NULL, "What-if", "What-if: the allocator trace replayed under other settings",
	  0, load_whatif, html_whatif, md_whatif, NULL },
	{ "segments", NULL, "Segments", "Allocator segments", 0, load_segments, html_segments,
	  NULL, NULL },
	{ "gpu", NULL, "GPU core", "GPU core dump", 0, load_gpu_core, html_gpu_core, NULL, NULL },
	{ "meta", NULL, NULL, NULL, 1, load_meta, NULL, NULL, stream_meta },
	{ "artifacts", NULL, "Artifacts", "Artifacts read", 1, load_artifacts, html_artifacts,
	  md_artifacts, stream_artifacts },
	{ "unknowns", NULL, "Unknowns", "What this report could not determine", 1, load_unknowns,
	  html_unknowns, md_unknowns, stream_unknowns },
	{ "gpu_cores", NULL, NULL, NULL, 1, load_gpu_cores, NULL, NULL, stream_gpu_cores },
	{ "host_cores", NULL, NULL, NULL, 1, load_host_cores, NULL, NULL, NULL },
	{ "series", NULL, NULL, NULL, 1, load_series, NULL, NULL, stream_series },
	{ "anchors", NULL, NULL, NULL, 1, load_anchors, NULL, NULL, stream_anchors },
	{ "snapshots", NULL, NULL, NULL, 1, load_snapshots, NULL, NULL, NULL },
	/* what the diagnostic tools named as holders (memray, the profiler) */
	{ "tool_holders", NULL, NULL, NULL, 1, holders_tools_load, NULL, NULL, NULL },
	/* shared models: counts over every event (HTML events and unknowns),
	 * the schema's tables */
	{ "event_counts", NULL, NULL, NULL, 0, load_event_counts, NULL, NULL, NULL },
	{ "tables", NULL, NULL, NULL, 0, load_tables, NULL, NULL, NULL },
	/* what the memory budget left out (partial.c): last, all else loaded */
	{ "partial", NULL, NULL, NULL, 1, load_partial, NULL, NULL, NULL },
	{ NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL }
};

const char *section_anchor(const struct section *s)
{
	return s->anchor ? s->anchor : s->id;
}

static int section_index(const char *id)
{
	int i;

	for (i = 0; report_sections[i].id; i++)
		if (!strcmp(report_sections[i].id, id))
			return i;
	assert(!"section id not in the table");
	return -1;
}

int report_ctx_open(struct report_ctx *c, sqlite3 *db, int capped, struct strbuf *err)
{
	memset(c, 0, sizeof(*c));
	assert(sizeof(report_sections) / sizeof(report_sections[0]) <= REPORT_MODELS + 1);
	c->db = db;
	c->capped = capped;
	strbuf_init(&c->qerr);
	if (report_summary_load(c, &c->sum) == 0) {
		c->has_summary = 1;
		return 0;
	}
	report_summary_release(&c->sum);
	if (!capped)
		return 0;
	strbuf_addf(err, "report query failed: %s", c->qerr.len ? c->qerr.buf : "verdict");
	return -1;
}

void report_ctx_close(struct report_ctx *c)
{
	int i;

	for (i = 0; i < REPORT_MODELS; i++)
		json_decref(c->model[i]);
	if (c->has_summary)
		report_summary_release(&c->sum);
	strbuf_release(&c->qerr);
	memset(c->model, 0, sizeof(c->model));
}

const json_t *report_model(struct report_ctx *c, const char *id)
{
	int i = section_index(id);

	if (!c->loaded[i] && report_sections[i].load) {
		uint64_t cut = q_rows_cut();
		c->loaded[i] = 1;
		c->model[i] = report_sections[i].load(c);
		c->cut[i] += q_rows_cut() - cut;
	}
	return c->model[i];
}

void report_model_drop(struct report_ctx *c, const char *id)
{
	int i = section_index(id);

	json_decref(c->model[i]);
	c->model[i] = NULL;
}

/* --- reading -------------------------------------------------------------- */

sqlite3_stmt *r_prepare(struct report_ctx *c, const char *sql)
{
	return q_prepare_err(c->db, sql, &c->qerr);
}

int r_stream_rows(struct report_ctx *c, FILE *out, int base, const char *sql)
{
	sqlite3_stmt *st = r_prepare(c, sql);
	struct q_jw_cols cols;
	struct q_jw w;
	int r = 0;

	q_jw_init(&w, out, 2, base);
	if (q_jw_cols_init(&cols, st, NULL, NULL) < 0)
		r = -1;
	if (r == 0)
		r = q_jw_rows(&w, &cols);
	q_jw_cols_release(&cols);
	sqlite3_finalize(st);
	return q_jw_finish(&w) < 0 ? -1 : r;
}

int64_t r_int(struct report_ctx *c, const char *sql, int64_t dflt)
{
	return q_int_err(c->db, sql, dflt, &c->qerr);
}

double r_real(struct report_ctx *c, const char *sql, double dflt)
{
	return q_real_err(c->db, sql, dflt, &c->qerr);
}

json_t *r_rows(struct report_ctx *c, const char *sql, int64_t max)
{
	sqlite3_stmt *st = r_prepare(c, sql);
	json_t *rows;

	if (!st)
		return json_array();
	rows = q_rows_next(st, max);
	sqlite3_finalize(st);
	return rows;
}

/* The schema's tables and views {"names": {name: true}}, and the rows of
 * the snapshot table (three sections and the unknowns ask). */
json_t *load_tables(struct report_ctx *c)
{
	sqlite3_stmt *st = r_prepare(c, "SELECT name FROM sqlite_master WHERE type IN"
				     " ('table', 'view')");
	json_t *names = json_object();
	int64_t snapshots = 0;

	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *n = (const char *)sqlite3_column_text(st, 0);
		if (n)
			json_object_set_new(names, n, json_true());
	}
	sqlite3_finalize(st);
	if (json_object_get(names, "snapshot"))
		snapshots = r_int(c, "SELECT count(*) FROM snapshot", 0);
	return json_pack("{s:o, s:I}", "names", names, "snapshot_rows", (json_int_t)snapshots);
}

int r_has_table(struct report_ctx *c, const char *name)
{
	return json_object_get(json_object_get(report_model(c, "tables"), "names"), name) != NULL;
}

int64_t r_snapshots(struct report_ctx *c)
{
	return json_integer_value(json_object_get(report_model(c, "tables"), "snapshot_rows"));
}

int64_t r_cap(const struct report_ctx *c, int64_t cap)
{
	return c->capped ? cap : -1;
}

void r_attach(struct report_ctx *c, json_t *rows, const char *key, const char *child_sql,
	      int64_t cap, const char *count_sql)
{
	sqlite3_stmt *st = r_prepare(c, child_sql);
	sqlite3_stmt *cnt = c->capped && count_sql ? r_prepare(c, count_sql) : NULL;
	char total_key[96];    /* no allocation: a key of the table, short */
	size_t i;
	json_t *r;

	snprintf(total_key, sizeof(total_key), "%s_total", key);
	json_array_foreach(rows, i, r) {
		int64_t id = json_integer_value(json_object_get(r, "id"));
		json_t *kids;

		if (st) {
			sqlite3_bind_int64(st, 1, id);
			sqlite3_bind_int64(st, 2, r_cap(c, cap));
			kids = q_rows_next(st, -1);
			if (cnt && (int64_t)json_array_size(kids) >= cap) {
				sqlite3_bind_int64(cnt, 1, id);
				json_object_set_new(r, total_key,
					json_integer(q_int_next(cnt, (json_int_t)json_array_size(kids))));
			}
			json_object_set_new(r, key, kids);
		}
		json_object_del(r, "id");
	}
	sqlite3_finalize(st);
	sqlite3_finalize(cnt);
}

json_t *r_list(struct report_ctx *c, json_t *rows, int64_t total)
{
	if (!c->capped)
		return rows;
	return json_pack("{s:o, s:I}", "rows", rows, "total", (json_int_t)total);
}

json_t *r_table(struct report_ctx *c, const char *sql, int64_t total, int64_t cap)
{
	sqlite3_stmt *st = q_try(c->db, sql);
	json_t *cols, *rows;
	int i, n;

	if (!st)
		return NULL;
	cols = json_array();
	rows = json_array();
	n = sqlite3_column_count(st);
	for (i = 0; i < n; i++)
		json_array_append_new(cols, json_string(sqlite3_column_name(st, i)));
	while ((int64_t)json_array_size(rows) < cap && sqlite3_step(st) == SQLITE_ROW) {
		json_t *row = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(row, q_json(st, i));
		json_array_append_new(rows, row);
	}
	sqlite3_finalize(st);
	if (total < 0)
		total = (int64_t)json_array_size(rows);
	return json_pack("{s:o, s:o, s:I}", "columns", cols, "rows", rows, "total",
			 (json_int_t)total);
}

/* --- the models' values ----------------------------------------------------- */

const json_t *model_rows(const json_t *m)
{
	return json_is_array(m) ? m : json_object_get(m, "rows");
}

int64_t model_total(const json_t *m)
{
	if (json_is_array(m))
		return (int64_t)json_array_size(m);
	return json_integer_value(json_object_get(m, "total"));
}

int64_t jv_int(const json_t *v)
{
	double d;

	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_string(v))
		return strtoll(json_string_value(v), NULL, 10);
	if (!json_is_real(v))
		return json_is_true(v);
	d = json_real_value(v);
	if (d <= (double)INT64_MIN)
		return INT64_MIN;
	if (d >= (double)INT64_MAX)
		return INT64_MAX;
	return (int64_t)d;
}

double jv_real(const json_t *v)
{
	if (json_is_number(v))
		return json_number_value(v);
	if (json_is_string(v))
		return strtod(json_string_value(v), NULL);
	return json_is_true(v);
}

long jv_text(const json_t *v, char *buf, size_t n, const char **s)
{
	if (json_is_string(v)) {
		*s = json_string_value(v);
		return (long)json_string_length(v);
	}
	if (!v || json_is_null(v))
		return -1;
	if (json_is_real(v))   /* SQLite's own text for a REAL */
		sqlite3_snprintf((int)n, buf, "%!.15g", json_real_value(v));
	else
		snprintf(buf, n, "%lld", (long long)jv_int(v));
	*s = buf;
	return (long)strlen(buf);
}

int64_t jv_int_or_null(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return !v || json_is_null(v) ? OL_NULL : jv_int(v);
}

int jv_null(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return !v || json_is_null(v);
}
