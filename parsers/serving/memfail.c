/*
 * memfail.c -- the generic memory-failure recogniser; see memfail.h.
 *
 * Three tables, each a list of phrases looked for in at most
 * MEMFAIL_SCAN bytes of the line: the phrases that are never a failure
 * (checked first), the wording families (the first that matches names
 * the family; the generic ones at the end need an error marker on the
 * same line and no advice words); the frames and lines that name a phase
 * are phase_table.c's.
 * Every phrase of every table, and the labels of the figures, are in one
 * phrase set (parsers/common/phrases.h): one pass over the line says
 * which it holds, and the tables are then read in their order from that. The wordings come from the engines' and libraries'
 * sources and from the real excerpts under tests/data/real/any_stack.
 * What a line states (bytes requested, device, total, free) is read
 * after a few labels the families share.
 */
#include "parsers/serving/memfail.h"
#include "parsers/serving/engine_lines.h"
#include "parsers/serving/phase_table.h"
#include "parsers/common/phrases.h"
#include "parsers/common/seriesutil.h"

#include <assert.h>
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))

/* Never a failure, whatever else the line says: the kernel's OOM-killer
 * lines (the kernel reader's), settings, warnings that say they are not
 * a failure, a size the engine merely clamps. */
static const char *const not_failures[] = {
	"not a failure", "oom_score_adj", "oom_kill_disable", "invoked oom-killer",
	"Out of memory: Kill", "Memory cgroup out of memory", "is larger than the profiled value",
	"out of memory errors.", "CUDA OOMs:",
	/* ggml_backend_sched_alloc_splits re-reserving a graph whose backends
	 * changed: a debug notice, the reservation follows (llama.cpp #11176) */
	"failed to allocate graph, reserving",
};

#define NEED_ERR 1u     /* an error marker on the line, no advice words */
#define WORD 2u         /* the phrase stands as a word of its own */

