/*
 * server_held.c -- the server-log parser's events written, and the lone
 * OOM held until what is printed below it names its phase.
 *
 * A lone OOM message (or an engine error, or a torch OOM whose frames
 * named no phase) is held in struct srv_st (pend) and written when the
 * next event comes, the log ends, or a line just below places it: the
 * traceback of a chained exception (srv_traceback_below), a start-up
 * stage printed before it in a newest-first log
 * (srv_phase_printed_before), a line naming the stage that failed
 * (srv_stage_failed_below), the failure raised again by what ran it
 * (srv_raised_again_below), the request answered 5xx
 * (srv_request_failed_below). Echoes of the last OOM are dropped
 * (srv_dup_oom). Split out of server_log.c (which reads the lines).
 */
#include "parsers/serving/server_held.h"
#include "parsers/serving/memfail.h"
#include "parsers/serving/phase_table.h"
#include "parsers/torch/torch_oom_text.h"
#include "lib/timeutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The same OOM is often logged twice: the worker's traceback, then the
 * router or engine client repeating the message. A traceback-less OOM
 * with the device and size of the previous one within 5 s is that echo. */
int srv_dup_oom(struct srv_st *st, json_t *d, const struct ol_time *t)
{
	json_int_t dev = json_integer_value(json_object_get(d, "device"));
	json_int_t req = json_integer_value(json_object_get(d, "requested_bytes"));

	if (!st->last_oom_set || dev != st->last_oom_dev || req != st->last_oom_req)
		return 0;
	if (t->clock == OL_CLOCK_NONE || st->last_oom_t.clock == OL_CLOCK_NONE)
		return 1;
	return llabs(t->utc_ns - st->last_oom_t.utc_ns) <= 5 * NS_PER_S;
}

void srv_remember_oom(struct srv_st *st, json_t *d, const struct ol_time *t)
{
	st->last_oom_set = 1;
	st->last_oom_dev = json_integer_value(json_object_get(d, "device"));
	st->last_oom_req = json_integer_value(json_object_get(d, "requested_bytes"));
	st->last_oom_t = *t;
}

/* Write event e and drop its data. 0, or -1 when the sink failed. */
int srv_write_event(struct srv_st *st, struct ol_event *e)
{
	int64_t id = sink_event(st->s, e);

	json_decref(e->data);
	if (id < 0)
		return -1;
	st->records++;
	return 0;
}

/* Write the lone OOM held (pend), with phase ph when ph names one, else
 * the phase the frames printed below it name: frames that no traceback
 * joined (torchelastic's "Root Cause (first observed failure)" summary
 * of the failed rank, torch/distributed/elastic/multiprocessing/errors,
 * indents its "traceback :" under the failure), within SRV_MEM_FRAMES
 * lines of it, of its process, before any later event flushed it. A
 * whole traceback below is another exception's, placed by
 * srv_traceback_below() only when it follows at once; another worker's
 * lines (vLLM's lockstep workers) are that worker's. 0 or -1. */
int srv_pend_flush_by(struct srv_st *st, enum oom_phase ph, const char *by)
{
	const struct srv_mem *m = &st->mem;

	if (!st->pend)
		return 0;
	if (ph == OOM_PHASE_UNKNOWN && !m->served && !st->pend_tb && m->frame_loose &&
	    m->frame_pid == st->pend_e.pid && m->frame_line > st->pend_e.line &&
	    m->frame_line - st->pend_e.line <= SRV_MEM_FRAMES)
		ph = m->frame;
	st->pend = 0;
	st->pend_tb = 0;
	st->pend_cand = OOM_PHASE_UNKNOWN;
	if (ph != OOM_PHASE_UNKNOWN) {
		json_object_set_new(st->pend_e.data, "phase", json_string(oom_phase_name(ph)));
		json_object_set_new(st->pend_e.data, "phase_by", json_string(by));
	}
	return srv_write_event(st, &st->pend_e);
}

/* pend_flush_by, placed (when ph or the frames below name a phase) by
 * frames. */
int srv_pend_flush(struct srv_st *st, enum oom_phase ph)
{
	return srv_pend_flush_by(st, ph, "frames");
}

