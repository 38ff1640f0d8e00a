/*
 * ledger.c -- the memory ledger of each card and of the host, the
 * section every report leads with (the `ledger` table, docs/schema.md,
 * made by the ledger rule): per account, a stacked bar against its
 * capacity and a table of its lines, each with how sure it is and its
 * source (HTML); the same table in the Markdown; `ledger` in the JSON
 * (docs/json.md). Also the bar itself, which the header's card strip
 * draws too (ledger.h).
 */
#include "reports/ledger.h"
#include "reports/section.h"
#include "reports/html_util.h"
#include "reports/md_util.h"
#include "reports/summary.h"
#include "analyzer/store/query.h"
#include "lib/common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define BAR_W 900
#define BAR_H 30

static const struct { const char *line, *color, *name; int dark; } looks[] = {
	{ "weights", "#3b5b92", "weights", 1 },
	{ "kv_cache", "#2a8a3e", "KV cache", 1 },
	{ "cuda_graphs", "#7a3fa0", "CUDA graphs", 1 },
	{ "activations", "#e07b00", "activations", 1 },
	{ "pytorch_cache", "#f2c14e", "PyTorch cache", 0 },
	{ "non_pytorch", "#8a4a1f", "non-PyTorch", 1 },
	{ "process", "#4c6fa8", "the process", 1 },
	{ "other_processes", "#c0392b", "other processes", 1 },
	{ "victim", "#c0392b", "killed process", 1 },
	{ "other_tasks", "#d98c5f", "other tasks", 0 },
	{ "anon", "#e07b00", "anon", 1 },
	{ "page_cache", "#4c9be8", "page cache", 0 },
	{ "shmem", "#7a3fa0", "shmem", 1 },
	{ "unexplained", "#9aa1ab", "unexplained", 0 },
	{ "free", "#eef1f6", "free", 0 },
};
#define NLOOKS (sizeof(looks) / sizeof(looks[0]))

static int look_of(const char *line)
{
	size_t i;

	for (i = 0; line && i < NLOOKS; i++)
		if (!strcmp(looks[i].line, line))
			return (int)i;
	return -1;
}

const char *ledger_color(const char *line)
{
	int k = look_of(line);

	return k < 0 ? "#b8bec7" : looks[k].color;
}

const char *ledger_short(const char *line)
{
	int k = look_of(line);

	return k < 0 ? line : looks[k].name;
}

/* The slice's name on the bar: its own name up to a parenthesis when
 * that is short ("PyTorch tensors", "allocated by PyTorch"), else the
 * line's short name ("activations" for "activations and other PyTorch
 * tensors"). */
static void bar_name(const struct bar_seg *s, char *buf, size_t n)
{
	const char *p = s->name ? strstr(s->name, " (") : NULL;
	size_t len = !s->name ? 0 : p ? (size_t)(p - s->name) : strlen(s->name);

	if (s->name && len <= 24)
		snprintf(buf, n, "%.*s", (int)len, s->name);
	else
		snprintf(buf, n, "%s", ledger_short(s->line));
}

void ledger_bar(struct strbuf *sb, const struct bar_seg *s, int n, double cap)
{
	double sum = 0, scale, x = 0;
	char b[32], name[64];
	int i, k;

	for (i = 0; i < n; i++)
		sum += s[i].bytes > 0 ? s[i].bytes : 0;
	scale = cap > 0 && cap >= sum ? cap : sum;
	if (!(scale > 0))
		return;
	strbuf_addf(sb, "<svg class=lbar xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\""
		    " role=img aria-label=\"memory by line\">", BAR_W, BAR_H + 2);
	for (i = 0; i < n; i++) {
		double w = s[i].bytes > 0 ? s[i].bytes / scale * BAR_W : 0;
		if (w <= 0)
			continue;
		k = look_of(s[i].line);
		fmt_bytes(b, sizeof(b), s[i].bytes);
		strbuf_addf(sb, "<g><title>");
		h_text(sb, s[i].name, (size_t)-1);
		strbuf_addf(sb, ": %s (%.1f %%)", b, 100 * s[i].bytes / scale);
		if (s[i].title) {
			strbuf_addstr(sb, " &#8212; ");
			h_text(sb, s[i].title, (size_t)-1);
		}
		strbuf_addf(sb, "</title><rect x=%.1f y=1 width=%.1f height=%d fill=\"%s\"%s />",
			    x, w, BAR_H, ledger_color(s[i].line),
			    !strcmp(s[i].line, "free") ? " stroke=\"#c9ced6\"" : "");
		bar_name(&s[i], name, sizeof(name));
		if (w >= 7.0 * (double)(strlen(name) + strlen(b) + 1) + 8) {
			strbuf_addf(sb, "<text x=%.1f y=%d class=\"lbl%s\">", x + 4, BAR_H / 2 + 5,
				    k >= 0 && looks[k].dark ? " lbd" : "");
			h_text(sb, name, (size_t)-1);
			strbuf_addf(sb, " %s</text>", b);
		}
		strbuf_addstr(sb, "</g>");
		x += w;
	}
	if (cap > 0 && sum > cap * 1.001) {
		double cx = cap / scale * BAR_W;
		strbuf_addf(sb, "<line x1=%.1f x2=%.1f y1=0 y2=%d stroke=\"#1d2430\" stroke-width=2"
			    " stroke-dasharray=\"3 2\"><title>capacity</title></line>", cx, cx, BAR_H + 2);
	}
	strbuf_addstr(sb, "</svg>\n");
}

