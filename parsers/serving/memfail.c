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
 * which it holds, and the tables are then read in their order from that.
 * The wordings (memfail_words.c) come from the engines' and libraries'
 * sources and from the real excerpts under tests/data/real/any_stack.
 * What a line states (bytes requested, device, total, free) is read
 * after a few labels the families share.
 */
#include "parsers/serving/memfail.h"
#include "parsers/serving/memfail_words.h"
#include "parsers/serving/memfail_set.h"
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


/* ---- the phrase set ------------------------------------------------------ */

static struct phrases set;
static int table_at[T__COUNT + 1];
static pthread_once_t set_once = PTHREAD_ONCE_INIT;

unsigned short memfail_hint_row[MARKS_MAX], memfail_line_row[MARKS_MAX],
	memfail_after_row[MARKS_MAX];
size_t memfail_hints_n, memfail_lines_n, memfail_afters_n;
static int set_overflow;    /* a phrase did not fit the set (memfail_self_check) */

static void set_build(void);

void memfail_set_scan(const char *l, size_t n, struct phrases_found *found)
{
	pthread_once(&set_once, set_build);
	phrases_scan(&set, l, n, found);
}

int memfail_set_table_at(int t)
{
	return table_at[t];
}

int memfail_set_first_of(const struct phrases_found *found, int t)
{
	int i = phrases_first(found, table_at[t], table_at[t + 1]);

	return i < 0 ? -1 : i - table_at[t];
}

int memfail_set_has(const struct phrases_found *found, int t, int i)
{
	return phrases_has(found, table_at[t] + i);
}

static int any_of(const struct phrases_found *found, int t)
{
	return memfail_set_first_of(found, t) >= 0;
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

/* 1 when l[0..n) begins, after blanks, with phrase as a word: Python's
 * bare "MemoryError" closing a traceback. */
static int starts_line(const char *l, size_t n, const char *phrase)
{
	size_t i = 0, k = strlen(phrase);

	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	return n - i >= k && !memcmp(l + i, phrase, k) && (i + k == n || !word_char(l[i + k]));
}

/* 1 if phrase closes the line (blanks after it allowed): a class name
 * standing as a field's value, not one quoted inside a sentence. */
static int ends_line(const char *l, size_t n, const char *phrase)
{
	size_t k = strlen(phrase);

	while (n > 0 && (l[n - 1] == ' ' || l[n - 1] == '\t' || l[n - 1] == '\r'))
		n--;
	return n >= k && !memcmp(l + n - k, phrase, k) && (n == k || !word_char(l[n - k - 1]));
}

/* ---- figures ------------------------------------------------------------ */

static const struct { const char *unit; double mult; } units[] = {
	{ "bytes", 1 }, { "byte", 1 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 },
	{ "GiB", 1073741824.0 }, { "TiB", 1099511627776.0 }, { "KB", 1024.0 }, { "kB", 1024.0 },
	{ "MB", 1048576.0 }, { "GB", 1073741824.0 }, { "TB", 1099511627776.0 },
	{ "K", 1024.0 }, { "M", 1048576.0 }, { "G", 1073741824.0 }, { "T", 1099511627776.0 },
	{ "B", 1 },
};

/* Wordings whose "GB", "MB", "KB", "TB" are powers of ten, as their
 * source prints them; any other "GB" is read as GiB (vLLM, SGLang's
 * device figures and DeepSpeed divide by 2^30 and print "GB"). */
static const char *const decimal_labels[] = {
	/* SGLang's host KV pool (python/sglang/srt/mem_cache/
	 * memory_pool_host.py@v0.4.9 to v0.5.x HostKVCache.__init__):
	 * "Requesting {requested_bytes / 1e9:.2f} GB" */
	"Requesting ",
};

/* Whether label's sizes are printed in powers of ten. */
static int decimal_label(const char *label)
{
	size_t i;

	for (i = 0; i < ARRAY_N(decimal_labels); i++)
		if (!strcmp(label, decimal_labels[i]))
			return 1;
	return 0;
}

/* A size at p (before end): a number, an optional space, a unit (none:
 * bytes, for an integer). "7.35G (7889485824 bytes)" gives the exact
 * bytes in parentheses. dec: "KB", "MB", "GB", "TB" are 10^3..10^12 (the
 * wording's source divides by 1e9), else 2^10..2^40. Returns the bytes,
 * or -1 when p holds none. */
static int64_t size_at(const char *p, const char *end, int dec)
{
	double mult;

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
				int64_t exact = size_at(q + 2, end, 0);
				if (exact > 0)
					return exact;
			}
			mult = units[i].mult;
			if (dec && ul == 2 && units[i].unit[1] == 'B')   /* KB, kB, MB, GB, TB */
				mult = mult == 1024.0 ? 1e3 : mult == 1048576.0 ? 1e6
				     : mult == 1073741824.0 ? 1e9 : 1e12;
			/* beyond int64 (or not a number) is not a size */
			if (!(v * mult < 9.2e18))
				return -1;
			return (int64_t)(v * mult + 0.5);
		}
	}
	return frac || !(v < 9.2e18) ? -1 : (int64_t)v;
}

