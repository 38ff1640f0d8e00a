/*
 * findings.c -- the finding and evidence writers the rules share (see
 * rulelib.h): a finding is built (figures, advice, the one knob it sets),
 * then written with its knob noted in the context for the verdict's pass
 * that leaves one value per knob (verdict.c).
 */
#include "analyzer/rules/rulelib.h"
#include "lib/vocab.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- findings ---- */

void rl_finding_init(struct rl_finding *f, const char *rule, const char *class_,
		     const char *cause)
{
	memset(f, 0, sizeof(*f));
	f->rule = rule;
	f->class_ = class_;
	f->cause = cause;
	f->figures = json_object();
}

void rl_fig(struct rl_finding *f, const char *key, double v)
{
	if (!f->figures || !isfinite(v))
		return;
	/* integers stay integers in the JSON (bytes, counts) */
	if (fabs(v) < 9.2e18 && v == floor(v))
		json_object_set_new(f->figures, key, json_integer((json_int_t)v));
	else
		json_object_set_new(f->figures, key, json_real(round(v * 1e4) / 1e4));
}

void rl_advice(struct rl_finding *f, const char *fmt, ...)
{
	size_t len = strlen(f->advice);
	va_list ap;

	if (len && len + 2 < sizeof(f->advice)) {
		strcat(f->advice, " ");
		len++;
	}
	va_start(ap, fmt);
	vsnprintf(f->advice + len, sizeof(f->advice) - len, fmt, ap);
	va_end(ap);
}

void rl_knob(struct rl_finding *f, const char *knob, const char *flag, double value,
	     const char *fmt, ...)
{
	va_list ap;

	if (!isfinite(value))
		return;
	snprintf(f->knob, sizeof(f->knob), "%s", knob);
	snprintf(f->flag, sizeof(f->flag), "%s", flag);
	f->knob_value = value;
	va_start(ap, fmt);
	vsnprintf(f->knob_text, sizeof(f->knob_text), fmt, ap);
	va_end(ap);
}

/* Keep f's knob for the verdict's pass (finding id): the advice before
 * the knob's sentence is appended. */
static void knob_note(struct rule_ctx *c, const struct rl_finding *f, int64_t id)
{
	struct rl_knob_note *k;

	if (c->n_knobs >= RL_MAX_KNOBS)
		return;   /* more knobs than that: the rest keep their own values */
	k = &c->knobs[c->n_knobs++];
	k->finding = id;
	k->score = round(rl_clamp01(f->score) * 1000) / 1000;
	snprintf(k->class_, sizeof(k->class_), "%s", f->class_);
	snprintf(k->cause, sizeof(k->cause), "%s", f->cause);
	snprintf(k->knob, sizeof(k->knob), "%s", f->knob);
	snprintf(k->flag, sizeof(k->flag), "%s", f->flag);
	k->value = f->knob_value;
	snprintf(k->base, sizeof(k->base), "%s", f->advice);
	snprintf(k->title, sizeof(k->title), "%s", f->title);
}

void rl_finding_drop(struct rl_finding *f)
{
	json_decref(f->figures);
	f->figures = NULL;
}

int64_t rl_finding_write(struct rule_ctx *c, struct rl_finding *f)
{
	sqlite3_stmt *st = rl_prepare(c, "INSERT INTO finding(rule, class, cause, score, title,"
				      " advice, figures, phase) VALUES(?,?,?,?,?,?,?,?)");
	char *fig = NULL, advice[sizeof(f->advice) + sizeof(f->knob_text) + 2];
	int64_t id = -1;

	if (f->knob[0] && f->figures) {
		json_object_set_new(f->figures, "advice_knob", json_string(f->knob));
		rl_fig(f, "advice_value", f->knob_value);
	}
	fig = f->figures ? json_dumps(f->figures, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(10)) : NULL;
	/* the knob's sentence first: what to change, then the rest */
	snprintf(advice, sizeof(advice), "%s%s%s", f->knob[0] ? f->knob_text : "",
		 f->advice[0] && f->knob[0] ? " " : "", f->advice);
	if (!st)
		goto done;
	/* an undeclared class or cause is a programmer error (lib/vocab.h) */
	if (!vocab_lookup(VOCAB_CLASS, f->class_) || (f->cause && !vocab_lookup(VOCAB_CAUSE, f->cause)) ||
	    (f->phase && !vocab_lookup(VOCAB_PHASE, f->phase))) {
		char msg[160];

		snprintf(msg, sizeof(msg), "oomlens bug: rule %s: class \"%s\" or cause \"%s\""
			 " is not declared in lib/vocab.h", f->rule, f->class_ ? f->class_ : "(null)",
			 f->cause ? f->cause : "(null)");
		rl_fail(c, msg);
		sqlite3_finalize(st);
		goto done;
	}
	sqlite3_bind_text(st, 1, f->rule, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, f->class_, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, f->cause, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 4, round(rl_clamp01(f->score) * 1000) / 1000);
	sqlite3_bind_text(st, 5, f->title, -1, SQLITE_STATIC);
	if (advice[0])
		sqlite3_bind_text(st, 6, advice, -1, SQLITE_STATIC);
	if (fig)
		sqlite3_bind_text(st, 7, fig, -1, SQLITE_STATIC);
	if (f->phase)
		sqlite3_bind_text(st, 8, f->phase, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE) {
		id = sqlite3_last_insert_rowid(c->db);
		if (f->knob[0])
			knob_note(c, f, id);
	} else {
		rl_sql_failed(c);
	}
	sqlite3_finalize(st);
done:
	free(fig);
	rl_finding_drop(f);
	return id;
}

int rl_evidence(struct rule_ctx *c, int64_t finding_id, const char *table, int64_t id,
		const char *note)
{
	sqlite3_stmt *st = rl_prepare(c, "INSERT INTO evidence(finding_id, ref_table, ref_id, note)"
				      " VALUES(?,?,?,?)");
	int r = -1;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, finding_id);
	sqlite3_bind_text(st, 2, table, -1, SQLITE_STATIC);
	if (id == OL_NULL || id <= 0)
		sqlite3_bind_null(st, 3);
	else
		sqlite3_bind_int64(st, 3, id);
	if (note)
		sqlite3_bind_text(st, 4, note, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_DONE)
		r = 0;
	else
		rl_sql_failed(c);
	sqlite3_finalize(st);
	return r;
}
