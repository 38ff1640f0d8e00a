/*
 * query.c -- reading the incident database, for the rules and the
 * reports; see query.h. Nothing here prints: a failure is returned, with
 * SQLite's message in the caller's strbuf or in sqlite3_errmsg(db).
 */
#include "analyzer/store/query.h"
#include "lib/budget.h"
#include "lib/strbuf.h"
#include "lib/timeutil.h"

#include <stdio.h>
#include <string.h>

sqlite3_stmt *q_try(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	return st;
}

sqlite3_stmt *q_prepare_err(sqlite3 *db, const char *sql, struct strbuf *err)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK)
		return st;
	if (err && !err->len)
		strbuf_addstr(err, sqlite3_errmsg(db));
	return NULL;
}

/* Step st to its first row: 1 when that row's first column is not NULL. */
static int first_value(sqlite3_stmt *st)
{
	return sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL;
}

json_t *q_json(sqlite3_stmt *st, int col)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *j;

	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		return json_integer(sqlite3_column_int64(st, col));
	case SQLITE_FLOAT:
		return json_real(sqlite3_column_double(st, col));
	case SQLITE_TEXT:
	case SQLITE_BLOB:
		strbuf_add_utf8(&sb, (const char *)sqlite3_column_text(st, col),
				(size_t)sqlite3_column_bytes(st, col));
		j = strbuf_failed(&sb) ? NULL : json_stringn(sb.buf, sb.len);
		strbuf_release(&sb);
		return j;
	default:
		return json_null();
	}
}

json_t *q_json_time(sqlite3_stmt *st, int col)
{
	char buf[40];

	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return json_null();
	format_iso8601(sqlite3_column_int64(st, col), buf, sizeof(buf));
	return json_string(buf);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

json_t *q_row(sqlite3_stmt *st)
{
	json_t *o = json_object();
	int i, n = sqlite3_column_count(st);

	for (i = 0; i < n; i++) {
		const char *name = sqlite3_column_name(st, i);
		if (!strcmp(name, "data")) {
			json_t *d = NULL;
			if (sqlite3_column_type(st, i) == SQLITE_TEXT)
				d = json_loads((const char *)sqlite3_column_text(st, i), 0, NULL);
			if (json_is_object(d))
				json_object_update(o, d);
			json_decref(d);
		} else if (ends_with(name, "_json")) {
			json_t *d = NULL;
			char key[64];
			snprintf(key, sizeof(key), "%.*s", (int)(strlen(name) - 5), name);
			if (sqlite3_column_type(st, i) == SQLITE_TEXT)
				d = json_loads((const char *)sqlite3_column_text(st, i), 0, NULL);
			json_object_set_new(o, key, d ? d : json_null());
		} else if (ends_with(name, "time")) {
			json_object_set_new(o, name, q_json_time(st, i));
		} else {
			json_object_set_new(o, name, q_json(st, i));
		}
	}
	return o;
}

static uint64_t rows_cut;
static int rows_bounded;        /* a report is being written: see q_rows_bound */

void q_rows_bound(int on)
{
	rows_bounded = on;
}

uint64_t q_rows_cut(void)
{
	return rows_cut;
}

void q_rows_cut_add(uint64_t n)
{
	rows_cut += n;
}

json_t *q_rows_next(sqlite3_stmt *st, int64_t max)
{
	json_t *arr = json_array();
	int64_t n = 0;

	while (arr && (max < 0 || n < max) && sqlite3_step(st) == SQLITE_ROW) {
		/* stepped over when the budget is low, or lost to an
		 * allocation that failed: counted, not kept */
		if ((rows_bounded && ol_budget_low()) ||
		    json_array_append_new(arr, q_row(st)) < 0)
			rows_cut++;
		n++;
	}
	sqlite3_reset(st);
	return arr;
}

/* What q_write_json collects before handing it to stdio. */
struct json_out {
	FILE *out;
	size_t n;
	int failed;
	int indent;             /* spaces to add after each newline */
	char buf[32768];
};

static int json_out_flush(struct json_out *b)
{
	if (b->n && fwrite(b->buf, 1, b->n, b->out) != b->n)
		b->failed = 1;
	b->n = 0;
	return b->failed ? -1 : 0;
}

static int json_out_raw(const char *s, size_t n, struct json_out *b);

static int json_out_put(const char *s, size_t n, void *arg)
{
	static const char spaces[] = "                                ";
	struct json_out *b = arg;
	const char *nl;

	while (b->indent && n && (nl = memchr(s, '\n', n))) {
		size_t k = (size_t)(nl - s) + 1;
		if (json_out_raw(s, k, b) < 0 ||
		    json_out_raw(spaces, (size_t)b->indent < sizeof(spaces) - 1 ? (size_t)b->indent
				 : sizeof(spaces) - 1, b) < 0)
			return -1;
		s += k;
		n -= k;
	}
	return json_out_raw(s, n, b);
}

static int json_out_raw(const char *s, size_t n, struct json_out *b)
{
	if (n > sizeof(b->buf) - b->n && json_out_flush(b) < 0)
		return -1;
	if (n > sizeof(b->buf))
		return fwrite(s, 1, n, b->out) == n ? 0 : (b->failed = 1, -1);
	memcpy(b->buf + b->n, s, n);
	b->n += n;
	return 0;
}

int q_write_json(FILE *out, const json_t *v, size_t flags)
{
	return q_write_json_at(out, v, flags, 0);
}

int q_write_json_at(FILE *out, const json_t *v, size_t flags, int indent)
{
	struct json_out b;

	b.out = out;
	b.n = 0;
	b.failed = 0;
	b.indent = indent;
	if (json_dump_callback(v, json_out_put, &b, flags) < 0)
		b.failed = 1;
	return json_out_flush(&b) < 0 || b.failed ? -1 : 0;
}

int64_t q_int_next(sqlite3_stmt *st, int64_t dflt)
{
	int64_t v = dflt;

	if (first_value(st))
		v = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return v;
}

int64_t q_int_err(sqlite3 *db, const char *sql, int64_t dflt, struct strbuf *err)
{
	sqlite3_stmt *st = q_prepare_err(db, sql, err);
	int64_t v;

	if (!st)
		return dflt;
	v = q_int_next(st, dflt);
	sqlite3_finalize(st);
	return v;
}

double q_real_err(sqlite3 *db, const char *sql, double dflt, struct strbuf *err)
{
	sqlite3_stmt *st = q_prepare_err(db, sql, err);
	double v = dflt;

	if (!st)
		return dflt;
	if (first_value(st))
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

int q_number(sqlite3 *db, const char *sql, double *out)
{
	sqlite3_stmt *st = q_try(db, sql);
	int r;

	if (!st)
		return -1;
	r = first_value(st);
	if (r)
		*out = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return r;
}

int q_meta(sqlite3 *db, const char *key, char *buf, size_t n)
{
	sqlite3_stmt *st = q_try(db, "SELECT value FROM meta WHERE key = ? AND value IS NOT NULL"
				 " ORDER BY artifact_id IS NULL, rowid LIMIT 1");
	int r;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	r = first_value(st);
	if (r)
		snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return r;
}

int q_has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st = q_try(db, "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view')"
				     " AND name = ?");
	int r = 0;

	if (!st)
		return 0;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	r = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return r;
}

const char *q_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : "?";
}
