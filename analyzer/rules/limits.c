/*
 * limits.c -- misconfiguration: a configured limit larger than what the
 * device has.
 *
 *  - server.gpu_memory_utilization x total + the memory other processes
 *    hold on that GPU (gpu.proc_used_bytes of other pids) > total;
 *  - the free memory the serving engine found at start-up below what its
 *    gpu_memory_utilization asks for (another tenant holds the rest): the
 *    engine's own error, or its free and total figures; with nvidia-smi's
 *    process list over time, the tenants on the card at that start-up are
 *    named, with how much they held and since when;
 *
 * The concurrency the server admits against the room it has is
 * headroom.c's, which measures that room.
 */
#include "analyzer/rules/engine_facts.h"
#include "lib/timeutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIMIT_UTIL_SCORE 0.85
#define FREE_PROVEN 0.9          /* the engine's own error says it */
#define FREE_FIGURES 0.8         /* its figures say it */
#define UTIL_MARGIN 0.02         /* below the free share: the driver's and NCCL's own */

/* 1 when the engine (named, else the incident's) sizes its pool as a
 * share of the whole card (vLLM, SGLang, TGI): TensorRT-LLM's fraction is
 * of the memory left free, and the ggml engines have none. */
static int share_of_card(struct rule_ctx *c, const char *engine)
{
	enum engine_kind k = engine_kind_from_name(engine);

	if (!engine_kind_named(k))
		k = rl_engine_kind(c);
	return k != ENGINE_TRTLLM && k != ENGINE_TRITON && engine_knob_flag(k, KR_MEM_FRACTION);
}

/* gpu_memory_utilization claiming more than other processes leave: 1
 * finding, 0 none, -1 failed. */
static int util_limit(struct rule_ctx *c)
{
	double util, total, others = 0, mine = 0;
	struct rl_finding f;
	sqlite3_stmt *st;
	int64_t fid;
	char b1[32], b2[32], b3[32];

	if (rl_run_meta_num(c, "server.gpu_memory_utilization", &util) < 0 || util <= 0 || util > 1 ||
	    rl_gpu_total(c, &total) < 0)
		return 0;
	/* per process peak on the first GPU listed; the largest is the server */
	st = rl_prepare(c,
		"SELECT s.entity, max(sample_max(s.id)) FROM series s"
		" WHERE s.name = 'gpu.proc_used_bytes' AND substr(s.entity, 1, instr(s.entity, '/'))"
		" = (SELECT substr(entity, 1, instr(entity, '/')) FROM series WHERE name ="
		" 'gpu.proc_used_bytes' ORDER BY entity LIMIT 1) AND sample_count(s.id) > 0"
		" GROUP BY s.entity ORDER BY 2 DESC");
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
	if (share_of_card(c, NULL))
		rl_knob(&f, "gpu_memory_utilization", rl_flag(c, KR_MEM_FRACTION),
			floor(((total - others) / total - 0.02) * 100) / 100,
			"Set %s to at most %.2f.", rl_flag(c, KR_MEM_FRACTION),
			floor(((total - others) / total - 0.02) * 100) / 100);
	fid = rl_finding_write(c, &f);
	return fid < 0 ? -1 : 1;
}

/* The pid an engine instance's label names ("pid 5120", "rank 0 pid
 * 7"), or -1. */
static long long engine_pid(const struct rl_engine *e)
{
	const char *p = strstr(e->instance, "pid ");

	return p ? strtoll(p + 4, NULL, 10) : -1;
}

/* The processes on the card at the last process-list capture at or before
 * until_ns (OL_NULL: the last capture), other than pid skip, when the list
 * is of one card (else none is named: 0): named in f
 * (title, advice, figures other_tenant_pid / other_tenant_bytes for the
 * largest). 1 when one was found, 0 none, -1 failed. */
static int name_tenants(struct rule_ctx *c, int64_t until_ns, long long skip, struct rl_finding *f)
{
	sqlite3_stmt *st;
	char b1[32], since[40], name[120], key[200];
	long long pid;
	double bytes;
	int64_t first;
	const char *ent;
	double cards;
	int n = 0;

	/* the list must be of one card: which card the engine found short is
	 * not told, and a process on another one is no tenant of it */
	if (rl_num(c, &cards, "SELECT count(DISTINCT substr(entity, 1, instr(entity, '/pid:')))"
		   " FROM series WHERE name = 'gpu.proc_used_bytes'") < 0 || cards != 1)
		return c->failed ? -1 : 0;
	st = rl_prepare(c,
		"WITH t AS (SELECT max(sample_last_ns(id, ?1)) AS at FROM series"
		" WHERE name = 'gpu.proc_used_bytes')"
		" SELECT entity, mx, sample_first_ns(id), local FROM (SELECT s.id, s.entity,"
		" sample_max(s.id, t.at - 2000000000, t.at) AS mx,"
		" EXISTS (SELECT 1 FROM meta m WHERE m.artifact_id = s.artifact_id AND m.key = 'time.clock'"
		" AND m.value = 'local') AS local"
		" FROM series s, t WHERE s.name = 'gpu.proc_used_bytes' AND t.at IS NOT NULL)"
		" WHERE mx > 0 ORDER BY 2 DESC");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, until_ns == OL_NULL ? INT64_MAX : until_ns);
	while (sqlite3_step(st) == SQLITE_ROW) {
		ent = (const char *)sqlite3_column_text(st, 0);
		if (!ent || !strstr(ent, "/pid:") || sscanf(strstr(ent, "/pid:") + 5, "%lld", &pid) != 1 ||
		    pid == skip)
			continue;
		bytes = sqlite3_column_double(st, 1);
		first = sqlite3_column_int64(st, 2);
		snprintf(key, sizeof(key), "gpu.proc_name.%s", ent);
		if (rl_meta_text(c, key, name, sizeof(name)) < 0 || !name[0])
			snprintf(name, sizeof(name), "?");
		format_iso8601(first, since, sizeof(since));
		if (n++ == 0) {
			rl_fig(f, "other_tenant_pid", (double)pid);
			rl_fig(f, "other_tenant_bytes", bytes);
		}
		rl_advice(f, "nvidia-smi's process list at the start-up shows pid %lld (%s) holding"
			  " %s of the card, listed there since %s%s.", pid, name,
			  rl_bytes(bytes, b1, sizeof(b1)), since, sqlite3_column_int(st, 3) ?
			  " (the list's local time, no zone in it: read as UTC)" : "");
	}
	sqlite3_finalize(st);
	return c->failed ? -1 : n > 0;
}

