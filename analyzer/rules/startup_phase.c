/*
 * startup_phase.c -- the phase of the OOM decides with the evidence (see
 * startup_phase.h). The parsers place each OOM in a phase of the
 * program's life (the engine's lines before it, the traceback's frames:
 * parsers/serving/memfail.c); derive copies it into table oom. Before any
 * request was served, what failed is the configuration, and each phase
 * answers to its own knob:
 *
 *   load_weights   the weights: quantise, shard (tensor parallelism), a
 *                  smaller model; llama.cpp/Ollama: fewer GPU layers
 *   profile,       the profile run, compute buffers and the KV cache:
 *   kv_alloc       gpu_memory_utilization, max_model_len (vLLM),
 *                  mem_fraction_static (SGLang), the context size
 *                  (--ctx-size, num_ctx: llama.cpp, Ollama)
 *   graph_capture  --enforce-eager, or smaller capture sizes
 *   warmup         max_num_seqs, max_num_batched_tokens
 *   startup        the stage is not shown (an engine that never started):
 *                  the knobs of start-up in general, labelled as such
 *
 * A value is given only where the engine's own numbers give one: the
 * dummy requests the warm-up ran (vLLM's "warming up sampler with N dummy
 * requests"), the card and the request for the tensor parallelism; for
 * llama.cpp and Ollama the GPU layers and the context that fit, from
 * their free memory, weights, KV cache and compute buffer.
 */
#include "analyzer/rules/startup_phase.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CARD_FILL 0.9          /* what of a card a workload may plan on */

static const struct {
	const char *phase, *doing;
	int startup;
} phases[] = {
	{ "load_weights", "loading the model's weights", 1 },
	{ "profile", "the engine's profile run (activations, compute buffers)", 1 },
	{ "kv_alloc", "allocating the KV cache", 1 },
	{ "graph_capture", "capturing CUDA graphs", 1 },
	{ "warmup", "warming up before the first request", 1 },
	{ "startup", "starting up (the stage is not shown)", 1 },
	{ "serving", "serving requests", 0 },
	{ "training_step", "a training step", 0 },
	{ "eval", "evaluation", 0 },
};

#define NPHASES (sizeof(phases) / sizeof(phases[0]))

const char *rl_phase_doing(const char *phase)
{
	size_t i;

	for (i = 0; i < NPHASES; i++)
		if (!strcmp(phases[i].phase, phase))
			return phases[i].doing;
	return "an unknown phase";
}

int rl_phase_deepspeed(const struct rl_phase *p)
{
	return !strncmp(p->stack, "deepspeed", 9);
}

int rl_phase_compile_time(const struct rl_phase *p)
{
	/* XLA's compiler (service/memory_space_assignment, the TPU backend)
	 * reports "Ran out of memory in memory space hbm. Used N of M hbm.
	 * Exceeded hbm capacity by K." when it lays the program out, and
	 * libtpu prefixes it "XLA:TPU compile permanent error" */
	return !strcmp(p->family, "xla") && (strstr(p->text, "Ran out of memory in memory space") ||
					     strstr(p->text, "compile permanent error"));
}

const char *rl_phase_doing_of(const struct rl_phase *p)
{
	if (!strcmp(p->phase, "load_weights") && rl_phase_deepspeed(p))
		return "DeepSpeed set up its engine (deepspeed.initialize: the model, ZeRO's"
		       " partitions and the optimizer states)";
	return rl_phase_doing(p->phase);
}

int rl_oom_phase(struct rule_ctx *c, struct rl_phase *p)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT o.id, o.phase, coalesce(o.family, ''),"
		" coalesce(o.event_id, 0), o.requested_bytes, coalesce(CASE WHEN json_valid(e.data)"
		" THEN json_extract(e.data, '$.text') END, e.summary, ''), coalesce(CASE WHEN"
		" json_valid(e.data) THEN json_extract(e.data, '$.stack') END, ''), coalesce(o.free_bytes,"
		" CASE WHEN json_valid(e.data) THEN json_extract(e.data, '$.free_bytes') END),"
		" coalesce(o.total_bytes, CASE WHEN json_valid(e.data) THEN"
		" json_extract(e.data, '$.total_bytes') END), o.scope = 'host', coalesce(o.scope, ''),"
		" coalesce(CASE WHEN json_valid(e.data) THEN json_extract(e.data, '$.graph') END, ''),"
		" coalesce(CASE WHEN json_valid(e.data) THEN json_extract(e.data, '$.app') END, '')"
		" FROM oom o"
		" LEFT JOIN event e ON e.id = o.event_id WHERE o.id = 1");
	size_t i;
	int r = 0;

	memset(p, 0, sizeof(*p));
	snprintf(p->phase, sizeof(p->phase), "unknown");
	p->req = p->free = p->total = p->kv_fraction = -1;
	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		p->oom_id = sqlite3_column_int64(st, 0);
		snprintf(p->phase, sizeof(p->phase), "%s", q_text(st, 1)[0] ? q_text(st, 1) : "unknown");
		snprintf(p->family, sizeof(p->family), "%s", q_text(st, 2));
		p->event_id = sqlite3_column_int64(st, 3);
		if (sqlite3_column_type(st, 4) != SQLITE_NULL && sqlite3_column_double(st, 4) > 0)
			p->req = sqlite3_column_double(st, 4);
		snprintf(p->text, sizeof(p->text), "%s", q_text(st, 5));
		snprintf(p->stack, sizeof(p->stack), "%s", q_text(st, 6));
		if (sqlite3_column_type(st, 7) != SQLITE_NULL && sqlite3_column_double(st, 7) >= 0)
			p->free = sqlite3_column_double(st, 7);
		if (sqlite3_column_type(st, 8) != SQLITE_NULL && sqlite3_column_double(st, 8) > 0)
			p->total = sqlite3_column_double(st, 8);
		p->host = sqlite3_column_int(st, 9);
		snprintf(p->scope, sizeof(p->scope), "%s", q_text(st, 10));
		snprintf(p->graph, sizeof(p->graph), "%s", q_text(st, 11));
		snprintf(p->app, sizeof(p->app), "%s", q_text(st, 12));
		for (i = 0; i < NPHASES; i++)
			if (!strcmp(phases[i].phase, p->phase))
				p->startup = phases[i].startup;
		r = 1;
	}
	sqlite3_finalize(st);
	return c->failed ? -1 : r;
}

