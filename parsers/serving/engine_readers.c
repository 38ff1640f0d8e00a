/*
 * engine_readers.c -- the readers of engine_lines.c: for each shape of
 * what follows a phrase an engine prints ("Loading model weights took
 * 14.99 GB", "Free memory on device (31.44/47.38 GiB) ..."), the figures
 * it states, into a struct engine_line (see engine_readers.h).
 *
 * Readers parse numbers in place, bounded by the line's end. Sizes carry
 * the unit as printed; "GB" is read as GiB: vLLM and SGLang divide by
 * 2^30 and print "GB" (one vLLM 0.6.6 run prints "14.9595 GB" and
 * "14.96GiB" for the same weights).
 */
#include "parsers/serving/engine_readers.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- numbers ---------------------------------------------------------- */

/* The powers of ten a double holds exactly. */
static const double pow10_exact[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

/* A signed decimal at s (spaces skipped, commas between digits allowed):
 * 0 and *v, *used set; -1 if there is none. The value is strtod's: with
 * at most 15 digits the digits as an integer and the power of ten of the
 * fraction are both exact doubles, so their quotient is the correctly
 * rounded value strtod gives; longer numbers go to strtod. */
static int read_num(const char *s, const char *end, double *v, size_t *used)
{
	const char *p = s;
	char buf[64];
	size_t k = 0;
	int digits = 0, frac = -1, neg = 0;
	uint64_t m = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && (*p == '-' || *p == '+')) {
		neg = *p == '-';
		buf[k++] = *p++;
	}
	while (p < end && k < sizeof(buf) - 1) {
		if (*p >= '0' && *p <= '9') {
			m = m * 10 + (uint64_t)(*p - '0');
			frac += frac >= 0;
			buf[k++] = *p++;
			digits++;
		} else if (*p == ',' && digits && p + 1 < end && p[1] >= '0' && p[1] <= '9' &&
			   frac < 0) {
			p++;
		} else if (*p == '.' && digits && frac < 0 && p + 1 < end &&
			   p[1] >= '0' && p[1] <= '9') {
			frac = 0;
			buf[k++] = *p++;
		} else {
			break;
		}
	}
	if (!digits)
		return -1;
	buf[k] = '\0';
	if (digits <= 15) {
		*v = frac > 0 ? (double)m / pow10_exact[frac] : (double)m;
		if (neg)
			*v = -*v;
	} else {
		*v = strtod(buf, NULL);
	}
	if (used)
		*used = (size_t)(p - s);
	return 0;
}

