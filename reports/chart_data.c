/*
 * chart_data.c -- the timeline chart's model (chart.h): the clock of the
 * axis, which series to draw and their look, the time range of each view,
 * the samples reduced to pixel columns in one pass for every view, the
 * markers, the finding annotations and the counts the legend and the
 * notes give. Every query reads the time column of the axis' clock
 * (ch->tcol: time_ns on UTC, boot_ns on the boot clock).
 */
#include "reports/chart.h"
#include "reports/section.h"
#include "analyzer/store/query.h"
#include "analyzer/store/samples.h"
#include "lib/timeutil.h"
#include "lib/common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct chart_panel chart_panels[NPANEL] = {
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
	{ "server.gpu_kv_usage", P_PERCENT, "#c2185b", NULL, "GPU KV cache" },
	{ "server.cpu_kv_usage", P_PERCENT, "#777777", "4 2", "CPU KV cache" },
};
#define NKNOWN (sizeof(known) / sizeof(known[0]))

/* For other entities of a known name, and other byte series. */
static const char *const palette[] = {
	"#4c9be8", "#f2a33a", "#59b36b", "#b07ad6", "#c0825a", "#3fb8b8",
	"#d6604d", "#8c8c3a",
};

const struct marker_kind marker_kinds[NMARKER] = {
	{ "oom_kill", "#c00000", NULL, "OOM kill" },
	{ "userspace_kill", "#c00000", "2 2", "userspace kill" },
	{ "oom_invoked", "#e07000", "5 3", "oom-killer" },
	{ "torch_oom", "#7b2fa0", NULL, "torch OOM" },
	{ "cuda_exception", "#6b3e26", "7 2 2 2", "CUDA exception" },
};
#define MARKER_KINDS "('oom_kill', 'userspace_kill', 'oom_invoked', 'torch_oom', 'cuda_exception')"

#define TIME_MAX 4102444800000000000LL    /* 2100-01-01 */

static int known_index(const char *name)
{
	size_t i;

	for (i = 0; i < NKNOWN; i++)
		if (!strcmp(known[i].name, name))
			return (int)i;
	return -1;
}

static int marker_index(const char *k)
{
	int i;

	for (i = 0; k && i < NMARKER; i++)
		if (!strcmp(marker_kinds[i].kind, k))
			return i;
	return -1;
}

