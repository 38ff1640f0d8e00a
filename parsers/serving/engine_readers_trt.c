/*
 * engine_readers_trt.c -- the readers of engine_lines.c for what
 * TensorRT-LLM prints of its memory (the C++ runtime's KV-cache sizing
 * lines, the PyTorch backend's executor-creation table and its KV-cache
 * share), its error lines, and the share its settings give the cache.
 * Same contract as engine_readers.c, whose number helpers they use
 * (engine_readers.h).
 */
#include "parsers/serving/engine_readers.h"

#include <ctype.h>
#include <string.h>

/* TensorRT-LLM "[MemUsageChange] Allocated 18.75 GiB for max tokens in
 * paged KV cache (245760)." -- the size precedes the anchor. */
void er_trt_paged(struct engine_line *o, const struct anchor *a, const char *line,
			 const char *p, const char *end)
{
	const char *q = er_find(line, p, "Allocated ");

	(void)a;
	if (q)
		er_size_fact(o, EF_KV_CACHE, q + 10, p);
	er_num_fact(o, EF_KV_TOKENS, p, end);
}

/* "Allocate 69524783104 bytes for k/v cache." / "Using 132608 tokens in
 * paged KV cache." -- the number precedes the anchor: read backwards. */
void er_trt_before(struct engine_line *o, const struct anchor *a, const char *line,
			  const char *p, const char *end)
{
	const char *q = p - a->len;
	const char *s = q;
	double v;

	(void)end;
	while (s > line && ((s[-1] >= '0' && s[-1] <= '9') || s[-1] == '.'))
		s--;
	if (s == q || er_read_num(s, q, &v, NULL) < 0)
		return;
	er_fact(o, (enum engine_fact)a->arg, v);
}

/* "Memory usage when calculating max tokens in paged kv cache: total:
 * 39.39 GiB, available: 21.89 GiB" */
void er_trt_usage(struct engine_line *o, const struct anchor *a, const char *line,
			 const char *p, const char *end)
{
	const char *q;

	(void)a, (void)line;
	if ((q = er_find(p, end, "total:")))
		er_size_fact(o, EF_TOTAL, q + 6, end);
	if ((q = er_find(p, end, "available:")))
		er_size_fact(o, EF_FREE, q + 10, end);
}

/* TensorRT-LLM's executor-creation table (py_executor_creator.py), whose
 * figures are GiB with the unit before them: "Total GPU memory (GiB):
 * 95.09", "Free GPU memory before component creation attempt (GiB): 0.32"
 * (a->arg: the fact). */
void er_trt_gib(struct engine_line *o, const struct anchor *a, const char *line,
		const char *p, const char *end)
{
	double v;

	(void)line;
	if (er_read_num(p, end, &v, NULL) == 0 && v >= 0)
		er_fact(o, (enum engine_fact)a->arg, v * 1073741824.0);
}

/* A fraction after a knob's name, as a configuration, a command line or
 * a sentence states it: "free_gpu_memory_fraction: 0.9", "...=0.85",
 * "--kv_cache_free_gpu_memory_fraction 0.7", "'kvcache_free_gpu_mem_frac':
 * 0.80", "the kvcache_free_gpu_mem_frac flag ... down to .10". The first
 * number within FRACTION_REACH bytes, before a ',' or ';' (the next key of
 * a dump: "free_gpu_memory_fraction=None, ...") and not inside a word
 * ("fp8"); kept when it is a share, in (0, 1] (a->arg: the fact). */
#define FRACTION_REACH 64
void er_fraction(struct engine_line *o, const struct anchor *a, const char *line,
		 const char *p, const char *end)
{
	const char *q = p, *lim = end - p > FRACTION_REACH ? p + FRACTION_REACH : end;
	double v;
	size_t u;
	int lead_dot;

	(void)line;
	for (; q < lim; q++) {
		if (*q == ',' || *q == ';')
			return;
		if (isdigit((unsigned char)*q) ||
		    (*q == '.' && q + 1 < end && isdigit((unsigned char)q[1])))
			break;
	}
	if (q >= lim || (q > p && (isalpha((unsigned char)q[-1]) || q[-1] == '_')))
		return;
	lead_dot = *q == '.';
	if (er_read_num(q + lead_dot, end, &v, &u) < 0 || (lead_dot && u > 15) ||
	    (q + lead_dot + u < end && isalpha((unsigned char)q[lead_dot + u])))
		return;   /* "1.0rc1" is a version, no share */
	if (lead_dot)
		v /= er_pow10(u);
	if (v > 0 && v <= 1)
		er_fact(o, (enum engine_fact)a->arg, v);
}

/* A row of the same table: "model: 274.64 / 208.12", a component and the
 * free GiB before and after it was created; what it took (before less
 * after) is the fact a->arg. Only a row standing alone on its line, the
 * two figures and nothing else, is one: "model: " is common text. */
void er_trt_component(struct engine_line *o, const struct anchor *a, const char *line,
		      const char *p, const char *end)
{
	double before, after;
	size_t u;

	if (p - a->len != line || er_read_num(p, end, &before, &u) < 0)
		return;
	p += u;
	if ((size_t)(end - p) < 4 || memcmp(p, " / ", 3) || er_read_num(p + 3, end, &after, &u) < 0 ||
	    p + 3 + u != end || before < after)
		return;
	er_fact(o, (enum engine_fact)a->arg, (before - after) * 1073741824.0);
}

/* 1 when an error line[0..end) that does not say what failed yet ends
 * mid-word, as a terminal or a forum wraps a long line: "... CUDA runtime
 * error in ::cudaMallocAsync(ptr, n, mCudaSt" (TensorRT-LLM #260), whose
 * "ream->get()): out of memory (...)" is the next line. */
static int ends_mid_word(const char *line, const char *end)
{
	char c = end > line ? end[-1] : ' ';

	return end - line >= 40 && (isalnum((unsigned char)c) || c == '_') &&
	       !er_find(line, end, "out of memory");
}

/* A TensorRT-LLM error line: an allocation failure is its OOM. */
void er_trt_error(struct engine_line *o, const struct anchor *a, const char *line,
			 const char *p, const char *end)
{
	(void)a, (void)p;
	if (!o->error && er_find(line, end, "out of memory"))
		o->error = EE_TRT_OOM;
	else if (ends_mid_word(line, end))
		o->wrap_open = 1;
}

/* "CUDA runtime error in ::cudaMallocAsync(...)" outside TensorRT-LLM's
 * own tag: only a line cut mid-word is worth noting. */
void er_wrap_open(struct engine_line *o, const struct anchor *a, const char *line,
		  const char *p, const char *end)
{
	(void)a, (void)p;
	if (ends_mid_word(line, end))
		o->wrap_open = 1;
}
