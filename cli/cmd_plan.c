/*
 * cmd_plan.c -- `oomlens plan --model CONFIG.json ...`: the capacity of an
 * inference service before it is deployed, from the model's config.json,
 * the card and the engine's settings (analyzer/plan/: the model;
 * docs/plan.md: its formulas and sources). Prints the figures the engine
 * would print at start-up, whether the configuration fits, and when it
 * does not the knob and a value that does. No database is written.
 */
#include "cli/cli.h"
#include "analyzer/plan/gpus.h"
#include "analyzer/plan/plan.h"
#include "lib/bytes.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char plan_usage[] =
	"usage: oomlens plan --model CONFIG.json [--gpu NAME | --gpu-memory SIZE]\n"
	"                    [--tp N] [--pp N] [--engine vllm|sglang|tgi|tensorrt-llm|ollama]\n"
	"                    [--dtype D] [--quantization Q] [--kv-cache-dtype D]\n"
	"                    [--max-model-len L] [--max-num-seqs S]\n"
	"                    [--gpu-memory-utilization U] [--block-size B]\n"
	"                    [--max-num-batched-tokens T] [--engine-version V]\n"
	"                    [--sampler native|flashinfer] [--v1 | --v0]\n"
	"                    [--free-memory SIZE | --other-process-bytes N]\n"
	"                    [--model-name NAME] [--weights-bytes N]\n"
	"                    [--non-kv-bytes N] [--kv-cache-bytes N] [--format text|json]\n"
	"  From a Hugging Face config.json, per GPU: weights, KV bytes per token, the\n"
	"  KV pool the engine makes under its own rule, KV tokens, blocks, maximum and\n"
	"  safe (x 0.7) concurrency at max_model_len; whether it fits, and if not the\n"
	"  knob and a value that does. --weights-bytes, --non-kv-bytes, --kv-cache-bytes:\n"
	"  what the engine printed, in place of the estimates. SIZE and N take B, KiB,\n"
	"  MiB, GiB (or K, M, G: binary) suffixes. --gpu list: the cards known.\n"
	"  --gpu-memory-utilization is SGLang's mem_fraction_static, TGI's\n"
	"  cuda_memory_fraction, TensorRT-LLM's kv_cache_free_gpu_mem_fraction.\n"
	"  --engine-version: the engine's version (0.6.4, 0.9, 0.10.1): the non-KV\n"
	"  estimate follows its profile run; default the newest modelled (vLLM 0.11).\n"
	"  --sampler: vLLM's top-k/top-p sampler, when not the version's usual one.\n"
	"  --v1, --v0: vLLM's engine when VLLM_USE_V1 chose it (V1 on 0.7 with\n"
	"  VLLM_USE_V1=1, V0 on 0.8-0.10 with VLLM_USE_V1=0); default the version's.\n"
	"  --free-memory: what nvidia-smi (or the engine) said was free on the card at\n"
	"  start-up; --other-process-bytes: what other processes hold on it. vLLM 0.9.1+\n"
	"  refuses to start when free < total x gpu_memory_utilization.\n"
	"  --model-name: the repository or folder the engine loads (Org/Name-AWQ):\n"
	"  when config.json names no quantization_config, the name's (-AWQ, -GPTQ-Int4,\n"
	"  -FP8, -bnb-4bit, -Q4_K_M) is used and said to be inferred.\n"
	"exit: 0 it fits, 1 it does not fit (or a file could not be read), 2 usage\n";

enum {
	P_MODEL = 100, P_GPU, P_GPU_MEM, P_TP, P_PP, P_ENGINE, P_DTYPE, P_QUANT, P_KV_DTYPE,
	P_MAX_LEN, P_MAX_SEQS, P_UTIL, P_BLOCK, P_BATCHED, P_WEIGHTS, P_NON_KV, P_KV,
	P_VERSION, P_SAMPLER, P_FREE, P_OTHER, P_NAME, P_V1, P_V0,
};

