/*
 * server_memfail.h -- the server-log parser's side of the generic
 * memory-failure recogniser (parsers/serving/memfail.h): which phase of
 * its life the program is in, line after line, and each failure a line
 * reports as one mem_failure event.
 *
 * The phase follows the engines' start-up lines (loading weights,
 * profiling, the KV cache, graph capture, warm-up) and becomes
 * "serving" for good once a request was served (a request line, or a
 * statistics line with requests running). A failure is held for up to
 * SRV_MEM_FOLLOW lines, so that the lines that go on telling it
 * (llama.cpp's callers one per line, CUDA's "current device: N", Metal's
 * command-buffer status) add their figures and phase to the same event
 * instead of counting again; the same failure told again within
 * SRV_MEM_REPEAT lines (a message and its echo) is one event with a
 * repeat count.
 */
#ifndef OOMLENS_SERVER_MEMFAIL_H
#define OOMLENS_SERVER_MEMFAIL_H

#include "parsers/serving/server_answers.h"

#include <stdint.h>
#include "parsers/serving/memfail.h"
#include "parsers/serving/server_unwrap.h"
#include "parsers/common/sink.h"

#define SRV_MEM_FOLLOW 4
#define SRV_MEM_REPEAT 8
#define SRV_MEM_TEXT 400
#define SRV_MEM_FRAMES 40            /* a frame names the phase of a failure
				      * this many lines after it, at most */
#define SRV_MEM_FRAME_SRC 4          /* a frame's source and caret lines
				      * below its 'File' line, at most */
#define SRV_MEM_FRAME_GAP 2          /* lines from a frame run's end to
				      * the next frame line, at most */
