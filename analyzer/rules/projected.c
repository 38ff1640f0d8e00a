/*
 * projected.c -- misconfiguration the engine itself foresaw: before it
 * loaded the model, the engine's own start-up check projected the memory
 * the machine would use with it (what is in use already plus the model's
 * estimated working set) at or above the machine's RAM, and the machine's
 * memory later ran out. Rapid-MLX / vllm-mlx print this projection as
 * their "Memory pressure warning" (vllm_mlx/cli.py
 * _check_memory_capacity@v0.12.18: working set = model on disk x 1.5,
 * "N% projected utilization" = (in use + working set) / RAM), read into
 * meta server.projected_* by parsers/serving/server_pressure.c.
 *
 * The projection alone is no failure (the engine goes on, and so do many
 * servers that warned): a finding needs an OOM of the memory the
 * projection is about, the machine's RAM (scope unified or host, or an
 * MLX/Metal/MPS failure), in whatever phase it came. The engine's own
 * estimate under-counts long contexts and concurrency (its words), so a
 * projection already at 100 % leaves no room for the load: the
 * configuration (the model, its quantisation, MLX's memory limit) does
 * not fit the machine. The figures are the engine's, said as its own.
 */
#include "analyzer/rules/rulelib.h"

#include <stdio.h>
#include <string.h>

#define PROJECTED_FULL 1.0    /* the engine projected all of the RAM */
#define PROJECTED_SCORE 0.75  /* the engine's own figures, and a later OOM of that memory */

/* The engine's projection for row 1 of oom, when that OOM ran out of
 * the machine's memory (scope unified or host, or an MLX/Metal/MPS
 * failure): the last server.projection its own log printed above it,
 * else (the projection in another paste) the last one read. Its share,
 * RAM and projected bytes, the artifact that stated it, and the OOM's
 * phase ("" unknown). 1 found, 0 none, -1 failed. */
static int read_projection(struct rule_ctx *c, double *share, double *ram, double *projected,
			   int64_t *art, char *phase, size_t n)
{
	sqlite3_stmt *st = rl_prepare(c,
		"SELECT json_extract(m.value, '$.share'), json_extract(m.value, '$.ram_bytes'),"
		" json_extract(m.value, '$.projected_bytes'), m.artifact_id,"
		" coalesce(o.phase, 'unknown')"
		" FROM oom o JOIN event e ON e.id = o.event_id JOIN meta m"
		" ON m.key = 'server.projection' AND json_valid(m.value)"
		" WHERE o.id = 1 AND (o.scope IN ('unified', 'host')"
		"  OR o.family IN ('mlx', 'metal', 'mps'))"
		" AND NOT (m.artifact_id IS e.artifact_id AND e.line IS NOT NULL"
		"  AND json_extract(m.value, '$.line') > e.line)"
		" ORDER BY m.artifact_id IS e.artifact_id DESC,"
		" CASE WHEN m.artifact_id IS e.artifact_id THEN json_extract(m.value, '$.line') END DESC,"
		" m.rowid DESC LIMIT 1");
	int r = 0;

	phase[0] = 0;
	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		const char *p = (const char *)sqlite3_column_text(st, 4);
		*share = sqlite3_column_double(st, 0);
		*ram = sqlite3_column_double(st, 1);
		*projected = sqlite3_column_double(st, 2);
		*art = sqlite3_column_int64(st, 3);
		if (p && strcmp(p, "unknown"))
			snprintf(phase, n, "%s", p);
		r = 1;
	}
	sqlite3_finalize(st);
	return c->failed ? -1 : r;
}

/* Writes one misconfig finding (cause projected_over_ram) when the
 * engine projected >= 100 % of the RAM and that memory later ran out.
 * 1 written, 0 none, -1 failed. */
int rule_projected(struct rule_ctx *c)
{
	struct rl_finding f;
	char phase[24], b1[32], b2[32];
	double share = -1, ram = -1, projected = -1;
	int64_t fid, art = 0;
	int r;

	if (!c->has_oom)
		return 0;
	if ((r = read_projection(c, &share, &ram, &projected, &art, phase, sizeof(phase))) <= 0)
		return r;
	if (share < PROJECTED_FULL || ram <= 0 || projected <= 0)
		return 0;
	rl_finding_init(&f, "projected", "misconfig", "projected_over_ram");
	f.score = PROJECTED_SCORE;
	if (phase[0])
		f.phase = phase;
	rl_fig(&f, "projected_bytes", projected);
	rl_fig(&f, "projected_ram_bytes", ram);
	rl_fig(&f, "projected_share", share);
	snprintf(f.title, sizeof(f.title), "The engine's own start-up check projected %s of the"
		 " machine's %s RAM (%.0f %%) with this model loaded, and the machine's memory"
		 " ran out: the configuration does not fit the machine",
		 rl_bytes(projected, b1, sizeof(b1)), rl_bytes(ram, b2, sizeof(b2)), 100 * share);
	rl_advice(&f, "Serve a smaller model or a lower quantisation: the engine's estimate"
		  " (the model on disk x 1.5, beside what was in use already) filled the RAM"
		  " before any load, and it under-counts long contexts and concurrent requests"
		  " by its own words. Or cap MLX's memory lower with --gpu-memory-utilization"
		  " (the engine's warning names 0.75) and close what else holds the RAM.");
	fid = rl_finding_write(c, &f);
	if (fid < 0 || (art > 0 && rl_evidence(c, fid, "artifact", art, "the engine's start-up"
						" memory pressure warning, with its projection") < 0))
		return -1;
	return 1;
}
