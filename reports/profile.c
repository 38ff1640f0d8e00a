/*
 * profile.c -- the memory profile as every report shows it, read from the
 * derived `profile` table (analyzer/derive/profile.c): per account its
 * peak and what it measures, its other measures beside it, the headroom
 * to the card or the limit, a steady growth and the time it would take to
 * fill that headroom (an estimate), which account would run out first,
 * and the holders at the peak of a card (the holder table's top rows, as
 * the holders section names them). It is the whole answer when no OOM is
 * recorded (verdict no_oom). Nothing here computes a fact: it picks rows
 * and formats them; the JSON key `profile` is the same rows.
 */
#include "reports/section.h"
#include "reports/summary.h"
#include "analyzer/store/query.h"
#include "lib/bytes.h"
#include "lib/common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PROFILE_HOLDERS 3   /* holders at the peak named per card */

#define PROFILE_SQL "SELECT f.account, f.scope, f.device, f.measure, f.bytes," \
	" p.source, p.time_ns AS time, f.limit_bytes, f.limit_source, f.headroom_bytes," \
	" f.headroom_share, f.growth_bytes_per_s, f.growth_r2, f.growth_span_s," \
	" f.time_to_limit_s, f.first FROM profile f LEFT JOIN peak p ON p.id = f.peak_id" \
	" ORDER BY f.id"

/* A card's top holders at the peak of the latest snapshot's trace (else at
 * the snapshot): ?1 the device, LIMIT ?2. */
#define HOLDERS_SQL "SELECT h.bytes, h.allocations, h.scope, h.label, h.frame_file," \
	" h.frame_line, h.frame_name FROM holder h WHERE h.tool = 'torch_snapshot'" \
	" AND h.device = ?1 AND h.scope IN ('peak', 'snapshot') AND h.snapshot_id =" \
	" (SELECT max(snapshot_id) FROM holder WHERE tool = 'torch_snapshot' AND device = ?1)" \
	" AND h.scope = (SELECT CASE WHEN count(*) THEN 'peak' ELSE 'snapshot' END FROM holder" \
	"  WHERE tool = 'torch_snapshot' AND device = ?1 AND scope = 'peak')" \
	" ORDER BY h.bytes DESC, h.rank LIMIT ?2"

void summary_profile_load(struct report_ctx *c, struct report_summary *s)
{
	sqlite3_stmt *st;
	json_t *r;
	size_t i;

	if (!r_has_table(c, "profile") || !r_has_table(c, "peak"))
		return;
	s->profile = r_rows(c, PROFILE_SQL, -1);
	if (!r_has_table(c, "holder") || !(st = r_prepare(c, HOLDERS_SQL)))
		return;
	json_array_foreach(s->profile, i, r) {
		if (jv_null(r, "device"))
			continue;
		sqlite3_bind_int64(st, 1, jv_int(json_object_get(r, "device")));
		sqlite3_bind_int(st, 2, PROFILE_HOLDERS);
		json_object_set_new(r, "holders", q_rows_next(st, -1));
	}
	sqlite3_finalize(st);
}

json_t *load_profile(struct report_ctx *c)
{
	if (!c->has_summary || !c->sum.profile)
		return json_array();
	return json_incref(c->sum.profile);
}

/* "12.7 GiB /srv/app/optim.py:82 step" (the holders section's naming: the
 * user frame, else the label), escaped by esc. */
static void holder_name(struct strbuf *out, const json_t *h,
			int (*esc)(struct strbuf *, const char *, size_t))
{
	char b[40];

	ol_fmt_bytes(b, sizeof(b), jv_real(json_object_get(h, "bytes")));
	strbuf_addf(out, "%s ", b);
	if (!jv_null(h, "frame_file")) {
		summary_add_value(out, json_object_get(h, "frame_file"), esc, "");
		strbuf_addf(out, ":%lld ", (long long)jv_int(json_object_get(h, "frame_line")));
		summary_add_value(out, json_object_get(h, "frame_name"), esc, "");
	} else {
		summary_add_value(out, json_object_get(h, "label"), esc, "unnamed");
	}
}

/* The headroom, growth and time-to-limit words of row r; a limit read
 * from a free paste says where its unit came from, as its source does
 * (peak.c: "host.mem_total_bytes (unit guessed)"), escaped by esc. */
