/*
 * html_util.c -- escaped output and table helpers for the HTML report;
 * see html_util.h.
 */
#include "reports/html_util.h"
#include "reports/section.h"
#include "reports/summary.h"
#include "lib/common.h"

#include <string.h>

void h_text(struct strbuf *sb, const char *s, size_t n)
{
	if (s)
		summary_add_escaped(sb, s, n == (size_t)-1 ? strlen(s) : n, strbuf_add_html);
}

void h_val(struct strbuf *sb, const json_t *v)
{
	summary_add_value(sb, v, strbuf_add_html, "<span class=muted>-</span>");
}

void h_key(struct strbuf *sb, const json_t *row, const char *key)
{
	h_val(sb, json_object_get(row, key));
}

void h_in(struct strbuf *sb, const char *open, const json_t *row, const char *key,
	  const char *close)
{
	strbuf_addstr(sb, open);
	h_key(sb, row, key);
	strbuf_addstr(sb, close);
}

void h_num_td(struct strbuf *sb, const json_t *v)
{
	if (!v || json_is_null(v))
		strbuf_addstr(sb, "<td class=n><span class=muted>-</span></td>");
	else
		strbuf_addf(sb, "<td class=n>%lld</td>", (long long)jv_int(v));
}

void h_bytes_td(struct strbuf *sb, const json_t *v)
{
	char buf[32];

	if (!v || json_is_null(v)) {
		strbuf_addstr(sb, "<td class=n><span class=muted>-</span></td>");
		return;
	}
	fmt_bytes(buf, sizeof(buf), jv_real(v));
	strbuf_addf(sb, "<td class=n title=\"%lld bytes\">%s</td>", (long long)jv_int(v), buf);
}

void h_time(struct strbuf *sb, int64_t t, int64_t b)
{
	char buf[64];

	fmt_time(buf, sizeof(buf), t, b);
	if (t == OL_NULL && b != OL_NULL)
		strbuf_addf(sb, "<span class=warn>%s</span>", buf);
	else
		strbuf_addstr(sb, buf);
}

void h_time_iso(struct strbuf *sb, const char *iso, int64_t b)
{
	if (iso)
		strbuf_addstr(sb, iso);
	else
		h_time(sb, OL_NULL, b);
}

void h_na(struct strbuf *sb, const char *what)
{
	strbuf_addstr(sb, "<p class=na>");
	strbuf_addstr(sb, what);
	strbuf_addstr(sb, "</p>\n");
}

void h_more(struct strbuf *sb, int64_t total, int64_t shown, const char *what)
{
	if (total > shown)
		strbuf_addf(sb, "<p class=more>%lld more%s%s in the database.</p>\n",
			    (long long)(total - shown), *what ? " " : "", what);
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

/* One cell, its look chosen by the value's type and the column's name. */
static void table_cell(struct strbuf *sb, const char *name, const json_t *v)
{
	if (json_is_integer(v) && (strstr(name, "size") || ends(name, "_bytes"))) {
		h_bytes_td(sb, v);
	} else if (json_is_integer(v) && ends(name, "_ns")) {
		strbuf_addstr(sb, "<td class=t>");
		h_time(sb, json_integer_value(v), OL_NULL);
		strbuf_addstr(sb, "</td>");
	} else {
		strbuf_addstr(sb, json_is_number(v) ? "<td class=n>" : "<td>");
		h_val(sb, v);
		strbuf_addstr(sb, "</td>");
	}
}

void h_table(struct strbuf *sb, const json_t *t)
{
	const json_t *cols = json_object_get(t, "columns"), *rows = json_object_get(t, "rows");
	const json_t *row, *c;
	size_t i, j;

	if (!t)
		return;
	strbuf_addstr(sb, "<table><tr>");
	json_array_foreach(cols, j, c) {
		if (skip_column(json_string_value(c)))
			continue;
		strbuf_addstr(sb, "<th>");
		h_text(sb, json_string_value(c), (size_t)-1);
		strbuf_addstr(sb, "</th>");
	}
	strbuf_addstr(sb, "</tr>\n");
	json_array_foreach(rows, i, row) {
		strbuf_addstr(sb, "<tr>");
		json_array_foreach(cols, j, c)
			if (!skip_column(json_string_value(c)))
				table_cell(sb, json_string_value(c), json_array_get(row, j));
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
	h_more(sb, json_integer_value(json_object_get(t, "total")), (int64_t)json_array_size(rows),
	       "");
}
