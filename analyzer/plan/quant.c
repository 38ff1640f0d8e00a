/*
 * quant.c -- a checkpoint's quantisation, and the bytes per weight it
 * costs with its scales and zeros. Read first from config.json's
 * quantization_config (AWQ/GPTQ bits and group_size, bitsandbytes 4 or
 * 8 bits with or without double quantisation, FP8 and compressed-tensors
 * groups, MXFP4 as gpt-oss, NVFP4), and only when the config says
 * nothing, inferred from the repository's name (-AWQ, -GPTQ-Int4, -FP8,
 * -bnb-4bit, -Q4_K_M ...). A name is a guess, not evidence: the result
 * says which source it came from (pl_arch.quant_src) so that plan's
 * output can label it. The sizes and their sources are in docs/plan.md.
 */
#include "analyzer/plan/plan.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PL_DIM_MAX (1 << 24)

/* An integer field in [lo, hi] into *field: 0 read or absent, -1 of the
 * wrong type or range (reason in err). */
static int q_int(json_t *o, const char *key, int lo, int hi, int *field, char *err, size_t errn)
{
	json_t *v = json_object_get(o, key);
	json_int_t n;

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v)) {
		snprintf(err, errn, "config.json: quantization_config.%s: expected an integer", key);
		return -1;
	}
	n = json_integer_value(v);
	if (n < lo || n > hi) {
		snprintf(err, errn, "config.json: quantization_config.%s = %lld out of range", key,
			 (long long)n);
		return -1;
	}
	*field = (int)n;
	return 0;
}

static const char *q_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* compressed-tensors: the first config group's weights. */
static int read_compressed(json_t *q, struct pl_arch *a, char *err, size_t errn)
{
	json_t *g, *w;
	const char *key, *type;
	int bits = 0, gs = 0;

	json_object_foreach(json_object_get(q, "config_groups"), key, g) {
		w = json_object_get(g, "weights");
		if (!json_is_object(w))
			continue;
		if (q_int(w, "num_bits", 1, 16, &bits, err, errn) < 0 ||
		    q_int(w, "group_size", -1, PL_DIM_MAX, &gs, err, errn) < 0)
			return -1;
		type = q_str(w, "type");
		if (bits == 8)
			a->quant = type && !strcmp(type, "float") ? PL_Q_FP8 : PL_Q_INT8;
		else if (bits == 4 && type && !strcmp(type, "float"))
			a->quant = PL_Q_FP4;          /* NVFP4: an fp8 scale per 16 */
		else if (bits >= 2 && bits < 8)
			a->quant = PL_Q_INT4;
		a->quant_bits = bits;
		a->group_size = gs > 0 ? gs : a->quant == PL_Q_FP4 ? 16 : 128;
		a->block_scales = json_is_array(json_object_get(w, "block_structure"));
		break;
	}
	return 0;
}

/* Set layer i's bit in map, or every layer's when i < 0. */
static void keep_set(unsigned char *map, long i)
{
	if (i < 0)
		memset(map, 0xff, PL_KEEP_LAYERS / 8);
	else if (i < PL_KEEP_LAYERS)
		map[i / 8] |= (unsigned char)(1u << (i % 8));
}

/* modules_to_not_convert (transformers' name for the modules a
 * quantised checkpoint leaves in 16 bits; Meta's fbgemm_fp8 Llama 3.1
 * release lists every self_attn projection and the first and last
 * layers' MLP; others list routers). Each entry is a module path:
 * "layers.N." names one layer, no index every layer; a self_attn / attn
 * path keeps attention, an mlp / experts path keeps the MLP, except a
 * router (".mlp.gate", "shared_expert_gate"), which plan never quantises.
 * Anything else (lm_head, embeddings, vision) is 16-bit already. */