static const struct { const char *name; double mult; } units[] = {
	{ "TiB", 1099511627776.0 }, { "GiB", 1073741824.0 }, { "MiB", 1048576.0 },
	{ "KiB", 1024.0 }, { "TB", 1099511627776.0 }, { "GB", 1073741824.0 },
	{ "MB", 1048576.0 }, { "KB", 1024.0 }, { "kB", 1024.0 }, { "bytes", 1.0 },
	{ "B", 1.0 }, { "mb", 1048576.0 },   /* Ollama's GPU discovery: MiB */
	{ NULL, 0 }
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

/* The helpers above for the readers kept in other files
 * (engine_readers_trt.c); see engine_readers.h. */
int er_read_num(const char *s, const char *end, double *v, size_t *used)
{
	return read_num(s, end, v, used);
}

const char *er_find(const char *s, const char *end, const char *needle)
{
	return find(s, end, needle);
}

void er_fact(struct engine_line *o, enum engine_fact k, double v)
{
	fact(o, k, v);
}

void er_size_fact(struct engine_line *o, enum engine_fact k, const char *p, const char *end)
{
	size_fact(o, k, p, end);
}

void er_num_fact(struct engine_line *o, enum engine_fact k, const char *p, const char *end)
{
	num_fact(o, k, p, end);
}

double er_pow10(size_t k)
{
	return k < sizeof(pow10_exact) / sizeof(pow10_exact[0]) ? pow10_exact[k] : 0;
}

void er_size(struct engine_line *o, const struct anchor *a, const char *line,
		    const char *p, const char *end)
{
	(void)line;
	size_fact(o, (enum engine_fact)a->arg, p, end);
}

void er_num(struct engine_line *o, const struct anchor *a, const char *line,
		   const char *p, const char *end)
{
	(void)line;
	num_fact(o, (enum engine_fact)a->arg, p, end);
}

void er_error(struct engine_line *o, const struct anchor *a, const char *line,
		     const char *p, const char *end)
{
	(void)line, (void)p, (void)end;
	if (!o->error)
		o->error = (enum engine_error)a->arg;
}

/* A statistic; vLLM prints percentages with "%", SGLang ratios (mult). */
void er_stat(struct engine_line *o, const struct anchor *a, const char *line,
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
void er_concurrency(struct engine_line *o, const struct anchor *a, const char *line,
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
void er_can_use(struct engine_line *o, const struct anchor *a, const char *line,
		       const char *p, const char *end)
{
	const char *q = find(p, end, " = ");

	(void)a, (void)line;
	size_fact(o, EF_REQUESTED, q ? q + 3 : p, end);
}

/* "Free memory on device [cuda:0 ](31.44/47.38 GiB) on startup is less
 * than desired GPU memory utilization (0.95, 45.01 GiB)." The unit after
 * the total is the free figure's too. Only that wording is the error;
 * "... on startup. Desired GPU memory utilization is (0.97, 30.9 GiB)."
 * gives the same facts from a check that passed. */
void er_free_below(struct engine_line *o, const struct anchor *a, const char *line,
			  const char *p, const char *end)
{
	const char *q = find(p, end, "(");
	double f, tnum, t, u, r;
	size_t n1, n2;

	(void)a, (void)line;
	/* the check's ValueError says "on startup is less than desired GPU
	 * memory utilization (0.9, 10.47 GiB)"; newer V1 workers also log the
	 * figures of a check that passed, after the profile: "Free memory on
	 * device (31.23/31.86 GiB) on startup. Desired GPU memory utilization
	 * is (0.97, 30.9 GiB). Actual usage is ..." (vllm/v1/worker/
	 * gpu_worker.py, 2026 indexed copies): the same facts, no error */
	if (find(p, end, "less than desired"))
		o->error = EE_FREE_BELOW_UTILIZATION;
	if (q && read_num(q + 1, end, &f, &n1) == 0 && q + 1 + n1 < end && q[1 + n1] == '/' &&
	    read_num(q + 2 + n1, end, &tnum, &n2) == 0 && tnum > 0 &&
	    read_size(q + 2 + n1, end, &t, NULL) == 0) {
		fact(o, EF_FREE, f * (t / tnum));
		fact(o, EF_TOTAL, t);
	}
	if ((q = find(p, end, "utilization (")) || (q = find(p, end, "utilization is ("))) {
		q = find(q, end, "(");
		if (q && read_num(q + 1, end, &u, &n1) == 0) {
			fact(o, EF_UTILIZATION, u);
			if (q + 1 + n1 < end && q[1 + n1] == ',' &&
			    read_size(q + 2 + n1, end, &r, NULL) == 0)
				fact(o, EF_REQUESTED, r);
		}
	}
}

/* "Initial free memory 31.16 GiB, reserved 4.25 GiB memory for KV Cache" */
void er_initial_free(struct engine_line *o, const struct anchor *a, const char *line,
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
void er_max_seq_len(struct engine_line *o, const struct anchor *a, const char *line,
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
void er_blocks(struct engine_line *o, const struct anchor *a, const char *line,
		      const char *p, const char *end)
{
	(void)line;
	num_fact(o, (enum engine_fact)a->arg, p, end);
	if (o->engine == ENGINE_NONE)
		o->engine = ENGINE_VLLM;
}

/* "Graph capturing finished in 14 secs, took 0.21 GiB" */
void er_graph_took(struct engine_line *o, const struct anchor *a, const char *line,
			  const char *p, const char *end)
{
	const char *q = find(p, end, "took ");

	(void)a, (void)line;
	o->capture = 2;
	if (q)
		size_fact(o, EF_CUDA_GRAPH, q + 5, end);
}

/* A CUDA-graph capture begins (arg 1) or ends (arg 2). */
void er_capture(struct engine_line *o, const struct anchor *a, const char *line,
		       const char *p, const char *end)
{
	(void)line, (void)p, (void)end;
	o->capture = a->arg;
}

/* SGLang "mem usage=X GB": the weights after "Load weight end", the
 * graphs after "Capture cuda graph end". */
void er_mem_usage(struct engine_line *o, const struct anchor *a, const char *line,
			 const char *p, const char *end)
{
	(void)a;
	if (find(line, p, "Load weight end"))
		size_fact(o, EF_WEIGHTS, p, end);
	else if (find(line, p, "Capture cuda graph end"))
		size_fact(o, EF_CUDA_GRAPH, p, end);
}

/* "KV Cache is allocated. [dtype: ..., ]#tokens: N, K size: X GB, V size: Y GB" */
void er_sglang_kv(struct engine_line *o, const struct anchor *a, const char *line,
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
void er_shard_failed(struct engine_line *o, const struct anchor *a, const char *line,
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
void er_preempt(struct engine_line *o, const struct anchor *a, const char *line,
		       const char *p, const char *end)
{
	const char *q = find(p, end, "total_num_cumulative_preemption=");
	double v;

	(void)a, (void)line;
	o->preempted = 1;
	o->swap = (size_t)(end - p) >= 5 && !memcmp(p, ".SWAP", 5);
	if (q && read_num(q + 32, end, &v, NULL) == 0 && v >= 0 && v < 1e15)
		o->preempt_total = (int64_t)v;
}

/* "Not enough memory to handle 4096 prefill tokens" (TGI warm-up) */
void er_prefill_oom(struct engine_line *o, const struct anchor *a, const char *line,
			   const char *p, const char *end)
{
	(void)a, (void)line;
	o->error = EE_PREFILL_OOM;
	num_fact(o, EF_MAX_PREFILL, p, end);
}

/* A version string after the anchor: "0.6.3.post1", "v0.8.3", "0.21.0rc0" */
void er_version(struct engine_line *o, const struct anchor *a, const char *line,
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
void er_rank(struct engine_line *o, const struct anchor *a, const char *line,
		    const char *p, const char *end)
{
	double v;

	(void)a, (void)line;
	if (read_num(p, end, &v, NULL) == 0 && v >= 0 && v < 1e6)
		o->rank = (int)v;
}

/* The engine's configuration, dumped (server_meta.c reads its keys). */
void er_config(struct engine_line *o, const struct anchor *a, const char *line,
		      const char *p, const char *end)
{
	(void)a, (void)line, (void)p, (void)end;
	o->config = 1;
}

/* A phrase that only says whose line it is. */
void er_engine(struct engine_line *o, const struct anchor *a, const char *line,
		      const char *p, const char *end)
{
	(void)o, (void)a, (void)line, (void)p, (void)end;
}

int er_sglang_rank(const char *line, size_t n)
{
	const char *end = line + (n < 64 ? n : 64), *p = line;
	double v;
	size_t u;

	while ((p = find(p, end, "TP"))) {
		if ((p == line || p[-1] == ' ' || p[-1] == '[') &&
		    read_num(p + 2, end, &v, &u) == 0 && p + 2 + u < end && p[2 + u] == ']' &&
		    p[2] >= '0' && p[2] <= '9' && v < 1e6)
			return (int)v;
		p += 2;
	}
	return -1;
}

/* A phrase of the memory-failure recogniser (parsers/serving/memfail.c):
 * the line is marked for it, nothing is read here. */
void er_memfail_mark(struct engine_line *o, const struct anchor *a, const char *line,
		     const char *p, const char *end)
{
	(void)line, (void)p, (void)end;
	o->memfail |= (unsigned)a->arg;
}

/* DeepSpeed's see_memory_usage label: the line is marked for
 * ds_memory_line() (server_deepspeed.h), nothing is read here. */
void er_ds_mark(struct engine_line *o, const struct anchor *a, const char *line,
		const char *p, const char *end)
{
	(void)a, (void)line, (void)p, (void)end;
	o->ds_memory = 1;
}

/* A line of an engine's start-up memory projection (Rapid-MLX's memory
 * pressure warning): its figures (arg 1) marked for srv_pressure_line()
 * (server_pressure.h), its advice (arg 2) for read_with() to drop the
 * settings the advice names; nothing is read here. */
void er_pressure_mark(struct engine_line *o, const struct anchor *a, const char *line,
		      const char *p, const char *end)
{
	(void)line, (void)p, (void)end;
	o->pressure |= a->arg;
}

/* A training loop's log line (the HF Trainer's "{'loss': ...,
 * 'learning_rate': ...}", DeepSpeed's "step=N, skipped=M"): the line is
 * marked for srv_progress_logged() (server_progress.h), nothing is read
 * here. */
void er_train_mark(struct engine_line *o, const struct anchor *a, const char *line,
		   const char *p, const char *end)
{
	(void)a, (void)line, (void)p, (void)end;
	o->train_log = 1;
}

/* ---- llama.cpp (ggml) and Ollama ---------------------------------------- */

/* "offloaded 43/81 layers to GPU" (llm_load_tensors, load_tensors): the
 * layers on the GPUs and the model's. */
void er_ggml_layers(struct engine_line *o, const struct anchor *a, const char *line,
		    const char *p, const char *end)
{
	double on, of;
	size_t u, w;

	(void)a, (void)line;
	if (read_num(p, end, &on, &u) < 0 || p + u >= end || p[u] != '/' ||
	    read_num(p + u + 1, end, &of, &w) < 0 || !find(p + u + 1 + w, end, " layers"))
		return;
	if (on < 0 || of < on || of > 1e5)
		return;
	fact(o, EF_GPU_LAYERS, on);
	fact(o, EF_MODEL_LAYERS, of);
}

/* The word that ends at e (spaces before e skipped) in [line, e): its
 * start in *w and its length; 0 when there is none. */
static size_t word_before(const char *line, const char *e, const char **w)
{
	const char *s;

	while (e > line && e[-1] == ' ')
		e--;
	s = e;
	while (s > line && s[-1] != ' ' && s[-1] != ':' && s[-1] != '\t')
		s--;
	*w = s;
	return (size_t)(e - s);
}

/* 1 for a ggml buffer type on a GPU ("CUDA0", "ROCm1", "Metal", "Vulkan0",
 * "SYCL0"); 0 for the host's ("CPU", "CPU_Mapped", "CUDA_Host"). */
static int ggml_gpu(const char *w, size_t n)
{
	static const char *const gpus[] = { "CUDA", "ROCm", "Metal", "MTL", "Vulkan", "SYCL",
					    "CANN", "MUSA" };
	size_t i, l;

	if (memmem(w, n, "Host", 4) || memmem(w, n, "CPU", 3))
		return 0;
	for (i = 0; i < sizeof(gpus) / sizeof(gpus[0]); i++) {
		l = strlen(gpus[i]);
		if (n >= l && !memcmp(w, gpus[i], l))
			return 1;
	}
	return 0;
}

int er_ggml_gpu(const char *w, size_t n)
{
	return ggml_gpu(w, n);
}

/* "<buffer type> [model|KV|compute] buffer size = 21533.93 MiB": on a
 * GPU's buffer type, the weights, the KV cache or the compute buffer
 * (llm_load_tensors, llama_kv_cache_init, llama_new_context_with_model
 * and their later names); host buffers and "output" buffers are not kept. */
void er_ggml_buffer(struct engine_line *o, const struct anchor *a, const char *line,
		    const char *p, const char *end)
{
	const char *w, *dev;
	size_t n = word_before(line, p - a->len, &w), dn;
	enum engine_fact k = EF_WEIGHTS;
	double v;

	if (!n)
		return;
	dev = w, dn = n;
	if ((n == 2 && !memcmp(w, "KV", 2)) || (n == 7 && !memcmp(w, "compute", 7)) ||
	    (n == 5 && !memcmp(w, "model", 5))) {
		k = w[0] == 'K' ? EF_KV_CACHE : w[0] == 'c' ? EF_COMPUTE_BUFFER : EF_WEIGHTS;
		dn = word_before(line, w, &dev);
	}
	if (!dn || !ggml_gpu(dev, dn) || read_size(p, end, &v, NULL) < 0 || v < 0)
		return;
	fact(o, k, v);
	o->ggml_dev = 0;   /* "Metal": the one; "CUDA1": its index */
	while (dn && isdigit((unsigned char)dev[dn - 1]))
		dn--;
	if (isdigit((unsigned char)dev[dn]))
		o->ggml_dev = atoi(dev + dn);
}

/* "KV self size  = 1005.79 MiB, K (f16): ..." (llama_kv_cache_init,
 * llama_new_context_with_model): the KV cache of every device. */
void er_ggml_kv_total(struct engine_line *o, const struct anchor *a, const char *line,
		      const char *p, const char *end)
{
	(void)line;
	size_fact(o, EF_KV_CACHE, p, end);
	o->ggml_total = 1;
	(void)a;
}

/* "using device CUDA0 (NVIDIA GeForce RTX 3090) - 23306 MiB free"
 * (llama_model_load_from_file_impl), found by its " MiB free": the
 * card's free memory, the number just before the anchor. Also the
 * device list of --list-devices (common/arg.cpp: "  %s: %s (%zu MiB, %zu
 * MiB free)"), "  ROCm0: AMD Radeon(TM) Graphics (110511 MiB, 110357 MiB
 * free)": the card's total and free. */
void er_ggml_free(struct engine_line *o, const struct anchor *a, const char *line,
		  const char *p, const char *end)
{
	const char *e = p - a->len, *q = e, *t;
	double v, total;

	while (q > line && (isdigit((unsigned char)q[-1]) || q[-1] == '.'))
		q--;
	if (q == e || q - line < 3 || read_num(q, e, &v, NULL) < 0 || v < 0)
		return;
	if (!memcmp(q - 3, " - ", 3) && find(line, e, "using device ")) {
		fact(o, EF_FREE, v * 1048576.0);
		return;
	}
	/* the list's "(<total> MiB, <free> MiB free)" closing the line */
	if (q - line < 6 || memcmp(q - 6, " MiB, ", 6) || p >= end || *p != ')')
		return;
	for (t = q - 6; t > line && isdigit((unsigned char)t[-1]); t--)
		;
	if (t == q - 6 || t == line || t[-1] != '(' || read_num(t, q - 6, &total, NULL) < 0 ||
	    total < v)
		return;
	fact(o, EF_FREE, v * 1048576.0);
	fact(o, EF_TOTAL, total * 1048576.0);
}

/* Ollama's own engine (0.9 on), one line per buffer:
 *   msg="model weights" buffer=CUDA0 size="11.5 GiB"
 *   msg="kv cache" device=CUDA0 size="800.0 MiB"
 *   msg="compute graph" backend=CUDA0 buffer_type=CUDA0 size="0 B"
 * a GPU's weights, KV cache or compute buffer (a->arg the fact), as the
 * ggml buffer lines of llama.cpp: host buffers are not kept. */
void er_ollama_buffer(struct engine_line *o, const struct anchor *a, const char *line,
		      const char *p, const char *end)
{
	static const char *const keys[] = { " buffer_type=", " device=", " buffer=" };
	const char *dev = NULL, *q, *sz;
	size_t i, dn = 0;
	double v;

	(void)line;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]) && !dev; i++)
		if ((q = find(p, end, keys[i])))
			dev = q + strlen(keys[i]);
	if (!dev)
		return;
	while (dev + dn < end && dev[dn] != ' ' && dev[dn] != '"')
		dn++;
	if (!dn || !ggml_gpu(dev, dn) || !(sz = find(p, end, " size=")))
		return;
	sz += 6;
	while (sz < end && *sz == '"')
		sz++;
	if (read_size(sz, end, &v, NULL) < 0 || v < 0)
		return;
	fact(o, (enum engine_fact)a->arg, v);
	o->ggml_dev = 0;
	while (dn && isdigit((unsigned char)dev[dn - 1]))
		dn--;
	if (isdigit((unsigned char)dev[dn]))
		o->ggml_dev = atoi(dev + dn);
}

/* Ollama's per-GPU lists: memory.available="[22.0 GiB 22.0 GiB]" (a->arg
 * 0; its first figure is also free_bytes), memory.required.allocations=
 * "[11.4 GiB 0 B]" (a->arg 1): each GPU's figure into o->gpu_list. */
void er_quoted_list(struct engine_line *o, const struct anchor *a, const char *line,
		    const char *p, const char *end)
{
	int k = a->arg ? 1 : 0, n = 0;
	double v;
	size_t u;

	(void)line;
	if (p + 1 >= end || p[0] != '"' || p[1] != '[')
		return;
	for (p += 2; p < end && n < ENGINE_GPU_LIST && *p != ']'; ) {
		while (p < end && *p == ' ')
			p++;
		if (read_size(p, end, &v, &u) < 0 || v < 0 || !u)
			break;
		o->gpu_list[k][n++] = v;
		p += u;
	}
	o->gpu_list_n[k] = n;
	if (!k && n)
		fact(o, EF_FREE, o->gpu_list[0][0]);
}

/* Ollama's scheduler, OLLAMA_DEBUG: msg=evaluating library=cuda
 * gpu_count=2 available="[23.3 GiB 15.5 GiB]": each GPU's free memory,
 * as memory.available (ollama 8377). */
void er_ollama_evaluating(struct engine_line *o, const struct anchor *a, const char *line,
			  const char *p, const char *end)
{
	static const struct anchor list = { .arg = 0 };
	const char *q = find(p, end, " available=");

	(void)a;
	if (q)
		er_quoted_list(o, &list, line, q + 11, end);
}

/* Ollama's offload line: memory.required.full="11.0 GiB" (the first
 * card's figure of a list). */
void er_quoted_size(struct engine_line *o, const struct anchor *a, const char *line,
		    const char *p, const char *end)
{
	double v;

	(void)line;
	while (p < end && (*p == '"' || *p == '['))
		p++;
	if (read_size(p, end, &v, NULL) == 0 && v >= 0)
		fact(o, (enum engine_fact)a->arg, v);
}
