/*
 * plan.h -- capacity planning for an inference service: from a Hugging
 * Face config.json, a card and the engine's settings, what the engine
 * would do at start-up (weights per GPU, KV bytes per token, the KV pool
 * it would make under its own rule, KV tokens and blocks, the maximum
 * concurrency at max_model_len), the seed's safe concurrency (x 0.7), and
 * whether the configuration fits, with the knob and a value that does.
 * Pure computation: no database, no output; `oomlens plan` (cli/cmd_plan.c)
 * prints it. The formulas and their sources are in docs/plan.md.
 *
 * Modules: config.c (reading config.json, untrusted), quant.c (the
 * checkpoint's quantisation, from its config or its name, and the bytes
 * per weight), weights.c (the parameter count), kv.c (KV bytes per
 * token), pool.c (the engines' rules, memory other processes hold
 * included, fits and advice), gpus.c (the card table).
 */
#ifndef OOMLENS_PLAN_H
#define OOMLENS_PLAN_H

#include <stddef.h>
#include <stdint.h>

#define PL_GIB (1024.0 * 1024.0 * 1024.0)

enum pl_quant {
	PL_Q_NONE = 0,   /* weights in the model's dtype */
	PL_Q_FP8,        /* 8-bit float, per-tensor or block scales */
	PL_Q_INT8,       /* 8-bit integer (w8a8, bitsandbytes 8-bit), per-channel scales */
	PL_Q_INT4,       /* N-bit groups (AWQ, GPTQ, w4a16; quant_bits, 4 by default)
			  * with a scale and zero per group */
	PL_Q_MXFP4,      /* gpt-oss: MoE experts in MXFP4 (4 bits + an 8-bit scale per 32) */
	PL_Q_NF4,        /* bitsandbytes 4-bit: an absmax per 64 (double_quant: 8-bit) */
	PL_Q_FP4,        /* NVFP4: 4 bits + an fp8 scale per group of 16 */
	PL_Q_GGUF,       /* llama.cpp k-quants: gguf_bpw bits per weight, whole file */
};

/* Where the quantisation came from: config.json says it, the
 * repository's name suggests it (a guess, labelled as one), or the user
 * said it (--quantization). */
enum pl_quant_src { PL_QS_NONE = 0, PL_QS_CONFIG, PL_QS_NAME, PL_QS_OPTION };

/* A model's architecture, as config.json states it (text_config for the
 * multimodal ones). 0 where the config says nothing. */
#define PL_KEEP_LAYERS 1024

