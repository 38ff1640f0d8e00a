/*
 * chart_svg.c -- the timeline section: the chart's model (chart_data.c)
 * drawn as inline SVG, one <svg> per view, with its legend. See chart.h.
 */
#include "reports/chart.h"
#include "reports/section.h"
#include "reports/html_util.h"
#include "reports/summary.h"
#include "lib/timeutil.h"
#include "lib/common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double xpix(const struct chart *c, double t)
{
	double x = (t - (double)c->t0) / (double)(c->t1 - c->t0) * (PLOT_W - 1);
	if (x < 0)
		x = 0;
	if (x > PLOT_W - 1)
		x = PLOT_W - 1;
	return ML + x + 0.5;
}

/* A "nice" step (1, 2, 2.5, 5 x 10^k) near raw. */
static double nice_step(double raw)
{
	double e, f;

	if (!(raw > 0))
		return 1;
	e = pow(10, floor(log10(raw)));
	f = raw / e;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * e;
}

/* Byte axis for span bytes of values up to vmax: the unit (1024^k, from
 * vmax, so labels read "72 GiB") and the step in that unit. */
static void byte_axis(double vmax, double span, double *unit, const char **uname, double *step)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int k = 0;

	*unit = 1;
	while (k < 5 && vmax / *unit >= 1024) {
		*unit *= 1024;
		k++;
	}
	*uname = names[k];
	*step = nice_step(span / *unit / 5);
}

/* Panel p's axis for values vmin..vmax: its bottom, top, tick step and
 * unit. Bytes start at zero unless the data stays far from it (its lowest
 * value above 30 % of its highest): then the axis fits the data, so a
 * 71 -> 75 GiB rise fills the panel instead of a flat line near its top.
 * Percentages are 0..100 (further if a value is). */
static void axis_of(struct chart *c, double vmin, double vmax, enum panel p)
{
	double unit = 1, step, lo = 0, pad;
	const char *un = "";

	if (!(vmax > 0))
		vmax = 1;
	if (!(vmin >= 0) || vmin > vmax)
		vmin = 0;
	if (p == P_PERCENT) {
		c->yunit[p] = 1;
		c->yuname[p] = "%";
		c->ystep[p] = vmax > 100 ? nice_step(vmax / 4) : 25;
		c->ymin[p] = 0;
		c->ymax[p] = vmax > 100 ? ceil(vmax / c->ystep[p]) * c->ystep[p] : 100;
		return;
	} else if (p == P_COUNT) {
		step = nice_step(vmax / 4);
		if (step < 1)
			step = 1;
	} else if (vmin > 0.3 * vmax) {
		pad = (vmax - vmin) * 0.04 + vmax * 1e-4;
		byte_axis(vmax, vmax - vmin + 2 * pad, &unit, &un, &step);
		lo = floor((vmin - pad) / (step * unit)) * step * unit;
		vmax += pad;
	} else {
		byte_axis(vmax, vmax, &unit, &un, &step);
		vmax *= 1.02;
	}
	c->yunit[p] = unit;
	c->yuname[p] = un;
	c->ystep[p] = step;
	c->ymin[p] = lo > 0 ? lo : 0;
	c->ymax[p] = ceil((p == P_COUNT ? vmax * 1.02 : vmax) / (step * unit)) * step * unit;
	if (c->ymax[p] <= c->ymin[p])
		c->ymax[p] = c->ymin[p] + step * unit;
}

static double ypix(const struct chart *c, enum panel p, double v)
{
	double h = chart_panels[p].height, y;

	y = c->top[p] + h - (v - c->ymin[p]) / (c->ymax[p] - c->ymin[p]) * h;
	if (y < c->top[p] - 2)
		y = c->top[p] - 2;
	if (y > c->top[p] + h)
		y = c->top[p] + h;
	return y;
}

/* The lowest and highest value of view's samples of each panel. */
static void view_range(const struct chart *c, int view, double *vmin, double *vmax)
{
	int k, col;

	for (k = 0; k < c->ns; k++) {
		const struct cseries *cs = &c->s[k];
		for (col = 0; cs->b[view] && col < PLOT_W; col++) {
			const struct bucket *b = &cs->b[view][col];
			if (!b->n)
				continue;
			if (!(b->min >= vmin[cs->panel]))
				vmin[cs->panel] = b->min;
			if (b->max > vmax[cs->panel])
				vmax[cs->panel] = b->max;
		}
	}
}

