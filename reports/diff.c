/*
 * diff.c -- two snapshots compared by what held their memory (`oomlens
 * diff A B`): the latest snapshot of each database, its holders at the
 * snapshot matched by device and allocation stack (the stack's hash, the
 * same for the same frames in any database), each grown, shrunk, new,
 * gone or the same; the devices' totals; the pools. One model (diff_load),
 * drawn as HTML, Markdown or JSON. Reads both databases through the query
 * layer only.
 */
#include "reports/report.h"
#include "reports/section.h"
#include "reports/html_util.h"
#include "reports/md_util.h"
#include "reports/summary.h"
#include "analyzer/store/query.h"
#include "lib/common.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIFF_SHOWN 50        /* holders in HTML and Markdown */

static const char *const statuses[] = { "grown", "new", "shrunk", "gone", "same" };

/* The latest snapshot with holders in db, or OL_NULL (err says why). */
static int64_t latest(sqlite3 *db, const char *name, struct strbuf *err)
{
	int64_t id = OL_NULL;

	if (q_has_table(db, "holder"))
		id = q_int_err(db, "SELECT max(snapshot_id) FROM holder WHERE tool = 'torch_snapshot'",
			       OL_NULL, err);
	if (id == OL_NULL && !err->len)
		strbuf_addf(err, "%s: no PyTorch snapshot with holders (a database of an older"
			    " oomlens: ingest the snapshot again)", name);
	return id;
}

/* One side: {name, artifact, devices: {device: {live, reserved, peak}}}
 * and its holders and pools as arrays. */
static json_t *side(sqlite3 *db, const char *name, int64_t snap, json_t **holders,
		    json_t **pools, struct strbuf *err)
{
	sqlite3_stmt *st;
	json_t *o = json_pack("{s:s}", "name", name), *devs = json_object();

	st = q_prepare_err(db, "SELECT a.path FROM snapshot s LEFT JOIN artifact a"
			   " ON a.id = s.artifact_id WHERE s.id = ?", err);
	if (st) {
		sqlite3_bind_int64(st, 1, snap);
		json_object_set_new(o, "artifact", sqlite3_step(st) == SQLITE_ROW ? q_json(st, 0)
								       : json_null());
		sqlite3_finalize(st);
	}
	st = q_prepare_err(db, "SELECT device, sum(total_size),"
		" (SELECT sum(bytes) FROM holder h WHERE h.snapshot_id = ?1 AND h.scope = 'snapshot'"
		"  AND h.device = g.device AND h.tool = 'torch_snapshot'),"
		" (SELECT sum(bytes) FROM holder h WHERE h.snapshot_id = ?1 AND h.scope = 'peak'"
		"  AND h.device = g.device AND h.tool = 'torch_snapshot')"
		" FROM segment g WHERE snapshot_id = ?1 GROUP BY device ORDER BY device", err);
	while (st && (sqlite3_bind_int64(st, 1, snap), sqlite3_step(st) == SQLITE_ROW)) {
		char key[32];
		snprintf(key, sizeof(key), "%lld", (long long)sqlite3_column_int64(st, 0));
		json_object_set_new(devs, key, json_pack("{s:o, s:o, s:o}", "reserved_bytes",
			q_json(st, 1), "live_bytes", q_json(st, 2), "peak_bytes", q_json(st, 3)));
	}
	sqlite3_finalize(st);
	json_object_set_new(o, "devices", devs);
	st = q_prepare_err(db, "SELECT h.device, h.kind, h.label, CASE WHEN h.frame_file IS NULL"
		" THEN NULL ELSE json_object('filename', h.frame_file, 'line', h.frame_line, 'name',"
		" h.frame_name) END AS frame_json, h.bytes, h.allocations, s.hash"
		" FROM holder h LEFT JOIN stack s ON s.id = h.stack_id WHERE h.snapshot_id = ?"
		" AND h.scope = 'snapshot' AND h.tool = 'torch_snapshot' ORDER BY h.device, h.rank",
		err);
	if (st) {
		sqlite3_bind_int64(st, 1, snap);
		*holders = q_rows_next(st, -1);
		sqlite3_finalize(st);
	}
	st = q_has_table(db, "pool") ? q_prepare_err(db, "SELECT device, pool_id, private_pool,"
		" reserved_bytes, allocated_bytes FROM pool WHERE snapshot_id = ?"
		" ORDER BY device, pool_id", err) : NULL;
	if (st) {
		sqlite3_bind_int64(st, 1, snap);
		*pools = q_rows_next(st, -1);
		sqlite3_finalize(st);
	}
	return o;
}