/* The size that ends just before p (l <= p): PyTorch 1.x's and IPEX's
 * "(GPU 0; 15.56 GiB total capacity; ... 145.93 MiB free; ...)". -1
 * when none does. */
static int64_t size_before(const char *l, const char *p)
{
	const char *q = p;

	while (q > l && q[-1] == ' ')
		q--;
	while (q > l && isalpha((unsigned char)q[-1]))
		q--;
	if (q > l && q[-1] == ' ')
		q--;
	while (q > l && (isdigit((unsigned char)q[-1]) || q[-1] == '.'))
		q--;
	return q < p && isdigit((unsigned char)*q) ? size_at(q, p, 0) : -1;
}

/* The size after the first label of labels (table t of the set, k of
 * them) that has one, or -1; found: what the line holds. A label that
 * starts with '<' follows its size ("<total capacity;"). */
static int64_t size_after(const char *l, size_t n, const struct phrases_found *found, int t,
			  const char *const *labels, size_t k)
{
	const char *p, *end = l + n, *label;
	int64_t v;
	size_t i;

	for (i = 0; i < k; i++) {
		label = labels[i] + (labels[i][0] == '<');
		if (!memfail_set_has(found, t, (int)i))
			continue;
		/* "can't allocate memory: you tried to allocate N bytes" */
		for (p = l; (p = mem_find(p, (size_t)(end - p), label)); p += strlen(label)) {
			v = labels[i][0] == '<' ? size_before(l, p)
			    : size_at(p + strlen(label), end, decimal_label(label));
			if (v >= 0)
				return v;
		}
	}
	return -1;
}

static const char *const requested_labels[] = {
	"Tried to allocate ", "trying to allocate ", "allocating ", "failed to allocate ",
	"buffer of size ", "while trying to allocate ", "allocate ", "allocation of size ",
	"Attempting to reserve ", "Used ",
	/* XLA's device allocator, NCCL's, TensorRT's, ggml Metal's, Ollama's */
	"request for ", "calloc ", "malloc ", "host alloc ", "Requested size was ", "GPU memory (",
	"buffer, size = ", "system memory (",
	/* Gaudi's bridge: "Allocation failed for size::268435456 (256)MB" */
	"Allocation failed for size::",
	/* SGLang's host KV pool (mem_cache/memory_pool_host.py): "Requesting
	 * X GB but only have Y GB free" -- Y is the host's available memory
	 * less a 10 GiB reserve, so it is not read as the free figure (X < Y
	 * fails too) */
	"Requesting ",
	/* MIOpen's and MIGraphX's "Memory not available to allocate buffer: N" */
	"allocate buffer: ",
	/* ds4's "ds4: CUDA q8 fp16 cache alloc failed (64.00 MiB): out of
	 * memory" (antirez/ds4 ds4_cuda.cu@8d57664 cuda_q8_f16_ptr) */
	"alloc failed (",
	/* OpenVINO's GPU plugin (ocl_engine.cpp@2024.0, engine.cpp): "Required
	 * N bytes", "requested N bytes" */
	"Required ", "requested ",
	/* set 15 spent (w-spend15a): ggml's context pool, "(needed N,
	 * available M)" (ggml.c ggml_new_object, ggerganov/ggml@v0.0.1) */
	"pool (needed ",
	/* readers19: torch-directml's "Could not allocate tensor with N
	 * bytes."; MindSpore's "..., alloc size: NB." (runtime actors, 2.x) */
	"allocate tensor with ", "alloc size: ",
	/* MindSpore's Ascend adapter: "Malloc device memory failed, size[N]" */
	"failed, size[",
};
static const char *const total_labels[] = {
	"total capacity of ", "max allowed: ", "<total capacity;",
	/* XLA's TPU runtime, the line after its reservation failed */
	"HBM capacity ",
	/* OpenVINO's GPU plugin: its budget, the host's RAM (and a discrete
	 * card's memory) */
	"available memory size is ",
	/* readers19: MindSpore's Ascend adapter, "Device D Available HBM
	 * size:T free size:F" -- T is rtMemGetInfoEx's total */
	"Available HBM size:",
};
static const char *const free_labels[] = { "of which ", "There are ", "< free;",
	/* ggml's context pool: the bytes left in it (w-spend15a) */
	", available ",
	/* readers19: PaddlePaddle 2.x's CUDA allocator (paddle/fluid/memory/
	 * allocation/cuda_allocator.cc@v2.4.0, later paddle/phi/core/memory/
	 * allocation/: "Out of memory error on GPU %d. Cannot allocate %s
	 * memory on GPU %d, %s memory has been allocated and available memory
	 * is only %s.") -- the card's free memory; the "allocated" figure is
	 * Paddle's own use, not a total */
	"available memory is only ",
	/* readers19: MindSpore's Ascend adapter (above) */
	" free size:" };