struct pl_arch {
	char model_type[48];
	int layers;             /* num_hidden_layers */
	int hidden;             /* hidden_size */
	int heads;              /* num_attention_heads */
	int kv_heads;           /* num_key_value_heads (= heads when absent: MHA) */
	int head_dim;           /* head_dim, else hidden / heads */
	int intermediate;       /* intermediate_size (dense MLP) */
	int vocab;              /* vocab_size */
	int tie;                /* tie_word_embeddings */
	int qkv_bias;           /* q/k/v projections carry a bias (Qwen2, attention_bias) */
	int qk_norm;            /* per-head q/k RMSNorm (Qwen3) */
	int gated;              /* gate+up+down MLP (1) or up+down (0) */
	/* mixture of experts */
	int experts;            /* routed experts (n_routed_experts, num_experts, num_local_experts) */
	int experts_per_tok;    /* num_experts_per_tok */
	int moe_intermediate;   /* moe_intermediate_size, else intermediate_size */
	int shared_experts;     /* n_shared_experts (DeepSeek) */
	int shared_intermediate;/* shared_expert_intermediate_size (Qwen2-MoE) */
	int first_dense;        /* first_k_dense_replace: leading dense layers */
	int moe_every;          /* moe_layer_freq / decoder_sparse_step (1: every layer) */
	/* multi-head latent attention (DeepSeek-V2/V3) */
	int mla;
	int q_lora_rank, kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim;
	/* layer kinds: full attention, sliding window, linear attention / SSM */
	int n_full, n_swa, n_linear;
	int sliding_window;     /* tokens, 0: none */
	/* dtype and quantisation */
	int dtype_bytes;        /* 2 for bf16/fp16 (fp32 checkpoints are served in 16 bits) */
	enum pl_quant quant;
	int group_size;         /* INT4: weights per scale (128 by default) */
	int block_scales;       /* FP8: weight_block_size given (128x128 blocks) */
	int quant_bits;         /* INT4: bits per weight (AWQ/GPTQ bits), 0: 4 */
	int double_quant;       /* NF4: bnb_4bit_use_double_quant */
	double gguf_bpw;        /* GGUF: bits per weight of the type */
	enum pl_quant_src quant_src;
	char quant_from[128];   /* PL_QS_NAME: the name it was inferred from */
	char name_or_path[128]; /* config.json's _name_or_path, "" when absent */
	int64_t max_position;   /* max_position_embeddings */
	int multimodal;         /* a vision_config beside the language model */
	double vision_params;   /* its vision tower and projector (0: not
				 * counted, the config gives too little) */
	/* quantization_config.modules_to_not_convert: the layers whose
	 * attention / MLP (experts included) stay in 16 bits, one bit per
	 * layer (layers past PL_KEEP_LAYERS are not tracked) */
	unsigned char keep_attn[PL_KEEP_LAYERS / 8], keep_mlp[PL_KEEP_LAYERS / 8];
	/* the engine's cache layout for MLA (pool.c sets them per version):
	 * mla_mha_head > 0: cached as K and V of that head size per head
	 * (vLLM V0 before 0.7.1); kv_align_bytes > 0: each token's latent
	 * padded to that many bytes of the model's dtype (vLLM V0 0.7.1 on,
	 * CUDA) */
	int mla_mha_head, kv_align_bytes;
	/* vLLM V0 0.7.x's MLA matrix absorption (weights.c counts the copies
	 * it keeps beside the checkpoint's weights) */
	int mla_absorbed;
};

/* Is bit i of a keep_* map set? */
#define PL_KEEP(map, i) ((i) >= 0 && (i) < PL_KEEP_LAYERS && ((map)[(i) / 8] >> ((i) % 8) & 1))

enum pl_engine { PL_VLLM = 0, PL_SGLANG, PL_TGI, PL_TRTLLM, PL_OLLAMA };

/* What the user asked for; -1 (or 0 for the doubles) where not given,
 * pl_settings_defaults() fills the engine's defaults. */
struct pl_settings {
	enum pl_engine engine;
	int tp, pp;
	int64_t gpu_bytes;          /* memory of one card as the driver reports it */
	double util;                /* gpu_memory_utilization / mem_fraction_static / fraction */
	int64_t max_model_len;
	int64_t max_num_seqs;
	int seqs_given;             /* max_num_seqs came from the user */
	int64_t block_size;
	int64_t max_batched_tokens; /* the profile run's tokens (max_num_batched_tokens) */
	int kv_dtype_bytes;         /* 0: the model's dtype */
	enum pl_quant quant;        /* -1 via quant_set = 0: the config's */
	int quant_set;
	int dtype_bytes;            /* 0: the config's */
	int64_t weights_given;      /* what the engine printed, or -1 */
	int64_t non_kv_given;
	int64_t kv_given;
	int64_t free_given;         /* free memory on one card at start-up (the
				     * least free of the ranks), as nvidia-smi or
				     * the engine printed it; <= 0: not given */
	int64_t other_given;        /* memory other processes hold on the card;
				     * <= 0: none said (free = total - it) */
	int64_t kv_per_token_given; /* > 0: the engine's own KV bytes per token
				     * (its KV memory / its KV tokens), replaces
				     * the architecture's; 0: not given */
	int version;                /* the engine's version as PL_VERSION(major,
				     * minor, patch); 0: the newest modelled */
	int card_a100;              /* the card is an A100 (vLLM's defaults
				     * treat it as a smaller card; MXFP4 runs on
				     * Marlin there) */
	int card_rocm;              /* an AMD card: 1 Instinct, 2 Radeon (vLLM
				     * falls back to V0 there before 0.9 / 0.10) */
	int sampler;                /* vLLM's top-k/top-p sampler: PL_SAMPLER_* */
	int batched_derived;        /* max_batched_tokens came from the engine's
				     * defaults (V0: from max_model_len) */
	int engine_v1;              /* vLLM's engine: 0 the version's default,
				     * 1 V1 (VLLM_USE_V1=1, e.g. on 0.7),
				     * -1 V0 (VLLM_USE_V1=0, e.g. on 0.8) */
};

