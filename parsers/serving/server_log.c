/*
 * server_log.c -- inference server logs into events, series, engine rows
 * and meta.
 *
 * The parser is a loop over lines in steps, one file each:
 *   - server_unwrap.c takes the line's wrappers off (colours, times,
 *     "(Worker pid=N) " tags, the engines' record headers, the compose,
 *     journald, CI and quote wrappers of a paste), keeping what they said;
 *   - engine_lines.c reads what the line says of the engine's memory,
 *     and server_engine.c gives it to the engine instance it belongs to:
 *     its accounting (one engine row per instance at the end), its errors
 *     and preemptions (events);
 *   - server_join.c joins what runs over lines: a Python traceback up to
 *     its exception line, and PyTorch's OOM message printed or pasted
 *     over several lines; each finished piece becomes one event here: a
 *     CUDA OOM (parsers/torch/torch_oom_text.c reads its fields) gives
 *     torch_oom, any other traceback server_error (with the engine error
 *     its lines named);
 *   - server_stats.c writes the engine's statistics and counts the
 *     requests served into server.* series;
 *   - server_meta.c reads the configuration stated at start-up, and keeps
 *     the engine's main figures, as server.* meta;
 *   - server_held.c writes the events, and holds a lone OOM that nothing
 *     placed yet until a line below it names its phase.
 */
#include "parsers/serving/server_log.h"
#include "parsers/serving/server_held.h"
#include "parsers/serving/engine_lines.h"
#include "parsers/serving/server_engine.h"
#include "parsers/serving/server_deepspeed.h"
#include "parsers/serving/server_join.h"
#include "parsers/serving/server_meta.h"
#include "parsers/serving/server_memfail.h"
#include "parsers/serving/stage_epoch.h"
#include "parsers/serving/input_ops.h"
#include "parsers/serving/memfail_limit.h"
#include "parsers/serving/phase_table.h"
#include "parsers/serving/server_progress.h"
#include "parsers/serving/server_stats.h"
#include "parsers/serving/server_unwrap.h"
#include "parsers/common/seriesutil.h"
#include "parsers/torch/torch_oom_text.h"
#include "lib/timeutil.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* server_error's data: the exception's type (text before its first ':'). */
static json_t *error_data(const char *exc, size_t en, char *summary, size_t scap)
{
	const char *c = memchr(exc, ':', en);
	json_t *d = json_object();

	json_object_set_new(d, "exception_type", ol_json_strn(exc, c ? (size_t)(c - exc) : en));
	snprintf(summary, scap, "%.*s", (int)(en > 200 ? 200 : en), exc);
	return d;
}

/* The phase the frames of a traceback cut above line lineno name (the
 * lines just before it that srv_mem_line() saw), or unknown. */
static enum oom_phase frames_above(const struct srv_st *st, uint64_t lineno)
{
	const struct srv_mem *m = &st->mem;

	return m->frame_line && srv_mem_frame_end(m) <= lineno &&
	       lineno - srv_mem_frame_end(m) <= SRV_MEM_FRAMES
	       ? m->frame : OOM_PHASE_UNKNOWN;
}

/* The phase the frames above gave a memory failure held on the line
 * just before lineno: an exception's header alone on its line (PyTorch's
 * OutOfMemoryError class and a colon) is that failure, its message on
 * the next line the same one (a paste that broke the line after the
 * colon), and the header took the frames above it (srv_mem_line clears
 * them). */
static enum oom_phase frames_of_header(const struct srv_st *st, uint64_t lineno)
{
	const struct srv_mem *m = &st->mem;

	return m->held && m->ctx_frame && m->line + 1 == lineno ? m->ctx : OOM_PHASE_UNKNOWN;
}

/* One event from the piece's text exc[0..en) and traceback tb (NULL for
 * a lone message): torch_oom when exc is a CUDA OOM, else server_error.
 * Its phase: what exc names, else tb's frames, else the frames of a
 * traceback cut above it, else the log's. 0, or -1 when the sink failed. */
