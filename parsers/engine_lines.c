/*
 * engine_lines.c -- what one serving-engine log line says about memory;
 * see engine_lines.h.
 *
 * A table of anchors (fixed phrases the engines print, as found in their
 * sources and in tests/data/real/serving) each with a reader for what
 * follows. engine_line() finds every anchor of the table in one pass over
 * the line: the first four bytes of each position are hashed into a
 * 4096-bit filter built from the anchors' first four bytes, and only a
 * hit is compared in full. A line of n bytes costs O(n) plus the readers
 * of the anchors present, whatever the number of anchors, which keeps the
 * server-log parser at disk speed on logs that are mostly other lines.
 *
 * Readers parse numbers in place, bounded by the line's end. Sizes carry
 * the unit as printed; "GB" is read as GiB: vLLM and SGLang divide by
 * 2^30 and print "GB" (one vLLM 0.6.6 run prints "14.9595 GB" and
 * "14.96GiB" for the same weights).
 */
#include "parsers/engine_lines.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ---- numbers ---------------------------------------------------------- */

/* A signed decimal at s (spaces skipped, commas between digits allowed):
 * 0 and *v, *used set; -1 if there is none. */
static int read_num(const char *s, const char *end, double *v, size_t *used)
{
	const char *p = s;
	char buf[64];
	size_t k = 0;
	int digits = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && (*p == '-' || *p == '+'))
		buf[k++] = *p++;
	while (p < end && k < sizeof(buf) - 1) {
		if (*p >= '0' && *p <= '9') {
			buf[k++] = *p++;
			digits++;
		} else if (*p == ',' && digits && p + 1 < end && p[1] >= '0' && p[1] <= '9' &&
			   !memchr(buf, '.', k)) {
			p++;
		} else if (*p == '.' && digits && !memchr(buf, '.', k) && p + 1 < end &&
			   p[1] >= '0' && p[1] <= '9') {
			buf[k++] = *p++;
		} else {
			break;
		}
	}
	if (!digits)
		return -1;
	buf[k] = '\0';
	*v = strtod(buf, NULL);
	if (used)
		*used = (size_t)(p - s);
	return 0;
}

static const struct { const char *name; double mult; } units[] = {
	{ "TiB", 1099511627776.0 }, { "GiB", 1073741824.0 }, { "MiB", 1048576.0 },
	{ "KiB", 1024.0 }, { "TB", 1099511627776.0 }, { "GB", 1073741824.0 },
	{ "MB", 1048576.0 }, { "KB", 1024.0 }, { "kB", 1024.0 }, { "bytes", 1.0 },
	{ "B", 1.0 }, { NULL, 0 }
};

/* A size "14.99 GiB", "23.58GiB", "-1.2 GiB", "69524783104 bytes": bytes
 * into *v; -1 when there is no number or no unit. */
static int read_size(const char *s, const char *end, double *v, size_t *used)
{
	size_t u, i;
	const char *p;

	if (read_num(s, end, v, &u) < 0)
		return -1;
	p = s + u;
	while (p < end && *p == ' ')
		p++;
	for (i = 0; units[i].name; i++) {
		size_t l = strlen(units[i].name);
		if ((size_t)(end - p) >= l && !memcmp(p, units[i].name, l)) {
			*v *= units[i].mult;
			if (used)
				*used = (size_t)(p + l - s);
			return 0;
		}
	}
	return -1;
}

static const char *find(const char *s, const char *end, const char *needle)
{
	size_t l = strlen(needle);

	if (s >= end || (size_t)(end - s) < l)
		return NULL;
	return memmem(s, (size_t)(end - s), needle, l);
}

/* Skip spaces and one run of the separators "=", ":", "(" and "takes". */
static const char *skip_sep(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '=' || *p == ':' || *p == '('))
		p++;
	if ((size_t)(end - p) >= 6 && !memcmp(p, "takes ", 6))
		p += 6;
	return p;
}