/* The engine of e[0..n) that names one ("vllm", "sglang", "llama.cpp",
 * "ollama"), or the wording family's stack; "" when none says. */
static const char *stack_of(const struct rl_phase *p, const struct rl_engine *e, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(e[i].engine, "pytorch") && strcmp(e[i].engine, "server") && e[i].engine[0])
			return e[i].engine;
	if (!strcmp(p->family, "ggml") || !strcmp(p->family, "metal"))
		return "llama.cpp";
	if (!strcmp(p->family, "vllm_warmup") || !strcmp(p->family, "vllm_state"))
		return "vllm";
	if (!strcmp(p->family, "sglang_kv"))
		return "sglang";
	if (!strcmp(p->family, "turbomind"))
		return "lmdeploy";
	/* TensorRT-LLM's PyTorch executor (py_executor_creator.py) says it
	 * in words TensorRT's own builder does not */
	if (!strcmp(p->family, "trt") && strstr(p->text, "Executor creation failed"))
		return "tensorrt-llm";
	return "";
}

/* The first instance of e[0..n) that knows fact k; NULL none. */
static const struct rl_engine *knowing(const struct rl_engine *e, int n, enum rl_ef k)
{
	int i;

	for (i = 0; i < n; i++)
		if (rl_ef_known(&e[i], k))
			return &e[i];
	return NULL;
}

/* "warming up sampler with 1024 dummy requests" (the line may be cut
 * after the number, a wrapped paste): the number, else -1. */
static double dummy_requests(const char *text)
{
	static const char lead[] = "sampler with ";
	const char *w = strstr(text, lead);
	char *end;
	double v;

	if (!w)
		return -1;
	v = strtod(w + sizeof(lead) - 1, &end);
	return end > w + sizeof(lead) - 1 && v >= 1 && v < 1e7 ? v : -1;
}

/* 1 when text says the engine's KV cache pool had no block left, not
 * that device memory ran out: TensorRT-LLM's BlockManager::allocateBlock
 * ("Can't allocate new blocks. No free blocks left."; from 2025 "... for
 * window size N. No free blocks left.", cpp/tensorrt_llm/batch_manager/
 * kvCacheManager.cpp). */
static int kv_pool_exhausted(const char *text)
{
	return strstr(text, "No free blocks left") != NULL;
}

static const char *advise_warmup(const struct rl_phase *p, const char *stack,
				 const struct rl_engine *e, int n, struct rl_finding *f)
{
	const struct rl_engine *m = knowing(e, n, RL_EF_MAX_SEQS);
	double seqs = dummy_requests(p->text);
	enum engine_kind k = engine_kind_from_name(stack);
	const char *flag = engine_knob_flag(k, KR_MAX_SEQS);

	if (seqs > 0)
		rl_fig(f, "warmup_dummy_requests", seqs);
	else if (m)
		seqs = m->f[RL_EF_MAX_SEQS];
	if (seqs >= 2) {
		rl_fig(f, "max_num_seqs", seqs);
		rl_knob(f, "max_num_seqs", flag, floor(seqs / 2),
			"Lower %s from %.0f: the warm-up runs one dummy request per sequence the"
			" engine may admit, and %.0f of them did not fit. %.0f (half) is a first"
			" step to try, not a value the figures compute; the most that fit lies"
			" between.", flag, seqs, seqs, floor(seqs / 2));
	}
	if (kv_pool_exhausted(p->text) && engine_knob_flag(k, KR_MEM_FRACTION))
		/* the cache's pool ran out, not the memory beside it: a larger
		 * pool helps, a smaller one would fail sooner */
		rl_advice(f, "The warm-up's dummy requests found no free KV cache block: the"
			  " cache holds fewer tokens than they need. They answer to %s, %s and %s;"
			  " a higher %s gives the cache more blocks, if the card has the room.",
			  flag, engine_knob_flag(k, KR_BATCH_TOKENS),
			  engine_knob_flag(k, KR_MAX_LEN) ? engine_knob_flag(k, KR_MAX_LEN) : flag,
			  engine_knob_flag(k, KR_MEM_FRACTION));
	else if (engine_knob_flag(k, KR_MEM_FRACTION))
		rl_advice(f, "The warm-up's dummy batch answers to %s and %s; a lower %s leaves it"
			  " room too.", flag, engine_knob_flag(k, KR_BATCH_TOKENS),
			  engine_knob_flag(k, KR_MEM_FRACTION));
	else
		rl_advice(f, "The warm-up's dummy batch answers to %s and %s.", flag,
			  engine_knob_flag(k, KR_BATCH_TOKENS));
	return "warmup_does_not_fit";
}

