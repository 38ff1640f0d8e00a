/*
 * table.c -- the SQL of a table built from its column descriptors, and
 * the binds of one record; see table.h.
 */
#include "analyzer/store/table.h"
#include "analyzer/store/packed.h"
#include "lib/strbuf.h"
#include "parsers/common/sink.h"

#include <stdlib.h>
#include <math.h>
#include <string.h>

int table_has_id(const struct table *t)
{
	return t->ncols && t->cols[0].kind == COL_ID;
}

void table_create_sql(const struct table *t, struct strbuf *sql)
{
	size_t i;

	if (t->packed) {
		strbuf_addf(sql, "CREATE TABLE %s_block(\n  id INTEGER PRIMARY KEY,\n"
			    "  parent INTEGER,\n  first_rowid INTEGER NOT NULL,\n"
			    "  rows INTEGER NOT NULL,\n  data BLOB NOT NULL,\n  artifact_id INTEGER);\n"
			    "CREATE INDEX %s_block_parent ON %s_block(parent);\n"
			    "CREATE VIRTUAL TABLE %s USING " PACKED_MODULE "(%s_block",
			    t->name, t->name, t->name, t->name, t->name);
		for (i = 0; i < t->ncols; i++)
			strbuf_addf(sql, ",\n  %s %s", t->cols[i].name, t->cols[i].decl);
		strbuf_addstr(sql, ");\n");
		return;
	}
	strbuf_addf(sql, "CREATE TABLE %s(", t->name);
	for (i = 0; i < t->ncols; i++)
		strbuf_addf(sql, "%s\n  %s %s", i ? "," : "", t->cols[i].name, t->cols[i].decl);
	if (t->constraints)
		strbuf_addf(sql, ",\n  %s", t->constraints);
	strbuf_addf(sql, ")%s%s;\n", t->options ? " " : "", t->options ? t->options : "");
	if (t->indexes)
		strbuf_addstr(sql, t->indexes);
}

/* Whether column c is written by statement which. */
static int col_in(const struct col *c, enum table_stmt which)
{
	if (c->kind == COL_ID || c->kind == COL_NONE)
		return 0;
	if (which == TABLE_INSERT)
		return c->when != AT_END;
	return c->when != AT_INSERT;
}

void table_stmt_sql(const struct table *t, enum table_stmt which, struct strbuf *sql)
{
	size_t i, n = 0;

	if (which == TABLE_UPDATE)
		strbuf_addf(sql, "UPDATE %s SET ", t->name);
	else
		strbuf_addf(sql, "INSERT INTO %s(", t->name);
	for (i = 0; i < t->ncols; i++)
		if (col_in(&t->cols[i], which))
			strbuf_addf(sql, "%s%s%s", n++ ? ", " : "", t->cols[i].name,
				    which == TABLE_UPDATE ? " = ?" : "");
	if (which == TABLE_UPDATE) {
		strbuf_addstr(sql, " WHERE id = ?");
		return;
	}
	strbuf_addstr(sql, ") VALUES(");
	for (i = 0; i < n; i++)
		strbuf_addstr(sql, i ? ",?" : "?");
	strbuf_addch(sql, ')');
}

void table_insert_rows_sql(const struct table *t, int rows, struct strbuf *sql)
{
	size_t i, n = 0;
	int r;

	table_stmt_sql(t, TABLE_INSERT, sql);
	for (i = 0; i < t->ncols; i++)
		n += col_in(&t->cols[i], TABLE_INSERT);
	for (r = 1; r < rows; r++) {
		strbuf_addstr(sql, ",(");
		for (i = 0; i < n; i++)
			strbuf_addstr(sql, i ? ",?" : "?");
		strbuf_addch(sql, ')');
	}
}

static void bind_json(sqlite3_stmt *st, int i, json_t *j)
{
	char *s = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	if (s)
		sqlite3_bind_text(st, i, s, -1, free);
	else
		sqlite3_bind_null(st, i);
}

static const char *clock_name(enum ol_clock c)
{
	switch (c) {
	case OL_CLOCK_UTC: return "utc";
	case OL_CLOCK_LOCAL: return "local";
	case OL_CLOCK_BOOT: return "boot";
	default: return NULL;
	}
}

/* An integer value, OL_NULL as NULL. */
static void int_value(struct table_value *v, int64_t i)
{
	v->type = i == OL_NULL ? TV_NULL : TV_INT;
	v->i = i;
}

void table_value(const struct col *c, int64_t artifact_id, int64_t parent, const void *row,
		 struct table_value *v)
{
	const void *f = (const char *)row + c->off;
	const struct ol_time *t = f;

	v->type = TV_NULL;
	switch (c->kind) {
	case COL_ARTIFACT:
		int_value(v, artifact_id ? artifact_id : OL_NULL);
		break;
	case COL_PARENT:
		int_value(v, parent);
		break;
	case COL_INT:
		int_value(v, *(const int64_t *)f);
		break;
	case COL_U64:
		v->type = TV_INT;
		v->i = (int64_t)*(const uint64_t *)f;
		break;
	case COL_CINT:
		v->type = TV_INT;
		v->i = *(const int *)f;
		break;
	case COL_REF:
		int_value(v, *(const int64_t *)f > 0 ? *(const int64_t *)f : OL_NULL);
		break;
	case COL_REAL:
		v->d = *(const double *)f;
		v->type = isnan(v->d) ? TV_NULL : TV_REAL;   /* NaN: not known */
		break;
	case COL_TEXT:
		v->s = *(const char *const *)f;
		v->type = v->s ? TV_TEXT : TV_NULL;
		break;
	case COL_JSON:
		v->j = *(json_t *const *)f;
		v->type = v->j ? TV_JSON : TV_NULL;
		break;
	case COL_TIME_NS:
		int_value(v, t->clock == OL_CLOCK_UTC || t->clock == OL_CLOCK_LOCAL ? t->utc_ns
										     : OL_NULL);
		break;
	case COL_CLOCK:
		v->s = clock_name(t->clock);
		v->type = v->s ? TV_TEXT : TV_NULL;
		break;
	case COL_BOOT_NS:
		int_value(v, t->boot_ns);
		break;
	case COL_ID:
	case COL_NONE:
		break;
	}
}

void table_value_bind(sqlite3_stmt *st, int i, const struct table_value *v)
{
	switch (v->type) {
	case TV_NULL: sqlite3_bind_null(st, i); break;
	case TV_INT: sqlite3_bind_int64(st, i, v->i); break;
	case TV_REAL: sqlite3_bind_double(st, i, v->d); break;
	case TV_TEXT: sqlite3_bind_text(st, i, v->s, -1, SQLITE_STATIC); break;
	case TV_JSON: bind_json(st, i, v->j); break;
	}
}

/* Bind column c of the record at row to parameter i. */
static void bind_col(sqlite3_stmt *st, int i, const struct col *c, int64_t artifact_id,
		     int64_t parent, const char *row)
{
	struct table_value v;

	table_value(c, artifact_id, parent, row, &v);
	table_value_bind(st, i, &v);
}

int table_col_in_insert(const struct col *c)
{
	return col_in(c, TABLE_INSERT);
}

void table_bind(sqlite3_stmt *st, const struct table *t, enum table_stmt which,
		int64_t artifact_id, int64_t parent, const void *row, int64_t id)
{
	size_t i;
	int n = 0;

	for (i = 0; i < t->ncols; i++)
		if (col_in(&t->cols[i], which))
			bind_col(st, ++n, &t->cols[i], artifact_id, parent, row);
	if (which == TABLE_UPDATE)
		sqlite3_bind_int64(st, n + 1, id);
}

