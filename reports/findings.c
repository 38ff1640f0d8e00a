/*
 * findings.c -- the findings section: what the rules found, strongest
 * first, each with its figures, the evidence rows it used and its advice.
 * The HTML shows every figure and up to EVIDENCE_CAP evidence rows of the
 * first FINDINGS_CAP findings; the Markdown the first MD_FINDINGS with
 * their first MD_FIGURES figures. The summary's strongest finding and the
 * chart's annotations come from this model too.
 */
#include "reports/section.h"
#include "analyzer/store/query.h"
#include "reports/html_util.h"
#include "reports/md_util.h"
#include "reports/summary.h"
#include "lib/common.h"

#include <stdlib.h>
#include <string.h>

#define FINDINGS_CAP 50
#define EVIDENCE_CAP 20
#define MD_FINDINGS 5
#define MD_FIGURES 6

/* Evidence in the order the rule wrote it. For people, the event a row
 * names is joined: event_kind, event_ns, event_boot_ns, event_summary. */
#define EVIDENCE_JSON "SELECT ref_table AS \"table\", ref_id AS id, note FROM evidence" \
	" WHERE finding_id = ?1 ORDER BY rowid LIMIT ?2"
#define EVIDENCE_PEOPLE "SELECT v.ref_table AS \"table\", v.ref_id AS id, v.note," \
	" e.kind AS event_kind, e.time_ns AS event_ns, e.boot_ns AS event_boot_ns," \
	" e.summary AS event_summary FROM evidence v" \
	" LEFT JOIN event e ON v.ref_table = 'event' AND e.id = v.ref_id" \
	" WHERE v.finding_id = ?1 ORDER BY v.rowid LIMIT ?2"

/* The JSON's findings array (capped: the first FINDINGS_CAP as a list,
 * each with evidence_total when its evidence was capped). */
json_t *load_findings(struct report_ctx *c)
{
	json_t *rows = r_rows(c, "SELECT id, rule, class, cause, score, title, advice,"
			      " figures AS figures_json, phase FROM finding ORDER BY score DESC, id",
			      r_cap(c, FINDINGS_CAP));
	int64_t total;

	r_attach(c, rows, "evidence", c->capped ? EVIDENCE_PEOPLE : EVIDENCE_JSON, EVIDENCE_CAP,
		 "SELECT count(*) FROM evidence WHERE finding_id = ?1");
	total = (int64_t)json_array_size(rows);
	if (c->capped && total >= FINDINGS_CAP)
		total = r_int(c, "SELECT count(*) FROM finding", total);
	return r_list(c, rows, total);
}

/* --- HTML ------------------------------------------------------------------ */

/* Every figure with its unit (the exact value in the title). */
static void html_figures(struct strbuf *sb, const json_t *fig)
{
	const char *key;
	json_t *v;

	if (!json_is_object(fig) || !json_object_size(fig))
		return;
	strbuf_addstr(sb, "<table class=figs>");
	json_object_foreach((json_t *)fig, key, v) {
		struct strbuf val = STRBUF_INIT, lab = STRBUF_INIT;
		char *raw;
		if (figure_hidden(key))
			continue;
		raw = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		fmt_figure(&val, key, v);
		figure_label(&lab, key);
		/* the words for people; the key, as the JSON and the database
		 * name it, in the title */
		strbuf_addstr(sb, "<tr><th title=\"");
		h_text(sb, key, (size_t)-1);
		strbuf_addstr(sb, "\">");
		h_text(sb, lab.buf, lab.len);
		strbuf_addstr(sb, "</th><td class=n title=\"");
		if (raw)
			h_text(sb, raw, (size_t)-1);
		strbuf_addstr(sb, "\">");
		h_text(sb, val.buf, val.len);
		strbuf_inherit(sb, &val);
		strbuf_inherit(sb, &lab);
		strbuf_addstr(sb, "</td></tr>");
		strbuf_release(&val);
		strbuf_release(&lab);
		free(raw);
	}
	strbuf_addstr(sb, "</table>\n");
}

/* One evidence row: its note, the row it names, and the event's kind,
 * time and summary when it names an event. */
static void html_evidence_row(struct strbuf *sb, const json_t *e)
{
	strbuf_addstr(sb, "<li>");
	if (!jv_null(e, "note")) {
		h_key(sb, e, "note");
		strbuf_addstr(sb, " ");
	}
	strbuf_addstr(sb, "<span class=muted>(");
	h_key(sb, e, "table");
	if (!jv_null(e, "id"))
		strbuf_addf(sb, " #%lld", (long long)jv_int_or_null(e, "id"));
	if (!jv_null(e, "event_kind")) {
		strbuf_addstr(sb, ": ");
		h_key(sb, e, "event_kind");
		strbuf_addstr(sb, " at ");
		h_time(sb, jv_int_or_null(e, "event_ns"), jv_int_or_null(e, "event_boot_ns"));
		if (!jv_null(e, "event_summary")) {
			strbuf_addstr(sb, ", ");
			h_key(sb, e, "event_summary");
		}
	}
	strbuf_addstr(sb, ")</span></li>");
}

