/*
 * offload.c -- misconfiguration: a llama.cpp/Ollama GPU plan that left no
 * room, beside an OOM whose phase is not shown.
 *
 * A GPU failure of a llama.cpp or Ollama runner that no line places (a
 * bare "CUDA error: out of memory", a cudaMalloc or cuBLAS allocation
 * failure, a runner's panic, pasted apart from its log) is judged by the
 * plan the engine printed before it loaded: the derive pass offload_fit
 * (analyzer/derive/offload.c) computed, from the engine's own figures
 * (Ollama's offload estimate, llama.cpp's buffers and free memory), the
 * headroom the plan left on its tightest GPU and the layers that fit with
 * its compute graph (or the allocation that failed) held free beside
 * them. When fewer layers fit than were offloaded, the plan did not fit:
 * a misconfiguration whose knob is the GPU layers (Ollama num_gpu,
 * llama.cpp --n-gpu-layers), set to the layers that fit, the value
 * labelled as computed by oomlens from the engine's estimate. Ollama's
 * other knob for the same thing is OLLAMA_GPU_OVERHEAD (envconfig
 * GpuOverhead: bytes its scheduler keeps free on each GPU,
 * llm/memory.go), named with the reserve.
 *
 * Silent when the plan left at least that room (the OOM then needs
 * another reading), when the OOM's phase is shown (startup_phase.c judges
 * those) or was in host memory.
 */
#include "analyzer/rules/rulelib.h"
#include "analyzer/rules/startup_phase.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define OFFLOAD_SCORE 0.75   /* the plan's own figures leave no room for its graph */

/* The offload_fit row read (analyzer/derive/offload.c). */
struct offload_plan {
	int64_t engine_id;
	char engine[16], basis[24], reserve_from[24], per_from[24];
	int device;                 /* -1: the only GPU */
	int devices;
	double avail, planned, headroom, reserve, per_layer, gpu_layers, model_layers, fit;
};

/* The first row whose plan is short of its reserve: 1 (r filled), 0
 * none, -1 failed. */
static int read_fit(struct rule_ctx *c, struct offload_plan *r)
{
	sqlite3_stmt *st;
	int found = 0;

	if (!q_has_table(c->db, "offload_fit"))
		return 0;
	st = rl_prepare(c, "SELECT engine_id, engine, basis, coalesce(device, -1), devices,"
			" available_bytes, planned_bytes, headroom_bytes, reserve_bytes,"
			" reserve_from, bytes_per_layer, per_layer_from, gpu_layers, model_layers,"
			" layers_fit FROM offload_fit WHERE layers_short >= 1"
			" ORDER BY basis <> 'ollama_estimate', engine_id LIMIT 1");
	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		r->engine_id = sqlite3_column_int64(st, 0);
		snprintf(r->engine, sizeof(r->engine), "%s", q_text(st, 1));
		snprintf(r->basis, sizeof(r->basis), "%s", q_text(st, 2));
		r->device = sqlite3_column_int(st, 3);
		r->devices = sqlite3_column_int(st, 4);
		r->avail = sqlite3_column_double(st, 5);
		r->planned = sqlite3_column_double(st, 6);
		r->headroom = sqlite3_column_double(st, 7);
		r->reserve = sqlite3_column_double(st, 8);
		snprintf(r->reserve_from, sizeof(r->reserve_from), "%s", q_text(st, 9));
		r->per_layer = sqlite3_column_double(st, 10);
		snprintf(r->per_from, sizeof(r->per_from), "%s", q_text(st, 11));
		r->gpu_layers = sqlite3_column_double(st, 12);
		r->model_layers = sqlite3_column_double(st, 13);
		r->fit = sqlite3_column_double(st, 14);
		found = 1;
	}
	sqlite3_finalize(st);
	return c->failed ? -1 : found;
}

