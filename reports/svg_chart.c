/*
 * svg_chart.c -- the report's timeline chart, drawn as inline SVG.
 *
 * Every series shares one UTC time axis, in up to three stacked panels:
 * bytes (GPU used/total, allocator allocated/reserved, RSS, cgroup usage,
 * with the cgroup limit), requests (running/waiting/swapped) and KV-cache
 * usage (0..100 %). OOM and kill events are vertical markers over all
 * panels; findings add their annotations from finding.figures (docs/json.md,
 * "Chart annotations"): a leak's fitted slope, a spike's window, the
 * headroom between baseline and total.
 *
 * Bounded output: each series is reduced to PLOT_W pixel columns holding
 * the first, min, max and last value of the samples that fall in them (M4
 * downsampling), so a million samples draw as at most 4 * PLOT_W points
 * and no peak is lost; markers are grouped per pixel column and kind.
 * The database keeps every row.
 */
#include "reports/html_util.h"
#include "analyzer/store/query.h"
#include "reports/summary.h"
#include "lib/timeutil.h"
#include "lib/common.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

enum panel { P_BYTES, P_COUNT, P_RATIO, NPANEL };

static const struct {
	const char *title;
	int height;
	int max_series;
} panels[NPANEL] = {
	{ "memory", 290, 10 },
	{ "requests in flight", 120, 4 },
	{ "KV-cache usage", 96, 2 },
};

/* Series drawn, in the order of drawing, and their look. */
static const struct {
	const char *name;
	enum panel panel;
	const char *color;
	const char *dash;    /* NULL = solid */
	const char *label;
} known[] = {
	{ "gpu.used_bytes", P_BYTES, "#1f5fa8", NULL, "GPU used" },
	{ "gpu.total_bytes", P_BYTES, "#1f5fa8", "6 3", "GPU total" },
	{ "torch.reserved_bytes", P_BYTES, "#e07b00", NULL, "allocator reserved" },
	{ "torch.allocated_bytes", P_BYTES, "#2a8a3e", NULL, "allocator allocated" },
	{ "cgroup.current_bytes", P_BYTES, "#8a4a1f", NULL, "cgroup usage" },
	{ "proc.rss_bytes", P_BYTES, "#7a3fa0", NULL, "process RSS" },
	{ "server.running", P_COUNT, "#0f8b8d", NULL, "running" },
	{ "server.waiting", P_COUNT, "#b8860b", NULL, "waiting" },
	{ "server.swapped", P_COUNT, "#777777", "4 2", "swapped" },
	{ "server.gpu_kv_usage", P_RATIO, "#c2185b", NULL, "GPU KV cache" },
	{ "server.cpu_kv_usage", P_RATIO, "#777777", "4 2", "CPU KV cache" },
};
#define NKNOWN (sizeof(known) / sizeof(known[0]))

/* For other entities of a known name, and other byte series. */
static const char *const palette[] = {
	"#4c9be8", "#f2a33a", "#59b36b", "#b07ad6", "#c0825a", "#3fb8b8",
	"#d6604d", "#8c8c3a",
};

/* Event kinds drawn as markers. */
static const struct {
	const char *kind, *color, *dash, *label;
} marker_kinds[] = {
	{ "oom_kill", "#c00000", NULL, "OOM kill" },
	{ "userspace_kill", "#c00000", "2 2", "userspace kill" },
	{ "oom_invoked", "#e07000", "5 3", "oom-killer" },
	{ "torch_oom", "#7b2fa0", NULL, "torch OOM" },
	{ "cuda_exception", "#6b3e26", "7 2 2 2", "CUDA exception" },
};
#define NMARKER (sizeof(marker_kinds) / sizeof(marker_kinds[0]))

struct bucket {
	double first, min, max, last;
	int n;
};

struct cseries {
	int64_t id;
	char name[64];
	struct strbuf entity;   /* raw, escaped on output */
	enum panel panel;
	const char *color, *dash, *label;
	int64_t n_samples, n_drawn;
	double vmax;
	int64_t tmin, tmax;
	struct bucket *b;       /* PLOT_W */
};

struct chart {
	sqlite3 *db;
	struct cseries s[MAX_SERIES];
	int ns;
	int n_skipped;                 /* series with samples not drawn */
	struct strbuf skipped;         /* their names (raw) */
	int64_t t0, t1;
	double ymax[NPANEL];           /* top of each panel's y axis */
	double ystep[NPANEL], yunit[NPANEL];
	int empty[NPANEL];             /* a panel drawn with nothing on its y axis */
	const char *yuname[NPANEL];
	int top[NPANEL], present[NPANEL];
	int height;
	double limit_bytes;            /* cgroup.max_bytes, NAN */
	json_t *notes;                 /* finding annotations: [{...}] */
};

static int known_index(const char *name)
{
	size_t i;

	for (i = 0; i < NKNOWN; i++)
		if (!strcmp(known[i].name, name))
			return (int)i;
	return -1;
}

