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
	"                    [--sampler native|flashinfer]\n"
	"                    [--weights-bytes N]\n"
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
	"exit: 0 it fits, 1 it does not fit (or a file could not be read), 2 usage\n";

enum {
	P_MODEL = 100, P_GPU, P_GPU_MEM, P_TP, P_PP, P_ENGINE, P_DTYPE, P_QUANT, P_KV_DTYPE,
	P_MAX_LEN, P_MAX_SEQS, P_UTIL, P_BLOCK, P_BATCHED, P_WEIGHTS, P_NON_KV, P_KV,
	P_VERSION, P_SAMPLER,
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
	O("--sampler", P_SAMPLER),
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
	    !strcasecmp(s, "w4a16") || !strcasecmp(s, "bitsandbytes"))
		return PL_Q_INT4;
	if (!strcasecmp(s, "mxfp4"))
		return PL_Q_MXFP4;
	return -1;
}

static void print_text(const struct pl_result *r, const char *model)
{
	char b1[32];
	const struct pl_settings *s = &r->used;

	cli_printf(stdout, "%s on %s, TP %d, PP %d\n", model, pl_engine_name(s->engine), s->tp, s->pp);
	printf("  card                %s x %.2f = %s\n", ol_fmt_bytes(b1, sizeof(b1),
	       (double)s->gpu_bytes), s->util, "budget");
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
	printf("  fits                %s\n", r->fits ? "yes" : "no");
	if (r->advice[0])
		printf("  advice              %s\n", r->advice);
}

static int print_json(const struct pl_result *r, const char *model)
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
			return cli_error("--quantization: none, fp8, int8, awq, gptq or mxfp4");
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
	case P_SAMPLER:
		if (!strcmp(v, "native"))
			s->sampler = PL_SAMPLER_NATIVE;
		else if (!strcmp(v, "flashinfer"))
			s->sampler = PL_SAMPLER_FLASHINFER;
		else
			return cli_error("--sampler: native or flashinfer, not '%s'", v);
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
	const char *model = NULL;
	int json = 0, o;
	char err[256];

	while ((o = cli_next(&a)) != CLI_DONE) {
		if (o == CLI_HELP)
			return cli_help(plan_usage);
		if (o == CLI_BAD)
			return cli_usage(plan_usage);
		if (o == P_MODEL) {
			model = a.value;
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
	pl_settings_defaults(&s, &arch);
	if (pl_plan(&arch, &s, &r, err, sizeof(err)) < 0) {
		cli_error("%s", err);
		return EXIT_USAGE;
	}
	if (json ? print_json(&r, model) < 0 : (print_text(&r, model), 0))
		return EXIT_ERROR;
	return r.fits ? EXIT_OK : EXIT_ERROR;
}