/* When annotation n has a leak fit over the view being drawn: 1, with the
 * part of the fit in the view in *ts..*te (ns). */
static int leak_span(const struct chart *c, const json_t *n, double *ts, double *te)
{
	double fs = chart_note(n, "fit_start"), fe = chart_note(n, "fit_end");

	if (!isfinite(chart_note(n, "slope")) || !isfinite(fs) ||
	    !isfinite(chart_note(n, "intercept")) || fs >= (double)c->t1 ||
	    (isfinite(fe) && fe <= (double)c->t0))
		return 0;
	*ts = fmax(fs, (double)c->t0);
	*te = fmin(isfinite(fe) ? fe : (double)c->t1, (double)c->t1);
	return 1;
}

/* A capacity is on the byte axis when it is not far above the data (at
 * most 4 times its highest value): a 80 GiB card over 2 GiB of data is
 * named above the plot instead of flattening the data. */
static int cap_on_axis(const struct chart *c, const struct capacity *cp, double data_max)
{
	(void)c;
	return data_max > 0 && cp->bytes < 4 * data_max;
}

/* Each panel's y axis (from view's samples, the capacities and the
 * annotations, so that they fit) and the panels' places. */
static void layout(struct chart *c, int view)
{
	double vmax[NPANEL] = { 0, 0, 0 }, vmin[NPANEL] = { NAN, NAN, NAN }, data_max;
	size_t i;
	json_t *n;
	int k, y = MT;

	view_range(c, view, vmin, vmax);
	data_max = vmax[P_BYTES];
	for (k = 0; k < c->ncap; k++)
		if (cap_on_axis(c, &c->cap[k], data_max) && c->cap[k].bytes > vmax[P_BYTES])
			vmax[P_BYTES] = c->cap[k].bytes;
	json_array_foreach(c->notes, i, n) {
		double vals[4], ts, te;
		int j;
		vals[0] = chart_note(n, "total");
		vals[1] = chart_note(n, "baseline");
		vals[2] = vals[3] = NAN;
		if (leak_span(c, n, &ts, &te)) {   /* the fit's ends in this view */
			vals[2] = chart_leak_value(n, ts);
			vals[3] = chart_leak_value(n, te);
		}
		for (j = 0; j < 4; j++) {
			if (!isfinite(vals[j]) || (data_max > 0 && vals[j] > 4 * data_max))
				continue;
			if (vals[j] > vmax[P_BYTES])
				vmax[P_BYTES] = vals[j];
			if (vals[j] < vmin[P_BYTES])
				vmin[P_BYTES] = vals[j];
		}
	}
	c->present[P_BYTES] = 1; /* markers and annotations live there */
	c->empty[P_BYTES] = !(vmax[P_BYTES] > 0);
	for (k = 0; k < NPANEL; k++) {
		axis_of(c, vmin[k], vmax[k], (enum panel)k);
		if (!c->present[k])
			continue;
		c->top[k] = y;
		y += chart_panels[k].height + PANEL_GAP;
	}
	c->height = y - PANEL_GAP + 52;
}

static int bottom_of_plots(const struct chart *c)
{
	int k, b = MT;

	for (k = 0; k < NPANEL; k++)
		if (c->present[k])
			b = c->top[k] + chart_panels[k].height;
	return b;
}

/* The x axis' tick step in seconds: a round step giving at most 8 ticks. */
static int64_t tick_step(int64_t span_s)
{
	static const int64_t steps[] = {
		1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800,
		21600, 43200, 86400, 172800, 604800, 2592000, 0
	};
	int i;

	for (i = 0; steps[i]; i++)
		if (span_s / steps[i] <= 8)
			return steps[i];
	return (span_s / 8 / 86400 + 1) * 86400;
}

