/*
 * config.c -- a Hugging Face config.json read into struct pl_arch. The
 * file is untrusted: its size is bounded before it is read, jansson
 * rejects invalid UTF-8 and duplicate keys, every number is checked for
 * type and range, and a multimodal config's text_config (Gemma 3, Llama 4,
 * Qwen2-VL...) is read in place of the top level where it holds the
 * language model. Which layers are full, sliding-window or linear
 * attention comes from layer_types when present, else from the families'
 * own keys (Gemma 2 alternates, Gemma 3 sliding_window_pattern, Qwen3-Next
 * full_attention_interval, Jamba attn_layer_period/offset). The
 * quantization_config is read by quant.c.
 */
#include "analyzer/plan/plan.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PL_CONFIG_MAX (4 << 20)
#define PL_DIM_MAX (1 << 24)    /* no dimension of a real model is larger */

/* An integer field in [lo, hi] into *out: 1 read, 0 absent (or null),
 * -1 present but not such an integer (reason in err). */
static int get_int(json_t *o, const char *key, int64_t lo, int64_t hi, int64_t *out,
		   char *err, size_t errn)
{
	json_t *v = json_object_get(o, key);
	double d;

	if (!v || json_is_null(v))
		return 0;
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
	} else if (json_is_real(v)) {
		d = json_real_value(v);
		if (d != (double)(int64_t)d) {
			snprintf(err, errn, "config.json: %s: expected an integer", key);
			return -1;
		}
		*out = (int64_t)d;
	} else if (json_is_boolean(v)) {
		*out = json_is_true(v);
	} else {
		snprintf(err, errn, "config.json: %s: expected a number", key);
		return -1;
	}
	if (*out < lo || *out > hi) {
		snprintf(err, errn, "config.json: %s = %lld out of range [%lld, %lld]", key,
			 (long long)*out, (long long)lo, (long long)hi);
		return -1;
	}
	return 1;
}

/* get_int into an int field, keeping *field when the key is absent. */
static int take(json_t *o, const char *key, int64_t lo, int64_t hi, int *field, char *err,
		size_t errn)
{
	int64_t v;
	int r = get_int(o, key, lo, hi, &v, err, errn);

	if (r > 0)
		*field = (int)v;
	return r < 0 ? -1 : 0;
}

static const char *get_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Count layer kinds from a layer_types array ("full_attention",
 * "sliding_attention", "linear_attention", "mamba", ...). */
static int read_layer_types(json_t *lt, struct pl_arch *a, char *err, size_t errn)
{
	size_t i;
	json_t *v;

	if (json_array_size(lt) != (size_t)a->layers) {
		snprintf(err, errn, "config.json: layer_types has %zu entries for %d layers",
			 json_array_size(lt), a->layers);
		return -1;
	}
	a->n_full = a->n_swa = a->n_linear = 0;
	json_array_foreach(lt, i, v) {
		const char *s = json_string_value(v);
		if (!s) {
			snprintf(err, errn, "config.json: layer_types[%zu]: expected a string", i);
			return -1;
		}
		if (strstr(s, "sliding") || strstr(s, "local") || strstr(s, "chunk"))
			a->n_swa++;
		else if (strstr(s, "linear") || strstr(s, "mamba") || strstr(s, "conv") ||
			 strstr(s, "recurrent"))
			a->n_linear++;
		else
			a->n_full++;
	}
	return 0;
}

/* The layer kinds from the families' keys when there is no layer_types. */
static int read_layer_kinds(json_t *o, struct pl_arch *a, char *err, size_t errn)
{
	int pattern = 0, interval = 0, period = 0, offset = 0, use_sw = 1;
	const char *mt = a->model_type;
	int64_t v;
	int i;

	if (get_int(o, "use_sliding_window", 0, 1, &v, err, errn) > 0)
		use_sw = (int)v;
	if (take(o, "sliding_window_pattern", 1, PL_DIM_MAX, &pattern, err, errn) < 0 ||
	    take(o, "full_attention_interval", 1, PL_DIM_MAX, &interval, err, errn) < 0 ||
	    take(o, "attn_layer_period", 1, PL_DIM_MAX, &period, err, errn) < 0 ||
	    take(o, "attn_layer_offset", 0, PL_DIM_MAX, &offset, err, errn) < 0)
		return -1;
	a->n_full = a->layers;
	if (period) {                   /* Jamba: attention every period-th layer */
		a->n_full = 0;
		for (i = 0; i < a->layers; i++)
			a->n_full += i % period == offset % period;
		a->n_linear = a->layers - a->n_full;
	} else if (interval) {          /* Qwen3-Next: full every interval-th, linear between */
		a->n_full = a->layers / interval;
		a->n_linear = a->layers - a->n_full;
	} else if (a->sliding_window && use_sw) {
		if (!strcmp(mt, "gemma2") || (!strcmp(mt, "cohere2") && !pattern))
			pattern = 2;
		if (!strncmp(mt, "gemma3", 6) && !pattern)
			pattern = 6;
		if (pattern) {          /* every pattern-th layer is global */
			a->n_full = a->layers / pattern;
			a->n_swa = a->layers - a->n_full;
		} else if (!strcmp(mt, "mistral") || !strcmp(mt, "mixtral") ||
			   !strcmp(mt, "qwen2") || !strcmp(mt, "starcoder2")) {
			/* every layer slides (Mistral 7B v0.1); Qwen2 only with use_sliding_window */
			a->n_full = 0;
			a->n_swa = a->layers;
		}
	}
	return 0;
}

