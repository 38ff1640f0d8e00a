/*
 * rulelib.c -- the rule modules' context and errors, their reads of the
 * timeline (through the store's query layer, failures kept in the
 * context), the incident's figures that need no series, and the finding
 * and evidence writers; see rulelib.h. Series are in series.c. Every
 * query here is indexed: sample(series_id, time_ns), meta(key),
 * event(kind).
 */
#include "analyzer/rules/rulelib.h"
#include "lib/bytes.h"
#include "lib/userframe.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the context and its errors ---- */

int rl_fail(struct rule_ctx *c, const char *msg)
{
	if (!c->failed) {
		c->failed = 1;
		snprintf(c->err, sizeof(c->err), "sqlite: %s", msg);
	}
	return -1;
}

int rl_sql_failed(struct rule_ctx *c)
{
	return rl_fail(c, sqlite3_errmsg(c->db));
}

sqlite3_stmt *rl_prepare(struct rule_ctx *c, const char *sql)
{
	sqlite3_stmt *st = q_try(c->db, sql);

	if (!st)
		rl_sql_failed(c);
	return st;
}

int rl_exec(struct rule_ctx *c, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(c->db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	rl_fail(c, msg ? msg : sqlite3_errmsg(c->db));
	sqlite3_free(msg);
	return -1;
}

int rl_run_parts(struct rule_ctx *c, rl_part *const parts[])
{
	int n = 0, r, i;

	for (i = 0; parts[i]; i++) {
		r = parts[i](c);
		if (r < 0)
			return -1;
		n += r;
	}
	return n;
}

/* ---- reading the timeline ---- */

int rl_num(struct rule_ctx *c, double *out, const char *fmt, ...)
{
	va_list ap;
	char *sql;
	int r;

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	if (!sql)
		return rl_fail(c, "out of memory");
	r = q_number(c->db, sql, out);
	if (r < 0)
		rl_sql_failed(c);
	sqlite3_free(sql);
	return r == 1 ? 0 : -1;
}

int rl_meta_text(struct rule_ctx *c, const char *key, char *buf, size_t n)
{
	int r = q_meta(c->db, key, buf, n);

	if (r < 0)
		rl_sql_failed(c);
	return r == 1 ? 0 : -1;
}

int rl_meta_num(struct rule_ctx *c, const char *key, double *out)
{
	char buf[64], *end;
	double v;

	if (rl_meta_text(c, key, buf, sizeof(buf)) < 0)
		return -1;
	v = strtod(buf, &end);
	if (end == buf || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int64_t rl_series_id(struct rule_ctx *c, const char *name, int sampled)
{
	double v;

	return rl_num(c, &v, "SELECT s.id FROM series s WHERE s.name = '%s'%s ORDER BY s.id LIMIT 1",
		      name, sampled ? " AND EXISTS (SELECT 1 FROM sample p WHERE p.series_id = s.id)"
		      : "") == 0 ? (int64_t)v : 0;
}

int rl_value_at(struct rule_ctx *c, const char *name, const char *entity,
		int64_t t_ns, double *out)
{
	sqlite3_stmt *st = rl_prepare(c,
		"SELECT p.value FROM series s JOIN sample p ON p.series_id = s.id"
		" WHERE s.name = ?1 AND (?2 IS NULL OR s.entity = ?2) AND p.value IS NOT NULL"
		" AND p.time_ns <= ?3 ORDER BY p.time_ns DESC LIMIT 1");
	int r = -1;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (entity)
		sqlite3_bind_text(st, 2, entity, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 2);
	sqlite3_bind_int64(st, 3, t_ns == OL_NULL ? INT64_MAX : t_ns);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*out = sqlite3_column_double(st, 0);
		r = 0;
	}
	sqlite3_finalize(st);
	return r;
}

int64_t rl_oom_time(struct rule_ctx *c)
{
	/* read as an integer: a time in ns does not survive a double */
	sqlite3_stmt *st = rl_prepare(c,
		"SELECT time_ns FROM event WHERE time_ns IS NOT NULL AND (kind IN"
		" ('torch_oom', 'oom_kill', 'oom_invoked', 'userspace_kill')"
		" OR (kind = 'cuda_exception' AND lower(summary) LIKE '%out of memory%'))"
		" ORDER BY time_ns LIMIT 1");
	int64_t t = OL_NULL;

	if (!st)
		return OL_NULL;
	if (sqlite3_step(st) == SQLITE_ROW)
		t = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return t;
}

/* ---- the incident's figures ---- */

int rl_oom_request(struct rule_ctx *c, double *bytes)
{
	return rl_num(c, bytes, "SELECT coalesce(json_extract(data, '$.requested_bytes'), bytes)"
		      " FROM event WHERE kind = 'torch_oom' AND coalesce(json_extract(data,"
		      " '$.requested_bytes'), bytes) > 0 ORDER BY time_ns LIMIT 1");
}

int rl_gpu_total(struct rule_ctx *c, double *bytes)
{
	if (rl_num(c, bytes, "SELECT max(p.value) FROM series s JOIN sample p ON p.series_id = s.id"
		   " WHERE s.name = 'gpu.total_bytes' AND p.value > 0") == 0)
		return 0;
	if (rl_num(c, bytes, "SELECT max(CAST(value AS REAL)) FROM meta WHERE key LIKE"
		   " 'gpu.total\\_bytes.%%' ESCAPE '\\' AND CAST(value AS REAL) > 0") == 0)
		return 0;
	return rl_num(c, bytes, "SELECT max(json_extract(data, '$.total_bytes')) FROM event"
		      " WHERE kind = 'torch_oom' AND json_extract(data, '$.total_bytes') > 0");
}

int rl_capacity_scope(struct rule_ctx *c, int scope, double *cap)
{
	if (scope == RL_SCOPE_GPU)
		return rl_gpu_total(c, cap);
	if (scope == RL_SCOPE_HOST && rl_meta_num(c, "cgroup.max_bytes", cap) == 0 && *cap > 0 &&
	    *cap < 1e18)
		return 0;
	return -1;
}

int rl_capacity_of(struct rule_ctx *c, const char *series, double *cap)
{
	/* torch.* series beyond the memory-in-use ones (reserved, peaks)
	 * are the card's too */
	int scope = rl_series_scope(series, NULL, NULL);

	if (!strncmp(series, "torch.", 6) || !strncmp(series, "gpu.", 4))
		scope = RL_SCOPE_GPU;
	else if (!strncmp(series, "proc.", 5) || !strncmp(series, "cgroup.", 7))
		scope = RL_SCOPE_HOST;

	return rl_capacity_scope(c, scope, cap);
}

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
				      " advice, figures) VALUES(?,?,?,?,?,?,?)");
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
	sqlite3_bind_text(st, 1, f->rule, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, f->class_, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, f->cause, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 4, round(rl_clamp01(f->score) * 1000) / 1000);
	sqlite3_bind_text(st, 5, f->title, -1, SQLITE_STATIC);
	if (advice[0])
		sqlite3_bind_text(st, 6, advice, -1, SQLITE_STATIC);
	if (fig)
		sqlite3_bind_text(st, 7, fig, -1, SQLITE_STATIC);
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

const char *rl_bytes(double b, char *buf, size_t n)
{
	return ol_fmt_bytes(buf, n, b);
}

#define LABEL_FRAMES 3

const char *rl_stack_label(struct rule_ctx *c, int64_t stack, char *buf, size_t n)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT name, file FROM frame WHERE stack_id = ?"
				      " ORDER BY idx LIMIT 256");
	char names[256][64];
	int kinds[256], k = 0, i, from, user = -1, first_python = -1, shown = 0;
	size_t len = 0;

	snprintf(buf, n, "(no frames)");
	if (!st)
		return buf;
	sqlite3_bind_int64(st, 1, stack);
	while (k < 256 && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		kinds[k] = frame_kind((const char *)sqlite3_column_text(st, 1));
		if (kinds[k] == FRAME_USER && user < 0)
			user = k;
		if (kinds[k] != FRAME_CPP && first_python < 0)
			first_python = k;
		snprintf(names[k++], sizeof(names[0]), "%s", name ? name : "?");
	}
	sqlite3_finalize(st);
	/* from the user's frame, else the first Python one, else the first */
	from = user >= 0 ? user : first_python >= 0 ? first_python : 0;
	for (i = from; i < k && shown < LABEL_FRAMES && len < n; i++) {
		if (first_python >= 0 && kinds[i] == FRAME_CPP)
			continue;
		len += (size_t)snprintf(buf + len, n - len, "%s%s", shown++ ? " <- " : "", names[i]);
	}
	return buf;
}

double rl_clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

double rl_round_up_size(double b)
{
	double step = b <= 4 * GIB ? 64 * MIB : GIB;

	return b > 0 ? ceil(b / step) * step : b;
}