static int ends(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

struct cand {
	int64_t id;
	char *name, *entity;
};

/* 1 when series id has a sample on the UTC clock (an index seek). */
static int has_timed_samples(sqlite3_stmt *ex, int64_t id)
{
	int r;

	sqlite3_reset(ex);
	sqlite3_bind_int64(ex, 1, id);
	r = sqlite3_step(ex) == SQLITE_ROW;
	return r;
}

/* Pick the series to draw: the known ones first (in table order), then
 * other byte series, at most panels[].max_series per panel. The series
 * list is read once (capped at MAX_CAND); samples are only touched by an
 * index seek per candidate here, and once per drawn series when bucketing. */
#define MAX_CAND 20000
static void pick_series(struct chart *c)
{
	sqlite3_stmt *st = q_prepare(c->db, "SELECT id, name, entity FROM series"
					    " ORDER BY name, entity LIMIT 20000");
	sqlite3_stmt *ex = q_prepare(c->db, "SELECT 1 FROM sample WHERE series_id = ?"
					    " AND time_ns IS NOT NULL LIMIT 1");
	struct cand *cv = NULL;
	int per_panel[NPANEL] = { 0 }, used_colors = 0, pass, nc = 0, i;

	if (!st || !ex)
		goto out;
	cv = calloc(MAX_CAND, sizeof(*cv));
	if (!cv)
		goto out;
	while (nc < MAX_CAND && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *ent = (const char *)sqlite3_column_text(st, 2);
		if (!name)
			continue;
		cv[nc].id = sqlite3_column_int64(st, 0);
		cv[nc].name = strdup(name);
		cv[nc].entity = strdup(ent ? ent : "");
		if (!cv[nc].name || !cv[nc].entity) {
			free(cv[nc].name);
			free(cv[nc].entity);
			break;
		}
		nc++;
	}
	/* two passes: known names in table order, then other byte series */
	for (pass = 0; pass < 2; pass++) {
		int k;
		for (k = 0; k < (pass ? 1 : (int)NKNOWN); k++) {
			for (i = 0; i < nc; i++) {
				const char *name = cv[i].name, *ent = cv[i].entity;
				int ki = known_index(name);
				enum panel p;
				struct cseries *cs;
				int same = 0, j;

				if (pass == 0 && ki != k)
					continue;
				if (pass == 1 && (ki >= 0 || !ends(name, "_bytes") ||
						  !strcmp(name, "gpu.free_bytes")))
					continue;
				if (!has_timed_samples(ex, cv[i].id))
					continue;
				p = pass == 0 ? known[ki].panel : P_BYTES;
				if (c->ns == MAX_SERIES || per_panel[p] == panels[p].max_series) {
					if (c->n_skipped < 8) {
						if (c->skipped.len)
							strbuf_addstr(&c->skipped, ", ");
						strbuf_add_utf8(&c->skipped, name, strlen(name));
						if (*ent) {
							strbuf_addch(&c->skipped, ' ');
							strbuf_add_utf8(&c->skipped, ent, strlen(ent));
						}
					}
					c->n_skipped++;
					continue;
				}
				cs = &c->s[c->ns];
				for (j = 0; j < c->ns; j++)
					same += !strcmp(c->s[j].name, name);
				cs->id = cv[i].id;
				snprintf(cs->name, sizeof(cs->name), "%s", name);
				strbuf_init(&cs->entity);
				strbuf_add_utf8(&cs->entity, ent, strlen(ent));
				cs->panel = p;
				cs->vmax = NAN;        /* set by the first bucketing */
				if (pass == 0 && !same) {
					cs->color = known[ki].color;
				} else {
					cs->color = palette[used_colors % 8];
					used_colors++;
				}
				cs->dash = pass == 0 ? known[ki].dash : NULL;
				cs->label = pass == 0 ? known[ki].label : cs->name;
				c->ns++;
				per_panel[p]++;
				c->present[p] = 1;
			}
		}
	}
out:
	for (i = 0; i < nc; i++) {
		free(cv[i].name);
		free(cv[i].entity);
	}
	free(cv);
	sqlite3_finalize(st);
	sqlite3_finalize(ex);
}

static int marker_kind(const char *k)
{
	size_t i;

	for (i = 0; k && i < NMARKER; i++)
		if (!strcmp(marker_kinds[i].kind, k))
			return (int)i;
	return -1;
}

#define MARKER_KINDS "('oom_kill', 'userspace_kill', 'oom_invoked', 'torch_oom', 'cuda_exception')"

static double fig(json_t *f, const char *a, const char *b)
{
	json_t *v = json_object_get(f, a);

	if (!v && b)
		v = json_object_get(f, b);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Finding annotations: load the figures the chart understands. */
static void load_notes(struct chart *c)
{
	sqlite3_stmt *st = q_prepare(c->db, "SELECT id, class, figures, title FROM finding"
					    " ORDER BY score DESC, id LIMIT 20");

	c->notes = json_array();
	if (!st)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *f = NULL, *n;
		struct strbuf title = STRBUF_INIT;

		if (sqlite3_column_type(st, 2) == SQLITE_TEXT)
			f = json_loads((const char *)sqlite3_column_text(st, 2), 0, NULL);
		if (!json_is_object(f)) {
			json_decref(f);
			continue;
		}
		col_text(&title, st, 3);
		{
			static const char *const keys[][3] = {
				{ "slope", "slope_mb_per_hour", NULL },
				{ "fit_start", "fit_start_time_ns", "fit_start_ns" },
				{ "fit_end", "fit_end_time_ns", "fit_end_ns" },
				{ "intercept", "intercept_bytes", NULL },
				{ "spike_start", "spike_start_ns", "spike_start_time_ns" },
				{ "spike_end", "spike_end_ns", "spike_end_time_ns" },
				{ "baseline", "baseline_bytes", NULL },
				{ "total", "total_bytes", NULL },
			};
			size_t i;
			n = json_object();
			for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
				double d = fig(f, keys[i][1], keys[i][2]);
				if (isfinite(d))
					json_object_set_new(n, keys[i][0], json_real(d));
			}
			json_object_set_new(n, "title", json_string(title.buf));
		}
		json_array_append_new(c->notes, n);
		strbuf_release(&title);
		json_decref(f);
	}
	sqlite3_finalize(st);
}

