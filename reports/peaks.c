/*
 * peaks.c -- each account's peak as every report shows it, read from the
 * derived `peak` table (analyzer/derive/peak.c): the summary's "Peak
 * memory" (the headline of the account closest to what ran out), the
 * account's other measures beside it ("allocated 59.2 GiB · reserved
 * 76.9 GiB"), the other accounts' headlines, and the JSON key `peaks`.
 * Nothing here computes a peak: it picks and formats rows.
 */
#include "reports/section.h"
#include "reports/summary.h"
#include "lib/bytes.h"
#include "lib/common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The order reports pick "the peak" of an incident in, and the order of
 * the measures shown side by side; with each measure's word for people. */
static const struct {
	const char *measure;
	const char *label;
} measures[] = {
	{ "allocated", "allocated" },
	{ "reserved", "reserved" },
	{ "card_used", "card" },
	{ "cgroup_usage", "cgroup usage" },
	{ "rss", "RSS" },
	{ "pasted", "pasted" },
};

#define RANK "CASE measure WHEN 'card_used' THEN 0 WHEN 'reserved' THEN 1" \
	     " WHEN 'allocated' THEN 2 WHEN 'cgroup_usage' THEN 3 ELSE 4 END"

/* The limit's source (peak.limit_source) into out, said once for the
 * formats that put it in brackets: "host.mem_total_bytes (unit guessed)"
 * is "host.mem_total_bytes, unit guessed", so that no format writes
 * "(host.mem_total_bytes (unit guessed))". */
static void limit_words(struct strbuf *out, const char *t)
{
	const char *b = strstr(t, " (");
	size_t n = strlen(t);

	if (b && n > 2 && t[n - 1] == ')' && !strchr(b + 2, '(')) {
		strbuf_add_utf8(out, t, (size_t)(b - t));
		strbuf_addstr(out, ", ");
		strbuf_add_utf8(out, b + 2, (size_t)(t + n - 1 - (b + 2)));
	} else {
		strbuf_add_utf8(out, t, n);
	}
}

/* Every row, cards first, then cgroups, then the host; in an account its
 * headline first. (time_ns read as "time": ISO 8601 or null.) */
#define PEAKS_SQL "SELECT account, scope, device, measure, bytes, time_ns AS time, source," \
		  " series_id, artifact_id, file, limit_bytes, limit_source, headline FROM peak" \
		  " ORDER BY CASE scope WHEN 'card' THEN 0 WHEN 'memcg' THEN 1 ELSE 2 END," \
		  " account, headline DESC, " RANK ", id"

const char *peak_measure_label(const char *measure)
{
	size_t i;

	for (i = 0; measure && i < sizeof(measures) / sizeof(measures[0]); i++)
		if (!strcmp(measures[i].measure, measure))
			return measures[i].label;
	return measure ? measure : "?";
}

json_t *load_peaks(struct report_ctx *c)
{
	if (c->has_summary && c->sum.peaks)      /* read once, with the summary */
		return json_incref(c->sum.peaks);
	return r_has_table(c, "peak") ? r_rows(c, PEAKS_SQL, -1) : json_array();
}