static const char *advise_graphs(const char *stack, const struct rl_engine *e, int n,
				 struct rl_finding *f)
{
	const struct rl_engine *g = knowing(e, n, RL_EF_GRAPHS);
	const char *eager = engine_knob_flag(engine_kind_from_name(stack), KR_NO_GRAPHS);
	char b[32];

	if (g)
		rl_fig(f, "cuda_graph_bytes", g->f[RL_EF_GRAPHS]);
	/* each engine is told its own capture-size setting (vLLM's engine
	 * arguments, SGLang's server arguments, TGI's launcher: --cuda-graphs
	 * takes the batch sizes, "1,2,4,8,16,32" by default, 0 for none);
	 * both vLLM's and SGLang's only when the log names neither */
	if (engine_kind_from_name(stack) == ENGINE_VLLM)
		rl_advice(f, "Start with %s (no CUDA graphs), or capture fewer and smaller"
			  " batch sizes (--cuda-graph-sizes, from 0.11 --max-cudagraph-capture-size)"
			  "%s%s%s.", eager, g ? "; the graphs took " : "",
			  g ? rl_bytes(g->f[RL_EF_GRAPHS], b, sizeof(b)) : "", g ? " last time" : "");
	else if (engine_kind_from_name(stack) == ENGINE_TGI)
		rl_advice(f, "Start with %s (no CUDA graphs), or capture fewer and smaller"
			  " batch sizes (--cuda-graphs 1,2,4 instead of the default"
			  " 1,2,4,8,16,32)%s%s%s.", eager, g ? "; the graphs took " : "",
			  g ? rl_bytes(g->f[RL_EF_GRAPHS], b, sizeof(b)) : "", g ? " last time" : "");
	else if (engine_kind_from_name(stack) == ENGINE_SGLANG)
		rl_advice(f, "Start with %s (no CUDA graphs), or capture fewer and smaller batch"
			  " sizes (--cuda-graph-max-bs)%s%s%s.", eager, g ? "; the graphs took " : "",
			  g ? rl_bytes(g->f[RL_EF_GRAPHS], b, sizeof(b)) : "", g ? " last time" : "");
	else
		rl_advice(f, "Start with %s (no CUDA graphs), or capture fewer and smaller"
			  " batch sizes (vLLM --cuda-graph-sizes / --max-cudagraph-capture-size, SGLang"
			  " --cuda-graph-max-bs)%s%s%s.", eager ? eager : "--enforce-eager",
			  g ? "; the graphs took " : "",
			  g ? rl_bytes(g->f[RL_EF_GRAPHS], b, sizeof(b)) : "", g ? " last time" : "");
	return "graphs_do_not_fit";
}

/* LMDeploy (TurboMind): the KV cache takes cache_max_entry_count of the
 * memory the weights leave (0.8 unless set), and the model instance's
 * buffers grow with session_len and max_batch_size. Its log prints no
 * memory figure, so the knob is named with the value the log set, and no
 * value that fits is claimed. */
static void lmdeploy_cache(const struct rl_engine *e, int n, struct rl_finding *f)
{
	const struct rl_engine *u = knowing(e, n, RL_EF_KV_FRACTION),
			       *s = knowing(e, n, RL_EF_MAX_LEN);

	if (u)
		rl_fig(f, "cache_max_entry_count", u->f[RL_EF_KV_FRACTION]);
	if (s)
		rl_fig(f, "session_len", s->f[RL_EF_MAX_LEN]);
	rl_advice(f, "TurboMind gives the KV cache --cache-max-entry-count of the memory the"
		  " weights leave (%s) and sizes the model instance's buffers by --session-len"
		  " and --max-batch-size: lower them until the cache and those buffers fit.",
		  u ? "set in this log" : "0.8 unless set");
}

/* TensorRT-LLM (its executor-creation table, py_executor_creator.py):
 * the KV cache takes kv_cache_config.free_gpu_memory_fraction of the
 * memory free once the model is made; the temporary resources that size
 * it (the activations of one max_num_tokens batch, an initial cache)
 * answer to max_num_tokens, as the engine's own advice says. The table
 * gives what each component took and the memory free when the failing
 * one was tried, not the size it asked for: the figures are shown and no
 * value is claimed. */