/* Write event e (its data is taken), after the lone OOM held. 0 or -1. */
int srv_put_event(struct srv_st *st, struct ol_event *e)
{
	if (srv_pend_flush(st, OOM_PHASE_UNKNOWN) < 0) {
		json_decref(e->data);
		return -1;
	}
	return srv_write_event(st, e);
}

/* Hold e (its data taken) until the piece after it names its phase (tb:
 * it ended a traceback; then only a stage-failed line does). 0 or -1. */
int srv_pend_hold(struct srv_st *st, struct ol_event *e, int tb)
{
	if (srv_pend_flush(st, OOM_PHASE_UNKNOWN) < 0) {
		json_decref(e->data);
		return -1;
	}
	st->pend_e = *e;
	snprintf(st->pend_summary, sizeof(st->pend_summary), "%s", e->summary);
	st->pend_e.summary = st->pend_summary;
	st->pend = 1;
	st->pend_tb = tb;
	st->pend_end = st->in->lineno;
	st->pend_cand = OOM_PHASE_UNKNOWN;
	return 0;
}

/* 1 when the traceback just joined may be the lone OOM held's own: its
 * exception line was cut (frames only), or it tells a memory failure
 * again. Python's logging prints a record's message, then its traceback
 * under the same prefix (logging.Formatter.format appends exc_text), so
 * vLLM V0's engine process logs the OOM's text first and its traceback
 * after it (vllm/engine/multiprocessing/engine.py@v0.7.3 run_mp_engine:
 * logger.exception(e), then raise e, whose traceback multiprocessing
 * prints raw, ending in the same exception). A traceback that ends in
 * another error is a later, different failure's: its frames do not
 * place the OOM. asyncio's own log headings are no exception line:
 * "Exception in callback H" (events.py Handle._run, logged by
 * base_events.py default_exception_handler with the traceback below
 * it) opens the next record, so a traceback that seems to end in one
 * lost its own exception line to a cut, as one with frames only. */
static int same_failure(const struct srv_st *st)
{
	static const char cb[] = "Exception in callback ";
	const struct srv_join *j = &st->join;
	struct memfail mf;

	if (j->text_n >= sizeof(cb) - 1 && !memcmp(j->text, cb, sizeof(cb) - 1))
		return 1;
	return !j->text_n || torch_oom_text(j->text, j->text_n) ||
	       memfail_line(j->text, j->text_n, &mf);
}

/* A traceback starting at line `line` just after a failure that named
 * no phase: its frames name the phase that failure happened in (a
 * chained exception's second traceback, a THCudaCheck line's own). The
 * lone OOM held is written with it; the memory failure held takes it,
 * also one waiting far above (srv_mem_far_below). 0 or -1. */
int srv_traceback_below(struct srv_st *st, uint64_t line, const char *tb)
{
	int rank = 0, r;
	enum oom_phase ph = st->mem.served ? OOM_PHASE_UNKNOWN
			    : memfail_phase_hint_ranked(tb, strlen(tb), &rank);

	if ((r = srv_mem_far_below(&st->mem, st->s, ph, rank, line, st->join.text,
				   st->join.text_n)) != 0)
		return r < 0 ? -1 : srv_pend_flush(st, OOM_PHASE_UNKNOWN);
	if (ph == OOM_PHASE_UNKNOWN)
		return srv_pend_flush(st, OOM_PHASE_UNKNOWN);
	if (st->pend && !st->pend_tb && line >= st->pend_e.line &&
	    line - st->pend_e.line <= SRV_MEM_REPEAT && !same_failure(st))
		return srv_pend_flush(st, OOM_PHASE_UNKNOWN);
	if (st->pend && !st->pend_tb && line >= st->pend_e.line &&
	    line - st->pend_e.line <= SRV_MEM_REPEAT)
		return srv_pend_flush(st, ph);
	srv_mem_below(&st->mem, ph, rank, line);
	return srv_pend_flush(st, OOM_PHASE_UNKNOWN);
}

/* A log printed newest first (a console export such as RunPod's): a
 * start-up phase's line just below the lone OOM held was printed before
 * the failure and names the phase it happened in. The log shows it is
 * reversed by its stamps: that line's is earlier than the OOM's, or,
 * when the OOM line has none, a later line's is earlier than that
 * line's. The lone OOM is then written with that phase. 0 or -1. */