static const struct {
	const char *phrase;
	enum memfail_family family;
	unsigned flags;
} families[] = {
	{ "CUDA out of memory occurred when warming up sampler", MF_VLLM_WARMUP, 0 },
	/* TensorRT-LLM's PyExecutor (py_executor_creator.py): the component
	 * that failed and the free memory follow on lines of their own */
	{ "Executor creation failed due to insufficient GPU memory", MF_TRT, 0 },
	{ "might indicate insufficient GPU memory", MF_TRT, 0 },
	{ "MPS backend out of memory", MF_MPS, 0 },
	{ "HIP out of memory", MF_HIP, 0 },
	{ "CUDA out of memory", MF_TORCH, 0 },
	{ "RESOURCE_EXHAUSTED: Out of memory", MF_XLA, 0 },
	{ "Resource exhausted: Out", MF_XLA, 0 },   /* its line may wrap after "Out" */
	/* XLA's TPU runtime and PJRT: a buffer the device could not hold
	 * ("RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting
	 * to allocate 4.39G. That was not possible. There are 2.30G free."),
	 * torch_xla/XRT's "Attempting to reserve N at the bottom of memory",
	 * and the compiler's "Ran out of memory in memory space hbm. Used N
	 * of M hbm. Exceeded hbm capacity by K." */
	{ "Error allocating device buffer", MF_XLA, 0 },
	{ "RESOURCE_EXHAUSTED: Attempting to", MF_XLA, 0 },
	{ "Ran out of memory in memory space", MF_XLA, 0 },
	{ "kIOGPUCommandBufferCallbackErrorOutOfMemory", MF_METAL, 0 },
	{ "cudaMalloc failed: out of memory", MF_CUDA, 0 },
	{ "hipMalloc failed: out of memory", MF_HIP, 0 },
	{ "CUDA runtime error: out of memory", MF_CUDA, 0 },
	{ "CUDA error: out of memory", MF_CUDA, 0 },
	{ "cudaErrorMemoryAllocation", MF_CUDA, 0 },
	{ "CUDA_ERROR_OUT_OF_MEMORY", MF_CUDA, 0 },
	{ "hipErrorOutOfMemory", MF_HIP, 0 },
	{ "hipError_t(1002)", MF_HIP, 0 },
	{ "CUDNN_STATUS_ALLOC_FAILED", MF_CUDNN, 0 },
	{ "CUBLAS_STATUS_ALLOC_FAILED", MF_CUBLAS, 0 },
	{ "Cuda failure 'out of memory'", MF_NCCL, 0 },
	{ "Cuda failure 2 'out of memory'", MF_NCCL, 0 },
	{ "OOM when allocating tensor", MF_TF_BFC, 0 },
	{ "ran out of memory trying to allocate", MF_TF_BFC, 0 },
	{ "failed to allocate CUDA", MF_GGML, 0 },   /* "... CUDA0 buffer of size N" */
	{ "failed to allocate ROCm", MF_GGML, 0 },
	{ "failed to allocate Metal", MF_GGML, 0 },
	{ "unable to allocate CUDA", MF_GGML, 0 },
	{ "unable to allocate ROCm", MF_GGML, 0 },
	/* ggml's Vulkan backend: "ggml_vulkan: Device memory allocation of
	 * size N failed." then vk's "ErrorOutOfDeviceMemory" */
	{ "Device memory allocation of size", MF_GGML, 0 },
	{ "ErrorOutOfDeviceMemory", MF_GGML, 0 },
	{ "memory leak detected!", MF_SGLANG_KV, 0 },
	{ "KV cache pool leak detected", MF_SGLANG_KV, 0 },
	/* the generic wordings: only in an error context */
	{ "out of memory", MF_UNKNOWN, NEED_ERR },
	{ "Out of memory", MF_UNKNOWN, NEED_ERR },
	{ "OUT OF MEMORY", MF_UNKNOWN, NEED_ERR },
	{ "OutOfMemory", MF_UNKNOWN, NEED_ERR },
	{ "OUT_OF_MEMORY", MF_UNKNOWN, NEED_ERR },
	{ "failed to allocate", MF_UNKNOWN, NEED_ERR },
	{ "Failed to allocate", MF_UNKNOWN, NEED_ERR },
	{ "nsufficient memory", MF_UNKNOWN, NEED_ERR },
	{ "nsufficient Memory", MF_UNKNOWN, NEED_ERR },
	{ "OOM", MF_UNKNOWN, NEED_ERR | WORD },
};

/* What makes a generic wording an error, and what makes it advice. */
static const char *const error_markers[] = {
	"error", "Error", "ERROR", "xception", "EXCEPTION", "fatal", "Fatal", "FATAL",
	"abort", "Abort", "ABORT", "panic", "failed", "Failed", "FAILED", "CRITICAL",
};
static const char *const advice_words[] = {
	"to avoid", "To avoid", "avoid ", "If you", "if you", "consider", "Consider", "may cause",
	"can cause", "might ", "--help", "default", "Default", "prevent", "reduce the chance",
};

/* The stacks that print a library's wording (memfail_line()), the label
 * of ggml's exact bytes (memfail_continues()), and ggml's host buffers:
 * its CPU buffer type and aligned malloc (ggml-backend.c, ggml.c) and the
 * graph allocator's "failed to allocate CPU buffer" fail in RAM, not on a
 * card (llama.cpp #8101). */
static const char *const stacks[] = { "ggml_", "[TM]", "[TensorRT-LLM]", "NCCL",
				       "buffer of size ", "ggml_backend_cpu_buffer_type",
				       "ggml_aligned_malloc", "allocate CPU buffer" };
enum { S_GGML, S_TM, S_TRT, S_NCCL, S_BUFFER_OF_SIZE, S_HOST_CPU, S_HOST_ALIGNED,
       S_HOST_GALLOC };