#define O(name, id) { name, 0, 1, (enum cli_opt_id)(id) }
static const struct cli_opt plan_opts[] = {
	O("--model", P_MODEL), O("--gpu", P_GPU), O("--gpu-memory", P_GPU_MEM),
	O("--tp", P_TP), O("--tensor-parallel-size", P_TP), O("--pp", P_PP),
	O("--pipeline-parallel-size", P_PP), O("--engine", P_ENGINE), O("--dtype", P_DTYPE),
	O("--quantization", P_QUANT), O("--kv-cache-dtype", P_KV_DTYPE),
	O("--max-model-len", P_MAX_LEN), O("--max-num-seqs", P_MAX_SEQS),
	O("--gpu-memory-utilization", P_UTIL), O("--mem-fraction-static", P_UTIL),
	O("--block-size", P_BLOCK), O("--max-num-batched-tokens", P_BATCHED),
	O("--weights-bytes", P_WEIGHTS), O("--non-kv-bytes", P_NON_KV),
	O("--kv-cache-bytes", P_KV), O("--engine-version", P_VERSION),
	O("--sampler", P_SAMPLER), O("--free-memory", P_FREE),
	O("--other-process-bytes", P_OTHER), O("--model-name", P_NAME),
	{ "--v1", 0, 0, (enum cli_opt_id)P_V1 }, { "--v0", 0, 0, (enum cli_opt_id)P_V0 },
	{ "--format", 0, 1, OPT_FORMAT },
	{ "--json", 0, 0, OPT_JSON }, { NULL, 0, 0, 0 }
};

/* A whole number in [lo, hi] into *out; -1 after saying why. */
static int parse_count(const char *opt, const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end || errno || v < lo || v > hi)
		return cli_error("%s: expected a whole number from %lld to %lld, not '%s'", opt,
				 (long long)lo, (long long)hi, s);
	*out = v;
	return 0;
}

/* Bytes per element of a dtype name (bf16, fp16, fp8, fp8_e4m3, auto). */
static int dtype_bytes(const char *s)
{
	if (!strcasecmp(s, "auto"))
		return 0;
	if (!strncasecmp(s, "fp8", 3) || !strcasecmp(s, "int8") || !strcasecmp(s, "q8_0"))
		return 1;
	if (!strcasecmp(s, "bf16") || !strcasecmp(s, "bfloat16") || !strcasecmp(s, "fp16") ||
	    !strcasecmp(s, "float16") || !strcasecmp(s, "half") || !strcasecmp(s, "f16") ||
	    !strcasecmp(s, "float32") || !strcasecmp(s, "fp32"))
		return 2;
	return -1;
}

static int quant_parse(const char *s)
{
	if (!strcasecmp(s, "none"))
		return PL_Q_NONE;
	if (!strcasecmp(s, "fp8"))
		return PL_Q_FP8;
	if (!strcasecmp(s, "int8") || !strcasecmp(s, "w8a8"))
		return PL_Q_INT8;
	if (!strcasecmp(s, "awq") || !strcasecmp(s, "gptq") || !strcasecmp(s, "int4") ||
	    !strcasecmp(s, "w4a16"))
		return PL_Q_INT4;
	if (!strcasecmp(s, "bitsandbytes") || !strcasecmp(s, "bnb") || !strcasecmp(s, "nf4"))
		return PL_Q_NF4;
	if (!strcasecmp(s, "mxfp4"))
		return PL_Q_MXFP4;
	if (!strcasecmp(s, "nvfp4") || !strcasecmp(s, "fp4"))
		return PL_Q_FP4;
	return -1;
}

/* The quantisation's bits and groups in words ("4-bit, groups of 128"). */
static void quant_words(const struct pl_arch *a, enum pl_quant q, char *buf, size_t n)
{
	switch (q) {
	case PL_Q_INT4:
		snprintf(buf, n, "%d-bit, groups of %d with a scale and zero", a->quant_bits > 0 ?
			 a->quant_bits : 4, a->group_size > 0 ? a->group_size : 128);
		break;
	case PL_Q_NF4:
		snprintf(buf, n, "bitsandbytes 4-bit, absmax per 64%s",
			 a->double_quant ? ", double quantised" : "");
		break;
	case PL_Q_GGUF:
		snprintf(buf, n, "%.2f bits per weight", a->gguf_bpw);
		break;
	case PL_Q_FP4:
		snprintf(buf, n, "4-bit float, an fp8 scale per %d", a->group_size > 0 ?
			 a->group_size : 16);
		break;
	case PL_Q_FP8:
		snprintf(buf, n, "8-bit float, %s", a->block_scales ? "a scale per 128x128 block"
								     : "per-tensor or per-channel scales");
		break;
	case PL_Q_INT8:
		snprintf(buf, n, "8-bit integer, a scale per row");
		break;
	case PL_Q_MXFP4:
		snprintf(buf, n, "experts in 4 bits, a scale per 32");
		break;
	default:
		snprintf(buf, n, "%s", pl_quant_name(q));
	}
}

