/*
 * artifacts.c -- the artifacts read, with their status, timings and
 * diagnostics; the HTML's artifacts section also says how the clocks were
 * aligned (clocks.c). The HTML shows ARTIFACTS_CAP artifacts of
 * DIAGNOSTICS_CAP diagnostics each, the Markdown the first MD_ARTIFACTS.
 * An archive's members come right after its own row (the top archive's
 * group placed where its first row was read), each naming its container.
 */
#include "reports/section.h"
#include "reports/html_util.h"
#include "reports/md_util.h"
#include "analyzer/store/query.h"
#include "lib/common.h"

#include <string.h>

#define ARTIFACTS_CAP 500
#define DIAGNOSTICS_CAP 20
#define MD_ARTIFACTS 30

/* The archive a row belongs to at the top (its own path for a file on
 * disk or an archive's own row): rows are grouped by it. */
#define TOP_SQL "(CASE WHEN container IS NULL THEN path WHEN instr(container, '!/') > 0" \
	" THEN substr(container, 1, instr(container, '!/') - 1) ELSE container END)"
#define ARTIFACTS_SQL "SELECT id, path, container, kind, size, compressed, status, bytes_read," \
	" seconds, errors, warnings FROM artifact ORDER BY min(id) OVER (PARTITION BY " TOP_SQL \
	"), container IS NOT NULL, container, id"
#define DIAGNOSTICS_SQL "SELECT line, offset, severity, message FROM diagnostic" \
	" WHERE artifact_id = ?1 ORDER BY id LIMIT ?2"

/* An artifact row as the JSON has it: compressed a boolean. */
static void artifact_row(json_t *a)
{
	json_object_set_new(a, "compressed",
		json_boolean(json_integer_value(json_object_get(a, "compressed"))));
}

/* The JSON's artifacts array (capped: a list of the first ARTIFACTS_CAP,
 * each with diagnostics_total when its diagnostics were capped). */
json_t *load_artifacts(struct report_ctx *c)
{
	json_t *arts = r_rows(c, ARTIFACTS_SQL, r_cap(c, ARTIFACTS_CAP)), *a;
	int64_t total;
	size_t i;

	json_array_foreach(arts, i, a)
		artifact_row(a);
	r_attach(c, arts, "diagnostics", DIAGNOSTICS_SQL, DIAGNOSTICS_CAP,
		 "SELECT count(*) FROM diagnostic WHERE artifact_id = ?1");
	total = (int64_t)json_array_size(arts);
	if (c->capped && total >= ARTIFACTS_CAP)
		total = r_int(c, "SELECT count(*) FROM artifact", total);
	return r_list(c, arts, total);
}

/* The diagnostics of every artifact, in artifact order: the index on
 * diagnostic(artifact_id) read once, beside the artifacts, instead of a
 * look-up per artifact. */
#define ALL_DIAGNOSTICS_SQL "SELECT artifact_id, line, offset, severity, message" \
	" FROM diagnostic WHERE artifact_id IS NOT NULL ORDER BY artifact_id, id"

/* Whether the diagnostic row at dg (stepped on, not done) belongs to an
 * artifact before id: 1 (skip it), 0 (it is id's, or a later one's).
 * DIAGNOSTICS_SQL's artifact_id = ?1 matches integers only: a real there
 * never equals an artifact's id, text sorts after every number. */
static int diagnostic_before(sqlite3_stmt *dg, int64_t id)
{
	switch (sqlite3_column_type(dg, 0)) {
	case SQLITE_INTEGER:
		return sqlite3_column_int64(dg, 0) < id;
	case SQLITE_FLOAT:
		return sqlite3_column_double(dg, 0) < (double)id;
	default:
		return 0;
	}
}

static int diagnostic_of(sqlite3_stmt *dg, int64_t id)
{
	return sqlite3_column_type(dg, 0) == SQLITE_INTEGER && sqlite3_column_int64(dg, 0) == id;
}

/* One artifact's "diagnostics" array from dg, whose current row (have:
 * not done) is the next diagnostic not yet written; have is updated. */