static const char *const family_names[MF__COUNT] = {
	"none", "cuda", "hip", "ggml", "metal", "mps", "xla", "cublas", "cudnn", "nccl", "trt",
	"tf_bfc", "turbomind", "sglang_kv", "vllm_warmup", "torch", "unknown",
};

const char *memfail_family_name(enum memfail_family f)
{
	return (unsigned)f < MF__COUNT ? family_names[f] : "unknown";
}

/* ---- the phrase set ------------------------------------------------------ */

/* Where each table's phrases start in the set; a table's i-th phrase is
 * at its start + i. */
enum { T_NOT, T_FAMILY, T_ERROR, T_ADVICE, T_STACK, T_REQUESTED, T_TOTAL, T_FREE, T_DEVICE,
       T_HINT, T_PHASE_LINE, T_CONTINUES, T__COUNT };

static struct phrases set;
static int table_at[T__COUNT + 1];
static pthread_once_t set_once = PTHREAD_ONCE_INIT;

static void set_build(void);

/* Scan l[0..n) for every phrase of every table. */
static void scan(const char *l, size_t n, struct phrases_found *found)
{
	pthread_once(&set_once, set_build);
	phrases_scan(&set, l, n, found);
}

/* The index in its table of the first phrase of table t found, or -1. */
static int first_of(const struct phrases_found *found, int t)
{
	int i = phrases_first(found, table_at[t], table_at[t + 1]);

	return i < 0 ? -1 : i - table_at[t];
}

static int any_of(const struct phrases_found *found, int t)
{
	return first_of(found, t) >= 0;
}

/* 1 when the i-th phrase of table t is found. */
static int has(const struct phrases_found *found, int t, int i)
{
	return phrases_has(found, table_at[t] + i);
}

static int word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The first occurrence of phrase in l[0..n) standing as a word, or NULL. */
static const char *find_word(const char *l, size_t n, const char *phrase)
{
	size_t k = strlen(phrase);
	const char *p = l, *end = l + n;

	while ((p = mem_find(p, (size_t)(end - p), phrase))) {
		if ((p == l || !word_char(p[-1])) && (p + k == end || !word_char(p[k])))
			return p;
		p += k;
	}
	return NULL;
}

/* ---- figures ------------------------------------------------------------ */

static const struct { const char *unit; double mult; } units[] = {
	{ "bytes", 1 }, { "byte", 1 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 },
	{ "GiB", 1073741824.0 }, { "TiB", 1099511627776.0 }, { "KB", 1024.0 }, { "kB", 1024.0 },
	{ "MB", 1048576.0 }, { "GB", 1073741824.0 }, { "TB", 1099511627776.0 },
	{ "K", 1024.0 }, { "M", 1048576.0 }, { "G", 1073741824.0 }, { "T", 1099511627776.0 },
	{ "B", 1 },
};

/* A size at p (before end): a number, an optional space, a unit (none:
 * bytes, for an integer). "7.35G (7889485824 bytes)" gives the exact
 * bytes in parentheses. Returns the bytes, or -1 when p holds none. */
static int64_t size_at(const char *p, const char *end)
{
	char num[32], *ne;
	size_t k = 0, i, ul;
	double v;
	int frac = 0;
	const char *q;

	while (p < end && *p == ' ')
		p++;
	while (p + k < end && k < sizeof(num) - 1 && (isdigit((unsigned char)p[k]) || p[k] == '.')) {
		frac |= p[k] == '.';
		num[k] = p[k];
		k++;
	}
	if (!k || !isdigit((unsigned char)num[0]))
		return -1;
	num[k] = 0;
	v = strtod(num, &ne);
	q = p + k;
	if (q < end && *q == ' ')
		q++;
	for (i = 0; i < ARRAY_N(units); i++) {
		ul = strlen(units[i].unit);
		if ((size_t)(end - q) >= ul && !memcmp(q, units[i].unit, ul) &&
		    (q + ul == end || !isalpha((unsigned char)q[ul]) || units[i].mult == 1)) {
			q += ul;
			if (units[i].mult > 1 && end - q > 2 && q[0] == ' ' && q[1] == '(') {
				int64_t exact = size_at(q + 2, end);
				if (exact > 0)
					return exact;
			}
			/* beyond int64 (or not a number) is not a size */
			if (!(v * units[i].mult < 9.2e18))
				return -1;
			return (int64_t)(v * units[i].mult + 0.5);
		}
	}
	return frac || !(v < 9.2e18) ? -1 : (int64_t)v;
}