static int emit(struct srv_st *st, const char *exc, size_t en, const char *tb)
{
	const struct srv_join *j = &st->join;
	char summary[256];
	struct ol_event e = { .t = j->t, .pid = j->pid, .bytes = OL_NULL, .line = j->line,
			      .summary = summary };
	struct memfail mf;
	int failed = memfail_line(exc, en, &mf);
	/* once a request was served the phase is serving: no hint is read */
	enum oom_phase hint = failed ? mf.phase : OOM_PHASE_UNKNOWN, ph, own;
	const char *by;
	/* placed by nothing but the start-up lines: a traceback or frames
	 * printed below may still name the stage (pend_hold) */
	int unplaced;

	/* placed by the names of the program's own frames alone (the lowest
	 * tier, frame_words.h): a stage line of the log's wins over them */
	int words = 0, tbrank;

	if (tb && !st->mem.served && (hint == OOM_PHASE_UNKNOWN || hint == OOM_PHASE_STARTUP)) {
		enum oom_phase tbh = memfail_phase_hint_ranked(tb, strlen(tb), &tbrank);
		own = memfail_phase_pick(hint, tbh);
		words = own != hint && tbrank == MEMFAIL_RANK_WORDS;
		hint = own;
	}
	/* the message of an IPython traceback whose header was held as the
	 * failure: one failure, told here with its figures, placed by the
	 * frames the header's window read */
	if (torch_oom_text(exc, en) && srv_mem_header_told(&st->mem, exc, en, &ph) &&
	    memfail_phase_pick(hint, ph) != hint) {
		hint = memfail_phase_pick(hint, ph);
		words = 0;
	}
	own = memfail_phase_pick(hint, frames_above(st, j->line));
	if (own != hint)
		words = st->mem.frame_rank == MEMFAIL_RANK_WORDS;
	hint = own;
	own = memfail_phase_pick(own, frames_of_header(st, j->line));
	if (own != hint)
		words = 0;
	/* unless the line was a model's load and the frames say the program
	 * ran past it (server_memfail.h srv_mem_ran_past_load) */
	if (words && st->mem.phase != OOM_PHASE_UNKNOWN && st->mem.phase != OOM_PHASE_STARTUP &&
	    !srv_mem_ran_past_load(st->mem.stage_load, own))
		own = OOM_PHASE_UNKNOWN;
	ph = srv_mem_phase(&st->mem, own);
	/* round 18 (w-phase19): inference (a library's generate, an offline
	 * loop over a dataset) under a loop bar whose words say an
	 * evaluation ("Evaluating: 37%|", eval_bar), no request served: the
	 * evaluation's */
	if (ph == OOM_PHASE_SERVING && own == OOM_PHASE_SERVING && !st->mem.served && st->prog.last_eval)
		ph = OOM_PHASE_EVAL;
	by = srv_mem_phase_by(st->mem.served, own, st->mem.phase, ph);
	if (by && words && own == ph && !st->mem.served)
		by = "frame_names";
	unplaced = ph == OOM_PHASE_UNKNOWN ||
		   (ph == OOM_PHASE_STARTUP && own == OOM_PHASE_UNKNOWN && !st->mem.served);

	if (tb)
		srv_mem_stack(&st->mem, tb, strlen(tb));
	/* an exception that is no failure itself may go on, below it, with
	 * the failure's own words (TensorFlow's "Graph execution error:",
	 * then "OOM when allocating tensor"): its frames place that line */
	if (tb && !failed && !torch_oom_text(exc, en) && !st->mem.served) {
		int rank;
		enum oom_phase tbph = memfail_phase_hint_ranked(tb, strlen(tb), &rank);
		if (tbph != OOM_PHASE_UNKNOWN)
			srv_mem_frame(&st->mem, tbph, rank, st->in->lineno);
		if (st->mem.frame_line == st->in->lineno)
			st->mem.frame_loose = 0;
	}

	if (torch_oom_text(exc, en)) {
		e.kind = vocab_event_kind(VE_TORCH_OOM);
		e.data = torch_oom_fields(exc, en, &e.bytes, summary, sizeof(summary));
		if (!tb && srv_dup_oom(st, e.data, &e.t)) {
			json_decref(e.data);
			return 0;
		}
		srv_remember_oom(st, e.data, &e.t);
		/* PyTorch's own message: its family, unless a wording names a
		 * more precise one (HIP, MPS); the generic "out of memory" of
		 * "would exceed allowed memory. (out of memory)" is PyTorch's */
		json_object_set_new(e.data, "family",
				    json_string(memfail_family_name(failed && mf.family != MF_UNKNOWN
								    ? mf.family : MF_TORCH)));
		json_object_set_new(e.data, "phase", json_string(oom_phase_name(ph)));
		/* which memory: MPS's, an XPU's, an NPU's, else a CUDA card's */
		json_object_set_new(e.data, "scope", json_string(vocab_scope(failed ? mf.scope
										  : VSC_GPU)));
	} else if (failed) {   /* any other stack's memory failure, raised */
		e.kind = "mem_failure";
		e.data = srv_mem_data(&mf, ph);
		memfail_put_figures(e.data, &mf, exc, en);
		e.bytes = mf.requested_bytes >= 0 ? mf.requested_bytes : OL_NULL;
		snprintf(summary, sizeof(summary), "%s memory failure (%s): %.*s",
			 memfail_family_name(mf.family), oom_phase_name(ph),
			 (int)(en > 160 ? 160 : en), exc);
		json_object_set_new(e.data, "engine_error", st->piece_error
				    ? json_string(engine_error_name(st->piece_error)) : json_null());
	} else {
		e.kind = vocab_event_kind(VE_SERVER_ERROR);
		e.data = error_data(exc, en, summary, sizeof(summary));
		json_object_set_new(e.data, "engine_error", st->piece_error
				    ? json_string(engine_error_name(st->piece_error)) : json_null());
	}
	if (!strcmp(e.kind, "torch_oom") || !strcmp(e.kind, "mem_failure")) {
		srv_mem_put_stack(&st->mem, e.data);
		srv_mem_put_input_op(&st->mem, e.data, st->in->lineno, tb);
		if (by)
			json_object_set_new(e.data, "phase_by", json_string(by));
	}
	json_object_set_new(e.data, "exception", ol_json_strn(exc, en > 2000 ? 2000 : en));
	json_object_set_new(e.data, "traceback", tb ? ol_json_strn(tb, strlen(tb)) : json_null());
	/* TensorRT-LLM's exception carries its C++ stack below the message
	 * (tllmException.h): a traceback whose Python frames named no phase
	 * waits for those frames as a lone OOM does */
	if (unplaced && st->piece_error == EE_TRT_OOM)
		return srv_pend_hold(st, &e, 0);
	/* TensorFlow 1.x prints the op that failed on the line below its
	 * exception ("\t [[Node: gradients/... = ...]]", the OpError's
	 * message, errors_impl.py@v1.12.0), outside the piece: its graph-mode
	 * failure waits for it as PyTorch's does (srv_stage_failed_below:
	 * the op's scope, phase_rows_training.inc AN rows). Round 16 (w-phase17) */
	if (unplaced && (!strcmp(e.kind, "torch_oom") || (failed && mf.family == MF_TF_BFC)))
		return srv_pend_hold(st, &e, tb != NULL);
	return srv_put_event(st, &e);
}