/* 1 when holder rows x and y are the same holder: device, kind, stack. */
static int same_holder(const json_t *x, const json_t *y)
{
	return jv_int(json_object_get(x, "device")) == jv_int(json_object_get(y, "device")) &&
	       json_equal(json_object_get(x, "kind"), json_object_get(y, "kind")) &&
	       json_equal(json_object_get(x, "hash"), json_object_get(y, "hash"));
}

static const char *status_of(int64_t a, int64_t b, int in_a, int in_b)
{
	if (!in_a)
		return statuses[1];
	if (!in_b)
		return statuses[3];
	return b > a ? statuses[0] : b < a ? statuses[2] : statuses[4];
}

/* One compared holder from its row in A and/or B. */
static json_t *compared(const json_t *ra, const json_t *rb)
{
	const json_t *r = rb ? rb : ra;
	int64_t a = ra ? jv_int(json_object_get(ra, "bytes")) : 0;
	int64_t b = rb ? jv_int(json_object_get(rb, "bytes")) : 0;

	return json_pack("{s:s, s:O, s:O, s:O, s:O, s:I, s:I, s:I, s:I, s:I}",
		"status", status_of(a, b, ra != NULL, rb != NULL),
		"device", json_object_get(r, "device"), "kind", json_object_get(r, "kind"),
		"label", json_object_get(r, "label"), "frame", json_object_get(r, "frame"),
		"bytes_a", (json_int_t)a, "bytes_b", (json_int_t)b, "delta_bytes", (json_int_t)(b - a),
		"allocations_a", (json_int_t)(ra ? jv_int(json_object_get(ra, "allocations")) : 0),
		"allocations_b", (json_int_t)(rb ? jv_int(json_object_get(rb, "allocations")) : 0));
}

/* The rank of a status in statuses[]. */
static int status_rank(const json_t *h)
{
	const char *s = json_string_value(json_object_get(h, "status"));
	int i;

	for (i = 0; s && i < 5; i++)
		if (!strcmp(s, statuses[i]))
			return i;
	return 5;
}

/* Largest change first; then the larger holder, the status (grown, new,
 * shrunk, gone, same) and the label, so that the order is the same on
 * every run. */
static int cmp_change(const void *x, const void *y)
{
	const json_t *p = *(json_t *const *)x, *q = *(json_t *const *)y;
	int64_t a = jv_int(json_object_get(p, "delta_bytes"));
	int64_t b = jv_int(json_object_get(q, "delta_bytes"));
	int64_t sa = jv_int(json_object_get(p, "bytes_a")), sb = jv_int(json_object_get(p, "bytes_b"));
	int64_t ta = jv_int(json_object_get(q, "bytes_a")), tb = jv_int(json_object_get(q, "bytes_b"));
	const char *la = json_string_value(json_object_get(p, "label"));
	const char *lb = json_string_value(json_object_get(q, "label"));

	a = a < 0 ? -a : a;
	b = b < 0 ? -b : b;
	if (a != b)
		return a > b ? -1 : 1;
	sa = sa > sb ? sa : sb;
	ta = ta > tb ? ta : tb;
	if (sa != ta)
		return sa > ta ? -1 : 1;
	if (status_rank(p) != status_rank(q))
		return status_rank(p) - status_rank(q);
	return strcmp(la ? la : "", lb ? lb : "");
}

/* The holders of A and B matched, largest change first. */
static json_t *match_holders(const json_t *ha, const json_t *hb)
{
	size_t i, j, n = json_array_size(hb), k = 0;
	char *used = calloc(n ? n : 1, 1);
	json_t **v = calloc(json_array_size(ha) + n + 1, sizeof(*v)), *out = json_array();

	for (i = 0; used && v && i < json_array_size(ha); i++) {
		const json_t *ra = json_array_get(ha, i), *rb = NULL;
		for (j = 0; j < n && !rb; j++)
			if (!used[j] && same_holder(ra, json_array_get(hb, j))) {
				used[j] = 1;
				rb = json_array_get(hb, j);
			}
		v[k++] = compared(ra, rb);
	}
	for (j = 0; used && v && j < n; j++)
		if (!used[j])
			v[k++] = compared(NULL, json_array_get(hb, j));
	if (v)
		qsort(v, k, sizeof(*v), cmp_change);
	for (i = 0; v && i < k; i++)
		json_array_append_new(out, v[i]);
	free(used);
	free(v);
	return out;
}