/* ---- what a line says --------------------------------------------------- */

static void fact(struct engine_line *o, enum engine_fact k, double v)
{
	if (o->nfacts < ENGINE_LINE_MAX_FACTS) {
		o->facts[o->nfacts].key = k;
		o->facts[o->nfacts].value = v;
		o->nfacts++;
	}
}

static void stat(struct engine_line *o, enum engine_stat k, double v)
{
	o->stats[k] = v;
	o->stats_set |= 1u << k;
}

static void size_fact(struct engine_line *o, enum engine_fact k, const char *p, const char *end)
{
	double v;

	if (read_size(skip_sep(p, end), end, &v, NULL) == 0)
		fact(o, k, v);
}

static void num_fact(struct engine_line *o, enum engine_fact k, const char *p, const char *end)
{
	double v;

	if (read_num(skip_sep(p, end), end, &v, NULL) == 0)
		fact(o, k, v);
}

/* A reader gets the line, where the anchor ends and the line's end. */
struct anchor;
typedef void reader_fn(struct engine_line *o, const struct anchor *a, const char *line,
		       const char *p, const char *end);

struct anchor {
	const char *text;
	enum engine_kind engine;  /* NONE: any engine prints it */
	reader_fn *read;
	int arg;                  /* the fact, stat or error it gives */
};

static void rd_size(struct engine_line *o, const struct anchor *a, const char *line,
		    const char *p, const char *end)
{
	(void)line;
	size_fact(o, (enum engine_fact)a->arg, p, end);
}

static void rd_num(struct engine_line *o, const struct anchor *a, const char *line,
		   const char *p, const char *end)
{
	(void)line;
	num_fact(o, (enum engine_fact)a->arg, p, end);
}

static void rd_error(struct engine_line *o, const struct anchor *a, const char *line,
		     const char *p, const char *end)
{
	(void)line, (void)p, (void)end;
	if (!o->error)
		o->error = (enum engine_error)a->arg;
}

/* "Maximum concurrency for 32,768 tokens per request: 13.59x" */
static void rd_concurrency(struct engine_line *o, const struct anchor *a, const char *line,
			   const char *p, const char *end)
{
	double len, x;
	size_t u;
	const char *q;

	(void)a, (void)line;
	if (read_num(p, end, &len, &u) < 0)
		return;
	fact(o, EF_MAX_MODEL_LEN, len);
	if ((q = find(p + u, end, "per request:")) && read_num(q + 12, end, &x, NULL) == 0)
		fact(o, EF_MAX_CONCURRENCY, x);
}

/* "... can use total_gpu_memory (15.77GiB) x gpu_memory_utilization
 * (0.90) = 14.20GiB" and the tabular "... can use    71.29GiB": the
 * requested share. total and utilization have anchors of their own. */
static void rd_can_use(struct engine_line *o, const struct anchor *a, const char *line,
		       const char *p, const char *end)
{
	const char *q = find(p, end, " = ");

	(void)a, (void)line;
	size_fact(o, EF_REQUESTED, q ? q + 3 : p, end);
}

/* "Free memory on device [cuda:0 ](31.44/47.38 GiB) on startup is less
 * than desired GPU memory utilization (0.95, 45.01 GiB)." The unit after
 * the total is the free figure's too. */
static void rd_free_below(struct engine_line *o, const struct anchor *a, const char *line,
			  const char *p, const char *end)
{
	const char *q = find(p, end, "(");
	double f, tnum, t, u, r;
	size_t n1, n2;

	(void)a, (void)line;
	o->error = EE_FREE_BELOW_UTILIZATION;
	if (q && read_num(q + 1, end, &f, &n1) == 0 && q + 1 + n1 < end && q[1 + n1] == '/' &&
	    read_num(q + 2 + n1, end, &tnum, &n2) == 0 && tnum > 0 &&
	    read_size(q + 2 + n1, end, &t, NULL) == 0) {
		fact(o, EF_FREE, f * (t / tnum));
		fact(o, EF_TOTAL, t);
	}
	if ((q = find(p, end, "utilization (")) && read_num(q + 13, end, &u, &n1) == 0) {
		fact(o, EF_UTILIZATION, u);
		if (q + 13 + n1 < end && q[13 + n1] == ',' &&
		    read_size(q + 14 + n1, end, &r, NULL) == 0)
			fact(o, EF_REQUESTED, r);
	}
}

