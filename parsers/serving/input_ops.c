/*
 * input_ops.c -- the operations whose memory one input sizes; see
 * input_ops.h.
 *
 * Round 17 (w-spike18). A failure inside one of these is not a
 * configuration that cannot fit: the program ran the operation at a size
 * the input set, beyond what it planned for, so the input that asked was
 * bigger than the rest:
 *   - vLLM V1's prompt logprobs: GPUModelRunner._get_prompt_logprobs_dict
 *     returns at once unless a request asked for prompt_logprobs ("a rare
 *     feature"), then computes logits for each such request's prompt
 *     tokens (prompt length x vocabulary; the tensor-parallel all-gather
 *     of those logits), work the engine's memory profile never ran
 *     (vllm/v1/worker/gpu_model_runner.py, indexed copies of V1 from 2025
 *     to 0.20; a profile run for it came only with
 *     VLLM_PROMPT_LOGPROBS_CHUNK_SIZE). V0's sampler did the same for
 *     the prompt in _get_prompt_logprob_if_needed
 *     (vllm/model_executor/layers/sampler.py, v0.4-v0.6).
 *   - MMDetection's IoU assignment: MaxIoUAssigner.assign computes the
 *     overlaps of every anchor with every ground-truth box of the image
 *     (bbox_overlaps, anchors x boxes), so an image with many boxes asks
 *     for many times the memory of the others; the library's own remedy
 *     is gpu_assign_thr, "the upper bound of the number of GT for GPU
 *     assign. When the number of gt is above this threshold, will assign
 *     on CPU device" (mmdet/core/bbox/assigners/max_iou_assigner.py@v2.28.2,
 *     mmdet/models/task_modules/assigners/max_iou_assigner.py@v3.3.0; the
 *     same for approx_max_iou_assigner.py).
 */
#include "parsers/serving/input_ops.h"
#include "parsers/serving/server_memfail.h"
#include "parsers/common/seriesutil.h"

#include <jansson.h>
#include <string.h>

static const struct {
	const char *anchor;   /* in a frame line */
	const char *op;       /* the event's input_op */
} ops[] = {
	{ "_get_prompt_logprobs_dict", "prompt_logprobs" },
	{ "_get_prompt_logprob_if_needed", "prompt_logprobs" },
	{ "assigners/max_iou_assigner.py", "iou_assignment" },
	{ "assigners/approx_max_iou_assigner.py", "iou_assignment" },
};

#define OPS_N (sizeof(ops) / sizeof(ops[0]))

int input_op_find(const char *l, size_t n)
{
	size_t i;

	/* every anchor holds a '_': one cheap test first */
	if (!memchr(l, '_', n))
		return -1;
	for (i = 0; i < OPS_N; i++)
		if (mem_find(l, n, ops[i].anchor))
			return (int)i;
	return -1;
}

void srv_mem_input_op(struct srv_mem *m, const char *l, size_t n, uint64_t lineno)
{
	int row = input_op_find(l, n);

	if (row >= 0) {
		m->input_op = row + 1;
		m->input_op_line = lineno;
	}
}

void srv_mem_put_input_op(const struct srv_mem *m, json_t *d, uint64_t lineno, const char *tb)
{
	int row = tb ? input_op_find(tb, strlen(tb)) : -1;

	if (row < 0 && m->input_op && m->input_op_line <= lineno &&
	    lineno - m->input_op_line <= SRV_MEM_FRAMES)
		row = m->input_op - 1;
	if (d && row >= 0)
		json_object_set_new(d, "input_op", json_string(ops[row].op));
}