/* The size after the first label of labels (table t of the set, k of
 * them) that has one, or -1; found: what the line holds. */
static int64_t size_after(const char *l, size_t n, const struct phrases_found *found, int t,
			  const char *const *labels, size_t k)
{
	const char *p, *end = l + n;
	int64_t v;
	size_t i;

	for (i = 0; i < k; i++)
		if (has(found, t, (int)i) && (p = mem_find(l, n, labels[i])) &&
		    (v = size_at(p + strlen(labels[i]), end)) >= 0)
			return v;
	return -1;
}

static const char *const requested_labels[] = {
	"Tried to allocate ", "trying to allocate ", "allocating ", "failed to allocate ",
	"buffer of size ", "while trying to allocate ", "allocate ", "allocation of size ",
	"Attempting to reserve ", "Used ",
};
static const char *const total_labels[] = { "total capacity of ", "max allowed: " };
static const char *const free_labels[] = { "of which ", "There are " };
static const char *const device_labels[] = {
	"on device ", "current device: ", "GPU=", "GPU ", "cuda:", "CUDA", "ROCm", "GPU_",
	"device: ", "device ",
};

/* The device index after the first label followed by a digit, or -1. */
static int device_of(const char *l, size_t n, const struct phrases_found *found)
{
	const char *p, *end = l + n;
	size_t i, k;
	int d;

	for (i = 0; i < ARRAY_N(device_labels); i++) {
		if (!has(found, T_DEVICE, (int)i))
			continue;
		k = strlen(device_labels[i]);
		for (p = l; (p = mem_find(p, (size_t)(end - p), device_labels[i])); p += k)
			if (p + k < end && isdigit((unsigned char)p[k])) {
				const char *q = p + k;   /* the line is not NUL-terminated */
				for (d = 0; q < end && isdigit((unsigned char)*q) && d < 4096; q++)
					d = d * 10 + (*q - '0');
				return d < 4096 ? d : -1;
			}
	}
	return -1;
}

static void figures(const char *l, size_t n, const struct phrases_found *found, struct memfail *f)
{
	int d;

	if (f->requested_bytes < 0)
		f->requested_bytes = size_after(l, n, found, T_REQUESTED, requested_labels,
						ARRAY_N(requested_labels));
	if (f->total_bytes < 0)
		f->total_bytes = size_after(l, n, found, T_TOTAL, total_labels,
					    ARRAY_N(total_labels));
	if (f->free_bytes < 0)
		f->free_bytes = size_after(l, n, found, T_FREE, free_labels, ARRAY_N(free_labels));
	if (f->device < 0 && (d = device_of(l, n, found)) >= 0)
		f->device = d;
}

/* ---- phases ------------------------------------------------------------- */

/* The frames and the phase lines of phase_table.c, as the set's tables
 * T_HINT and T_PHASE_LINE: the i-th phrase of each is row hint_row[i]
 * (line_row[i]) of phase_marks[]. Filled once by set_build(). */
#define MARKS_MAX 256
static unsigned short hint_row[MARKS_MAX], line_row[MARKS_MAX];
static size_t hints_n, lines_n;
static int set_overflow;    /* a phrase did not fit the set (memfail_self_check) */

