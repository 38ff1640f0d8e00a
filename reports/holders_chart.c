/*
 * holders_chart.c -- the Active Memory Timeline of one device: the live
 * bytes of the top holders at the peak, stacked, over the trace (its time
 * when every entry has one, else its order), as inline SVG with a legend.
 * The axis spans the trace itself: a trace of 0.25 s fills the width, and
 * its ticks are in milliseconds. Each of the HD_COLS columns shows its own
 * peak, so the highest column is the trace's peak.
 */
#include "reports/holders.h"
#include "reports/html_util.h"
#include "reports/summary.h"
#include "analyzer/store/query.h"
#include "lib/timeutil.h"
#include "lib/common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define TW 900               /* plot width */
#define TH 200               /* plot height */
#define TL 74                /* left margin */
#define TT 10                /* top margin */
#define MAX_BANDS 9

static const char *const colors[MAX_BANDS] = {
	"#3b5b92", "#d9822b", "#2a8a3e", "#b3261e", "#7a3fa0", "#0f8b8d", "#c2185b", "#8a4a1f",
	"#b7bcc6",
};

json_t *holders_timeline_load(struct report_ctx *c, int64_t snap, int64_t device)
{
	sqlite3_stmt *st;
	json_t *bands, *cols, *col = NULL;
	int64_t last = -1;

	if (!r_has_table(c, "holder_timeline"))
		return NULL;
	st = r_prepare(c, "SELECT t.col, t.seq, t.time_ns, t.holder_id, t.bytes, h.rank, h.label"
		       " FROM holder_timeline t LEFT JOIN holder h ON h.id = t.holder_id"
		       " WHERE t.snapshot_id = ? AND t.device = ?"
		       " ORDER BY t.col, h.rank IS NULL, h.rank");
	if (!st)
		return NULL;
	sqlite3_bind_int64(st, 1, snap);
	sqlite3_bind_int64(st, 2, device);
	bands = json_array();
	cols = json_array();
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t k = sqlite3_column_int64(st, 0);
		if (k != last) {
			col = json_pack("{s:o, s:o, s:[]}", "seq", q_json(st, 1), "time_ns", q_json(st, 2),
					"bytes");
			json_array_append_new(cols, col);
			last = k;
		}
		if (json_array_size(cols) == 1 && json_array_size(bands) < MAX_BANDS)
			json_array_append_new(bands, json_pack("{s:o, s:o, s:o}", "holder_id",
				q_json(st, 3), "rank", q_json(st, 5), "label", q_json(st, 6)));
		json_array_append_new(json_object_get(col, "bytes"), q_json(st, 4));
	}
	sqlite3_finalize(st);
	if (!json_array_size(cols)) {
		json_decref(bands);
		json_decref(cols);
		return NULL;
	}
	return json_pack("{s:o, s:o}", "bands", bands, "cols", cols);
}

/* A round step (1, 2, 5 x 10^k) giving at most 8 ticks over span. */
static double round_step(double span)
{
	double e, f;

	if (!(span > 0))
		return 1;
	e = pow(10, floor(log10(span / 6)));
	f = span / 6 / e;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * e;
}

/* "+0.25 s", "+12 ms", "+40 us" for an offset of ns from the axis'
 * start, given the tick step. */
static void fmt_offset(char *buf, size_t n, double ns, double step)
{
	if (step >= 1e9)
		snprintf(buf, n, "+%g s", ns / 1e9);
	else if (step >= 1e6)
		snprintf(buf, n, "+%g ms", ns / 1e6);
	else
		snprintf(buf, n, "+%g us", ns / 1e3);
}

/* The x axis: ticks over time (offsets from the trace's first event) or
 * over trace indexes, and its title. */
static void x_axis(struct strbuf *sb, const json_t *rp, int time_axis)
{
	int64_t from = jv_int(json_object_get(rp, "axis_from"));
	int64_t to = jv_int(json_object_get(rp, "axis_to"));
	/* the difference in integers: times of 1.7e18 ns lose 256 ns as doubles */
	double x0 = (double)from, span = (double)(to - from) + (time_axis ? 0 : 1);
	double step = round_step(span), v;
	char buf[48];

	for (v = 0; span > 0 && v <= span + 1e-9 && step > 0; v += step) {
		double x = TL + v / span * TW;
		if (time_axis)
			fmt_offset(buf, sizeof(buf), v, step);
		else
			snprintf(buf, sizeof(buf), "%.0f", x0 + v);
		strbuf_addf(sb, "<line x1=%.1f x2=%.1f y1=%d y2=%d class=tick />"
			    "<text x=%.1f y=%d class=xl>%s</text>\n", x, x, TT + TH, TT + TH + 5, x,
			    TT + TH + 18, buf);
	}
	if (time_axis) {
		char t0[40];
		format_iso8601(from, t0, sizeof(t0));
		fmt_offset(buf, sizeof(buf), span, span);
		strbuf_addf(sb, "<text x=%d y=%d class=axt>time after the trace's first event (%s),"
			    " %s in all</text>\n", TL + TW / 2, TT + TH + 36, t0, buf + 1);
	} else {
		strbuf_addf(sb, "<text x=%d y=%d class=axt>trace event (the trace has no times)"
			    "</text>\n", TL + TW / 2, TT + TH + 36);
	}
}