/* Panel k's frame, y grid and labels, and its title. */
static void draw_y_axis(struct chart *c, struct strbuf *sb, int k)
{
	double unit = c->yunit[k], st = c->ystep[k], v;
	const char *un = c->yuname[k];
	int top = c->top[k], h = chart_panels[k].height;

	strbuf_addf(sb, "<rect x=%d y=%d width=%d height=%d class=plot />\n", ML, top, PLOT_W, h);
	if (c->empty[k]) {
		strbuf_addf(sb, "<text x=%d y=%d class=axt>no memory series in the artifacts:"
			    " events only</text>\n", ML + PLOT_W / 2, top + h / 2);
		strbuf_addf(sb, "<text x=%d y=%d class=pt>%s</text>\n", ML + 6, top + 14,
			    chart_panels[k].title);
		return;
	}
	/* ticks at round multiples of the step in the axis' binary unit */
	for (v = c->ymin[k] / unit; v <= c->ymax[k] / unit + 1e-9; v += st) {
		double y = ypix(c, (enum panel)k, v * unit);
		if (fabs(v) < st * 1e-9)
			v = 0;
		strbuf_addf(sb, "<line x1=%d x2=%d y1=%.1f y2=%.1f class=grid />", ML,
			    ML + PLOT_W, y, y);
		if (k == P_BYTES)
			strbuf_addf(sb, "<text x=%d y=%.1f class=yl>%g %s</text>\n", ML - 6,
				    y + 4, v, v == 0 ? "" : un);
		else if (k == P_COUNT)
			strbuf_addf(sb, "<text x=%d y=%.1f class=yl>%g</text>\n", ML - 6, y + 4, v);
		else
			strbuf_addf(sb, "<text x=%d y=%.1f class=yl>%g %%</text>\n", ML - 6,
				    y + 4, v);
	}
	if (c->ymin[k] > 0)   /* say it: the axis does not start at zero */
		strbuf_addf(sb, "<text x=%d y=%d class=yl>axis from %g %s</text>\n", ML + PLOT_W - 4,
			    top + h - 4, c->ymin[k] / unit, un);
	strbuf_addf(sb, "<text x=%d y=%d class=pt>%s</text>\n", ML + 6, top + 14,
		    chart_panels[k].title);
}

/* One x tick at UTC second t: grid lines over every panel, the label (a
 * date under the time when a multi-day view crosses midnight). Returns
 * the tick's day of the month. */
static int draw_x_tick(struct chart *c, struct strbuf *sb, int64_t t, int64_t step,
		       int64_t span_s, int last_day)
{
	double x = xpix(c, (double)t * NS_PER_S);
	int y, mo, d, hh, mm, ss, k, bottom = bottom_of_plots(c);
	int64_t sod = ((t % 86400) + 86400) % 86400;

	civil_from_ns(t * NS_PER_S, &y, &mo, &d);
	hh = (int)(sod / 3600);
	mm = (int)(sod / 60 % 60);
	ss = (int)(sod % 60);
	for (k = 0; k < NPANEL; k++)
		if (c->present[k])
			strbuf_addf(sb, "<line x1=%.1f x2=%.1f y1=%d y2=%d class=grid />", x, x,
				    c->top[k], c->top[k] + chart_panels[k].height);
	strbuf_addf(sb, "<line x1=%.1f x2=%.1f y1=%d y2=%d class=tick />", x, x,
		    bottom, bottom + 5);
	if (step >= 86400)
		strbuf_addf(sb, "<text x=%.1f y=%d class=xl>%02d-%02d</text>\n", x,
			    bottom + 18, mo, d);
	else if (step >= 60)
		strbuf_addf(sb, "<text x=%.1f y=%d class=xl>%02d:%02d</text>\n", x,
			    bottom + 18, hh, mm);
	else
		strbuf_addf(sb, "<text x=%.1f y=%d class=xl>%02d:%02d:%02d</text>\n", x,
			    bottom + 18, hh, mm, ss);
	if (step < 86400 && d != last_day && span_s > 86400)
		strbuf_addf(sb, "<text x=%.1f y=%d class=xl>%02d-%02d</text>\n", x,
			    bottom + 31, mo, d);
	return d;
}

/* The x axis of a view shorter than 8 s: ticks every round fraction of a
 * second, labelled as offsets from the view's start (whole seconds of the
 * clock would leave it without ticks). */