static double note(json_t *n, const char *k)
{
	json_t *v = json_object_get(n, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static double leak_value(json_t *n, double t)
{
	return note(n, "intercept") +
	       note(n, "slope") * 1048576.0 * (t - note(n, "fit_start")) / 3600e9;
}

#define TIME_MAX 4102444800000000000LL    /* 2100-01-01 */

static int64_t clamp_time(int64_t t)
{
	return t < 60 * NS_PER_S ? 60 * NS_PER_S : t > TIME_MAX ? TIME_MAX : t;
}

/* The time range: drawn series, markers, annotation windows. */
static int time_range(struct chart *c)
{
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	sqlite3_stmt *st;
	size_t i;
	json_t *n;
	int k;

	for (k = 0; k < c->ns; k++) {
		char sql[160];
		snprintf(sql, sizeof(sql), "SELECT time_ns FROM sample WHERE series_id = %lld"
			 " AND time_ns IS NOT NULL ORDER BY time_ns LIMIT 1", (long long)c->s[k].id);
		c->s[k].tmin = q_int(c->db, sql, OL_NULL);
		snprintf(sql, sizeof(sql), "SELECT time_ns FROM sample WHERE series_id = %lld"
			 " AND time_ns IS NOT NULL ORDER BY time_ns DESC LIMIT 1", (long long)c->s[k].id);
		c->s[k].tmax = q_int(c->db, sql, OL_NULL);
		if (c->s[k].tmin != OL_NULL && c->s[k].tmin < t0)
			t0 = c->s[k].tmin;
		if (c->s[k].tmax != OL_NULL && c->s[k].tmax > t1)
			t1 = c->s[k].tmax;
	}
	st = q_prepare(c->db, "SELECT min(time_ns), max(time_ns) FROM event"
			      " WHERE kind IN " MARKER_KINDS " AND time_ns IS NOT NULL");
	if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		if (sqlite3_column_int64(st, 0) < t0)
			t0 = sqlite3_column_int64(st, 0);
		if (sqlite3_column_int64(st, 1) > t1)
			t1 = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (t0 > t1)
		return -1;
	/* hostile or broken times must not overflow the arithmetic below:
	 * the axis spans 1970..2100 at most, times outside sit at its edges */
	t0 = clamp_time(t0);
	t1 = clamp_time(t1);
	json_array_foreach(c->notes, i, n) {
		static const char *const keys[] = { "fit_start", "fit_end", "spike_start", "spike_end" };
		size_t j;
		for (j = 0; j < 4; j++) {
			double v = note(n, keys[j]);
			/* only windows near the data: a figure off by years is not drawn */
			if (isfinite(v) && v > (double)t0 - (double)(t1 - t0) &&
			    v < (double)t1 + (double)(t1 - t0)) {
				if ((int64_t)v < t0)
					t0 = (int64_t)v;
				if ((int64_t)v > t1)
					t1 = (int64_t)v;
			}
		}
	}
	if (t1 - t0 < 60 * NS_PER_S) {          /* a single instant: a minute around it */
		int64_t mid = t0 / 2 + t1 / 2;
		t0 = mid - 30 * NS_PER_S;
		t1 = mid + 30 * NS_PER_S;
	}
	c->t0 = t0;
	c->t1 = t1;
	return 0;
}

static int column_of(const struct chart *c, int64_t t)
{
	double x = ((double)t - (double)c->t0) / (double)(c->t1 - c->t0) * (PLOT_W - 1);
	int col = x < 0 ? 0 : x > PLOT_W ? PLOT_W : (int)(x + 0.5);

	return col < 0 ? 0 : col >= PLOT_W ? PLOT_W - 1 : col;
}

static double xpix(const struct chart *c, double t)
{
	double x = (t - (double)c->t0) / (double)(c->t1 - c->t0) * (PLOT_W - 1);
	if (x < 0)
		x = 0;
	if (x > PLOT_W - 1)
		x = PLOT_W - 1;
	return ML + x + 0.5;
}

/* One pass over a series' samples into its PLOT_W buckets. */
static void bucket_series(struct chart *c, struct cseries *cs)
{
	int first_pass = isnan(cs->vmax);
	sqlite3_stmt *st = q_prepare(c->db, "SELECT time_ns, value FROM sample WHERE series_id = ?1"
					    " AND time_ns BETWEEN ?2 AND ?3 AND value IS NOT NULL"
					    " ORDER BY time_ns");
	int col;

	cs->b = calloc(PLOT_W, sizeof(*cs->b));
	if (!st || !cs->b) {
		sqlite3_finalize(st);
		return;
	}
	sqlite3_bind_int64(st, 1, cs->id);
	sqlite3_bind_int64(st, 2, c->t0);
	sqlite3_bind_int64(st, 3, c->t1);
	while (sqlite3_step(st) == SQLITE_ROW) {
		double v = sqlite3_column_double(st, 1);
		struct bucket *b;

		if (!isfinite(v))
			continue;
		col = column_of(c, sqlite3_column_int64(st, 0));
		b = &cs->b[col];
		if (!b->n) {
			b->first = b->min = b->max = v;
		} else {
			if (v < b->min)
				b->min = v;
			if (v > b->max)
				b->max = v;
		}
		b->last = v;
		b->n++;
		if (first_pass) {
			cs->n_samples++;
			if (!(v <= cs->vmax))      /* NaN (unset) or larger */
				cs->vmax = v;
		}
	}
	sqlite3_finalize(st);
	for (col = 0; col < PLOT_W; col++)
		if (cs->b[col].n)
			cs->n_drawn++;
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

/* Byte axis: unit (1024^k) and step in that unit. */
static void byte_axis(double vmax, double *unit, const char **uname, double *step)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int k = 0;

	*unit = 1;
	while (k < 5 && vmax / *unit >= 1024) {
		*unit *= 1024;
		k++;
	}
	*uname = names[k];
	*step = nice_step(vmax / *unit / 5);
}

/* Panel p's axis for values up to vmax: its top, tick step and unit. */
static void axis_of(struct chart *c, double vmax, enum panel p)
{
	double unit = 1, step;
	const char *un = "";

	if (!(vmax > 0))
		vmax = 1;
	if (p == P_RATIO) {
		c->yunit[p] = 1;
		c->yuname[p] = "";
		c->ystep[p] = 0.25;
		c->ymax[p] = 1;
		return;
	} else if (p == P_COUNT) {
		step = nice_step(vmax / 4);
		if (step < 1)
			step = 1;
	} else {
		byte_axis(vmax, &unit, &un, &step);
	}
	c->yunit[p] = unit;
	c->yuname[p] = un;
	c->ystep[p] = step;
	c->ymax[p] = ceil(vmax * 1.02 / (step * unit)) * step * unit;
}

static double ypix(const struct chart *c, enum panel p, double v)
{
	double h = panels[p].height, y;

	y = c->top[p] + h - v / c->ymax[p] * h;
	if (y < c->top[p] - 2)
		y = c->top[p] - 2;
	if (y > c->top[p] + h)
		y = c->top[p] + h;
	return y;
}

static void layout(struct chart *c)
{
	double vmax[NPANEL] = { 0, 0, 0 };
	size_t i;
	json_t *n;
	int k, y = MT;

	for (k = 0; k < c->ns; k++)
		if (c->s[k].vmax > vmax[c->s[k].panel])
			vmax[c->s[k].panel] = c->s[k].vmax;
	if (isfinite(c->limit_bytes) && c->limit_bytes > vmax[P_BYTES] &&
	    c->limit_bytes < 4 * (vmax[P_BYTES] > 0 ? vmax[P_BYTES] : c->limit_bytes))
		vmax[P_BYTES] = c->limit_bytes;
	json_array_foreach(c->notes, i, n) {
		double vals[4];
		int j;
		vals[0] = note(n, "total");
		vals[1] = note(n, "baseline");
		vals[2] = note(n, "intercept");
		vals[3] = isfinite(note(n, "slope")) && isfinite(note(n, "fit_start"))
			  ? leak_value(n, isfinite(note(n, "fit_end")) ? note(n, "fit_end")
								       : (double)c->t1) : NAN;
		for (j = 0; j < 4; j++)
			if (isfinite(vals[j]) && vals[j] > vmax[P_BYTES])
				vmax[P_BYTES] = vals[j];
	}
	c->present[P_BYTES] = 1; /* markers and annotations live there */
	c->empty[P_BYTES] = !(vmax[P_BYTES] > 0);
	for (k = 0; k < NPANEL; k++) {
		axis_of(c, vmax[k], (enum panel)k);
		if (!c->present[k])
			continue;
		c->top[k] = y;
		y += panels[k].height + PANEL_GAP;
	}
	c->height = y - PANEL_GAP + 52;
}

static int bottom_of_plots(const struct chart *c)
{
	int k, b = MT;

	for (k = 0; k < NPANEL; k++)
		if (c->present[k])
			b = c->top[k] + panels[k].height;
	return b;
}

static void draw_axes(struct chart *c, struct strbuf *sb)
{
	static const int64_t steps[] = {
		1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800,
		21600, 43200, 86400, 172800, 604800, 2592000, 0
	};
	int64_t span_s = (c->t1 - c->t0) / NS_PER_S, step = 1, t;
	int k, i, bottom = bottom_of_plots(c), last_day = -1;
	char d0[40], d1[40];

	for (i = 0; steps[i]; i++) {
		step = steps[i];
		if (span_s / step <= 8)
			break;
	}
	if (!steps[i])
		step = (span_s / 8 / 86400 + 1) * 86400;
	/* y axes and grids per panel */
	for (k = 0; k < NPANEL; k++) {
		double unit = c->yunit[k], st = c->ystep[k], v;
		const char *un = c->yuname[k];
		int top = c->top[k], h = panels[k].height;

		if (!c->present[k])
			continue;
		strbuf_addf(sb, "<rect x=%d y=%d width=%d height=%d class=plot />\n",
			    ML, top, PLOT_W, h);
		if (c->empty[k]) {
			strbuf_addf(sb, "<text x=%d y=%d class=axt>no memory series in the artifacts:"
				    " events only</text>\n", ML + PLOT_W / 2, top + h / 2);
			strbuf_addf(sb, "<text x=%d y=%d class=pt>%s</text>\n", ML + 6, top + 14,
				    panels[k].title);
			continue;
		}
		for (v = 0; v <= c->ymax[k] / unit + 1e-9; v += st) {
			double y = ypix(c, (enum panel)k, v * unit);
			strbuf_addf(sb, "<line x1=%d x2=%d y1=%.1f y2=%.1f class=grid />", ML,
				    ML + PLOT_W, y, y);
			if (k == P_BYTES)
				strbuf_addf(sb, "<text x=%d y=%.1f class=yl>%g %s</text>\n", ML - 6,
					    y + 4, v, v == 0 ? "" : un);
			else if (k == P_COUNT)
				strbuf_addf(sb, "<text x=%d y=%.1f class=yl>%g</text>\n", ML - 6, y + 4, v);
			else
				strbuf_addf(sb, "<text x=%d y=%.1f class=yl>%g %%</text>\n", ML - 6,
					    y + 4, v * 100);
		}
		strbuf_addf(sb, "<text x=%d y=%d class=pt>%s</text>\n", ML + 6, top + 14,
			    panels[k].title);
	}
	/* x axis: ticks at round UTC times */
	for (t = (c->t0 / NS_PER_S / step + 1) * step; t * NS_PER_S <= c->t1; t += step) {
		double x = xpix(c, (double)t * NS_PER_S);
		int y, mo, d, hh, mm, ss;
		int64_t sod = ((t % 86400) + 86400) % 86400;
		civil_from_ns(t * NS_PER_S, &y, &mo, &d);
		hh = (int)(sod / 3600);
		mm = (int)(sod / 60 % 60);
		ss = (int)(sod % 60);
		for (k = 0; k < NPANEL; k++)
			if (c->present[k])
				strbuf_addf(sb, "<line x1=%.1f x2=%.1f y1=%d y2=%d class=grid />", x, x,
					    c->top[k], c->top[k] + panels[k].height);
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
		last_day = d;
	}
	format_iso8601(c->t0, d0, sizeof(d0));
	format_iso8601(c->t1, d1, sizeof(d1));
	d0[19] = d1[19] = '\0';
	d0[10] = d1[10] = ' ';
	strbuf_addf(sb, "<text x=%d y=%d class=axt>time (UTC) &#8212; %s to %s</text>\n",
		    ML + PLOT_W / 2, bottom + 46, d0, d1);
}

static void draw_series(struct chart *c, struct strbuf *sb, struct cseries *cs)
{
	int col, first = 1;

	if (!cs->b)
		return;
	strbuf_addf(sb, "<path class=s stroke=\"%s\"%s%s%s d=\"", cs->color,
		    cs->dash ? " stroke-dasharray=\"" : "", cs->dash ? cs->dash : "",
		    cs->dash ? "\"" : "");
	for (col = 0; col < PLOT_W; col++) {
		struct bucket *b = &cs->b[col];
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
	if (cs->n_drawn <= 60)   /* few points: show where the samples are */
		for (col = 0; col < PLOT_W; col++)
			if (cs->b[col].n)
				strbuf_addf(sb, "<circle cx=%.1f cy=%.1f r=2.2 fill=\"%s\" />",
					    ML + col + 0.5, ypix(c, cs->panel, cs->b[col].last),
					    cs->color);
	strbuf_addch(sb, '\n');
}

static void draw_hline(struct chart *c, struct strbuf *sb, double v, const char *color,
		       const char *label)
{
	char buf[32];
	double y = ypix(c, P_BYTES, v);

	fmt_bytes(buf, sizeof(buf), v);
	strbuf_addf(sb, "<line x1=%d x2=%d y1=%.1f y2=%.1f stroke=\"%s\" stroke-width=1.5"
		    " stroke-dasharray=\"8 4\" /><text x=%d y=%.1f class=al fill=\"%s\">%s %s</text>\n",
		    ML, ML + PLOT_W, y, y, color, ML + PLOT_W - 4, y - 4, color, label, buf);
}

/* Finding annotations under the series: bands first, lines on top. */
static void draw_notes(struct chart *c, struct strbuf *sb, int layer)
{
	int bottom = bottom_of_plots(c);
	size_t i;
	json_t *n;

	json_array_foreach(c->notes, i, n) {
		const char *title = json_string_value(json_object_get(n, "title"));
		double a = note(n, "spike_start"), b = note(n, "spike_end");
		double base = note(n, "baseline"), total = note(n, "total");
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
		if (layer == 1 && isfinite(note(n, "slope")) && isfinite(note(n, "fit_start")) &&
		    isfinite(note(n, "intercept")) && note(n, "fit_start") < (double)c->t1 &&
		    (!isfinite(note(n, "fit_end")) || note(n, "fit_end") > (double)c->t0)) {
			double ts = fmax(note(n, "fit_start"), (double)c->t0);
			double te = fmin(isfinite(note(n, "fit_end")) ? note(n, "fit_end") : (double)c->t1,
					 (double)c->t1);
			double x0 = xpix(c, ts), x1 = xpix(c, te);
			double y0 = ypix(c, P_BYTES, leak_value(n, ts));
			double y1 = ypix(c, P_BYTES, leak_value(n, te));
			strbuf_addf(sb, "<g class=leak><title>leak fit: ");
			h_text(sb, title, (size_t)-1);
			strbuf_addf(sb, "</title><line x1=%.1f x2=%.1f y1=%.1f y2=%.1f />"
				    "<text x=%.1f y=%.1f class=al>leak %+.0f MiB/h</text></g>\n",
				    x0, x1, y0, y1, x1 - 4, y1 - 8, note(n, "slope"));
		}
	}
}

/* Markers: one per kind and pixel column, labels where they fit. */
static void draw_markers(struct chart *c, struct strbuf *sb)
{
	sqlite3_stmt *st = q_prepare(c->db,
		"SELECT kind, CAST((time_ns - ?1) * 1.0 / ?2 * ?3 + 0.5 AS INTEGER) AS col,"
		" count(*), min(time_ns), min(pid), min(comm) FROM event"
		" WHERE kind IN " MARKER_KINDS " AND time_ns BETWEEN ?1 AND ?1 + ?2"
		" GROUP BY kind, col ORDER BY col, kind LIMIT 4000");
	double row_end[LABEL_ROWS] = { -1e9, -1e9, -1e9, -1e9 };
	int bottom = bottom_of_plots(c);

	if (!st)
		return;
	sqlite3_bind_int64(st, 1, c->t0);
	sqlite3_bind_int64(st, 2, c->t1 - c->t0);
	sqlite3_bind_int(st, 3, PLOT_W - 1);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int mk = marker_kind((const char *)sqlite3_column_text(st, 0));
		int col = sqlite3_column_int(st, 1), cnt = sqlite3_column_int(st, 2), r;
		double x = ML + (col < 0 ? 0 : col >= PLOT_W ? PLOT_W - 1 : col) + 0.5;
		struct strbuf label = STRBUF_INIT;
		char tbuf[40];

		if (mk < 0)
			continue;
		format_iso8601(sqlite3_column_int64(st, 3), tbuf, sizeof(tbuf));
		strbuf_addf(sb, "<g class=mk><title>%s%s at %s", marker_kinds[mk].kind,
			    cnt > 1 ? " (first of this pixel)" : "", tbuf);
		if (sqlite3_column_type(st, 4) != SQLITE_NULL)
			strbuf_addf(sb, ", pid %lld", (long long)sqlite3_column_int64(st, 4));
		if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
			strbuf_addstr(sb, " (");
			h_col(sb, st, 5);
			strbuf_addstr(sb, ")");
		}
		if (cnt > 1)
			strbuf_addf(sb, "; %d events here", cnt);
		strbuf_addf(sb, "</title><line x1=%.1f x2=%.1f y1=%d y2=%d stroke=\"%s\""
			    " stroke-width=1.6%s%s%s />", x, x, MT - 4, bottom,
			    marker_kinds[mk].color,
			    marker_kinds[mk].dash ? " stroke-dasharray=\"" : "",
			    marker_kinds[mk].dash ? marker_kinds[mk].dash : "",
			    marker_kinds[mk].dash ? "\"" : "");
		strbuf_addf(sb, "<path d=\"M%.1f %dl-4 -6h8z\" fill=\"%s\" />", x, MT - 4,
			    marker_kinds[mk].color);
		strbuf_addstr(&label, marker_kinds[mk].label);
		if (cnt > 1) {
			strbuf_addf(&label, " \xc3\x97%d", cnt);
		} else if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
			const char *comm = (const char *)sqlite3_column_text(st, 5);
			int len = sqlite3_column_bytes(st, 5);
			strbuf_addch(&label, ' ');
			strbuf_add(&label, comm, (size_t)(len > 20 ? 20 : len));
		}
		{
			double w = 6.0 * (double)label.len;
			int right = x - 3 + w > SVG_W - 2;   /* no room: end at the marker */
			double start = right ? x + 3 - w : x - 3;
			for (r = 0; r < LABEL_ROWS; r++)
				if (start > row_end[r] + 4)
					break;
			if (r < LABEL_ROWS) {
				strbuf_addf(sb, "<text x=%.1f y=%d class=\"ml%s\" fill=\"%s\">",
					    right ? x + 3 : x - 3, 12 + 11 * r, right ? " mr" : "",
					    marker_kinds[mk].color);
				h_text(sb, label.buf, label.len);
				strbuf_addstr(sb, "</text>");
				row_end[r] = start + w;
			}
		}
		strbuf_addstr(sb, "</g>\n");
		strbuf_release(&label);
	}
	sqlite3_finalize(st);
}

