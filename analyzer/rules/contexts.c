/*
 * contexts.c -- misconfiguration: CUDA context explosion, more contexts
 * on a device than processes that should use it.
 *
 *  - gpu_context (CUDA core dump): more than one context per device in
 *    one process;
 *  - gpu.proc_used_bytes (nvidia-smi --query-compute-apps): a GPU holding
 *    processes whose main GPU is another one (each stray context costs
 *    hundreds of MiB: typically every rank touching cuda:0).
 */
#include "analyzer/rules/rulelib.h"

#include <stdio.h>

/* Contexts per device in one process of a CUDA core dump: 1 finding, 0
 * none, -1 failed. */
static int from_core(struct rule_ctx *c)
{
	double n, dev = 0;
	struct rl_finding f;

	if (!q_has_table(c->db, "gpu_context") ||
	    rl_num(c, &n, "SELECT count(*) FROM gpu_context GROUP BY artifact_id, device"
		   " ORDER BY 1 DESC LIMIT 1") < 0 || n < 2)
		return 0;
	rl_num(c, &dev, "SELECT device FROM gpu_context GROUP BY artifact_id, device"
	       " ORDER BY count(*) DESC LIMIT 1");
	rl_finding_init(&f, "contexts", "misconfig", "cuda_context_explosion");
	f.score = 0.6 + 0.3 * rl_clamp01((n - 1) / 4);
	rl_fig(&f, "contexts_per_device", n);
	rl_fig(&f, "device", dev);
	snprintf(f.title, sizeof(f.title), "%.0f CUDA contexts on device %.0f in one process", n, dev);
	rl_advice(&f, "Create one context per device (use the primary context: cudaSetDevice,"
		  " not cuCtxCreate per thread); each extra context costs device memory.");
	return rl_finding_write(c, &f) < 0 ? -1 : 1;
}

/* Stray contexts seen by nvidia-smi's per-process memory: 1 finding, 0
 * none, -1 failed. */
static int from_smi(struct rule_ctx *c)
{
	sqlite3_stmt *st;
	struct rl_finding f;
	int r = 0;

	/* per (gpu, pid) peak; a pid is stray on a GPU where it holds less
	 * than a quarter of what it holds on its main GPU */
	st = rl_prepare(c,
		"WITH pp AS (SELECT substr(s.entity, 1, instr(s.entity, '/') - 1) AS gpu,"
		"  substr(s.entity, instr(s.entity, '/') + 1) AS pid, sample_max(s.id) AS used"
		"  FROM series s WHERE s.name = 'gpu.proc_used_bytes' AND instr(s.entity, '/') > 0"
		"  AND sample_count(s.id) > 0),"
		" mx AS (SELECT pid, max(used) AS main FROM pp GROUP BY pid)"
		" SELECT pp.gpu, count(*), sum(pp.used < mx.main / 4), "
		"  sum(CASE WHEN pp.used < mx.main / 4 THEN pp.used ELSE 0 END),"
		"  (SELECT count(DISTINCT gpu) FROM pp)"
		" FROM pp JOIN mx ON mx.pid = pp.pid GROUP BY pp.gpu ORDER BY 3 DESC LIMIT 1");
	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 2) >= 1) {
		double stray = sqlite3_column_double(st, 2), bytes = sqlite3_column_double(st, 3);
		char b1[32];
		rl_finding_init(&f, "contexts", "misconfig", "cuda_context_explosion");
		f.score = 0.6 + 0.3 * rl_clamp01(stray / 4);
		rl_fig(&f, "contexts_per_device", sqlite3_column_double(st, 1));
		rl_fig(&f, "stray_contexts", stray);
		rl_fig(&f, "stray_context_bytes", bytes);
		rl_fig(&f, "gpus", sqlite3_column_double(st, 4));
		snprintf(f.title, sizeof(f.title), "%s holds %lld processes, %.0f of them stray contexts"
			 " of processes working on other GPUs (%s)", q_text(st, 0),
			 (long long)sqlite3_column_int64(st, 1), stray, rl_bytes(bytes, b1, sizeof(b1)));
		rl_advice(&f, "Each worker should see only its own GPU: set CUDA_VISIBLE_DEVICES per"
			  " rank (or torch.cuda.set_device(local_rank) before any CUDA call); this"
			  " frees %s on %s.", rl_bytes(bytes, b1, sizeof(b1)), q_text(st, 0));
		r = rl_finding_write(c, &f) < 0 ? -1 : 1;
	}
	sqlite3_finalize(st);
	return r;
}

int rule_contexts(struct rule_ctx *c)
{
	static rl_part *const parts[] = { from_core, from_smi, NULL };

	return rl_run_parts(c, parts);
}
