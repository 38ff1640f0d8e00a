/*
 * startup_ggml.c -- llama.cpp's and Ollama's GPU layers and context that
 * fit at a start-up OOM (see startup_phase.h), from the instance's own
 * accounting: the room its GPU has (its free figure, else the card's
 * total), the weights and KV cache of a layer, the compute buffer, the KV
 * cache's bytes per token. Split from startup_phase.c (round 10) so that
 * each file keeps to one job; startup_phase.c names the knob a phase
 * answers to, this file the value that fits.
 */
#include "analyzer/rules/startup_phase.h"

#include "lib/engine_knobs.h"

#include <math.h>
#include <string.h>

/* The GPU memory a llama.cpp/Ollama instance could use: its own free
 * figure (Ollama memory.available, llama.cpp "MiB free"), else the card's
 * total; -1 when neither is known. */
static double ggml_room(struct rule_ctx *c, const struct rl_engine *g)
{
	struct rl_card k;
	double total = -1;

	if (rl_ef_known(g, RL_EF_FREE) && g->f[RL_EF_FREE] > 0)
		return g->f[RL_EF_FREE];
	if (rl_ef_known(g, RL_EF_TOTAL) && g->f[RL_EF_TOTAL] > 0)
		return g->f[RL_EF_TOTAL];
	if (rl_card_read(c, &k) == 1 && k.total > 0)
		return k.total;
	return rl_gpu_total(c, &total) == 0 && total > 0 ? total : -1;
}

static double known_or_zero(const struct rl_engine *g, enum rl_ef k)
{
	return rl_ef_known(g, k) && g->f[k] > 0 ? g->f[k] : 0;
}

/* The GPU layers that fit, from the engine's own numbers:
 *   (room - compute buffer) / (a layer's weights + a layer's KV cache),
 * a layer's bytes being the bytes over the layers they hold (Ollama's
 * memory.weights.total and memory.required.kv are the whole model's: over
 * model_layers; llama.cpp's GPU buffers hold the offloaded ones: over
 * gpu_layers), as Ollama's own estimate charges each offloaded layer its
 * KV cache (llm/memory.go): a layer left on the host keeps its KV there.
 * When the weights buffer of the offloaded layers is what failed (p->req
 * in load_weights), that buffer over gpu_layers is a layer's weights if
 * it is more. Sets the knob (num_gpu / --n-gpu-layers) and returns 1 when
 * fewer layers than were asked for fit; 0 when the numbers are missing or
 * say nothing new. */
int rl_ggml_layers_fit(struct rule_ctx *c, const struct rl_phase *p, const char *stack,
		       const struct rl_engine *g, struct rl_finding *f)
{
	int ollama = !strcmp(stack, "ollama");
	const char *flag;
	double room = ggml_room(c, g), kv = known_or_zero(g, RL_EF_KV),
	       compute = known_or_zero(g, RL_EF_COMPUTE), layers, per_layer, kv_layer, fit;
	enum rl_ef held = ollama && rl_ef_known(g, RL_EF_REQ_FULL) ? RL_EF_MODEL_LAYERS
								 : RL_EF_GPU_LAYERS;

	if (room <= 0 || !rl_ef_known(g, RL_EF_WEIGHTS) || !rl_ef_known(g, held) ||
	    g->f[held] < 1 || !rl_ef_known(g, RL_EF_GPU_LAYERS) || g->f[RL_EF_GPU_LAYERS] < 1)
		return 0;
	layers = g->f[RL_EF_GPU_LAYERS];
	per_layer = g->f[RL_EF_WEIGHTS] / g->f[held];
	if (!strcmp(p->phase, "load_weights") && p->req / layers > per_layer)
		per_layer = p->req / layers;
	kv_layer = kv / g->f[held];
	if (per_layer <= 0)
		return 0;
	fit = floor((room - compute) / (per_layer + kv_layer));
	if (fit >= layers)
		return 0;
	if (fit < 0)
		fit = 0;
	rl_fig(f, "gpu_layers", layers);
	rl_fig(f, "gpu_layers_fit", fit);
	rl_fig(f, "bytes_per_layer", per_layer);
	rl_fig(f, "gpu_room_bytes", room);
	rl_fig(f, "kv_bytes_per_layer", kv_layer);
	flag = engine_knob_flag(ollama ? ENGINE_OLLAMA : ENGINE_LLAMACPP, KR_GPU_LAYERS);
	rl_knob(f, ollama ? "num_gpu" : "n_gpu_layers", flag, fit,
		"Offload %.0f layers instead of %.0f (%s %.0f): %.0f layers of %.0f MiB each, with"
		" %.0f MiB of KV cache each, fit in the %.0f MiB the GPU has after the compute"
		" buffer (%.0f MiB).", fit, layers, flag, fit, fit,
		per_layer / 1048576.0, kv_layer / 1048576.0, (room - compute) / 1048576.0,
		compute / 1048576.0);
	return 1;
}

/* The context that fits, from the KV cache's bytes per token:
 *   (room - GPU weights - compute buffer) / (KV bytes / n_ctx),
 * down to a multiple of 256 (a compute buffer that failed to allocate,
 * p->req, counts at the size asked for). Sets the knob (num_ctx / --ctx-size) and
 * returns 1 when it is below the context asked for; else 0. */
int rl_ggml_ctx_fit(struct rule_ctx *c, const struct rl_phase *p, const char *stack,
		    const struct rl_engine *g, struct rl_finding *f)
{
	int ollama = !strcmp(stack, "ollama");
	const char *flag;
	double room = ggml_room(c, g), ctx, per_token, fit, compute = known_or_zero(g, RL_EF_COMPUTE);

	if (room <= 0 || !rl_ef_known(g, RL_EF_KV) || g->f[RL_EF_KV] <= 0 ||
	    !rl_ef_known(g, RL_EF_KV_TOKENS) || g->f[RL_EF_KV_TOKENS] < 1)
		return 0;
	if (compute <= 0 && p->req > 0)   /* the compute buffer that failed: its size */
		compute = p->req;
	ctx = g->f[RL_EF_KV_TOKENS];
	per_token = g->f[RL_EF_KV] / ctx;
	fit = floor((room - known_or_zero(g, RL_EF_WEIGHTS) - compute) / per_token / 256) * 256;
	if (fit >= ctx || fit < 256)
		return 0;
	rl_fig(f, "context_tokens", ctx);
	rl_fig(f, "context_tokens_fit", fit);
	rl_fig(f, "kv_bytes_per_token", per_token);
	flag = engine_knob_flag(ollama ? ENGINE_OLLAMA : ENGINE_LLAMACPP, KR_MAX_LEN);
	rl_knob(f, ollama ? "num_ctx" : "ctx_size", flag, fit,
		"Lower the context from %.0f to %.0f tokens (%s %.0f): the KV cache takes %.0f KiB"
		" a token, and %.0f MiB is left after the weights and the compute buffer.", ctx,
		fit, flag, fit, per_token / 1024.0,
		(room - known_or_zero(g, RL_EF_WEIGHTS) - compute) / 1048576.0);
	return 1;
}

/* The llama.cpp/Ollama instance of e[0..n) that states the most of its
 * accounting; NULL when none does. */
/* 1 when e is a llama.cpp or Ollama instance. */
static int is_ggml(const struct rl_engine *e)
{
	return !strcmp(e->engine, "ollama") || !strcmp(e->engine, "llama.cpp");
}

const struct rl_engine *rl_ggml_engine(const struct rl_engine *e, int n)
{
	return rl_engine_pick(e, n, is_ggml, 1);
}
