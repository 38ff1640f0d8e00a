/*
 * progress.c -- what the program was doing at the OOM decides between a
 * configuration that never fit, a leak and a load beyond what was
 * carried (issue 27 item 3), from the derived row `oom_load`
 * (analyzer/derive/load.c), never recomputed here.
 *
 * Training (the OOM's log shows a training loop's progress: its bars,
 * DeepSpeed's step lines, the HF Trainer's log dicts):
 *  - at its first steps (at most LOAD_FIRST_STEPS done): the step does
 *    not fit the card from the start, a misconfiguration whose knobs are
 *    the batch, the sequence length, gradient checkpointing, mixed
 *    precision, ZeRO/offload (rule training names the stack's spelling);
 *    the same with no bar at all when the failure comes a few lines
 *    below the stage line that started the loop (loop_start);
 *  - after many steps, the logger's peak memory ("max mem") over the bars
 *    says which: creeping up leans leak, flat says a batch larger than
 *    those before (a longer sequence) outgrew the room; without a memory
 *    figure the two cannot be told apart: a reading that says so (the
 *    Trainer's dicts alone: the epoch reached, past the first steps).
 * Serving (the engine's statistics lines before the OOM):
 *  - KV cache usage near full (>= KV_FULL_PCT) at a load that did not
 *    jump (running within RUN_JUMP times what it was LOAD_WINDOW_S
 *    before): the pool was sized so that a full pool and the step beside
 *    it do not fit, a misconfiguration of the pool;
 *  - otherwise a reading of the load at the OOM, so that every format
 *    states it (a jump of the running requests is rule spike's).
 * The score says how much the excerpt shows: one statistics line or one
 * bar is less than a series of them.
 */
#include "analyzer/rules/rules.h"
#include "analyzer/rules/rulelib.h"
#include "analyzer/rules/loadrow.h"
#include "analyzer/derive/load.h"
#include "lib/engine_knobs.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define KV_FULL_PCT 95.0      /* KV cache usage at which the pool counts as full */
#define RUN_JUMP 1.5          /* running this many times its value before: not steady */
#define MEM_FLAT 0.02         /* peak memory within this share over the bars: flat */
#define LATE_STEPS 10         /* steps done for "after many steps" */
#define WHOLE_EPOCH 1.0       /* the Trainer's fractional epoch: one whole epoch done */

/* "step 989 of 5070" into buf. */
static const char *steps_text(const struct load_row *r, char *buf, size_t n)
{
	if (isnan(r->steps_total))
		snprintf(buf, n, "step %.0f", r->steps_done);
	else
		snprintf(buf, n, "step %.0f of %.0f", r->steps_done, r->steps_total);
	return buf;
}

static int keep(struct rule_ctx *c, struct rl_finding *f)
{
	return rl_finding_write(c, f) < 0 ? -1 : 1;
}

