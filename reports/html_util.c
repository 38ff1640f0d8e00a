/*
 * html_util.c -- escaped output and table helpers for the HTML report;
 * see html_util.h.
 */
#include "reports/html_util.h"
#include "analyzer/store/query.h"
#include "reports/summary.h"
#include "lib/common.h"

#include <string.h>

void h_text(struct strbuf *sb, const char *s, size_t n)
{
	struct strbuf u = STRBUF_INIT;

	if (!s)
		return;
	if (n == (size_t)-1)
		n = strlen(s);
	strbuf_add_utf8(&u, s, n);
	strbuf_add_html(sb, u.buf, u.len);
	strbuf_release(&u);
}

void h_col(struct strbuf *sb, sqlite3_stmt *st, int col)
{
	const char *s = (const char *)sqlite3_column_text(st, col);

	if (!s)
		strbuf_addstr(sb, "<span class=muted>-</span>");
	else
		h_text(sb, s, (size_t)sqlite3_column_bytes(st, col));
}

void h_num(struct strbuf *sb, sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		strbuf_addstr(sb, "<td class=n><span class=muted>-</span></td>");
	else
		strbuf_addf(sb, "<td class=n>%lld</td>", (long long)sqlite3_column_int64(st, col));
}

void h_bytes_td(struct strbuf *sb, sqlite3_stmt *st, int col)
{
	char buf[32];

	if (sqlite3_column_type(st, col) == SQLITE_NULL) {
		strbuf_addstr(sb, "<td class=n><span class=muted>-</span></td>");
		return;
	}
	fmt_bytes(buf, sizeof(buf), sqlite3_column_double(st, col));
	strbuf_addf(sb, "<td class=n title=\"%lld bytes\">%s</td>",
		    (long long)sqlite3_column_int64(st, col), buf);
}

void h_time(struct strbuf *sb, sqlite3_stmt *st, int tcol, int bcol)
{
	char buf[64];
	int64_t t = sqlite3_column_type(st, tcol) == SQLITE_NULL ? OL_NULL
		    : sqlite3_column_int64(st, tcol);
	int64_t b = bcol < 0 || sqlite3_column_type(st, bcol) == SQLITE_NULL ? OL_NULL
		    : sqlite3_column_int64(st, bcol);

	fmt_time(buf, sizeof(buf), t, b);
	if (t == OL_NULL && b != OL_NULL)
		strbuf_addf(sb, "<span class=warn>%s</span>", buf);
	else
		strbuf_addstr(sb, buf);
}

void h_na(struct strbuf *sb, const char *what)
{
	strbuf_addstr(sb, "<p class=na>");
	strbuf_addstr(sb, what);
	strbuf_addstr(sb, "</p>\n");
}

static int ends(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

/* Row ids of the store mean nothing to a reader. */
static int skip_column(const char *name)
{
	return !strcmp(name, "id") || !strcmp(name, "artifact_id") || ends(name, "stack_id");
}

int h_table(struct strbuf *sb, sqlite3 *db, const char *sql, const char *count_sql, int cap)
{
	sqlite3_stmt *st = q_try(db, sql);
	int i, n, rows = 0;

	if (!st)
		return -1;
	n = sqlite3_column_count(st);
	strbuf_addstr(sb, "<table><tr>");
	for (i = 0; i < n; i++) {
		const char *name = sqlite3_column_name(st, i);
		if (skip_column(name))
			continue;
		strbuf_addstr(sb, "<th>");
		h_text(sb, name, (size_t)-1);
		strbuf_addstr(sb, "</th>");
	}
	strbuf_addstr(sb, "</tr>\n");
	while (rows < cap && sqlite3_step(st) == SQLITE_ROW) {
		strbuf_addstr(sb, "<tr>");
		for (i = 0; i < n; i++) {
			const char *name = sqlite3_column_name(st, i);
			int type = sqlite3_column_type(st, i);
			if (skip_column(name))
				continue;
			if (type == SQLITE_INTEGER &&
			    (strstr(name, "size") || ends(name, "_bytes"))) {
				h_bytes_td(sb, st, i);
			} else if (type == SQLITE_INTEGER && ends(name, "_ns")) {
				strbuf_addstr(sb, "<td class=t>");
				h_time(sb, st, i, -1);
				strbuf_addstr(sb, "</td>");
			} else if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
				strbuf_addstr(sb, "<td class=n>");
				h_col(sb, st, i);
				strbuf_addstr(sb, "</td>");
			} else {
				strbuf_addstr(sb, "<td>");
				h_col(sb, st, i);
				strbuf_addstr(sb, "</td>");
			}
		}
		strbuf_addstr(sb, "</tr>\n");
		rows++;
	}
	strbuf_addstr(sb, "</table>\n");
	sqlite3_finalize(st);
	if (count_sql) {
		int64_t total = q_int(db, count_sql, rows);
		if (total > rows)
			strbuf_addf(sb, "<p class=more>%lld more in the database.</p>\n",
				    (long long)(total - rows));
	}
	return rows;
}
