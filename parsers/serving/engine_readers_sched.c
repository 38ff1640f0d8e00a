/*
 * engine_readers_sched.c -- the readers of engine_lines.c for what an
 * engine dumps of the batch it was running when it failed: the requests
 * scheduled in the failing step, the load at the failure.
 *
 * vLLM V1's EngineCore, on an error in execute_model, logs "Dumping
 * scheduler output for model execution:" and the SchedulerOutput it ran
 * (vllm/logging_utils/dump_input.py@02e1673 dump_engine_exception ->
 * prepare_object_to_dump; vllm/v1/core/sched/output.py SchedulerOutput),
 * whose num_scheduled_tokens is a dict of one entry per request
 * scheduled in that step ("num_scheduled_tokens={chatcmpl-8d20...: 8000}",
 * prepare_object_to_dump's "{k: v, ...}" with the keys unquoted). Real
 * pastes: club-3090#613 (v0.20, one request), vllm#20558 (one request),
 * vllm#28028 (25 decoding), tt-inference-server#2886 (six 16384-token
 * prefills). The count of entries is the running requests at the
 * failure, as SchedulerStats' num_running_reqs says where the dump has
 * it (engine_lines.c); the dump is written only at a failure, so no
 * healthy log holds it. Same contract as engine_readers.c.
 */
#include "parsers/serving/engine_readers.h"

#include <ctype.h>
#include <string.h>

#define SCHED_MAX_REQS 1000000   /* more entries than any engine schedules: not a dump */

/* "num_scheduled_tokens={id: 16384, id: 1, ...}" (p: after the '{'):
 * ES_RUNNING = the entries of the dict, each a key then ": " and a count
 * of tokens. Only a dict closed on the line counts: a paste wrapped or
 * cut inside it says too few, and no number is better than a wrong one.
 * An empty dict (nothing scheduled) is no load. */
void er_sched_batch(struct engine_line *o, const struct anchor *a, const char *line,
		    const char *p, const char *end)
{
	const char *q;
	double n = 0;

	(void)a, (void)line;
	for (q = p; q < end && *q != '}'; q++)
		if (q[0] == ':' && q + 2 < end && q[1] == ' ' && isdigit((unsigned char)q[2]))
			n++;
	if (q >= end || n < 1 || n > SCHED_MAX_REQS)
		return;
	o->stats[ES_RUNNING] = n;
	o->stats_set |= 1u << ES_RUNNING;
}