/* A C++ program's last words, "terminate called after throwing an
 * instance of 'std::runtime_error'" (NCCL's watchdog, TensorRT-LLM): a
 * server_error of that exception type. 0, or -1 when the sink failed. */
static int cxx_abort(struct srv_st *st)
{
	static const char lead[] = "terminate called after throwing an instance of '";
	const struct srv_line *l = &st->line;
	const char *type = l->msg + sizeof(lead) - 1, *q;
	char summary[256];
	struct ol_event e;

	if (l->n < sizeof(lead) || l->msg[0] != 't' || memcmp(l->msg, lead, sizeof(lead) - 1) ||
	    !(q = memchr(type, '\'', l->n - (size_t)(type - l->msg))))
		return 0;
	e = (struct ol_event){ .kind = vocab_event_kind(VE_SERVER_ERROR), .t = l->t,
			.pid = l->pid, .bytes = OL_NULL,
			       .line = st->in->lineno, .summary = summary };
	e.data = json_pack("{s:o, s:o, s:n, s:n}", "exception_type",
			   ol_json_strn(type, (size_t)(q - type)), "exception",
			   ol_json_strn(l->msg, l->n > 2000 ? 2000 : l->n), "traceback", "engine_error");
	snprintf(summary, sizeof(summary), "%.*s", (int)(l->n > 200 ? 200 : l->n), l->msg);
	return srv_put_event(st, &e) < 0 ? -1 : 1;
}

/* The finished piece of server_join.c as an event: a traceback always, a
 * lone message when it is PyTorch's message proper. */
static int take_piece(struct srv_st *st)
{
	struct srv_join *j = &st->join;
	const char *tb;
	int oom, r = 0;

	if (srv_join_open(j) == SRV_LONE) {
		if (torch_oom_message(j->text, j->text_n))
			r = emit(st, j->text, j->text_n, NULL);
	} else if (srv_join_open(j) != SRV_NONE) {
		tb = srv_join_traceback(j, &oom);
		if (!oom && tb && srv_traceback_below(st, j->line, tb) < 0)
			oom = 1;
		if (oom)
			r = -1;
		else if (!j->text_n && sink_diagf(st->s, j->line, 0, OL_WARN,
				"traceback without its exception line (log cut?)") < 0)
			r = -1;
		else if (j->text_n)
			r = emit(st, j->text, j->text_n, tb);
		else
			r = emit(st, "traceback without exception line", 32, tb);
	}
	srv_join_clear(j);
	st->piece_error = EE_NONE;
	return r;
}