static void print_text(const struct pl_result *r, const struct pl_arch *a, const char *model)
{
	char b1[32], b2[32], qw[96];
	const struct pl_settings *s = &r->used;

	cli_printf(stdout, "%s on %s, TP %d, PP %d\n", model, pl_engine_name(s->engine), s->tp, s->pp);
	printf("  card                %s x %.2f = %s\n", ol_fmt_bytes(b1, sizeof(b1),
	       (double)s->gpu_bytes), s->util, "budget");
	if (r->free_bytes > 0)
		printf("  free at start-up    %s (other processes hold %s)\n",
		       ol_fmt_bytes(b1, sizeof(b1), (double)r->free_bytes),
		       ol_fmt_bytes(b2, sizeof(b2), (double)(s->gpu_bytes - r->free_bytes)));
	if (s->quant != PL_Q_NONE) {
		quant_words(a, s->quant, qw, sizeof(qw));
		if (a->quant_src == PL_QS_NAME && !s->quant_set)
			cli_printf(stdout, "  quantisation        %s (%s): inferred from the name '%s',"
				   " a guess: config.json names none\n", pl_quant_name(s->quant), qw,
				   a->quant_from);
		else
			printf("  quantisation        %s (%s), from %s\n", pl_quant_name(s->quant), qw,
			       s->quant_set ? "--quantization" : "config.json");
	}
	printf("  weights             %s%s\n", ol_fmt_bytes(b1, sizeof(b1), (double)r->weights_bytes),
	       s->weights_given >= 0 ? " (given)" : "");
	printf("  non-KV              %s%s\n", ol_fmt_bytes(b1, sizeof(b1), (double)r->non_kv_bytes),
	       s->non_kv_given >= 0 ? " (given)" : " (estimate: non-torch + activation peak)");
	printf("  KV per token        %lld B\n", (long long)r->kv_bytes_per_token);
	printf("  KV cache            %s%s\n", ol_fmt_bytes(b1, sizeof(b1), (double)r->kv_cache_bytes),
	       s->kv_given >= 0 ? " (given)" : "");
	printf("  KV tokens           %lld (%lld blocks of %lld)\n", (long long)r->kv_cache_tokens,
	       (long long)r->gpu_blocks, (long long)s->block_size);
	printf("  max concurrency     %.2fx at %lld tokens per request\n", r->max_concurrency,
	       (long long)s->max_model_len);
	printf("  safe concurrency    %lld (x 0.7)\n", (long long)r->safe_concurrency);
	if (r->start_need_bytes > 0)
		printf("  needs free          %s at start-up%s\n", ol_fmt_bytes(b1, sizeof(b1),
		       (double)r->start_need_bytes), r->free_short ? ": more than the card has" : "");
	printf("  fits                %s\n", r->fits ? "yes" : "no");
	if (r->advice[0])
		printf("  advice              %s\n", r->advice);
}

/* The quantisation object of the JSON output, or null when none. */
static json_t *quant_json(const struct pl_result *r, const struct pl_arch *a)
{
	const struct pl_settings *s = &r->used;
	enum pl_quant_src src = s->quant_set ? PL_QS_OPTION : a->quant_src;
	char qw[96];

	if (s->quant == PL_Q_NONE)
		return json_null();
	quant_words(a, s->quant, qw, sizeof(qw));
	return json_pack("{s:s, s:s, s:f, s:s, s:s?}", "method", pl_quant_name(s->quant),
			 "format", qw, "bytes_per_weight", pl_quant_bytes(a, s->quant, s->dtype_bytes),
			 "source", pl_quant_src_name(src),
			 "inferred_from", src == PL_QS_NAME ? a->quant_from : NULL);
}

/* A byte count, or null when not known (< 0, or 0 where 0 means none). */
static json_t *bytes_or_null(int64_t n)
{
	return n > 0 ? json_integer((json_int_t)n) : json_null();
}

