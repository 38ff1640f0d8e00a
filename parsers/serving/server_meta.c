/*
 * server_meta.c -- the start-up lines of an inference server into
 * server.* meta (see server_meta.h). Two tables drive it: the names each
 * engine gives a configuration key (vLLM's gpu_memory_utilization is TGI's
 * cuda_memory_fraction), and the engine's figures kept as meta (read by
 * engine_lines.c: "Loading model weights took 32.89 GB", "# GPU
 * blocks: 24563").
 */
#include "parsers/serving/server_meta.h"
#include "parsers/common/seriesutil.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const meta_names[SM__COUNT] = {
	[SM_MODEL] = "server.model",
	[SM_DTYPE] = "server.dtype",
	[SM_GPU_MEMORY_UTILIZATION] = "server.gpu_memory_utilization",
	[SM_MAX_NUM_SEQS] = "server.max_num_seqs",
	[SM_MAX_NUM_BATCHED_TOKENS] = "server.max_num_batched_tokens",
	[SM_MAX_MODEL_LEN] = "server.max_model_len",
	[SM_TENSOR_PARALLEL_SIZE] = "server.tensor_parallel_size",
	[SM_WEIGHTS_BYTES] = "server.weights_bytes",
	[SM_KV_CACHE_BYTES] = "server.kv_cache_bytes",
	[SM_KV_CACHE_BLOCKS] = "server.kv_cache_blocks",
	[SM_KV_CACHE_TOKENS] = "server.kv_cache_tokens",
	[SM_MAX_CONCURRENCY_TOKENS] = "server.max_concurrency_tokens",
	[SM_MAX_CONCURRENCY] = "server.max_concurrency",
	[SM_NAME] = "server.name",
	[SM_VERSION] = "server.version",
};

/* Each configuration key under the names the engines give it, tried in
 * this order (every name found is stored: the last one wins). */
static const struct { enum srv_meta_key key; const char *names[4]; } config_names[] = {
	{ SM_MODEL, { "model", "model_id" /* TGI */ } },
	{ SM_DTYPE, { "dtype" } },
	{ SM_GPU_MEMORY_UTILIZATION, { "gpu_memory_utilization", "cuda_memory_fraction" } },
	{ SM_MAX_NUM_SEQS, { "max_num_seqs", "max_concurrent_requests" } },
	{ SM_MAX_NUM_BATCHED_TOKENS, { "max_num_batched_tokens", "max_batch_prefill_tokens" } },
	{ SM_MAX_MODEL_LEN, { "max_model_len", "max_seq_len", "max_total_tokens" } },
	{ SM_TENSOR_PARALLEL_SIZE, { "tensor_parallel_size", "num_shard" } },
};

/* Store key = val, unless key already holds val. 0, or -1 when the sink
 * failed. */
static int put(struct srv_meta *sm, struct sink *s, enum srv_meta_key key, const char *val)
{
	char *last = sm->last[key];

	if (!strcmp(last, val))
		return 0;   /* stated again: one row per change */
	copy_str(last, sizeof(sm->last[key]), val, strlen(val));
	sm->records++;
	return sink_meta(s, meta_names[key], val) < 0 ? -1 : 0;
}

static int put_int(struct srv_meta *sm, struct sink *s, enum srv_meta_key key, int64_t v)
{
	char text[32];

	if (v == OL_NULL)
		return 0;
	snprintf(text, sizeof(text), "%lld", (long long)v);
	return put(sm, s, key, text);
}

/* ---- configuration ---- */

static int ident(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-';
}

/* The value after a key at m[e...]: quoted, or up to ',', ')', '}' or a
 * space; TGI's "Some(" dropped. Copied into out; 0, or -1 when empty or
 * "None". */
static int kv_value(const char *m, size_t n, size_t e, char *out, size_t cap)
{
	size_t s0;

	while (e < n && m[e] == ' ')
		e++;
	if (e + 5 <= n && !memcmp(m + e, "Some(", 5))
		e += 5;
	if (e < n && (m[e] == '\'' || m[e] == '"')) {
		char q = m[e++];
		for (s0 = e; e < n && m[e] != q; )
			e += m[e] == '\\' ? 2 : 1;
		if (e > n)
			e = n;
	} else {
		for (s0 = e; e < n && m[e] != ',' && m[e] != ')' && m[e] != '}' && m[e] != ' '; )
			e++;
	}
	copy_str(out, cap, m + s0, e - s0);
	return !out[0] || !strcmp(out, "None") ? -1 : 0;
}

/* Value of key in "key=v", "'key': v", "key: v" (TGI Debug) forms: the
 * first place key stands as a whole name followed by one of them. */
static int find_kv(const char *m, size_t n, const char *key, char *out, size_t cap)
{
	size_t kl = strlen(key), i = 0, j, e;
	const char *p;

	while (i < n && (p = memmem(m + i, n - i, key, kl))) {
		j = (size_t)(p - m);
		i = j + 1;
		if (j && ident(m[j - 1]))
			continue;
		e = j + kl;
		if (e < n && (m[e] == '\'' || m[e] == '"'))
			e++;
		if (e < n && m[e] == '=')
			e++;
		else if (e + 1 < n && m[e] == ':' && m[e + 1] == ' ')
			e += 2;
		else
			continue;
		return kv_value(m, n, e, out, cap);
	}
	return -1;
}