/* TensorRT-LLM's KV cache did not fit: the share of the free memory it
 * takes (stated, else the default) is the knob, lowered by TRT_FRACTION_STEP
 * as NVIDIA's MLPerf harness does on an OOM (its trtllm_runtime_flags:
 * "Progressively lower by 0.1/0.05 if you hit OOM errors"), with what the
 * lower share leaves of the free memory the table states (free < 0: not
 * printed; b1, b2: the free memory and the weights, for the sentence). */
#define TRT_FRACTION_STEP 0.1
static void trtllm_fraction(const struct rl_engine *e, int n, double free, const char *flag,
			    const char *b1, const char *b2, struct rl_finding *f)
{
	int stated;
	double cur = rl_trt_kv_fraction(e, n, &stated), nu = floor((cur - TRT_FRACTION_STEP) *
								    100 + 0.5) / 100;
	char b3[32], b4[32];

	rl_fig(f, "kv_cache_fraction", cur);
	if (nu < 0.05) {
		rl_advice(f, "TensorRT-LLM gives the KV cache %s (%.2f here) of the memory free"
			  " after the model (weights %s; %s free when the cache was created):"
			  " lower max_seq_len and max_batch_size.", flag, cur, b2, b1);
		return;
	}
	rl_fig(f, "suggested_kv_cache_fraction", nu);
	if (free > 0)
		rl_knob(f, knob_role_key(KR_MEM_FRACTION), flag, nu, "Lower %s from %.2f%s to %.2f:"
			" TensorRT-LLM gives the KV cache that share of the memory free after the"
			" model (%s free when the cache was created, weights %s), and at %.2f the"
			" cache takes about %s and leaves %s to the executor's other buffers.",
			flag, cur, stated ? "" : " (the default; not set in this log)", nu, b1, b2,
			nu, rl_bytes(nu * free, b3, sizeof(b3)), rl_bytes((1 - nu) * free, b4,
									 sizeof(b4)));
	else
		rl_knob(f, knob_role_key(KR_MEM_FRACTION), flag, nu, "Lower %s from %.2f%s to %.2f:"
			" TensorRT-LLM gives the KV cache that share of the memory free after the"
			" model (weights %s).", flag, cur, stated ? "" : " (the default; not set in"
			" this log)", nu, b2);
	rl_advice(f, "Or lower max_seq_len and max_batch_size; lower it again by 0.05 to 0.1"
		  " until the executor starts.");
}

static void trtllm_cache(const struct rl_phase *p, enum engine_kind k, const struct rl_engine *e,
			 int n, struct rl_finding *f)
{
	const struct rl_engine *fr = knowing(e, n, RL_EF_FREE), *w = knowing(e, n, RL_EF_WEIGHTS);
	const char *frac = engine_knob_flag(k, KR_MEM_FRACTION);
	char b1[32] = "not printed", b2[32] = "not printed";

	if (fr) {
		rl_fig(f, "free_bytes", fr->f[RL_EF_FREE]);
		rl_bytes(fr->f[RL_EF_FREE], b1, sizeof(b1));
	}
	if (w) {
		rl_fig(f, "weights_bytes", w->f[RL_EF_WEIGHTS]);
		rl_bytes(w->f[RL_EF_WEIGHTS], b2, sizeof(b2));
	}
	if (!strcmp(p->phase, "kv_alloc"))
		trtllm_fraction(e, n, fr ? fr->f[RL_EF_FREE] : -1, frac, b1, b2, f);
	else
		rl_advice(f, "The temporary resources that size TensorRT-LLM's KV cache (the"
			  " activations of one %s batch, an initial cache) did not fit in the %s"
			  " the model (weights %s) left: lower %s, or shard the weights (%s).",
			  engine_knob_flag(k, KR_BATCH_TOKENS), b1, b2,
			  engine_knob_flag(k, KR_BATCH_TOKENS), engine_knob_flag(k, KR_TP));
}

/* vLLM's "max_num_seqs (N) exceeds available Mamba cache blocks (M)"
 * (family vllm_state; vllm/config/compilation.py, 2026): one state block
 * per decoding sequence, so M is the most max_num_seqs may be. */
static void mamba_blocks(const struct rl_phase *p, struct rl_finding *f)
{
	static const char lead[] = "max_num_seqs (", mid[] = "Mamba cache blocks (";
	const char *a = strstr(p->text, lead), *b = strstr(p->text, mid);
	double seqs = a ? strtod(a + sizeof(lead) - 1, NULL) : 0;
	double blocks = b ? strtod(b + sizeof(mid) - 1, NULL) : 0;

	if (seqs >= 1)
		rl_fig(f, "max_num_seqs", seqs);
	if (blocks < 1)
		return;
	rl_fig(f, "mamba_cache_blocks", blocks);
	rl_knob(f, "max_num_seqs", "--max-num-seqs", blocks,
		"Lower --max-num-seqs to %.0f or fewer: the model's Mamba state cache holds %.0f"
		" blocks, one per decoding sequence (a higher gpu_memory_utilization gives it"
		" more, if the card has the room).", blocks, blocks);
}

