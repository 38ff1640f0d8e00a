/*
 * launch.c -- misconfiguration from the knobs an engine ran with, when
 * its OOM came while serving (or in a phase the evidence does not name):
 * the start-up phases are startup.c's and startup_phase.c's. Two
 * judgements, both for the engines that size their pool as a share of
 * the whole card (vLLM's --gpu-memory-utilization, SGLang's
 * --mem-fraction-static; TensorRT-LLM's fraction is of the free memory,
 * TGI's defaults to the whole card, the ggml engines have none):
 *
 *  - utilization_too_high: the share is above 0.9, vLLM's own default
 *    (vllm/engine/arg_utils.py EngineArgs.gpu_memory_utilization) and
 *    above any SGLang picks by itself, as the launch command pasted
 *    beside the failure (launch.*, launch_conf.h) or the engine's own log
 *    states it: the pool leaves the CUDA context, NCCL, the sampler and
 *    each batch's activations less than the engine planned on (below 5 %
 *    of the card from 0.95 on, the stronger finding). 0.9 is the value
 *    to go back to for vLLM; SGLang 0.05 lower, a first step.
 *  - batch_outgrew_pool: a PyTorch OOM inside the engine whose process
 *    held more (allocated + asked) than the share of the card the engine
 *    budgets (the stated share, else the engine's default, said as
 *    inferred), while the memory reserved but unallocated could not hold
 *    the request by itself (so not fragmentation) or what was allocated
 *    had passed the stated budget before the request: the engine's profile
 *    run sized the pool for a peak batch, and a batch outgrew it. The
 *    batch answers to max_num_seqs (and max_num_batched_tokens), as
 *    vLLM's docs on conserving memory advise; a lower share leaves the
 *    batch more room outside the pool. Only for a lone OOM: where memory
 *    was sampled over time, a leak ends above the budget too, and the
 *    leak and spike rules weigh that history.
 *
 * Each names the knob with its value and where the value came from.
 */
#include "analyzer/rules/engine_facts.h"
#include "analyzer/rules/startup_phase.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define UTIL_HIGH 0.95           /* a pool share that leaves < 5 % outside it */
#define VLLM_DEFAULT_UTIL 0.9    /* EngineArgs.gpu_memory_utilization */
#define SCORE_UTIL_HIGH 0.7
#define SCORE_UTIL_ABOVE 0.6     /* above the default, below UTIL_HIGH */
#define SCORE_OUTGREW 0.72       /* the stated share exceeded */
#define SCORE_OUTGREW_DEFAULT 0.64 /* the default share, inferred, exceeded */
#define FRAG_SHARE_MAX 0.1       /* reserved-unallocated under this share of the card */

/* Where the launch paste's knobs came from, into buf: "the <what>
 * pasted beside the failure (<file>, line N)", from launch.source and its
 * artifact, of the latest run (RL_EARLIER_RUN). */
static const char *launch_where(struct rule_ctx *c, char *buf, size_t n)
{
	/* the latest run's paste, as the values came from (rl_run_meta_num) */
	sqlite3_stmt *st = q_has_table(c->db, "oom")
		? rl_prepare(c, "SELECT m.value, coalesce(a.path, '') FROM meta m"
			     " LEFT JOIN artifact a ON a.id = m.artifact_id"
			     " WHERE m.key = 'launch.source' AND NOT " RL_EARLIER_RUN("m.artifact_id")
			     " ORDER BY m.rowid LIMIT 1")
		: rl_prepare(c, "SELECT m.value, coalesce(a.path, '') FROM meta m"
			     " LEFT JOIN artifact a ON a.id = m.artifact_id"
			     " WHERE m.key = 'launch.source' ORDER BY m.rowid LIMIT 1");
	const char *what = "launch command", *file = "";
	char src[160] = "";

	snprintf(buf, n, "the launch command pasted beside the failure");
	if (!st)
		return buf;
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(src, sizeof(src), "%s", q_text(st, 0));
		file = strrchr(q_text(st, 1), '/') ? strrchr(q_text(st, 1), '/') + 1 : q_text(st, 1);
		what = strstr(src, "configuration") ? "configuration" : "launch command";
		snprintf(buf, n, "the %s pasted beside the failure (%s%s%s)", what, file,
			 *file && strstr(src, ", line ") ? "," : "",
			 strstr(src, ", line ") ? strstr(src, ", line ") + 1 : "");
	}
	sqlite3_finalize(st);
	return buf;
}

