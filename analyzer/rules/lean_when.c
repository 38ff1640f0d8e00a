/*
 * lean_when.c -- when it failed, as cause evidence (issue 27, round 18's
 * lean19 slice): a misconfiguration fails the first time the configured
 * load is reached; a leak fails after the same work had succeeded many
 * times. This rule leans leak (a low score, never established) where the
 * log's own counter says whole units of the same work had fit before the
 * failure, and nothing else in the files says more.
 *
 * Marker read: the epoch counter of the training loop's stage line above
 * the failure (meta server.last_stage's "epoch", parsers/serving/
 * stage_epoch.c), with no progress bar or logger dict of the loop
 * (those are rule progress's). A counter of EPOCH_DONE or more means at
 * least one whole epoch of the same data had passed through the step
 * at this batch size, whether the loop counts from 0 (pytorch/examples
 * imagenet/main.py "Epoch: [{}]") or from 1 (Keras "Epoch %d/%d"): the
 * step fit, so the failure is memory held across steps, or a batch
 * packed larger than any before -- hence a leaning (LEAN_SCORE), whose
 * title names the one thing that would undo it: a run resumed from a
 * checkpoint starts its counter past 0 at its first step.
 *
 * Calibration (round 18, at this code; incoming any_stack rows whose
 * thread says leak or spike but which oomlens named misconfig: 35): 33
 * of the 35 hold the failure alone (no counter, no served request, no
 * earlier success of any size in the files: the when is in the thread's
 * prose only); one shows an epoch counter (Chainer "Epoch: [3]", leak);
 * the tuning set's 123 misconfig rows show none past EPOCH_DONE above a
 * stage-line failure. The rule runs before phase_inferred, which then
 * stays silent (it never overrides a class another rule gave); a
 * start-up OOM is never judged here (the phase is training_step).
 */
#include "analyzer/rules/rules.h"
#include "analyzer/rules/rulelib.h"

#include <stdio.h>

#define EPOCH_DONE 2     /* a counter this high: one whole epoch done, 0- or 1-based */
#define LEAN_SCORE 0.35  /* a leaning: above VERDICT_MIN_SCORE, below any measured finding */

/* The epoch counter of the stage line above the first OOM, a program's
 * own allocation failure placed in training_step by that stage line,
 * with no train_progress event in its file: 1 with *epoch and *gap (the
 * lines from the stage line to the failure), 0 none, -1 failed. */
static int stage_epoch_at_oom(struct rule_ctx *c, double *epoch, double *gap)
{
	sqlite3_stmt *st;
	int r = rl_first_row(c,
		"SELECT json_extract(m.value, '$.epoch'), e.line - json_extract(m.value, '$.line')"
		" FROM oom o JOIN event e ON e.id = o.event_id"
		" JOIN meta m ON m.artifact_id = e.artifact_id AND m.key = 'server.last_stage'"
		"  AND json_valid(m.value)"
		" WHERE o.id = 1 AND o.phase = 'training_step' AND o.phase_source = 'stage_line'"
		" AND o.kind IN ('torch_oom', 'cuda_oom', 'mem_failure', 'engine_oom', 'alloc_failed')"
		" AND json_extract(m.value, '$.phase') = 'training_step'"
		" AND json_extract(m.value, '$.by') = 'stage_line'"
		" AND json_type(m.value, '$.epoch') = 'integer'"
		" AND e.line >= json_extract(m.value, '$.line')"
		" AND NOT EXISTS (SELECT 1 FROM event t WHERE t.kind = 'train_progress'"
		"  AND t.artifact_id IS e.artifact_id) LIMIT 1", &st);

	if (r <= 0)
		return r;
	*epoch = sqlite3_column_double(st, 0);
	*gap = sqlite3_column_double(st, 1);
	sqlite3_finalize(st);
	return *epoch >= EPOCH_DONE;
}

int rule_lean_when(struct rule_ctx *c)
{
	struct rl_finding f;
	double epoch, gap;
	int r = stage_epoch_at_oom(c, &epoch, &gap);

	if (r <= 0)
		return r;
	rl_finding_init(&f, "lean_when", "leak", "after_whole_epoch");
	f.phase = "training_step";
	f.score = LEAN_SCORE;
	snprintf(f.title, sizeof(f.title), "The OOM came in the training loop's epoch %.0f (its"
		 " own counter, %.0f line%s above the failure): at least one whole epoch of the"
		 " same data had fit, which leans leak (unless the run resumed from a checkpoint;"
		 " no memory figure in the log to confirm it)", epoch, gap, gap == 1 ? "" : "s");
	rl_advice(&f, "Every batch of the data had already passed at this batch size, so the"
		  " step fit: log torch.cuda.memory_allocated() (or the framework's pool usage)"
		  " once an epoch; a value that climbs epoch over epoch confirms a leak (tensors or"
		  " graphs kept across steps, losses summed without .item(), metrics accumulated"
		  " on the GPU).");
	rl_fig(&f, "epoch", epoch);
	rl_fig(&f, "lines_after_stage", gap);
	return rl_finding_write(c, &f) < 0 ? -1 : 1;
}
