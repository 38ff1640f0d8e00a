/*
 * input_op.c -- a spike of one input: row 1 of table oom failed inside an
 * operation whose memory one input sizes and that no fixed budget of the
 * program covers (its event's `input_op`, read from the traceback's
 * frames by parsers/serving/input_ops.c, where each operation's source
 * is named):
 *   - `prompt_logprobs`: vLLM computing the logprobs of a request's
 *     whole prompt (prompt length x vocabulary, all-gathered across
 *     tensor-parallel ranks), which only a request that asks for them
 *     runs and the start-up memory profile never did;
 *   - `iou_assignment`: MMDetection's anchor-to-box overlaps of one image
 *     (anchors x its ground-truth boxes), which an image with many boxes
 *     multiplies; the library's gpu_assign_thr moves such images to the
 *     CPU.
 * The configuration fitted what the program planned for; the input that
 * asked was larger than the rest, so the class is spike, in whatever
 * phase (serving or a training step). Where an engine's own account of
 * the failure exists (a KV pool, a queue) its rules speak too; this one
 * names only the input. Score INPUT_OP_SCORE: the frame names the
 * operation, not the input's size, which the log rarely prints.
 */
#include "analyzer/rules/rulelib.h"

#include <stdio.h>
#include <string.h>

#define INPUT_OP_SCORE 0.62   /* above capacity's full card and other processes (0.6): the
			       * operation says why the card filled */

/* Writes one spike finding (cause input_scaled_op) when row 1 of oom
 * carries an input_op. 1 written, 0 none, -1 failed. */
int rule_input_op(struct rule_ctx *c)
{
	struct rl_finding f;
	char op[32] = "", phase[24] = "unknown";
	int64_t event_id = 0, fid;
	sqlite3_stmt *st;
	int r;

	if (!c->has_oom)
		return 0;
	r = rl_first_row(c, "SELECT json_extract(e.data, '$.input_op'), coalesce(o.phase, 'unknown'),"
			 " o.event_id FROM oom o JOIN event e ON e.id = o.event_id"
			 " WHERE o.id = 1 AND json_valid(e.data)"
			 " AND json_extract(e.data, '$.input_op') IS NOT NULL", &st);
	if (r <= 0)
		return r;
	snprintf(op, sizeof(op), "%s", (const char *)sqlite3_column_text(st, 0));
	snprintf(phase, sizeof(phase), "%s", (const char *)sqlite3_column_text(st, 1));
	event_id = sqlite3_column_int64(st, 2);
	sqlite3_finalize(st);
	if (!op[0])
		return 0;
	rl_finding_init(&f, "input_op", "spike", "input_scaled_op");
	f.score = INPUT_OP_SCORE;
	if (strcmp(phase, "unknown"))
		f.phase = phase;
	if (!strcmp(op, "prompt_logprobs")) {
		snprintf(f.title, sizeof(f.title), "The failure was in a request's prompt logprobs:"
			 " logits for every token of its prompt, which only such a request asks for and"
			 " the engine's memory profile never ran");
		rl_advice(&f, "vLLM computes prompt logprobs only for a request that sets"
			  " prompt_logprobs, as prompt length x vocabulary logits (gathered across"
			  " tensor-parallel ranks): a long prompt asks for far more than the budget"
			  " the start-up profile left. Strip or cap prompt_logprobs at the proxy or"
			  " client, or refuse long prompts that ask for them; lowering"
			  " gpu_memory_utilization leaves more room for them at the cost of KV cache.");
	} else {
		snprintf(f.title, sizeof(f.title), "The failure was in the IoU assignment of one"
			 " image's anchors to its ground-truth boxes: an image with many boxes asks for"
			 " many times the memory of the others");
		rl_advice(&f, "MMDetection's MaxIoUAssigner computes the overlaps of every anchor"
			  " with every ground-truth box of the image (anchors x boxes): set the"
			  " assigner's gpu_assign_thr (e.g. gpu_assign_thr=512 in the train_cfg's"
			  " assigner) so that images with more boxes are assigned on the CPU, or"
			  " drop the images with the most boxes.");
	}
	rl_advice(&f, "The input's size is inferred from the operation the traceback names, not"
		  " read from the log.");
	if ((fid = rl_finding_write(c, &f)) < 0)
		return -1;
	if (event_id > 0 && rl_evidence(c, fid, "event", event_id,
					"the failure, in an operation one input sizes") < 0)
		return -1;
	return 1;
}