/* The y axis up to ymax bytes: grid and labels, in steps of a round
 * number of KiB, MiB, GiB... */
static void y_axis(struct strbuf *sb, double ymax)
{
	double unit = 1, step, v;
	char buf[32];

	while (unit < 1e18 && ymax / unit >= 1024)
		unit *= 1024;
	step = round_step(ymax / unit * 6 / 5) * unit;

	for (v = 0; v <= ymax + 1e-6; v += step) {
		double y = TT + TH - v / ymax * TH;
		fmt_bytes(buf, sizeof(buf), v);
		strbuf_addf(sb, "<line x1=%d x2=%d y1=%.1f y2=%.1f class=grid />"
			    "<text x=%d y=%.1f class=yl>%s</text>\n", TL, TL + TW, y, y, TL - 6, y + 4,
			    v ? buf : "0");
	}
}

/* Band k stacked on the bands below it: a step path over the columns. */
static void band_path(struct strbuf *sb, const json_t *cols, size_t k, double ymax,
		      const char *color, const json_t *band)
{
	size_t n = json_array_size(cols), c, j;
	double w = (double)TW / (double)n;

	strbuf_addf(sb, "<path fill=\"%s\" fill-opacity=.85 d=\"", color);
	for (c = 0; c < n; c++) {       /* the top edge, left to right */
		const json_t *b = json_object_get(json_array_get(cols, c), "bytes");
		double top = 0;
		for (j = 0; j <= k; j++)
			top += jv_real(json_array_get(b, j));
		strbuf_addf(sb, "%c%.1f %.1fH%.1f", c ? 'L' : 'M', TL + c * w,
			    TT + TH - top / ymax * TH, TL + (c + 1) * w);
	}
	for (c = n; c-- > 0;) {        /* the bottom edge, right to left */
		const json_t *b = json_object_get(json_array_get(cols, c), "bytes");
		double bottom = 0;
		for (j = 0; j < k; j++)
			bottom += jv_real(json_array_get(b, j));
		strbuf_addf(sb, "L%.1f %.1fH%.1f", TL + (c + 1) * w, TT + TH - bottom / ymax * TH,
			    TL + c * w);
	}
	strbuf_addstr(sb, "Z\"><title>");
	if (jv_null(band, "label"))
		strbuf_addstr(sb, "every other holder");
	else
		h_key(sb, band, "label");
	strbuf_addstr(sb, "</title></path>\n");
}

void html_holders_timeline(struct strbuf *sb, const json_t *m, const json_t *d)
{
	const json_t *tl = json_object_get(d, "timeline"), *cols = json_object_get(tl, "cols");
	const json_t *bands = json_object_get(tl, "bands"), *rp, *band;
	int64_t dev = jv_int(json_object_get(d, "device"));
	double ymax = 0;
	size_t c, k;
	int time_axis;

	if (!json_array_size(cols) || !(rp = holders_replay_of(m, dev)))
		return;
	time_axis = json_string_value(json_object_get(rp, "axis")) &&
		    !strcmp(json_string_value(json_object_get(rp, "axis")), "time");
	for (c = 0; c < json_array_size(cols); c++) {
		const json_t *b = json_object_get(json_array_get(cols, c), "bytes");
		double t = 0;
		for (k = 0; k < json_array_size(b); k++)
			t += jv_real(json_array_get(b, k));
		if (t > ymax)
			ymax = t;
	}
	ymax = ymax > 0 ? ymax * 1.05 : 1;
	strbuf_addf(sb, "<p class=sub>Active Memory Timeline of cuda:%lld: the top holders at the"
		    " peak, stacked</p>\n<figure><svg xmlns=\"http://www.w3.org/2000/svg\""
		    " viewBox=\"0 0 %d %d\" role=img aria-label=\"active memory timeline\">\n"
		    "<rect x=%d y=%d width=%d height=%d class=plot />\n", (long long)dev,
		    TL + TW + 26, TT + TH + 46, TL, TT, TW, TH);
	y_axis(sb, ymax);
	json_array_foreach(bands, k, band)
		band_path(sb, cols, k, ymax, k + 1 == json_array_size(bands) && jv_null(band, "label")
			  ? colors[MAX_BANDS - 1] : colors[k % (MAX_BANDS - 1)], band);
	x_axis(sb, rp, time_axis);
	strbuf_addstr(sb, "</svg><ul class=legend>");
	json_array_foreach(bands, k, band) {
		strbuf_addf(sb, "<li><svg width=14 height=10 aria-hidden=true><rect width=14"
			    " height=10 fill=\"%s\" /></svg>", k + 1 == json_array_size(bands) &&
			    jv_null(band, "label") ? colors[MAX_BANDS - 1] : colors[k % (MAX_BANDS - 1)]);
		if (jv_null(band, "label"))
			strbuf_addstr(sb, "every other holder");
		else
			h_key(sb, band, "label");
		strbuf_addstr(sb, "</li>");
	}
	strbuf_addstr(sb, "</ul></figure>\n");
}