int srv_phase_printed_before(struct srv_st *st, const struct srv_line *l, uint64_t lineno,
				unsigned marks)
{
	enum oom_phase ph;

	if (!st->pend || st->pend_tb)
		return 0;
	if (st->pend_cand != OOM_PHASE_UNKNOWN) {
		if (l->t.clock != OL_CLOCK_NONE && l->t.utc_ns < st->pend_cand_t.utc_ns)
			return srv_pend_flush_by(st, st->pend_cand, "stage_line");
		return 0;
	}
	if (!(marks & MEMFAIL_MARK_PHASE) || lineno <= st->pend_e.line ||
	    lineno - st->pend_e.line > SRV_MEM_REPEAT || l->t.clock == OL_CLOCK_NONE)
		return 0;
	ph = memfail_phase_line(l->msg, l->n);
	if (ph < OOM_PHASE_LOAD_WEIGHTS || ph > OOM_PHASE_WARMUP)
		return 0;
	if (st->pend_e.t.clock == OL_CLOCK_NONE) {
		st->pend_cand = ph;     /* known reversed only by a later stamp */
		st->pend_cand_t = l->t;
		return 0;
	}
	return l->t.utc_ns < st->pend_e.t.utc_ns ? srv_pend_flush_by(st, ph, "stage_line") : 0;
}

/* A line printed after a failure naming the stage that failed
 * (memfail_phase_after: "Stable diffusion model failed to load" below
 * the OOM's traceback) places the OOM or the memory failure held that
 * ended at most SRV_MEM_REPEAT lines above and nothing placed. 0 or -1. */
int srv_stage_failed_below(struct srv_st *st, const struct srv_line *l, uint64_t lineno,
			      unsigned marks)
{
	enum oom_phase ph;

	if (!(marks & MEMFAIL_MARK_PHASE) || st->mem.served || (!st->pend && !st->mem.held) ||
	    (ph = memfail_phase_after(l->msg, l->n)) == OOM_PHASE_UNKNOWN)
		return 0;
	if (st->pend && lineno >= st->pend_end && lineno - st->pend_end <= SRV_MEM_REPEAT)
		return srv_pend_flush(st, ph);
	srv_mem_below(&st->mem, ph, 0, lineno);
	return 0;
}

/* The same failure raised again just below the lone OOM held, by what
 * ran it: Ray's RayTaskError names the remote task that raised ("ray.
 * exceptions.RayTaskError(OutOfMemoryError): ray::FSDPPolicyWorkerBase.
 * init_model() (pid=...)", python/ray/exceptions.py RayTaskError, 2.x),
 * a test runner's summary line quotes it. Where that line's own words
 * place it (memfail_line()'s phase: the task's method, phase_table.c),
 * the OOM held, unplaced and ending at most SRV_MEM_REPEAT lines above,
 * takes that phase (round 7: NovaSky-AI/SkyRL PR 1221). 0 or -1. */
int srv_raised_again_below(struct srv_st *st, const struct srv_line *l, uint64_t lineno,
			      unsigned marks)
{
	struct memfail mf;

	if (!st->pend || st->pend_tb || st->mem.served || !(marks & MEMFAIL_MARK_FAILURE) ||
	    lineno < st->pend_end || lineno - st->pend_end > SRV_MEM_REPEAT ||
	    !memfail_line(l->msg, l->n, &mf) || mf.phase == OOM_PHASE_UNKNOWN)
		return 0;
	return srv_pend_flush(st, mf.phase);
}

/* uvicorn's access line answering a POST with 5xx (raw[0..n)) just below
 * the lone OOM held, unplaced and ending at most SRV_MEM_REPEAT lines
 * above: the response of the request whose handling raised it. uvicorn
 * listens only once the app's start-up finished, and it logs the 500 its
 * exception handler sends for the failed request (the ASGI traceback
 * follows), so the OOM happened serving that request (round 8, vLLM's
 * OpenAI server: an AWQ dequantize OOM answered 500). 0 or -1. */
int srv_request_failed_below(struct srv_st *st, const char *raw, size_t n)
{
	uint64_t lineno = st->in->lineno;

	if (!st->pend || st->mem.served || lineno < st->pend_end ||
	    lineno - st->pend_end > SRV_MEM_REPEAT || !srv_access_post_failed(raw, n))
		return 0;
	return srv_pend_flush_by(st, OOM_PHASE_SERVING, "request_failed");
}