static const char *advise_cache(struct rule_ctx *c, const struct rl_phase *p, const char *stack,
				const struct rl_engine *e, int n, struct rl_finding *f)
{
	const struct rl_engine *u = knowing(e, n, RL_EF_UTIL), *g;
	/* MLC-LLM (cpp/serve/config.cc): its budget is the card times
	 * gpu_memory_utilization, which must hold the weights, the temporary
	 * buffers and the KV cache; its own message lists the remedies */
	/* set 5, spent round 5 (w-spent5u): FlashInfer plans each batch in a
	 * workspace the engine allocated once at a fixed size (vLLM:
	 * vllm/attention/backends/flashinfer.py FLASHINFER_WORKSPACE_BUFFER_SIZE,
	 * 256 MiB in 2024; later vllm/envs.py VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE):
	 * the batch outgrew it, not the card, so gpu_memory_utilization is no
	 * answer */
	/* round 7 (w-worlde): a host allocation while the KV cache is set up
	 * is a pool the engine keeps in host memory, each rank its own:
	 * SGLang's hierarchical cache (python/sglang/srt/mem_cache/
	 * memory_pool_host.py HostKVCache: --hicache-size GB, else
	 * --hicache-ratio times the GPU pool, checked against the host's
	 * available memory less a 10 GiB reserve; docs/advanced_features/
	 * hicache_best_practices.md), vLLM V0's --swap-space (GiB per card,
	 * its engine arguments), LMCache's max_local_cpu_size */
	if (!strcmp(p->family, "vllm_state"))
		mamba_blocks(p, f);
	/* set 16 spent (w-spend16c): vllm-metal's KV budget is MLX's Metal
	 * limit times VLLM_METAL_MEMORY_FRACTION less the weights and the
	 * profiled overhead (vllm_metal/v1/cache_policy.py
	 * @v0.3.0.dev20260822162826); gpu_memory_utilization is not read */
	else if (!strcmp(p->family, "mlx") && strstr(p->text, "Metal memory for KV cache"))
		rl_advice(f, "vllm-metal's KV cache gets MLX's Metal limit times"
			  " VLLM_METAL_MEMORY_FRACTION less the weights and the overhead its profile"
			  " run measured, and that budget (kv_budget in its message) was not positive:"
			  " raise VLLM_METAL_MEMORY_FRACTION, lower --max-num-batched-tokens (the"
			  " profile run's size), or use a smaller or more quantized model;"
			  " gpu_memory_utilization is not what it reads.");
	else if (!strcmp(p->family, "host"))
		rl_advice(f, "The KV cache's pool in host memory did not fit in the host's free"
			  " memory; each rank allocates its own (SGLang's hierarchical cache:"
			  " --hicache-size GB, else --hicache-ratio times the GPU pool, with 10 GiB"
			  " of the host kept free; vLLM V0's --swap-space; LMCache's"
			  " max_local_cpu_size). Lower it so that every rank's pool fits together;"
			  " the GPU's memory is not what ran out, so gpu_memory_utilization and"
			  " mem_fraction_static do not change it.");
	else if (!strcmp(p->family, "flashinfer"))
		rl_advice(f, "FlashInfer's workspace buffer, which the engine allocates once at a fixed"
			  " size, was too small for the batch the profile run planned; the card's free"
			  " memory is not what ran out, so gpu_memory_utilization does not change it."
			  " Lower max_num_batched_tokens or max_num_seqs, choose another attention"
			  " backend (VLLM_ATTENTION_BACKEND), or, where the vLLM version reads it, raise"
			  " VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE.");
	else if (!strcmp(p->family, "mlc"))
		rl_advice(f, "MLC-LLM budgets the card times gpu_memory_utilization for the weights,"
			  " its temporary buffers and the KV cache, and that budget held less than the"
			  " weights and buffers: raise gpu_memory_utilization where the card has the"
			  " room, else shard the weights (--tensor-parallel-shards), quantize, or"
			  " shrink the buffers (--prefill-chunk-size in mlc_llm gen_config).");
	else if (!strcmp(stack, "sglang"))
		rl_advice(f, "SGLang sizes its KV pool from --mem-fraction-static%s: lower it (or"
			  " --max-total-tokens, --context-length) so that the profile run and the"
			  " pool fit.", u ? "" : " (not printed)");
	else if ((!strcmp(stack, "llama.cpp") || !strcmp(stack, "ollama")) &&
		 (g = rl_ggml_engine(e, n)) && rl_ggml_slots(p, stack, g, f))
		rl_advice(f, "Or lower the context per sequence (%s).", engine_knob_flag(
			  engine_kind_from_name(stack), KR_MAX_LEN));
	else if ((!strcmp(stack, "llama.cpp") || !strcmp(stack, "ollama")) &&
		 (g = rl_ggml_engine(e, n)) && (rl_ggml_ctx_fit(c, p, stack, g, f) ||
						rl_ggml_layers_fit(c, p, stack, g, f)))
		rl_advice(f, "The compute buffers and the KV cache grow with the context; with"
			  " several cards, pipeline parallelism multiplies the compute buffer.");
	else if (!strcmp(stack, "lmdeploy"))
		lmdeploy_cache(e, n, f);
	else if (engine_kind_from_name(stack) == ENGINE_TRTLLM ||
		 engine_kind_from_name(stack) == ENGINE_TRITON)
		trtllm_cache(p, engine_kind_from_name(stack), e, n, f);
	else if (!strcmp(stack, "ollama"))
		/* Ollama's own options (lib/engine_knobs.c), not llama.cpp's flags */
		rl_advice(f, "The compute buffers and the KV cache grow with the context: lower"
			  " %s or %s, or offload fewer layers (%s); with several cards, pipeline"
			  " parallelism multiplies the compute buffer.",
			  engine_knob_flag(ENGINE_OLLAMA, KR_MAX_LEN),
			  engine_knob_flag(ENGINE_OLLAMA, KR_BATCH_TOKENS),
			  engine_knob_flag(ENGINE_OLLAMA, KR_GPU_LAYERS));
	else if (!strcmp(stack, "llama.cpp"))
		rl_advice(f, "The compute buffers and the KV cache grow with the context: lower"
			  " %s or --ubatch-size, or offload fewer layers (%s); with several cards,"
			  " pipeline parallelism multiplies the compute buffer.",
			  engine_knob_flag(ENGINE_LLAMACPP, KR_MAX_LEN),
			  engine_knob_flag(ENGINE_LLAMACPP, KR_GPU_LAYERS));
	else if (engine_kind_named(engine_kind_from_name(stack)) &&
		 engine_kind_from_name(stack) != ENGINE_VLLM)
		rl_advice(f, "The profile run and the KV cache answer to %s and %s: lower them so"
			  " that the activations of one max-length batch and the cache fit.",
			  engine_knob_flag(engine_kind_from_name(stack), KR_MEM_FRACTION),
			  engine_knob_flag(engine_kind_from_name(stack), KR_MAX_LEN));
	else
		rl_advice(f, "The profile run and the KV cache answer to gpu_memory_utilization"
			  " (vLLM; SGLang mem_fraction_static) and max_model_len: lower them so that"
			  " the activations of one max-length batch and the cache fit.");
	return "cache_does_not_fit";
}

