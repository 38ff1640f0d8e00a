/*
 * memfail_mlc.c -- the stage MLC-LLM's start-up memory check names by its
 * own figures (memfail.h memfail_mlc_phase).
 *
 * MLC-LLM sizes the KV cache at start-up (cpp/serve/config.cc,
 * EstimateMemoryUsageOnMode, v0.1.0 through 2025 main): the card's memory
 * times gpu_memory_utilization is the budget, and when the weights and the
 * temporary buffers leave no room for a single token of KV cache
 * (model_max_total_sequence_length <= 0) it returns "Insufficient GPU
 * memory error: The available single GPU memory is X MB, which is less
 * than the sum of model weight size (W MB) and temporary buffer size (T
 * MB)." One message serves two stages: when W alone is at least X, the
 * weights cannot be placed whatever the buffers and the cache (the
 * message's own remedy 2: tensor parallelism or quantization), which is
 * the weights' load; when W fits and W + T does not, the buffers sized
 * with the cache crowd it out (remedies 1 and 3: gpu_memory_utilization,
 * --prefill-chunk-size), which is the KV cache's allocation
 * (phase_rows_lmdeploy_mlc_exllama.inc's row).
 */
#include "parsers/serving/memfail.h"
#include "parsers/common/seriesutil.h"

#include <stdlib.h>
#include <string.h>

#define MLC_AVAIL "single GPU memory is "
#define MLC_WEIGHTS "model weight size ("

/* The number right after label in l[0..n), in *v; 0 when label is not
 * there or no number follows it. */
static int number_after(const char *l, size_t n, const char *label, double *v)
{
	const char *p = mem_find(l, n, label), *end = l + n;
	char num[32];
	size_t k = 0;

	if (!p)
		return 0;
	for (p += strlen(label); p < end && k < sizeof(num) - 1 &&
	     ((*p >= '0' && *p <= '9') || *p == '.'); p++)
		num[k++] = *p;
	num[k] = '\0';
	if (!k)
		return 0;
	*v = strtod(num, NULL);
	return 1;
}

enum oom_phase memfail_mlc_phase(const char *l, size_t n, enum oom_phase ph)
{
	double avail, weights;

	if (!number_after(l, n, MLC_AVAIL, &avail) || !number_after(l, n, MLC_WEIGHTS, &weights))
		return ph;
	return weights >= avail ? OOM_PHASE_LOAD_WEIGHTS : ph;
}
