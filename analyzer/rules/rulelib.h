/*
 * rulelib.h -- what the rule modules share besides the analysis context
 * (analyzer/derive/dctx.h, included): the memory history before the OOM
 * and the load carried before it (history.c), and the finding and
 * evidence writers (findings.c).
 */
#ifndef OOMLENS_RULELIB_H
#define OOMLENS_RULELIB_H

#include "analyzer/derive/dctx.h"
#include "analyzer/rules/rules.h"

#include "lib/engine_knobs.h"
#include "lib/mem_family.h"

#include <jansson.h>

/* ---- the engine's own knobs (knobs.c) ---- */

/* The incident's serving engine: the first engine-table row that names
 * one (not the PyTorch libraries), else the meta key server.name;
 * ENGINE_NONE when nothing names one. */
enum engine_kind rl_engine_kind(struct rule_ctx *c);
/* How the incident's engine spells the knob of role r (lib/engine_knobs.h:
 * vLLM's when no engine is named); NULL when that engine has none. */
const char *rl_flag(struct rule_ctx *c, enum knob_role r);
/* The same for an engine named name ("sglang", "tensorrt-llm", ...); a
 * name that is no engine ("server", "pytorch", "") falls back to the
 * incident's engine. */
const char *rl_flag_of(struct rule_ctx *c, const char *name, enum knob_role r);
/* The incident's engine as its users write it ("vLLM", "SGLang", "TGI",
 * "TensorRT-LLM", "Triton", "Ollama", "llama.cpp"); "vLLM" when no
 * engine is named (the flags rl_flag gives then). */
const char *rl_engine_title(struct rule_ctx *c);

/* ---- the memory history before the OOM (history.c) ---- */

/* The shape of the memory in use before the OOM, from the longest memory
 * series of a scope (GPU: torch.allocated, gpu.used, torch.reserved, a
 * metrics export's GPU memory; host: proc.rss, proc.anon, cgroup.anon,
 * cgroup.current, a container's working set or RSS), cut at the OOM.
 * Exactly one of grew, surged, steady is 1 when have is 1. */
struct rl_history {
	int have;                   /* a series of >= 8 points spanning >= RL_HISTORY_MIN_S */
	const char *name;           /* its name */
	int64_t series_id;
	double span_s;
	double capacity;            /* what it can grow to (rl_capacity_of); -1 unknown */
	double level;               /* fitted level at the end, before a final rise */
	double growth;              /* of the trend over the span (bytes) */
	double rise;                /* a final rise's height; 0 none */
	int grew, surged, steady;
	int oom;                    /* c->has_oom: "before the OOM", else "up to the last sample" */
};

/* RL_HISTORY_MIN_S (dctx.h): the history a steady load or a leak needs */
#define RL_HISTORY_MIN_CHANGE 0.10  /* growth or rise of the capacity (or level) */

/* Describe the history of scope into h (h->have = 0: none). Uses c->cur
 * and c->best. 0, or -1 failed. */
int rl_history(struct rule_ctx *c, enum rl_scope scope, double capacity, struct rl_history *h);
/* "steady for 42 min", "grew by 3.10 GiB over 2.0 h", ... into buf. */
const char *rl_history_text(const struct rl_history *h, char *buf, size_t n);
struct rl_finding;
/* The history's say on a cause one artifact supports (a kernel report,
 * a killer's message): without history, advice saying it is the
 * likeliest reading of `alone` ("the report"), not proof, and score
 * unchanged; with it, its text, and steady_score when the memory held
 * steady, 0.35 when it grew or surged (the leak and spike rules name
 * those). Returns the score. */
double rl_history_say(struct rl_finding *f, double score, const struct rl_history *h,
		      double steady_score, const char *alone, const char *what);

/* The load the service carried before a time (history.c): server.running
 * (else the KV cache's usage) before and after it. A load is new when its
 * peak exceeds what was carried before by RL_LOAD_NEW_FRAC and
 * RL_LOAD_NEW_MIN requests (RL_LOAD_NEW_MIN_KV of the KV cache). */
struct rl_load {
	int have;                   /* load samples before and after */
	const char *name;           /* the series: server.running, server.gpu_kv_usage */
	int64_t series_id;
	double span_s;              /* of the samples before */
	double carried;             /* their maximum */
	double peak;                /* the maximum from the time to the OOM */
	int novel;                  /* 1 new, 0 carried before, -1 history too short */
};