/* vLLM's top-k/top-p sampler, whose dummy run is the profile's peak:
 * the version's usual one, PyTorch's native sort, or FlashInfer's. */
enum { PL_SAMPLER_DEFAULT = 0, PL_SAMPLER_NATIVE, PL_SAMPLER_FLASHINFER };

/* An engine version as one comparable number: PL_VERSION(0, 10, 1). */
#define PL_VERSION(major, minor, patch) ((major) * 10000 + (minor) * 100 + (patch))

struct pl_result {
	int64_t weights_bytes;       /* per GPU */
	int64_t kv_bytes_per_token;  /* per GPU, over the layers whose cache grows with context */
	int64_t budget_bytes;        /* what the engine lets itself use (total x fraction) */
	int64_t non_torch_bytes;     /* estimates (or given) */
	int64_t activation_bytes;
	int64_t non_kv_bytes;        /* non_torch + activation (or given) */
	int64_t kv_cache_bytes;      /* the pool */
	int64_t kv_cache_tokens;
	int64_t gpu_blocks;
	double max_concurrency;      /* kv_cache_tokens / max_model_len */
	int64_t safe_concurrency;    /* floor(max_concurrency x 0.7) */
	int64_t free_bytes;          /* free at start-up (given), -1: unknown */
	int64_t start_need_bytes;    /* what the engine needs free at start-up
				      * under its rule; 0: no free-memory rule */
	int free_short;              /* the engine refuses to start (or fails
				      * allocating) for want of free memory */
	int fits;
	char knob[32];               /* "" when nothing to change */
	char value[32];
	char advice[256];
	/* the settings the figures are for, defaults filled */
	struct pl_settings used;
};

/* ---- config.c ---- */
/* Read a config.json (at most 4 MiB; every field checked for type and
 * range) into *a. 0, or -1 with the reason in err[errn]. */
int pl_config_load(const char *path, struct pl_arch *a, char *err, size_t errn);
/* The same from a buffer (for tests and fuzzing). */
int pl_config_parse(const char *buf, size_t n, struct pl_arch *a, char *err, size_t errn);

/* ---- quant.c ---- */
struct json_t;
/* A config's quantization_config (or compression_config) into a's quant
 * fields, quant_src PL_QS_CONFIG when it names one. 0, or -1 with the
 * reason (a field of the wrong type or range). */
int pl_quant_read(struct json_t *q, struct pl_arch *a, char *err, size_t errn);
/* The quantisation a repository or file name suggests (-AWQ, -GPTQ-Int4,
 * -FP8, -bnb-4bit, -Q4_K_M ...): 1 and a's quant fields set, quant_src
 * PL_QS_NAME, quant_from the name; 0 when the name says nothing. */
int pl_quant_from_name(const char *name, struct pl_arch *a);
/* When the config names no quantisation: from given_name (the model the
 * engine was told to load), else config's _name_or_path, else the
 * config file's folder (the Hub cache's models--org--name included).
 * 1 when a guess was made, 0 when not (or the config already said). */
int pl_quant_guess(struct pl_arch *a, const char *given_name, const char *config_path);
/* The user named quantisation q (--quantization): a's quant_src becomes
 * PL_QS_OPTION; bitsandbytes 4-bit on a config that names none is vLLM's
 * in-flight quantisation, double quantised (the loader's
 * quantize_4bit(compress_statistics=True, quant_type="nf4")). */