/* Where fact k of e came from, for a sentence (buf holds it). */
static const char *source_of(struct rule_ctx *c, const struct rl_engine *e, enum rl_ef k,
			     char *buf, size_t n)
{
	if ((e->from_launch >> k) & 1)
		return launch_where(c, buf, n);
	snprintf(buf, n, "the engine's log");
	return buf;
}

/* The figure key of fact k of e: "launched_<key>" when the launch paste
 * states it (reports/labels.c says so), else key; in buf. */
static const char *fig_key(const struct rl_engine *e, enum rl_ef k, const char *key, char *buf,
			   size_t n)
{
	snprintf(buf, n, "%s%s", (e->from_launch >> k) & 1 ? "launched_" : "", key);
	return buf;
}

/* The instance that states the share, else the first one; NULL none. */
static const struct rl_engine *pick(const struct rl_engine *e, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (rl_ef_known(&e[i], RL_EF_UTIL))
			return &e[i];
	return n > 0 ? &e[0] : NULL;
}

/* The OOM event's allocated and reserved-unallocated bytes (-1 unknown). */
static void torch_figures(struct rule_ctx *c, const struct rl_phase *p, double *alloc,
			  double *cached)
{
	*alloc = *cached = -1;
	if (p->event_id <= 0)
		return;
	if (rl_num(c, alloc, "SELECT json_extract(data, '$.allocated_bytes') FROM event"
		   " WHERE id = %lld AND json_valid(data)", (long long)p->event_id) < 0)
		*alloc = -1;
	if (rl_num(c, cached, "SELECT json_extract(data, '$.reserved_unallocated_bytes') FROM event"
		   " WHERE id = %lld AND json_valid(data)", (long long)p->event_id) < 0)
		*cached = -1;
}

static int util_too_high(struct rule_ctx *c, const struct rl_phase *p, const struct rl_engine *e,
			 enum engine_kind k)
{
	struct rl_finding f;
	double util = e->f[RL_EF_UTIL], to;
	const char *flag = engine_knob_flag(k, KR_MEM_FRACTION);
	char src[256], key[64];
	int64_t fid;

	double named = 0;

	if (!rl_ef_known(e, RL_EF_UTIL) || util <= VLLM_DEFAULT_UTIL || util > 1)
		return 0;
	/* a rule that read the engine's own error already set the share (a
	 * library's OOM: 0.05 less, engine.c): its value stands */
	if (rl_num(c, &named, "SELECT count(*) FROM finding WHERE json_valid(figures) AND"
		   " json_extract(figures, '$.advice_knob') = 'gpu_memory_utilization'") == 0 &&
	    named > 0)
		return 0;
	to = k == ENGINE_VLLM ? VLLM_DEFAULT_UTIL : floor((util - 0.05) * 100 + 0.5) / 100;
	rl_finding_init(&f, "launch", "misconfig", "utilization_too_high");
	f.phase = p->phase;
	f.score = util >= UTIL_HIGH ? SCORE_UTIL_HIGH : SCORE_UTIL_ABOVE;
	snprintf(f.title, sizeof(f.title), "%s %g (from %.120s) leaves the CUDA context, the"
		 " sampler and each batch's activations %.0f %% of the card outside the engine's"
		 " pool", flag, util, source_of(c, e, RL_EF_UTIL, src, sizeof(src)), (1 - util) * 100);
	rl_fig(&f, fig_key(e, RL_EF_UTIL, "gpu_memory_utilization", key, sizeof(key)), util);
	if (p->total > 0)
		rl_fig(&f, "outside_pool_bytes", (1 - util) * p->total);
	rl_knob(&f, knob_role_key(KR_MEM_FRACTION), flag, to, "Lower %s from %g to %.2f%s.",
		flag, util, to, k == ENGINE_VLLM ? " (vLLM's default)"
						 : " (a first step; lower it again if it still fails)");
	if (rl_ef_known(e, RL_EF_MAX_SEQS) && engine_knob_flag(k, KR_MAX_SEQS))
		rl_advice(&f, "Or lower %s below %.0f, its value from %s.",
			  engine_knob_flag(k, KR_MAX_SEQS), e->f[RL_EF_MAX_SEQS],
			  source_of(c, e, RL_EF_MAX_SEQS, src, sizeof(src)));
	fid = rl_finding_write(c, &f);
	return fid < 0 || (p->oom_id > 0 && rl_evidence(c, fid, "oom", p->oom_id,
						       "the OOM while serving") < 0) ? -1 : 1;
}