/* "Initial free memory 31.16 GiB, reserved 4.25 GiB memory for KV Cache" */
static void rd_initial_free(struct engine_line *o, const struct anchor *a, const char *line,
			    const char *p, const char *end)
{
	const char *q;

	(void)a, (void)line;
	size_fact(o, EF_FREE, p, end);
	if ((q = find(p, end, ", reserved ")) && find(q, end, "for KV Cache"))
		size_fact(o, EF_KV_CACHE, q + 11, end);
}

/* "... max seq len (8192) is larger than the maximum number of tokens
 * that can be stored in KV cache (2400)", and V1's "To serve at least one
 * request with the model's max seq len (196608), 23.25 GiB KV cache is
 * needed, which is larger than the available KV cache memory (22.5 GiB)" */
static void rd_max_seq_len(struct engine_line *o, const struct anchor *a, const char *line,
			   const char *p, const char *end)
{
	const char *q;

	(void)a;
	num_fact(o, EF_MAX_MODEL_LEN, p, end);
	if ((q = find(p, end, "stored in KV cache (")))
		num_fact(o, EF_KV_TOKENS, q + 20, end);
	if (find(p, end, "is larger than") || find(line, end, "To serve at least one request"))
		o->error = EE_MAX_LEN_EXCEEDS_KV;
}

/* "# GPU blocks: 3852, # CPU blocks: 4096" (# CPU blocks has its own). */
static void rd_blocks(struct engine_line *o, const struct anchor *a, const char *line,
		      const char *p, const char *end)
{
	(void)line;
	num_fact(o, (enum engine_fact)a->arg, p, end);
	if (o->engine == ENGINE_NONE)
		o->engine = ENGINE_VLLM;
}

/* "Graph capturing finished in 14 secs, took 0.21 GiB" */
static void rd_graph_took(struct engine_line *o, const struct anchor *a, const char *line,
			  const char *p, const char *end)
{
	const char *q = find(p, end, "took ");

	(void)a, (void)line;
	if (q)
		size_fact(o, EF_CUDA_GRAPH, q + 5, end);
}

/* SGLang "mem usage=X GB": the weights after "Load weight end", the
 * graphs after "Capture cuda graph end". */
static void rd_mem_usage(struct engine_line *o, const struct anchor *a, const char *line,
			 const char *p, const char *end)
{
	(void)a;
	if (find(line, p, "Load weight end"))
		size_fact(o, EF_WEIGHTS, p, end);
	else if (find(line, p, "Capture cuda graph end"))
		size_fact(o, EF_CUDA_GRAPH, p, end);
}

/* "KV Cache is allocated. [dtype: ..., ]#tokens: N, K size: X GB, V size: Y GB" */
static void rd_sglang_kv(struct engine_line *o, const struct anchor *a, const char *line,
			 const char *p, const char *end)
{
	const char *q;
	double k, v;

	(void)a, (void)line;
	if ((q = find(p, end, "#tokens:")))
		num_fact(o, EF_KV_TOKENS, q + 8, end);
	if ((q = find(p, end, "K size:")) && read_size(q + 7, end, &k, NULL) == 0 &&
	    (q = find(q, end, "V size:")) && read_size(q + 7, end, &v, NULL) == 0)
		fact(o, EF_KV_CACHE, k + v);
}

/* SGLang "token usage: 0.94": a fraction, kept in percent. The plain
 * anchor also matches inside "full token usage" and "swa token usage",
 * which have anchors of their own, so it skips those. */