static const char *const device_labels[] = {
	"on device ", "current device: ", "GPU=", "GPU ", "cuda:", "CUDA", "ROCm", "GPU_",
	"device: ", "device ", "device ordinal ", "NPU ",
	/* readers19: MindSpore's "Device(id:0) memory isn't enough", its
	 * Ascend adapter's "Device 0 Available HBM size:" (last: any label
	 * above wins) */
	"Device(id:", "Device ",
};

/* The device index after the first label followed by a digit, or -1. */
static int device_of(const char *l, size_t n, const struct phrases_found *found)
{
	const char *p, *end = l + n;
	size_t i, k;
	int d;

	for (i = 0; i < ARRAY_N(device_labels); i++) {
		if (!memfail_set_has(found, T_DEVICE, (int)i))
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

/* XLA's TPU compiler: "Used 9.08G of 7.48G hbm." -- the HBM is the size
 * after " of " that follows the program's size; -1 when l[0..n) has
 * none. */
static int64_t used_of(const char *l, size_t n)
{
	const char *p = mem_find(l, n, "Used "), *end = l + n;

	if (!p)
		return -1;
	for (p += 5; p < end && (isdigit((unsigned char)*p) || *p == '.' || isalpha((unsigned char)*p));
	     p++)
		;
	if (end - p < 4 || memcmp(p, " of ", 4))
		return -1;
	return size_at(p + 4, end, 0);
}

static void figures(const char *l, size_t n, const struct phrases_found *found, struct memfail *f)
{
	int d;

	if (f->total_bytes < 0 && f->family == MF_XLA)
		f->total_bytes = used_of(l, n);

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

/* ---- the line ----------------------------------------------------------- */

/* The phase a line printed before the failure names when it shares the
 * failure's line: a progress bar is drawn with a carriage return and no
 * newline (tqdm's status printer), so the next message a process prints
 * lands after it on the same line (verl's "Training Progress: 10%|...|
 * 116/1155 [...]" then the raylet's OOM report). The phase line's phrase
 * must stand before the failure's wording (wording, the memfail_words
 * row that matched); OOM_PHASE_UNKNOWN when none does. */
static enum oom_phase glued_phase(const char *l, size_t n, const struct phrases_found *found,
				  const char *wording)
{
	const char *at, *w;
	int k = memfail_first_line(l, n, found);

	if (k < 0 || !wording || !(w = mem_find(l, n, wording)) ||
	    !(at = mem_find(l, n, phase_marks[memfail_line_row[k]].phrase)) || at >= w)
		return OOM_PHASE_UNKNOWN;
	return phase_marks[memfail_line_row[k]].phase;
}

/* The plain integer after label in l[0..n), or -1 when none (or past
 * int64). */
static int64_t int_after(const char *l, size_t n, const char *label)
{
	const char *p = mem_find(l, n, label), *end = l + n;
	int64_t v = 0;
	int k = 0;

	if (!p)
		return -1;
	for (p += strlen(label); p < end && isdigit((unsigned char)*p) && k < 18; p++, k++)
		v = v * 10 + (*p - '0');
	return k ? v : -1;
}

/* The BFC allocator's summary line (bfc_allocator.cc DumpMemoryLog):
 * its memory_limit_ is the allocator's total, its available bytes
 * (limit less the regions allocated) what was free of it. */
static void bfc_summary_figures(const char *l, size_t n, struct memfail *f)
{
	if (f->total_bytes < 0)
		f->total_bytes = int_after(l, n, " memory_limit_: ");
	if (f->free_bytes < 0)
		f->free_bytes = int_after(l, n, " available bytes: ");
}

int memfail_line(const char *l, size_t n, struct memfail *f)
{
	struct phrases_found found;
	int on[MFS__COUNT], k, rank;
	unsigned flags;
	size_t i;

	memset(f, 0, sizeof(*f));
	f->requested_bytes = f->total_bytes = f->free_bytes = -1;
	f->device = -1;
	if (n > MEMFAIL_SCAN)
		n = MEMFAIL_SCAN;
	memfail_set_scan(l, n, &found);
	if (any_of(&found, T_NOT))
		return 0;
	for (i = 0; i < memfail_words_n; i++) {
		const struct memfail_word *w = &memfail_words[i];
		if (!memfail_set_has(&found, T_FAMILY, (int)i) ||
		    ((w->flags & MFW_WORD) && !find_word(l, n, w->phrase)) ||
		    ((w->flags & MFW_START) && !starts_line(l, n, w->phrase)) ||
		    ((w->flags & MFW_END) && !ends_line(l, n, w->phrase)) ||
		    ((w->flags & MFW_ENOMEM) && !find_word(l, n, "error 12") &&
		     !find_word(l, n, "ENOMEM")))
			continue;
		if ((w->flags & MFW_NEED_ERR) &&
		    (!any_of(&found, T_ERROR) || any_of(&found, T_ADVICE)))
			continue;
		break;
	}
	if (i == memfail_words_n)
		return 0;
	/* the stack that printed a library's wording */
	for (k = 0; k < MFS__COUNT; k++)
		on[k] = memfail_set_has(&found, T_STACK, k);
	f->family = memfail_stack_family(memfail_words[i].family, on);
	f->wording = memfail_words[i].phrase;
	/* a generic wording under its backend's name, named before it as
	 * what failed ("ROCm tensor alloc failed: out of memory"): that
	 * backend's. A backend named after the wording is a figure's label
	 * ("Free (according to CUDA)" in PyTorch's message), not the subject */
	if (f->family == MF_UNKNOWN) {
		const char *at = mem_find(l, n, f->wording);
		size_t before = at ? (size_t)(at - l) : 0;
		for (k = 0; f->family == MF_UNKNOWN && k < (int)memfail_backends_n; k++)
			if (find_word(l, before, memfail_backends[k].word))
				f->family = memfail_backends[k].family;
	}
	/* host memory: the host's allocators, and ggml's CPU buffer type, its
	 * aligned malloc and the graph allocator's CPU buffer (ggml-backend.c,
	 * ggml.c: llama.cpp #8101), and a wording that names the system's
	 * memory (Ollama's llm/server.go "model requires more system memory") */
	f->host = f->family == MF_HOST || (memfail_words[i].flags & MFW_HOST) ||
		  (f->family == MF_GGML && (on[MFS_HOST_CPU] || on[MFS_HOST_ALIGNED] ||
					    on[MFS_HOST_GALLOC]));
	f->scope = memfail_scope(f->family, f->host, l, n, VSC_GPU);
	figures(l, n, &found, f);
	if (f->family == MF_TF_BFC && !strcmp(f->wording, "total_region_allocated_bytes_:"))
		bfc_summary_figures(l, n, f);
	f->phase = memfail_frames_phase(l, n, &found, &rank, &flags);
	f->phase_inside = f->phase != OOM_PHASE_UNKNOWN && (flags & PM_INSIDE);
	/* a handler's words wrapping the failure on its own line ("Error
	 * while loading model: CUDA out of memory ...") name its stage */
	if (f->phase == OOM_PHASE_UNKNOWN)
		f->phase = memfail_after_phase(l, n, &found);
	if (f->phase == OOM_PHASE_UNKNOWN)
		f->phase = glued_phase(l, n, &found, f->wording);
	if (f->family == MF_MLC)
		f->phase = memfail_mlc_phase(l, n, f->phase);
	return 1;
}

#define TRT_TOTAL "Total GPU memory (GiB): "
#define TRT_FREE "Free GPU memory before component creation attempt (GiB): "

/* The lines that go on telling a failure reported the line before; "^":
 * only at the line's start (the rest of a line the terminal wrapped). */
static const char *const continuations[] = {
	"failed to allocate CUDA", "failed to allocate ROCm", "failed to allocate Metal",
	"failed to allocate Vulkan",   /* ggml_gallocr: "%s buffer of size", the backend's name */
	/* set 4, spent round 4: the same for ggml's CPU buffer type, whose
	 * name is "CPU" (ggml-alloc.c ggml_gallocr_reserve_n and
	 * alloc_tensor_range, "%s: failed to allocate %s buffer of size %zu",
	 * after ggml_backend_cpu_buffer_type_alloc_buffer's own "failed to
	 * allocate buffer" in ggml-backend.cpp): the caller names the phase */
	"failed to allocate CPU",
	"unable to allocate", "failed to allocate compute", "error loading model",
	"failed to initialize the context", "failed to create context", "failed to load model",
	"retrying without pipeline", "exiting due to model loading error",
	"cleaning up before exit", "current device: ", "in function ggml_", "cuMemCreate(",
	"cuMemAlloc", "GGML_ASSERT", "failed with status 5", "^of memory while trying to allocate",
	"compute buffer allocation failed", "ErrorOutOfDeviceMemory",
	/* llama.cpp's KV cache, after the allocation that failed
	 * (llama_kv_cache_init, later the llama_kv_cache constructors) */
	"failed to allocate buffer for kv cache", "failed for self-attention cache",
	"failed to allocate buffer for rs cache",   /* the recurrent state's (w-spent8s) */
	/* TensorRT's allocator after its [E] line: the bytes it wanted */
	"Requested amount of GPU memory",
	/* ggml's scheduler and llama_decode giving up after a Metal command
	 * buffer failed (Ollama's runner then panics "failed to decode
	 * batch"): the decode of a batch names the phase */
	"ggml_backend_sched_graph_compute_async failed", "llama_decode: failed to decode",
	/* llama.cpp's server after either (round 17, w-spike18): "failed to
	 * decode the batch: KV cache is full ..., ret = -3" */
	"failed to decode the batch",
	/* TensorRT-LLM's executor-creation table (the GiB before the figure) */
	"The following component could not be created: ", TRT_TOTAL, TRT_FREE,
	/* XLA's TPU report after its failure (the TPU runtime's reservation:
	 * "HBM capacity 8.00G:"; the compiler's "Total hbm usage >= N:",
	 * "Program hbm requirement N:", "Largest program allocations in
	 * hbm:"): the memory was a TPU's HBM */
	"HBM capacity ", "Total hbm usage", "Program hbm requirement",
	"Largest program allocations in hbm",
	/* TensorFlow's BFC allocator's summary after "ran out of memory
	 * trying to allocate" (BFCAllocator::DumpMemoryLog: its bins, chunks
	 * and "Sum Total of in-use chunks", each a log line of that file,
	 * then AllocatorStats::DebugString's "Limit:", "InUse:", ...
	 * lines without a prefix; tensorflow/core/common_runtime/
	 * bfc_allocator.cc and framework/allocator.cc@v1.12.0,v2.4.0): the
	 * failure held goes on to the kernel's line after it */
	"common_runtime/bfc_allocator.cc", "^Limit:", "^InUse:", "^MaxInUse:", "^NumAllocs:",
	"^MaxAllocSize:", "^Reserved:", "^PeakReserved:", "^LargestFreeBlock:",
};

/* The GiB after label when line l[0..n) holds it, as bytes; -1 when it
 * holds none. */
static int64_t gib_after(const char *l, size_t n, const char *label)
{
	const char *p = mem_find(l, n, label), *end = l + n;
	char num[24];
	size_t k = 0;
	double v;

	if (!p)
		return -1;
	for (p += strlen(label); p < end && k < sizeof(num) - 1 &&
	     (isdigit((unsigned char)*p) || *p == '.'); p++)
		num[k++] = *p;
	num[k] = '\0';
	v = k ? strtod(num, NULL) * 1073741824.0 : -1;
	/* a figure past int64 (a corrupt or hostile line) is no figure: the
	 * cast would be undefined (found by fuzz_memfail) */
	return v >= 0 && v < 9.0e18 ? (int64_t)v : -1;
}

int memfail_continues(const char *l, size_t n, struct memfail *f)
{
	struct phrases_found found;
	enum oom_phase ph;
	size_t i;
	int rank;
	unsigned flags;

	if (n > MEMFAIL_SCAN)
		n = MEMFAIL_SCAN;
	memfail_set_scan(l, n, &found);
	for (i = 0; i < ARRAY_N(continuations); i++) {
		const char *c = continuations[i], *p;
		if (memfail_set_has(&found, T_CONTINUES, (int)i) &&
		    (c[0] != '^' || ((p = mem_find(l, n, c + 1)) && p - l <= 8)))
			break;
	}
	if (i == ARRAY_N(continuations))
		return 0;
	if (f->total_bytes < 0 && !strcmp(continuations[i], TRT_TOTAL))
		f->total_bytes = gib_after(l, n, TRT_TOTAL);
	if (f->free_bytes < 0 && !strcmp(continuations[i], TRT_FREE))
		f->free_bytes = gib_after(l, n, TRT_FREE);
	/* the exact bytes of "allocating X MiB" */
	if (memfail_set_has(&found, T_STACK, MFS_BUFFER_OF_SIZE)) {
		const char *p = mem_find(l, n, memfail_stacks[MFS_BUFFER_OF_SIZE]);
		int64_t exact = p ? size_at(p + strlen(memfail_stacks[MFS_BUFFER_OF_SIZE]), l + n, 0) : -1;
		if (exact > 0)
			f->requested_bytes = exact;
	}
	f->scope = memfail_scope(f->family, f->host, l, n, f->scope);
	figures(l, n, &found, f);
	ph = memfail_frames_phase(l, n, &found, &rank, &flags);
	/* llama.cpp logs the callee first: the first phase named wins, but
	 * a failure inside a served request's call is a serving one, and a
	 * stage named wins over start-up alone (TensorRT-LLM's "Executor
	 * creation failed", then the component that could not be created) */
	if (ph != OOM_PHASE_UNKNOWN && (f->phase == OOM_PHASE_UNKNOWN || ph == OOM_PHASE_SERVING ||
					 (f->phase == OOM_PHASE_STARTUP && ph != OOM_PHASE_STARTUP))) {
		f->phase = ph;
		f->phase_inside = (flags & PM_INSIDE) != 0;
	}
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
		add_phrase(ph + ((t == T_CONTINUES && ph[0] == '^') || ph[0] == '<'));
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
	add_table(T_NOT, memfail_not_failures, memfail_not_failures_n, sizeof(char *));
	add_table(T_FAMILY, memfail_words, memfail_words_n, sizeof(memfail_words[0]));
	add_table(T_ERROR, memfail_error_markers, memfail_error_markers_n, sizeof(char *));
	add_table(T_ADVICE, memfail_advice_words, memfail_advice_words_n, sizeof(char *));
	add_table(T_STACK, memfail_stacks, MFS__COUNT, sizeof(char *));
	ADD(T_REQUESTED, requested_labels);
	ADD(T_TOTAL, total_labels);
	ADD(T_FREE, free_labels);
	ADD(T_DEVICE, device_labels);
	add_marks(T_HINT, PM_FRAME, memfail_hint_row, &memfail_hints_n);
	add_marks(T_PHASE_LINE, PM_LINE, memfail_line_row, &memfail_lines_n);
	ADD(T_CONTINUES, continuations);
	add_marks(T_AFTER, PM_AFTER, memfail_after_row, &memfail_afters_n);
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

	for (i = 0; i < memfail_words_n; i++)
		if (strlen(memfail_words[i].phrase) >= 6)
			fn(memfail_words[i].phrase, MEMFAIL_MARK_FAILURE, arg);
	for (i = 0; i < ARRAY_N(continuations); i++)
		fn(continuations[i] + (continuations[i][0] == '^'), MEMFAIL_MARK_CONTINUES, arg);
	for (i = 0; i < phase_marks_n; i++)
		fn(phase_marks[i].phrase, MEMFAIL_MARK_PHASE |
		   (phase_marks[i].flags & (PM_RESTART | PM_RELOAD) ? MEMFAIL_MARK_RESTART : 0u),
		   arg);
	/* a traceback's frame line ('File "x.py", line 3, in f'): its
	 * names may place a failure where no header opened a traceback
	 * (a paste of its last frames; frame_words.c, set 16 spent,
	 * w-spend16a) */
	fn("\", line ", MEMFAIL_MARK_PHASE, arg);
	memfail_stack_each_phrase(fn, arg);
}
