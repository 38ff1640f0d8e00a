/*
 * startup_slots.c -- llama.cpp's and Ollama's parallel slots at a
 * start-up OOM (see startup_phase.h). llama.cpp sizes one KV cache for
 * all its sequences: kv_size is the per-sequence context (n_ctx_per_seq)
 * times the sequences it may run at once (n_seq_max: llama-server's
 * --parallel, Ollama's OLLAMA_NUM_PARALLEL, which Ollama multiplies into
 * the context it asks for), and the compute buffer reserved after the
 * cache (the worst-case graph against the whole cache) grows with it.
 * Where the engine printed both figures and the cache is several
 * sequences' worth, the slots are the multiplier to lower first: the
 * context a request sees is unchanged. Real case: ollama#10735 (set 6),
 * kv_size 655360 for n_ctx_per_seq 32768, the 51200 MiB cache allocated
 * and a 42256 MiB compute buffer refused on an H100.
 */
#include "analyzer/rules/startup_phase.h"

#include "lib/engine_knobs.h"

#include <math.h>
#include <string.h>

#define SLOTS_MIN 2          /* fewer is one sequence's cache: not the slots */
#define SLOTS_EXACT 0.05     /* kv_size is padded (to 256 cells): near a whole number */

/* For p (a start-up OOM of stack, llama.cpp or Ollama, in the profile or
 * profile phase on a card: the compute buffer's reservation, after the
 * cache was allocated) and g (its instance's facts): when the KV
 * cache holds SLOTS_MIN or more sequences of the per-sequence context,
 * f's figures, advice and knob (max_num_seqs, the engine's slot flag)
 * with a value: the slots whose cache and failed buffer fit in what held
 * the cache, both shrinking with the slots. Returns 1 when it wrote the
 * knob, 0 when the figures do not show slots. Never fails. */
int rl_ggml_slots(const struct rl_phase *p, const char *stack, const struct rl_engine *g,
		  struct rl_finding *f)
{
	enum engine_kind k = !strcmp(stack, "ollama") ? ENGINE_OLLAMA : ENGINE_LLAMACPP;
	const char *flag = engine_knob_flag(k, KR_MAX_SEQS);
	double cells, len, slots, kv, fit;
	char b1[32], b2[32];

	if (p->host || !flag || strcmp(p->phase, "profile") ||
	    !rl_ef_known(g, RL_EF_KV_TOKENS) || !rl_ef_known(g, RL_EF_MAX_LEN) ||
	    !rl_ef_known(g, RL_EF_KV) || p->req <= 0)
		return 0;
	cells = g->f[RL_EF_KV_TOKENS];
	len = g->f[RL_EF_MAX_LEN];
	kv = g->f[RL_EF_KV];
	if (len < 1 || kv <= 0 || (slots = cells / len) < SLOTS_MIN ||
	    fabs(slots - floor(slots + 0.5)) > SLOTS_EXACT)
		return 0;
	slots = floor(slots + 0.5);
	/* the compute buffer was reserved after the cache: the memory that
	 * held the cache must hold both once they shrink with the slots */
	fit = floor(slots * kv / (kv + p->req));
	if (fit < 1)
		fit = 1;
	rl_fig(f, "kv_cache_tokens", cells);
	rl_fig(f, "context_per_sequence", len);
	rl_fig(f, "parallel_sequences", slots);
	rl_advice(f, "The KV cache was sized for %.0f tokens: %.0f parallel sequences of %.0f"
		  " (n_ctx_per_seq), and the compute buffer reserved against it grows with it.",
		  cells, slots, len);
	rl_knob(f, "max_num_seqs", flag, fit,
		"Lower the parallel sequences from %.0f to %.0f (%s=%.0f): the %s cache was"
		" allocated, and it and the %s that failed shrink together with the sequences"
		" (an estimate from the engine's own sizes); each request keeps its %.0f tokens.",
		slots, fit, flag, fit, rl_bytes(kv, b1, sizeof(b1)), rl_bytes(p->req, b2, sizeof(b2)),
		len);
	return 1;
}
