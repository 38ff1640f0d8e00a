/*
 * engine_facts.h -- the serving engines' own memory accounting as the
 * rules read it: one struct per engine instance of the `engine` table
 * (docs/schema.md "Serving engines"), the facts an instance's log does
 * not state taken from its engine's main process in the same log, and
 * the errors it named as a set. A timeline without engine rows (one made
 * by hand, an older oomlens) gives one instance from the server.* meta
 * keys. Read by engine.c, limits.c and startup.c; writes nothing.
 */
#ifndef OOMLENS_ENGINE_FACTS_H
#define OOMLENS_ENGINE_FACTS_H

#include "analyzer/rules/rulelib.h"
#include "analyzer/derive/oom.h"

/* The facts, in the engine table's column order. */
enum rl_ef {
	RL_EF_TOTAL, RL_EF_FREE, RL_EF_UTIL, RL_EF_REQUESTED, RL_EF_WEIGHTS,
	RL_EF_ACT, RL_EF_TORCH_PEAK, RL_EF_NON_TORCH, RL_EF_GRAPHS, RL_EF_KV,
	RL_EF_KV_TOKENS, RL_EF_BLOCKS, RL_EF_CPU_BLOCKS, RL_EF_MAX_CONC,
	RL_EF_MAX_SEQS, RL_EF_MAX_LEN, RL_EF_MAX_PREFILL,
	RL_EF_GPU_LAYERS, RL_EF_MODEL_LAYERS, RL_EF_COMPUTE, RL_EF_REQ_FULL,
	RL_EF_PLANNED_TOTAL, RL_EF_KV_FRACTION, RL_EF__COUNT
};

/* The error kinds (docs/json.md engines[].errors), as bits. */
enum rl_ee {
	RL_EE_KV_NO_MEMORY = 1u << 0, RL_EE_MAX_LEN = 1u << 1, RL_EE_FREE_BELOW = 1u << 2,
	RL_EE_CUDA_OOM = 1u << 3, RL_EE_GRAPH_OOM = 1u << 4, RL_EE_DEAD = 1u << 5,
	RL_EE_PREFILL_OOM = 1u << 6, RL_EE_SHARD = 1u << 7, RL_EE_DECODE_OOM = 1u << 8,
	RL_EE_RETRACT = 1u << 9, RL_EE_NCCL_OOM = 1u << 10, RL_EE_CUBLAS = 1u << 11,
	RL_EE_TRT_OOM = 1u << 12
};

/* The errors that only an engine's start-up raises: it never served. */
#define RL_EE_STARTUP (RL_EE_KV_NO_MEMORY | RL_EE_MAX_LEN | RL_EE_FREE_BELOW | \
		       RL_EE_GRAPH_OOM | RL_EE_PREFILL_OOM | RL_EE_SHARD)
/* The errors that say the card ran out of memory. */
#define RL_EE_OOM (RL_EE_CUDA_OOM | RL_EE_GRAPH_OOM | RL_EE_PREFILL_OOM | RL_EE_DECODE_OOM | \
		   RL_EE_NCCL_OOM | RL_EE_CUBLAS | RL_EE_TRT_OOM)

#define RL_MAX_ENGINES 64

/* SQL, true when artifact `a` (an SQL expression) holds facts of an
 * earlier run than the latest (table oom's run, analyzer/derive/
 * oom_run.c; the answer judges the latest): every failure of its own is
 * of an earlier run; or, with no failure of its own and runs ordered by
 * the files (run_by file_order) or no time of its own (an untimed launch
 * paste), the next file in path order that holds a numbered failure is
 * of an earlier run (inferred from the files' order: a launch command is
 * pasted before the error it led to, 01-command1.sh, 02-error1.log).
 * False everywhere with one run, so one run's facts are all kept, and
 * for a row of no artifact (NULL). */
#define RL_EARLIER_RUN(a) "coalesce(EXISTS (SELECT 1 FROM oom lr WHERE lr.run IS NOT NULL) AND (" \
	"(EXISTS (SELECT 1 FROM oom lr WHERE lr.artifact_id = " a ")" \
	" AND NOT EXISTS (SELECT 1 FROM oom lr WHERE lr.artifact_id = " a \
	"  AND (lr.run IS NULL OR lr.run = (SELECT max(run) FROM oom))))" \
	" OR (NOT EXISTS (SELECT 1 FROM oom lr WHERE lr.artifact_id = " a ")" \
	"  AND ((SELECT lr.run_by FROM oom lr WHERE lr.run IS NOT NULL LIMIT 1) = 'file_order'" \
	"   OR NOT EXISTS (SELECT 1 FROM event le WHERE le.artifact_id = " a " AND le.time_ns IS NOT NULL))" \
	"  AND (SELECT lr.run FROM oom lr JOIN artifact la ON la.id = lr.artifact_id" \
	"   WHERE lr.run IS NOT NULL AND la.path > (SELECT lp.path FROM artifact lp WHERE lp.id = " a ")" \
	"   ORDER BY la.path, lr.run DESC LIMIT 1) < (SELECT max(run) FROM oom))), 0)"

struct rl_engine {
	int64_t id;                 /* engine row; 0 from meta */
	int64_t artifact;
	char engine[16], instance[80];
	double f[RL_EF__COUNT];     /* NAN where unknown */
	unsigned errors;            /* enum rl_ee bits */
	int failed_start;           /* an error line says it failed to start */
	int64_t error_ns;           /* time of its first memory error; OL_NULL none */
	double kv_asked, kv_available; /* SGLang's decode/prefill OOM counts (tokens the
				     * last one asked, had available); NAN unknown */
	unsigned from_launch;       /* bit 1<<k: fact k is the launch paste's value
				     * (launch.* meta), not the log's */
};

/* A numeric meta value (server.*, launch.*) of the latest run: the
 * first row of key not of an earlier run (RL_EARLIER_RUN of its
 * artifact), as rl_meta_num with one run; 0, or -1 when none. */
int rl_run_meta_num(struct rule_ctx *c, const char *key, double *v);
/* The instances, up to max, into e; their number, or -1 (failure
 * recorded in c). */
int rl_engines_read(struct rule_ctx *c, struct rl_engine *e, int max);
/* 1 when fact k is known. */
int rl_ef_known(const struct rl_engine *e, enum rl_ef k);
/* Name in f the knobs start-up phase `phase` answers to whose values only
 * the launch paste states (launch.*: a figure and "As launched: --flag
 * v"), and, at the warm-up, set the knob to half the launched value when
 * f sets none (launch.c). */
void rl_launch_stated(struct rule_ctx *c, struct rl_finding *f, const char *phase,
		      const struct rl_engine *e, int n, enum engine_kind k);
/* The instance of e[0..n) that passes test with the most facts known,
 * and at least `least` of them (the first on a tie); NULL when none
 * does. Shared by engine.c's rules and startup_ggml.c. */
const struct rl_engine *rl_engine_pick(const struct rl_engine *e, int n,
				       int (*test)(const struct rl_engine *), int least);
/* "" or " (vllm pid 7)": the instance, for a finding's title. */
const char *rl_engine_label(const struct rl_engine *e, char *buf, size_t n);

#endif