/* What the line says of the engine: its instance's accounting, errors,
 * statistics and the figures kept as meta. in_piece: the line went into
 * a traceback or a PyTorch message. 0 or -1. */
static int engine_facts(struct srv_st *st, const struct engine_line *el, int in_piece)
{
	const struct srv_line *l = &st->line;
	enum engine_error err;
	char ent[64];

	if (srv_engine_line(&st->engines, st->s, l, el, st->in->lineno, in_piece, ent,
			    sizeof(ent), &err) < 0)
		return -1;
	if (in_piece && err && !st->piece_error)
		st->piece_error = err;
	if (srv_stats_engine(&st->stats, st->s, el, ent, &l->t) < 0)
		return -1;
	return srv_meta_facts(&st->meta, st->s, el);
}

/* 1 for an engine error that says memory ran out (not a dead engine,
 * not a retraction). */
static int memory_error(enum engine_error k)
{
	return k != EE_NONE && k != EE_ENGINE_DEAD && k != EE_RETRACT && k != EE_SHARD_CANNOT_START &&
	       k != EE_EXPANDABLE_UNSUPPORTED && k != EE_CUMEM_ERROR;
}

/* The phase and wording family an engine_error event of this line will
 * carry (server_engine.c writes it): what the line names, else the
 * frames of the traceback it ends (a TGI shard's "in warmup"), or of one
 * cut above it, else the log's phase. */
static void error_phase(struct srv_st *st, const struct engine_line *el)
{
	const struct srv_line *l = &st->line;
	const struct strbuf *tb = &st->join.tb;
	struct memfail mf;
	int failed = (el->memfail & MEMFAIL_MARK_FAILURE) && memfail_line(l->msg, l->n, &mf);
	/* once a request was served the phase is serving: no hint is read */
	enum oom_phase ph = failed ? mf.phase
			    : st->mem.served ? OOM_PHASE_UNKNOWN : memfail_phase_hint(l->msg, l->n);

	if ((ph == OOM_PHASE_UNKNOWN || ph == OOM_PHASE_STARTUP) && !st->mem.served &&
	    srv_join_open(&st->join) != SRV_NONE && tb->len)
		ph = memfail_phase_pick(ph, memfail_phase_hint(tb->buf, tb->len));
	ph = memfail_phase_pick(ph, frames_above(st, st->in->lineno));
	st->engines.phase = srv_mem_phase(&st->mem, ph);
	st->engines.phase_by = srv_mem_phase_by(st->mem.served, ph, st->mem.phase,
						st->engines.phase);
	/* the engine's own wording has no family; the generic "out of memory"
	 * in it ("Decode out of memory.") names none either */
	st->engines.family = failed && mf.family != MF_UNKNOWN ? memfail_family_name(mf.family)
							      : NULL;
}

/* The current line as the rest of the error line held before it: a
 * paste wrapped "... ::cudaMallocAsync(ptr, n, mCudaSt" before "ream->get()):
 * out of memory (...)", which alone is no failure. Only a line that goes
 * on mid-word (no space first) and fits is joined. 1 when joined. */
static int rewrap(struct srv_st *st)
{
	struct srv_line *l = &st->line;
	size_t w = st->wrap_n;

	if (!l->n || l->msg[0] == ' ' || l->msg[0] == '\t' || w + l->n + 1 > sizeof(l->buf))
		return 0;
	memmove(l->buf + w, l->msg, l->n + 1);
	memcpy(l->buf, st->wrap, w);
	l->msg = l->buf;
	l->n += w;
	return 1;
}

/* 1 when line l is an engine's start-up banner (a PM_RESTART row,
 * phase_table.h) after a request served or a failure since the log's
 * current run began: a new engine process (srv_engine_new_run). A
 * sibling's banner with nothing between (a second data-parallel engine
 * core starting beside the first) begins none. */
static int new_run_line(struct srv_st *st, const struct srv_line *l)
{
	unsigned fl;
	int failures = st->mem.records + (st->mem.held != 0);

	if (!st->mem.served && failures <= st->engines.run_mark)
		return 0;
	if (memfail_phase_line_flags(l->msg, l->n, &fl) == OOM_PHASE_UNKNOWN || !(fl & PM_RESTART))
		return 0;
	st->engines.run_mark = failures;
	return 1;
}