static int ends(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

/* sql with every "@T" replaced by the axis' time column, prepared. */
static sqlite3_stmt *t_prepare(struct report_ctx *c, const struct chart *ch, const char *sql)
{
	struct strbuf q = STRBUF_INIT;
	const char *p;
	sqlite3_stmt *st;

	while ((p = strstr(sql, "@T")) != NULL) {
		strbuf_add(&q, sql, (size_t)(p - sql));
		strbuf_addstr(&q, ch->tcol);
		sql = p + 2;
	}
	strbuf_addstr(&q, sql);
	st = strbuf_failed(&q) ? NULL : r_prepare(c, q.buf);
	strbuf_release(&q);
	return st;
}

/* --- which series -------------------------------------------------------- */

struct cand {
	int64_t id;
	char *name, *entity, *unit;
	int read_by_finding;        /* a finding's evidence: memory in use */
};

/* The series list, read once (at most MAX_CAND); *nc gets their number. */
#define MAX_CAND 20000
static struct cand *read_candidates(struct report_ctx *c, int *nc)
{
	sqlite3_stmt *st = r_prepare(c, "SELECT id, name, entity, unit, EXISTS (SELECT 1"
				     " FROM evidence e WHERE e.ref_table = 'series' AND e.ref_id = series.id)"
				     " FROM series ORDER BY name, entity LIMIT 20000");
	struct cand *cv = st ? calloc(MAX_CAND, sizeof(*cv)) : NULL;

	*nc = 0;
	while (cv && *nc < MAX_CAND && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *ent = (const char *)sqlite3_column_text(st, 2);
		const char *unit = (const char *)sqlite3_column_text(st, 3);
		struct cand *cd = &cv[*nc];
		if (!name)
			continue;
		cd->id = sqlite3_column_int64(st, 0);
		cd->name = strdup(name);
		cd->entity = strdup(ent ? ent : "");
		cd->unit = strdup(unit ? unit : "");
		cd->read_by_finding = sqlite3_column_int(st, 4);
		if (!cd->name || !cd->entity || !cd->unit) {
			free(cd->name);
			free(cd->entity);
			free(cd->unit);
			break;
		}
		(*nc)++;
	}
	sqlite3_finalize(st);
	return cv;
}

/* The panel of candidate cd when pass/k takes it, else -1: pass 0 takes
 * the known names in table order (k), pass 1 the other byte series and
 * those a finding read. */
static int candidate_panel(const struct cand *cd, int pass, int k)
{
	int ki = known_index(cd->name);

	if (pass == 0)
		return ki == k ? (int)known[ki].panel : -1;
	if (ki >= 0 || !strcmp(cd->name, "gpu.free_bytes"))
		return -1;
	/* a byte series by its name, or one a finding read as memory in use
	 * (a Grafana panel; its unit unsaid, the rules took it for bytes) */
	if (ends(cd->name, "_bytes") || (cd->read_by_finding && (!*cd->unit ||
					 !strcmp(cd->unit, "bytes"))))
		return P_BYTES;
	return -1;
}

static void skip_series(struct chart *ch, const struct cand *cd)
{
	if (ch->n_skipped < SKIPPED_NAMED) {
		if (ch->skipped.len)
			strbuf_addstr(&ch->skipped, ", ");
		strbuf_add_utf8(&ch->skipped, cd->name, strlen(cd->name));
		if (*cd->entity) {
			strbuf_addch(&ch->skipped, ' ');
			strbuf_add_utf8(&ch->skipped, cd->entity, strlen(cd->entity));
		}
	}
	ch->n_skipped++;
}

/* Draw cd in panel p: a known name keeps its look (its colour for its
 * first entity), others take the palette's next colour. */
static void add_series(struct chart *ch, const struct cand *cd, int pass, enum panel p,
		       int *used_colors)
{
	struct cseries *cs = &ch->s[ch->ns];
	int ki = known_index(cd->name), same = 0, j;

	for (j = 0; j < ch->ns; j++)
		same += !strcmp(ch->s[j].name, cd->name);
	cs->id = cd->id;
	snprintf(cs->name, sizeof(cs->name), "%s", cd->name);
	strbuf_init(&cs->entity);
	strbuf_add_utf8(&cs->entity, cd->entity, strlen(cd->entity));
	cs->panel = p;
	cs->scale = p == P_PERCENT ? chart_unit_scale(cd->unit) : 1;
	cs->vmax = cs->peak = NAN;   /* set by the bucketing */
	if (pass == 0 && !same) {
		cs->color = known[ki].color;
	} else {
		cs->color = palette[*used_colors % 8];
		(*used_colors)++;
	}
	cs->dash = pass == 0 ? known[ki].dash : NULL;
	cs->label = pass == 0 ? known[ki].label : series_label(cs->name, NULL, cs->words,
								      sizeof(cs->words));
	ch->ns++;
	ch->present[p] = 1;
}

/* Pick the series to draw: the known ones first (in table order), then
 * other byte series, at most chart_panels[].max_series per panel, only
 * series with a sample on the axis' clock (a series' blocks each). */
static void pick_series(struct report_ctx *c, struct chart *ch)
{
	sqlite3_stmt *ex = t_prepare(c, ch, "SELECT 1 FROM sample WHERE series_id = ?"
				     " AND @T IS NOT NULL LIMIT 1");
	int per_panel[NPANEL] = { 0 }, used_colors = 0, pass, nc = 0, i, k;
	struct cand *cv = ex ? read_candidates(c, &nc) : NULL;

	for (pass = 0; cv && pass < 2; pass++) {
		for (k = 0; k < (pass ? 1 : (int)NKNOWN); k++) {
			for (i = 0; i < nc; i++) {
				int p = candidate_panel(&cv[i], pass, k);
				if (p < 0)
					continue;
				sqlite3_bind_int64(ex, 1, cv[i].id);
				if (q_int_next(ex, 0) != 1)
					continue;
				if (ch->ns == MAX_SERIES || per_panel[p] == chart_panels[p].max_series) {
					skip_series(ch, &cv[i]);
					continue;
				}
				add_series(ch, &cv[i], pass, (enum panel)p, &used_colors);
				per_panel[p]++;
			}
		}
	}
	for (i = 0; i < nc; i++) {
		free(cv[i].name);
		free(cv[i].entity);
		free(cv[i].unit);
	}
	free(cv);
	sqlite3_finalize(ex);
}

/* --- finding annotations ---------------------------------------------------- */

static double fig(const json_t *f, const char *a, const char *b)
{
	const json_t *v = json_object_get(f, a);

	if (!v && b)
		v = json_object_get(f, b);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The figures the chart understands, of the 20 strongest findings that
 * have figures (from the findings model). */
static void load_notes(struct report_ctx *c, struct chart *ch)
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
	const json_t *f;
	size_t i, j;

	/* the findings' times are UTC: on the boot clock only the levels are drawn */
	ch->notes = json_array();
	json_array_foreach(model_rows(report_model(c, "findings")), i, f) {
		const json_t *figs = json_object_get(f, "figures");
		const char *title = json_string_value(json_object_get(f, "title"));
		json_t *n;
		if (i == 20)
			break;
		if (!json_is_object(figs))
			continue;
		n = json_object();
		for (j = 0; j < sizeof(keys) / sizeof(keys[0]); j++) {
			double d = fig(figs, keys[j][1], keys[j][2]);
			if (ch->clock == CLOCK_BOOT && (strstr(keys[j][0], "_start") ||
							strstr(keys[j][0], "_end")))
				continue;
			if (isfinite(d))
				json_object_set_new(n, keys[j][0], json_real(d));
		}
		json_object_set_new(n, "title", json_string(title ? title : ""));
		json_array_append_new(ch->notes, n);
	}
}

double chart_note(const json_t *n, const char *k)
{
	const json_t *v = json_object_get(n, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

double chart_leak_value(const json_t *n, double t)
{
	return chart_note(n, "intercept") +
	       chart_note(n, "slope") * 1048576.0 * (t - chart_note(n, "fit_start")) / 3600e9;
}

/* --- the time range ------------------------------------------------------------ */

/* On UTC the axis spans 1970..2100 at most; on the boot clock it starts
 * at the boot. */
static int64_t clamp_time(const struct chart *ch, int64_t t)
{
	int64_t lo = ch->clock == CLOCK_BOOT ? 0 : 60 * NS_PER_S;

	return t < lo ? lo : t > TIME_MAX ? TIME_MAX : t;
}

/* Each drawn series' first and last time on UTC (its blocks each);
 * the range t0..t1 widened to cover them. */
static void series_span(struct report_ctx *c, struct chart *ch, int64_t *t0, int64_t *t1)
{
	int boot = ch->clock == CLOCK_BOOT;
	sqlite3_stmt *lo = r_prepare(c, boot ? "SELECT sample_first_boot(?)" : "SELECT sample_first_ns(?)");
	sqlite3_stmt *hi = r_prepare(c, boot ? "SELECT sample_last_boot(?)" : "SELECT sample_last_ns(?)");
	int k;

	for (k = 0; lo && hi && k < ch->ns; k++) {
		struct cseries *cs = &ch->s[k];
		sqlite3_bind_int64(lo, 1, cs->id);
		sqlite3_bind_int64(hi, 1, cs->id);
		cs->tmin = q_int_next(lo, OL_NULL);
		cs->tmax = q_int_next(hi, OL_NULL);
		if (cs->tmin != OL_NULL && cs->tmin < *t0)
			*t0 = cs->tmin;
		if (cs->tmax != OL_NULL && cs->tmax > *t1)
			*t1 = cs->tmax;
	}
	sqlite3_finalize(lo);
	sqlite3_finalize(hi);
}

/* Widen t0..t1 to the annotation windows near the data (a figure off by
 * years is not drawn). */
static void notes_span(const struct chart *ch, int64_t *t0, int64_t *t1)
{
	static const char *const keys[] = { "fit_start", "fit_end", "spike_start", "spike_end" };
	size_t i, j;
	json_t *n;

	/* "near" is measured against the range as widened so far */
	json_array_foreach(ch->notes, i, n) {
		for (j = 0; j < 4; j++) {
			double v = chart_note(n, keys[j]);
			if (isfinite(v) && v > (double)*t0 - (double)(*t1 - *t0) &&
			    v < (double)*t1 + (double)(*t1 - *t0)) {
				if ((int64_t)v < *t0)
					*t0 = (int64_t)v;
				if ((int64_t)v > *t1)
					*t1 = (int64_t)v;
			}
		}
	}
}

/* The whole view: drawn series, markers, annotation windows; and the
 * OOM's time (row 1 of table oom; OL_NULL when it has none on the axis'
 * clock). -1 when there is no time at all. */
static int time_range(struct report_ctx *c, struct chart *ch)
{
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	sqlite3_stmt *st;

	series_span(c, ch, &t0, &t1);
	ch->oom = OL_NULL;
	st = t_prepare(c, ch, "SELECT min(@T), max(@T) FROM event"
		       " WHERE kind IN " MARKER_KINDS " AND @T IS NOT NULL");
	if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		if (sqlite3_column_int64(st, 0) < t0)
			t0 = sqlite3_column_int64(st, 0);
		if (sqlite3_column_int64(st, 1) > t1)
			t1 = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	/* the OOM's moment: row 1 of the derived table oom, on the axis' clock */
	st = t_prepare(c, ch, "SELECT @T FROM oom WHERE id = 1 AND @T IS NOT NULL");
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0);
		ch->oom = clamp_time(ch, t);
		if (t < t0)
			t0 = t;
		if (t > t1)
			t1 = t;
	}
	sqlite3_finalize(st);
	if (t0 > t1)
		return -1;
	/* hostile or broken times must not overflow the arithmetic below:
	 * the axis spans 1970..2100 at most, times outside sit at its edges */
	t0 = clamp_time(ch, t0);
	t1 = clamp_time(ch, t1);
	notes_span(ch, &t0, &t1);
	if (t1 == t0) {                         /* a single instant: a minute around it */
		t0 -= 30 * NS_PER_S;
		t1 += 30 * NS_PER_S;
	} else if (t1 - t0 < 60 * NS_PER_S) {   /* a short trace fills the width */
		int64_t pad = (t1 - t0) / 40 + 1;
		t0 -= pad;
		t1 += pad;
	}
	if (ch->clock == CLOCK_BOOT && t0 < 0)  /* nothing before the boot */
		t0 = 0;
	ch->v[0].t0 = t0;
	ch->v[0].t1 = t1;
	ch->nviews = 1;
	/* a long incident: the minutes before the first OOM too */
	if (ch->oom != OL_NULL && ch->oom - t0 > 45 * 60 * NS_PER_S &&
	    ch->oom < TIME_MAX - NS_PER_S * 3600) {
		ch->v[1].t0 = ch->oom - ZOOM_BEFORE_S * NS_PER_S;
		ch->v[1].t1 = ch->oom + ZOOM_AFTER_S * NS_PER_S;
		ch->nviews = 2;
	}
	return 0;
}

/* --- the samples ----------------------------------------------------------------- */

static int column_of(const struct view *v, int64_t t)
{
	double x = ((double)t - (double)v->t0) / (double)(v->t1 - v->t0) * (PLOT_W - 1);
	int col = x < 0 ? 0 : x > PLOT_W ? PLOT_W : (int)(x + 0.5);

	return col < 0 ? 0 : col >= PLOT_W ? PLOT_W - 1 : col;
}

static void bucket_add(struct bucket *b, double v)
{
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
}

/* One pass over a series' samples in the whole view into the PLOT_W
 * buckets of every view (the zoom lies inside the whole view). */
static void bucket_series(struct report_ctx *c, struct chart *ch, struct cseries *cs)
{
	struct samples_iter it;
	const struct sample_rec *r;
	int col, k;

	for (k = 0; k < ch->nviews; k++)
		if (!(cs->b[k] = calloc(PLOT_W, sizeof(*cs->b[k]))))
			return;
	/* a series that cannot be read is drawn without points, as a query
	 * that fails gives none */
	if (samples_iter_open(&it, c->db, cs->id, SI_VALUED | SI_BOUNDED |
			      (ch->clock == CLOCK_BOOT ? SI_BOOT : 0), ch->v[0].t0, ch->v[0].t1) < 0)
		return;
	while ((r = samples_iter_next(&it))) {
		int64_t t = ch->clock == CLOCK_BOOT ? r->boot_ns : r->time_ns;
		double v = r->value * cs->scale;
		if (!isfinite(v))
			continue;
		for (k = 0; k < ch->nviews; k++)
			if (t >= ch->v[k].t0 && t <= ch->v[k].t1)
				bucket_add(&cs->b[k][column_of(&ch->v[k], t)], v);
		cs->n_samples++;
		if (!(v <= cs->vmax))      /* NaN (unset) or larger */
			cs->vmax = v;
	}
	samples_iter_close(&it);
	for (k = 0; k < ch->nviews; k++)
		for (col = 0; col < PLOT_W; col++)
			if (cs->b[k][col].n)
				cs->n_drawn[k]++;
}

/* --- markers and counts ---------------------------------------------------------- */

/* The markers of view v: one per kind and pixel column (at most 4000). */
static void load_markers(struct report_ctx *c, const struct chart *ch, struct view *v)
{
	sqlite3_stmt *st = t_prepare(c, ch,
		"SELECT kind, CAST((@T - ?1) * 1.0 / ?2 * ?3 + 0.5 AS INTEGER) AS col,"
		" count(*), min(@T), min(pid), min(comm) FROM event"
		" WHERE kind IN " MARKER_KINDS " AND @T BETWEEN ?1 AND ?1 + ?2"
		" GROUP BY kind, col ORDER BY col, kind LIMIT 4000");

	if (!st || !(v->m = calloc(4000, sizeof(*v->m)))) {
		sqlite3_finalize(st);
		return;
	}
	sqlite3_bind_int64(st, 1, v->t0);
	sqlite3_bind_int64(st, 2, v->t1 - v->t0);
	sqlite3_bind_int(st, 3, PLOT_W - 1);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct marker *m = &v->m[v->nm];
		const char *comm = (const char *)sqlite3_column_text(st, 5);
		if ((m->kind = marker_index((const char *)sqlite3_column_text(st, 0))) < 0)
			continue;
		m->col = sqlite3_column_int(st, 1);
		m->count = sqlite3_column_int(st, 2);
		m->t = sqlite3_column_int64(st, 3);
		m->pid = sqlite3_column_type(st, 4) == SQLITE_NULL ? OL_NULL
			 : sqlite3_column_int64(st, 4);
		if (comm) {
			m->comm_len = sqlite3_column_bytes(st, 5);
			m->comm = malloc((size_t)m->comm_len + 1);
			if (m->comm)
				memcpy(m->comm, comm, (size_t)m->comm_len + 1);
		}
		v->nm++;
	}
	sqlite3_finalize(st);
}