static const char *advise_weights(struct rule_ctx *c, const struct rl_phase *p, const char *stack,
				  const struct rl_engine *e, int n, struct rl_finding *f)
{
	const struct rl_engine *g;

	struct rl_card k;
	double total = -1;
	char b1[32], b2[32];

	if (rl_card_read(c, &k) == 1 && k.total > 0)
		total = k.total;
	else if (rl_gpu_total(c, &total) < 0)
		total = -1;
	if ((!strcmp(stack, "llama.cpp") || !strcmp(stack, "ollama")) && (g = rl_ggml_engine(e, n)) &&
	    rl_ggml_layers_fit(c, p, stack, g, f)) {
		rl_advice(f, "Or use a smaller quantization of the model.");
		return "weights_do_not_fit";
	}
	if (p->req > 0 && total > 0 && p->req > CARD_FILL * total) {
		double tp = ceil(p->req / (CARD_FILL * total));
		const char *tpf = engine_knob_flag(engine_kind_from_name(stack), KR_TP);
		rl_fig(f, "requested_bytes", p->req);
		rl_fig(f, "total_bytes", total);
		if (!tpf)
			tpf = "--tensor-parallel-size";
		rl_knob(f, "tensor_parallel_size", tpf, tp,
			"Loading the weights asked for %s of a %s card: shard them over %.0f cards"
			" (%s %.0f), or quantize them.", rl_bytes(p->req, b1,
			sizeof(b1)), rl_bytes(total, b2, sizeof(b2)), tp, tpf, tp);
	}
	if (!strcmp(stack, "llama.cpp") || !strcmp(stack, "ollama"))
		rl_advice(f, "Offload fewer layers to the GPU (%s), or use a smaller quantization"
			  " of the model.", engine_knob_flag(engine_kind_from_name(stack),
							     KR_GPU_LAYERS));
	else if (!strcmp(stack, "lmdeploy"))
		rl_advice(f, "TurboMind's weights do not fit: shard them (--tp), use a quantized"
			  " model (--model-format awq), or a smaller model.");
	/* exllamav2's auto-split (exllamav2/model.py@7ba31d8 load_autosplit_gen)
	 * places each layer with the cache it needs, max_seq_len tokens */
	else if (!strcmp(p->family, "exllamav2"))
		rl_advice(f, "exllamav2's auto-split places each layer together with its share of"
			  " the cache, which holds max_seq_len tokens, and the model with its cache"
			  " did not fit: lower max_seq_len (a model's default context may be far"
			  " longer than needed), use a quantized cache (Q4/Q6/Q8), or a smaller"
			  " quantization of the model.");
	else
		rl_advice(f, "The weights do not fit: quantize them, shard them (tensor"
			  " parallelism), or use a smaller model.");
	return "weights_do_not_fit";
}