/* Round 16 (w-phase17). TensorFlow 1.x prints under a graph-mode op's
 * failure where that op was built: "Caused by op 'gradients/conv_grad',
 * defined at:" and the Python frames that defined it, then, for an op
 * copied from another, "...which was originally created as op 'x',
 * defined at:" and more (OpError.__str__, tensorflow/python/framework/
 * errors_impl.py@v1.12.0: traceback.format_list(self._op.traceback)).
 * Those frames ran when the graph was built -- a model's constructor, a
 * build_model, an optimizer's minimize -- not when the step that failed
 * ran: they name no phase (the op's name does: phase_rows_training.inc
 * AN rows). 1 when line l (number lineno) is such a header or one of the
 * indented frame and source lines right under it. */
static int def_frames(struct srv_st *st, const struct srv_line *l, uint64_t lineno)
{
	if (st->def_line && lineno == st->def_line + 1 && l->n > 0 &&
	    (l->msg[0] == ' ' || l->msg[0] == '\t')) {
		st->def_line = lineno;
		return 1;
	}
	st->def_line = 0;
	if (l->n > 12 && mem_find(l->msg, l->n, ", defined at:") &&
	    (mem_find(l->msg, l->n, "Caused by op ") || mem_find(l->msg, l->n, "created as op "))) {
		st->def_line = lineno;
		return 1;
	}
	return 0;
}

/* Round 16 (w-phase17): a loop's bar (srv_progress_line: not a load's
 * or a data preparation's bar, not finished) drawn while the log's phase
 * is a model's load that a PM_RELOAD line set ("Loading checkpoint
 * shards", which tqdm ends at 100%): the load is over, the program runs
 * its loop. The stage becomes what the bar's words say (eval, training:
 * srv_progress_bar_phase), else unknown -- a failure after it is not the
 * load's. Nothing once a request was served, while srv_mem holds a
 * failure, or while a traceback is still open (its failure takes the
 * log's phase when the piece is taken: a bar drawn just after the
 * failure, by another process of the same run, does not place it: set
 * 15's BitDistiller row, whose evaluation bar follows its quantisation's
 * traceback, lost its load in round 16). A lone failure waiting below
 * (st->pend) needs no such guard: its phase was written into its data
 * when it was read (take_piece, error_phase), a snapshot that only
 * what is printed below it may replace (srv_pend_flush_by). */
static void loop_past_load(struct srv_st *st, const char *m, size_t n)
{
	struct srv_mem *mem = &st->mem;

	if (mem->served || mem->held || srv_join_open(&st->join) != SRV_NONE ||
	    !mem->stage_load || mem->phase != OOM_PHASE_LOAD_WEIGHTS)
		return;
	mem->phase = srv_progress_bar_phase(m, n);
	mem->stage_load = mem->stage_projector = 0;
	mem->stage_app = NULL;
}

/* One unwrapped line, in order: what it says of the engine, the pieces
 * over lines, TGI's Args block, the requests served, the configuration.
 * 0 or -1. */
