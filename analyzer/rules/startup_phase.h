/*
 * startup_phase.h -- the phase of the OOM decides with the evidence
 * (issue 27): an OOM that the parsers placed before any request was
 * served (loading weights, the profile run or compute-buffer reservation,
 * the KV cache, CUDA-graph capture, the warm-up) is a configuration that
 * does not fit, named with its phase and the knob that phase answers to,
 * with a value where the engine's own numbers give one. Read by
 * startup.c, which writes the finding; writes nothing itself.
 */
#ifndef OOMLENS_STARTUP_PHASE_H
#define OOMLENS_STARTUP_PHASE_H

#include "analyzer/rules/engine_facts.h"

/* What row 1 of table oom (the OOM) says of its phase. */
struct rl_phase {
	char phase[16];             /* lib/vocab.h's phase name; "unknown" none */
	char family[24];            /* the wording family; "" none */
	char stack[20];             /* the training stack (lib/vocab.h stacks); "" none */
	int startup;                /* 1: load_weights, profile, kv_alloc, graph_capture, warmup,
				     * startup (before serving, the stage not shown) */
	int host;                   /* 1: the failed buffer was host memory (oom.scope
				     * 'host': ggml's CPU buffers), not a card's */
	char scope[16];             /* oom.scope: gpu, host, tpu, unified, accelerator */
	int64_t oom_id, event_id;   /* 0 none */
	double req;                 /* bytes the failed allocation asked; -1 unknown */
	double free, total;         /* what the failure itself states of the card
				     * (free when it failed, capacity); -1 unknown */
	char text[400];             /* the failure's own text (event data text or summary) */
	char graph[12];             /* whose compute graph failed, as the parser read it
				     * (event data graph): "projector" (a multimodal
				     * projector's warm-up), "" the text model's or unsaid */
	double kv_fraction;         /* a self-sized KV cache's stated share of the free
				     * memory (rl_phase_room); -1 none */
	char app[32];               /* the program whose stage line placed it (event
				     * data app: "whisper.cpp", "llama-server"...); "" none */
};

/* Read the OOM's phase into p. 1 read (p->startup says whether it is a
 * start-up phase), 0 no OOM row, -1 failed (recorded in c). */
int rl_oom_phase(struct rule_ctx *c, struct rl_phase *p);

/* Requests served earlier in the same run of the log of a load_weights
 * OOM (reload.c): 1 with *count and *line (the last served line), 0
 * none, -1 failed. A load after serving is not "before any request". */
int rl_served_before_load(struct rule_ctx *c, double *count, double *line);

/* "loading the model's weights", ...: the phase for a title. */
const char *rl_phase_doing(const char *phase);

/* The phase of p for a title: rl_phase_doing's, but DeepSpeed's engine
 * set-up where the parsers placed a DeepSpeed job's OOM in load_weights. */
const char *rl_phase_doing_of(const struct rl_phase *p);

/* 1 when p's failure was found by a compiler laying the program out
 * (XLA's compile-time out of memory): the program cannot fit the device,
 * whatever phase its frames name, before any step of it ran. */
int rl_phase_compile_time(const struct rl_phase *p);

/* The advice of a ggml failure of a program other than llama.cpp and
 * Ollama (startup_apps.c): its own knobs, not llama.cpp's flags. The
 * cause written, or NULL when p's app is none such (the caller goes on). */
const char *rl_phase_advise_ggml_app(const struct rl_phase *p, struct rl_finding *f);

/* 1 when p's stack is DeepSpeed's (any ZeRO stage). */
int rl_phase_deepspeed(const struct rl_phase *p);

/* The cause of a start-up phase (lib/vocab.h: weights_do_not_fit,
 * cache_does_not_fit, graphs_do_not_fit, warmup_does_not_fit,
 * gpu_layers; startup_oom when the stage is not shown), and f's knob, value and advice for it, from the engines'
 * facts in e[0..n) and the OOM. Returns the cause (static). */