/* DeepSpeed's set-up (deepspeed.initialize) places the model on the card
 * and, for ZeRO stage 1 and 2, builds the optimizer's states (its set-up
 * runs optimizer.step once): what does not fit there is answered by
 * partitioning more (ZeRO stage 3 also partitions the parameters) and by
 * moving states to the host. The names are DeepSpeed's config keys
 * (deepspeed.ai/docs/config-json: zero_optimization.stage,
 * offload_optimizer and offload_param with "device": "cpu") and
 * deepspeed.zero.Init, which accelerate's DeepSpeed plugin calls
 * zero3_init_flag (huggingface.co/docs/accelerate, usage_guides/deepspeed). */
static const char *advise_zero_setup(const struct rl_phase *p, struct rl_finding *f)
{
	char b[32];

	if (p->req > 0)
		rl_fig(f, "requested_bytes", p->req);
	if (!strcmp(p->stack, "deepspeed_zero3")) {
		rl_advice(f, "DeepSpeed's set-up under ZeRO stage 3 did not fit: move the optimizer"
			  " states and then the parameters to the host"
			  " (zero_optimization.offload_optimizer and offload_param with \"device\":"
			  " \"cpu\"), and build the model partitioned (deepspeed.zero.Init;"
			  " accelerate: zero3_init_flag: true) rather than whole on each card.");
		return "zero_setup_does_not_fit";
	}
	rl_knob(f, "zero_stage", "zero_optimization.stage", 3,
		"Partition the parameters as well as the optimizer states and gradients: ZeRO"
		" stage 3 (\"zero_optimization\": {\"stage\": 3}), with the model built partitioned"
		" (deepspeed.zero.Init; accelerate: zero3_init_flag: true)%s%s%s.",
		p->req > 0 ? "; the set-up asked for " : "",
		p->req > 0 ? rl_bytes(p->req, b, sizeof(b)) : "", p->req > 0 ? " more" : "");
	rl_advice(f, "If it still does not fit, move the optimizer states to the host"
		  " (zero_optimization.offload_optimizer: {\"device\": \"cpu\"}), then the"
		  " parameters (offload_param: {\"device\": \"cpu\"}).");
	return "zero_setup_does_not_fit";
}

/* A ggml buffer in host memory failed (llama.cpp's CPU buffer type, its
 * aligned malloc: llama.cpp #8101's 128 GiB KV cache of n_ctx 1048576 on
 * the CPU backend): RAM, not a card, ran short, so the card's knobs are
 * no answer. The KV cache and compute buffers grow with the context; the
 * weights are mapped from the model file by default (mmap: pages the
 * kernel can drop and read again), and --no-mmap copies them into RAM
 * (llama.cpp's --mmap/--no-mmap, Ollama's use_mmap). */
static const char *advise_host_ggml(const struct rl_phase *p, const char *stack,
				    struct rl_finding *f)
{
	/* the log's own engine's spellings; both where it names neither */
	static const char *const words[][4] = {
		/* mmap off, layers, context, batch */
		{ "--no-mmap, Ollama use_mmap false", "--n-gpu-layers, Ollama num_gpu",
		  "--ctx-size (Ollama num_ctx, which OLLAMA_NUM_PARALLEL multiplies)",
		  "--ubatch-size (-ub) and --batch-size (Ollama num_batch)" },
		{ "--no-mmap", "--n-gpu-layers", "--ctx-size", "--ubatch-size (-ub) and --batch-size" },
		{ "use_mmap false", "num_gpu", "num_ctx (which OLLAMA_NUM_PARALLEL multiplies)",
		  "num_batch" },
	};
	int w = !strcmp(stack, "llama.cpp") ? 1
		: !strcmp(stack, "ollama") || !strcmp(p->family, "ollama") ? 2 : 0;
	char b[32], ctx[280];
	int weights = !strcmp(p->phase, "load_weights");

	if (p->req > 0)
		rl_fig(f, "requested_bytes", p->req);
	/* the profile phase is the compute buffers' reservation: ggml's
	 * graph allocator sizes them for the worst-case graph of one
	 * micro-batch against a full KV cache (n_tokens = min(n_ctx,
	 * n_ubatch): llama_new_context_with_model in src/llama.cpp at
	 * b3987, llama_context::sched_reserve later; llama.cpp #10251, set
	 * 4: 139 GB of CPU compute buffer at -ub 6500), so the batch is the
	 * first knob there, the context the second */
	if (!strcmp(p->phase, "profile"))
		snprintf(ctx, sizeof(ctx), "the compute buffer is reserved for one micro-batch"
			 " against the context: lower %s, then %s.", words[w][3], words[w][2]);
	else
		snprintf(ctx, sizeof(ctx), "the KV cache and compute buffers grow with the context:"
			 " lower %s, the context tokens the cache is sized for.", words[w][2]);
	rl_advice(f, "The buffer that failed%s%s%s was in host memory (RAM), not on a GPU: %s"
		  " Keep the weights memory-mapped from the model file (the default; drop"
		  " %s, which copies them into RAM), offload more layers to a GPU (%s) if one"
		  " has room, or give the process more RAM.", p->req > 0 ? " (" : "",
		  p->req > 0 ? rl_bytes(p->req, b, sizeof(b)) : "", p->req > 0 ? ")" : "",
		  weights ? "the model does not fit in the RAM left; use a smaller quantization."
			  : ctx, words[w][0], words[w][1]);
	return weights ? "weights_do_not_fit" : "cache_does_not_fit";
}