static void draw_short_x_axis(struct chart *c, struct strbuf *sb)
{
	double span = (double)(c->t1 - c->t0), v, x;
	double e = pow(10, floor(log10(span / 6))), f = span / 6 / e;
	double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * e;
	double unit = step >= 1e9 ? 1e9 : step >= 1e6 ? 1e6 : step >= 1e3 ? 1e3 : 1;
	int bottom = bottom_of_plots(c), k;
	char d0[40];

	for (v = step; v < span; v += step) {
		x = xpix(c, (double)c->t0 + v);
		for (k = 0; k < NPANEL; k++)
			if (c->present[k])
				strbuf_addf(sb, "<line x1=%.1f x2=%.1f y1=%d y2=%d class=grid />", x, x,
					    c->top[k], c->top[k] + chart_panels[k].height);
		strbuf_addf(sb, "<line x1=%.1f x2=%.1f y1=%d y2=%d class=tick />"
			    "<text x=%.1f y=%d class=xl>+%g %s</text>\n", x, x, bottom, bottom + 5, x,
			    bottom + 18, v / unit, unit == 1e9 ? "s" : unit == 1e6 ? "ms" :
			    unit == 1e3 ? "us" : "ns");
	}
	chart_fmt_time(c, c->t0, d0, sizeof(d0));
	strbuf_addf(sb, "<text x=%d y=%d class=axt>%s after %s, %.4g %s in all</text>\n",
		    ML + PLOT_W / 2, bottom + 46, c->clock == CLOCK_BOOT ? "seconds since boot"
		    " (boot clock: no UTC time known)" : "time (UTC)", d0, span >= 1e9 ? span / 1e9 : span >= 1e6 ?
		    span / 1e6 : span / 1e3, span >= 1e9 ? "s" : span >= 1e6 ? "ms" : "us");
}

/* The x axis on the boot clock: ticks at round seconds since boot,
 * labelled in seconds. */
static void draw_boot_x_axis(struct chart *c, struct strbuf *sb, int64_t step)
{
	int bottom = bottom_of_plots(c), k;
	int64_t t;
	double x;

	for (t = (c->t0 / NS_PER_S / step + 1) * step; t * NS_PER_S <= c->t1; t += step) {
		x = xpix(c, (double)t * NS_PER_S);
		for (k = 0; k < NPANEL; k++)
			if (c->present[k])
				strbuf_addf(sb, "<line x1=%.1f x2=%.1f y1=%d y2=%d class=grid />", x, x,
					    c->top[k], c->top[k] + chart_panels[k].height);
		strbuf_addf(sb, "<line x1=%.1f x2=%.1f y1=%d y2=%d class=tick />"
			    "<text x=%.1f y=%d class=xl>%lld</text>\n", x, x, bottom, bottom + 5, x,
			    bottom + 18, (long long)t);
	}
	strbuf_addf(sb, "<text x=%d y=%d class=axt>seconds since boot (boot clock: no UTC time"
		    " known) &#8212; %.3f to %.3f s</text>\n", ML + PLOT_W / 2, bottom + 46,
		    (double)c->t0 / 1e9, (double)c->t1 / 1e9);
}

/* Every present panel's y axis, then the x axis under them. */
static void draw_axes(struct chart *c, struct strbuf *sb)
{
	int64_t span_s = (c->t1 - c->t0) / NS_PER_S, step = tick_step(span_s), t;
	int k, bottom = bottom_of_plots(c), last_day = -1;
	char d0[40], d1[40];

	for (k = 0; k < NPANEL; k++)
		if (c->present[k])
			draw_y_axis(c, sb, k);
	if (span_s < 8) {
		draw_short_x_axis(c, sb);
		return;
	}
	if (c->clock == CLOCK_BOOT) {
		draw_boot_x_axis(c, sb, step);
		return;
	}
	/* x axis: ticks at round UTC times */
	for (t = (c->t0 / NS_PER_S / step + 1) * step; t * NS_PER_S <= c->t1; t += step)
		last_day = draw_x_tick(c, sb, t, step, span_s, last_day);
	format_iso8601(c->t0, d0, sizeof(d0));
	format_iso8601(c->t1, d1, sizeof(d1));
	d0[19] = d1[19] = '\0';
	d0[10] = d1[10] = ' ';
	strbuf_addf(sb, "<text x=%d y=%d class=axt>time (UTC) &#8212; %s to %s</text>\n",
		    ML + PLOT_W / 2, bottom + 46, d0, d1);
}

/* Series cs in view: one path through each pixel column's first, min,
 * max and last value; dots where there are few points. */