const char *rl_phase_advise(struct rule_ctx *c, const struct rl_phase *p,
			    const struct rl_engine *e, int n, struct rl_finding *f);

/* The cause and f's advice for p, a start-up OOM of host memory (p->host)
 * while the weights loaded: the host's knobs, in stack's words where it
 * has its own (startup_host.c). Returns the cause (static). Never fails. */
const char *rl_phase_advise_host_load(const struct rl_phase *p, const char *stack,
				      struct rl_finding *f);

/* The cause and f's advice for p, a start-up OOM in a multimodal
 * projector's warm-up (p->graph "projector"): the projector's knobs, in
 * stack's words (startup_projector.c). Returns the cause (static). Never
 * fails. */
const char *rl_phase_advise_projector(const struct rl_phase *p, const char *stack,
				      struct rl_finding *f);

/* For a llama.cpp or Ollama start-up OOM (p, of stack) whose instance g
 * printed a KV cache of several sequences' context: f's figures, advice
 * and knob (the parallel sequences, with a value). 1 written, 0 the
 * figures show no slots (startup_slots.c). Never fails. */
int rl_ggml_slots(const struct rl_phase *p, const char *stack, const struct rl_engine *g,
		  struct rl_finding *f);

/* ---- llama.cpp and Ollama: what fits (startup_ggml.c) -------------------- */

/* The llama.cpp/Ollama instance of e[0..n) that states the most of its
 * accounting; NULL when none does. */
const struct rl_engine *rl_ggml_engine(const struct rl_engine *e, int n);

/* For p (a start-up OOM of stack, "llama.cpp" or "ollama") and its
 * instance g: the GPU layers that fit (num_gpu / --n-gpu-layers), or the
 * context that fits (num_ctx / --ctx-size), as f's figures and knob.
 * 1 written, 0 the numbers are missing or say nothing new. Never fails. */
int rl_ggml_layers_fit(struct rule_ctx *c, const struct rl_phase *p, const char *stack,
		       const struct rl_engine *g, struct rl_finding *f);
int rl_ggml_ctx_fit(struct rule_ctx *c, const struct rl_phase *p, const char *stack,
		    const struct rl_engine *g, struct rl_finding *f);

/* ---- the failure's own figures show room (startup_room.c) ---------------- */

/* TensorRT-LLM's KV cache share of the free memory when none is set
 * (KvCacheConfig.free_gpu_memory_fraction; _torch/pyexecutor/_util.py
 * "if fraction is None: fraction = 0.9", v0.20-v1.0). */
#define TRT_KV_FRACTION_DEFAULT 0.9

/* The KV cache fraction a TensorRT-LLM or Triton instance of e[0..n)
 * states (its log or its settings: engine fact kv_cache_fraction), *stated
 * set to 1; else TRT_KV_FRACTION_DEFAULT and *stated 0. */
double rl_trt_kv_fraction(const struct rl_engine *e, int n, int *stated);

enum rl_room {
	RL_ROOM_NONE,               /* nothing says the memory was there */
	RL_ROOM_FITS,               /* the request fits in the free memory the
				     * failure states, or half the card was free */
	RL_ROOM_LIMIT,              /* the backend refused one buffer as larger
				     * than its per-allocation limit */
};

/* Whether a start-up OOM's own figures (p: the failure's text, request,
 * free and total; the PyTorch message's card, rl_card_read) show that
 * the memory was there; the figures that show it are added to f, and
 * p's request, free and total completed from the card where it says
 * them. Never fails (an unreadable card counts as unknown). */
enum rl_room rl_phase_room(struct rule_ctx *c, struct rl_phase *p, struct rl_finding *f);

/* f's cause, title and advice for room r (not RL_ROOM_NONE) of p: what
 * the figures show instead of a budget that does not fit, and no knob
 * that lowers the budget. Returns the cause (static). */
const char *rl_phase_room_advise(const struct rl_phase *p, enum rl_room r, struct rl_finding *f);

#endif