/* The architecture fields of one object (the top level or text_config). */
static int read_arch(json_t *o, struct pl_arch *a, char *err, size_t errn)
{
	const char *mt = get_str(o, "model_type");
	const char *dt = get_str(o, "torch_dtype");
	const char *act = get_str(o, "hidden_act");
	int64_t v;
	int r = 0;

	if (mt)
		snprintf(a->model_type, sizeof(a->model_type), "%s", mt);
	if (!dt)
		dt = get_str(o, "dtype");
	if (!act)
		act = get_str(o, "activation_function");                   /* OPT */
	if (dt)
		a->dtype_bytes = 2;     /* fp32 checkpoints are served in fp16/bf16 */
	r |= take(o, "num_hidden_layers", 1, 4096, &a->layers, err, errn);
	r |= take(o, "n_layer", 1, 4096, &a->layers, err, errn);
	r |= take(o, "hidden_size", 1, PL_DIM_MAX, &a->hidden, err, errn);
	r |= take(o, "num_attention_heads", 1, 65536, &a->heads, err, errn);
	r |= take(o, "num_key_value_heads", 1, 65536, &a->kv_heads, err, errn);
	r |= take(o, "num_kv_heads", 1, 65536, &a->kv_heads, err, errn);
	r |= take(o, "head_dim", 1, 65536, &a->head_dim, err, errn);
	r |= take(o, "intermediate_size", 1, PL_DIM_MAX, &a->intermediate, err, errn);
	r |= take(o, "ffn_hidden_size", 1, PL_DIM_MAX, &a->intermediate, err, errn);
	r |= take(o, "ffn_dim", 1, PL_DIM_MAX, &a->intermediate, err, errn);        /* OPT */
	r |= take(o, "vocab_size", 1, PL_DIM_MAX, &a->vocab, err, errn);
	r |= take(o, "tie_word_embeddings", 0, 1, &a->tie, err, errn);
	r |= take(o, "attention_bias", 0, 1, &a->qkv_bias, err, errn);
	r |= take(o, "n_routed_experts", 0, 65536, &a->experts, err, errn);
	r |= take(o, "num_experts", 0, 65536, &a->experts, err, errn);
	r |= take(o, "num_local_experts", 0, 65536, &a->experts, err, errn);
	r |= take(o, "num_experts_per_tok", 0, 65536, &a->experts_per_tok, err, errn);
	r |= take(o, "moe_intermediate_size", 0, PL_DIM_MAX, &a->moe_intermediate, err, errn);
	r |= take(o, "n_shared_experts", 0, 65536, &a->shared_experts, err, errn);
	r |= take(o, "shared_expert_intermediate_size", 0, PL_DIM_MAX, &a->shared_intermediate,
		  err, errn);
	r |= take(o, "first_k_dense_replace", 0, 4096, &a->first_dense, err, errn);
	r |= take(o, "moe_layer_freq", 1, 4096, &a->moe_every, err, errn);
	r |= take(o, "decoder_sparse_step", 1, 4096, &a->moe_every, err, errn);
	r |= take(o, "q_lora_rank", 0, PL_DIM_MAX, &a->q_lora_rank, err, errn);
	r |= take(o, "kv_lora_rank", 0, PL_DIM_MAX, &a->kv_lora_rank, err, errn);
	r |= take(o, "qk_rope_head_dim", 0, 65536, &a->qk_rope_head_dim, err, errn);
	r |= take(o, "qk_nope_head_dim", 0, 65536, &a->qk_nope_head_dim, err, errn);
	r |= take(o, "v_head_dim", 0, 65536, &a->v_head_dim, err, errn);
	r |= take(o, "sliding_window", 0, INT32_MAX, &a->sliding_window, err, errn);
	if (mt && !strncmp(mt, "llama4", 6) && a->experts) {
		/* Llama 4 (transformers' Llama4TextConfig, vLLM's llama4.py
		 * Llama4MoE): intermediate_size is one expert's and the shared
		 * expert's (every MoE layer has one, with no gate of its own),
		 * intermediate_size_mlp the dense layers'; layer i is MoE when
		 * (i + 1) % interleave_moe_layer_step == 0 */
		int dense = 0;
		r |= take(o, "intermediate_size_mlp", 0, PL_DIM_MAX, &dense, err, errn);
		r |= take(o, "interleave_moe_layer_step", 1, 4096, &a->moe_every, err, errn);
		a->moe_intermediate = a->intermediate;
		a->shared_intermediate = a->intermediate;
		if (dense)
			a->intermediate = dense;
	}
	if (get_int(o, "max_position_embeddings", 0, INT64_MAX / 2, &v, err, errn) > 0)
		a->max_position = v;
	if (r)
		return -1;
	if (act && (!strcmp(act, "gelu") || !strcmp(act, "gelu_new") || !strcmp(act, "relu")) &&
	    mt && (!strcmp(mt, "gpt2") || !strcmp(mt, "gpt_neox") || !strcmp(mt, "opt") ||
		   !strcmp(mt, "falcon") || !strcmp(mt, "phi") || !strcmp(mt, "starcoder2") ||
		   !strcmp(mt, "bloom")))
		a->gated = 0;
	return 0;
}

