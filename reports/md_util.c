/*
 * md_util.c -- escaped Markdown output; see md_util.h.
 */
#include "reports/md_util.h"
#include "reports/section.h"
#include "reports/summary.h"


void md_text(struct strbuf *sb, const char *s, size_t n)
{
	summary_add_escaped(sb, s, n, strbuf_add_md);
}

void md_val(struct strbuf *sb, const json_t *v)
{
	summary_add_value(sb, v, strbuf_add_md, "-");
}

void md_key(struct strbuf *sb, const json_t *row, const char *key)
{
	md_val(sb, json_object_get(row, key));
}

void md_cells(struct strbuf *sb, const json_t *row, const char *const *keys)
{
	int i;

	for (i = 0; keys[i]; i++) {
		strbuf_addstr(sb, i ? " | " : "| ");
		md_key(sb, row, keys[i]);
	}
}