static void rd_token_usage(struct engine_line *o, const struct anchor *a, const char *line,
			   const char *p, const char *end)
{
	const char *at = p - strlen(a->text);
	double v;

	if (a->text[0] == 't' && ((at - line >= 5 && !memcmp(at - 5, "full ", 5)) ||
				  (at - line >= 4 && !memcmp(at - 4, "swa ", 4))))
		return;
	if (read_num(p, end, &v, NULL) == 0)
		stat(o, (enum engine_stat)a->arg, v * 100.0);
}

/* TGI "Shard 0 failed to start" (not any "failed to start") */
static void rd_shard_failed(struct engine_line *o, const struct anchor *a, const char *line,
			    const char *p, const char *end)
{
	(void)a, (void)end;
	if (find(line, p, "Shard ") && !o->error)
		o->error = EE_SHARD_CANNOT_START;
}

/* A statistic; vLLM prints percentages with "%", SGLang counts. */
static void rd_stat(struct engine_line *o, const struct anchor *a, const char *line,
		    const char *p, const char *end)
{
	double v;

	(void)line;
	if (read_num(p, end, &v, NULL) == 0)
		stat(o, (enum engine_stat)a->arg, v);
}

/* "Sequence group 5 is preempted by PreemptionMode.RECOMPUTE mode because
 * there is not enough KV cache space. ... total_num_cumulative_preemption=1" */
static void rd_preempt(struct engine_line *o, const struct anchor *a, const char *line,
		       const char *p, const char *end)
{
	const char *q = find(p, end, "total_num_cumulative_preemption=");
	double v;

	(void)a, (void)line;
	o->preempted = 1;
	o->engine = ENGINE_VLLM;
	if (q && read_num(q + 32, end, &v, NULL) == 0)
		o->preempt_total = (int64_t)v;
}

/* "Not enough memory to handle 4096 prefill tokens" (TGI warm-up) */
static void rd_prefill_oom(struct engine_line *o, const struct anchor *a, const char *line,
			   const char *p, const char *end)
{
	(void)a, (void)line;
	o->engine = ENGINE_TGI;
	o->error = EE_PREFILL_OOM;
	num_fact(o, EF_MAX_PREFILL, p, end);
}

/* TensorRT-LLM "[MemUsageChange] Allocated 18.75 GiB for max tokens in
 * paged KV cache (245760)." -- the size precedes the anchor. */
static void rd_trt_paged(struct engine_line *o, const struct anchor *a, const char *line,
			 const char *p, const char *end)
{
	const char *q = find(line, p, "Allocated ");

	(void)a;
	if (q)
		size_fact(o, EF_KV_CACHE, q + 10, p);
	num_fact(o, EF_KV_TOKENS, p, end);
}

/* "Allocate 69524783104 bytes for k/v cache." / "Using 132608 tokens in
 * paged KV cache." -- the number precedes the anchor: read backwards. */
static void rd_trt_before(struct engine_line *o, const struct anchor *a, const char *line,
			  const char *p, const char *end)
{
	const char *q = p - strlen(a->text);
	const char *s = q;
	double v;

	(void)end;
	while (s > line && ((s[-1] >= '0' && s[-1] <= '9') || s[-1] == '.'))
		s--;
	if (s == q || read_num(s, q, &v, NULL) < 0)
		return;
	fact(o, (enum engine_fact)a->arg, v);
}

/* "Memory usage when calculating max tokens in paged kv cache: total:
 * 39.39 GiB, available: 21.89 GiB" */
static void rd_trt_usage(struct engine_line *o, const struct anchor *a, const char *line,
			 const char *p, const char *end)
{
	const char *q;

	(void)a, (void)line;
	if ((q = find(p, end, "total:")))
		size_fact(o, EF_TOTAL, q + 6, end);
	if ((q = find(p, end, "available:")))
		size_fact(o, EF_FREE, q + 10, end);
}