/* The parameters of a ViT vision tower (SigLIP, CLIP) from vision_config,
 * with the projector into the language model of text_hidden: per layer
 * q/k/v/o with biases, fc1/fc2 with biases, two LayerNorms; the patch
 * embedding (a num_channels x patch^2 convolution with its bias) and one
 * position embedding per patch ((image_size / patch_size)^2; CLIP adds
 * a class token and a pre-LayerNorm); the post-LayerNorm. The projector:
 * Gemma 3's one matrix and RMSNorm (Gemma3MultiModalProjector), else
 * LLaVA's two linear layers. 0 when hidden_size, num_hidden_layers or
 * intermediate_size is missing (nothing is guessed); -1 on a field that
 * is not a whole number in range (err says which). Approximate where a
 * family adds parts (SigLIP's attention-pooling head, vision_use_head,
 * is not counted; Qwen2-VL's and Llama 4's towers differ). */
static double vision_params(json_t *v, const char *model_type, int text_hidden, char *err,
			    size_t errn)
{
	int h = 0, inter = 0, layers = 0, patch = 14, image = 224, ch = 3, r = 0;
	const char *vt = get_str(v, "model_type");
	int clip = vt && !strcmp(vt, "clip_vision_model");
	double n, per, grid;

	r |= take(v, "hidden_size", 1, PL_DIM_MAX, &h, err, errn);
	r |= take(v, "intermediate_size", 1, PL_DIM_MAX, &inter, err, errn);
	r |= take(v, "num_hidden_layers", 1, 4096, &layers, err, errn);
	r |= take(v, "patch_size", 1, 4096, &patch, err, errn);
	r |= take(v, "image_size", 1, 65536, &image, err, errn);
	r |= take(v, "num_channels", 1, 64, &ch, err, errn);
	if (r)
		return -1;
	if (!h || !inter || !layers)
		return 0;
	per = 4.0 * h * h + 4.0 * h + 2.0 * h * inter + inter + h + 4.0 * h;
	grid = (double)(image / patch) * (image / patch);
	n = layers * per + (double)ch * patch * patch * h + h + (grid + clip) * h + 2.0 * h;
	if (clip)
		n += h + 2.0 * h;                       /* class embedding, pre-LayerNorm */
	if (!strncmp(model_type, "gemma3", 6))
		n += (double)h * text_hidden + h;
	else
		n += (double)h * text_hidden + (double)text_hidden * text_hidden + 2.0 * text_hidden;
	return n;
}

/* Model types whose config class unties the head by default: transformers'
 * configuration_<type>.py passes tie_word_embeddings=False (Qwen2Config
 * and GPTNeoXConfig `tie_word_embeddings: bool = False` at
 * huggingface/transformers@008e574; LlamaConfig, MistralConfig and the
 * others likewise), or the remote-code config does (Baichuan, ChatGLM,
 * InternLM2). Every other type takes PretrainedConfig's default, True:
 * Gemma 1-3, OPT, GPT-2, Bloom, Cohere, Starcoder2 (`tie_word_embeddings:
 * bool = True`, @008e574), Falcon (FalconConfig passes none, @0558553). */