/* The start of the last occurrence of phrase in t[0..n), or NULL. */
static const char *last_find(const char *t, size_t n, const char *phrase)
{
	const char *p = t, *end = t + n, *last = NULL;

	while ((p = mem_find(p, (size_t)(end - p), phrase))) {
		last = p;
		p++;
	}
	return last;
}

/* Where Python starts the next exception of a chain: the cause is
 * printed first, so the first traceback holds the innermost frames. */
static const char *const chain_marks[] = {
	"The above exception was the direct cause of the following exception",
	"During handling of the above exception, another exception occurred",
};

/* The end of the first traceback of a chain in t[0..n) (n when none). */
static size_t chain_cut(const char *t, size_t n)
{
	size_t i, cut = n;
	const char *p;

	for (i = 0; i < ARRAY_N(chain_marks); i++)
		if ((p = mem_find(t, n, chain_marks[i])) && (size_t)(p - t) < cut)
			cut = (size_t)(p - t);
	return cut;
}

/* The phase text t[0..n) names by its frames, found the hints it holds:
 * an engine's frame before a generic one (PM_GENERIC), then the one
 * printed last (the innermost: a Python traceback is most recent call
 * last, llama.cpp's prefixed lines name the function that printed
 * them), a tie to the earlier row. Of a chain of tracebacks the first
 * that names a phase decides (the cause is printed first). *rank: 0 for
 * an engine's frame, 1 for a generic one, 2 for none (lower wins when
 * frames are read a line at a time). */
static enum oom_phase frames_phase(const char *t, size_t n, const struct phrases_found *found,
				   int *rank)
{
	size_t i, from = 0, cut;
	int best = -1, best_level = -1;
	const char *best_at = NULL, *at;

	while (from < n && best < 0) {
		cut = from + chain_cut(t + from, n - from);
		for (i = 0; i < hints_n; i++) {
			const struct phase_mark *m = &phase_marks[hint_row[i]];
			int level = !(m->flags & PM_GENERIC);
			if (!has(found, T_HINT, (int)i) || !(at = last_find(t + from, cut - from, m->phrase)))
				continue;
			if (best < 0 || level > best_level || (level == best_level && at > best_at)) {
				best = (int)i;
				best_level = level;
				best_at = at;
			}
		}
		from = cut + 1;
	}
	*rank = best < 0 ? 2 : 1 - best_level;
	return best < 0 ? OOM_PHASE_UNKNOWN : phase_marks[hint_row[best]].phase;
}

enum oom_phase memfail_phase_hint_ranked(const char *text, size_t n, int *rank)
{
	struct phrases_found found;

	scan(text, n, &found);
	return frames_phase(text, n, &found, rank);
}

enum oom_phase memfail_phase_hint(const char *text, size_t n)
{
	int rank;

	return memfail_phase_hint_ranked(text, n, &rank);
}

/* The training stack a frame or line names, in the order they win: a
 * DeepSpeed job run under transformers' Trainer answers to DeepSpeed's
 * knobs first; ZeRO stage 3 is named by its own partitioner's files. */
