/*
 * dctx.c -- the analysis context and its errors, its reads of the
 * timeline (through the store's query layer, failures kept in the
 * context), the incident's figures that need no series, and the byte and
 * stack labels; see dctx.h. Series are in series.c; the finding and
 * evidence writers, which judge, are the rules' (rules/findings.c).
 * Every query here is indexed or reads one series' blocks: sample by
 * series_id (its blocks' parent), meta(key), event(kind).
 */
#include "analyzer/derive/dctx.h"
#include "lib/strbuf.h"
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

int rl_first_row(struct rule_ctx *c, const char *sql, sqlite3_stmt **out)
{
	sqlite3_stmt *st = rl_prepare(c, sql);
	int rc;

	*out = NULL;
	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = st;
		return 1;
	}
	if (rc != SQLITE_DONE)
		rl_sql_failed(c);   /* before finalize: the message is the step's */
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int rl_finalize(struct rule_ctx *c, sqlite3_stmt *st)
{
	if (sqlite3_finalize(st) == SQLITE_OK)
		return 0;
	return rl_sql_failed(c);   /* finalize leaves the step's error on the db */
}

int rl_first_text(struct rule_ctx *c, const char *sql, char *out, size_t n)
{
	sqlite3_stmt *st;

	if (n)
		out[0] = 0;
	if (rl_first_row(c, sql, &st) <= 0)
		return 0;
	snprintf(out, n, "%s", q_text(st, 0));
	sqlite3_finalize(st);
	return 1;
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
		      name, sampled ? " AND sample_count(s.id) > 0"
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
	sqlite3_stmt *st = rl_prepare(c, "SELECT time_ns FROM oom WHERE id = 1");
	int64_t t = OL_NULL;

	if (!st)
		return OL_NULL;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		t = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return t;
}

int rl_has_oom(struct rule_ctx *c)
{
	double v;

	return rl_num(c, &v, "SELECT 1 FROM oom LIMIT 1") == 0;
}

/* ---- the incident's figures ---- */

int rl_oom_request(struct rule_ctx *c, double *bytes)
{
	return rl_num(c, bytes, "SELECT requested_bytes FROM oom WHERE scope = 'gpu'"
		      " AND requested_bytes > 0 ORDER BY id LIMIT 1");
}

int rl_gpu_total(struct rule_ctx *c, double *bytes)
{
	if (rl_num(c, bytes, "SELECT max(sample_max(s.id)) FROM series s"
		   " WHERE s.name = 'gpu.total_bytes' AND sample_max(s.id) > 0") == 0)
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

int dctx_pass(sqlite3 *db, struct strbuf *err, int (*fn)(struct rule_ctx *c))
{
	struct rule_ctx *c = calloc(1, sizeof(*c));   /* large: the series cache */
	int r;

	if (!c) {
		if (err)
			strbuf_addstr(err, "out of memory");
		return -1;
	}
	c->db = db;
	c->oom_ns = rl_oom_time(c);
	c->has_oom = rl_has_oom(c);
	r = fn(c) < 0 || c->failed ? -1 : 0;
	if (r < 0 && err)
		strbuf_addstr(err, c->failed ? c->err : "failed");
	free(c);
	return r;
}

/* ---- formatting ---- */

const char *rl_bytes(double b, char *buf, size_t n)
{
	return ol_fmt_bytes(buf, n, b);
}

const char *rl_stack_label(struct rule_ctx *c, int64_t stack, char *buf, size_t n)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT file, name, line FROM frame WHERE stack_id = ?"
				      " ORDER BY idx");
	struct userframe_stack u;
	struct strbuf sb = STRBUF_INIT;
	int ok = 1;

	snprintf(buf, n, "(no frames)");
	if (!st)
		return buf;
	userframe_stack_init(&u);
	sqlite3_bind_int64(st, 1, stack);
	while (ok && sqlite3_step(st) == SQLITE_ROW)
		ok = userframe_stack_add(&u, (const char *)sqlite3_column_text(st, 0),
					 (const char *)sqlite3_column_text(st, 1),
					 sqlite3_column_type(st, 2) == SQLITE_NULL ? OL_NULL
					 : sqlite3_column_int64(st, 2)) == 0;
	sqlite3_finalize(st);
	if (ok && u.depth) {
		userframe_stack_label(&u, &sb);
		if (!strbuf_failed(&sb))
			snprintf(buf, n, "%s", sb.buf);
	}
	strbuf_release(&sb);
	userframe_stack_release(&u);
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