static int training(struct rule_ctx *c, const struct load_row *r)
{
	struct rl_finding f;
	char at[64];
	int mem = !isnan(r->mem_first) && !isnan(r->mem_last) && r->mem_first > 0;

	steps_text(r, at, sizeof(at));
	if (r->at_start == 1) {
		rl_finding_init(&f, "progress", "misconfig", "first_step_does_not_fit");
		f.phase = "training_step";
		/* the bar and the failure together: the step never fit */
		f.score = r->bars >= 2 ? 0.7 : 0.65;
		snprintf(f.title, sizeof(f.title), "The OOM came at the training loop's %s: the"
			 " first steps do not fit the card", at);
		rl_advice(&f, "The configuration does not fit from the start (nothing leaked: no"
			  " step completed before it): lower the batch size (keep the effective batch"
			  " with gradient accumulation), shorten the sequence length, enable gradient"
			  " checkpointing, train in bf16/fp16 mixed precision, or shard and offload"
			  " the optimizer states (ZeRO stage 2/3, offload to CPU).");
	} else if (r->steps_done >= LATE_STEPS && mem &&
		   r->mem_last > r->mem_first * (1 + MEM_FLAT)) {
		rl_finding_init(&f, "progress", "leak", "step_memory_creep");
		f.phase = "training_step";
		f.score = 0.45;
		snprintf(f.title, sizeof(f.title), "The OOM came at %s after the peak memory crept"
			 " from %.0f to %.0f MB over the steps shown: leans leak", at, r->mem_first,
			 r->mem_last);
		rl_advice(&f, "Memory that grows step after step is held across steps: look for"
			  " tensors kept in lists (losses without .item(), outputs, graphs kept by"
			  " retain_graph) and log torch.cuda.memory_allocated() each step to confirm.");
	} else if (r->steps_done >= LATE_STEPS && mem) {
		rl_finding_init(&f, "progress", "misconfig", "long_batch");
		f.phase = "training_step";
		f.score = 0.45;
		snprintf(f.title, sizeof(f.title), "The OOM came at %s with the peak memory flat at"
			 " %.0f MB over the steps shown: not a leak, a larger batch", at, r->mem_last);
		rl_advice(&f, "A batch larger than those before (a longer sequence, a larger image)"
			  " outgrew the room the others left: cap the sequence length (max_length,"
			  " truncation), bucket or sort by length, or lower the batch size.");
	} else if (isnan(r->steps_done) && r->at_start == 0 && !isnan(r->epoch) &&
		   r->epoch >= WHOLE_EPOCH && r->logged_steps >= 2) {
		/* a whole epoch done: every example of the data passed through a
		 * step once at this batch size, the largest padded batch
		 * included, so the step fit; what changed since is memory held
		 * across steps (or a batch packed larger than any before:
		 * varlen packing, a shuffled sampler: hence a leaning) */
		rl_finding_init(&f, "progress", "leak", "after_whole_epoch");
		f.phase = "training_step";
		f.score = 0.35;
		snprintf(f.title, sizeof(f.title), "The OOM came at epoch %.2f, after %.0f logged"
			 " training steps: at least one whole epoch of the same data had fit, which"
			 " leans leak (no memory figure in the log to confirm it)", r->epoch,
			 r->logged_steps);
		rl_advice(&f, "Every batch of the data had already passed once, so the step fit:"
			  " log torch.cuda.memory_allocated() at each logging step; a value that"
			  " climbs epoch over epoch confirms a leak (tensors kept across steps: losses"
			  " without .item(), metrics accumulated on the GPU, eval outputs kept).");
		rl_fig(&f, "epoch", r->epoch);
		rl_fig(&f, "logged_steps", r->logged_steps);
		return keep(c, &f);
	} else if (isnan(r->steps_done) && r->at_start == 0 && !isnan(r->epoch)) {
		/* the Trainer's log dicts alone: past the first steps, no steps */
		rl_finding_init(&f, "progress", "reading", "late_step");
		f.phase = "training_step";
		f.score = 0.2;
		snprintf(f.title, sizeof(f.title), "The OOM came at epoch %.2f, after %.0f logged"
			 " training steps: not the first step; the log shows no memory trend to tell"
			 " a leak from a larger batch", r->epoch, r->logged_steps);
		rl_advice(&f, "Log torch.cuda.max_memory_allocated() with the loss each step: a"
			  " peak that creeps up is a leak, a flat one that jumps at the failing step"
			  " is a longer batch.");
		rl_fig(&f, "epoch", r->epoch);
		rl_fig(&f, "logged_steps", r->logged_steps);
		return keep(c, &f);
	} else if (r->steps_done >= LATE_STEPS) {
		rl_finding_init(&f, "progress", "reading", "late_step");
		f.phase = "training_step";
		f.score = 0.2;
		snprintf(f.title, sizeof(f.title), "The OOM came at %s, after many steps: the log"
			 " shows no memory trend to tell a leak from a larger batch", at);
		rl_advice(&f, "Log torch.cuda.max_memory_allocated() with the loss each step: a"
			  " peak that creeps up is a leak, a flat one that jumps at the failing step"
			  " is a longer batch.");
	} else {
		return 0;   /* a few steps in: neither the start nor many steps */
	}
	rl_fig(&f, "steps_done", r->steps_done);
	if (!isnan(r->steps_total))
		rl_fig(&f, "steps_total", r->steps_total);
	if (mem) {
		rl_fig(&f, "max_mem_first_mb", r->mem_first);
		rl_fig(&f, "max_mem_last_mb", r->mem_last);
	}
	return keep(c, &f);
}