static int artifact_diagnostics(struct q_jw *w, const struct q_jw_cols *dc, int64_t id,
				int *have)
{
	sqlite3_stmt *dg = dc->st;
	int r = 0;

	while (*have && diagnostic_before(dg, id))
		*have = sqlite3_step(dg) == SQLITE_ROW;
	q_jw_key(w, "diagnostics");
	q_jw_open(w, '[');
	while (*have && diagnostic_of(dg, id)) {
		q_jw_elem(w);
		q_jw_open(w, '{');
		if (q_jw_row(w, dc) < 0)
			r = -1;
		q_jw_close(w, '}');
		*have = sqlite3_step(dg) == SQLITE_ROW;
	}
	q_jw_close(w, ']');
	return r;
}

/* The JSON's artifacts array, one artifact at a time (100,000 small
 * files are as many objects: never all in memory); the rows of
 * load_artifacts uncapped, written as the whole array would be (q_jw:
 * the bytes of the jansson objects, without them). */
int stream_artifacts(struct report_ctx *c, FILE *out)
{
	sqlite3_stmt *st = r_prepare(c, ARTIFACTS_SQL);
	sqlite3_stmt *dg = r_prepare(c, ALL_DIAGNOSTICS_SQL);
	struct q_jw_cols ac, dc;
	struct q_jw w;
	int n = 0, have, r = st && dg ? 0 : -1;

	q_jw_init(&w, out, 2, 1);
	if (q_jw_cols_init(&ac, st, "id", "compressed") < 0 ||
	    q_jw_cols_init(&dc, dg, "artifact_id", NULL) < 0)
		r = -1;
	have = dg && sqlite3_step(dg) == SQLITE_ROW;
	q_jw_raw(&w, "[", 1);
	while (r == 0 && sqlite3_step(st) == SQLITE_ROW) {
		q_jw_raw(&w, n ? ",\n  " : "\n  ", n ? 4 : 3);
		n++;
		q_jw_open(&w, '{');
		r = q_jw_row(&w, &ac);
		if (r == 0)
			r = artifact_diagnostics(&w, &dc, sqlite3_column_int64(st, 0), &have);
		q_jw_close(&w, '}');
		q_jw_flush(&w);
	}
	q_jw_cols_release(&ac);
	q_jw_cols_release(&dc);
	sqlite3_finalize(st);
	sqlite3_finalize(dg);
	q_jw_raw(&w, n ? "\n]" : "]", n ? 2 : 1);
	return q_jw_finish(&w) < 0 ? -1 : r;
}

/* --- HTML ----------------------------------------------------------------- */

static const char *status_class(const char *status)
{
	return !status ? "" : !strcmp(status, "failed") ? " class=err"
	       : !strcmp(status, "partial") ? " class=warn"
	       : !strcmp(status, "skipped") ? " class=muted" : "";
}

/* An artifact's diagnostics as a row under it, with how many more. */
static void html_diagnostics(struct strbuf *sb, const json_t *a)
{
	const json_t *dg = json_object_get(a, "diagnostics"), *d;
	size_t i, n = json_array_size(dg);

	json_array_foreach(dg, i, d) {
		const char *sev = json_string_value(json_object_get(d, "severity"));
		if (!i)
			strbuf_addstr(sb, "<tr class=diag><td colspan=7><ul>");
		strbuf_addf(sb, "<li class=%s>", sev && !strcmp(sev, "error") ? "err"
			    : sev && !strcmp(sev, "warning") ? "warn" : "muted");
		h_key(sb, d, "severity");
		if (!jv_null(d, "line"))
			strbuf_addf(sb, " at line %lld", (long long)jv_int_or_null(d, "line"));
		else if (!jv_null(d, "offset"))
			strbuf_addf(sb, " at byte %lld", (long long)jv_int_or_null(d, "offset"));
		strbuf_addstr(sb, ": ");
		h_key(sb, d, "message");
		strbuf_addstr(sb, "</li>");
	}
	if (!n)
		return;
	if (jv_int_or_null(a, "diagnostics_total") > (int64_t)n)
		strbuf_addf(sb, "<li class=more>%lld more diagnostics in the database</li>",
			    (long long)(jv_int_or_null(a, "diagnostics_total") - (int64_t)n));
	strbuf_addstr(sb, "</ul></td></tr>\n");
}