void pl_quant_option(struct pl_arch *a, enum pl_quant q);
/* Bytes per weight of quantisation q, its scales and zeros included;
 * dtype_bytes when q quantises nothing. */
double pl_quant_bytes(const struct pl_arch *a, enum pl_quant q, int dtype_bytes);
const char *pl_quant_name(enum pl_quant q);
const char *pl_quant_src_name(enum pl_quant_src s);

/* ---- weights.c ---- */
/* Parameters of the whole model (all ranks). */
double pl_param_count(const struct pl_arch *a);
/* Bytes of weights one GPU holds under tp x pp with quantisation q
 * (PL_Q_NONE: dtype_bytes each). */
/* The decoder layers vLLM gives pipeline stage rank of pp
 * (get_pp_indices: layers / pp each, the remainder one each to the
 * stages before the last, counting back from the second-to-last). */
int pl_pp_stage_layers(int layers, int pp, int rank);
int64_t pl_weights_bytes(const struct pl_arch *a, int tp, int pp, enum pl_quant q, int dtype_bytes);
/* The same with MXFP4 experts padded as the engine pads them for its
 * kernels: the intermediate size per rank to a multiple of pad_i and the
 * hidden size to one of pad_h (1: no padding). */
int64_t pl_weights_bytes_padded(const struct pl_arch *a, int tp, int pp, enum pl_quant q,
				int dtype_bytes, int pad_i, int pad_h);
/* The weights of one pipeline stage: n layers from layer first, with the
 * embedding (embed) and the LM head (head) when the stage holds them. */
int64_t pl_stage_weights_bytes(const struct pl_arch *a, int tp, int first, int n, enum pl_quant q,
				int dtype_bytes, int pad_i, int pad_h, int embed, int head);

/* ---- kv.c ---- */
/* KV bytes per token on one GPU (tp, pp) with kv_bytes per element. */
int64_t pl_kv_bytes_per_token(const struct pl_arch *a, int tp, int pp, int kv_bytes);
/* KV heads one rank holds: kv_heads / tp, at least 1 (replicated when fewer). */
int pl_kv_heads_per_rank(const struct pl_arch *a, int tp);

/* ---- pool.c ---- */
/* The seed's safety factor: of what fits, plan for 70 %. */
#define PL_SAFETY 0.7
/* The seed's safe concurrency: floor(room / per_request x 0.7), at least
 * 1 when room and per_request are positive, else 0. The one formula the
 * serving what-if (analyzer/derive/servwhatif.c) and plan share. */
int64_t pl_safe_seqs(double room_bytes, double per_request_bytes);
/* Fill the engine's defaults in s for what is not given (-1). */
void pl_settings_defaults(struct pl_settings *s, const struct pl_arch *a);
/* The engine's start-up figures for a and s (defaults filled), without
 * advice. 0, or -1 with the reason (no card memory, a bad setting). */
int pl_estimate(const struct pl_arch *a, const struct pl_settings *s, struct pl_result *r,
		char *err, size_t errn);
/* pl_estimate, then, when it does not fit, the knob and a value that
 * does, found by running the model again with that value. */
int pl_plan(const struct pl_arch *a, const struct pl_settings *s, struct pl_result *r,
	    char *err, size_t errn);
const char *pl_engine_name(enum pl_engine e);
/* The engine named (vllm, sglang, tgi, tensorrt-llm, ollama), or -1. */
int pl_engine_parse(const char *name);
/* Whether a config.json of model_type that does not say
 * tie_word_embeddings ties its head: the type's config class default in
 * transformers (False for Llama, Qwen2, Mistral...; PretrainedConfig's
 * True for Gemma, OPT, Falcon and any type not known). */
int pl_tie_default(const char *model_type);

/* A version "0.10.1.1", "v0.9", "0.9.x" into PL_VERSION(0, 10, 1) form;
 * -1 when it does not start with major.minor. */
int pl_version_parse(const char *text);

#endif