/* "torch.bfloat16", "BFloat16" -> "bfloat16". */
static void plain_dtype(char *v)
{
	char *p = v, *q;

	if (!strncmp(p, "torch.", 6))
		p += 6;
	for (q = p; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	memmove(v, p, strlen(p) + 1);
}

static int config_line(struct srv_meta *sm, struct sink *s, const char *m, size_t n)
{
	char v[160];
	size_t i, k;

	for (i = 0; i < sizeof(config_names) / sizeof(config_names[0]); i++)
		for (k = 0; k < 4 && config_names[i].names[k]; k++) {
			if (find_kv(m, n, config_names[i].names[k], v, sizeof(v)) < 0)
				continue;
			if (config_names[i].key == SM_DTYPE)
				plain_dtype(v);
			if (put(sm, s, config_names[i].key, v) < 0)
				return -1;
		}
	return 0;
}

/* One field line of TGI's pretty-printed block: "    dtype: None,", or
 * the two lines of "    num_shard: Some(" / "        4,". */
static int args_field(struct srv_meta *sm, struct sink *s, const char *m, size_t n)
{
	const char *c = memchr(m, ':', n), *k, *v;
	char kv[256];

	if (n > 5 && !memcmp(m + n - 5, "Some(", 5) && c) {
		for (k = m; *k == ' '; k++)
			;
		copy_str(sm->args_key, sizeof(sm->args_key), k, (size_t)(c - k));
		return 0;
	}
	if (!sm->args_key[0] || c)
		return config_line(sm, s, m, n);
	for (v = m; *v == ' '; v++)
		;
	if (*v != ')') {
		size_t vn = n - (size_t)(v - m);
		snprintf(kv, sizeof(kv), "%s: %.*s", sm->args_key, (int)(vn > 160 ? 160 : vn), v);
		if (config_line(sm, s, kv, strlen(kv)) < 0)
			return -1;
	}
	sm->args_key[0] = 0;
	return 0;
}

int srv_meta_args(struct srv_meta *sm, struct sink *s, const char *m, size_t n)
{
	if (sm->in_args) {
		if (n && m[0] == ' ')
			return args_field(sm, s, m, n) < 0 ? -1 : 1;
		sm->in_args = 0;   /* "}" or whatever came instead */
	}
	if (n >= 6 && m[n - 1] == '{' && !memcmp(m + n - 6, "Args {", 6)) {
		sm->in_args = 1;
		return 1;
	}
	return 0;
}

/* ---- figures stated once ---- */

/* The engine's figures kept as meta (the rules read these keys): each
 * fact of engine_lines.c under its key. */
static const struct { enum engine_fact fact; enum srv_meta_key key; } fact_keys[] = {
	{ EF_WEIGHTS, SM_WEIGHTS_BYTES },   /* vLLM "GB" is GiB */
	{ EF_KV_CACHE, SM_KV_CACHE_BYTES },
	{ EF_GPU_BLOCKS, SM_KV_CACHE_BLOCKS },
	{ EF_KV_TOKENS, SM_KV_CACHE_TOKENS },
};

/* "Maximum concurrency for 131072 tokens per request: 3.00x": both
 * figures, the tokens as max_concurrency_tokens. */
static int concurrency(struct srv_meta *sm, struct sink *s, const struct engine_line *el)
{
	char text[64];
	int i, r = 0;

	for (i = 0; i < el->nfacts && r == 0; i++) {
		if (el->facts[i].key != EF_MAX_CONCURRENCY)
			continue;
		if (i > 0 && el->facts[i - 1].key == EF_MAX_MODEL_LEN)
			r = put_int(sm, s, SM_MAX_CONCURRENCY_TOKENS, llround(el->facts[i - 1].value));
		snprintf(text, sizeof(text), "%g", el->facts[i].value);
		if (r == 0)
			r = put(sm, s, SM_MAX_CONCURRENCY, text);
	}
	return r;
}

int srv_meta_facts(struct srv_meta *sm, struct sink *s, const struct engine_line *el)
{
	unsigned done = 0;
	int i;
	size_t k;

	for (i = 0; i < el->nfacts; i++)
		for (k = 0; k < sizeof(fact_keys) / sizeof(fact_keys[0]); k++) {
			unsigned bit = 1u << fact_keys[k].key;
			if (el->facts[i].key != fact_keys[k].fact || (done & bit))
				continue;
			done |= bit;   /* the first a line states */
			if (put_int(sm, s, fact_keys[k].key, llround(el->facts[i].value)) < 0)
				return -1;
		}
	if (concurrency(sm, s, el) < 0)
		return -1;
	if (el->version[0] && el->engine == ENGINE_VLLM &&
	    (put(sm, s, SM_NAME, "vllm") < 0 || put(sm, s, SM_VERSION, el->version) < 0))
		return -1;
	return 0;
}

int srv_meta_line(struct srv_meta *sm, struct sink *s, const char *m, size_t n)
{
	return config_line(sm, s, m, n);
}