/* The free memory an engine found at start-up below what its
 * gpu_memory_utilization asks for: 1 finding, 0 none, -1 failed. */
static int free_at_start(struct rule_ctx *c)
{
	struct rl_engine e[RL_MAX_ENGINES];
	const struct rl_engine *x = NULL;
	double total, free_, util, want, nu;
	struct rl_finding f;
	char b1[32], b2[32], b3[32], b4[32], who[100];
	int n = rl_engines_read(c, e, RL_MAX_ENGINES), i, tenants;
	int64_t fid;

	if (n < 0)
		return -1;
	for (i = 0; i < n && !x; i++)
		if (rl_ef_known(&e[i], RL_EF_TOTAL) && rl_ef_known(&e[i], RL_EF_FREE) &&
		    rl_ef_known(&e[i], RL_EF_UTIL) && e[i].f[RL_EF_TOTAL] > 0 &&
		    e[i].f[RL_EF_UTIL] > 0 && e[i].f[RL_EF_UTIL] <= 1 &&
		    ((e[i].errors & RL_EE_FREE_BELOW) ||
		     e[i].f[RL_EF_FREE] < e[i].f[RL_EF_UTIL] * e[i].f[RL_EF_TOTAL]))
			x = &e[i];
	if (!x)
		return 0;
	total = x->f[RL_EF_TOTAL], free_ = x->f[RL_EF_FREE], util = x->f[RL_EF_UTIL];
	want = rl_ef_known(x, RL_EF_REQUESTED) ? x->f[RL_EF_REQUESTED] : util * total;
	nu = floor((free_ / total - UTIL_MARGIN) * 100) / 100;
	rl_finding_init(&f, "limits", "misconfig", "free_below_utilization");
	f.score = x->errors & RL_EE_FREE_BELOW ? FREE_PROVEN : FREE_FIGURES;
	rl_fig(&f, "total_bytes", total);
	rl_fig(&f, "free_at_start_bytes", free_);
	rl_fig(&f, "gpu_memory_utilization", util);
	rl_fig(&f, "requested_bytes", want);
	rl_fig(&f, "other_tenants_bytes", total - free_);
	rl_fig(&f, "suggested_gpu_memory_utilization", nu > 0 ? nu : 0);
	snprintf(f.title, sizeof(f.title), "%s%s found %s free of %s at start-up, less than"
		 " gpu_memory_utilization %.2f asks for (%s): %s was held by others",
		 x->engine, rl_engine_label(x, who, sizeof(who)), rl_bytes(free_, b1, sizeof(b1)),
		 rl_bytes(total, b2, sizeof(b2)), util, rl_bytes(want, b3, sizeof(b3)),
		 rl_bytes(total - free_, b4, sizeof(b4)));
	if ((tenants = name_tenants(c, x->error_ns, engine_pid(x), &f)) < 0)
		return -1;
	rl_advice(&f, "The configuration, not the traffic, failed: the engine never served."
		  " Or free the card of the other tenant%s.",
		  tenants ? "" : " (nvidia-smi --query-compute-apps lists its processes)");
	if (nu > 0 && share_of_card(c, x->engine))
		rl_knob(&f, "gpu_memory_utilization", rl_flag_of(c, x->engine, KR_MEM_FRACTION), nu,
			"Set %s to at most %.2f (the %s free of %s, less %.0f%%).",
			rl_flag_of(c, x->engine, KR_MEM_FRACTION),
			nu, rl_bytes(free_, b1, sizeof(b1)), rl_bytes(total, b2, sizeof(b2)),
			UTIL_MARGIN * 100);
	fid = rl_finding_write(c, &f);
	if (fid < 0 || (x->id > 0 && rl_evidence(c, fid, "engine", x->id, "free memory at start-up") < 0))
		return -1;
	return 1;
}

int rule_limits(struct rule_ctx *c)
{
	static rl_part *const parts[] = { util_limit, free_at_start, NULL };

	return rl_run_parts(c, parts);
}
