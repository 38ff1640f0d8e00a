/*
 * answer.c -- the first screen of every report: the answer. One plain
 * sentence of what happened (which process, which memory, in which
 * phase: row 1 of table oom and the verdict's phase), the evidence it
 * rests on (up to three figures of the primary finding, each with its
 * source), what to change (the primary finding's advice, as the critic
 * left it), how sure, what would settle it when unsure (the verdict's
 * missing evidence), every other failure the evidence holds (Xid errors
 * with their meaning and the action NVIDIA's catalogue gives, NCCL and
 * cuBLAS failures, engine deaths, crashes) and every damaged artifact
 * with what was read before the damage.
 *
 * The model is built once from the database (load_answer, the JSON's
 * "answer" key) and written out by answer_render.c (md_answer for
 * Markdown, hence the text; html_answer), so the formats say the same
 * thing. This file assembles the model and picks the primary finding's
 * figures and fix; the sentence of what happened and what became of the
 * server are answer_what.c's, the other failures and damaged artifacts
 * answer_failures.c's (reports/answer_parts.h joins them).
 */
#include "reports/section.h"
#include "reports/summary.h"
#include "reports/answer_parts.h"
#include "analyzer/store/query.h"
#include "lib/common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define ANSWER_FIGURES 3

static const char *col(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* Where finding fid's figures come from: its first evidence row that is
 * an event (artifact path and line) or a series (its name). */
static json_t *finding_source(struct report_ctx *c, int64_t fid, const char *rule)
{
	sqlite3_stmt *st = r_prepare(c,
		"SELECT src FROM (SELECT CASE v.ref_table"
		" WHEN 'event' THEN (SELECT a.path || coalesce(' line ' || e.line, '') FROM event e"
		"  JOIN artifact a ON a.id = e.artifact_id WHERE e.id = v.ref_id)"
		" WHEN 'series' THEN (SELECT s.name || CASE WHEN s.entity <> '' THEN ' ' || s.entity"
		"  ELSE '' END FROM series s WHERE s.id = v.ref_id)"
		" WHEN 'artifact' THEN (SELECT a.path FROM artifact a WHERE a.id = v.ref_id)"
		" WHEN 'engine' THEN (SELECT a.path || coalesce(' line ' || g.line, '') FROM engine g"
		"  JOIN artifact a ON a.id = g.artifact_id WHERE g.rowid = v.ref_id)"
		" END AS src, v.rowid AS r FROM evidence v WHERE v.finding_id = ?1)"
		" WHERE src IS NOT NULL ORDER BY r LIMIT 1");
	json_t *out = NULL;

	if (st) {
		sqlite3_bind_int64(st, 1, fid);
		if (sqlite3_step(st) == SQLITE_ROW && col(st, 0)) {
			/* the file's name, as the ledger names it */
			const char *p = col(st, 0), *b = strrchr(p, '/');
			out = json_string(b && b[1] ? b + 1 : p);
		}
	}
	sqlite3_finalize(st);
	if (!out) {
		char b[96];
		snprintf(b, sizeof(b), "computed by oomlens (rule %s)", rule ? rule : "?");
		out = json_string(b);
	}
	return out ? out : json_null();
}

/* The figures that decide a class, shown first when a finding has them:
 * a leak's growth rate (and per request), a spike's load ratio, then the
 * load and level beside them. Findings store their figures sorted by
 * name (rules/findings.c), so without this the answer's first screen
 * showed whichever came first alphabetically ("end", "fit end time"). */
static const char *const answer_lead[] = {
	"slope_mb_per_hour", "kv_slope_pct_per_min", "per_request_bytes", "load_ratio",
	"growth_bytes", "span_hours", "running", "running_typical", "running_peak",
	"waiting", "kv_usage_pct", NULL
};

static int is_lead(const char *key)
{
	int i;

	for (i = 0; answer_lead[i]; i++)
		if (!strcmp(answer_lead[i], key))
			return 1;
	return 0;
}

/* Figure key of figs, value v, for people ("requested 20.0 MiB") with
 * source src, appended to a; 1 when appended, 0 when it is not shown. */
static int add_figure(json_t *a, const char *key, const json_t *v, const json_t *src)
{
	struct strbuf t = STRBUF_INIT;
	int added = 0;

	if (figure_hidden(key) || !json_is_number(v) || !strncmp(key, "whatif_", 7))
		return 0;
	figure_label(&t, key);
	strbuf_addch(&t, ' ');
	fmt_figure(&t, key, v);
	if (!strbuf_failed(&t)) {
		json_array_append_new(a, json_pack("{s:s, s:O}", "figure", t.buf, "source", src));
		added = 1;
	}
	strbuf_release(&t);
	return added;
}

/* Up to ANSWER_FIGURES of figs for people, each with source src, into a:
 * the lead figures (answer_lead, in its order) first, then the others in
 * their stored order. */
static void add_figures(json_t *a, const json_t *figs, const json_t *src)
{
	const char *key;
	json_t *v;
	int n = 0, i;

	for (i = 0; answer_lead[i] && n < ANSWER_FIGURES; i++)
		if ((v = json_object_get(figs, answer_lead[i])))
			n += add_figure(a, answer_lead[i], v, src);
	json_object_foreach((json_t *)figs, key, v) {
		if (n == ANSWER_FIGURES)
			break;
		if (!is_lead(key))
			n += add_figure(a, key, v, src);
	}
}

/* The primary finding (the verdict's class, best score) into o: its
 * title, its figures with their source, and the fix; the fix from the
 * next finding of that class when the primary gives none. */
static void primary(struct report_ctx *c, json_t *o, const char *cls)
{
	sqlite3_stmt *st = r_prepare(c, "SELECT id, rule, title, advice, figures FROM finding"
				     " WHERE class IS ?1 ORDER BY score DESC, id");
	json_t *ev = json_array();
	int first = 1;

	while (st && cls && (sqlite3_bind_text(st, 1, cls, -1, SQLITE_TRANSIENT), 1) &&
	       sqlite3_step(st) == SQLITE_ROW) {
		const char *adv = col(st, 3);
		if (first) {
			json_t *figs = col(st, 4) ? json_loads(col(st, 4), 0, NULL) : NULL;
			json_t *src = finding_source(c, sqlite3_column_int64(st, 0), col(st, 1));
			json_object_set_new(o, "title", col(st, 2) ? json_string(col(st, 2))
								    : json_null());
			if (json_is_object(figs))
				add_figures(ev, figs, src);
			json_decref(figs);
			json_decref(src);
			first = 0;
		}
		if (adv && *adv) {
			json_object_set_new(o, "fix", json_string(adv));
			json_object_set_new(o, "fix_from", col(st, 2) ? json_string(col(st, 2))
								       : json_null());
			break;
		}
	}
	sqlite3_finalize(st);
	json_object_set_new(o, "evidence", ev);
}

/* What to try first when the evidence names no fix: the reading of the
 * knobs the OOM's phase answers to (rule training, cause training_knobs:
 * a training or evaluation step, or the MPS/XLA allocator), as
 * {advice, knobs: [names]}; NULL when there is none. */
static json_t *try_first(struct report_ctx *c)
{
	sqlite3_stmt *st = r_prepare(c, "SELECT advice, CASE WHEN json_valid(figures) THEN"
				     " json_extract(figures, '$.try_knobs') END FROM finding WHERE"
				     " cause = 'training_knobs' ORDER BY id LIMIT 1");
	json_t *o = NULL;

	if (st && sqlite3_step(st) == SQLITE_ROW && col(st, 0) && *col(st, 0)) {
		json_t *names = json_array();
		const char *k = col(st, 1);
		while (names && k && *k) {
			const char *e = strchr(k, ',');
			size_t n = e ? (size_t)(e - k) : strlen(k);
			json_array_append_new(names, json_stringn(k, n));
			k = e ? e + 1 : NULL;
		}
		o = json_pack("{s:s, s:o}", "advice", col(st, 0), "knobs",
			      names ? names : json_array());
	}
	sqlite3_finalize(st);
	return o;
}

/* No OOM, but the engine handled memory pressure of its own (SGLang's
 * retractions, analyzer/rules/retract.c): its finding's title as the
 * answer's warning, its advice as the fix. */
static void warning(struct report_ctx *c, json_t *o)
{
	sqlite3_stmt *st = r_prepare(c, "SELECT title, advice FROM finding WHERE cause ="
				     " 'kv_retract' ORDER BY score DESC, id LIMIT 1");

	if (st && sqlite3_step(st) == SQLITE_ROW) {
		if (col(st, 0))
			json_object_set_new(o, "warning", json_string(col(st, 0)));
		if (col(st, 1) && *col(st, 1))
			json_object_set_new(o, "fix", json_string(col(st, 1)));
	}
	sqlite3_finalize(st);
}

json_t *load_answer(struct report_ctx *c)
{
	const struct report_summary *s = &c->sum;
	json_t *o = json_object(), *v = s->verdict;
	const char *cls = s->has_verdict ? s->vclass.buf : NULL;
	const char *phase = json_string_value(json_object_get(v, "phase"));
	struct strbuf w = STRBUF_INIT;
	int64_t nf = 0;

	if (!o || !c->has_summary)
		return o;
	answer_what_happened(c, &w, phase);
	answer_fate(c, &w);
	answer_earlier_runs(c, &w);
	json_object_set_new(o, "what", strbuf_failed(&w) ? json_null() : json_string(w.buf));
	strbuf_release(&w);
	json_object_set_new(o, "phase", phase ? json_string(phase) : json_null());
	json_object_set_new(o, "class", cls ? json_string(cls) : json_null());
	json_object_set_new(o, "confidence", isfinite(s->confidence) ? json_real(s->confidence)
								     : json_null());
	/* what the class rests on (verdict.basis): `phase` when inferred from
	 * the phase alone (rules/phase_inferred.c), every format says so */
	json_object_set_new(o, "basis", json_is_string(json_object_get(v, "basis"))
			    ? json_incref(json_object_get(v, "basis")) : json_null());
	if (cls && strcmp(cls, "no_oom") && strcmp(cls, "inconclusive"))
		primary(c, o, cls);
	else if (cls && !strcmp(cls, "no_oom"))
		warning(c, o);
	if (!json_object_get(o, "evidence"))
		json_object_set_new(o, "evidence", json_array());
	json_object_set_new(o, "try_first", cls && strcmp(cls, "no_oom") ? try_first(c) : NULL);
	if (!json_object_get(o, "try_first"))
		json_object_set_new(o, "try_first", json_null());
	/* what would settle it: named when the verdict is not sure */
	json_object_set_new(o, "settle", s->missing.len && (!isfinite(s->confidence) ||
				s->confidence < 0.7 || (cls && !strcmp(cls, "inconclusive")))
			    ? json_string(s->missing.buf) : json_null());
	json_object_set_new(o, "failures", answer_failures(c, &nf));
	json_object_set_new(o, "failures_total", json_integer(nf));
	json_object_set_new(o, "damaged", answer_damaged(c));
	return o;
}