/* One artifact's row: file, kind, size, status, time, errors. */
static void html_artifact(struct strbuf *sb, const json_t *a)
{
	int member = !jv_null(a, "container");

	strbuf_addstr(sb, member ? "<tr><td>&#8627; <code>" : "<tr><td><code>");
	h_key(sb, a, "path");
	strbuf_addstr(sb, "</code>");
	if (member) {
		strbuf_addstr(sb, " <span class=muted>in <code>");
		h_key(sb, a, "container");
		strbuf_addstr(sb, "</code></span>");
	}
	if (json_is_true(json_object_get(a, "compressed")))
		strbuf_addstr(sb, " <span class=muted>(compressed)</span>");
	strbuf_addstr(sb, "</td><td>");
	h_key(sb, a, "kind");
	strbuf_addstr(sb, "</td>");
	h_bytes_td(sb, json_object_get(a, "size"));
	strbuf_addf(sb, "<td%s>", status_class(json_string_value(json_object_get(a, "status"))));
	h_key(sb, a, "status");
	strbuf_addstr(sb, "</td>");
	if (jv_null(a, "seconds"))
		strbuf_addstr(sb, "<td class=n><span class=muted>-</span></td>");
	else
		strbuf_addf(sb, "<td class=n>%.2f</td>", jv_real(json_object_get(a, "seconds")));
	h_num_td(sb, json_object_get(a, "errors"));
	h_num_td(sb, json_object_get(a, "warnings"));
	strbuf_addstr(sb, "</tr>\n");
	html_diagnostics(sb, a);
}

/* Every artifact (to the cap), then the clocks. */
void html_artifacts(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const json_t *rows = model_rows(m), *a;
	size_t i;

	strbuf_addstr(sb, "<table><tr><th>file</th><th>kind</th><th class=n>size</th>"
			  "<th>status</th><th class=n>seconds</th><th class=n>errors</th>"
			  "<th class=n>warnings</th></tr>\n");
	json_array_foreach(rows, i, a)
		html_artifact(sb, a);
	strbuf_addstr(sb, "</table>\n");
	if (!json_array_size(rows))
		h_na(sb, "No artifact was read.");
	else
		h_more(sb, model_total(m), (int64_t)json_array_size(rows), "artifacts");
	html_clocks(sb, c, report_model(c, "anchors"));
}

/* --- Markdown --------------------------------------------------------------- */

void md_artifacts(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	static const char *const cells[] = { "path", "kind", "status", NULL };
	static const char *const member_cells[] = { "container", "path", "kind", "status", NULL };
	const json_t *a;
	size_t i, n = 0;

	(void)c;
	strbuf_addstr(sb, "### Artifacts\n\n| file | kind | status | errors | warnings |\n"
			  "|---|---|---|---:|---:|\n");
	json_array_foreach(model_rows(m), i, a) {
		if (i == MD_ARTIFACTS)
			break;
		/* a member: "| archive ▸ path inside | ..." (two cells joined) */
		if (!jv_null(a, "container")) {
			struct strbuf row = STRBUF_INIT;
			md_cells(&row, a, member_cells);
			if (!strbuf_failed(&row)) {
				char *bar = strstr(row.buf + 1, " | ");
				if (bar) {
					*bar = 0;
					strbuf_addf(sb, "%s \xe2\x96\xb8 %s", row.buf, bar + 3);
				}
			}
			strbuf_release(&row);
		} else {
			md_cells(sb, a, cells);
		}
		strbuf_addf(sb, " | %lld | %lld |\n", (long long)jv_int(json_object_get(a, "errors")),
			    (long long)jv_int(json_object_get(a, "warnings")));
		n++;
	}
	if (model_total(m) > (int64_t)n)
		strbuf_addf(sb, "\n%lld more artifacts in the database.\n",
			    (long long)(model_total(m) - (int64_t)n));
	strbuf_addstr(sb, "\n");
}