static void draw_series(struct chart *c, struct strbuf *sb, const struct cseries *cs, int view)
{
	const struct bucket *bk = cs->b[view];
	int col, first = 1;

	if (!bk)
		return;
	strbuf_addf(sb, "<path class=s stroke=\"%s\"%s%s%s d=\"", cs->color,
		    cs->dash ? " stroke-dasharray=\"" : "", cs->dash ? cs->dash : "",
		    cs->dash ? "\"" : "");
	for (col = 0; col < PLOT_W; col++) {
		const struct bucket *b = &bk[col];
		double x = ML + col + 0.5, yf, yl, ylo, yhi;
		if (!b->n)
			continue;
		yf = ypix(c, cs->panel, b->first);
		yl = ypix(c, cs->panel, b->last);
		ylo = ypix(c, cs->panel, b->min);
		yhi = ypix(c, cs->panel, b->max);
		strbuf_addf(sb, "%c%.1f %.1f", first ? 'M' : 'L', x, yf);
		first = 0;
		if (b->min != b->max)
			strbuf_addf(sb, "V%.1fV%.1fV%.1f", ylo, yhi, yl);
	}
	strbuf_addstr(sb, "\" />\n");
	if (cs->n_drawn[view] <= 60)   /* few points: show where the samples are */
		for (col = 0; col < PLOT_W; col++)
			if (bk[col].n)
				strbuf_addf(sb, "<circle cx=%.1f cy=%.1f r=2.2 fill=\"%s\" />",
					    ML + col + 0.5, ypix(c, cs->panel, bk[col].last),
					    cs->color);
	strbuf_addch(sb, '\n');
}

/* Capacity cp as a dashed line across the byte panel, labelled with its
 * figure (hover: where it came from); only the label when a drawn series
 * is that line; a label at the panel's top, with an arrow, when it lies
 * above the axis. row: its place among the labels (they must not meet). */
static void draw_capacity(struct chart *c, struct strbuf *sb, const struct capacity *cp, int row)
{
	char buf[32];
	double y = ypix(c, P_BYTES, cp->bytes);
	int above = cp->bytes > c->ymax[P_BYTES];

	fmt_bytes(buf, sizeof(buf), cp->bytes);
	strbuf_addstr(sb, "<g class=cap><title>");
	h_text(sb, cp->label, (size_t)-1);
	strbuf_addf(sb, " %s: ", buf);
	h_text(sb, cp->source, (size_t)-1);
	strbuf_addstr(sb, "</title>");
	if (!above && !cp->as_series)
		strbuf_addf(sb, "<line x1=%d x2=%d y1=%.1f y2=%.1f stroke=\"%s\" stroke-width=1.5"
			    " stroke-dasharray=\"8 4\" />", ML, ML + PLOT_W, y, y, cp->color);
	/* on the left, where the leak fit's and the markers' labels are not;
	 * right of the panel's title when near the top */
	if (above)
		y = c->top[P_BYTES] + 13 + 12.0 * row;
	else
		y = y - 4 - 12.0 * row;
	strbuf_addf(sb, "<text x=%d y=%.1f class=als fill=\"%s\">%s",
		    ML + (y < c->top[P_BYTES] + 22 ? 64 : 6), y, cp->color, above ? "&#8593; " : "");
	h_text(sb, cp->label, (size_t)-1);
	strbuf_addf(sb, " %s%s</text></g>\n", buf, above ? ", above the axis" : "");
}