static void read_not_convert(json_t *list, struct pl_arch *a)
{
	size_t i;
	json_t *v;

	json_array_foreach(list, i, v) {
		const char *m = json_is_string(v) ? json_string_value(v) : NULL, *l;
		size_t n;
		long layer = -1;

		if (!m)
			continue;
		n = strlen(m);
		if ((n >= 9 && !strcmp(m + n - 9, ".mlp.gate")) || strstr(m, "expert_gate"))
			continue;
		l = strstr(m, "layers.");
		if (l && isdigit((unsigned char)l[7]))
			layer = strtol(l + 7, NULL, 10);
		if (strstr(m, "attn"))
			keep_set(a->keep_attn, layer);
		else if (strstr(m, "mlp") || strstr(m, "expert"))
			keep_set(a->keep_mlp, layer);
	}
}

int pl_quant_read(json_t *q, struct pl_arch *a, char *err, size_t errn)
{
	const char *m = q_str(q, "quant_method");
	int bits = 0, gs = 0;

	if (!m)
		m = q_str(q, "quant_type");
	/* a config naming bitsandbytes by its flags alone, no quant_method */
	if (!m && (json_is_true(json_object_get(q, "load_in_4bit")) ||
		   json_is_true(json_object_get(q, "load_in_8bit"))))
		m = "bitsandbytes";
	if (q_int(q, "bits", 1, 16, &bits, err, errn) < 0 ||
	    q_int(q, "w_bit", 1, 16, &bits, err, errn) < 0 ||
	    q_int(q, "group_size", -1, PL_DIM_MAX, &gs, err, errn) < 0 ||
	    q_int(q, "q_group_size", -1, PL_DIM_MAX, &gs, err, errn) < 0)
		return -1;
	a->group_size = gs > 0 ? gs : 128;
	read_not_convert(json_object_get(q, "modules_to_not_convert"), a);
	if (!m)
		return 0;
	if (!strcmp(m, "fp8") || !strcmp(m, "fbgemm_fp8") || !strcmp(m, "modelopt")) {
		const char *algo = q_str(q, "quant_algo");
		a->quant = algo && strstr(algo, "FP4") ? PL_Q_FP4 : PL_Q_FP8;
		if (a->quant == PL_Q_FP4)
			a->group_size = 16;
		a->block_scales = json_is_array(json_object_get(q, "weight_block_size"));
	} else if (!strcmp(m, "mxfp4")) {
		a->quant = PL_Q_MXFP4;
	} else if (!strcmp(m, "awq") || !strcmp(m, "gptq") || !strcmp(m, "awq_marlin") ||
		   !strcmp(m, "gptq_marlin")) {
		a->quant = PL_Q_INT4;           /* N-bit groups; 8-bit GPTQ keeps them too */
		a->quant_bits = bits ? bits : 4;
	} else if (!strcmp(m, "bitsandbytes")) {
		json_t *dq = json_object_get(q, "bnb_4bit_use_double_quant");
		if (json_is_true(json_object_get(q, "load_in_8bit"))) {
			a->quant = PL_Q_INT8;
		} else {
			a->quant = PL_Q_NF4;
			a->double_quant = json_is_true(dq);
		}
		a->group_size = 64;
	} else if (!strcmp(m, "compressed-tensors")) {
		if (read_compressed(q, a, err, errn) < 0)
			return -1;
	}
	if (a->quant != PL_Q_NONE)
		a->quant_src = PL_QS_CONFIG;
	return 0;
}

/* llama.cpp's k-quants: bits per weight of the whole file, from the
 * sizes tools/quantize/quantize.cpp prints for Llama-3-8B (QUANT_OPTIONS)
 * over its 14.96 GiB in 16 bits; IQ4 as printed there in bpw. */