/* The events on the axis' clock of each marker kind (the legend lists the
 * kinds seen), and those with no time on it. */
static void count_markers(struct report_ctx *c, struct chart *ch)
{
	sqlite3_stmt *st = t_prepare(c, ch, "SELECT kind, count(*), @T IS NULL FROM event"
				     " WHERE kind IN " MARKER_KINDS " GROUP BY kind, @T IS NULL");
	int k;

	while (st && sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_int(st, 2))
			ch->events_off_axis += sqlite3_column_int64(st, 1);
		else if ((k = marker_index((const char *)sqlite3_column_text(st, 0))) >= 0)
			ch->marker_events[k] = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
}

/* Each drawn series' highest sample of unknown time on the axis' clock
 * (its blocks), so that the legend's peak is the highest of all
 * its samples, as the header's is. */
static void series_peaks(struct report_ctx *c, struct chart *ch)
{
	sqlite3_stmt *st = t_prepare(c, ch, "SELECT sample_untimed(?, '@T', 'max')");
	int k;

	for (k = 0; st && k < ch->ns; k++) {
		struct cseries *cs = &ch->s[k];
		double u;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, cs->id);
		u = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL
		    ? sqlite3_column_double(st, 0) * cs->scale : NAN;
		cs->peak = cs->vmax;
		if (isfinite(u) && !(u <= cs->vmax)) {
			cs->peak = u;
			cs->peak_untimed = 1;
		}
	}
	sqlite3_finalize(st);
}

