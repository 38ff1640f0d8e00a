/*
 * xla.c -- an XLA program that does not fit its device: JAX's (or
 * TensorFlow's, torch_xla's) "RESOURCE_EXHAUSTED: Out of memory while
 * trying to allocate N bytes" ("Resource exhausted: Out of memory ..."
 * in jaxlib 0.1.x's "Execution of replica 0 failed"), kept by the generic
 * recogniser as an OOM of family xla (table oom).
 *
 * XLA compiles each program for fixed shapes and plans its buffers once,
 * at compile time (BufferAssignment: parameters, outputs, temporaries;
 * xla/service/buffer_assignment.cc at jax-v0.4.30, whose stats block the
 * OOM message prints as "BufferAssignment OOM Debugging"). Running the
 * program asks the device allocator for that plan, the same bytes at
 * every call: a traffic burst or a longer request cannot change them
 * inside one program, and the allocator holds a fixed share of the card
 * (XLA_PYTHON_CLIENT_MEM_FRACTION, 75% by default, preallocated unless
 * XLA_PYTHON_CLIENT_PREALLOCATE=false: JAX's "GPU memory allocation"
 * page). So a failure with no progress shown before it (no training
 * loop past its first steps, no serving load) reads as the program --
 * the model and its batch -- not fitting the memory given to XLA: a
 * misconfiguration, likely (XLA_SCORE: one message, nothing in the
 * files to exclude arrays kept alive across calls, a leak), never
 * proven. A loop shown past its first steps is left to the progress
 * rule.
 *
 * Contract: rule_xla reads oom row 1, its event and oom_load; writes at
 * most one finding. 1 written, 0 none, -1 failed.
 */
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define XLA_SCORE 0.45   /* one message: likely, not proven (under RL_LONE_MAX_SCORE) */

int rule_xla(struct rule_ctx *c)
{
	sqlite3_stmt *st;
	struct rl_finding f;
	char b1[32];
	double asked;
	int64_t ev, fid;

	if (!q_has_table(c->db, "oom") || !q_has_table(c->db, "oom_load"))
		return 0;   /* a timeline made by hand: no derived rows */
	if (rl_first_row(c, "SELECT o.event_id, coalesce(o.requested_bytes, -1)"
		" FROM oom o WHERE o.id = 1 AND o.family = 'xla'"
		" AND NOT EXISTS (SELECT 1 FROM oom_load l WHERE l.oom_id = 1"
		"  AND (l.doing = 'serving' OR coalesce(l.at_start, 0) = 0))", &st) <= 0)
		return c->failed ? -1 : 0;
	ev = sqlite3_column_int64(st, 0);
	asked = sqlite3_column_double(st, 1);
	sqlite3_finalize(st);
	rl_finding_init(&f, "xla", "misconfig", "xla_program_does_not_fit");
	f.score = XLA_SCORE;
	if (asked > 0) {
		rl_fig(&f, "requested_bytes", asked);
		snprintf(f.title, sizeof(f.title), "XLA could not allocate %s for a compiled"
			 " program, with no progress before it: the program (model and batch) does"
			 " not fit the memory given to XLA", rl_bytes(asked, b1, sizeof(b1)));
	} else {
		snprintf(f.title, sizeof(f.title), "XLA ran out of memory for a compiled program,"
			 " with no progress before it: the program (model and batch) does not fit the"
			 " memory given to XLA");
	}
	rl_advice(&f, "An XLA program asks for the same buffers at every call (its shapes are"
		  " fixed when it is compiled): make it smaller (a smaller batch or input, a"
		  " smaller model, rematerialisation with jax.checkpoint), on a GPU give XLA more of it"
		  " (XLA_PYTHON_CLIENT_MEM_FRACTION, 0.75 by default) or run it on a larger device."
		  " If earlier calls of the same program ran, look instead for arrays kept alive"
		  " between them.");
	fid = rl_finding_write(c, &f);
	if (fid < 0 || rl_evidence(c, fid, "event", ev, "XLA's out-of-memory message") < 0)
		return -1;
	return 1;
}