/* Finding annotations under the series: bands first, lines on top. */
static void draw_notes(struct chart *c, struct strbuf *sb, int layer)
{
	int bottom = bottom_of_plots(c);
	size_t i;
	json_t *n;

	json_array_foreach(c->notes, i, n) {
		const char *title = json_string_value(json_object_get(n, "title"));
		double a = chart_note(n, "spike_start"), b = chart_note(n, "spike_end");
		double base = chart_note(n, "baseline"), total = chart_note(n, "total"), ts, te;
		char buf[32], buf2[32];

		if (layer == 0 && isfinite(a) && isfinite(b) && b >= a && b >= (double)c->t0 &&
		    a <= (double)c->t1) {
			double x0 = xpix(c, a), x1 = xpix(c, b);
			if (x1 - x0 < 3)
				x1 = x0 + 3;
			strbuf_addf(sb, "<g class=spike><title>spike window: ");
			h_text(sb, title, (size_t)-1);
			/* the label inside the band, or left of it at the right edge */
			strbuf_addf(sb, "</title><rect x=%.1f y=%d width=%.1f height=%d />"
				    "<text x=%.1f y=%d class=%s>spike</text></g>\n",
				    x0, MT, x1 - x0, bottom - MT,
				    x0 + 40 > ML + PLOT_W ? x0 - 3 : x0 + 3, MT + 28,
				    x0 + 40 > ML + PLOT_W ? "al" : "als");
		}
		if (layer == 0 && isfinite(base) && isfinite(total) && total > base) {
			double y0 = ypix(c, P_BYTES, total), y1 = ypix(c, P_BYTES, base);
			fmt_bytes(buf, sizeof(buf), total - base);
			fmt_bytes(buf2, sizeof(buf2), base);
			strbuf_addf(sb, "<g class=headroom><title>headroom: ");
			h_text(sb, title, (size_t)-1);
			strbuf_addf(sb, "</title><rect x=%d y=%.1f width=%d height=%.1f />"
				    "<line x1=%d x2=%d y1=%.1f y2=%.1f />"
				    "<text x=%d y=%.1f class=als>headroom %s"
				    " above baseline %s</text></g>\n",
				    ML, y0, PLOT_W, y1 - y0, ML, ML + PLOT_W, y1, y1, ML + 8,
				    y0 + (y1 - y0 < 30 ? y1 - y0 - 3 : 16), buf, buf2);
		}
		if (layer == 1 && leak_span(c, n, &ts, &te)) {
			double x0 = xpix(c, ts), x1 = xpix(c, te);
			double y0 = ypix(c, P_BYTES, chart_leak_value(n, ts));
			double y1 = ypix(c, P_BYTES, chart_leak_value(n, te));
			strbuf_addf(sb, "<g class=leak><title>leak fit: ");
			h_text(sb, title, (size_t)-1);
			strbuf_addf(sb, "</title><line x1=%.1f x2=%.1f y1=%.1f y2=%.1f />"
				    "<text x=%.1f y=%.1f class=al>leak %+.0f MiB/h</text></g>\n",
				    x0, x1, y0, y1, x1 - 4, y1 - 8, chart_note(n, "slope"));
		}
	}
}

/* A marker's label where it fits in one of the LABEL_ROWS rows above the
 * plot (row_end: where each row's last label ends); none when no row has
 * room. */
static void marker_label(struct strbuf *sb, const struct marker *m, double x, double *row_end)
{
	const struct marker_kind *mk = &marker_kinds[m->kind];
	struct strbuf label = STRBUF_INIT;
	double w, start;
	int right, r;

	strbuf_addstr(&label, mk->label);
	if (m->count > 1)
		strbuf_addf(&label, " \xc3\x97%d", m->count);
	else if (m->comm) {
		strbuf_addch(&label, ' ');
		strbuf_add(&label, m->comm, (size_t)(m->comm_len > 20 ? 20 : m->comm_len));
	}
	w = 6.0 * (double)label.len;
	right = x - 3 + w > SVG_W - 2;   /* no room: end at the marker */
	start = right ? x + 3 - w : x - 3;
	for (r = 0; r < LABEL_ROWS; r++)
		if (start > row_end[r] + 4)
			break;
	if (r < LABEL_ROWS) {
		strbuf_addf(sb, "<text x=%.1f y=%d class=\"ml%s\" fill=\"%s\">",
			    right ? x + 3 : x - 3, 12 + 11 * r, right ? " mr" : "", mk->color);
		h_text(sb, label.buf, label.len);
		strbuf_inherit(sb, &label);
		strbuf_addstr(sb, "</text>");
		row_end[r] = start + w;
	}
	strbuf_release(&label);
}

/* Markers: one per kind and pixel column, labels where they fit. */
static void draw_markers(struct chart *c, struct strbuf *sb, const struct view *v)
{
	double row_end[LABEL_ROWS] = { -1e9, -1e9, -1e9, -1e9 };
	int bottom = bottom_of_plots(c), i;

	for (i = 0; i < v->nm; i++) {
		const struct marker *m = &v->m[i];
		const struct marker_kind *mk = &marker_kinds[m->kind];
		double x = ML + (m->col < 0 ? 0 : m->col >= PLOT_W ? PLOT_W - 1 : m->col) + 0.5;
		char tbuf[40];

		chart_fmt_time(c, m->t, tbuf, sizeof(tbuf));
		strbuf_addf(sb, "<g class=mk><title>%s%s at %s", mk->kind,
			    m->count > 1 ? " (first of this pixel)" : "", tbuf);
		if (m->pid != OL_NULL)
			strbuf_addf(sb, ", pid %lld", (long long)m->pid);
		if (m->comm) {
			strbuf_addstr(sb, " (");
			h_text(sb, m->comm, (size_t)m->comm_len);
			strbuf_addstr(sb, ")");
		}
		if (m->count > 1)
			strbuf_addf(sb, "; %d events here", m->count);
		strbuf_addf(sb, "</title><line x1=%.1f x2=%.1f y1=%d y2=%d stroke=\"%s\""
			    " stroke-width=1.6%s%s%s />", x, x, MT - 4, bottom, mk->color,
			    mk->dash ? " stroke-dasharray=\"" : "", mk->dash ? mk->dash : "",
			    mk->dash ? "\"" : "");
		strbuf_addf(sb, "<path d=\"M%.1f %dl-4 -6h8z\" fill=\"%s\" />", x, MT - 4, mk->color);
		marker_label(sb, m, x, row_end);
		strbuf_addstr(sb, "</g>\n");
	}
}

