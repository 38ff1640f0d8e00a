/*
 * startup_projector.c -- a start-up OOM in the warm-up of a multimodal
 * projector (see startup_phase.h): llama.cpp's llama-server loads the
 * vision or audio projector (--mmproj) after the text model and warms it
 * up with a dummy input of the largest size it may take
 * (tools/mtmd/clip.cpp clip_model_loader::warmup, "warmup with image size
 * = W x H"), reserving the projector's own compute graph for it. What
 * failed there is sized by the projector's graph and its image, not by
 * the text context's sequences or batch, so the text model's warm-up
 * knobs (--parallel, --batch-size) are no answer. The parser marks such
 * a failure: its event's "graph" is "projector" (PM_PROJECTOR stage line,
 * parsers/serving/phase_table.h). The knobs are llama.cpp's own
 * (common/arg.cpp, 2025-; lib/engine_knobs.c): --no-mmproj-offload keeps
 * the projector and its graph on the CPU, --image-max-tokens caps the
 * tokens one image may take (vision models with dynamic resolution),
 * which bounds the dummy image the warm-up reserves for.
 */
#include "analyzer/rules/startup_phase.h"

#include <string.h>

const char *rl_phase_advise_projector(const struct rl_phase *p, const char *stack,
				      struct rl_finding *f)
{
	enum engine_kind k = engine_kind_from_name(stack);
	const char *cpu = engine_knob_flag(k, KR_PROJ_ON_CPU),
		   *tokens = engine_knob_flag(k, KR_IMAGE_TOKENS),
		   *layers = engine_knob_flag(k, KR_GPU_LAYERS);
	char b[32];

	if (p->req > 0)
		rl_fig(f, "requested_bytes", p->req);
	rl_advice(f, "The graph that failed%s%s%s is the multimodal projector's: its warm-up"
		  " reserves the projector's compute buffer for a dummy input of the largest"
		  " image it may take, after the text model took its share of the card, so"
		  " the text context's sequences and batch do not size it.",
		  p->req > 0 ? " (" : "", p->req > 0 ? rl_bytes(p->req, b, sizeof(b)) : "",
		  p->req > 0 ? ")" : "");
	if (cpu && tokens)
		rl_advice(f, "Keep the projector off the GPU (%s: images encode more slowly, the"
			  " card is left to the text model), or cap the tokens one image may take"
			  " (%s, for vision models with dynamic resolution), which bounds the"
			  " graph the warm-up reserves; or leave the card more room (fewer %s, a"
			  " smaller quantization).", cpu, tokens, layers ? layers : "GPU layers");
	else
		rl_advice(f, "Keep the projector off the GPU, or lower the largest image it may"
			  " take, which bounds the graph the warm-up reserves; or leave the card"
			  " more room for it.");
	return "warmup_does_not_fit";
}