/* ---- the model ------------------------------------------------------------ */

/* One ledger row as the JSON's line. */
static json_t *line_model(const json_t *r)
{
	json_t *ref = jv_null(r, "ref_table") ? json_null()
		: json_pack("{s:O, s:O}", "table", json_object_get(r, "ref_table"),
			    "id", json_object_get(r, "ref_id"));
	return json_pack("{s:O, s:O, s:O, s:b, s:O, s:O, s:O, s:O, s:o}",
			 "line", json_object_get(r, "line"), "label", json_object_get(r, "label"),
			 "bytes", json_object_get(r, "bytes"),
			 "part", (int)jv_int(json_object_get(r, "part")),
			 "certainty", json_object_get(r, "certainty"), "how", json_object_get(r, "how"),
			 "moment", json_object_get(r, "moment"), "source", json_object_get(r, "source"),
			 "ref", ref);
}

/* The JSON's ledger: one object per account (cards in device order, then
 * the host), {scope, entity, device, capacity_bytes, in_use_bytes,
 * lines}; an empty array without a ledger table (the rules not run). */
json_t *load_ledger(struct report_ctx *c)
{
	json_t *rows, *out = json_array(), *acc = NULL, *r;
	size_t i;

	if (!r_has_table(c, "ledger"))
		return out;
	rows = r_rows(c, "SELECT scope, entity, device, line, label, bytes, part, certainty,"
		      " moment, how, source, ref_table, ref_id FROM ledger ORDER BY id", 4096);
	json_array_foreach(rows, i, r) {
		const json_t *sc = json_object_get(r, "scope"), *en = json_object_get(r, "entity");
		const char *line = json_string_value(json_object_get(r, "line"));
		if (!acc || !json_equal(json_object_get(acc, "scope"), sc) ||
		    !json_equal(json_object_get(acc, "entity"), en)) {
			acc = json_pack("{s:O, s:O, s:O, s:n, s:n, s:[]}", "scope", sc, "entity", en,
					"device", json_object_get(r, "device"), "capacity_bytes",
					"in_use_bytes", "lines");
			json_array_append_new(out, acc);
		}
		if (line && !strcmp(line, "capacity"))
			json_object_set(acc, "capacity_bytes", json_object_get(r, "bytes"));
		if (line && !strcmp(line, "in_use"))
			json_object_set(acc, "in_use_bytes", json_object_get(r, "bytes"));
		json_array_append_new(json_object_get(acc, "lines"), line_model(r));
	}
	json_decref(rows);
	return out;
}

/* ---- HTML ------------------------------------------------------------------ */

static const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

/* An account's heading: what it is and its capacity. */
static void html_account_head(struct strbuf *sb, const json_t *a)
{
	const json_t *cap = json_object_get(a, "capacity_bytes");
	char b[32];

	strbuf_addstr(sb, "<h3>");
	if (!strcmp(str(a, "scope"), "gpu")) {
		strbuf_addstr(sb, "Card ");
		h_key(sb, a, "entity");
	} else if (!strcmp(str(a, "entity"), "host")) {
		strbuf_addstr(sb, "Host");
	} else {
		strbuf_addstr(sb, "Host: ");
		h_key(sb, a, "entity");
	}
	if (cap && !json_is_null(cap)) {
		fmt_bytes(b, sizeof(b), jv_real(cap));
		strbuf_addf(sb, " &#8212; %s %s", b, strcmp(str(a, "scope"), "gpu") &&
			    strcmp(str(a, "entity"), "host") ? "limit" : "capacity");
	} else {
		strbuf_addstr(sb, " <span class=muted>(capacity unknown)</span>");
	}
	strbuf_addstr(sb, "</h3>\n");
}