/* The title and the advice of r into f. */
static void fit_advice(const struct offload_plan *r, struct rl_finding *f)
{
	int ollama = !strcmp(r->engine, "ollama");
	const char *flag = engine_knob_flag(ollama ? ENGINE_OLLAMA : ENGINE_LLAMACPP, KR_GPU_LAYERS);
	const char *reserve = !strcmp(r->reserve_from, "failed_request") ?
		"the allocation that failed" : "the compute graph";
	char b1[32], b2[32], b3[32], b4[32], gpu[24] = "the card";

	if (r->device >= 0)
		snprintf(gpu, sizeof(gpu), "GPU %d", r->device);
	snprintf(f->title, sizeof(f->title), "%s's plan left no room on %s: %.0f of %.0f"
		 " layers offloaded, %s planned of %s free (%s left; %s needs %s)",
		 ollama ? "Ollama" : "llama.cpp", gpu, r->gpu_layers,
		 r->model_layers, rl_bytes(r->planned, b1, sizeof(b1)),
		 rl_bytes(r->avail, b2, sizeof(b2)), rl_bytes(r->headroom, b3, sizeof(b3)),
		 reserve, rl_bytes(r->reserve, b4, sizeof(b4)));
	rl_knob(f, ollama ? "num_gpu" : "n_gpu_layers", flag, r->fit,
		"Offload %.0f layers instead of %.0f (%s %.0f; a value computed by oomlens from"
		" %s, not one it printed): a layer takes about %s, and with %.0f fewer, %s stays"
		" free beside the plan for %s.", r->fit, r->gpu_layers, flag, r->fit,
		ollama ? "Ollama's own offload estimate" : "llama.cpp's own buffer sizes",
		rl_bytes(r->per_layer, b1, sizeof(b1)), r->gpu_layers - r->fit,
		rl_bytes(r->headroom + (r->gpu_layers - r->fit) * r->per_layer, b2, sizeof(b2)),
		reserve);
	if (ollama)
		rl_advice(f, "Or have Ollama's scheduler keep that room itself: OLLAMA_GPU_OVERHEAD"
			  " (bytes kept free on each GPU) of at least %s. Ollama rounds its figures"
			  " to 0.1 GiB, so the value is a first step, not an exact fit.",
			  rl_bytes(r->reserve, b3, sizeof(b3)));
	else
		rl_advice(f, "Or shorten the context (--ctx-size) or the batch (--ubatch-size),"
			  " which size the KV cache and the compute buffer.");
}

int rule_offload_fit(struct rule_ctx *c)
{
	struct rl_phase ph;
	struct offload_plan r;
	struct rl_finding f;
	int64_t fid;
	int k;

	if (rl_oom_phase(c, &ph) <= 0)
		return c->failed ? -1 : 0;
	/* a placed OOM is its phase's (startup_phase.c); a host's is RAM */
	if ((strcmp(ph.phase, "unknown") && strcmp(ph.phase, "startup")) || ph.host)
		return 0;
	memset(&r, 0, sizeof(r));
	if ((k = read_fit(c, &r)) <= 0)
		return k;
	rl_finding_init(&f, "offload", "misconfig", "offload_does_not_fit");
	f.score = OFFLOAD_SCORE;
	/* before any request, the stage not shown: the finding keeps it */
	if (!strcmp(ph.phase, "startup"))
		f.phase = "startup";
	rl_fig(&f, "gpu_layers", r.gpu_layers);
	rl_fig(&f, "model_layers", r.model_layers);
	rl_fig(&f, "plan_gpu_layers_fit", r.fit);
	rl_fig(&f, "plan_layer_bytes", r.per_layer);
	rl_fig(&f, "gpu_room_bytes", r.avail);
	rl_fig(&f, "plan_planned_bytes", r.planned);
	rl_fig(&f, "plan_headroom_bytes", r.headroom);
	rl_fig(&f, "plan_reserve_bytes", r.reserve);
	if (r.device >= 0)
		rl_fig(&f, "device", r.device);
	fit_advice(&r, &f);
	if ((fid = rl_finding_write(c, &f)) < 0)
		return -1;
	if (rl_evidence(c, fid, "engine", r.engine_id, "the plan the engine printed before it"
			" loaded: its layers, free memory and planned allocation") < 0)
		return -1;
	return rl_evidence(c, fid, "oom", ph.oom_id, "the GPU failure, its phase not shown");
}