static void legend(struct chart *c, struct strbuf *sb)
{
	int k;
	size_t i;
	json_t *n;

	strbuf_addstr(sb, "<ul class=legend>");
	for (k = 0; k < c->ns; k++) {
		struct cseries *cs = &c->s[k];
		char buf[32];
		strbuf_addf(sb, "<li><svg width=26 height=10 aria-hidden=true><line x1=1 x2=25"
			    " y1=5 y2=5 stroke=\"%s\" stroke-width=2.5%s%s%s /></svg>",
			    cs->color, cs->dash ? " stroke-dasharray=\"" : "",
			    cs->dash ? cs->dash : "", cs->dash ? "\"" : "");
		h_text(sb, cs->label, (size_t)-1);   /* a name from the database for other series */
		if (cs->entity.len) {
			strbuf_addstr(sb, " <span class=ent>");
			h_text(sb, cs->entity.buf, cs->entity.len);
			strbuf_addstr(sb, "</span>");
		}
		if (cs->panel == P_BYTES)
			fmt_bytes(buf, sizeof(buf), cs->vmax);
		else if (cs->panel == P_RATIO)
			snprintf(buf, sizeof(buf), "%.0f %%", cs->vmax * 100);
		else
			snprintf(buf, sizeof(buf), "%g", cs->vmax);
		strbuf_addstr(sb, " <span class=muted title=\"");
		h_text(sb, cs->name, (size_t)-1);
		strbuf_addf(sb, ": %lld samples, drawn as %lld pixel columns\">peak %s</span></li>",
			    (long long)cs->n_samples, (long long)cs->n_drawn, buf);
	}
	if (isfinite(c->limit_bytes))
		strbuf_addstr(sb, "<li><svg width=26 height=10 aria-hidden=true><line x1=1 x2=25"
			      " y1=5 y2=5 stroke=\"#8a4a1f\" stroke-width=1.5 stroke-dasharray=\"5 3\" />"
			      "</svg>cgroup limit</li>");
	for (k = 0; k < (int)NMARKER; k++) {
		char sql[160];
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM event WHERE kind = '%s'"
			 " AND time_ns IS NOT NULL", marker_kinds[k].kind);
		if (q_int(c->db, sql, 0) > 0)
			strbuf_addf(sb, "<li><svg width=14 height=12 aria-hidden=true><line x1=7 x2=7"
				    " y1=0 y2=12 stroke=\"%s\" stroke-width=2%s%s%s /></svg>%s"
				    " <span class=muted>(%s)</span></li>", marker_kinds[k].color,
				    marker_kinds[k].dash ? " stroke-dasharray=\"" : "",
				    marker_kinds[k].dash ? marker_kinds[k].dash : "",
				    marker_kinds[k].dash ? "\"" : "", marker_kinds[k].label,
				    marker_kinds[k].kind);
	}
	json_array_foreach(c->notes, i, n) {
		if (isfinite(note(n, "slope")) && isfinite(note(n, "fit_start")) &&
		    isfinite(note(n, "intercept")))
			strbuf_addstr(sb, "<li><svg width=26 height=10 aria-hidden=true><line x1=1"
				      " x2=25 y1=9 y2=1 class=leakl /></svg>leak fit</li>");
		if (isfinite(note(n, "spike_start")) && isfinite(note(n, "spike_end")))
			strbuf_addstr(sb, "<li><svg width=16 height=10 aria-hidden=true><rect"
				      " width=16 height=10 class=spiker /></svg>spike window</li>");
		if (isfinite(note(n, "baseline")) && isfinite(note(n, "total")))
			strbuf_addstr(sb, "<li><svg width=16 height=10 aria-hidden=true><rect"
				      " width=16 height=10 class=headr /></svg>headroom</li>");
	}
	strbuf_addstr(sb, "</ul>\n");
}