static int print_json(const struct pl_result *r, const struct pl_arch *a, const char *model)
{
	const struct pl_settings *s = &r->used;
	json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:I, s:f, s:I, s:I, s:I, s:I, s:I, s:I,"
			      " s:I, s:I, s:f, s:I, s:b}",
			      "model", model, "engine", pl_engine_name(s->engine),
			      "tp", s->tp, "pp", s->pp, "gpu_bytes", (json_int_t)s->gpu_bytes,
			      "gpu_memory_utilization", s->util,
			      "max_model_len", (json_int_t)s->max_model_len,
			      "block_size", (json_int_t)s->block_size,
			      "weights_bytes", (json_int_t)r->weights_bytes,
			      "kv_bytes_per_token", (json_int_t)r->kv_bytes_per_token,
			      "kv_cache_bytes", (json_int_t)r->kv_cache_bytes,
			      "kv_cache_tokens", (json_int_t)r->kv_cache_tokens,
			      "gpu_blocks", (json_int_t)r->gpu_blocks,
			      "non_kv_bytes", (json_int_t)r->non_kv_bytes,
			      "max_concurrency", r->max_concurrency,
			      "safe_concurrency", (json_int_t)r->safe_concurrency,
			      "fits", r->fits);
	int rc;

	if (!o)
		return cli_error("out of memory");
	json_object_set_new(o, "quantization", quant_json(r, a));
	json_object_set_new(o, "free_memory_bytes", bytes_or_null(r->free_bytes));
	json_object_set_new(o, "start_memory_bytes", bytes_or_null(r->start_need_bytes));
	json_object_set_new(o, "free_memory_short", json_boolean(r->free_short));
	json_object_set_new(o, "advice", r->advice[0] ? json_pack("{s:s?, s:s?, s:s}",
			    "knob", r->knob[0] ? r->knob : NULL, "value", r->value[0] ? r->value : NULL,
			    "text", r->advice) : json_null());
	rc = json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(o);
	return rc;
}

/* One option of plan_opts into s (model and format aside). 0 or -1. */
static int plan_option(int o, const char *v, struct pl_settings *s)
{
	int64_t n;
	int e;
	const struct pl_gpu *g;

	switch (o) {
	case P_GPU:
		if (!strcmp(v, "list")) {
			pl_gpu_list(stdout);
			exit(EXIT_OK);
		}
		if (!(g = pl_gpu_find(v)))
			return cli_error("--gpu: no card '%s' (oomlens plan --gpu list)", v);
		s->gpu_bytes = g->mib * 1048576;
		s->card_a100 = !strncasecmp(g->name, "a100", 4);
		s->card_rocm = g->rocm;
		return 0;
	case P_GPU_MEM:
		if ((s->gpu_bytes = cli_parse_size(v)) <= 0)
			return cli_error("--gpu-memory: expected a size such as 79.2GiB, not '%s'", v);
		return 0;
	case P_TP:
	case P_PP:
		if (parse_count(o == P_TP ? "--tp" : "--pp", v, 1, 1024, &n) < 0)
			return -1;
		*(o == P_TP ? &s->tp : &s->pp) = (int)n;
		return 0;
	case P_ENGINE:
		if ((e = pl_engine_parse(v)) < 0)
			return cli_error("--engine: one of vllm, sglang, tgi, tensorrt-llm, ollama");
		s->engine = e;
		return 0;
	case P_DTYPE:
	case P_KV_DTYPE:
		if ((e = dtype_bytes(v)) < 0)
			return cli_error("%s: a dtype such as bf16, fp16, fp8 or auto, not '%s'",
					 o == P_DTYPE ? "--dtype" : "--kv-cache-dtype", v);
		*(o == P_DTYPE ? &s->dtype_bytes : &s->kv_dtype_bytes) = e;
		return 0;
	case P_QUANT:
		if ((e = quant_parse(v)) < 0)
			return cli_error("--quantization: none, fp8, int8, awq, gptq, bitsandbytes,"
					 " nvfp4 or mxfp4");
		s->quant = e;
		s->quant_set = 1;
		return 0;
	case P_MAX_LEN:
		return parse_count("--max-model-len", v, 1, (int64_t)1 << 40, &s->max_model_len);
	case P_MAX_SEQS:
		s->seqs_given = 1;
		return parse_count("--max-num-seqs", v, 1, 1 << 24, &s->max_num_seqs);
	case P_BLOCK:
		return parse_count("--block-size", v, 1, 1 << 20, &s->block_size);
	case P_BATCHED:
		return parse_count("--max-num-batched-tokens", v, 1, (int64_t)1 << 40,
				   &s->max_batched_tokens);
	case P_UTIL: {
		char *end;
		s->util = strtod(v, &end);
		if (end == v || *end || !(s->util > 0 && s->util <= 1))
			return cli_error("--gpu-memory-utilization: a fraction in (0, 1], not '%s'", v);
		return 0;
	}
	case P_VERSION:
		if ((s->version = pl_version_parse(v)) < 0)
			return cli_error("--engine-version: a version such as 0.9 or 0.10.1, not '%s'", v);
		return 0;
	case P_V1:
	case P_V0:
		s->engine_v1 = o == P_V1 ? 1 : -1;
		return 0;
	case P_SAMPLER:
		if (!strcmp(v, "native"))
			s->sampler = PL_SAMPLER_NATIVE;
		else if (!strcmp(v, "flashinfer"))
			s->sampler = PL_SAMPLER_FLASHINFER;
		else
			return cli_error("--sampler: native or flashinfer, not '%s'", v);
		return 0;
	case P_FREE:
	case P_OTHER:
		if ((n = cli_parse_size(v)) < 0 || (o == P_FREE && n == 0))
			return cli_error("%s: a size such as 67.24GiB expected, not '%s'",
					 o == P_FREE ? "--free-memory" : "--other-process-bytes", v);
		*(o == P_FREE ? &s->free_given : &s->other_given) = n;
		return 0;
	case P_WEIGHTS:
	case P_NON_KV:
	case P_KV:
		if ((n = cli_parse_size(v)) < 0)
			return cli_error("a size such as 14.96GiB expected, not '%s'", v);
		*(o == P_WEIGHTS ? &s->weights_given : o == P_NON_KV ? &s->non_kv_given
								     : &s->kv_given) = n;
		return 0;
	}
	return -1;
}