static int read_line(struct srv_st *st)
{
	const struct srv_line *l = &st->line;
	uint64_t lineno = st->in->lineno;
	struct engine_line el;
	int r, said, in_piece, access = 0, def;
	unsigned runs = 0;
	enum oom_phase ph;

	/* uvicorn's access lines, most of a busy server's log, are not
	 * scanned; its other "INFO:     " lines are (Aphrodite and TabbyAPI
	 * print their start-up through the same prefix) */
	if (l->n > 7 && !memcmp(l->msg, "INFO:  ", 7) && mem_find(l->msg, l->n, " HTTP/")) {
		said = 0;
		if (engine_kind_named(l->hint)) {
			memset(&el, 0, sizeof(el));
		} else {   /* only these are read: engine_facts() is not called */
			el.engine = ENGINE_NONE;
			el.config = 0;
			el.error = EE_NONE;
			el.stats_set = 0;
			el.memfail = 0;
		}
		el.train_log = 0;
		el.pressure = 0;
		el.ds_memory = 1;   /* not scanned: ds_memory_line() looks itself */
		access = 1;
	} else {
		said = srv_engine_read(&st->engines, l, &el, st->mem.served);
	}
	def = def_frames(st, l, lineno);
	if ((el.memfail & MEMFAIL_MARK_RESTART) && new_run_line(st, l)) {
		srv_engine_new_run(&st->engines);
		srv_answers_new_run(&st->mem.answers, lineno);
	}
	/* a bar on a line that names a start-up stage (tinygrad's weights'
	 * load "ram used: ...: 85%|", vLLM's "Loading safetensors checkpoint
	 * shards: 50% Completed | 1/2") is that stage's progress, not a
	 * training loop's (set 9 spent, w-spent9a) */
	if (!(el.memfail & MEMFAIL_MARK_PHASE) ||
	    (ph = memfail_phase_line(l->msg, l->n)) < OOM_PHASE_LOAD_WEIGHTS || ph > OOM_PHASE_WARMUP)
		if (srv_progress_line(&st->prog, l->msg, l->n, &l->t, lineno))
			loop_past_load(st, l->msg, l->n);
	if (el.train_log)   /* the scan found a Trainer's or DeepSpeed's label */
		srv_progress_logged(&st->prog, l->msg, l->n, &l->t, lineno);
	srv_engine_counts(&st->engines, l->msg, l->n, lineno);
	srv_answers_note(&st->mem.answers, srv_answer_of(l->msg, l->n), lineno);
	/* a memory failure's words inside a ComfyUI prompt: it failed, even
	 * where the paste lost its "!!! Exception" line (server_answers.h) */
	if (el.memfail & MEMFAIL_MARK_FAILURE)
		srv_answers_note(&st->mem.answers, SRV_ANS_PROMPT_FAILED, lineno);
	if (st->wrap_n) {   /* the line after an error line wrapped mid-word */
		if (lineno == st->wrap_line + 1 && (el.memfail & MEMFAIL_MARK_FAILURE) &&
		    !el.error && rewrap(st))
			said = srv_engine_read(&st->engines, l, &el, st->mem.served);
		st->wrap_n = 0;
	}
	if (el.wrap_open && l->n <= sizeof(st->wrap)) {
		memcpy(st->wrap, l->msg, l->n);
		st->wrap_n = l->n;
		st->wrap_line = lineno;
	}

	if (srv_join_ends_before(&st->join, l) && take_piece(st) < 0)
		return -1;
	if (access && st->pend && srv_request_failed_below(st, l->msg, l->n) < 0)
		return -1;
	in_piece = srv_join_feed(&st->join, l, lineno);
	if (el.error)
		error_phase(st, &el);
	if ((said || engine_kind_named(el.engine) || engine_kind_named(l->hint)) &&
	    engine_facts(st, &el, in_piece) < 0)
		return -1;
	/* an engine error left to us: held until the frames below name its
	 * phase, as a lone OOM is (pend_flush) */
	if (st->engines.held) {
		st->engines.held = 0;
		if (srv_pend_hold(st, &st->engines.held_ev, 0) < 0)
			return -1;
	}
	/* a lone failure message whose own line says a request reached the
	 * server (the HTTP error body returned for it, phase_table.c's
	 * serving lines): that request was being served when it failed */
	if (in_piece && !st->mem.served && srv_join_open(&st->join) == SRV_LONE &&
	    ((l->prefix_n == sizeof(SRV_ERROR_BODY) - 1 &&
	      !memcmp(l->prefix, SRV_ERROR_BODY, l->prefix_n)) ||
	     ((el.memfail & MEMFAIL_MARK_PHASE) &&
	      memfail_phase_line_flags(l->msg, l->n, &runs) == OOM_PHASE_SERVING &&
	      !(runs & PM_RUNS) && st->mem.answers.unserved_line != lineno)))
		srv_mem_served(&st->mem);
	/* a line under the record header of a module that logs only for
	 * requests (vLLM's serving_chat.py: srv_mem_request_logger) */
	if (!st->mem.served && !st->mem.held && srv_mem_request_logger(l->prefix, l->prefix_n))
		srv_mem_served(&st->mem);
	if (in_piece)
		return 0;
	if ((el.stats_set >> ES_RUNNING & 1) && el.stats[ES_RUNNING] > 0)
		srv_mem_served(&st->mem);
	if (srv_phase_printed_before(st, l, lineno, el.memfail) < 0 ||
	    srv_stage_failed_below(st, l, lineno, el.memfail) < 0 ||
	    srv_raised_again_below(st, l, lineno, el.memfail) < 0)
		return -1;
	if (st->mem.frame_armed)   /* inside a run of frame lines only */
		srv_mem_frame_run(&st->mem, l->msg, l->n, lineno);
	if (l->n > 4 && l->msg[0] == '>')   /* Python's prompt */
		srv_mem_repl_line(&st->mem, l->msg, l->n);
	if ((el.memfail || st->mem.held) &&
	    (r = srv_mem_line(&st->mem, st->s, l, lineno,
			      def ? el.memfail & ~MEMFAIL_MARK_PHASE : el.memfail,
			      el.error && memory_error(el.error))) != 0)
		return r < 0 ? -1 : 0;
	if ((r = cxx_abort(st)) != 0)
		return r < 0 ? -1 : 0;
	/* only a line whose scan found "Max_MA " (the anchor's prefilter) */
	if (el.ds_memory && (r = ds_memory_line(st->s, l->msg, l->n, &l->t)) != 0) {
		st->records += r > 0;
		return r < 0 ? -1 : 0;
	}
	if ((el.pressure & 1) && (r = srv_pressure_line(&st->pressure, st->s, l->msg, l->n,
						     lineno)) != 0) {
		st->records += r > 0;
		return r < 0 ? -1 : 0;
	}
	if ((r = srv_meta_args(&st->meta, st->s, l->msg, l->n)) != 0)
		return r < 0 ? -1 : 0;
	if ((r = srv_stats_line(&st->stats, st->s, l->msg, l->n, &l->t)) != 0) {
		srv_mem_served(&st->mem);
		return r < 0 ? -1 : 0;
	}
	return el.config ? srv_meta_line(&st->meta, st->s, l->msg, l->n) : 0;
}