/* A finding's evidence rows, with how many more. */
static void html_evidence(struct strbuf *sb, const json_t *f)
{
	const json_t *ev = json_object_get(f, "evidence"), *e;
	size_t i, n = json_array_size(ev);

	json_array_foreach(ev, i, e) {
		if (!i)
			strbuf_addstr(sb, "<p class=sub>Evidence</p><ul class=ev>");
		html_evidence_row(sb, e);
	}
	if (n)
		strbuf_addstr(sb, "</ul>\n");
	h_more(sb, jv_null(f, "evidence_total") ? (int64_t)n : jv_int_or_null(f, "evidence_total"),
	       (int64_t)n, "evidence rows");
}

/* One finding: title, tags, rule and score, figures, evidence, advice. */
static void html_finding(struct strbuf *sb, const json_t *f)
{
	h_in(sb, "<article class=finding><h3>", f, jv_null(f, "title") ? "rule" : "title",
	     "</h3>");
	h_in(sb, "<p class=tags><span class=tag>", f, "class", "</span>");
	if (!jv_null(f, "cause"))
		h_in(sb, " <span class=tag>", f, "cause", "</span>");
	h_in(sb, " rule <code>", f, "rule", "</code>");
	if (!jv_null(f, "score"))
		strbuf_addf(sb, " &middot; score %.2f", jv_real(json_object_get(f, "score")));
	strbuf_addstr(sb, "</p>\n");
	html_figures(sb, json_object_get(f, "figures"));
	html_evidence(sb, f);
	if (!jv_null(f, "advice"))
		h_in(sb, "<p class=advice><b>Advice:</b> ", f, "advice", "</p>\n");
	strbuf_addstr(sb, "</article>\n");
}

/* Every finding to the cap, strongest first, or why there is none. */
void html_findings(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const json_t *rows = model_rows(m), *f;
	size_t i;

	(void)c;
	json_array_foreach(rows, i, f)
		html_finding(sb, f);
	if (!json_array_size(rows))
		h_na(sb, "No rule produced a finding: the evidence in the artifacts was not"
			 " enough to classify the incident (see <a href=\"#unknowns\">what the"
			 " report could not determine</a>).");
	else
		h_more(sb, model_total(m), (int64_t)json_array_size(rows), "findings");
}

/* --- Markdown --------------------------------------------------------------- */

static void md_figures(struct strbuf *sb, const json_t *fig)
{
	const char *key;
	json_t *v;
	int k = 0;

	if (!json_is_object(fig))
		return;
	json_object_foreach((json_t *)fig, key, v) {
		struct strbuf val = STRBUF_INIT, lab = STRBUF_INIT;
		if (k == MD_FIGURES)
			break;
		if (figure_hidden(key))
			continue;
		fmt_figure(&val, key, v);
		figure_label(&lab, key);
		strbuf_addstr(sb, k++ ? ", " : "\n   ");
		md_text(sb, lab.buf, lab.len);
		strbuf_addstr(sb, " ");
		md_text(sb, val.buf, val.len);
		strbuf_inherit(sb, &val);
		strbuf_inherit(sb, &lab);
		strbuf_release(&val);
		strbuf_release(&lab);
	}
}

/* The MD_FINDINGS strongest findings with figures and advice. */
void md_findings(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const json_t *rows = model_rows(m), *f;
	size_t i, n = 0;

	(void)c;
	strbuf_addstr(sb, "### Findings\n\n");
	json_array_foreach(rows, i, f) {
		if (i == MD_FINDINGS)
			break;
		n++;
		strbuf_addf(sb, "%d. **", (int)n);
		md_key(sb, f, jv_null(f, "title") ? "rule" : "title");
		strbuf_addstr(sb, "** (");
		md_key(sb, f, "class");
		if (!jv_null(f, "cause")) {
			strbuf_addstr(sb, ", ");
			md_key(sb, f, "cause");
		}
		if (!jv_null(f, "score"))
			strbuf_addf(sb, ", score %.2f", jv_real(json_object_get(f, "score")));
		strbuf_addstr(sb, ")");
		md_figures(sb, json_object_get(f, "figures"));
		if (!jv_null(f, "advice")) {
			strbuf_addstr(sb, "\n   *Advice:* ");
			md_key(sb, f, "advice");
		}
		strbuf_addstr(sb, "\n");
	}
	if (!n)
		strbuf_addstr(sb, "No rule found enough evidence to classify the incident.\n");
	else if (model_total(m) > (int64_t)n)
		strbuf_addf(sb, "\n%lld more findings in the full report.\n",
			    (long long)(model_total(m) - (int64_t)n));
	strbuf_addstr(sb, "\n");
}