/* A version string after the anchor: "0.6.3.post1", "v0.8.3", "0.21.0rc0" */
static void rd_version(struct engine_line *o, const struct anchor *a, const char *line,
		       const char *p, const char *end)
{
	size_t k = 0;

	(void)line;
	while (p < end && (*p == ' ' || *p == 'v'))
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return;
	while (p < end && k < sizeof(o->version) - 1 && *p != ' ' && *p != ')' && *p != ',' &&
	       *p != '\'' && *p != '"')
		o->version[k++] = *p++;
	while (k && o->version[k - 1] == '.')
		k--;
	o->version[k] = '\0';
	if (o->engine == ENGINE_NONE)
		o->engine = a->engine;
}

/* "... rank=1" (TGI shards, vLLM workers) */
static void rd_rank(struct engine_line *o, const struct anchor *a, const char *line,
		    const char *p, const char *end)
{
	double v;

	(void)a, (void)line;
	if (read_num(p, end, &v, NULL) == 0 && v >= 0 && v < 1e6)
		o->rank = (int)v;
}

/* The rank of SGLang's "[2025-03-07 21:49:33 TP13] " / "[TP0] " prefix,
 * in the first 64 bytes of the line; -1 if none. */
static int sglang_rank(const char *line, size_t n)
{
	const char *end = line + (n < 64 ? n : 64), *p = line;
	double v;
	size_t u;

	while ((p = find(p, end, "TP"))) {
		if ((p == line || p[-1] == ' ' || p[-1] == '[') &&
		    read_num(p + 2, end, &v, &u) == 0 && p + 2 + u < end && p[2 + u] == ']' &&
		    p[2] >= '0' && p[2] <= '9')
			return (int)v;
		p += 2;
	}
	return -1;
}

#define V ENGINE_VLLM
#define S ENGINE_SGLANG
#define T ENGINE_TGI
#define R ENGINE_TRTLLM
#define P ENGINE_PYTORCH
#define N ENGINE_NONE

