/*
 * phase_inferred.c -- the verdict the phase gives when nothing else
 * decides (issue 27 item 3, applied past start-up). An OOM in a training
 * step, an evaluation or a single request that no rule gave a class
 * (no growth, no load, no configured limit, no figures that decide) is
 * named a misconfiguration -- the batch, sequence or model as configured
 * does not fit the card -- *inferred from the phase*, never shown by
 * figures: the finding's title and advice say so, its cause
 * (`phase_inferred`) marks it, and the verdict's basis is `phase`
 * (verdict.c), so every format says it. The missing evidence stays
 * named (the verdict's `missing`).
 *
 * It reads the derived progress of the OOM (oom.progress,
 * analyzer/derive/oom_progress.c), never recomputes it:
 *  - `none` (no unit of work finished before the failure: the first
 *    step, the first evaluation batch, the first request): the
 *    configuration does not fit from the start; PHASE_NONE_SCORE;
 *  - `unknown` (the files hold the failure alone): most threads still
 *    end in a smaller batch, sequence or model, but a leak or one long
 *    input cannot be ruled out; PHASE_UNKNOWN_SCORE, just above the
 *    verdict's threshold, a low confidence;
 *  - `some` (units completed fine, then the failure): stays
 *    inconclusive; growth or load decide (rules leak, spike, progress).
 * Only after start-up (training_step, eval, serving, unknown): a
 * start-up OOM's class is its phase's (startup.c); only for the
 * program's own allocation failure (oom.kind torch_oom, cuda_oom,
 * mem_failure, engine_oom, alloc_failed), not a kill by the kernel, a
 * cgroup or an orchestrator. Never without an OOM
 * (no verdict on a healthy log) and never over a class another rule's
 * finding gave (it runs last, and looks).
 *
 * The knobs named are training.c's table's, through its reading
 * (figure try_knobs of the finding training_knobs), or the serving
 * engine's own spelling of its per-request knobs (lib/engine_knobs.h).
 *
 * Calibration (round 14, at this rule's final code: rows it names, of
 * those whose thread establishes a cause, how many the thread calls
 * misconfig):
 *   progress   tuning set (510 rows)          incoming (206 rows)
 *   none       7 named: 1 of 1 misconfig      1 named: none established
 *   unknown    70 named: 2 of 3 (1 spike)     58 named: 23 of 35 (5 leak,
 *                                             7 spike)
 *   some       never named                    never named
 * Together 25 of 38 (66 %) for unknown: right more often than not, but a
 * low confidence (the verdict shows about 0.27); none's one established
 * row, and held-out set 14's misses (9 of 12 lone OOMs whose thread then
 * lowered a batch, sequence or model size), give it a moderate one
 * (about 0.38). A serving OOM whose progress is unknown (placed by its
 * traceback's frames alone) is left out: named, its threads said leak 3
 * times and misconfig once (tuning 2 leak; incoming 1 leak, 1 misconfig).
 */
#include "analyzer/rules/rules.h"
#include "analyzer/rules/rulelib.h"
#include "analyzer/rules/startup_phase.h"
#include "lib/engine_knobs.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PHASE_NONE_SCORE 0.45      /* moderate: the first unit of work did not fit */
#define PHASE_UNKNOWN_SCORE 0.32   /* low: the failure alone; just above VERDICT_MIN_SCORE */

/* What the phase's unit of work is called (plural: its plural), for
 * the title and the advice. */
static const char *unit_of(const char *phase, int plural)
{
	if (!strcmp(phase, "training_step"))
		return plural ? "training steps" : "training step";
	if (!strcmp(phase, "eval"))
		return plural ? "evaluation batches" : "evaluation batch";
	if (!strcmp(phase, "serving"))
		return plural ? "requests" : "request";
	return plural ? "units of work (steps, batches, requests)" : "unit of work";
}

/* A serving engine's per-request knobs, as it spells them, into the
 * advice (those it has). */
static void serving_knobs(struct rule_ctx *c, struct rl_finding *f)
{
	static const enum knob_role roles[] = { KR_MAX_LEN, KR_MAX_SEQS, KR_MEM_FRACTION };
	char list[200] = "";
	size_t i, len;

	for (i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		const char *flag = rl_flag(c, roles[i]);
		len = strlen(list);
		if (flag)
			snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "", flag);
	}
	if (list[0])
		rl_advice(f, "The knobs this phase answers to, first: %s.", list);
}

/* 1 when a finding of a class already counts toward the verdict. */
static int decided(struct rule_ctx *c)
{
	double n = 0;

	if (rl_num(c, &n, "SELECT count(*) FROM finding WHERE class IN ('misconfig', 'leak',"
		   " 'spike') AND score >= %g", VERDICT_MIN_SCORE) < 0)
		return c->failed ? -1 : 0;
	return n > 0;
}

