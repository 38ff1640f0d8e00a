/*
 * engines.c -- each serving-engine instance the logs name, with the
 * memory accounting it stated at start-up and its memory errors (the
 * engine table, docs/schema.md; the JSON's engines, docs/json.md): an
 * HTML table and a Markdown list of each engine's accounting.
 *
 * The loader reads every column of the engine table as it is, so a fact
 * the store gains is in the JSON without a change here; the HTML and the
 * Markdown show the figures a reader of the ledger wants first
 * (ENGINE_SHOWN) and the errors' kinds. The HTML shows ENGINES_CAP
 * engines, the Markdown MD_ENGINES.
 */
#include "reports/section.h"
#include "reports/html_util.h"
#include "reports/md_util.h"
#include "analyzer/store/query.h"
#include "lib/common.h"

#include <string.h>

#define ENGINES_CAP 200
#define MD_ENGINES 30

/* The keys of a row that lead, in this order; the errors end it. */
static const char *const lead_keys[] = { "engine", "instance", "artifact", "version", NULL };
/* Columns of the table that are the store's, not the engine's. */
static const char *const store_keys[] = { "id", "artifact_id", "line", NULL };

static int in_list(const char *const *list, const char *key)
{
	for (; *list; list++)
		if (!strcmp(*list, key))
			return 1;
	return 0;
}

/* The errors as the JSON has them: time as ISO 8601 (time_ns kept out). */
static json_t *errors_model(const json_t *errs)
{
	json_t *out = json_array(), *x;
	size_t i;

	json_array_foreach(errs, i, x) {
		const json_t *t = json_object_get(x, "time_ns");
		char iso[40];
		if (json_is_integer(t))
			fmt_time(iso, sizeof(iso), json_integer_value(t), OL_NULL);
		json_array_append_new(out, json_pack("{s:O, s:s?, s:O, s:O, s:O}",
			"kind", json_object_get(x, "kind"),
			"time", json_is_integer(t) ? iso : NULL,
			"clock", json_object_get(x, "clock") ? json_object_get(x, "clock") : json_null(),
			"line", json_object_get(x, "line") ? json_object_get(x, "line") : json_null(),
			"text", json_object_get(x, "text") ? json_object_get(x, "text") : json_null()));
		if (json_object_get(x, "asked_tokens"))   /* SGLang's counts, when it gave them */
			json_object_set(json_array_get(out, i), "asked_tokens",
					json_object_get(x, "asked_tokens"));
		if (json_object_get(x, "available_tokens"))
			json_object_set(json_array_get(out, i), "available_tokens",
					json_object_get(x, "available_tokens"));
	}
	return out;
}

/* One row of the engine table as the JSON's object: the lead keys, the
 * facts in column order, errors_dropped, then the errors. */
static json_t *engine_model(json_t *row)
{
	json_t *o = json_object(), *v;
	const char *key;
	size_t i;

	for (i = 0; lead_keys[i]; i++) {
		v = json_object_get(row, lead_keys[i]);
		json_object_set(o, lead_keys[i], v ? v : json_null());
	}
	json_object_foreach(row, key, v)
		if (!in_list(lead_keys, key) && !in_list(store_keys, key) && strcmp(key, "errors"))
			json_object_set(o, key, v);
	json_object_set_new(o, "errors", errors_model(json_object_get(row, "errors")));
	return o;
}

/* The JSON's engines array (capped: a list of the first ENGINES_CAP);
 * an empty one when the database has no engine table (written by an
 * oomlens before it). */
json_t *load_engines(struct report_ctx *c)
{
	json_t *rows, *out = json_array(), *r;
	int64_t total;
	size_t i;

	if (!r_has_table(c, "engine"))
		return r_list(c, out, 0);
	rows = r_rows(c, "SELECT e.*, e.errors AS errors_json, a.path AS artifact FROM engine e"
		      " LEFT JOIN artifact a ON a.id = e.artifact_id ORDER BY e.id",
		      r_cap(c, ENGINES_CAP));
	json_array_foreach(rows, i, r)
		json_array_append_new(out, engine_model(r));
	json_decref(rows);
	total = (int64_t)json_array_size(out);
	if (c->capped && total >= ENGINES_CAP)
		total = r_int(c, "SELECT count(*) FROM engine", total);
	return r_list(c, out, total);
}

/* --- for people ----------------------------------------------------------- */

/* The figures shown, in the ledger's order: key, label, 1 for bytes, 1
 * for a column the HTML shows only when some engine has the figure (one
 * engine's own: LMDeploy's KV cache share, Ollama's whole plan). */