/* Bucket the series over c->t0..t1 and write <figure><svg>...</svg>
 * (the caller closes the figure). */
static void draw_svg(struct chart *c, struct strbuf *sb, const char *label)
{
	int k;

	for (k = 0; k < c->ns; k++) {
		free(c->s[k].b);
		c->s[k].b = NULL;
		c->s[k].n_drawn = 0;
		bucket_series(c, &c->s[k]);
	}
	layout(c);
	strbuf_addf(sb, "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\""
		    " role=img aria-label=\"%s\">\n", SVG_W, c->height, label);
	draw_axes(c, sb);
	draw_notes(c, sb, 0);
	if (isfinite(c->limit_bytes))
		draw_hline(c, sb, c->limit_bytes, "#8a4a1f", "cgroup limit");
	for (k = 0; k < c->ns; k++)
		draw_series(c, sb, &c->s[k]);
	draw_notes(c, sb, 1);
	draw_markers(c, sb);
	strbuf_addstr(sb, "</svg>\n");
}

int html_chart(struct strbuf *sb, sqlite3 *db)
{
	struct chart *c = calloc(1, sizeof(*c));
	int k, drawn = 0;
	int64_t untimed, oom;

	strbuf_addstr(sb, "<section id=timeline><h2>Timeline</h2>\n");
	if (!c) {
		h_na(sb, "Out of memory while drawing the chart.");
		goto out;
	}
	c->db = db;
	strbuf_init(&c->skipped);
	c->limit_bytes = q_real(db, "SELECT CAST(value AS REAL) FROM meta WHERE key ="
				" 'cgroup.max_bytes' AND value GLOB '[0-9]*' LIMIT 1", NAN);
	pick_series(c);
	load_notes(c);
	if (time_range(c) < 0) {
		h_na(sb, "Nothing to draw: the database holds no time series and no OOM event"
			 " on the UTC clock.");
		goto out;
	}
	draw_svg(c, sb, "timeline of memory series and OOM events");
	legend(c, sb);
	strbuf_addstr(sb, "</figure>\n");
	/* a long incident: zoom on the minutes before the first OOM too */
	oom = q_int(db, "SELECT min(time_ns) FROM event WHERE kind IN " MARKER_KINDS, OL_NULL);
	if (oom != OL_NULL)
		oom = clamp_time(oom);
	if (oom != OL_NULL && oom - c->t0 > 45 * 60 * NS_PER_S && oom < TIME_MAX - NS_PER_S * 3600) {
		char t[40];
		c->t0 = oom - ZOOM_BEFORE_S * NS_PER_S;
		c->t1 = oom + ZOOM_AFTER_S * NS_PER_S;
		format_iso8601(oom, t, sizeof(t));
		strbuf_addf(sb, "<h3>The %d minutes before the first OOM event (%s)</h3>\n",
			    ZOOM_BEFORE_S / 60, t);
		draw_svg(c, sb, "the minutes before the OOM");
		strbuf_addstr(sb, "<figcaption>Same series, colours and scale as above.</figcaption>"
				  "</figure>\n");
	}
	drawn = c->ns;
	if (c->n_skipped) {
		strbuf_addf(sb, "<p class=more>%d more series in the database, not drawn: ",
			    c->n_skipped);
		h_text(sb, c->skipped.buf, c->skipped.len);
		strbuf_addstr(sb, c->n_skipped > 8 ? ", &#8230;</p>\n" : ".</p>\n");
	}
	untimed = q_int(db, Q_UNTIMED_SAMPLES, 0);
	if (untimed > 0)
		strbuf_addf(sb, "<p class=warn>%lld samples have no UTC time (boot clock not"
			    " aligned) and are not drawn.</p>\n", (long long)untimed);
out:
	strbuf_addstr(sb, "</section>\n");
	if (c) {
		for (k = 0; k < c->ns; k++) {
			free(c->s[k].b);
			strbuf_release(&c->s[k].entity);
		}
		strbuf_release(&c->skipped);
		json_decref(c->notes);
		free(c);
	}
	return drawn;
}