int cmd_plan(int argc, char **argv)
{
	struct cli_args a = CLI_ARGS_INIT(argc, argv, plan_opts);
	struct pl_settings s = { .engine = PL_VLLM, .max_model_len = -1, .max_num_seqs = -1,
				 .block_size = -1, .max_batched_tokens = -1, .weights_given = -1,
				 .non_kv_given = -1, .kv_given = -1 };
	struct pl_arch arch;
	struct pl_result r;
	const char *model = NULL, *name = NULL;
	int json = 0, o;
	char err[256];

	while ((o = cli_next(&a)) != CLI_DONE) {
		if (o == CLI_HELP)
			return cli_help(plan_usage);
		if (o == CLI_BAD)
			return cli_usage(plan_usage);
		if (o == P_MODEL) {
			model = a.value;
		} else if (o == P_NAME) {
			name = a.value;
		} else if (o == OPT_JSON) {
			json = 1;
		} else if (o == OPT_FORMAT) {
			if (strcmp(a.value, "json") && strcmp(a.value, "text")) {
				cli_error("--format: text or json");
				return cli_usage(plan_usage);
			}
			json = !strcmp(a.value, "json");
		} else if (plan_option(o, a.value, &s) < 0) {
			return cli_usage(plan_usage);
		}
	}
	if (!model || a.nargs)
		return cli_usage(plan_usage);
	if (pl_config_load(model, &arch, err, sizeof(err)) < 0) {
		cli_error("%s", err);
		return EXIT_ERROR;
	}
	if (!s.quant_set)
		pl_quant_guess(&arch, name, model);
	else
		pl_quant_option(&arch, s.quant);
	if (s.free_given > 0 && s.other_given > 0) {
		cli_error("--free-memory and --other-process-bytes say the same thing: give one");
		return cli_usage(plan_usage);
	}
	pl_settings_defaults(&s, &arch);
	if (s.free_given > 0 && s.gpu_bytes > 0 && s.free_given > s.gpu_bytes) {
		cli_error("--free-memory: more than the card's memory");
		return EXIT_USAGE;
	}
	if (pl_plan(&arch, &s, &r, err, sizeof(err)) < 0) {
		cli_error("%s", err);
		return EXIT_USAGE;
	}
	if (json ? print_json(&r, &arch, model) < 0 : (print_text(&r, &arch, model), 0))
		return EXIT_ERROR;
	return r.fits ? EXIT_OK : EXIT_ERROR;
}