static int outgrew_pool(struct rule_ctx *c, const struct rl_phase *p, const struct rl_engine *e,
			enum engine_kind k)
{
	struct rl_finding f;
	double alloc, cached, util, budget, seqs = e->f[RL_EF_MAX_SEQS], samples = 0;
	const char *flag = engine_knob_flag(k, KR_MAX_SEQS), *uflag = engine_knob_flag(k, KR_MEM_FRACTION);
	int stated = rl_ef_known(e, RL_EF_UTIL);
	char b1[32], b2[32], b3[32], from[256], src[256], key[64];
	int64_t fid;

	/* memory over time: the leak and spike rules weigh the history (a
	 * leak also ends above the budget); this judges the lone OOM */
	if (rl_num(c, &samples, "SELECT count(*) FROM sample") == 0 && samples > 1)
		return 0;
	torch_figures(c, p, &alloc, &cached);
	if (alloc <= 0 || p->req <= 0 || p->total <= 0 || (!stated && k != ENGINE_VLLM))
		return 0;
	util = stated ? e->f[RL_EF_UTIL] : VLLM_DEFAULT_UTIL;
	budget = util * p->total;
	if (util <= 0 || util > 1 || alloc + p->req <= budget)
		return 0;
	/* the cached blocks would hold it: fragmentation's to judge, unless
	 * what was allocated already passed the stated budget by itself (the
	 * batch outgrew the pool the user set, whatever the blocks' layout;
	 * an inferred default is not enough to judge past them) */
	if (cached >= 0 && (!stated || alloc <= budget) &&
	    (cached >= p->req || cached > FRAG_SHARE_MAX * p->total))
		return 0;
	if (stated)
		snprintf(from, sizeof(from), "%s", source_of(c, e, RL_EF_UTIL, src, sizeof(src)));
	else
		snprintf(from, sizeof(from), "vLLM's default, inferred: no share is stated");
	rl_finding_init(&f, "launch", "misconfig", "batch_outgrew_pool");
	f.phase = p->phase;
	f.score = stated ? SCORE_OUTGREW : SCORE_OUTGREW_DEFAULT;
	snprintf(f.title, sizeof(f.title), "A batch outgrew the engine's budget: %s allocated + %s"
		 " asked against %s, %s %.2f (%.120s) of the card", rl_bytes(alloc, b1, sizeof(b1)),
		 rl_bytes(p->req, b2, sizeof(b2)), rl_bytes(budget, b3, sizeof(b3)), uflag, util, from);
	rl_fig(&f, "allocated_bytes", alloc);
	rl_fig(&f, "requested_bytes", p->req);
	rl_fig(&f, "budget_bytes", budget);
	/* the default is inferred: its figure says so by its name */
	rl_fig(&f, stated ? fig_key(e, RL_EF_UTIL, "gpu_memory_utilization", key, sizeof(key))
		   : "default_gpu_memory_utilization", util);
	if (cached >= 0)
		rl_fig(&f, "reserved_unallocated_bytes", cached);
	if (rl_ef_known(e, RL_EF_MAX_SEQS) && seqs >= 2) {
		rl_fig(&f, fig_key(e, RL_EF_MAX_SEQS, "max_num_seqs", key, sizeof(key)), seqs);
		rl_knob(&f, knob_role_key(KR_MAX_SEQS), flag, floor(seqs / 2),
			"Lower %s from %.0f (%s) to %.0f: a first step, not a value the figures"
			" compute.", flag, seqs, source_of(c, e, RL_EF_MAX_SEQS, src, sizeof(src)),
			floor(seqs / 2));
	} else {
		rl_advice(&f, "Lower %s (the sequences one batch runs; its value is not stated"
			  " here) or %s: the engine's profile run sized its pool for a smaller"
			  " peak batch than the one that failed.", flag,
			  engine_knob_flag(k, KR_BATCH_TOKENS));
	}
	rl_advice(&f, "A lower %s leaves a batch more room outside the pool.", uflag);
	fid = rl_finding_write(c, &f);
	return fid < 0 || (p->oom_id > 0 && rl_evidence(c, fid, "oom", p->oom_id,
						       "the OOM inside the engine") < 0) ? -1 : 1;
}