/* uvicorn's own lines ('INFO:     10.0.0.7:51234 - "POST /v1/completions
 * HTTP/1.1" 200 OK'), most of a busy server's log, read from raw[0..n)
 * as it lies in the read buffer, when what srv_unwrap() and read_line()
 * would do with them is known: no wrapper starts with "INFO:" (the line
 * is its own message, at the last time seen), no engine phrase is read
 * in them, and with no piece open and no 'y' (no "memory") they join
 * nothing. What is left is the Args block and the requests served.
 * 1 when the line was read (*rc: 0 or -1), else 0: it takes the long way.
 * marked: 0 when input_getline() found no byte of SRV_SPECIAL_BYTES and
 * no 'y' in the line. */
static int uvicorn_line(struct srv_st *st, const char *raw, size_t n, int marked, int *rc)
{
	enum srv_answer a;
	int r;

	if (marked || n <= 7 || memcmp(raw, "INFO:  ", 7) ||
	    srv_join_open(&st->join) != SRV_NONE)
		return 0;
	*rc = 0;
	a = srv_answer_of_info(raw, n);   /* read once: the answers and the count */
	srv_answers_note(&st->mem.answers, a, st->in->lineno);
	if (!st->mem.served && mem_find(raw, n, "\" 200"))
		srv_mem_served(&st->mem);
	if (st->pend && srv_request_failed_below(st, raw, n) < 0) {   /* a lone OOM held */
		*rc = -1;
		return 1;
	}
	/* srv_meta_args() reads nothing else: in TGI's Args block, or its start */
	if ((st->meta.in_args || raw[n - 1] == '{') &&
	    (r = srv_meta_args(&st->meta, st->s, raw, n)) != 0)
		*rc = r < 0 ? -1 : 0;
	else if (a == SRV_ANS_SERVED &&
		 srv_stats_access_served(&st->stats, st->s, &st->line.last_t) < 0)
		*rc = -1;
	return 1;
}

/* 1 when a serving engine's lines are in the log: its bars (weights
 * loaded, graphs captured, prompts processed) are no training loop's. */
static int named_engine(const struct srv_engine *e)
{
	int k;

	for (k = 0; k < ENGINE__COUNT; k++)
		if (engine_kind_named((enum engine_kind)k) && e->lines[k])
			return 1;
	return 0;
}

/* A parser's state for input in and sink s; NULL when out of memory.
 * Freed with free() after srv_join_release(). */
static struct srv_st *srv_new(struct input *in, struct sink *s)
{
	struct srv_st *st = calloc(1, sizeof(*st));

	if (st) {
		st->s = s;
		st->in = in;
		srv_line_init(&st->line, s->opts ? s->opts->year : 0,
			      in->mtime > 0 ? in->mtime * NS_PER_S : 0);
		srv_join_init(&st->join);
		srv_engine_init(&st->engines);
		srv_mem_init(&st->mem);
		srv_progress_init(&st->prog);
		leakstmt_init(&st->leaks);
	}
	return st;
}