static const char *const untied_types[] = {
	"llama", "llama4_text", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3",
	"qwen3_moe", "qwen3_next", "phi", "phi3", "phimoe", "deepseek_v2", "deepseek_v3",
	"gpt_neox", "gpt_oss", "olmo", "olmo2", "olmoe", "granite", "granitemoe", "jamba",
	"dbrx", "nemotron", "stablelm", "glm4_moe", "minimax_m2", "baichuan", "chatglm",
	"internlm2", NULL
};

int pl_tie_default(const char *model_type)
{
	const char *const *t;

	for (t = untied_types; *t; t++)
		if (!strcmp(model_type, *t))
			return 0;
	return 1;
}

int pl_config_parse(const char *buf, size_t n, struct pl_arch *a, char *err, size_t errn)
{
	json_error_t je;
	json_t *root, *o, *q, *lt;
	int rc = -1;

	memset(a, 0, sizeof(*a));
	a->gated = 1;
	a->dtype_bytes = 2;
	if (n > PL_CONFIG_MAX) {
		snprintf(err, errn, "config.json: %zu bytes, more than a config holds", n);
		return -1;
	}
	root = json_loadb(buf, n, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		snprintf(err, errn, "config.json:%d:%d: %s", je.line, je.column, je.text);
		return -1;
	}
	if (!json_is_object(root)) {
		snprintf(err, errn, "config.json: expected an object");
		goto out;
	}
	if (read_arch(root, a, err, errn) < 0)
		goto out;
	o = json_object_get(root, "text_config");
	if (json_is_object(o) && read_arch(o, a, err, errn) < 0)
		goto out;
	if (!json_is_object(o))
		o = root;
	if (!a->layers || !a->hidden || !a->heads || !a->vocab) {
		snprintf(err, errn, "config.json: not a decoder language model (num_hidden_layers,"
			 " hidden_size, num_attention_heads and vocab_size are needed)");
		goto out;
	}
	if (!a->kv_heads)
		a->kv_heads = a->heads;
	if (!json_object_get(o, "tie_word_embeddings") && !json_object_get(root, "tie_word_embeddings"))
		a->tie = pl_tie_default(a->model_type);
	/* a vision tower beside the language model: SGLang lowers its memory
	 * fraction for these (model_runner, "because this is a multimodal model") */
	q = json_object_get(root, "vision_config");
	a->multimodal = json_is_object(q);
	if (a->multimodal) {
		const char *top = get_str(root, "model_type");
		if ((a->vision_params = vision_params(q, top ? top : a->model_type, a->hidden,
						      err, errn)) < 0)
			goto out;
	}
	if (a->kv_heads > a->heads) {
		snprintf(err, errn, "config.json: %d KV heads for %d attention heads",
			 a->kv_heads, a->heads);
		goto out;
	}
	if (!a->head_dim)
		a->head_dim = a->hidden / a->heads;
	if (!a->moe_intermediate)
		a->moe_intermediate = a->intermediate;
	if (!a->moe_every)
		a->moe_every = 1;
	if (!a->v_head_dim)
		a->v_head_dim = a->qk_nope_head_dim;
	a->mla = a->kv_lora_rank > 0;
	if (!strcmp(a->model_type, "qwen2") || !strcmp(a->model_type, "qwen2_moe"))
		a->qkv_bias = 1;
	a->qk_norm = !strncmp(a->model_type, "qwen3", 5) || !strncmp(a->model_type, "gemma3", 6);
	lt = json_object_get(o, "layer_types");
	if (json_is_array(lt) ? read_layer_types(lt, a, err, errn) < 0
			      : read_layer_kinds(o, a, err, errn) < 0)
		goto out;
	q = json_object_get(root, "quantization_config");
	if (!json_is_object(q))
		q = json_object_get(root, "compression_config");
	if (json_is_object(q) && pl_quant_read(q, a, err, errn) < 0)
		goto out;
	if (get_str(root, "_name_or_path"))
		snprintf(a->name_or_path, sizeof(a->name_or_path), "%s",
			 get_str(root, "_name_or_path"));
	rc = 0;
out:
	json_decref(root);
	return rc;
}

int pl_config_load(const char *path, struct pl_arch *a, char *err, size_t errn)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;
	int rc;

	if (!f) {
		snprintf(err, errn, "%s: cannot open", path);
		return -1;
	}
	buf = malloc(PL_CONFIG_MAX + 1);
	if (!buf) {
		fclose(f);
		snprintf(err, errn, "out of memory");
		return -1;
	}
	n = fread(buf, 1, PL_CONFIG_MAX + 1, f);
	if (ferror(f)) {
		snprintf(err, errn, "%s: cannot read", path);
		rc = -1;
	} else {
		rc = pl_config_parse(buf, n, a, err, errn);
	}
	free(buf);
	fclose(f);
	return rc;
}