/* The pools of A and B by device and pool id. */
static json_t *match_pools(const json_t *pa, const json_t *pb)
{
	json_t *out = json_array(), *both = json_array(), *p;
	size_t i, j;

	json_array_extend(both, (json_t *)pa);
	json_array_extend(both, (json_t *)pb);
	json_array_foreach(both, i, p) {
		int64_t dev = jv_int(json_object_get(p, "device"));
		const json_t *pid = json_object_get(p, "pool_id"), *a = NULL, *b = NULL, *x;
		int seen = 0;
		json_array_foreach(out, j, x)
			seen |= jv_int(json_object_get(x, "device")) == dev &&
				json_equal(json_object_get(x, "pool_id"), pid);
		if (seen)
			continue;
		json_array_foreach((json_t *)pa, j, x)
			if (jv_int(json_object_get(x, "device")) == dev &&
			    json_equal(json_object_get(x, "pool_id"), pid))
				a = x;
		json_array_foreach((json_t *)pb, j, x)
			if (jv_int(json_object_get(x, "device")) == dev &&
			    json_equal(json_object_get(x, "pool_id"), pid))
				b = x;
		json_array_append_new(out, json_pack("{s:I, s:O, s:O, s:I, s:I, s:I, s:I}",
			"device", (json_int_t)dev, "pool_id", pid,
			"private", json_object_get(p, "private_pool"),
			"reserved_bytes_a", (json_int_t)jv_int(json_object_get(a, "reserved_bytes")),
			"reserved_bytes_b", (json_int_t)jv_int(json_object_get(b, "reserved_bytes")),
			"allocated_bytes_a", (json_int_t)jv_int(json_object_get(a, "allocated_bytes")),
			"allocated_bytes_b", (json_int_t)jv_int(json_object_get(b, "allocated_bytes"))));
	}
	json_decref(both);
	return out;
}

/* The diff's model: {a, b, holders: [...], pools: [...]} (docs/json.md
 * "diff"), or NULL with err saying why. */
static json_t *diff_load(sqlite3 *a, const char *na, sqlite3 *b, const char *nb,
			 struct strbuf *err)
{
	int64_t sa = latest(a, na, err), sb = sa == OL_NULL ? OL_NULL : latest(b, nb, err);
	json_t *ha = NULL, *hb = NULL, *pa = NULL, *pb = NULL, *m;

	if (sb == OL_NULL)
		return NULL;
	m = json_pack("{s:o, s:o}", "a", side(a, na, sa, &ha, &pa, err),
		      "b", side(b, nb, sb, &hb, &pb, err));
	if (err->len || !ha || !hb) {
		json_decref(m);
		m = NULL;
	} else {
		json_object_set_new(m, "holders", match_holders(ha, hb));
		if (!pa)
			pa = json_array();
		if (!pb)
			pb = json_array();
		json_object_set_new(m, "pools", match_pools(pa, pb));
	}
	json_decref(ha);
	json_decref(hb);
	json_decref(pa);
	json_decref(pb);
	return m;
}

/* ---- HTML ---- */

/* "+8.00 MiB" / "-2.00 MiB" / "0 B". */
static void fmt_delta(char *buf, size_t n, int64_t d)
{
	char b[32];

	fmt_bytes(b, sizeof(b), (double)(d < 0 ? -d : d));
	snprintf(buf, n, "%s%s", d > 0 ? "+" : d < 0 ? "-" : "", b);
}

static void html_side_names(struct strbuf *sb, const json_t *m)
{
	strbuf_addstr(sb, "<p>A: <code>");
	h_key(sb, json_object_get(m, "a"), "name");
	strbuf_addstr(sb, "</code> &middot; B: <code>");
	h_key(sb, json_object_get(m, "b"), "name");
	strbuf_addstr(sb, "</code>. Holders are matched by device and allocation stack; bytes"
			  " are live at each snapshot.</p>\n");
}

/* Per device: reserved, live and peak of A and B. */
static void html_devices(struct strbuf *sb, const json_t *m)
{
	const json_t *da = json_object_get(json_object_get(m, "a"), "devices");
	const json_t *db = json_object_get(json_object_get(m, "b"), "devices"), *v;
	const char *k;
	static const char *const keys[] = { "reserved_bytes", "live_bytes", "peak_bytes" };
	static const char *const names[] = { "reserved", "live at the snapshot",
					     "live at the trace's peak" };
	json_t *all = json_object();
	size_t i;

	json_object_update(all, (json_t *)da);
	json_object_update(all, (json_t *)db);
	strbuf_addstr(sb, "<table><tr><th>device</th><th>figure</th><th class=n>A</th>"
			  "<th class=n>B</th><th class=n>change</th></tr>\n");
	json_object_foreach(all, k, v) {
		for (i = 0; i < 3; i++) {
			const json_t *a = json_object_get(json_object_get(da, k), keys[i]);
			const json_t *b = json_object_get(json_object_get(db, k), keys[i]);
			char d[40];
			if (jv_null(json_object_get(da, k), keys[i]) &&
			    jv_null(json_object_get(db, k), keys[i]))
				continue;
			fmt_delta(d, sizeof(d), jv_int(b) - jv_int(a));
			strbuf_addf(sb, "<tr><td>cuda:%s</td><td>%s</td>", k, names[i]);
			h_bytes_td(sb, a);
			h_bytes_td(sb, b);
			strbuf_addf(sb, "<td class=n>%s</td></tr>\n", d);
		}
	}
	strbuf_addstr(sb, "</table>\n");
	json_decref(all);
}