/* The legend: each series with its peak, the limit, the marker kinds seen
 * and the annotations drawn. */
static void legend(const struct chart *c, struct strbuf *sb)
{
	int k;
	size_t i;
	json_t *n;

	strbuf_addstr(sb, "<ul class=legend>");
	for (k = 0; k < c->ns; k++) {
		const struct cseries *cs = &c->s[k];
		char buf[32];
		strbuf_addf(sb, "<li><svg width=26 height=10 aria-hidden=true><line x1=1 x2=25"
			    " y1=5 y2=5 stroke=\"%s\" stroke-width=2.5%s%s%s /></svg>",
			    cs->color, cs->dash ? " stroke-dasharray=\"" : "",
			    cs->dash ? cs->dash : "", cs->dash ? "\"" : "");
		h_text(sb, cs->label, (size_t)-1);   /* a name from the database for other series */
		if (cs->entity.len) {
			strbuf_addstr(sb, " <span class=ent>");
			h_text(sb, cs->entity.buf, cs->entity.len);
			strbuf_inherit(sb, &cs->entity);
			strbuf_addstr(sb, "</span>");
		}
		/* the highest of all its samples, as the header's peak is */
		if (cs->panel == P_BYTES)
			fmt_bytes(buf, sizeof(buf), cs->peak);
		else if (cs->panel == P_PERCENT)
			snprintf(buf, sizeof(buf), "%.1f %%", cs->peak);
		else
			snprintf(buf, sizeof(buf), "%g", cs->peak);
		strbuf_addstr(sb, " <span class=muted title=\"");
		h_text(sb, cs->name, (size_t)-1);
		strbuf_addf(sb, ": %lld samples, drawn as %lld pixel columns\">peak %s%s</span></li>",
			    (long long)cs->n_samples, (long long)cs->n_drawn[0], buf,
			    cs->peak_untimed ? " (time unknown: not drawn)" : "");
	}
	for (k = 0; k < c->ncap; k++) {
		char buf[32];
		if (c->cap[k].as_series)   /* its series is in the legend already */
			continue;
		fmt_bytes(buf, sizeof(buf), c->cap[k].bytes);
		strbuf_addf(sb, "<li><svg width=26 height=10 aria-hidden=true><line x1=1 x2=25"
			    " y1=5 y2=5 stroke=\"%s\" stroke-width=1.5 stroke-dasharray=\"5 3\" />"
			    "</svg>", c->cap[k].color);
		h_text(sb, c->cap[k].label, (size_t)-1);
		strbuf_addf(sb, " <span class=muted>%s (capacity)</span></li>", buf);
	}
	for (k = 0; k < NMARKER; k++)
		if (c->marker_events[k] > 0)
			strbuf_addf(sb, "<li><svg width=14 height=12 aria-hidden=true><line x1=7 x2=7"
				    " y1=0 y2=12 stroke=\"%s\" stroke-width=2%s%s%s /></svg>%s"
				    " <span class=muted>(%s)</span></li>", marker_kinds[k].color,
				    marker_kinds[k].dash ? " stroke-dasharray=\"" : "",
				    marker_kinds[k].dash ? marker_kinds[k].dash : "",
				    marker_kinds[k].dash ? "\"" : "", marker_kinds[k].label,
				    marker_kinds[k].kind);
	json_array_foreach(c->notes, i, n) {
		if (isfinite(chart_note(n, "slope")) && isfinite(chart_note(n, "fit_start")) &&
		    isfinite(chart_note(n, "intercept")))
			strbuf_addstr(sb, "<li><svg width=26 height=10 aria-hidden=true><line x1=1"
				      " x2=25 y1=9 y2=1 class=leakl /></svg>leak fit</li>");
		if (isfinite(chart_note(n, "spike_start")) && isfinite(chart_note(n, "spike_end")))
			strbuf_addstr(sb, "<li><svg width=16 height=10 aria-hidden=true><rect"
				      " width=16 height=10 class=spiker /></svg>spike window</li>");
		if (isfinite(chart_note(n, "baseline")) && isfinite(chart_note(n, "total")))
			strbuf_addstr(sb, "<li><svg width=16 height=10 aria-hidden=true><rect"
				      " width=16 height=10 class=headr /></svg>headroom</li>");
	}
	strbuf_addstr(sb, "</ul>\n");
}

