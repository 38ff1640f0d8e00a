/*
 * chart.h -- the report's timeline chart: its model (struct chart, loaded
 * by chart_data.c) and its drawing as inline SVG (chart_svg.c).
 *
 * Every series shares one time axis, in up to three stacked panels:
 * bytes (GPU used/total, allocator allocated/reserved, RSS, cgroup usage,
 * with each capacity the ledger knows: a card's total, the cgroup limit,
 * RAM), requests (running/waiting/swapped) and KV-cache usage in percent
 * (series in "ratio" units scaled by 100). The byte axis starts near the
 * data's lowest value when the data stays far from zero, so a 71 -> 75 GiB
 * leak is visible. OOM and kill events are vertical markers over all
 * panels; findings add their annotations from finding.figures (docs/json.md,
 * "Chart annotations"): a leak's fitted slope, a spike's window, the
 * headroom between baseline and total. A long incident gets a second view,
 * the minutes before the first OOM, on the same scale.
 *
 * The axis is UTC when anything drawn has a UTC time; else, when the
 * incident is only on the boot clock (a dmesg without wall-clock times),
 * it is the boot clock (seconds since boot) and the chart says so.
 * Samples with no time on the axis' clock are never placed on it: they are
 * listed apart, under the chart ("time unknown").
 *
 * Bounded model: each series is reduced, in one pass over its samples, to
 * PLOT_W pixel columns per view holding the first, min, max and last value
 * of the samples that fall in them (M4 downsampling), so a million samples
 * draw as at most 4 * PLOT_W points and no peak is lost; markers are
 * grouped per pixel column and kind. The database keeps every row.
 */
#ifndef OOMLENS_CHART_H
#define OOMLENS_CHART_H

#include <jansson.h>
#include <stdint.h>

#include "lib/strbuf.h"

struct report_ctx;

#define PLOT_W 900           /* pixel columns of the plot */
#define ML 74                /* left margin: y labels */
#define MR 26
#define MT 60                /* top: 4 rows of marker labels */
#define LABEL_ROWS 4
#define SVG_W (ML + PLOT_W + MR)
#define PANEL_GAP 34
#define MAX_SERIES 16
#define ZOOM_BEFORE_S (15 * 60)  /* the zoom: 15 minutes before the first OOM */
#define ZOOM_AFTER_S 60
#define NVIEWS 2                 /* the whole incident; the minutes before the OOM */
#define SKIPPED_NAMED 8          /* series not drawn that are named */

enum panel { P_BYTES, P_COUNT, P_PERCENT, NPANEL };

/* The clock of the time axis: which column of sample and event it reads. */
enum chart_clock { CLOCK_UTC, CLOCK_BOOT };

struct chart_panel {
	const char *title;
	int height;
	int max_series;
};
extern const struct chart_panel chart_panels[NPANEL];

/* Event kinds drawn as markers. */
struct marker_kind {
	const char *kind, *color, *dash, *label;
};
#define NMARKER 5
extern const struct marker_kind marker_kinds[NMARKER];

struct bucket {
	double first, min, max, last;
	int n;
};

struct cseries {
	int64_t id;
	char name[64];
	char words[96];               /* the name for people (series_label) */
	struct strbuf entity;         /* raw, escaped on output */
	enum panel panel;
	const char *color, *dash, *label;
	double scale;                 /* drawn value = stored value * scale (ratio -> %) */
	int64_t n_samples;            /* in the whole view */
	double vmax;                  /* highest drawn value, NAN */
	double peak;                  /* highest of all its samples, any time (scaled), NAN */
	int peak_untimed;             /* ... and that sample has no time on the axis' clock */
	int64_t tmin, tmax;
	struct bucket *b[NVIEWS];     /* PLOT_W each */
	int64_t n_drawn[NVIEWS];      /* pixel columns with samples */
};