static int serving(struct rule_ctx *c, const struct load_row *r)
{
	struct rl_finding f;
	char w[48] = "";
	int steady = !isnan(r->running_before) && !isnan(r->running) &&
		     r->running <= RUN_JUMP * (r->running_before > 1 ? r->running_before : 1);
	int one = isnan(r->samples) || r->samples < 2;

	if (isnan(r->running))   /* no statistics line at or before the OOM */
		return 0;
	if (!isnan(r->waiting))
		snprintf(w, sizeof(w), ", %.0f waiting", r->waiting);
	if (!isnan(r->kv) && r->kv >= KV_FULL_PCT && steady) {
		rl_finding_init(&f, "progress", "misconfig", "kv_pool");
		f.phase = "serving";
		f.score = one ? 0.45 : 0.55;
		snprintf(f.title, sizeof(f.title), "KV cache usage at %.0f%% with %.0f running%s at"
			 " the OOM%s: the pool ran full at steady load", r->kv, r->running, w,
			 one ? " (one statistics line)" : "");
		rl_advice(&f, "A full KV pool and the step beside it do not fit: leave the step more"
			  " room (a smaller %s) or admit fewer requests (%s).",
			  rl_flag(c, KR_MEM_FRACTION), rl_flag(c, KR_MAX_SEQS));
	} else {
		rl_finding_init(&f, "progress", "reading", "load_at_oom");
		f.phase = "serving";
		f.score = 0.2;
		if (isnan(r->kv))
			snprintf(f.title, sizeof(f.title), "At the OOM: %.0f running%s%s", r->running,
				 w, one ? " (one statistics line: no trend)" : "");
		else if (one || isnan(r->kv_before))
			snprintf(f.title, sizeof(f.title), "At the OOM: %.0f running%s, KV cache %.0f%%"
				 "%s", r->running, w, r->kv, one ? " (one statistics line: no trend)" : "");
		else
			snprintf(f.title, sizeof(f.title), "At the OOM: %.0f running%s, KV cache %.0f%%;"
				 " %.0f s before: %.0f running, KV cache %.0f%%", r->running, w, r->kv,
				 r->window_s, r->running_before, r->kv_before);
	}
	rl_fig(&f, "running", r->running);
	if (!isnan(r->waiting))
		rl_fig(&f, "waiting", r->waiting);
	if (!isnan(r->kv))
		rl_fig(&f, "kv_usage_pct", r->kv);
	if (!one && !isnan(r->running_before) && !isnan(r->window_s)) {
		rl_fig(&f, "running_before", r->running_before);
		rl_fig(&f, "window_s", r->window_s);
	}
	return keep(c, &f);
}

/* A training loop's start line a few lines above the failure, with no
 * progress of the loop in the log (no train_progress event): the lines
 * from where the log entered its training phase (meta server.last_stage,
 * the line its phase last changed on, by a stage line such as CNTK's
 * "Starting minibatch loop" or a script's "Starting training") to the
 * failure's own. At most FIRST_STEP_LINES of them leave no room for more
 * than the first steps' output: the step never fit (the same reading as
 * a bar stopped at its first steps). A failure printed under a long
 * traceback is further than that and is left to the other rules. The
 * gap in lines into *gap; 1 found, 0 none, -1 failed. */
#define FIRST_STEP_LINES 4

static int loop_start_gap(struct rule_ctx *c, double *gap)
{
	int r = rl_num(c, gap,
		"SELECT e.line - json_extract(m.value, '$.line') FROM oom o"
		" JOIN event e ON e.id = o.event_id"
		" JOIN meta m ON m.artifact_id = e.artifact_id AND m.key = 'server.last_stage'"
		"  AND json_valid(m.value)"
		" WHERE o.id = 1 AND o.phase = 'training_step' AND o.phase_source = 'stage_line'"
		" AND json_extract(m.value, '$.phase') = 'training_step'"
		" AND json_extract(m.value, '$.by') = 'stage_line'"
		" AND coalesce(json_extract(m.value, '$.epoch'), 0) < 2"   /* lean_when.c's */
		" AND e.line >= json_extract(m.value, '$.line')"
		" AND NOT EXISTS (SELECT 1 FROM event t WHERE t.kind = 'train_progress'"
		"  AND t.artifact_id IS e.artifact_id) LIMIT 1");

	if (r < 0)
		return c->err[0] ? -1 : 0;
	return *gap <= FIRST_STEP_LINES;
}

static int loop_start(struct rule_ctx *c)
{
	struct rl_finding f;
	double gap;
	int r = loop_start_gap(c, &gap);

	if (r <= 0)
		return r;
	rl_finding_init(&f, "progress", "misconfig", "first_step_does_not_fit");
	f.phase = "training_step";
	f.score = 0.6;   /* one start line, not a bar: less than the bar's 0.65 */
	snprintf(f.title, sizeof(f.title), "The OOM came %.0f line%s after the training loop"
		 " started, with no step's progress between: the first step does not fit the"
		 " card", gap, gap == 1 ? "" : "s");
	rl_advice(&f, "The configuration does not fit from the start (nothing leaked: no step"
		  " completed before it): lower the batch (minibatch) size, keeping the effective"
		  " batch with gradient accumulation, shorten the sequences or crops, train in"
		  " mixed precision, or shard and offload the optimizer states.");
	rl_fig(&f, "lines_after_loop_start", gap);
	return keep(c, &f);
}

int rule_progress(struct rule_ctx *c)
{
	struct load_row r;
	int rc = load_row_read(c, &r);

	if (rc == 0)
		return loop_start(c);
	if (rc < 0)
		return rc;
	if (!strcmp(r.doing, "training"))
		return training(c, &r);
	if (!strcmp(r.doing, "serving"))
		return serving(c, &r);
	return 0;
}