static const struct anchor anchors[] = {
	/* vLLM start-up accounting, every generation */
	{ "Loading model weights took ", V, rd_size, EF_WEIGHTS },
	{ "Model loading took ", V, rd_size, EF_WEIGHTS },
	{ "model weights take ", V, rd_size, EF_WEIGHTS },
	{ "total_gpu_memory", V, rd_size, EF_TOTAL },
	{ "gpu_memory_utilization", N, rd_num, EF_UTILIZATION },
	{ "The current --gpu-memory-utilization=", V, rd_num, EF_UTILIZATION },
	{ "the current vLLM instance can use", V, rd_can_use, 0 },
	{ "peak_torch_memory", V, rd_size, EF_TORCH_PEAK },
	{ "non_torch_memory", V, rd_size, EF_NON_TORCH },
	{ "PyTorch activation peak memory", V, rd_size, EF_ACTIVATION_PEAK },
	{ "reserved for KV Cache is ", V, rd_size, EF_KV_CACHE },
	{ "kv_cache_size=", V, rd_size, EF_KV_CACHE },
	{ "available_kv_cache_memory", V, rd_size, EF_KV_CACHE },
	{ "Available KV cache memory: ", V, rd_size, EF_KV_CACHE },
	{ "Initial free memory ", V, rd_initial_free, 0 },
	{ "Free memory on device", V, rd_free_below, 0 },
	{ "GPU blocks: ", N, rd_blocks, EF_GPU_BLOCKS },   /* "# " lost in some pastes */
	{ "CUDA blocks: ", N, rd_blocks, EF_GPU_BLOCKS },
	{ "cuda blocks: ", N, rd_blocks, EF_GPU_BLOCKS },
	{ "CPU blocks: ", N, rd_blocks, EF_CPU_BLOCKS },
	{ "GPU KV cache size: ", V, rd_num, EF_KV_TOKENS },
	{ "Maximum concurrency for ", V, rd_concurrency, 0 },
	{ "Graph capturing finished in ", V, rd_graph_took, 0 },
	{ "Estimated CUDA graph memory: ", V, rd_size, EF_CUDA_GRAPH },
	{ "CUDA graph pool memory: ", V, rd_size, EF_CUDA_GRAPH },
	{ "max seq len (", V, rd_max_seq_len, 0 },
	{ "max_num_seqs=", N, rd_num, EF_MAX_NUM_SEQS },
	{ "max_model_len=", N, rd_num, EF_MAX_MODEL_LEN },
	{ "max_seq_len=", N, rd_num, EF_MAX_MODEL_LEN },
	{ "No available memory for the cache blocks", V, rd_error, EE_KV_NO_MEMORY },
	{ "EngineCore failed to start", V, rd_error, EE_ENGINE_DEAD },
	{ "Engine core initialization failed", V, rd_error, EE_ENGINE_DEAD },
	{ "EngineDeadError", V, rd_error, EE_ENGINE_DEAD },
	{ "EngineCore encountered an issue", V, rd_error, EE_ENGINE_DEAD },
	{ "EngineCore hit an exception", V, rd_error, EE_ENGINE_DEAD },
	{ "is preempted by PreemptionMode", V, rd_preempt, 0 },
	{ "vLLM API server version ", V, rd_version, 0 },
	{ "LLM engine (v", V, rd_version, 0 },
	{ "vLLM version ", V, rd_version, 0 },
	/* vLLM periodic statistics (V0 and V1's "Engine 000: ...") */
	{ "Avg prompt throughput: ", V, rd_stat, ES_PROMPT_TPS },
	{ "Avg generation throughput: ", V, rd_stat, ES_GEN_TPS },
	{ "Running: ", V, rd_stat, ES_RUNNING },
	{ "Swapped: ", V, rd_stat, ES_SWAPPED },
	{ "Pending: ", V, rd_stat, ES_WAITING },
	{ "Waiting: ", V, rd_stat, ES_WAITING },
	{ "GPU KV cache usage: ", V, rd_stat, ES_GPU_KV_USAGE },
	{ "CPU KV cache usage: ", V, rd_stat, ES_CPU_KV_USAGE },
	{ "Prefix cache hit rate: ", V, rd_stat, ES_PREFIX_HIT_RATE },
	/* SGLang */
	{ "avail mem=", S, rd_size, EF_FREE },
	{ "available_gpu_mem=", S, rd_size, EF_FREE },
	{ "mem usage=", S, rd_mem_usage, 0 },
	{ "KV Cache is allocated.", S, rd_sglang_kv, 0 },
	{ "max_total_num_tokens=", S, rd_num, EF_KV_TOKENS },
	{ "max_prefill_tokens=", S, rd_num, EF_MAX_PREFILL },
	{ "max_running_requests=", S, rd_num, EF_MAX_NUM_SEQS },
	{ "context_len=", S, rd_num, EF_MAX_MODEL_LEN },
	{ "mem_fraction_static=", S, rd_num, EF_UTILIZATION },
	{ "#running-req: ", S, rd_stat, ES_RUNNING },
	{ "#queue-req: ", S, rd_stat, ES_WAITING },
	{ "token usage: ", S, rd_token_usage, ES_GPU_KV_USAGE },
	{ "full token usage: ", S, rd_token_usage, ES_GPU_KV_USAGE },
	{ "swa token usage: ", S, rd_token_usage, ES_SWA_KV_USAGE },
	{ "Decode out of memory happened", S, rd_error, EE_RETRACT },
	{ "Retract requests", S, rd_error, EE_RETRACT },
	{ "Decode out of memory.", S, rd_error, EE_DECODE_OOM },
	{ "Prefill out of memory", S, rd_error, EE_PREFILL_OOM },
	{ "Not enough memory. Please try to increase --mem-fraction-static", S, rd_error,
	  EE_KV_NO_MEMORY },
	/* TGI */
	{ "Setting max batch total tokens to ", T, rd_num, EF_KV_TOKENS },
	{ "Not enough memory to handle ", T, rd_prefill_oom, 0 },
	{ "not enough memory to handle ", T, rd_prefill_oom, 0 },
	{ "ShardCannotStart", T, rd_error, EE_SHARD_CANNOT_START },
	{ "failed to start", T, rd_shard_failed, 0 },
	{ " rank=", N, rd_rank, 0 },
	/* TensorRT-LLM and Triton */
	{ " bytes for k/v cache", R, rd_trt_before, EF_KV_CACHE },
	{ " tokens in paged KV cache", R, rd_trt_before, EF_KV_TOKENS },
	{ "for max tokens in paged KV cache (", R, rd_trt_paged, 0 },
	{ "Memory usage when calculating max tokens in paged kv cache:", R, rd_trt_usage, 0 },
	{ "Number of blocks in KV cache primary pool: ", R, rd_num, EF_GPU_BLOCKS },
	{ "primary blocks=", R, rd_num, EF_GPU_BLOCKS },
	{ "TRTGptModel maxNumSequences: ", R, rd_num, EF_MAX_NUM_SEQS },
	{ "TRTGptModel maxSequenceLen: ", R, rd_num, EF_MAX_MODEL_LEN },
	{ "Loaded engine size: ", R, rd_size, EF_WEIGHTS },
	{ "Engine version ", R, rd_version, 0 },
	{ "maxTokensInPagedKvCache must be large enough", R, rd_error, EE_KV_NO_MEMORY },
	{ "[TensorRT-LLM][ERROR]", R, rd_error, EE_NONE },
	/* under every engine */
	{ "CUDA out of memory", P, rd_error, EE_CUDA_OOM },
	{ "Cuda failure 'out of memory'", P, rd_error, EE_NCCL_OOM },
	{ "Cuda failure 2 'out of memory'", P, rd_error, EE_NCCL_OOM },
	{ "CUBLAS_STATUS_ALLOC_FAILED", P, rd_error, EE_CUBLAS_ALLOC_FAILED },
};