/* The events of one kind in one pixel column of a view. */
struct marker {
	int kind;                     /* index in marker_kinds */
	int col, count;
	int64_t t;                    /* the first one's time */
	int64_t pid;                  /* the lowest pid, OL_NULL */
	char *comm;                   /* the lowest comm, raw; NULL when none */
	int comm_len;
};

struct view {
	int64_t t0, t1;
	struct marker *m;
	int nm;
};

/* A capacity drawn as a labelled horizontal line in the byte panel. */
#define MAX_CAPS 4
struct capacity {
	char label[96];               /* "GPU gpu0 capacity", "cgroup limit", "RAM" (raw) */
	char source[160];             /* where the figure came from (raw) */
	double bytes;
	const char *color;
	int as_series;                /* a drawn series is that line already */
};

/* A series with samples that have no time on the axis' clock. */
#define MAX_UNTIMED 20
struct untimed {
	char name[64];
	struct strbuf entity;         /* raw */
	const char *unit;             /* "bytes", "%", "" (static) */
	double scale;
	int64_t n, n_other;           /* samples; of those, with a time on the other clock */
	double vmax;                  /* highest (scaled) */
};

struct chart {
	struct cseries s[MAX_SERIES];
	int ns;
	int n_skipped;                 /* series with samples not drawn */
	struct strbuf skipped;         /* the first SKIPPED_NAMED names (raw) */
	struct view v[NVIEWS];
	int nviews;                    /* 1, or 2 with the zoom */
	int64_t oom;                   /* the OOM's time, row 1 of table oom (clamped), OL_NULL */
	int64_t marker_events[NMARKER];  /* events on the axis' clock of each marker kind */
	enum chart_clock clock;
	const char *tcol;              /* "time_ns" or "boot_ns" */
	int64_t events_off_axis;       /* marker events with no time on the axis' clock */
	struct untimed u[MAX_UNTIMED]; /* the series with samples of unknown time */
	int nu;
	int64_t untimed_series;        /* their number, past MAX_UNTIMED too */
	struct capacity cap[MAX_CAPS];
	int ncap;
	json_t *notes;                 /* finding annotations: [{...}] */
	/* the view being drawn (chart_svg.c) */
	int64_t t0, t1;
	double ymin[NPANEL], ymax[NPANEL];  /* each panel's y axis */
	double ystep[NPANEL], yunit[NPANEL];
	int empty[NPANEL];             /* a panel drawn with nothing on its y axis */
	const char *yuname[NPANEL];
	int top[NPANEL], present[NPANEL];
	int height;
};

/* Load the chart of c's database into ch (zeroed by the caller): the
 * clock of its axis, the series to draw, bucketed for every view, the
 * markers, the annotations (from the findings model), the capacities, the
 * samples of unknown time and the counts the legend and notes give.
 * Returns 0, or -1 when there is nothing to draw (no series and no OOM
 * event on either clock; the samples of unknown time are loaded even
 * then). Free with chart_free in either case. */
int chart_load(struct report_ctx *c, struct chart *ch);
void chart_free(struct chart *ch);

/* chart_side.c: the capacity lines of the byte panel (the ledger's
 * capacities, else the meta keys), and the series whose samples have no
 * time on the column ch->tcol names, into ch->cap and ch->u. */
void chart_load_capacities(struct report_ctx *c, struct chart *ch);
void chart_load_untimed(struct report_ctx *c, struct chart *ch);
/* The scale that puts a series of unit `unit` on its panel (ratio -> %). */
double chart_unit_scale(const char *unit);
/* The samples of unknown time as an HTML table (nothing when none). */
void chart_html_untimed(const struct chart *ch, struct strbuf *sb);
/* Time t on ch's clock for people: ISO 8601 UTC, or "boot+12.345 s". */
void chart_fmt_time(const struct chart *ch, int64_t t, char *buf, size_t n);

/* An annotation's figure, NAN when absent. */
double chart_note(const json_t *n, const char *k);
/* The leak fit's value at time t (ns). */
double chart_leak_value(const json_t *n, double t);

#endif