static void html_holder_rows(struct strbuf *sb, const json_t *holders)
{
	const json_t *h;
	size_t i;

	strbuf_addstr(sb, "<table class=stacks><tr><th>change</th><th>device</th>"
			  "<th class=n>A</th><th class=n>B</th><th class=n>B &minus; A</th>"
			  "<th class=n>allocations A &rarr; B</th><th>user's frame</th></tr>\n");
	json_array_foreach(holders, i, h) {
		char d[40];
		if (i == DIFF_SHOWN)
			break;
		fmt_delta(d, sizeof(d), jv_int(json_object_get(h, "delta_bytes")));
		strbuf_addstr(sb, "<tr><td><span class=tag>");
		h_key(sb, h, "status");
		strbuf_addstr(sb, "</span></td><td>cuda:");
		h_key(sb, h, "device");
		strbuf_addstr(sb, "</td>");
		h_bytes_td(sb, json_object_get(h, "bytes_a"));
		h_bytes_td(sb, json_object_get(h, "bytes_b"));
		strbuf_addf(sb, "<td class=n>%s</td><td class=n>%lld &rarr; %lld</td><td>", d,
			    (long long)jv_int(json_object_get(h, "allocations_a")),
			    (long long)jv_int(json_object_get(h, "allocations_b")));
		h_key(sb, h, "label");
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
	h_more(sb, (int64_t)json_array_size(holders), DIFF_SHOWN, "holders");
}

static void html_pool_rows(struct strbuf *sb, const json_t *pools)
{
	const json_t *p;
	size_t i;

	if (!json_array_size(pools))
		return;
	strbuf_addstr(sb, "<h2>By pool</h2>\n<table><tr><th>device</th><th>pool</th>"
			  "<th class=n>reserved A</th><th class=n>reserved B</th>"
			  "<th class=n>allocated A</th><th class=n>allocated B</th></tr>\n");
	json_array_foreach(pools, i, p) {
		strbuf_addstr(sb, "<tr><td>cuda:");
		h_key(sb, p, "device");
		strbuf_addstr(sb, "</td><td>");
		h_key(sb, p, "pool_id");
		if (jv_int(json_object_get(p, "private")))
			strbuf_addstr(sb, " <span class=tag>private</span>");
		strbuf_addstr(sb, "</td>");
		h_bytes_td(sb, json_object_get(p, "reserved_bytes_a"));
		h_bytes_td(sb, json_object_get(p, "reserved_bytes_b"));
		h_bytes_td(sb, json_object_get(p, "allocated_bytes_a"));
		h_bytes_td(sb, json_object_get(p, "allocated_bytes_b"));
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
}

static void diff_html(struct strbuf *sb, const json_t *m)
{
	strbuf_addf(sb, "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"
		    " style-src 'unsafe-inline'; img-src data:\">"
		    "<title>Memory snapshots compared</title><style>%s</style></head><body>\n"
		    "<header><h1>Memory snapshots compared</h1></header>\n", report_html_css);
	html_side_names(sb, m);
	strbuf_addstr(sb, "<h2>By device</h2>\n");
	html_devices(sb, m);
	strbuf_addstr(sb, "<h2>By holder, largest change first</h2>\n");
	html_holder_rows(sb, json_object_get(m, "holders"));
	html_pool_rows(sb, json_object_get(m, "pools"));
	strbuf_addf(sb, "<footer>oomlens %s diff</footer>\n</body></html>\n", OOMLENS_VERSION);
}

/* ---- Markdown ---- */

/* "A to B (change)" of two byte counts. */
static void md_change(struct strbuf *sb, const json_t *a, const json_t *b)
{
	char x[32], y[32], d[40];

	fmt_bytes(x, sizeof(x), jv_real(a));
	fmt_bytes(y, sizeof(y), jv_real(b));
	fmt_delta(d, sizeof(d), jv_int(b) - jv_int(a));
	strbuf_addf(sb, "%s to %s (%s)", x, y, d);
}

/* Each device's live and reserved bytes, A to B. */
static void md_devices(struct strbuf *sb, const json_t *m)
{
	const json_t *da = json_object_get(json_object_get(m, "a"), "devices");
	const json_t *db = json_object_get(json_object_get(m, "b"), "devices"), *v;
	json_t *all = json_object();
	const char *k;

	json_object_update(all, (json_t *)da);
	json_object_update(all, (json_t *)db);
	strbuf_addstr(sb, "\n");
	json_object_foreach(all, k, v) {
		strbuf_addf(sb, "- **cuda:%s** live ", k);
		md_change(sb, json_object_get(json_object_get(da, k), "live_bytes"),
			  json_object_get(json_object_get(db, k), "live_bytes"));
		strbuf_addstr(sb, ", reserved ");
		md_change(sb, json_object_get(json_object_get(da, k), "reserved_bytes"),
			  json_object_get(json_object_get(db, k), "reserved_bytes"));
		strbuf_addstr(sb, "\n");
	}
	json_decref(all);
}

/* Each pool's reserved and allocated bytes, A to B. */
static void md_pools(struct strbuf *sb, const json_t *pools)
{
	const json_t *p;
	size_t i;

	json_array_foreach(pools, i, p) {
		strbuf_addstr(sb, i ? "" : "\n### By pool\n\n");
		strbuf_addf(sb, "- cuda:%lld pool ", (long long)jv_int(json_object_get(p, "device")));
		md_key(sb, p, "pool_id");
		strbuf_addstr(sb, jv_int(json_object_get(p, "private")) ? " (private): reserved "
									 : ": reserved ");
		md_change(sb, json_object_get(p, "reserved_bytes_a"),
			  json_object_get(p, "reserved_bytes_b"));
		strbuf_addstr(sb, ", allocated ");
		md_change(sb, json_object_get(p, "allocated_bytes_a"),
			  json_object_get(p, "allocated_bytes_b"));
		strbuf_addstr(sb, "\n");
	}
}

static void diff_md(struct strbuf *sb, const json_t *m)
{
	const json_t *h;
	size_t i, s;

	strbuf_addstr(sb, "## Memory snapshots compared\n\nA: ");
	md_key(sb, json_object_get(m, "a"), "name");
	strbuf_addstr(sb, ", B: ");
	md_key(sb, json_object_get(m, "b"), "name");
	strbuf_addstr(sb, "\n");
	md_devices(sb, m);
	for (s = 0; s < 4; s++) {
		int n = 0;
		json_array_foreach(json_object_get(m, "holders"), i, h) {
			char d[40], b1[32], b2[32];
			const char *st = json_string_value(json_object_get(h, "status"));
			if (!st || strcmp(st, statuses[s]) || n == 10)
				continue;
			if (!n++)
				strbuf_addf(sb, "\n### %c%s\n\n", statuses[s][0] - 32, statuses[s] + 1);
			fmt_delta(d, sizeof(d), jv_int(json_object_get(h, "delta_bytes")));
			fmt_bytes(b1, sizeof(b1), jv_real(json_object_get(h, "bytes_a")));
			fmt_bytes(b2, sizeof(b2), jv_real(json_object_get(h, "bytes_b")));
			strbuf_addf(sb, "- %s (%s to %s) on cuda:%lld: ", d, b1, b2,
				    (long long)jv_int(json_object_get(h, "device")));
			md_key(sb, h, "label");
			strbuf_addstr(sb, "\n");
		}
	}
	md_pools(sb, json_object_get(m, "pools"));
	strbuf_addf(sb, "\n_oomlens %s diff_\n", OOMLENS_VERSION);
}

int report_diff_write(sqlite3 *a, const char *name_a, sqlite3 *b, const char *name_b,
		      enum report_format f, FILE *out, struct strbuf *err)
{
	json_t *m = diff_load(a, name_a, b, name_b, err);
	struct strbuf sb = STRBUF_INIT;
	int r;

	if (!m)
		return -1;
	if (f == REPORT_JSON) {
		r = json_dumpf(m, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 &&
		    fputc('\n', out) != EOF ? 0 : -1;
	} else {
		if (f == REPORT_HTML)
			diff_html(&sb, m);
		else
			diff_md(&sb, m);
		r = !strbuf_failed(&sb) && fwrite(sb.buf, 1, sb.len, out) == sb.len ? 0 : -1;
	}
	if (r < 0 && !err->len)
		strbuf_addstr(err, "the diff could not be written");
	strbuf_release(&sb);
	json_decref(m);
	return r;
}
