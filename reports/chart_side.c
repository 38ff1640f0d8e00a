/*
 * chart_side.c -- what the timeline chart shows beside its series (chart.h):
 * the capacities drawn as labelled lines in the byte panel (the ledger's
 * capacity of each card and of the host, so the chart and the ledger name
 * the same figure; the meta keys for a database without a ledger), and the
 * series whose samples have no time on the axis' clock, which are listed
 * apart under the chart ("time unknown") and never placed on it.
 */
#include "reports/chart.h"
#include "reports/section.h"
#include "reports/html_util.h"
#include "reports/summary.h"
#include "analyzer/store/query.h"
#include "lib/timeutil.h"
#include "lib/common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CAP_GPU_COLOR "#1f5fa8"
#define CAP_HOST_COLOR "#8a4a1f"

double chart_unit_scale(const char *unit)
{
	return unit && !strcmp(unit, "ratio") ? 100 : 1;
}

void chart_fmt_time(const struct chart *ch, int64_t t, char *buf, size_t n)
{
	if (ch->clock == CLOCK_BOOT)
		snprintf(buf, n, "boot+%.3f s", (double)t / 1e9);
	else
		format_iso8601(t, buf, n);
}

/* A gpu.total_bytes series of entity is drawn: it is that card's line. */
static int drawn_total(const struct chart *ch, const char *entity)
{
	int k;

	for (k = 0; k < ch->ns; k++)
		if (!strcmp(ch->s[k].name, "gpu.total_bytes") && ch->s[k].entity.buf &&
		    !strcmp(ch->s[k].entity.buf, entity))
			return 1;
	return 0;
}

static void add_cap(struct chart *ch, const char *scope, const char *entity, double bytes,
		    const char *source)
{
	struct capacity *cp;
	int gpu = !strcmp(scope, "gpu");

	if (ch->ncap == MAX_CAPS || !(bytes > 0))
		return;
	cp = &ch->cap[ch->ncap++];
	if (gpu)
		snprintf(cp->label, sizeof(cp->label), "%s total", entity);
	else
		snprintf(cp->label, sizeof(cp->label), "%s",
			 !strcmp(entity, "host") ? "RAM" : "cgroup limit");
	snprintf(cp->source, sizeof(cp->source), "%s", source ? source : "");
	cp->bytes = bytes;
	cp->color = gpu ? CAP_GPU_COLOR : CAP_HOST_COLOR;
	cp->as_series = gpu && drawn_total(ch, entity);
}

/* The ledger's capacities; without a ledger table, the meta keys
 * gpu.total_bytes.gpuN and cgroup.max_bytes. Only for a chart with a
 * byte series: with events only there is no scale to draw them on. */
void chart_load_capacities(struct report_ctx *c, struct chart *ch)
{
	sqlite3_stmt *st;
	int k, bytes = 0;

	for (k = 0; k < ch->ns; k++)
		bytes |= ch->s[k].panel == P_BYTES;
	if (!bytes)
		return;
	if (r_has_table(c, "ledger"))
		st = r_prepare(c, "SELECT scope, entity, bytes, source FROM ledger WHERE line ="
			       " 'capacity' AND bytes > 0 ORDER BY scope != 'gpu', id LIMIT 4");
	else
		st = r_prepare(c, "SELECT 'gpu', substr(key, 17), CAST(value AS REAL), 'meta ' || key"
			       " FROM meta WHERE key GLOB 'gpu.total_bytes.gpu[0-9]*' AND value GLOB"
			       " '[0-9]*' UNION ALL SELECT 'host', 'memory cgroup', CAST(value AS REAL),"
			       " 'meta cgroup.max_bytes' FROM (SELECT value FROM meta WHERE key ="
			       " 'cgroup.max_bytes' AND value GLOB '[0-9]*' LIMIT 1) LIMIT 4");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *scope = (const char *)sqlite3_column_text(st, 0);
		const char *ent = (const char *)sqlite3_column_text(st, 1);
		add_cap(ch, scope ? scope : "", ent ? ent : "", sqlite3_column_double(st, 2),
			(const char *)sqlite3_column_text(st, 3));
	}
	sqlite3_finalize(st);
}

/* The series with samples of no time on the axis' clock: the first
 * MAX_UNTIMED by name, and how many there are (a series' blocks each). */