static const struct { const char *key, *label; int bytes, sparse; } shown[] = {
	{ "total_bytes", "card", 1, 0 }, { "free_bytes", "free at start", 1, 0 },
	{ "gpu_memory_utilization", "utilization", 0, 0 }, { "requested_bytes", "requested", 1, 0 },
	{ "kv_cache_fraction", "KV cache share", 0, 1 },
	{ "planned_total_bytes", "planned in all", 1, 1 },
	{ "weights_bytes", "weights", 1, 0 }, { "activation_peak_bytes", "activations", 1, 0 },
	{ "non_torch_bytes", "non-torch", 1, 0 }, { "cuda_graph_bytes", "CUDA graphs", 1, 0 },
	{ "kv_cache_bytes", "KV cache", 1, 0 }, { "kv_cache_tokens", "KV tokens", 0, 0 },
	{ "gpu_blocks", "GPU blocks", 0, 0 }, { "max_concurrency", "max concurrency", 0, 0 },
	{ "max_num_seqs", "max seqs", 0, 0 }, { "max_model_len", "max model len", 0, 0 },
};
#define NSHOWN (sizeof(shown) / sizeof(shown[0]))

/* The kinds of an engine's errors, "kind xN, kind" (escaped by esc). */
static void error_kinds(struct strbuf *sb, const json_t *e,
			void (*esc)(struct strbuf *, const json_t *))
{
	const json_t *errs = json_object_get(e, "errors"), *x, *y;
	size_t i, j;

	json_array_foreach(errs, i, x) {
		const json_t *k = json_object_get(x, "kind");
		int seen = 0, n = 0;
		json_array_foreach(errs, j, y) {
			if (json_equal(json_object_get(y, "kind"), k)) {
				seen |= j < i;
				n++;
			}
		}
		if (seen)
			continue;
		if (i)
			strbuf_addstr(sb, ", ");
		esc(sb, k);
		if (n > 1)
			strbuf_addf(sb, " x%d", n);
	}
}

void html_engines(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const json_t *rows = model_rows(m), *e;
	size_t i, k;
	char used[NSHOWN];

	(void)c;
	if (!json_array_size(rows)) {
		h_na(sb, "Not available: no serving-engine log stated its memory accounting.");
		return;
	}
	for (k = 0; k < NSHOWN; k++) {
		used[k] = !shown[k].sparse;
		json_array_foreach(rows, i, e)
			if (!jv_null(e, shown[k].key))
				used[k] = 1;
	}
	strbuf_addstr(sb, "<table><tr><th>engine</th><th>instance</th><th>version</th>");
	for (k = 0; k < NSHOWN; k++)
		if (used[k])
			strbuf_addf(sb, "<th class=n>%s</th>", shown[k].label);
	strbuf_addstr(sb, "<th>errors</th></tr>\n");
	json_array_foreach(rows, i, e) {
		h_in(sb, "<tr><td>", e, "engine", "</td>");
		h_in(sb, "<td>", e, "instance", "</td>");
		h_in(sb, "<td>", e, "version", "</td>");
		for (k = 0; k < NSHOWN; k++) {
			const json_t *v = json_object_get(e, shown[k].key);
			if (!used[k])
				continue;
			if (shown[k].bytes)
				h_bytes_td(sb, v);
			else
				h_in(sb, "<td class=n>", e, shown[k].key, "</td>");
		}
		strbuf_addstr(sb, "<td class=err>");
		error_kinds(sb, e, h_val);
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
	h_more(sb, model_total(m), (int64_t)json_array_size(rows), "engine instances");
}

/* "- **vllm** pid 7 (0.6.3): card 79.2 GiB, weights 14.9 GiB, ...;
 *   errors: kv_no_memory" */
void md_engines(struct strbuf *sb, struct report_ctx *c, const json_t *m)
{
	const json_t *rows = model_rows(m), *e;
	size_t i, k, n = 0;

	(void)c;
	if (!json_array_size(rows))
		return;
	strbuf_addstr(sb, "### Serving engines\n\n");
	json_array_foreach(rows, i, e) {
		int first = 1;
		if (i == MD_ENGINES)
			break;
		strbuf_addstr(sb, "- **");
		md_key(sb, e, "engine");
		strbuf_addstr(sb, "**");
		if (json_string_length(json_object_get(e, "instance"))) {
			strbuf_addstr(sb, " ");
			md_key(sb, e, "instance");
		}
		if (!jv_null(e, "version")) {
			strbuf_addstr(sb, " (");
			md_key(sb, e, "version");
			strbuf_addstr(sb, ")");
		}
		for (k = 0; k < NSHOWN; k++) {
			const json_t *v = json_object_get(e, shown[k].key);
			char buf[48];
			if (!v || json_is_null(v))
				continue;
			strbuf_addf(sb, "%s%s ", first ? ": " : ", ", shown[k].label);
			first = 0;
			if (shown[k].bytes) {
				fmt_bytes(buf, sizeof(buf), jv_real(v));
				strbuf_addstr(sb, buf);
			} else {
				md_val(sb, v);
			}
		}
		if (json_array_size(json_object_get(e, "errors"))) {
			strbuf_addstr(sb, "; errors: ");
			error_kinds(sb, e, md_val);
		}
		strbuf_addstr(sb, "\n");
		n++;
	}
	if (model_total(m) > (int64_t)n)
		strbuf_addf(sb, "\n%lld more engine instances in the database.\n",
			    (long long)(model_total(m) - (int64_t)n));
	strbuf_addstr(sb, "\n");
}
