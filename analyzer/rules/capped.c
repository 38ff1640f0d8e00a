/*
 * capped.c -- a PyTorch process capped below its card: what the cap
 * explains and what to change. torch.cuda.set_per_process_memory_fraction
 * (or a framework that calls it) caps the caching allocator at a share of
 * the card; PyTorch 2.1+ prints the cap as "C allowed;" (allowed_info,
 * c10/cuda/CUDACachingAllocator.cpp@v2.1.0..@v2.6.0) and refuses a block
 * once what it reserved plus the request passes the cap
 * (allowed_memory_maximum in alloc_block), however much the card has
 * free. card.c reads the figures (struct rl_card: limit, capped,
 * free_reach); the capacity rule's finding and the start-up rule's
 * advice both say it here, so they say it alike.
 */
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdio.h>

/* The cap's figures and advice on f, from k (k->capped). */
void rl_cap_explain(struct rl_finding *f, const struct rl_card *k)
{
	double want = k->reserved + k->req, frac = k->limit / k->total;
	double fit = ceil(100 * want / k->total) / 100;   /* this allocation alone */
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];

	rl_fig(f, "allowed_bytes", k->limit);
	rl_fig(f, "allowed_fraction", frac);
	rl_fig(f, "reserved_plus_request_bytes", want);
	rl_fig(f, "over_cap_bytes", want - k->limit);
	rl_advice(f, "The process was capped at %s of the %s card (\"%s allowed\": a per-process"
		  " memory fraction of about %.2f, set by set_per_process_memory_fraction or the"
		  " framework that set it): %s reserved + the %s asked = %s passes the cap, so the"
		  " %s the card had free was out of this process's reach. The cap, not the card,"
		  " explains this OOM.", rl_bytes(k->limit, b1, sizeof(b1)),
		  rl_bytes(k->total, b2, sizeof(b2)), b1, frac,
		  rl_bytes(k->reserved, b3, sizeof(b3)), rl_bytes(k->req, b4, sizeof(b4)),
		  rl_bytes(want, b5, sizeof(b5)), rl_bytes(k->free, b6, sizeof(b6)));
	if (k->free >= 0 && k->req <= k->free && fit < 1) {
		rl_fig(f, "fraction_to_fit", fit);
		rl_advice(f, "Raise the fraction to at least %.2f (inferred from the message's"
			  " rounded figures; it holds this allocation only, the steps after it need"
			  " more), or lower the load by at least %s (quantised weights, a smaller"
			  " model, a smaller batch or shorter sequences).", fit,
			  rl_bytes(want - k->limit, b1, sizeof(b1)));
	} else
		rl_advice(f, "Raising the fraction would not be enough: the card had %s free, less"
			  " than the %s asked. Lower the load (quantised weights, a smaller model,"
			  " a smaller batch or shorter sequences) or use a larger card.",
			  rl_bytes(k->free, b1, sizeof(b1)), rl_bytes(k->req, b2, sizeof(b2)));
}

int rl_cap_advise(struct rule_ctx *c, struct rl_finding *f)
{
	struct rl_card k;
	int r = rl_card_read(c, &k);

	if (r <= 0 || !k.capped)
		return r < 0 ? -1 : 0;
	rl_cap_explain(f, &k);
	return 1;
}