int rule_phase_inferred(struct rule_ctx *c)
{
	struct rl_phase ph;
	struct rl_finding f;
	char progress[16] = "", knobs[400] = "", scope[16] = "";
	const char *phase;
	int64_t fid;
	int r, none;

	if (!c->has_oom)
		return 0;
	if ((r = rl_oom_phase(c, &ph)) <= 0)
		return r;
	phase = ph.phase;
	if (strcmp(phase, "training_step") && strcmp(phase, "eval") && strcmp(phase, "serving") &&
	    strcmp(phase, "unknown"))
		return 0;   /* start-up: its phase's class is startup.c's */
	/* the program's own allocation failure: a kill by the kernel, a
	 * cgroup or an orchestrator says who was taken, not what the program
	 * was doing (rules kernel and killers judge those) */
	if (!rl_first_text(c, "SELECT progress FROM oom WHERE id = 1 AND kind IN ('torch_oom',"
			   " 'cuda_oom', 'mem_failure', 'engine_oom', 'alloc_failed')", progress,
			   sizeof(progress)))
		return c->failed ? -1 : 0;
	if (strcmp(progress, "none") && strcmp(progress, "unknown"))
		return 0;   /* units completed first: growth or load decide */
	if ((r = decided(c)) != 0)
		return r < 0 ? -1 : 0;
	none = !strcmp(progress, "none");
	/* a serving OOM known by its traceback alone: the calibration's
	 * threads lean leak there (the head's table) */
	if (!none && !strcmp(phase, "serving"))
		return 0;
	/* the memory that ran out, as the failure's scope says: "the card"
	 * only for a GPU's (lib/vocab.h "OOM scopes") */
	rl_first_text(c, "SELECT coalesce(scope, 'gpu') FROM oom WHERE id = 1", scope, sizeof(scope));
	rl_first_text(c, "SELECT json_extract(figures, '$.try_knobs') FROM finding WHERE cause ="
		      " 'training_knobs' ORDER BY score DESC, id LIMIT 1", knobs, sizeof(knobs));
	if (c->failed)
		return -1;
	rl_finding_init(&f, "phase_inferred", "misconfig", "phase_inferred");
	f.phase = strcmp(phase, "unknown") ? phase : NULL;
	f.score = none ? PHASE_NONE_SCORE : PHASE_UNKNOWN_SCORE;
	if (none)
		snprintf(f.title, sizeof(f.title), "Most likely a configuration that does not fit"
			 " (inferred from the phase): the OOM came at the first %s, with nothing in"
			 " the files showing memory growing or load rising", unit_of(phase, 0));
	else
		snprintf(f.title, sizeof(f.title), "Possibly a configuration that does not fit"
			 " (inferred from the phase, low confidence): the files hold the failure"
			 " alone, with nothing showing memory growing or load rising");
	rl_advice(&f, "Inferred, not shown by figures: no finding shows memory growing or load"
		  " rising, and %s; a %s as configured larger than %s holds is then the"
		  " likeliest cause.", none ? "no unit of work completed before the failure" :
		  "the files do not say how much work completed before it",
		  !strcmp(phase, "serving") ? "request (its context length, the requests run at"
		  " once)" : !strcmp(phase, "unknown") ? "workload (its batch, sequence length or"
		  " model)" : "step (its batch, sequence length or model)",
		  !strcmp(scope, "gpu") ? "the card" : !strcmp(scope, "host") ? "the host's RAM"
		  : "the device's memory");
	/* the training step's knobs are the training_knobs reading's, which
	 * every answer shows beside this advice ("To try first", with how
	 * to change each): named there once, not listed again here */
	if (knobs[0]) {
		rl_advice(&f, "The knobs this phase answers to, and how to change each, are"
			  " under \"To try first\".");
		json_object_set_new(f.figures, "try_knobs", json_string(knobs));
	}
	else if (!strcmp(phase, "serving"))
		serving_knobs(c, &f);
	rl_advice(&f, "If the run had completed many %s before it, suspect a leak (memory kept"
		  " across them) or one long input instead: memory logged over time would"
		  " settle it.", unit_of(phase, 1));
	json_object_set_new(f.figures, "basis", json_string("phase"));
	json_object_set_new(f.figures, "progress", json_string(progress));
	fid = rl_finding_write(c, &f);
	if (fid < 0 || (ph.event_id > 0 && rl_evidence(c, fid, "event", ph.event_id,
		"the failure; its phase, not its figures, names the class") < 0))
		return -1;
	return 1;
}