#define RL_LOAD_NEW_FRAC 0.2
#define RL_LOAD_NEW_MIN 2.0     /* requests: two make a burst (spike.c) */
#define RL_LOAD_NEW_MIN_KV 5.0  /* percentage points of the KV cache */

/* The load before until_ns (carried) and from it to the OOM (peak) into
 * l (l->have = 0: no load series). novel is -1 when the samples
 * before span less than RL_HISTORY_MIN_S. 0, or -1 failed. */
int rl_load_history(struct rule_ctx *c, int64_t until_ns, struct rl_load *l);

/* ---- findings (rulelib.c) ---- */

/* A finding being built: figures and advice are added, then written. */
struct rl_finding {
	const char *rule, *class_, *cause;
	const char *phase;          /* the OOM's phase it judges (lib/vocab.h); NULL none */
	double score;
	char title[300];
	char advice[1200];
	json_t *figures;
	char knob[40], flag[48];    /* rl_knob: the knob its advice sets ("" none) */
	double knob_value;
	char knob_text[400];        /* the sentence that sets it */
};
void rl_finding_init(struct rl_finding *f, const char *rule, const char *class_,
		     const char *cause);
/* A figure; integral values stay integers in the JSON. */
void rl_fig(struct rl_finding *f, const char *key, double v);
/* Append a sentence to the advice. */
void rl_advice(struct rl_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The one knob the advice sets: its key (max_num_seqs,
 * gpu_memory_utilization, max_model_len, memory_limit, ...: the same key
 * for the same knob in every rule), how the engine spells it (flag), the
 * value, and the sentence saying so (appended to the advice when written;
 * figures advice_knob, advice_value). The verdict then leaves one value
 * per knob: the strongest finding's (verdict.c). */
void rl_knob(struct rl_finding *f, const char *knob, const char *flag, double value,
	     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Write it (frees figures); returns the finding id or -1. */
int64_t rl_finding_write(struct rule_ctx *c, struct rl_finding *f);
void rl_finding_drop(struct rl_finding *f);
/* An evidence row of finding_id: the row id of table (<= 0: none) and a
 * note. 0 or -1. */
int rl_evidence(struct rule_ctx *c, int64_t finding_id, const char *table, int64_t id,
		const char *note);
/* ---- what would settle it (settle.c) ------------------------------------ */

/* The platform an OOM happened on, which decides the tools that watch
 * it: lib/mem_family.h's, whose rows name each family's. */
enum rl_platform {
	RL_PLAT_CUDA = MEM_PLAT_CUDA,     /* an NVIDIA card, or not known */
	RL_PLAT_HIP = MEM_PLAT_HIP,       /* an AMD card (HIP/ROCm): rocm-smi, amd-smi */
	RL_PLAT_MPS = MEM_PLAT_MPS,       /* a Mac (PyTorch's MPS backend) */
	RL_PLAT_XLA = MEM_PLAT_XLA,       /* XLA (JAX, TensorFlow, torch_xla; TPU or GPU) */
	RL_PLAT_GGML = MEM_PLAT_GGML,     /* llama.cpp or Ollama (ggml) */
	RL_PLAT_MLX = MEM_PLAT_MLX,       /* a Mac under MLX (its Metal allocator) */
	RL_PLAT_ACCEL = MEM_PLAT_ACCEL,   /* another accelerator (oom.scope accelerator) */
	RL_PLAT_JETSON = MEM_PLAT_JETSON, /* a Jetson (Tegra): tegrastats */
};

/* The platform of the OOM (row 1 of oom): its wording family or its
 * scope (accelerator), else the engines the timeline names; RL_PLAT_CUDA
 * when nothing says otherwise. */
enum rl_platform rl_oom_platform(struct rule_ctx *c);

/* The evidence absent from the timeline that would settle the verdict,
 * each item with the command that collects it on the OOM's platform,
 * "; "-separated into buf (n bytes; "" when nothing is missing). */
void rl_missing_evidence(struct rule_ctx *c, char *buf, size_t n);

/* A SIGKILL the timeline recorded (a process_crash event: a container's
 * exit 137 whose reason was not OOMKilled): its summary into out (n
 * bytes). 1 found, 0 none. */
int rl_unexplained_kill(struct rule_ctx *c, char *out, size_t n);

/* A per-process cap (struct rl_card's capped; capped.c): its figures and
 * advice on f. rl_cap_advise reads c's card first: 1 said, 0 no cap, -1. */
void rl_cap_explain(struct rl_finding *f, const struct rl_card *k);
int rl_cap_advise(struct rule_ctx *c, struct rl_finding *f);

#endif