/* The bar of an account's slices. */
static void html_account_bar(struct strbuf *sb, const json_t *a)
{
	struct bar_seg seg[32];
	const json_t *l;
	size_t i;
	int n = 0;

	json_array_foreach(json_object_get(a, "lines"), i, l) {
		if (!json_is_true(json_object_get(l, "part")) || n == 32)
			continue;
		seg[n].line = str(l, "line");
		seg[n].name = str(l, "label");
		seg[n].bytes = jv_real(json_object_get(l, "bytes"));
		seg[n].title = str(l, "how");
		n++;
	}
	ledger_bar(sb, seg, n, jv_real(json_object_get(a, "capacity_bytes")));
}

/* An account's lines: swatch, line, bytes, share of the capacity, how
 * sure, when, source. */
static void html_account_table(struct strbuf *sb, const json_t *a)
{
	double cap = jv_real(json_object_get(a, "capacity_bytes"));
	const json_t *l;
	size_t i;

	strbuf_addstr(sb, "<table class=ledger><tr><th>line</th><th class=n>bytes</th>"
			  "<th class=n>share</th><th>how sure</th><th>when</th><th>source</th></tr>\n");
	json_array_foreach(json_object_get(a, "lines"), i, l) {
		int part = json_is_true(json_object_get(l, "part"));
		double b = jv_real(json_object_get(l, "bytes"));
		strbuf_addf(sb, "<tr%s><td>", part ? "" : " class=note");
		if (part)
			strbuf_addf(sb, "<span class=sw style=\"background:%s\"></span>",
				    ledger_color(str(l, "line")));
		h_key(sb, l, "label");
		strbuf_addstr(sb, "</td>");
		h_bytes_td(sb, json_object_get(l, "bytes"));
		if (cap > 0 && (part || !strcmp(str(l, "line"), "in_use")))
			strbuf_addf(sb, "<td class=n>%.1f %%</td>", 100 * b / cap);
		else
			strbuf_addstr(sb, "<td></td>");
		h_in(sb, "<td>", l, "how", "</td>");
		h_in(sb, "<td class=t>", l, "moment", "</td>");
		h_in(sb, "<td class=muted>", l, "source", "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
}

void html_ledger(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const json_t *a;
	size_t i;

	(void)c;
	if (!json_array_size(m)) {
		h_na(sb, r_has_table(c, "ledger")
		     ? "No artifact says what filled a card or the host: no PyTorch OOM message, no"
		       " engine accounting, no nvidia-smi/DCGM log, no kernel OOM report."
		     : "Not available: the rules have not been run on this database"
		       " (<code>oomlens classify</code> makes the ledger).");
		return;
	}
	strbuf_addstr(sb, "<p class=muted>What filled each card and the host, line by line, from"
			  " whatever the artifacts say: each line names its source and how sure it"
			  " is. Lines stated at start-up (an engine's accounting) stand beside lines"
			  " from the OOM; what nothing explains is <i>unexplained</i>.</p>\n");
	json_array_foreach(m, i, a) {
		html_account_head(sb, a);
		html_account_bar(sb, a);
		html_account_table(sb, a);
	}
}

/* ---- Markdown ----------------------------------------------------------------- */

void md_ledger(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const json_t *a, *l;
	size_t i, j;

	(void)c;
	if (!json_array_size(m))
		return;
	strbuf_addstr(sb, "### Memory ledger\n\n");
	json_array_foreach(m, i, a) {
		double cap = jv_real(json_object_get(a, "capacity_bytes"));
		char b[32];
		strbuf_addstr(sb, strcmp(str(a, "scope"), "gpu") ? "**Host: " : "**Card ");
		md_key(sb, a, "entity");
		if (cap > 0) {
			fmt_bytes(b, sizeof(b), cap);
			strbuf_addf(sb, "** (%s)\n\n", b);
		} else {
			strbuf_addstr(sb, "** (capacity unknown)\n\n");
		}
		strbuf_addstr(sb, "| line | bytes | share | how sure | when | source |\n"
				  "|---|---:|---:|---|---|---|\n");
		json_array_foreach(json_object_get(a, "lines"), j, l) {
			int part = json_is_true(json_object_get(l, "part"));
			double v = jv_real(json_object_get(l, "bytes"));
			strbuf_addstr(sb, "| ");
			md_key(sb, l, "label");
			fmt_bytes(b, sizeof(b), v);
			strbuf_addf(sb, " | %s | ", b);
			if (cap > 0 && (part || !strcmp(str(l, "line"), "in_use")))
				strbuf_addf(sb, "%.1f %%", 100 * v / cap);
			strbuf_addstr(sb, " | ");
			md_key(sb, l, "how");
			strbuf_addstr(sb, " | ");
			md_key(sb, l, "moment");
			strbuf_addstr(sb, " | ");
			md_key(sb, l, "source");
			strbuf_addstr(sb, " |\n");
		}
		strbuf_addstr(sb, "\n");
	}
}
