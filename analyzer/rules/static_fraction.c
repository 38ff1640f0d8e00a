/*
 * static_fraction.c -- misconfiguration: an engine that takes a fixed
 * share of the card at start-up (SGLang's --mem-fraction-static: the
 * weights and the KV pool) left less than the request that failed.
 *
 * SGLang sizes its KV pool so that the weights and the pool fill
 * mem_fraction_static of the card (python/sglang/srt/model_executor/
 * model_runner.py, profile_max_num_token); everything else the process
 * allocates later -- activations, CUDA graphs, communication buffers such
 * as the symmetric-memory pool, kernel autotuning workspaces -- must fit
 * in the remaining (1 - fraction) of the card. When PyTorch's message
 * shows this process holding at least that share and the request larger
 * than what was free, the fraction is what left no room (NVIDIA/srt-slurm
 * #172: 4 GiB asked with 2.21 of 184 GiB free at 0.95). The value given
 * is the fraction that frees the shortfall with a margin, from the
 * message's own figures.
 */
#include "analyzer/rules/engine_facts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SF_TAKEN 0.97     /* the process holds (nearly) its static share */
#define SF_MARGIN 1.5     /* free the shortfall half again over */

/* The first instance of an engine whose fraction is static (SGLang), with
 * its fraction; NULL when none states one. */
static const struct rl_engine *static_engine(const struct rl_engine *e, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(e[i].engine, "sglang") && rl_ef_known(&e[i], RL_EF_UTIL) &&
		    e[i].f[RL_EF_UTIL] > 0 && e[i].f[RL_EF_UTIL] < 1)
			return &e[i];
	return NULL;
}

int rule_static_fraction(struct rule_ctx *c)
{
	struct rl_engine e[RL_MAX_ENGINES];
	const struct rl_engine *s;
	struct rl_card k;
	struct rl_finding f;
	double frac, share, shortfall, fit;
	char b1[32], b2[32], b3[32], b4[32];
	int n, r;
	int64_t fid;

	n = rl_engines_read(c, e, RL_MAX_ENGINES);
	if (n < 0)
		return -1;
	if (!(s = static_engine(e, n)))
		return 0;
	r = rl_card_read(c, &k);
	if (r < 0)
		return -1;
	/* the message's own card: its total, free, request and this process */
	if (r == 0 || k.total <= 0 || k.free < 0 || k.req <= 0 || k.self <= 0)
		return 0;
	frac = s->f[RL_EF_UTIL];
	share = frac * k.total;
	if (k.req <= k.free || k.self < SF_TAKEN * share)
		return 0;   /* the request fitted, or the share was not yet taken */
	shortfall = k.req - k.free;
	fit = floor((frac - SF_MARGIN * shortfall / k.total) * 100) / 100;
	rl_finding_init(&f, "static_fraction", "misconfig", "static_fraction_too_high");
	f.score = 0.7;
	rl_fig(&f, "mem_fraction_static", frac);
	rl_fig(&f, "total_bytes", k.total);
	rl_fig(&f, "free_bytes", k.free);
	rl_fig(&f, "requested_bytes", k.req);
	rl_fig(&f, "process_in_use_bytes", k.self);
	rl_fig(&f, "advice_knob_value", fit);
	snprintf(f.title, sizeof(f.title), "--mem-fraction-static %.2f left too little of the card"
		 " outside SGLang's weights and KV pool: %s asked with %s free of %s (this process"
		 " holds %s)", frac, rl_bytes(k.req, b1, sizeof(b1)), rl_bytes(k.free, b2, sizeof(b2)),
		 rl_bytes(k.total, b3, sizeof(b3)), rl_bytes(k.self, b4, sizeof(b4)));
	if (fit > 0)
		rl_advice(&f, "SGLang fills --mem-fraction-static of the card with the weights and"
			  " the KV pool; activations, CUDA graphs, communication buffers (the"
			  " symmetric-memory pool) and kernel autotuning live in the rest. Lower it"
			  " to %.2f or less: that frees the %s the request lacked, with a margin.",
			  fit, rl_bytes(shortfall, b1, sizeof(b1)));
	else
		rl_advice(&f, "SGLang fills --mem-fraction-static of the card with the weights and"
			  " the KV pool; the rest did not hold this request: lower it, or shard the"
			  " model over more cards.");
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "event", k.ev, "PyTorch's out-of-memory message") < 0)
		return -1;
	return 1;
}
