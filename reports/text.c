/*
 * text.c -- the summary as plain text, for trackers that render no
 * Markdown (`--format text`).
 *
 * It is the Markdown summary (markdown.c), so the two never say different
 * things, read back without its markup: the Markdown is oomlens' own and
 * uses only headings, bold and italic spans, list items, tables and
 * backslash escapes (strbuf_add_md), which is all this undoes. Headings
 * are underlined, a table's columns are aligned, an escaped character is
 * itself again.
 */
#include "reports/section.h"

#include <string.h>

/* What a backslash escapes in Markdown: ASCII punctuation, nothing else. */
static const char md_punct[] = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

/* One line of inline Markdown as text: escapes undone, "**" and a "*"
 * that opens or closes an italic span dropped, "&amp;" back to '&'. */
static void plain_inline(struct strbuf *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && s[i + 1] && strchr(md_punct, s[i + 1])) {
			strbuf_addch(out, s[++i]);   /* an escape; a Windows path's other backslashes stay */
		} else if (s[i] == '*' && i + 1 < n && s[i + 1] == '*') {
			i++;
		} else if (s[i] == '*' || (s[i] == '_' && (i == 0 || i + 1 == n ||
							   s[i - 1] == ' ' || s[i + 1] == ' '))) {
			/* an italic span's mark */
		} else if (!strncmp(s + i, "&amp;", 5) && i + 5 <= n) {
			strbuf_addch(out, '&');
			i += 4;
		} else {
			strbuf_addch(out, s[i]);
		}
	}
}

/* The cells of table row s[0..n) ("| a | b |") as text, into cells (an
 * array of strbufs, at most max); returns the count. A '|' escaped as
 * "\|" belongs to its cell. */
static int row_cells(const char *s, size_t n, struct strbuf *cells, int max)
{
	size_t i = 0, start;
	int k = 0;

	if (i < n && s[i] == '|')
		i++;
	while (i < n && k < max) {
		start = i;
		while (i < n && !(s[i] == '|' && s[i - 1] != '\\'))
			i++;
		while (start < i && s[start] == ' ')
			start++;
		strbuf_reset(&cells[k]);
		plain_inline(&cells[k], s + start, i - start);
		strbuf_rtrim(&cells[k]);
		k++;
		i++;    /* past the '|' */
	}
	if (k && i >= n && !cells[k - 1].len && n && s[n - 1] == '|')
		k--;    /* the closing bar */
	return k;
}

#define MAX_COLS 12

/* The table whose rows are lines[0..nl) (the separator row included) as
 * aligned columns. */
static void plain_table(struct strbuf *out, const char *const *lines, const size_t *lens,
			int nl)
{
	struct strbuf cells[MAX_COLS];
	size_t width[MAX_COLS] = { 0 };
	int pass, r, k, n;

	for (k = 0; k < MAX_COLS; k++)
		strbuf_init(&cells[k]);
	for (pass = 0; pass < 2; pass++)
		for (r = 0; r < nl; r++) {
			if (r == 1)
				continue;   /* |---|---| */
			n = row_cells(lines[r], lens[r], cells, MAX_COLS);
			for (k = 0; k < n; k++) {
				if (!pass) {
					if (cells[k].len > width[k])
						width[k] = cells[k].len;
					continue;
				}
				strbuf_addstr(out, k ? "  " : "");
				strbuf_addstr(out, cells[k].buf);
				if (k + 1 < n)
					strbuf_addf(out, "%*s", (int)(width[k] - cells[k].len), "");
			}
			if (pass)
				strbuf_addch(out, '\n');
		}
	for (k = 0; k < MAX_COLS; k++)
		strbuf_release(&cells[k]);
}

/* md (oomlens' Markdown) as plain text into out. */
static void plain_text(struct strbuf *out, const char *md, size_t len)
{
	const char *lines[512];
	size_t lens[512];
	const char *p = md, *end = md + len;
	int nt = 0;

	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		size_t n = e ? (size_t)(e - p) : (size_t)(end - p);
		if (n && p[0] == '|' && nt < 512) {
			lines[nt] = p;
			lens[nt++] = n;
		} else {
			if (nt)
				plain_table(out, lines, lens, nt);
			nt = 0;
			if (n > 2 && p[0] == '#') {
				size_t h = 0, before = out->len;
				while (h < n && p[h] == '#')
					h++;
				plain_inline(out, p + h + 1, n - h - 1);
				strbuf_addf(out, "\n%.*s", (int)(out->len - before),
					    "================================================"
					    "================================================"
					    "================================================");
			} else {
				plain_inline(out, p, n);
			}
			strbuf_addch(out, '\n');
		}
		p += n + 1;
	}
	if (nt)
		plain_table(out, lines, lens, nt);
}

int report_text_write(struct report_ctx *c, FILE *out)
{
	struct strbuf md = STRBUF_INIT, text = STRBUF_INIT;
	int r = report_md_build(c, &md);

	if (r == 0 && report_summary_failed(&c->sum))
		r = -1;
	if (r == 0) {
		plain_text(&text, md.buf, md.len);
		r = strbuf_failed(&text) || fwrite(text.buf, 1, text.len, out) != text.len ? -1 : 0;
	}
	strbuf_release(&md);
	strbuf_release(&text);
	return r;
}