/* The clock of the axis: UTC when a series or a marker event has a UTC
 * time; else the boot clock when one has a boot time. The series are
 * picked on that clock. */
static void pick_clock(struct report_ctx *c, struct chart *ch)
{
	ch->clock = CLOCK_UTC;
	ch->tcol = "time_ns";
	pick_series(c, ch);
	if (ch->ns || r_int(c, "SELECT count(*) FROM event WHERE kind IN " MARKER_KINDS
			    " AND time_ns IS NOT NULL", 0) > 0)
		return;
	if (r_int(c, "SELECT count(*) FROM event WHERE kind IN " MARKER_KINDS
		  " AND boot_ns IS NOT NULL", 0) == 0 &&
	    r_int(c, "SELECT count(*) FROM (SELECT 1 FROM sample WHERE boot_ns IS NOT NULL"
		  " LIMIT 1)", 0) == 0)
		return;
	ch->clock = CLOCK_BOOT;
	ch->tcol = "boot_ns";
	ch->n_skipped = 0;
	strbuf_reset(&ch->skipped);
	memset(ch->present, 0, sizeof(ch->present));
	pick_series(c, ch);
}

int chart_load(struct report_ctx *c, struct chart *ch)
{
	int k;

	strbuf_init(&ch->skipped);
	pick_clock(c, ch);
	chart_load_untimed(c, ch);
	load_notes(c, ch);
	if (time_range(c, ch) < 0)
		return -1;
	for (k = 0; k < ch->ns; k++)
		bucket_series(c, ch, &ch->s[k]);
	series_peaks(c, ch);
	chart_load_capacities(c, ch);
	for (k = 0; k < ch->nviews; k++)
		load_markers(c, ch, &ch->v[k]);
	count_markers(c, ch);
	return 0;
}

void chart_free(struct chart *ch)
{
	int k, i;

	for (k = 0; k < ch->ns; k++) {
		for (i = 0; i < NVIEWS; i++)
			free(ch->s[k].b[i]);
		strbuf_release(&ch->s[k].entity);
	}
	for (i = 0; i < NVIEWS; i++) {
		for (k = 0; k < ch->v[i].nm; k++)
			free(ch->v[i].m[k].comm);
		free(ch->v[i].m);
	}
	for (k = 0; k < ch->nu; k++)
		strbuf_release(&ch->u[k].entity);
	strbuf_release(&ch->skipped);
	json_decref(ch->notes);
}
