/*
 * engine_lines.c -- what one serving-engine log line says about memory;
 * see engine_lines.h.
 *
 * Four tables hold the phrases the engines print, as found in their
 * sources and in tests/data/real/serving: the labels of each fact (a size
 * or a number follows), the labels of each statistic, the phrases naming
 * each error, and the few phrases that need a reader of their own. From
 * them one list of anchors is built once; engine_line() finds every
 * anchor in one pass over the line: the first two bytes of each position
 * are looked up in a bitmap of the anchors' first two bytes, then the
 * first four hashed into a 4096-bit filter of the anchors' first four,
 * and only a hit is compared in full. A line of n bytes costs O(n)
 * plus the readers of the anchors present, whatever the number of
 * anchors, which keeps the server-log parser at disk speed on logs that
 * are mostly other lines.
 *
 * Readers parse numbers in place, bounded by the line's end. Sizes carry
 * the unit as printed; "GB" is read as GiB: vLLM and SGLang divide by
 * 2^30 and print "GB" (one vLLM 0.6.6 run prints "14.9595 GB" and
 * "14.96GiB" for the same weights).
 */
#include "parsers/engine_lines.h"

#include <assert.h>
#include <ctype.h>
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

/* Skip spaces and one run of the separators "=", ":", "(", then "takes "
 * or TGI's "Some(". */
static const char *skip_sep(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '=' || *p == ':' || *p == '('))
		p++;
	if ((size_t)(end - p) >= 6 && !memcmp(p, "takes ", 6))
		p += 6;
	else if ((size_t)(end - p) >= 5 && !memcmp(p, "Some(", 5))
		p += 5;
	return p;
}

/* ---- what a line says --------------------------------------------------- */

/* A fact of the line; a key the line stated already keeps its first value
 * ("The current --gpu-memory-utilization=0.62 is equivalent to
 * --gpu-memory-utilization=0.54 without ..."). */