void chart_load_untimed(struct report_ctx *c, struct chart *ch)
{
	struct strbuf q = STRBUF_INIT;
	sqlite3_stmt *st;

	strbuf_addf(&q, "SELECT name, entity, unit, n, sample_untimed(id, '%s', 'max'),"
		    " sample_untimed(id, '%s', 'other') FROM (SELECT s.*,"
		    " sample_untimed(s.id, '%s', 'valued') AS n FROM series s) WHERE n > 0"
		    " ORDER BY name, entity", ch->tcol, ch->tcol, ch->tcol);
	st = strbuf_failed(&q) ? NULL : r_prepare(c, q.buf);
	strbuf_release(&q);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *ent = (const char *)sqlite3_column_text(st, 1);
		const char *unit = (const char *)sqlite3_column_text(st, 2);
		struct untimed *u = &ch->u[ch->nu];
		ch->untimed_series++;
		if (ch->nu == MAX_UNTIMED)
			continue;
		snprintf(u->name, sizeof(u->name), "%s", name ? name : "");
		strbuf_init(&u->entity);
		if (ent)
			strbuf_add_utf8(&u->entity, ent, strlen(ent));
		u->scale = chart_unit_scale(unit);
		u->unit = unit && !strcmp(unit, "bytes") ? "bytes" :
			  unit && (!strcmp(unit, "ratio") || !strcmp(unit, "percent") ||
				   !strcmp(unit, "%")) ? "%" : "";
		u->n = sqlite3_column_int64(st, 3);
		u->vmax = sqlite3_column_double(st, 4) * u->scale;
		u->n_other = sqlite3_column_int64(st, 5);
		ch->nu++;
	}
	sqlite3_finalize(st);
}

void chart_html_untimed(const struct chart *ch, struct strbuf *sb)
{
	int k;

	if (!ch->nu)
		return;
	strbuf_addf(sb, "<h3 id=time-unknown>Time unknown</h3>\n<p class=warn>%lld series have"
		    " samples with no time %s: they are not placed on the chart.%s</p>\n"
		    "<table class=untimed><tr><th>series</th><th>entity</th><th class=n>samples</th>"
		    "<th class=n>highest</th><th>clock</th></tr>\n", (long long)ch->untimed_series,
		    ch->clock == CLOCK_BOOT ? "since boot" : "on UTC",
		    ch->clock == CLOCK_UTC ? " A file without times inside (a bare memory.current,"
		    " a single scrape) gives none, and its modification time is not taken for one."
		    : "");
	for (k = 0; k < ch->nu; k++) {
		const struct untimed *u = &ch->u[k];
		char buf[48];
		if (!strcmp(u->unit, "bytes"))
			fmt_bytes(buf, sizeof(buf), u->vmax);
		else if (!strcmp(u->unit, "%"))
			snprintf(buf, sizeof(buf), "%.1f %%", u->vmax);
		else
			snprintf(buf, sizeof(buf), "%.4g", u->vmax);
		strbuf_addstr(sb, "<tr><td><code>");
		h_text(sb, u->name, (size_t)-1);
		strbuf_addstr(sb, "</code></td><td>");
		h_text(sb, u->entity.buf, u->entity.len);
		strbuf_inherit(sb, &u->entity);
		strbuf_addf(sb, "</td><td class=n>%lld</td><td class=n>%s</td><td>", (long long)u->n,
			    buf);
		if (u->n_other == u->n)
			strbuf_addstr(sb, ch->clock == CLOCK_UTC ? "boot clock only, not aligned to UTC"
				      : "UTC only, the chart is on the boot clock");
		else if (u->n_other)
			strbuf_addf(sb, "%lld on the %s only, the others none", (long long)u->n_other,
				    ch->clock == CLOCK_UTC ? "boot clock" : "UTC");
		else
			strbuf_addstr(sb, "none");
		strbuf_addstr(sb, "</td></tr>\n");
	}
	strbuf_addstr(sb, "</table>\n");
	if (ch->untimed_series > ch->nu)
		strbuf_addf(sb, "<p class=more>%lld more series with samples of unknown time in"
			    " the database.</p>\n", (long long)(ch->untimed_series - ch->nu));
}
