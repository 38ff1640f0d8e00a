/*
 * limits.c -- misconfiguration: a configured limit larger than what the
 * device has.
 *
 *  - server.gpu_memory_utilization x total + the memory other processes
 *    hold on that GPU (gpu.proc_used_bytes of other pids) > total;
 *  - server.max_num_seqs x per-request need > total - baseline: the server
 *    admits more concurrent requests than fit (a contributing cause: it is
 *    what lets a burst through, score LIMIT_SEQS_SCORE).
 */
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdio.h>

#define LIMIT_UTIL_SCORE 0.85
#define LIMIT_SEQS_SCORE 0.45

/* gpu_memory_utilization claiming more than other processes leave: 1
 * finding, 0 none, -1 failed. */
static int util_limit(struct rule_ctx *c)
{
	double util, total, others = 0, mine = 0;
	struct rl_finding f;
	sqlite3_stmt *st;
	int64_t fid;
	char b1[32], b2[32], b3[32];

	if (rl_meta_num(c, "server.gpu_memory_utilization", &util) < 0 || util <= 0 || util > 1 ||
	    rl_gpu_total(c, &total) < 0)
		return 0;
	/* per process peak on the first GPU listed; the largest is the server */
	st = rl_prepare(c,
		"SELECT s.entity, max(p.value) FROM series s JOIN sample p ON p.series_id = s.id"
		" WHERE s.name = 'gpu.proc_used_bytes' AND substr(s.entity, 1, instr(s.entity, '/'))"
		" = (SELECT substr(entity, 1, instr(entity, '/')) FROM series WHERE name ="
		" 'gpu.proc_used_bytes' ORDER BY entity LIMIT 1) GROUP BY s.entity"
		" ORDER BY 2 DESC");
	if (!st)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (mine == 0)
			mine = sqlite3_column_double(st, 1);
		else
			others += sqlite3_column_double(st, 1);
	}
	sqlite3_finalize(st);
	if (util * total + others <= total)
		return 0;
	rl_finding_init(&f, "limits", "misconfig", "limit");
	f.score = LIMIT_UTIL_SCORE;
	rl_fig(&f, "gpu_memory_utilization", util);
	rl_fig(&f, "total_bytes", total);
	rl_fig(&f, "other_processes_bytes", others);
	rl_fig(&f, "suggested_gpu_memory_utilization", floor(((total - others) / total - 0.02) * 100) / 100);
	snprintf(f.title, sizeof(f.title), "gpu_memory_utilization %.2f claims %s of %s while other"
		 " processes hold %s on the GPU", util, rl_bytes(util * total, b1, sizeof(b1)),
		 rl_bytes(total, b2, sizeof(b2)), rl_bytes(others, b3, sizeof(b3)));
	rl_advice(&f, "Or move the other processes off this GPU.");
	rl_knob(&f, "gpu_memory_utilization", "--gpu-memory-utilization",
		floor(((total - others) / total - 0.02) * 100) / 100,
		"Set --gpu-memory-utilization to at most %.2f.",
		floor(((total - others) / total - 0.02) * 100) / 100);
	fid = rl_finding_write(c, &f);
	return fid < 0 ? -1 : 1;
}

/* max_num_seqs admitting more requests than fit over the baseline: 1
 * finding, 0 none, -1 failed. */
static int seqs_limit(struct rule_ctx *c)
{
	int64_t until = c->oom_ns;
	double seqs, need, total, base, w, kv, safe;
	const char *how;
	struct rl_finding f;
	char b1[32], b2[32], b3[32];

	if (rl_meta_num(c, "server.max_num_seqs", &seqs) < 0 || seqs < 1 ||
	    rl_gpu_total(c, &total) < 0 || rl_per_request(c, until, &need, &how) < 0)
		return 0;
	if (rl_baseline(c, "gpu.used_bytes", until, &base, NULL) < 0) {
		if (rl_meta_num(c, "server.weights_bytes", &w) < 0 ||
		    rl_meta_num(c, "server.kv_cache_bytes", &kv) < 0)
			return 0;
		base = w + kv;
	}
	if (total <= base || seqs * need <= total - base)
		return 0;
	safe = floor((total - base) / need * 0.7);
	rl_finding_init(&f, "limits", "misconfig", "max_num_seqs");
	f.score = LIMIT_SEQS_SCORE;
	rl_fig(&f, "max_num_seqs", seqs);
	rl_fig(&f, "per_request_bytes", floor(need));
	rl_fig(&f, "baseline_bytes", floor(base));
	rl_fig(&f, "safe_concurrency", safe);
	snprintf(f.title, sizeof(f.title), "max_num_seqs %.0f x %s per request exceeds the %s left"
		 " over the baseline", seqs, rl_bytes(need, b1, sizeof(b1)),
		 rl_bytes(total - base, b2, sizeof(b2)));
	rl_knob(&f, "max_num_seqs", "--max-num-seqs", safe > 1 ? safe : 1,
		"Lower --max-num-seqs to %.0f ((%s - %s) / %s x 0.7).", safe > 1 ? safe : 1,
		rl_bytes(total, b1, sizeof(b1)), rl_bytes(base, b2, sizeof(b2)),
		rl_bytes(need, b3, sizeof(b3)));
	return rl_finding_write(c, &f) < 0 ? -1 : 1;
}

int rule_limits(struct rule_ctx *c)
{
	static rl_part *const parts[] = { util_limit, seqs_limit, NULL };

	return rl_run_parts(c, parts);
}