/* Start-up with the stage not shown (phase startup: an engine that
 * never started, "Engine core initialization failed"): which stage
 * failed, and so which knob answers, nothing says. The knobs of start-up
 * in general are named, in the order of the stages, labelled as not
 * knowing the stage, for the engine the log names (lib/engine_knobs.c;
 * vLLM's names when none does); no value is claimed here (startup.c
 * adds one only where the engine's own figures give it). */
static const char *advise_startup(const char *stack, struct rl_finding *f)
{
	enum engine_kind k = engine_kind_from_name(stack);
	const char *frac = engine_knob_flag(k, KR_MEM_FRACTION), *len = engine_knob_flag(k, KR_MAX_LEN),
		   *tp = engine_knob_flag(k, KR_TP), *eager = engine_knob_flag(k, KR_NO_GRAPHS),
		   *seqs = engine_knob_flag(k, KR_MAX_SEQS);

	if (!strcmp(stack, "llama.cpp") || !strcmp(stack, "ollama"))
		rl_advice(f, "The stage that failed is not shown: start-up loads the weights, then"
			  " allocates the KV cache and the compute buffers. Offload fewer layers"
			  " (--n-gpu-layers, Ollama num_gpu), lower the context (--ctx-size, Ollama"
			  " num_ctx), or use a smaller quantization.");
	else if (!engine_kind_named(k) || !frac)
		rl_advice(f, "The stage that failed is not shown: start-up loads the weights"
			  " (quantize, shard them with tensor parallelism, or a smaller model), then"
			  " sizes the KV cache (its share of the card: vLLM gpu_memory_utilization,"
			  " SGLang mem_fraction_static; and the context length), captures CUDA graphs"
			  " and warms up with a batch of the most sequences it may run. The engine's"
			  " log from its start names the stage.");
	else
		rl_advice(f, "The stage that failed is not shown: start-up loads the weights (%s, or"
			  " quantize), then sizes the KV cache (%s, %s)%s%s%s%s%s. The engine's log"
			  " from its start names the stage.", tp ? tp : "tensor parallelism", frac,
			  len ? len : "the context length", eager ? ", captures CUDA graphs (" : "",
			  eager ? eager : "", eager ? ")" : "", seqs ? " and warms up with " : "",
			  seqs ? seqs : "");
	return "startup_oom";
}

static const char *phase_advise(struct rule_ctx *c, const struct rl_phase *p, const char *stack,
				const struct rl_engine *e, int n, struct rl_finding *f);

const char *rl_phase_advise(struct rule_ctx *c, const struct rl_phase *p,
			    const struct rl_engine *e, int n, struct rl_finding *f)
{
	const char *stack = stack_of(p, e, n), *cause = phase_advise(c, p, stack, e, n, f);

	rl_launch_stated(c, f, p->phase, e, n, engine_kind_from_name(stack));
	return cause;
}

/* The cause and advice of p's phase (rl_phase_advise). */
static const char *phase_advise(struct rule_ctx *c, const struct rl_phase *p, const char *stack,
				const struct rl_engine *e, int n, struct rl_finding *f)
{
	const char *app = rl_phase_advise_ggml_app(p, f);

	if (app)
		return app;
	if (p->host && (!strcmp(p->family, "ggml") || !strcmp(p->family, "ollama") ||
			!strcmp(stack, "llama.cpp") || !strcmp(stack, "ollama")))
		return advise_host_ggml(p, stack, f);
	if (!strcmp(p->phase, "load_weights") && rl_phase_deepspeed(p))
		return advise_zero_setup(p, f);
	if (!strcmp(p->phase, "load_weights") && p->host)
		return rl_phase_advise_host_load(p, stack, f);
	if (!strcmp(p->phase, "startup"))
		return advise_startup(stack, f);
	if (!strcmp(p->phase, "warmup") && !strcmp(p->graph, "projector"))
		return rl_phase_advise_projector(p, stack, f);
	if (!strcmp(p->phase, "warmup"))
		return advise_warmup(p, stack, e, n, f);
	if (!strcmp(p->phase, "graph_capture"))
		return advise_graphs(stack, e, n, f);
	if (!strcmp(p->phase, "load_weights"))
		return advise_weights(c, p, stack, e, n, f);
	return advise_cache(c, p, stack, e, n, f);
}