/* View k as <figure><svg>...</svg> (the caller closes the figure). */
static void draw_svg(struct chart *c, struct strbuf *sb, int k, const char *label)
{
	int i;

	/* the zoom keeps the whole view's axes: the same scale, compared at a glance */
	if (k == 0) {
		c->t0 = c->v[0].t0;
		c->t1 = c->v[0].t1;
		layout(c, 0);
	}
	c->t0 = c->v[k].t0;
	c->t1 = c->v[k].t1;
	strbuf_addf(sb, "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\""
		    " role=img aria-label=\"%s\">\n", SVG_W, c->height, label);
	draw_axes(c, sb);
	draw_notes(c, sb, 0);
	for (i = 0; i < c->ncap; i++) {
		int j, row = 0;
		for (j = 0; j < i; j++)    /* labels of equal or near figures are stacked */
			row += fabs(ypix(c, P_BYTES, c->cap[j].bytes) -
				    ypix(c, P_BYTES, c->cap[i].bytes)) < 12 ||
			       (c->cap[j].bytes > c->ymax[P_BYTES] && c->cap[i].bytes > c->ymax[P_BYTES]);
		draw_capacity(c, sb, &c->cap[i], row);
	}
	for (i = 0; i < c->ns; i++)
		draw_series(c, sb, &c->s[i], k);
	draw_notes(c, sb, 1);
	draw_markers(c, sb, &c->v[k]);
	strbuf_addstr(sb, "</svg>\n");
}

/* The series not drawn, and the samples that could not be. */
static void chart_notes_below(const struct chart *c, struct strbuf *sb)
{
	if (c->n_skipped) {
		strbuf_addf(sb, "<p class=more>%d more series in the database, not drawn: ",
			    c->n_skipped);
		h_text(sb, c->skipped.buf, c->skipped.len);
		strbuf_inherit(sb, &c->skipped);
		strbuf_addstr(sb, c->n_skipped > SKIPPED_NAMED ? ", &#8230;</p>\n" : ".</p>\n");
	}
	if (c->clock == CLOCK_BOOT)
		strbuf_addstr(sb, "<p class=warn>Nothing here has a UTC time: the chart is on the boot"
			      " clock, in seconds since boot.</p>\n");
	if (c->events_off_axis > 0)
		strbuf_addf(sb, "<p class=warn>%lld OOM and kill events have no time %s and are not"
			    " marked.</p>\n", (long long)c->events_off_axis,
			    c->clock == CLOCK_BOOT ? "since boot" : "on UTC");
	chart_html_untimed(c, sb);
}

void html_timeline(struct strbuf *sb, struct report_ctx *rc, const json_t *m)
{
	struct chart *c = calloc(1, sizeof(*c));
	char t[40];

	(void)m;
	if (!c) {
		h_na(sb, "Out of memory while drawing the chart.");
		return;
	}
	if (chart_load(rc, c) < 0) {
		h_na(sb, "Nothing to draw: the database holds no time series and no OOM event"
			 " on the UTC clock or the boot clock.");
		chart_html_untimed(c, sb);
		chart_free(c);
		free(c);
		return;
	}
	rc->chart_on_boot = c->clock == CLOCK_BOOT;
	draw_svg(c, sb, 0, "timeline of memory series and OOM events");
	legend(c, sb);
	strbuf_addstr(sb, "</figure>\n");
	if (c->nviews > 1) {
		chart_fmt_time(c, c->oom, t, sizeof(t));
		strbuf_addf(sb, "<h3>The %d minutes before the first OOM event (%s)</h3>\n",
			    ZOOM_BEFORE_S / 60, t);
		draw_svg(c, sb, 1, "the minutes before the OOM");
		strbuf_addstr(sb, "<figcaption>Same series, colours and scale as above.</figcaption>"
				  "</figure>\n");
	}
	chart_notes_below(c, sb);
	chart_free(c);
	free(c);
}
