/*
 * startup_apps.c -- the advice of a start-up failure of a ggml program
 * that is not llama.cpp or Ollama (issue 27 round 15, w-advice16). The
 * wording family ggml is many programs' (whisper.cpp, encodec.cpp,
 * starcoder.cpp, rustformers/llm, stable-diffusion.cpp vendor the same
 * library), and llama.cpp's flags (--n-gpu-layers, --no-mmap,
 * --ctx-size) are no answer in the others: whisper.cpp loads every
 * tensor on one backend and has no layer offload. Where the stage line
 * that placed the failure was read from such a program's source (event
 * data "app", parsers/serving/phase_table.c's row engine), its own knobs
 * are named instead.
 *
 * Knobs, from the programs' source:
 *   whisper.cpp (ggml-org/whisper.cpp examples/main/main.cpp and
 *   whisper.cpp@v1.5.0,v1.7.0; models/download-ggml-model.sh): the model
 *   file (-m: tiny, base, small, medium, large-v3, large-v3-turbo; the
 *   quantized ones, "-q5_0", "-q8_0", made by its quantize tool), -ng /
 *   --no-gpu (the CPU backend: host memory instead of the card), and the
 *   decoders whisper_init_state sizes its state for: -bs (beam size), -bo
 *   (best of), and -p (processors, each with its own state).
 *   mistral.rs (round 16, startup17; not a ggml program, but its stage
 *   lines place a failure the same way, and vLLM's or llama.cpp's knobs
 *   are no answer there): its server's flags, as its docs and threads
 *   print them (EricLBuehler/mistral.rs docs/PAGED_ATTENTION.md and
 *   mistralrs-server's CLI, indexed copies 2024-2026; pull 2022: the
 *   PagedAttention pool defaults to 90 % of the card on CUDA): in-situ
 *   quantisation (--isq Q4K) or a pre-quantized GGUF/UQFF model for the
 *   weights, device mapping (-n / --num-device-layers) to keep layers
 *   off the card, and the PagedAttention pool's size (--pa-gpu-mem MB,
 *   --pa-gpu-mem-usage, --pa-ctxt-len tokens), --max-seq-len,
 *   --no-paged-attn.
 */
#include "analyzer/rules/rules.h"
#include "analyzer/rules/rulelib.h"
#include "analyzer/rules/startup_phase.h"

#include <stdio.h>
#include <string.h>

/* One program's knobs by stage; NULL where it has none to name. */
struct ggml_app {
	const char *app;          /* phase_table.c's engine name, as a prefix */
	const char *smaller;      /* a smaller or quantized model, its words */
	const char *no_gpu;       /* the flag that keeps it off the card */
	const char *state;        /* what the state/cache allocation grows with */
};

static const struct ggml_app apps[] = {
	{ "whisper.cpp",
	  "a smaller model file (-m: tiny, base, small, medium and large, in that order of"
	  " size) or a"
	  " quantized one (ggml-large-v3-turbo-q5_0.bin, ggml-medium-q5_0.bin: whisper.cpp's"
	  " quantize tool or its download script)",
	  "-ng (--no-gpu: run on the CPU, in host memory)",
	  "the decoders it runs at once: a smaller -bs (beam size) or -bo (best of), and"
	  " fewer -p processors (each allocates its own state)" },
	{ "mistral.rs",
	  "in-situ quantization (--isq Q4K) or a pre-quantized (GGUF, UQFF) or smaller model",
	  "device mapping that keeps layers off the card (-n / --num-device-layers)",
	  "the PagedAttention pool (--pa-gpu-mem MB, --pa-gpu-mem-usage or --pa-ctxt-len)"
	  " or --max-seq-len, or turn PagedAttention off (--no-paged-attn)" },
};

/* The row of p's app (the program whose stage line placed the failure),
 * when it is one of apps[]; NULL otherwise. */
static const struct ggml_app *app_of(const struct rl_phase *p)
{
	size_t i;

	if (!p->app[0])
		return NULL;   /* any family: the app's stage line placed it (a WASM
				* build's abort is family host, its knobs still whisper.cpp's) */
	for (i = 0; i < sizeof(apps) / sizeof(apps[0]); i++)
		if (!strncmp(p->app, apps[i].app, strlen(apps[i].app)))
			return &apps[i];
	return NULL;
}

const char *rl_phase_advise_ggml_app(const struct rl_phase *p, struct rl_finding *f)
{
	const struct ggml_app *a = app_of(p);
	char b[32], size[48] = "";
	int weights;

	if (!a || (strcmp(p->phase, "load_weights") && strcmp(p->phase, "kv_alloc")))
		return NULL;
	weights = !strcmp(p->phase, "load_weights");
	if (p->req > 0) {
		rl_fig(f, "requested_bytes", p->req);
		snprintf(size, sizeof(size), " (%s)", rl_bytes(p->req, b, sizeof(b)));
	}
	if (p->host)
		rl_advice(f, "%s's buffer that failed%s was in host memory (RAM), not on a GPU: %s."
			  " Use %s%s%s, or give the process more RAM.", a->app, size,
			  weights ? "the model does not fit in the RAM left"
				  : "the model's state (its KV caches and compute buffers) does not"
				    " fit in the RAM left",
			  a->smaller, weights ? "" : "; lower ", weights ? "" : a->state);
	else
		rl_advice(f, "%s's buffer that failed%s was on the GPU: %s. Use %s%s%s, or %s.",
			  a->app, size, weights ? "the model does not fit the card's free memory"
			  : "the model's state (its KV caches and compute buffers) does not fit the"
			    " card's free memory", a->smaller, weights ? "" : "; lower ",
			  weights ? "" : a->state, a->no_gpu);
	return weights ? "weights_do_not_fit" : "cache_does_not_fit";
}