static const struct { const char *phrase; int stack; } train_stacks[] = {
	/* DeepSpeed's inference engine (init_inference, its injected
	 * kernels: deepspeed/__init__.py, inference/engine.py,
	 * ops/transformer/inference/ at v0.10.0..v0.18) trains nothing */
	{ "init_inference", MEMFAIL_STACK_INFERENCE },
	{ "deepspeed/inference/", MEMFAIL_STACK_INFERENCE },
	{ "transformer/inference/", MEMFAIL_STACK_INFERENCE },
	{ "deepspeed/module_inject/", MEMFAIL_STACK_INFERENCE },
	{ "model_implementations/", MEMFAIL_STACK_INFERENCE },
	{ "zero/stage3.py", VST_DEEPSPEED_ZERO3 },
	{ "DeepSpeedZeroOptimizer_Stage3", VST_DEEPSPEED_ZERO3 },
	{ "partition_parameters.py", VST_DEEPSPEED_ZERO3 },   /* zero.Init */
	{ "zero.Init", VST_DEEPSPEED_ZERO3 },
	{ "deepspeed/", VST_DEEPSPEED },
	{ "deepspeed.initialize", VST_DEEPSPEED },
	{ "in deepspeed_init", VST_DEEPSPEED },
	{ "pytorch_lightning/", VST_LIGHTNING },
	{ "lightning/pytorch/", VST_LIGHTNING },
	{ "lightning/fabric/", VST_LIGHTNING },
	{ "transformers/trainer", VST_HF_TRAINER },   /* trainer.py, trainer_pt_utils.py */
	{ "_inner_training_loop", VST_HF_TRAINER },
	{ "accelerate/", VST_HF_TRAINER },
	{ "accelerator.backward", VST_HF_TRAINER },
	{ "site-packages/jax/", VST_JAX },
	{ "jax/_src/", VST_JAX },
	{ "jaxlib", VST_JAX },
	{ "/flax/", VST_JAX },   /* site-packages/flax/: anchors are 6 bytes at least */
	{ "XlaRuntimeError", VST_JAX },
	{ "site-packages/keras/", VST_KERAS },
	{ "tensorflow/python/", VST_KERAS },
};

int memfail_stack_hint(const char *text, size_t n, int *rank)
{
	size_t i;

	for (i = 0; i < ARRAY_N(train_stacks); i++)
		if (mem_find(text, n, train_stacks[i].phrase)) {
			*rank = (int)i;
			return train_stacks[i].stack;
		}
	*rank = (int)ARRAY_N(train_stacks);
	return -1;
}

enum oom_phase memfail_phase_line(const char *line, size_t n)
{
	struct phrases_found found;
	int i;

	if (n > MEMFAIL_SCAN)
		n = MEMFAIL_SCAN;
	scan(line, n, &found);
	i = first_of(&found, T_PHASE_LINE);
	return i < 0 ? OOM_PHASE_UNKNOWN : phase_marks[line_row[i]].phase;
}

/* ---- the line ----------------------------------------------------------- */

int memfail_line(const char *l, size_t n, struct memfail *f)
{
	struct phrases_found found;
	size_t i;
	int rank;

	memset(f, 0, sizeof(*f));
	f->requested_bytes = f->total_bytes = f->free_bytes = -1;
	f->device = -1;
	if (n > MEMFAIL_SCAN)
		n = MEMFAIL_SCAN;
	scan(l, n, &found);
	if (any_of(&found, T_NOT))
		return 0;
	for (i = 0; i < ARRAY_N(families); i++) {
		if (!has(&found, T_FAMILY, (int)i) ||
		    ((families[i].flags & WORD) && !find_word(l, n, families[i].phrase)))
			continue;
		if ((families[i].flags & NEED_ERR) &&
		    (!any_of(&found, T_ERROR) || any_of(&found, T_ADVICE)))
			continue;
		break;
	}
	if (i == ARRAY_N(families))
		return 0;
	f->family = families[i].family;
	f->wording = families[i].phrase;
	/* the stack that printed a library's wording */
	if ((f->family == MF_CUDA || f->family == MF_HIP) && has(&found, T_STACK, S_GGML))
		f->family = MF_GGML;
	else if (f->family == MF_CUDA && has(&found, T_STACK, S_TM))
		f->family = MF_TURBOMIND;
	else if (f->family == MF_UNKNOWN && has(&found, T_STACK, S_GGML))
		f->family = MF_GGML;   /* "ggml_backend_cpu_buffer_type_alloc_buffer:
					* failed to allocate buffer of size N" */
	else if (f->family == MF_UNKNOWN && has(&found, T_STACK, S_TRT))
		f->family = MF_TRT;
	else if (f->family == MF_UNKNOWN && has(&found, T_STACK, S_NCCL))
		f->family = MF_NCCL;
	f->host = f->family == MF_GGML && (has(&found, T_STACK, S_HOST_CPU) ||
		  has(&found, T_STACK, S_HOST_ALIGNED) || has(&found, T_STACK, S_HOST_GALLOC));
	figures(l, n, &found, f);
	f->phase = frames_phase(l, n, &found, &rank);
	return 1;
}