static void fact(struct engine_line *o, enum engine_fact k, double v)
{
	int i;

	for (i = 0; i < o->nfacts; i++)
		if (o->facts[i].key == k)
			return;
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
	size_t len;
	enum engine_kind engine;  /* NONE: any engine prints it */
	reader_fn *read;
	int arg;                  /* the fact, stat or error it gives */
	double mult;              /* statistics: the factor to percent */
	unsigned strong : 1;      /* only engines print it (detection) */
	unsigned gated : 1;       /* a vLLM statistic: kept only with its company */
	unsigned phrase : 1;      /* must start a phrase ("token usage", not
				   * "full token usage") */
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

/* A statistic; vLLM prints percentages with "%", SGLang ratios (mult). */
static void rd_stat(struct engine_line *o, const struct anchor *a, const char *line,
		    const char *p, const char *end)
{
	const char *at = p - a->len;
	double v;

	if (a->phrase && at - line >= 2 && at[-1] == ' ' && isalpha((unsigned char)at[-2]))
		return;   /* "full token usage" is not "token usage" */
	if (read_num(p, end, &v, NULL) == 0)
		stat(o, (enum engine_stat)a->arg, v * a->mult);
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

/* "# GPU blocks: 3852, # CPU blocks: 4096": vLLM's, whoever the line's
 * other anchors say (the "# " is lost in some pastes). */
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
	o->capture = 2;
	if (q)
		size_fact(o, EF_CUDA_GRAPH, q + 5, end);
}

/* A CUDA-graph capture begins (arg 1) or ends (arg 2). */
static void rd_capture(struct engine_line *o, const struct anchor *a, const char *line,
		       const char *p, const char *end)
{
	(void)line, (void)p, (void)end;
	o->capture = a->arg;
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

/* TGI "Shard 0 failed to start" (not any "failed to start") */
static void rd_shard_failed(struct engine_line *o, const struct anchor *a, const char *line,
			    const char *p, const char *end)
{
	(void)a, (void)end;
	if (find(line, p, "Shard ") && !o->error) {
		o->error = EE_SHARD_CANNOT_START;
		o->engine = ENGINE_TGI;
	}
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
	o->swap = (size_t)(end - p) >= 5 && !memcmp(p, ".SWAP", 5);
	if (q && read_num(q + 32, end, &v, NULL) == 0)
		o->preempt_total = (int64_t)v;
}

/* "Not enough memory to handle 4096 prefill tokens" (TGI warm-up) */
static void rd_prefill_oom(struct engine_line *o, const struct anchor *a, const char *line,
			   const char *p, const char *end)
{
	(void)a, (void)line;
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
	const char *q = p - a->len;
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

/* A TensorRT-LLM error line: an allocation failure is its OOM. */
static void rd_trt_error(struct engine_line *o, const struct anchor *a, const char *line,
			 const char *p, const char *end)
{
	(void)a, (void)p;
	if (!o->error && find(line, end, "out of memory"))
		o->error = EE_TRT_OOM;
}

/* A version string after the anchor: "0.6.3.post1", "v0.8.3", "0.21.0rc0" */
static void rd_version(struct engine_line *o, const struct anchor *a, const char *line,
		       const char *p, const char *end)
{
	size_t k = 0;

	(void)a, (void)line;
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
}

/* "... rank=1" (TGI shards) */
static void rd_rank(struct engine_line *o, const struct anchor *a, const char *line,
		    const char *p, const char *end)
{
	double v;

	(void)a, (void)line;
	if (read_num(p, end, &v, NULL) == 0 && v >= 0 && v < 1e6)
		o->rank = (int)v;
}

/* The engine's configuration, dumped (server_meta.c reads its keys). */
static void rd_config(struct engine_line *o, const struct anchor *a, const char *line,
		      const char *p, const char *end)
{
	(void)a, (void)line, (void)p, (void)end;
	o->config = 1;
}

/* A phrase that only says whose line it is. */
static void rd_engine(struct engine_line *o, const struct anchor *a, const char *line,
		      const char *p, const char *end)
{
	(void)o, (void)a, (void)line, (void)p, (void)end;
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

/* ---- the tables ------------------------------------------------------- */

#define V ENGINE_VLLM
#define S ENGINE_SGLANG
#define T ENGINE_TGI
#define R ENGINE_TRTLLM
#define P ENGINE_PYTORCH
#define N ENGINE_NONE

/* Each fact under the labels each engine prints it with; size: a unit
 * follows. strong 0: a configuration key a note could quote too. */
static const struct {
	enum engine_fact key;
	enum engine_kind engine;
	int size, strong;
	const char *labels[4];
} fact_labels[] = {
	{ EF_WEIGHTS, V, 1, 1, { "Loading model weights took ", "Model loading took ",
				 "model weights take " } },
	{ EF_WEIGHTS, R, 1, 1, { "Loaded engine size: " } },
	{ EF_TOTAL, V, 1, 1, { "total_gpu_memory" } },
	{ EF_TORCH_PEAK, V, 1, 1, { "peak_torch_memory" } },
	{ EF_NON_TORCH, V, 1, 1, { "non_torch_memory" } },
	{ EF_ACTIVATION_PEAK, V, 1, 1, { "PyTorch activation peak memory" } },
	{ EF_KV_CACHE, V, 1, 1, { "reserved for KV Cache is ", "kv_cache_size=",
				  "available_kv_cache_memory", "Available KV cache memory: " } },
	{ EF_CUDA_GRAPH, V, 1, 1, { "Estimated CUDA graph memory: ", "CUDA graph pool memory: " } },
	{ EF_FREE, S, 1, 1, { "avail mem=", "available_gpu_mem=" } },
	{ EF_UTILIZATION, N, 0, 0, { "gpu_memory_utilization" } },
	{ EF_UTILIZATION, V, 0, 1, { "The current --gpu-memory-utilization=" } },
	{ EF_UTILIZATION, V, 0, 0, { "--gpu-memory-utilization" } },   /* its command line */
	{ EF_UTILIZATION, S, 0, 0, { "mem_fraction_static=" } },
	{ EF_UTILIZATION, T, 0, 0, { "cuda_memory_fraction: " } },
	{ EF_KV_TOKENS, V, 0, 1, { "GPU KV cache size: " } },
	{ EF_KV_TOKENS, S, 0, 1, { "max_total_num_tokens=" } },
	{ EF_KV_TOKENS, T, 0, 1, { "Setting max batch total tokens to " } },
	{ EF_KV_TOKENS, T, 0, 0, { "max_batch_total_tokens: " } },
	{ EF_MAX_NUM_SEQS, N, 0, 0, { "max_num_seqs=" } },
	{ EF_MAX_NUM_SEQS, V, 0, 0, { "--max-num-seqs" } },
	{ EF_MAX_NUM_SEQS, S, 0, 0, { "max_running_requests=" } },
	{ EF_MAX_NUM_SEQS, T, 0, 0, { "max_concurrent_requests: " } },
	{ EF_MAX_NUM_SEQS, R, 0, 1, { "TRTGptModel maxNumSequences: " } },
	{ EF_MAX_MODEL_LEN, N, 0, 0, { "max_model_len=", "max_seq_len=" } },
	{ EF_MAX_MODEL_LEN, V, 0, 0, { "--max-model-len" } },
	{ EF_MAX_MODEL_LEN, S, 0, 0, { "context_len=" } },
	{ EF_MAX_MODEL_LEN, T, 0, 0, { "max_total_tokens: ", "`max_new_tokens` must be <= " } },
	{ EF_MAX_MODEL_LEN, R, 0, 1, { "TRTGptModel maxSequenceLen: " } },
	{ EF_MAX_PREFILL, S, 0, 0, { "max_prefill_tokens=" } },
	{ EF_MAX_PREFILL, T, 0, 0, { "max_batch_prefill_tokens: " } },
	{ EF_GPU_BLOCKS, R, 0, 1, { "Number of blocks in KV cache primary pool: ",
				    "primary blocks=" } },
};

/* Each statistic under its labels. gated: a vLLM label common enough in
 * other text ("Running: ") that it counts only on a line that also has a
 * throughput or the KV cache usage; mult: to percent, for ratios. */
static const struct {
	enum engine_stat key;
	enum engine_kind engine;
	int gated;
	double mult;
	const char *labels[3];
} stat_labels[] = {
	{ ES_PROMPT_TPS, V, 0, 1, { "Avg prompt throughput: " } },
	{ ES_GEN_TPS, V, 0, 1, { "Avg generation throughput: " } },
	{ ES_GEN_TPS, S, 0, 1, { "gen throughput (token/s): " } },
	{ ES_RUNNING, V, 1, 1, { "Running: " } },
	{ ES_RUNNING, S, 0, 1, { "#running-req: " } },
	{ ES_SWAPPED, V, 1, 1, { "Swapped: " } },
	{ ES_WAITING, V, 1, 1, { "Pending: " /* V0 */, "Waiting: " } },
	{ ES_WAITING, S, 0, 1, { "#queue-req: " } },
	{ ES_GPU_KV_USAGE, V, 0, 1, { "GPU KV cache usage: " } },
	{ ES_GPU_KV_USAGE, S, 0, 100, { "token usage: ", "full token usage: " } },
	{ ES_SWA_KV_USAGE, S, 0, 100, { "swa token usage: " } },
	{ ES_CPU_KV_USAGE, V, 1, 1, { "CPU KV cache usage: " } },
	{ ES_PREFIX_HIT_RATE, V, 1, 1, { "Prefix cache hit rate: " } },
	{ ES_PREFIX_HIT_RATE, V, 0, 1, { "Prefix cache hit rate: GPU: " /* V0's own line */,
					 "GPU prefix cache hit rate: " } },
};

/* Each error under the phrases that name it. */
static const struct {
	enum engine_error key;
	enum engine_kind engine;
	const char *phrases[7];
} error_phrases[] = {
	{ EE_KV_NO_MEMORY, V, { "No available memory for the cache blocks" } },
	{ EE_KV_NO_MEMORY, S, { "Not enough memory. Please try to increase --mem-fraction-static" } },
	{ EE_KV_NO_MEMORY, R, { "maxTokensInPagedKvCache must be large enough" } },
	{ EE_ENGINE_DEAD, V, { "EngineCore failed to start", "Engine core initialization failed",
			       "EngineDeadError", "EngineCore encountered an issue",
			       "EngineCore encountered a fatal error", "EngineCore hit an exception",
			       "Engine process failed to start" } },
	{ EE_RETRACT, S, { "Decode out of memory happened", "Retract requests" } },
	{ EE_DECODE_OOM, S, { "Decode out of memory." } },
	{ EE_PREFILL_OOM, S, { "Prefill out of memory" } },
	{ EE_SHARD_CANNOT_START, T, { "ShardCannotStart" } },
	{ EE_CUDA_OOM, P, { "CUDA out of memory", "would exceed allowed memory. (out of memory)" } },
	{ EE_NCCL_OOM, P, { "Cuda failure 'out of memory'", "Cuda failure 2 'out of memory'" } },
	{ EE_CUBLAS_ALLOC_FAILED, P, { "CUBLAS_STATUS_ALLOC_FAILED" } },
};

/* The phrases with a reader of their own, by reader; arg: the fact or
 * the capture's edge (1 begins, 2 ends). */
static const struct {
	reader_fn *read;
	enum engine_kind engine;
	int arg, strong;
	const char *phrases[4];
} special[] = {
	{ rd_can_use, V, 0, 1, { "the current vLLM instance can use" } },
	{ rd_free_below, V, 0, 1, { "Free memory on device" } },
	{ rd_initial_free, V, 0, 1, { "Initial free memory " } },
	{ rd_max_seq_len, V, 0, 1, { "max seq len (" } },
	{ rd_concurrency, V, 0, 1, { "Maximum concurrency for " } },
	{ rd_blocks, N, EF_GPU_BLOCKS, 1, { "GPU blocks: ", "CUDA blocks: ", "cuda blocks: " } },
	{ rd_blocks, N, EF_CPU_BLOCKS, 1, { "CPU blocks: " } },
	{ rd_graph_took, V, 0, 1, { "Graph capturing finished in " } },
	{ rd_capture, V, 1, 1, { "Capturing cudagraphs", "Capturing CUDA graph",
				  "Capturing the model for CUDA graphs", ", in capture_model" } },
	{ rd_capture, S, 1, 1, { "Capture cuda graph begin" } },
	{ rd_capture, S, 2, 1, { "Capture cuda graph end" } },
	{ rd_preempt, V, 0, 1, { "is preempted by PreemptionMode" } },
	{ rd_version, V, 0, 1, { "vLLM API server version ", "LLM engine (v", "vLLM version " } },
	{ rd_mem_usage, S, 0, 1, { "mem usage=" } },
	{ rd_sglang_kv, S, 0, 1, { "KV Cache is allocated." } },
	{ rd_prefill_oom, T, 0, 1, { "Not enough memory to handle ", "not enough memory to handle " } },
	{ rd_shard_failed, N, 0, 0, { "failed to start" } },
	{ rd_rank, N, 0, 0, { " rank=" } },
	{ rd_engine, T, 0, 1, { "text_generation_launcher", "text_generation_router" } },
	{ rd_trt_before, R, EF_KV_CACHE, 1, { " bytes for k/v cache" } },
	{ rd_trt_before, R, EF_KV_TOKENS, 1, { " tokens in paged KV cache" } },
	{ rd_trt_paged, R, 0, 1, { "for max tokens in paged KV cache (" } },
	{ rd_trt_usage, R, 0, 1, { "Memory usage when calculating max tokens in paged kv cache:" } },
	{ rd_version, R, 0, 0, { "Engine version " } },
	{ rd_trt_error, R, 0, 1, { "[TensorRT-LLM][ERROR]" } },
	{ rd_engine, R, 0, 1, { "[TensorRT-LLM]" } },
	{ rd_config, N, 0, 0, { "with config:", "args: ", "Args {", "args={" } },
};

#undef V
#undef S
#undef T
#undef R
#undef P
#undef N

#define ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))
#define ANCHORS_MAX 192
#define FILTER_BITS 12

/* The anchors built from the tables, and the filter: a bit per hash of an
 * anchor's first four bytes, and the anchors of each hash in a chain
 * (next[] indexes anchors; -1 ends). */
static struct {
	int ready;
	size_t n;
	struct anchor a[ANCHORS_MAX];
	uint64_t pairs[65536 / 64];   /* the anchors' first two bytes: most
				       * positions of a line stop here */
	uint64_t bits[(1u << FILTER_BITS) / 64];
	short head[1u << FILTER_BITS];
	short next[ANCHORS_MAX];
} filter;

static unsigned hash4(const char *p)
{
	uint32_t k;

	memcpy(&k, p, 4);
	return (k * 2654435761u) >> (32 - FILTER_BITS);
}

static unsigned pair(const char *p)
{
	return (unsigned)(unsigned char)p[0] << 8 | (unsigned char)p[1];
}

static void add(const struct anchor *a)
{
	assert(filter.n < ANCHORS_MAX && strlen(a->text) >= 4);
	filter.a[filter.n] = *a;
	filter.a[filter.n].len = strlen(a->text);
	filter.n++;
}

/* The anchors of the four tables, in table order. */
static void anchors_build(void)
{
	size_t i, k;

	for (i = 0; i < ARRAY_N(fact_labels); i++)
		for (k = 0; k < ARRAY_N(fact_labels[i].labels) && fact_labels[i].labels[k]; k++) {
			struct anchor a = { fact_labels[i].labels[k], 0, fact_labels[i].engine,
					    fact_labels[i].size ? rd_size : rd_num,
					    fact_labels[i].key, 0, fact_labels[i].strong, 0, 0 };
			add(&a);
		}
	for (i = 0; i < ARRAY_N(stat_labels); i++)
		for (k = 0; k < ARRAY_N(stat_labels[i].labels) && stat_labels[i].labels[k]; k++) {
			const char *t = stat_labels[i].labels[k];
			struct anchor a = { t, 0, stat_labels[i].engine, rd_stat, stat_labels[i].key,
					    stat_labels[i].mult, 1, (unsigned)stat_labels[i].gated,
					    islower((unsigned char)t[0]) != 0 };
			add(&a);
		}
	for (i = 0; i < ARRAY_N(error_phrases); i++)
		for (k = 0; k < ARRAY_N(error_phrases[i].phrases) && error_phrases[i].phrases[k];
		     k++) {
			struct anchor a = { error_phrases[i].phrases[k], 0, error_phrases[i].engine,
					    rd_error, error_phrases[i].key, 0, 1, 0, 0 };
			add(&a);
		}
	for (i = 0; i < ARRAY_N(special); i++)
		for (k = 0; k < ARRAY_N(special[i].phrases) && special[i].phrases[k]; k++) {
			struct anchor a = { special[i].phrases[k], 0, special[i].engine,
					    special[i].read, special[i].arg, 0,
					    (unsigned)special[i].strong, 0, 0 };
			add(&a);
		}
}

/* Built once; the tables are constant, so two threads building it at
 * once write the same values. */
static void filter_build(void)
{
	size_t i;

	filter.n = 0;
	anchors_build();
	memset(filter.head, -1, sizeof(filter.head));
	for (i = filter.n; i-- > 0;) {
		unsigned h = hash4(filter.a[i].text), pr = pair(filter.a[i].text);
		filter.pairs[pr / 64] |= 1ull << (pr % 64);
		filter.bits[h / 64] |= 1ull << (h % 64);
		filter.next[i] = filter.head[h];
		filter.head[h] = (short)i;
	}
	filter.ready = 1;
}

/* The engine whose wording a line uses, from the anchors it holds: a
 * named engine's over PyTorch's. */
static void note_engine(struct engine_line *o, const struct anchor *a)
{
	if (a->engine == ENGINE_NONE)
		return;
	if (o->engine == ENGINE_NONE || (o->engine == ENGINE_PYTORCH && a->engine != ENGINE_PYTORCH))
		o->engine = a->engine;
}

/* Call fn for each anchor found in line[0..n); stops early when fn
 * returns nonzero. Returns that value, else 0. */
static int each_anchor(const char *line, size_t n, int (*fn)(const struct anchor *, size_t, void *),
		       void *arg)
{
	size_t i;
	int r;

	if (!filter.ready)
		filter_build();
	for (i = 0; i + 4 <= n; i++) {
		unsigned pr = pair(line + i), h;
		short k;
		if (!(filter.pairs[pr / 64] >> (pr % 64) & 1))
			continue;
		h = hash4(line + i);
		if (!(filter.bits[h / 64] >> (h % 64) & 1))
			continue;
		for (k = filter.head[h]; k >= 0; k = filter.next[k]) {
			const struct anchor *a = &filter.a[k];
			if (a->len > n - i || memcmp(line + i, a->text, a->len))
				continue;
			if ((r = fn(a, i, arg)))
				return r;
		}
	}
	return 0;
}

struct reading {
	struct engine_line *o;
	const char *line, *end;
	unsigned gated;         /* statistics read from gated labels */
};

/* 1 when an anchor that is a lower-case word or key ("max_total_num_tokens=",
 * "token usage: ") stands inside a longer name ("sglang:max_total_num_tokens=",
 * a Prometheus metric quoted) rather than on its own. */
static int inside_name(const struct anchor *a, const char *line, size_t at)
{
	char c = at ? line[at - 1] : ' ';

	return (islower((unsigned char)a->text[0]) || a->text[0] == '_') &&
	       (isalnum((unsigned char)c) || c == '_' || c == ':' || c == '.');
}

static int read_anchor(const struct anchor *a, size_t at, void *arg)
{
	struct reading *r = arg;
	unsigned before = r->o->stats_set;

	if (inside_name(a, r->line, at))
		return 0;
	a->read(r->o, a, r->line, r->line + at + a->len, r->end);
	if (a->gated)
		r->gated |= r->o->stats_set & ~before;
	note_engine(r->o, a);
	return 0;
}

int engine_line(const char *line, size_t n, struct engine_line *out)
{
	struct reading r = { out, line, line + n, 0 };

	memset(out, 0, sizeof(*out));
	out->preempt_total = -1;
	out->rank = -1;
	each_anchor(line, n, read_anchor, &r);
	if (out->rank < 0 && out->engine == ENGINE_SGLANG)
		out->rank = sglang_rank(line, n);
	/* "Running: " alone is too common a phrase: vLLM's statistics come
	 * with a throughput or a KV cache usage on the same line. */
	if (r.gated && !(out->stats_set & (1u << ES_GPU_KV_USAGE | 1u << ES_PROMPT_TPS |
					   1u << ES_GEN_TPS)))
		out->stats_set &= ~r.gated;
	return out->nfacts || out->stats_set || out->error || out->preempted || out->capture ||
	       out->version[0];
}

static int strong_anchor(const struct anchor *a, size_t at, void *arg)
{
	return a->strong && !a->gated && !inside_name(a, arg, at);
}

int engine_line_strong(const char *line, size_t n)
{
	return each_anchor(line, n, strong_anchor, (void *)line);
}

/* ---- names ---------------------------------------------------------- */

const char *engine_kind_name(enum engine_kind k)
{
	static const char *const names[ENGINE__COUNT] = { "unknown", "vllm", "sglang", "tgi",
							  "tensorrt-llm", "triton", "pytorch" };
	return (unsigned)k < ENGINE__COUNT ? names[k] : "unknown";
}

#define ENGINE_FACT_NAME(key, name, integer) #name,
#define ENGINE_FACT_INTEGER(key, name, integer) integer,
static const char *const fact_names[EF__COUNT] = { ENGINE_FACTS(ENGINE_FACT_NAME) };
static const char fact_integer[EF__COUNT] = { ENGINE_FACTS(ENGINE_FACT_INTEGER) };

const char *engine_fact_name(enum engine_fact f)
{
	return (unsigned)f < EF__COUNT ? fact_names[f] : "unknown";
}

int engine_fact_integer(enum engine_fact f)
{
	return (unsigned)f < EF__COUNT && fact_integer[f];
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
