/*
 * profile.c -- the derive pass `profile`: the memory profile of each
 * account (docs/schema.md, "Derived facts: the memory profile"), what a
 * report says when there was no OOM (verdict no_oom) and what every
 * report can show beside an OOM: per account, its headline peak (table
 * peak), the headroom left to its capacity or limit, the steady growth
 * of its memory where a series shows one (a robust line fit, the same
 * trend the leak rule reads: series.c's rl_trend), the time that growth
 * would take to fill the headroom (an estimate), and which account would
 * run out first.
 *
 * The "runs out first" rule: among the accounts with a known limit, the
 * one that a steady growth would fill soonest; when none grows, the one
 * with the smallest share of its limit left; ties by the peak's row.
 * No account with a limit: none is marked (the reports say it is unknown).
 *
 * Runs after `peak` (it reads the headline rows); reports render it,
 * nothing here formats text for people.
 */
#include "analyzer/derive/derive.h"
#include "analyzer/derive/dctx.h"
#include "lib/common.h"
#include "lib/strbuf.h"

#include <math.h>
#include <stdlib.h>

/* A fit is a growth when it explains the series (R^2) over a span long
 * enough to be more than a burst, and adds a figure worth naming. */
#define GROWTH_MIN_R2 0.5
#define GROWTH_MIN_SPAN_S 60.0
#define GROWTH_MIN_BYTES (64 * MIB)

static const char *const profile_table =
	"DROP TABLE IF EXISTS profile;\n"
	"CREATE TABLE profile(\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  account TEXT NOT NULL UNIQUE,\n"
	"  scope TEXT NOT NULL,\n"
	"  device INTEGER,\n"
	"  peak_id INTEGER NOT NULL,\n"
	"  measure TEXT NOT NULL,\n"
	"  bytes REAL NOT NULL,\n"
	"  limit_bytes REAL,\n"
	"  limit_source TEXT,\n"
	"  headroom_bytes REAL,\n"
	"  headroom_share REAL,\n"
	"  growth_bytes_per_s REAL,\n"
	"  growth_r2 REAL,\n"
	"  growth_span_s REAL,\n"
	"  growth_series_id INTEGER,\n"
	"  time_to_limit_s REAL,\n"
	"  first INTEGER NOT NULL DEFAULT 0);\n";

/* One row per account, from its headline peak: cards, cgroups, host. */
static const char *const profile_rows =
	"INSERT INTO profile(account, scope, device, peak_id, measure, bytes, limit_bytes,"
	" limit_source, headroom_bytes, headroom_share)"
	" SELECT account, scope, device, id, measure, bytes, limit_bytes, limit_source,"
	" CASE WHEN limit_bytes > 0 THEN limit_bytes - bytes END,"
	" CASE WHEN limit_bytes > 0 THEN (limit_bytes - bytes) / limit_bytes END"
	" FROM peak WHERE headline = 1"
	" ORDER BY CASE scope WHEN 'card' THEN 0 WHEN 'memcg' THEN 1 ELSE 2 END, account, id";

/* The series of an account a growth is read from: its headline's, then
 * its other measures', closest to what runs out first. */
static const char *const growth_series =
	"SELECT p.series_id FROM peak p JOIN profile f ON f.account = p.account"
	" WHERE f.id = ?1 AND p.series_id IS NOT NULL"
	" ORDER BY p.id != f.peak_id, CASE p.measure WHEN 'card_used' THEN 0"
	" WHEN 'reserved' THEN 1 WHEN 'allocated' THEN 2 WHEN 'cgroup_usage' THEN 3 ELSE 4 END,"
	" p.id";

static const char *const profile_first =
	"UPDATE profile SET time_to_limit_s = CASE WHEN headroom_bytes <= 0 THEN 0"
	"  ELSE headroom_bytes / growth_bytes_per_s END"
	" WHERE growth_bytes_per_s > 0 AND headroom_bytes IS NOT NULL;\n"
	"UPDATE profile SET first = coalesce(id = (SELECT id FROM profile WHERE limit_bytes > 0"
	"  ORDER BY time_to_limit_s IS NULL, time_to_limit_s, headroom_share, id LIMIT 1), 0);\n";

/* The steady growth of series id, in bytes per second, into the row of
 * profile id when the fit passes the GROWTH_* bars. 0 (a growth or
 * none), or -1 when the write fails (c->err says why). */
static int growth_of(struct rule_ctx *c, int64_t row, int64_t id, int *found)
{
	struct rl_series *s = malloc(sizeof(*s));
	struct rl_trend tr;
	sqlite3_stmt *st;
	int r = 0;

	if (!s)
		return rl_fail(c, "out of memory");
	if (rl_series_load(c, id, OL_NULL, s) == 0 && rl_trend(s, &tr) == 0 &&
	    tr.fit.slope > 0 && tr.fit.r2 >= GROWTH_MIN_R2 && tr.duration_s >= GROWTH_MIN_SPAN_S &&
	    tr.growth >= GROWTH_MIN_BYTES) {
		st = rl_prepare(c, "UPDATE profile SET growth_bytes_per_s = ?2, growth_r2 = ?3,"
				" growth_span_s = ?4, growth_series_id = ?5 WHERE id = ?1");
		if (!st) {
			free(s);
			return -1;
		}
		sqlite3_bind_int64(st, 1, row);
		sqlite3_bind_double(st, 2, tr.fit.slope);
		sqlite3_bind_double(st, 3, tr.fit.r2);
		sqlite3_bind_double(st, 4, tr.duration_s);
		sqlite3_bind_int64(st, 5, id);
		r = sqlite3_step(st) == SQLITE_DONE ? 0 : rl_sql_failed(c);
		sqlite3_finalize(st);
		*found = 1;
	}
	free(s);
	return r;
}

/* For each row of profile, the first of its account's series that grows. */
static int profile_growth(struct rule_ctx *c)
{
	sqlite3_stmt *rows = rl_prepare(c, "SELECT id FROM profile ORDER BY id");
	sqlite3_stmt *ser = rl_prepare(c, growth_series);
	int r = rows && ser ? 0 : -1;

	while (r == 0 && sqlite3_step(rows) == SQLITE_ROW) {
		int64_t row = sqlite3_column_int64(rows, 0);
		int found = 0;

		sqlite3_bind_int64(ser, 1, row);
		while (r == 0 && !found && sqlite3_step(ser) == SQLITE_ROW)
			r = growth_of(c, row, sqlite3_column_int64(ser, 0), &found);
		sqlite3_reset(ser);
	}
	sqlite3_finalize(rows);
	sqlite3_finalize(ser);
	return r;
}

static int profile_run(struct rule_ctx *c)
{
	if (rl_exec(c, profile_table) < 0 || rl_exec(c, profile_rows) < 0)
		return -1;
	if (profile_growth(c) < 0)
		return -1;
	return rl_exec(c, profile_first);
}

/* The pass (derive.h): drop and rebuild `profile` from `peak` and the
 * series. 0, or -1 with why in err. */
int derive_profile(sqlite3 *db, struct strbuf *err)
{
	return dctx_pass(db, err, profile_run);
}