static void row_outlook(struct strbuf *out, const json_t *r,
			int (*esc)(struct strbuf *, const char *, size_t))
{
	char b[40], l[40];
	double g = jv_real(json_object_get(r, "growth_bytes_per_s"));
	const char *src = json_string_value(json_object_get(r, "limit_source"));
	const char *unit = src ? strstr(src, " (unit ") : NULL;

	if (jv_null(r, "limit_bytes")) {
		strbuf_addstr(out, "; headroom unknown (no capacity or limit known)");
	} else {
		ol_fmt_bytes(b, sizeof(b), jv_real(json_object_get(r, "headroom_bytes")));
		ol_fmt_bytes(l, sizeof(l), jv_real(json_object_get(r, "limit_bytes")));
		strbuf_addf(out, "; headroom %s of %s", b, l);
		if (unit)
			summary_add_escaped(out, unit, strlen(unit), esc);
		strbuf_addf(out, " (%.1f %% left)",
			    100 * jv_real(json_object_get(r, "headroom_share")));
	}
	if (jv_null(r, "growth_bytes_per_s")) {
		strbuf_addstr(out, "; no steady growth in its series");
		return;
	}
	ol_fmt_bytes(b, sizeof(b), g * 3600);
	strbuf_addf(out, "; growing %s/h (R\xc2\xb2 %.2f over ", b,
		    jv_real(json_object_get(r, "growth_r2")));
	fmt_figure(out, "span_s", json_object_get(r, "growth_span_s"));
	strbuf_addstr(out, ")");
	if (!jv_null(r, "time_to_limit_s")) {
		strbuf_addstr(out, ": the limit in about ");
		fmt_figure(out, "time_to_limit_s", json_object_get(r, "time_to_limit_s"));
		strbuf_addstr(out, " at that rate (an estimate)");
	}
}

int profile_lines(const struct report_summary *s, struct strbuf *out,
		  int (*esc)(struct strbuf *, const char *, size_t),
		  const char *open, const char *close)
{
	const json_t *r, *h, *first = NULL;
	char b[40];
	size_t i, k;
	int n = 0;

	if (!s->profile)
		return 0;
	json_array_foreach(s->profile, i, r) {
		const char *a = json_string_value(json_object_get(r, "account"));
		size_t at;

		if (!a)
			continue;
		if (jv_int(json_object_get(r, "first")))
			first = r;
		strbuf_addstr(out, open);
		summary_add_escaped(out, a, strlen(a), esc);
		ol_fmt_bytes(b, sizeof(b), jv_real(json_object_get(r, "bytes")));
		strbuf_addf(out, ": peak %s %s (", b,
			    peak_measure_label(json_string_value(json_object_get(r, "measure"))));
		summary_add_value(out, json_object_get(r, "source"), esc, "source unknown");
		strbuf_addstr(out, ")");
		at = out->len;
		strbuf_addstr(out, "; ");
		if (!peaks_account_measures(s, a, out))
			strbuf_setlen(out, at);
		row_outlook(out, r, esc);
		strbuf_addstr(out, close);
		n++;
		if (!json_array_size(json_object_get(r, "holders")))
			continue;
		strbuf_addstr(out, open);
		strbuf_addstr(out, "holders at the peak of ");
		summary_add_escaped(out, a, strlen(a), esc);
		strbuf_addstr(out, ": ");
		json_array_foreach(json_object_get(r, "holders"), k, h) {
			strbuf_addstr(out, k ? "; " : "");
			holder_name(out, h, esc);
		}
		strbuf_addstr(out, close);
	}
	if (!n)
		return 0;
	strbuf_addstr(out, open);
	strbuf_addstr(out, "runs out first: ");
	if (!first) {
		strbuf_addstr(out, "unknown (no account's capacity or limit is known)");
	} else {
		const char *a = json_string_value(json_object_get(first, "account"));
		summary_add_escaped(out, a, strlen(a), esc);
		if (!jv_null(first, "time_to_limit_s")) {
			strbuf_addstr(out, ", in about ");
			fmt_figure(out, "time_to_limit_s", json_object_get(first, "time_to_limit_s"));
			strbuf_addstr(out, " at its growth (an estimate)");
		} else {
			strbuf_addf(out, ", the least headroom left (%.1f %%); no steady growth"
				    " says when", 100 * jv_real(json_object_get(first, "headroom_share")));
		}
	}
	strbuf_addstr(out, close);
	return n;
}