#define TRT_TOTAL "Total GPU memory (GiB): "
#define TRT_FREE "Free GPU memory before component creation attempt (GiB): "

/* The lines that go on telling a failure reported the line before; "^":
 * only at the line's start (the rest of a line the terminal wrapped). */
static const char *const continuations[] = {
	"failed to allocate CUDA", "failed to allocate ROCm", "failed to allocate Metal",
	"failed to allocate Vulkan",   /* ggml_gallocr: "%s buffer of size", the backend's name */
	"unable to allocate", "failed to allocate compute", "error loading model",
	"failed to initialize the context", "failed to create context", "failed to load model",
	"retrying without pipeline", "exiting due to model loading error",
	"cleaning up before exit", "current device: ", "in function ggml_", "cuMemCreate(",
	"cuMemAlloc", "GGML_ASSERT", "failed with status 5", "^of memory while trying to allocate",
	"compute buffer allocation failed", "ErrorOutOfDeviceMemory",
	/* llama.cpp's KV cache, after the allocation that failed
	 * (llama_kv_cache_init, later the llama_kv_cache constructors) */
	"failed to allocate buffer for kv cache", "failed for self-attention cache",
	/* ggml's scheduler and llama_decode giving up after a Metal command
	 * buffer failed (Ollama's runner then panics "failed to decode
	 * batch"): the decode of a batch names the phase */
	"ggml_backend_sched_graph_compute_async failed", "llama_decode: failed to decode",
	/* TensorRT-LLM's executor-creation table (the GiB before the figure) */
	"The following component could not be created: ", TRT_TOTAL, TRT_FREE,
};

/* The GiB after label when line l[0..n) holds it, as bytes; -1 when it
 * holds none. */
static int64_t gib_after(const char *l, size_t n, const char *label)
{
	const char *p = mem_find(l, n, label), *end = l + n;
	char num[24];
	size_t k = 0;

	if (!p)
		return -1;
	for (p += strlen(label); p < end && k < sizeof(num) - 1 &&
	     (isdigit((unsigned char)*p) || *p == '.'); p++)
		num[k++] = *p;
	num[k] = '\0';
	return k ? (int64_t)(strtod(num, NULL) * 1073741824.0) : -1;
}

int memfail_continues(const char *l, size_t n, struct memfail *f)
{
	struct phrases_found found;
	enum oom_phase ph;
	size_t i;
	int rank;

	if (n > MEMFAIL_SCAN)
		n = MEMFAIL_SCAN;
	scan(l, n, &found);
	for (i = 0; i < ARRAY_N(continuations); i++) {
		const char *c = continuations[i], *p;
		if (has(&found, T_CONTINUES, (int)i) &&
		    (c[0] != '^' || ((p = mem_find(l, n, c + 1)) && p - l <= 8)))
			break;
	}
	if (i == ARRAY_N(continuations))
		return 0;
	if (f->total_bytes < 0 && !strcmp(continuations[i], TRT_TOTAL))
		f->total_bytes = gib_after(l, n, TRT_TOTAL);
	if (f->free_bytes < 0 && !strcmp(continuations[i], TRT_FREE))
		f->free_bytes = gib_after(l, n, TRT_FREE);
	if (has(&found, T_STACK, S_BUFFER_OF_SIZE)) {   /* the exact bytes of "allocating X MiB" */
		const char *p = mem_find(l, n, stacks[S_BUFFER_OF_SIZE]);
		int64_t exact = p ? size_at(p + strlen(stacks[S_BUFFER_OF_SIZE]), l + n) : -1;
		if (exact > 0)
			f->requested_bytes = exact;
	}
	figures(l, n, &found, f);
	ph = frames_phase(l, n, &found, &rank);
	/* llama.cpp logs the callee first: the first phase named wins, but
	 * a failure inside a served request's call is a serving one */
	if (ph != OOM_PHASE_UNKNOWN && (f->phase == OOM_PHASE_UNKNOWN || ph == OOM_PHASE_SERVING))
		f->phase = ph;
	return 1;
}

