/*
 * chart.h -- the report's timeline chart: its model (struct chart, loaded
 * by chart_data.c) and its drawing as inline SVG (chart_svg.c).
 *
 * Every series shares one UTC time axis, in up to three stacked panels:
 * bytes (GPU used/total, allocator allocated/reserved, RSS, cgroup usage,
 * with the cgroup limit), requests (running/waiting/swapped) and KV-cache
 * usage (0..100 %). OOM and kill events are vertical markers over all
 * panels; findings add their annotations from finding.figures (docs/json.md,
 * "Chart annotations"): a leak's fitted slope, a spike's window, the
 * headroom between baseline and total. A long incident gets a second view,
 * the minutes before the first OOM, on the same scale.
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

enum panel { P_BYTES, P_COUNT, P_RATIO, NPANEL };

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
	struct strbuf entity;         /* raw, escaped on output */
	enum panel panel;
	const char *color, *dash, *label;
	int64_t n_samples;            /* in the whole view */
	double vmax;
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

struct chart {
	struct cseries s[MAX_SERIES];
	int ns;
	int n_skipped;                 /* series with samples not drawn */
	struct strbuf skipped;         /* the first SKIPPED_NAMED names (raw) */
	struct view v[NVIEWS];
	int nviews;                    /* 1, or 2 with the zoom */
	int64_t oom;                   /* the first marker's time (clamped), OL_NULL */
	int64_t marker_events[NMARKER];  /* events on UTC of each marker kind */
	int64_t untimed;               /* samples not on UTC */
	double limit_bytes;            /* cgroup.max_bytes, NAN */
	json_t *notes;                 /* finding annotations: [{...}] */
	/* the view being drawn (chart_svg.c) */
	int64_t t0, t1;
	double ymax[NPANEL];           /* top of each panel's y axis */
	double ystep[NPANEL], yunit[NPANEL];
	int empty[NPANEL];             /* a panel drawn with nothing on its y axis */
	const char *yuname[NPANEL];
	int top[NPANEL], present[NPANEL];
	int height;
};

/* Load the chart of c's database into ch (zeroed by the caller): the
 * series to draw, bucketed for every view, the markers, the annotations
 * (from the findings model) and the counts the legend and notes give.
 * Returns 0, or -1 when there is nothing to draw (no series and no OOM on
 * UTC). Free with chart_free in either case. */
int chart_load(struct report_ctx *c, struct chart *ch);
void chart_free(struct chart *ch);

/* An annotation's figure, NAN when absent. */
double chart_note(const json_t *n, const char *k);
/* The leak fit's value at time t (ns). */
double chart_leak_value(const json_t *n, double t);

#endif