#undef V
#undef S
#undef T
#undef R
#undef P
#undef N

#define NANCHORS (sizeof(anchors) / sizeof(anchors[0]))
#define FILTER_BITS 12

/* The filter: a bit per hash of an anchor's first four bytes, and the
 * anchors of each hash in a chain (next[] indexes anchors; -1 ends). */
static struct {
	int ready;
	uint64_t bits[(1u << FILTER_BITS) / 64];
	short head[1u << FILTER_BITS];
	short next[NANCHORS];
} filter;

static unsigned hash4(const char *p)
{
	uint32_t k;

	memcpy(&k, p, 4);
	return (k * 2654435761u) >> (32 - FILTER_BITS);
}

/* Built once; the table is constant, so two threads building it at once
 * write the same values. */
static void filter_build(void)
{
	size_t i;

	memset(filter.head, -1, sizeof(filter.head));
	for (i = NANCHORS; i-- > 0;) {
		unsigned h;
		assert(strlen(anchors[i].text) >= 4);
		h = hash4(anchors[i].text);
		filter.bits[h / 64] |= 1ull << (h % 64);
		filter.next[i] = filter.head[h];
		filter.head[h] = (short)i;
	}
	filter.ready = 1;
}


/* The engine whose wording a line uses, from the anchors it holds. */
static void note_engine(struct engine_line *o, const struct anchor *a)
{
	if (a->engine == ENGINE_NONE || a->engine == ENGINE_PYTORCH)
		return;
	if (o->engine == ENGINE_NONE || o->engine == ENGINE_PYTORCH)
		o->engine = a->engine;
}

/* A TensorRT-LLM error line: an allocation failure is its OOM. */
static void trt_error(struct engine_line *o, const char *line, const char *end)
{
	if (!o->error && find(line, end, "out of memory"))
		o->error = EE_TRT_OOM;
}