#define SRV_MEM_FAR 24               /* a traceback starting this many lines
				      * after a failure nothing placed, with no
				      * other error or request between, is its
				      * own (a reporter's prose between) */

struct srv_mem {
	enum oom_phase phase;        /* the log's phase so far */
	int served;                  /* a request was served: phase is serving */
	enum oom_phase frame;        /* the best phase named by the lines just
				      * before (a traceback's frames), */
	int frame_rank;              /* its rank (memfail_phase_hint_ranked: a
				      * later frame of no worse rank wins), */
	uint64_t frame_line;         /* and where; 0: none */
	int frame_loose;             /* 1: named by lines no traceback joined
				      * (srv_mem_line), 0: by a whole traceback */
	int64_t frame_pid;           /* the loose line's pid, or OL_NULL */
	uint64_t frame_run;          /* the last line of the unbroken run of
				      * frame lines (srv_mem_frame_run) the
				      * loose frame is in; 0: none */
	uint64_t frame_file;         /* the run's last 'File "..."' line */
	int frame_armed;             /* 1 from a frame noted until a line past
				      * its run's gap: srv_mem_frame_run() can
				      * only then extend the run, and is only
				      * then called (read_line) */
	int stack, stack_rank;       /* the training stack the log's frames and
				      * lines name (enum vocab_stack), -1 none;
				      * its precedence (memfail_stack_hint) */
	int repl;                    /* 1: a statement typed at Python's prompt
				      * was read (srv_mem_repl_statement): each
				      * later one begins a new stage */
	int stage_projector;         /* 1: the last stage line that set phase
				      * was a PM_PROJECTOR row */
	int stage_load;              /* 1: the last stage line that set phase
				      * was a PM_RELOAD row (a model's load from
				      * its files): frames whose names say the
				      * program ran after it still place a
				      * failure (server_memfail.c ran_past_load) */
	const char *stage_app;       /* the program the last stage line that set
				      * phase was read from (phase_table.h's
				      * engine: "whisper.cpp"...), NULL none:
				      * the event's "app" when that line placed
				      * the failure (the advice names its knobs) */
	int inference;               /* DeepSpeed's inference engine was named:
				      * no training stack from then on */
	int input_op;                /* 1 + the row of the last operation a
				      * frame named whose memory one input
				      * sizes (input_ops.h), 0 none, */
	uint64_t input_op_line;      /* and where */
	/* the failure held */
	int held;
	struct memfail f;            /* its phase: what its own lines name */
	enum oom_phase ctx;          /* the frames just above it (the traceback
				      * it ends) or the log's phase */
	int ctx_frame;               /* 1: ctx is those frames' */
	int ctx_words;               /* 1: those frames named it by their
				      * names alone (frame_words.h) */
	int ctx_load;                /* 1: ctx is the log's phase, placed by a
				      * PM_RELOAD line (stage_load) */
	int ctx_projector;           /* 1: ctx is the log's phase, placed by a
				      * PM_PROJECTOR stage line (a multimodal
				      * projector's warm-up): its graph failed */
	enum oom_phase below;        /* the best phase the frames of the
				      * traceback printed just after it name
				      * (a THCudaCheck line, then its
				      * traceback), */
	int below_rank;              /* its precedence */
	struct ol_time t;
	int64_t pid;
	uint64_t line, last_line;    /* where it was told, and last added to */
	int header;                  /* 1: its line heads its own traceback
				      * (IPython's "OutOfMemoryError  Traceback
				      * (most recent call last)"): the frames
				      * below it, to SRV_MEM_FRAMES lines, are its */
	int far;                     /* 1: held past SRV_MEM_REPEAT, waiting
				      * for its traceback (srv_mem_far_below) */
	int interrupted;             /* 1: another error was told after it */
	int confirmed;               /* 1: an error was told after it: a kvcached
				      * pool shortfall (MF_KVCACHED) is a failure
				      * only then, else flush() drops it */
	int repeats;
	char text[SRV_MEM_TEXT];
	size_t text_n;
	int records;                 /* events written */
	/* the last failure an engine_error event told (told_error): a line
	 * of its family within SRV_MEM_FOLLOW lines after it goes on telling
	 * it (NCCL's "Failed to CUDA calloc N bytes" after its "Cuda failure
	 * 'out of memory'") */
	uint64_t told_line;
	enum memfail_family told_family;
	/* where the log's phase last changed (its last stage line, or the
	 * first request served): that line's time and number; stage_line 0:
	 * never. Written at the end as meta server.last_stage, for the
	 * failures of the incident's other pastes (analyzer/derive/oom.c) */
	struct ol_time stage_t;
	uint64_t stage_line;
	/* the epoch counter that stage line named (stage_epoch.h), set by
	 * the log's reader; stage_epoch_named 0: none */
	int stage_epoch_named;
	long stage_epoch;
	/* the requests' answers and the engine's restarts, in order
	 * (server_answers.h): written at the end as meta server.answers */
	struct srv_answers answers;
};

void srv_mem_init(struct srv_mem *m);

/* The phase a failure told now is in: serving once a request was
 * served, else hint (from its own text) when it names one, else the
 * log's. */
/* 1 when frames that name phase ph by their names alone (frame_words.h:
 * generate, train, evaluate) say the program had gone past the model's
 * load that a PM_RELOAD line (phase_table.h) put the log in (load_line:
 * stage_load or ctx_load): a load line says only that a load began, the
 * frames what ran when the failure came ("Loading checkpoint shards:
 * 100%" then model.generate's frame). Round 14, w-startup15. */
int srv_mem_ran_past_load(int load_line, enum oom_phase ph);

/* 1 when exc[0..en), an exception's message line read by its own reader
 * (server_log.c emit: a CUDA OOM), is the message of the IPython
 * traceback whose header the failure held was read from (it starts with
 * the header's exception name and a colon): the held failure is that
 * one, released unwritten, and *ph is the phase its frames named (or
 * unknown). 0 otherwise, m unchanged (set 13 spent, w-spend13d). */
int srv_mem_header_told(struct srv_mem *m, const char *exc, size_t en, enum oom_phase *ph);
enum oom_phase srv_mem_phase(const struct srv_mem *m, enum oom_phase hint);

/* Note that a request was served (the phase is serving from now on). */
void srv_mem_served(struct srv_mem *m);

/* 1 when a line's record header prefix[0..n) (server_unwrap.h's
 * l->prefix) names a module that logs only while it handles a request
 * (vLLM's serving_chat.py, serving_completion.py), else 0. */
int srv_mem_request_logger(const char *prefix, size_t n);

/* How a failure's phase ph was decided, for its event's "phase_by" (the
 * oom row's phase_source, docs/schema.md): "request_served" (a request
 * was served before it: served), "frames" (its own words or its
 * traceback's frames: own, the phase they named), "stage_line" (the last
 * stage line the engine printed before it: logph, the log's phase then),
 * "startup_lines" (the structural rule: only start-up lines, no stage
 * named, no request served); NULL when ph is unknown. */
const char *srv_mem_phase_by(int served, enum oom_phase own, enum oom_phase logph,
			     enum oom_phase ph);

/* One line l (line lineno) outside any traceback or PyTorch message,
 * with marks (engine_line's MEMFAIL_MARK_* bits) and told_error: 1 when
 * the line's memory error is already an engine_error event (then it is
 * not counted again). 1 when the line was a failure or its continuation,
 * 0 when not, -1 when the sink failed. */
int srv_mem_line(struct srv_mem *m, struct sink *s, const struct srv_line *l, uint64_t lineno,
		 unsigned marks, int told_error);

/* Note the training stack text[0..n) names, when it wins over the one
 * noted so far (memfail_stack_hint's precedence). */
void srv_mem_stack(struct srv_mem *m, const char *text, size_t n);

/* Add the log's training stack to event data d ("stack"), when one was
 * named. */
void srv_mem_put_stack(const struct srv_mem *m, json_t *d);

/* Note that the traceback at lineno, just after the failure held, names
 * phase ph with rank (memfail_phase_hint_ranked): the failure takes it
 * when its own lines named none, a later line of no worse rank (an
 * inner frame) over an earlier one. Nothing when none is held. */
void srv_mem_below(struct srv_mem *m, enum oom_phase ph, int rank, uint64_t lineno);

/* A whole traceback starting at lineno, whose frames name phase ph with
 * rank, and whose exception is exc[0..en) (en 0: cut before it), printed
 * further below the failure held than SRV_MEM_REPEAT lines (the error
 * first, then the reporter's prose, then the traceback): the failure
 * takes ph when it is still held waiting for it (nothing placed it; no
 * other error, no request and no other failure came between, within
 * SRV_MEM_FAR lines) and the exception is none or a memory failure; an
 * exception of another kind is another error's traceback, and the
 * failure is written unplaced. 1 when the traceback was taken or the
 * failure written, 0 when the failure does not wait for it, -1 when the
 * sink failed. */
int srv_mem_far_below(struct srv_mem *m, struct sink *s, enum oom_phase ph, int rank,
		      uint64_t lineno, const char *exc, size_t en);

/* Note that the frames read at lineno (a line of a traceback cut above,
 * or the whole traceback of an exception that reported no failure
 * itself: TensorFlow's "ResourceExhaustedError: Graph execution error:"
 * whose message goes on "OOM when allocating tensor ...") name phase ph
 * with rank (memfail_phase_hint_ranked): a failure within SRV_MEM_FRAMES
 * lines after takes it when its own lines name none. */
/* A line read for Python's prompt: a statement after an earlier one
 * ends the stage the earlier one set (server_memfail.c). Never fails. */
void srv_mem_repl_line(struct srv_mem *m, const char *l, size_t n);

/* 1 when l[0..n) is a statement typed at Python's interactive prompt
 * (">>> " then the statement): server_memfail.c. */
int srv_mem_repl_statement(const char *l, size_t n);
void srv_mem_frame(struct srv_mem *m, enum oom_phase ph, int rank, uint64_t lineno);

/* Frames pasted without their "Traceback (most recent call last):" line
 * are read one by one (srv_mem_line: the loose frames); line lineno,
 * msg[0..n), outside any traceback, carries on the run of frame lines
 * the noted frame is in when it is a frame ('File "...", line N, in fn')
 * (the next line but one: a progress bar's line may come between), or a
 * frame's indented source or caret line just below one. The frame noted then stays in reach of a failure line
 * SRV_MEM_FRAMES lines below the run's end, however long the run, as a
 * traceback with its header is read whole. A line more than
 * SRV_MEM_FRAME_GAP below the run's end disarms it (m->frame_armed = 0):
 * the caller need call it only while m->frame_armed, so a log pays for
 * it inside a run of frames, not on every line after one. */
void srv_mem_frame_run(struct srv_mem *m, const char *msg, size_t n, uint64_t lineno);

/* The line up to which the frame noted reaches: the end of its run of
 * frame lines, else its own line; 0 when none is noted. */
uint64_t srv_mem_frame_end(const struct srv_mem *m);

/* Note that line lineno (time t, NULL: untimed) left the log's phase at
 * m->phase, when it changed it from before. */
void srv_mem_stage(struct srv_mem *m, enum oom_phase before, const struct ol_time *t,
		   uint64_t lineno);

/* A traceback the log ends inside, its exception line never printed
 * (tb, n: as printed; lineno: its first line): the paste was cut there
 * and the failure, if one, is in another paste of the incident (its
 * head in "01-traceback-head.log", its exception line in the next
 * file). When this log told no failure of its own, holds none and
 * served no request, the phase its frames name (memfail_phase_hint(),
 * a stage from load_weights to eval) becomes the log's last stage at
 * lineno, for the other pastes' failures (analyzer/derive/oom_paste.c);
 * nothing otherwise. Round 11, set 12 spent (w-spend12a). */
void srv_mem_cut_traceback(struct srv_mem *m, const char *tb, size_t n, uint64_t lineno);

/* Write the failure still held, the log's last stage (meta
 * server.last_stage: {phase, by, line, time_ns, clock}, when a stage line
 * or a request served placed one; not counted as a record) and its
 * answers (meta server.answers, server_answers.h). 0 or -1. */
int srv_mem_finish(struct srv_mem *m, struct sink *s);

/* The event data of failure f in phase ph: family, wording, figures,
 * phase (a new object). */
json_t *srv_mem_data(const struct memfail *f, enum oom_phase ph);

#endif