int rule_launch(struct rule_ctx *c)
{
	struct rl_engine e[RL_MAX_ENGINES];
	const struct rl_engine *x;
	struct rl_phase p;
	enum engine_kind k;
	int n, r;

	if ((r = rl_oom_phase(c, &p)) <= 0)
		return r;
	if (p.startup || p.host)
		return 0;
	if ((n = rl_engines_read(c, e, RL_MAX_ENGINES)) < 0)
		return -1;
	if (!(x = pick(e, n)))
		return 0;
	k = engine_kind_from_name(x->engine);
	if (!engine_kind_named(k))
		k = rl_engine_kind(c);
	if (k != ENGINE_VLLM && k != ENGINE_SGLANG)
		return 0;
	if ((r = util_too_high(c, &p, x, k)) != 0)
		return r < 0 ? -1 : 0;
	return outgrew_pool(c, &p, x, k) < 0 ? -1 : 0;
}

/* The roles each start-up phase answers to, whose launched value is named. */
static const struct { const char *phase; enum rl_ef f[2]; enum knob_role r[2]; } phase_roles[] = {
	{ "warmup", { RL_EF_MAX_SEQS, RL_EF_MAX_PREFILL }, { KR_MAX_SEQS, KR_BATCH_TOKENS } },
	{ "profile", { RL_EF_UTIL, RL_EF_MAX_LEN }, { KR_MEM_FRACTION, KR_MAX_LEN } },
	{ "kv_alloc", { RL_EF_UTIL, RL_EF_MAX_LEN }, { KR_MEM_FRACTION, KR_MAX_LEN } },
	{ "startup", { RL_EF_UTIL, RL_EF_MAX_LEN }, { KR_MEM_FRACTION, KR_MAX_LEN } },
	{ "load_weights", { RL_EF_GPU_LAYERS, RL_EF_GPU_LAYERS }, { KR_GPU_LAYERS, KR_GPU_LAYERS } },
};

void rl_launch_stated(struct rule_ctx *c, struct rl_finding *f, const char *phase,
		      const struct rl_engine *e, int n, enum engine_kind k)
{
	char src[256], key[64];
	size_t i;
	int j, m;

	for (i = 0; i < sizeof(phase_roles) / sizeof(phase_roles[0]); i++) {
		if (strcmp(phase_roles[i].phase, phase))
			continue;
		for (j = 0; j < 2; j++) {
			enum rl_ef fk = phase_roles[i].f[j];
			const char *flag = engine_knob_flag(k, phase_roles[i].r[j]);
			double v;
			if (j == 1 && fk == phase_roles[i].f[0])
				break;
			for (m = 0; m < n && !((e[m].from_launch >> fk) & 1); m++)
				;
			if (m == n || !flag)
				continue;
			v = e[m].f[fk];
			snprintf(key, sizeof(key), "launched_%s", knob_role_key(phase_roles[i].r[j]));
			rl_fig(f, key, v);
			rl_advice(f, "As launched: %s %g, from %s.", flag, v,
				  launch_where(c, src, sizeof(src)));
			/* the warm-up runs the largest batch the knobs admit: half
			 * of it is the step the engines' own advice (TGI's "decrease
			 * --max-batch-prefill-tokens") takes first */
			if (!f->knob[0] && !strcmp(phase, "warmup") && v >= 2)
				rl_knob(f, knob_role_key(phase_roles[i].r[j]), flag, floor(v / 2),
					"Lower %s from %g to %.0f: a first step, not a value the"
					" figures compute.", flag, v, floor(v / 2));
		}
	}
}