int engine_line(const char *line, size_t n, struct engine_line *out)
{
	const char *end = line + n;
	size_t i;
	int said = 0, stats_anchor = 0, trt = 0;

	memset(out, 0, sizeof(*out));
	out->preempt_total = -1;
	out->rank = -1;
	if (!filter.ready)
		filter_build();
	for (i = 0; i + 4 <= n; i++) {
		unsigned h = hash4(line + i);
		short k;
		if (!(filter.bits[h / 64] >> (h % 64) & 1))
			continue;
		for (k = filter.head[h]; k >= 0; k = filter.next[k]) {
			const struct anchor *a = &anchors[k];
			size_t l = strlen(a->text);
			if (l > n - i || memcmp(line + i, a->text, l))
				continue;
			if (a->read == rd_stat && a->engine == ENGINE_VLLM)
				stats_anchor = 1;
			if (a->read == rd_error && a->arg == EE_NONE)
				trt = 1;
			else
				a->read(out, a, line, line + i + l, end);
			note_engine(out, a);
		}
	}
	if (trt)
		trt_error(out, line, end);
	if (out->rank < 0 && out->engine == ENGINE_SGLANG)
		out->rank = sglang_rank(line, n);
	/* "Running: " alone is too common a phrase: vLLM's statistics come
	 * with a throughput or a KV cache usage on the same line. */
	if (stats_anchor && !(out->stats_set & (1u << ES_GPU_KV_USAGE |
						  1u << ES_PROMPT_TPS | 1u << ES_GEN_TPS)))
		out->stats_set &= ~(1u << ES_RUNNING | 1u << ES_WAITING | 1u << ES_SWAPPED |
				     1u << ES_CPU_KV_USAGE | 1u << ES_PREFIX_HIT_RATE);
	said = out->nfacts || out->stats_set || out->error || out->preempted || out->version[0];
	return said;
}

const char *engine_kind_name(enum engine_kind k)
{
	static const char *const names[] = { "unknown", "vllm", "sglang", "tgi", "tensorrt-llm",
					     "triton", "pytorch" };
	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "unknown";
}

const char *engine_fact_name(enum engine_fact f)
{
	static const char *const names[EF__COUNT] = {
		"total_bytes", "free_bytes", "gpu_memory_utilization", "requested_bytes",
		"weights_bytes", "activation_peak_bytes", "torch_peak_bytes", "non_torch_bytes",
		"cuda_graph_bytes", "kv_cache_bytes", "kv_cache_tokens", "gpu_blocks",
		"cpu_blocks", "max_concurrency", "max_num_seqs", "max_model_len",
		"max_batch_prefill_tokens",
	};
	return (unsigned)f < EF__COUNT ? names[f] : "unknown";
}

const char *engine_error_name(enum engine_error e)
{
	static const char *const names[EE__COUNT] = {
		"none", "kv_no_memory", "max_len_exceeds_kv", "free_below_utilization",
		"cuda_oom", "graph_capture_oom", "engine_dead", "prefill_oom",
		"shard_cannot_start", "decode_oom", "retract", "nccl_oom",
		"cublas_alloc_failed", "trt_oom",
	};
	return (unsigned)e < EE__COUNT ? names[e] : "unknown";
}

const char *engine_stat_series(enum engine_stat s)
{
	static const char *const names[ES__COUNT] = {
		"server.running", "server.waiting", "server.swapped", "server.gpu_kv_usage",
		"server.cpu_kv_usage", "server.swa_kv_usage", "server.prefix_cache_hit_rate",
		"server.prompt_tokens_per_s", "server.gen_tokens_per_s",
	};
	return (unsigned)s < ES__COUNT ? names[s] : "unknown";
}

const char *engine_stat_unit(enum engine_stat s)
{
	switch (s) {
	case ES_RUNNING: case ES_WAITING: case ES_SWAPPED:
		return "requests";
	case ES_PROMPT_TPS: case ES_GEN_TPS:
		return "tokens/s";
	default:
		return "percent";
	}
}
