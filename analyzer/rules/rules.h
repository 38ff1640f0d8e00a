/*
 * rules.h -- the rule modules and the verdict.
 *
 * Each rule (analyzer/rules/<name>.c) reads the timeline with SQL and
 * writes findings (finding + evidence rows). verdict.c then combines the
 * findings into the incident's one verdict row. Rules never parse files.
 */
#ifndef OOMLENS_RULES_H
#define OOMLENS_RULES_H

#include "analyzer/store/timeline.h"

/* What one analysis shares among its rules (rulelib.h): made by
 * analyze_timeline() for each run, so a rule keeps no state of its own. */
struct rule_ctx;

struct rule {
	const char *name;
	const char *what;
	int (*run)(struct rule_ctx *c);   /* findings written, or -1 */
};

extern const struct rule rule_table[];

/* The rule modules (analyzer/rules/<name>.c), listed in verdict.c. */
int rule_leak(struct rule_ctx *c);
int rule_spike(struct rule_ctx *c);
int rule_bench_load(struct rule_ctx *c);
int rule_headroom(struct rule_ctx *c);
int rule_limits(struct rule_ctx *c);
int rule_fragmentation(struct rule_ctx *c);
int rule_contexts(struct rule_ctx *c);
int rule_victim(struct rule_ctx *c);
int rule_capacity(struct rule_ctx *c);
int rule_kernel(struct rule_ctx *c);
int rule_killers(struct rule_ctx *c);
int rule_settings(struct rule_ctx *c);
int rule_engine(struct rule_ctx *c);
int rule_startup(struct rule_ctx *c);
int rule_buildkill(struct rule_ctx *c);
int rule_cumem_pool(struct rule_ctx *c);
int rule_buffer_limit(struct rule_ctx *c);
/* misconfig: PyTorch's DataLoader workers out of shared memory (shm_limit.c) */
int rule_shm_limit(struct rule_ctx *c);
/* misconfig: a pool sized once by a setting is full (DyNet/cnn, vLLM's CPU
 * swap space; pool_limit.c) */
int rule_pool_limit(struct rule_ctx *c);
/* misconfig: a llama.cpp/Ollama GPU plan that left no room, beside an OOM
 * whose phase is not shown (offload.c) */
int rule_offload_fit(struct rule_ctx *c);
int rule_kvleak(struct rule_ctx *c);
/* leak: a later failure of the same card, asking no more, held more (returned.c) */
int rule_returned(struct rule_ctx *c);
/* leak: a model load that failed after the same process had served (reload.c) */
int rule_reload(struct rule_ctx *c);
int rule_retract(struct rule_ctx *c);
int rule_projected(struct rule_ctx *c);   /* projected.c */
int rule_queued(struct rule_ctx *c);      /* queued.c */
int rule_kv_slots(struct rule_ctx *c);    /* kv_slots.c */
int rule_input_op(struct rule_ctx *c);    /* input_op.c */
int rule_fallback(struct rule_ctx *c);
int rule_launch(struct rule_ctx *c);
int rule_mps(struct rule_ctx *c);
int rule_xla(struct rule_ctx *c);
int rule_static_fraction(struct rule_ctx *c);
int rule_training(struct rule_ctx *c);
int rule_progress(struct rule_ctx *c);
int rule_samples(struct rule_ctx *c);
/* a SIGKILL of unknown sender while the log shows a start-up stage
 * (startup_killed.c) */
int rule_startup_killed(struct rule_ctx *c);
/* the program's own leak check or statement (leak_stated.c) */
int rule_leak_stated(struct rule_ctx *c);
/* leak leaned from when it failed: an epoch counter past the first
 * (lean_when.c) */
int rule_lean_when(struct rule_ctx *c);
/* misconfig inferred from the phase when nothing else decides (phase_inferred.c) */
int rule_phase_inferred(struct rule_ctx *c);
/* The critic pass (critic.c): every finding's advice and title checked
 * against the facts they rely on, corrected or withdrawn; run after the
 * rules, before the verdict's one value per knob. 0 or -1. */
int rule_critic(struct rule_ctx *c);

/* A finding counts toward the verdict from this score on. */
#define VERDICT_MIN_SCORE 0.3

struct strbuf;

/* Clear old findings, run every rule, write the verdict, in one
 * transaction. 0, or -1 with why in err (may be NULL) and the timeline as
 * it was before the call. Prints nothing. */
int analyze_timeline(struct timeline *tl, struct strbuf *err);

#endif