/* Round 17 (w-phase18): 1 when the line just unwrapped is another
 * rank's copy of the traceback line read just before it. torchrun's
 * workers print their tracebacks through the "[rankN]:" carrier
 * (torch/distributed/elastic: local_rank_prefix / the redirected
 * streams), and ranks that fail in lockstep print the same traceback at
 * once, line by line interleaved: "[rank0]: Traceback ...", "[rank1]:
 * Traceback ...", "[rank0]:   File ...", "[rank1]:   File ...". Read as
 * one stream, each twin line restarts or breaks the traceback (a second
 * "Traceback" header inside the first), and its frames are lost. While a
 * traceback is open, a line whose carrier names another rank than the
 * last such line's and whose text is that line's is the twin's copy: it
 * is not read again. Lines that differ (the ranks' own devices in their
 * OOM messages) are read as before. */
static int lockstep_twin(struct srv_st *st)
{
	const struct srv_line *l = &st->line;
	int twin;

	if (l->carrier_rank < 0) {
		st->twin_n = 0;
		return 0;
	}
	twin = st->twin_n && st->twin_rank != l->carrier_rank && l->n == st->twin_n &&
	       srv_join_open(&st->join) == SRV_FRAMES && !memcmp(st->twin, l->msg, l->n);
	if (!twin && l->n <= sizeof(st->twin)) {
		memcpy(st->twin, l->msg, l->n);
		st->twin_n = l->n;
		st->twin_rank = l->carrier_rank;
	} else if (!twin) {
		st->twin_n = 0;
	}
	return twin;
}

int server_log_parse(struct input *in, struct sink *s)
{
	struct srv_st *st = srv_new(in, s);
	const char *raw;
	size_t n;
	int rc = -1, r, r2 = 0, r3 = 0;

	if (!st)
		return -1;
	/* 'y' and 'B' told apart, in the same pass as the newline: a line
	 * without 'y' does not say "memory"; one without either holds no
	 * memory print ("5.65GB", "1234 MiB": memsamples_mixed's unit) */
	input_mark_bytes(in, SRV_SPECIAL_BYTES, "yB");
	while (input_getline(in, &raw, &n) == 1) {
		enum oom_phase before = st->mem.phase;

		if (in->line_also)   /* memory prints, any line with a 'B' */
			ms_mixed_line(&st->samples, raw, n);
		if (uvicorn_line(st, raw, n, in->line_marked | in->line_also, &r)) {
			if (r < 0)
				goto out;
			if (st->mem.phase != before)   /* srv_mem_stage's own test, */
				srv_mem_stage(&st->mem, before, NULL, in->lineno);
			continue;   /* not a call on every access line */
		}
		leakstmt_take(&st->leaks, raw, n);   /* "... leak" said by the program */
		if ((r = srv_unwrap(&st->line, raw, n, in->line_marked, s, in->lineno)) < 0 ||
		    (r == 0 && !lockstep_twin(st) && read_line(st) < 0))
			goto out;   /* r == 1: a CRI partial line, held */
		if (r == 0 && st->mem.phase != before) {
			srv_mem_stage(&st->mem, before, &st->line.t, in->lineno);
			if (st->mem.phase == OOM_PHASE_TRAINING_STEP &&
			    (st->mem.stage_epoch = stage_epoch(raw, n)) >= 0)
				st->mem.stage_epoch_named = 1;
		}
	}
	/* the input ends inside a traceback, before its exception line: a
	 * paste cut there (srv_mem_cut_traceback) */
	if (srv_join_open(&st->join) == SRV_FRAMES && !st->join.text_n)
		srv_mem_cut_traceback(&st->mem, st->join.tb.buf, st->join.tb.len, st->join.line);
	if (take_piece(st) < 0 || srv_pend_flush(st, OOM_PHASE_UNKNOWN) < 0 ||
	    srv_mem_finish(&st->mem, s) < 0 ||
	    srv_stats_finish(&st->stats, s) < 0 ||
	    (r = srv_progress_finish(&st->prog, s, !named_engine(&st->engines))) < 0 ||
	    srv_engine_finish(&st->engines, s) < 0 ||
	    (r2 = ms_mixed_finish(&st->samples, s)) < 0 ||
	    (r3 = leakstmt_finish(&st->leaks, s)) < 0)
		goto out;
	rc = r2 + r3 + st->records + st->stats.records + st->meta.records + st->engines.records +
	     st->mem.records + r;
out:
	srv_join_release(&st->join);
	srv_engine_release(&st->engines);
	free(st);
	return rc;
}