static const struct { const char *tag; double bpw; } gguf_types[] = {
	{ "q2_k", 3.10 }, { "q3_k_s", 3.65 }, { "q3_k_m", 4.00 }, { "q3_k_l", 4.31 },
	{ "iq4_xs", 4.25 }, { "iq4_nl", 4.50 }, { "q4_0", 4.64 }, { "q4_k_s", 4.67 },
	{ "q4_k_m", 4.90 }, { "q5_0", 5.57 }, { "q5_k_s", 5.57 }, { "q5_k_m", 5.70 },
	{ "q6_k", 6.57 }, { "q8_0", 8.51 }, { NULL, 0 }
};

/* Does tag occur in s (lower case) as a whole token: between separators
 * (- _ . / space) or the ends? */
static int has_token(const char *s, const char *tag)
{
	size_t n = strlen(tag);
	const char *p = s;

	while ((p = strstr(p, tag))) {
		int before = p == s || strchr("-_./ ", p[-1]);
		int after = !p[n] || strchr("-_./ ", p[n]);
		if (before && after)
			return 1;
		p++;
	}
	return 0;
}

int pl_quant_from_name(const char *name, struct pl_arch *a)
{
	char s[256];
	size_t i;
	double bpw = 0;

	if (!name || !*name)
		return 0;
	for (i = 0; name[i] && i + 1 < sizeof(s); i++)
		s[i] = (char)tolower((unsigned char)name[i]);
	s[i] = 0;
	a->quant_bits = 0;
	a->double_quant = 0;
	for (i = 0; gguf_types[i].tag; i++)
		if (strstr(s, gguf_types[i].tag))
			bpw = gguf_types[i].bpw;
	/* the named formats first: "-AWQ-4bit" is AWQ, not bitsandbytes */
	if (bpw > 0) {
		a->quant = PL_Q_GGUF;
		a->gguf_bpw = bpw;
	} else if (has_token(s, "awq") || has_token(s, "w4a16")) {
		a->quant = PL_Q_INT4;
		a->quant_bits = 4;
		a->group_size = 128;
	} else if (has_token(s, "gptq")) {
		a->quant = PL_Q_INT4;
		a->quant_bits = has_token(s, "int8") || has_token(s, "8bit") ? 8
			      : has_token(s, "int3") || has_token(s, "3bit") ? 3 : 4;
		a->group_size = 128;
	} else if (has_token(s, "nvfp4") || has_token(s, "fp4")) {
		a->quant = PL_Q_FP4;
		a->group_size = 16;
	} else if (has_token(s, "mxfp4")) {
		a->quant = PL_Q_MXFP4;
	} else if (has_token(s, "fp8")) {
		a->quant = PL_Q_FP8;
	} else if (has_token(s, "bnb") || has_token(s, "4bit") || has_token(s, "8bit")) {
		/* the Hub's -bnb-4bit checkpoints (unsloth's among them): NF4,
		 * double quantised; -8bit: LLM.int8 */
		if (has_token(s, "8bit")) {
			a->quant = PL_Q_INT8;
		} else {
			a->quant = PL_Q_NF4;
			a->double_quant = 1;
			a->group_size = 64;
		}
	} else if (has_token(s, "w8a8") || has_token(s, "int8") || has_token(s, "w8a16")) {
		a->quant = PL_Q_INT8;
	} else if (has_token(s, "int4")) {
		a->quant = PL_Q_INT4;
		a->quant_bits = 4;
		a->group_size = 128;
	} else {
		return 0;
	}
	a->quant_src = PL_QS_NAME;
	snprintf(a->quant_from, sizeof(a->quant_from), "%s", name);
	return 1;
}

/* The last path component that names a model: not config.json, not a
 * commit hash, not the Hub cache's "snapshots" ("models--org--name/
 * snapshots/<hash>/config.json" names org/name). */
