/*
 * loadrow.c -- the derived row `oom_load` read for the rules (loadrow.h).
 */
#include "analyzer/rules/loadrow.h"
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdio.h>

static double col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static void text(sqlite3_stmt *st, int i, char *buf, size_t n)
{
	const unsigned char *k = sqlite3_column_text(st, i);

	snprintf(buf, n, "%s", k ? (const char *)k : "");
}

int load_row_read(struct rule_ctx *c, struct load_row *r)
{
	sqlite3_stmt *st;
	int rc, i;
	double *v[] = { &r->steps_done, &r->steps_total, &r->first_step, &r->bars, &r->at_start,
			&r->mem_first, &r->mem_last, &r->running, &r->waiting, &r->kv,
			&r->running_before, &r->waiting_before, &r->kv_before, &r->window_s,
			&r->samples, &r->epoch, &r->logged_steps, &r->running_typical,
			&r->samples_before, &r->kv_slope_min, &r->kv_r2, &r->kv_samples };

	if (!q_has_table(c->db, "oom_load"))
		return 0;
	if (!(st = rl_prepare(c, "SELECT doing, step_source, steps_done, steps_total, first_step,"
			      " bars, at_start, max_mem_first_mb, max_mem_last_mb, running, waiting,"
			      " kv_usage_pct, running_before, waiting_before, kv_usage_before_pct,"
			      " window_s, samples, epoch, logged_steps, running_typical, samples_before,"
			      " kv_slope_pct_min, kv_r2, kv_samples FROM oom_load ORDER BY oom_id LIMIT 1")))
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		text(st, 0, r->doing, sizeof(r->doing));
		text(st, 1, r->step_source, sizeof(r->step_source));
		for (i = 0; i < (int)(sizeof(v) / sizeof(v[0])); i++)
			*v[i] = col(st, i + 2);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}