/* Add phrase ph to the set; a set too small is noted (memfail_self_check). */
static void add_phrase(const char *ph)
{
	if (phrases_add(&set, ph) < 0)
		set_overflow = 1;
}

/* Add table t, k phrases of stride bytes each (the phrase a const char *
 * at the start of each), to the set. */
static void add_table(int t, const void *first, size_t k, size_t stride)
{
	size_t i;

	table_at[t] = (int)set.n;
	for (i = 0; i < k; i++) {
		const char *ph = *(const char *const *)(const void *)((const char *)first + i * stride);
		add_phrase(ph + (t == T_CONTINUES && ph[0] == '^'));
	}
	table_at[t + 1] = (int)set.n;
}

/* Add phase_table.c's rows of kind k as table t, their rows in row[]. */
static void add_marks(int t, unsigned k, unsigned short *row, size_t *n)
{
	size_t i;

	*n = 0;
	table_at[t] = (int)set.n;
	for (i = 0; i < phase_marks_n; i++)
		if (phase_marks[i].kind == k) {
			if (*n == MARKS_MAX) {
				set_overflow = 1;
				break;
			}
			row[(*n)++] = (unsigned short)i;
			add_phrase(phase_marks[i].phrase);
		}
	table_at[t + 1] = (int)set.n;
}

#define ADD(t, a) add_table(t, &(a)[0], ARRAY_N(a), sizeof((a)[0]))

/* The phrase set of every table, in enum order. */
static void set_build(void)
{
	phrases_init(&set);
	ADD(T_NOT, not_failures);
	ADD(T_FAMILY, families);
	ADD(T_ERROR, error_markers);
	ADD(T_ADVICE, advice_words);
	ADD(T_STACK, stacks);
	ADD(T_REQUESTED, requested_labels);
	ADD(T_TOTAL, total_labels);
	ADD(T_FREE, free_labels);
	ADD(T_DEVICE, device_labels);
	add_marks(T_HINT, PM_FRAME, hint_row, &hints_n);
	add_marks(T_PHASE_LINE, PM_LINE, line_row, &lines_n);
	ADD(T_CONTINUES, continuations);
}

int memfail_self_check(void)
{
	size_t i;

	pthread_once(&set_once, set_build);
	if (set_overflow)
		return -1;
	for (i = 0; i < phase_marks_n; i++)
		if (strlen(phase_marks[i].phrase) < 6 || !phase_marks[i].engine ||
		    !phase_marks[i].versions || !phase_marks[i].source)
			return -1;
	return 0;
}

void memfail_each_phrase(void (*fn)(const char *phrase, unsigned mark, void *arg), void *arg)
{
	size_t i;

	for (i = 0; i < ARRAY_N(families); i++)
		if (strlen(families[i].phrase) >= 6)
			fn(families[i].phrase, MEMFAIL_MARK_FAILURE, arg);
	for (i = 0; i < ARRAY_N(continuations); i++)
		fn(continuations[i] + (continuations[i][0] == '^'), MEMFAIL_MARK_CONTINUES, arg);
	for (i = 0; i < phase_marks_n; i++)
		fn(phase_marks[i].phrase, MEMFAIL_MARK_PHASE, arg);
	for (i = 0; i < ARRAY_N(train_stacks); i++)
		fn(train_stacks[i].phrase, MEMFAIL_MARK_PHASE, arg);
}