static void name_from_path(const char *path, char *out, size_t n)
{
	const char *end = path + strlen(path), *start;

	out[0] = 0;
	while (end > path) {
		size_t len, h;
		char part[256];

		while (end > path && (end[-1] == '/' || end[-1] == '\\'))
			end--;
		for (start = end; start > path && start[-1] != '/' && start[-1] != '\\'; start--)
			;
		len = (size_t)(end - start);
		end = start;
		if (!len || len >= sizeof(part))
			continue;
		memcpy(part, start, len);
		part[len] = 0;
		h = strspn(part, "0123456789abcdef");
		if (strstr(part, ".json") || !strcmp(part, "snapshots") || (len >= 32 && h == len) ||
		    !strcmp(part, ".") || !strcmp(part, ".."))
			continue;
		if (!strncmp(part, "models--", 8)) {   /* models--org--name: org/name */
			char *dash = strstr(part + 8, "--");
			if (dash) {
				*dash = '/';
				memmove(dash + 1, dash + 2, strlen(dash + 2) + 1);
			}
			snprintf(out, n, "%s", part + 8);
		} else {
			snprintf(out, n, "%s", part);
		}
		return;
	}
}

int pl_quant_guess(struct pl_arch *a, const char *given_name, const char *config_path)
{
	char dir[256];

	if (a->quant != PL_Q_NONE)
		return 0;                       /* the config said: no guess */
	if (given_name && *given_name)
		return pl_quant_from_name(given_name, a);
	if (a->name_or_path[0] && pl_quant_from_name(a->name_or_path, a))
		return 1;
	if (config_path) {
		name_from_path(config_path, dir, sizeof(dir));
		return pl_quant_from_name(dir, a);
	}
	return 0;
}

double pl_quant_bytes(const struct pl_arch *a, enum pl_quant q, int dtype_bytes)
{
	double g = a->group_size > 0 ? a->group_size : 128, bits;

	switch (q) {
	case PL_Q_FP8:
		return 1.0 + (a->block_scales ? 4.0 / (128 * 128) : 0.0);
	case PL_Q_INT8:
		return 1.0 + 4.0 / (a->hidden ? a->hidden : 4096);   /* per-channel fp32 scale */
	case PL_Q_INT4:
		/* bits per weight, a 16-bit scale and a packed zero of the same
		 * bits per group (AWQ qzeros/scales, GPTQ qzeros/scales) */
		bits = a->quant_bits > 0 ? a->quant_bits : 4;
		return bits / 8 + (2.0 + bits / 8) / g;
	case PL_Q_NF4:
		/* 4 bits and an fp32 absmax per block of 64; double quantised:
		 * an 8-bit absmax per block and an fp32 per 256 blocks */
		return 0.5 + (a->double_quant ? 1.0 / 64 + 4.0 / (64 * 256) : 4.0 / 64);
	case PL_Q_FP4:
		return 0.5 + 1.0 / (a->group_size > 0 ? a->group_size : 16);   /* fp8 scale */
	case PL_Q_GGUF:
		return a->gguf_bpw > 0 ? a->gguf_bpw / 8 : dtype_bytes;
	case PL_Q_MXFP4:
	case PL_Q_NONE:
	default:
		return dtype_bytes;
	}
}

void pl_quant_option(struct pl_arch *a, enum pl_quant q)
{
	if (q == PL_Q_NF4 && a->quant == PL_Q_NONE) {
		/* vLLM's BitsAndBytesModelLoader._unquantized_generator
		 * (model_loader/bitsandbytes_loader.py) quantises each target
		 * weight with compress_statistics=True: the 8-bit absmax of
		 * double quantisation, blocks of 64 */
		a->double_quant = 1;
		a->group_size = 64;
	}
	a->quant_src = PL_QS_OPTION;
}

const char *pl_quant_name(enum pl_quant q)
{
	static const char *const names[] = { "none", "fp8", "int8", "int4", "mxfp4", "nf4",
					     "nvfp4", "gguf" };
	return (unsigned)q < sizeof(names) / sizeof(names[0]) ? names[q] : "?";
}

const char *pl_quant_src_name(enum pl_quant_src s)
{
	return s == PL_QS_CONFIG ? "config" : s == PL_QS_NAME ? "name"
		: s == PL_QS_OPTION ? "option" : "none";
}