void summary_peak_load(struct report_ctx *c, struct report_summary *s)
{
	sqlite3_stmt *st;

	if (!r_has_table(c, "peak"))
		return;
	/* the incident's peak: the headline of the account whose headline
	 * measure is closest to what runs out, the highest among equals */
	st = r_prepare(c, "SELECT account, measure, bytes, time_ns, boot_ns, source,"
			  " limit_bytes, limit_source, file FROM peak WHERE headline = 1"
			  " ORDER BY " RANK ", bytes DESC, id LIMIT 1");
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *t;

		s->has_peak = 1;
		if ((t = (const char *)sqlite3_column_text(st, 0)))
			strbuf_add_utf8(&s->peak_account, t, strlen(t));
		if ((t = (const char *)sqlite3_column_text(st, 1)))
			strbuf_add_utf8(&s->peak_measure, t, strlen(t));
		s->peak_bytes = sqlite3_column_double(st, 2);
		s->peak_ns = sqlite3_column_type(st, 3) == SQLITE_NULL ? OL_NULL
								   : sqlite3_column_int64(st, 3);
		s->peak_untimed = s->peak_ns == OL_NULL && sqlite3_column_type(st, 4) == SQLITE_NULL;
		if ((t = (const char *)sqlite3_column_text(st, 5)))
			strbuf_add_utf8(&s->peak_series, t, strlen(t));
		if (sqlite3_column_type(st, 6) != SQLITE_NULL && sqlite3_column_double(st, 6) > 0) {
			s->limit_bytes = sqlite3_column_double(st, 6);
			if ((t = (const char *)sqlite3_column_text(st, 7)))
				limit_words(&s->limit_what, t);
		}
		if ((t = (const char *)sqlite3_column_text(st, 8)))
			strbuf_add_utf8(&s->peak_file, t, strlen(t));
	}
	sqlite3_finalize(st);
	s->peaks = r_rows(c, PEAKS_SQL, -1);
}

/* The row of s->peaks for account and measure, or NULL. */
static const json_t *find_row(const struct report_summary *s, const char *account,
			      const char *measure)
{
	size_t i;
	const json_t *r;

	json_array_foreach(s->peaks, i, r) {
		const char *a = json_string_value(json_object_get(r, "account"));
		const char *m = json_string_value(json_object_get(r, "measure"));
		if (a && m && !strcmp(a, account) && !strcmp(m, measure))
			return r;
	}
	return NULL;
}

int peaks_side_by_side(const struct report_summary *s, struct strbuf *out)
{
	return s->peak_account.len ? peaks_account_measures(s, s->peak_account.buf, out) : 0;
}

int peaks_account_measures(const struct report_summary *s, const char *account,
			   struct strbuf *out)
{
	const json_t *row[sizeof(measures) / sizeof(measures[0])];
	char buf[64];
	size_t i;
	int n = 0, shown = 0;

	if (!s->peaks)
		return 0;
	for (i = 0; i < sizeof(measures) / sizeof(measures[0]); i++)
		if ((row[i] = find_row(s, account, measures[i].measure)))
			n++;
	if (n < 2)
		return 0;
	for (i = 0; i < sizeof(measures) / sizeof(measures[0]); i++) {
		if (!row[i])
			continue;
		ol_fmt_bytes(buf, sizeof(buf), jv_real(json_object_get(row[i], "bytes")));
		strbuf_addf(out, "%s%s %s", shown++ ? " \xc2\xb7 " : "", measures[i].label, buf);
	}
	return 1;
}

int peaks_other_accounts(const struct report_summary *s, struct strbuf *out,
			 int (*escape)(struct strbuf *, const char *, size_t))
{
	char buf[64];
	size_t i;
	const json_t *r;
	int shown = 0;

	if (!s->peaks)
		return 0;
	json_array_foreach(s->peaks, i, r) {
		const char *a = json_string_value(json_object_get(r, "account"));
		const char *src = json_string_value(json_object_get(r, "source"));

		if (!a || !jv_int(json_object_get(r, "headline")) ||
		    (s->peak_account.len && !strcmp(a, s->peak_account.buf)))
			continue;
		ol_fmt_bytes(buf, sizeof(buf), jv_real(json_object_get(r, "bytes")));
		strbuf_addstr(out, shown++ ? "; " : "");
		summary_add_escaped(out, a, strlen(a), escape);
		strbuf_addf(out, " %s (%s, ", buf,
			    peak_measure_label(json_string_value(json_object_get(r, "measure"))));
		if (src)
			summary_add_escaped(out, src, strlen(src), escape);
		strbuf_addstr(out, ")");
	}
	return shown;
}
