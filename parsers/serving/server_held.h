/*
 * server_held.h -- the server-log parser's state, shared by its two files,
 * and the lone OOM it holds until a line below places it.
 *
 * server_log.c reads the lines; server_held.c writes events and keeps the
 * lone OOM (or engine error) that nothing placed yet, and places it by
 * what is printed just below it: a traceback's frames, a start-up stage
 * printed newest first, a stage-failed line, the failure raised again,
 * the request answered 5xx. Private to those two files.
 */
#ifndef OOMLENS_SERVER_HELD_H
#define OOMLENS_SERVER_HELD_H

#include "parsers/serving/server_log.h"
#include "parsers/serving/server_engine.h"
#include "parsers/serving/server_join.h"
#include "parsers/serving/server_meta.h"
#include "parsers/serving/server_pressure.h"
#include "parsers/serving/server_memfail.h"
#include "parsers/serving/server_progress.h"
#include "parsers/serving/server_stats.h"
#include "parsers/serving/server_unwrap.h"
#include "parsers/host/memsamples_mixed.h"
#include "parsers/host/leakstmt.h"

#include <stdint.h>

struct srv_st {
	struct sink *s;
	struct input *in;
	int records;                /* events written */
	struct srv_line line;
	struct srv_join join;
	struct srv_stats stats;
	struct srv_meta meta;
	struct srv_pressure pressure; /* an engine's start-up memory projection */
	struct srv_engine engines;
	struct srv_mem mem;         /* the phase, the memory failure held */
	struct srv_progress prog;   /* a training loop's bars */
	struct ms_mixed samples;    /* memory prints among the lines */
	struct leakstmt_set leaks;  /* the program's own leak statements */
	enum engine_error piece_error; /* the first a piece's lines named */
	/* the last torch_oom, to know its echo */
	int last_oom_set;
	json_int_t last_oom_dev, last_oom_req;
	struct ol_time last_oom_t;
	/* an error line a paste wrapped mid-word (engine_line's wrap_open),
	 * held for the line after it */
	char wrap[1024];
	size_t wrap_n;
	uint64_t wrap_line;
	/* the last line a "[rankN]:" carrier wrapped, inside a traceback
	 * (server_log.c lockstep_twin) */
	char twin[1024];
	size_t twin_n;
	int twin_rank;
	/* a lone OOM message whose phase nothing named yet, held until the
	 * piece after it: the traceback a chained exception or a repr prints
	 * after the message ("The above exception was the direct cause ...",
	 * run_busy_loop) names the phase its frames ran in */
	int pend;
	struct ol_event pend_e;     /* its data owned; summary in pend_summary */
	char pend_summary[256];
	/* a start-up phase line just below it, in a log that may be
	 * printed newest first (phase_printed_before) */
	enum oom_phase pend_cand;
	struct ol_time pend_cand_t;
	int pend_tb;                /* it ended a traceback: only stage_failed_below */
	uint64_t pend_end;          /* places it, within SRV_MEM_REPEAT lines */
	/* the last line of a run of TensorFlow 1.x's definition frames
	 * ("Caused by op 'name', defined at:" and the indented frame and
	 * source lines under it: server_log.c def_frames); 0 none */
	uint64_t def_line;
};

/* Contracts are stated above each function in server_held.c. */
int srv_dup_oom(struct srv_st *st, json_t *d, const struct ol_time *t);
void srv_remember_oom(struct srv_st *st, json_t *d, const struct ol_time *t);
int srv_write_event(struct srv_st *st, struct ol_event *e);
int srv_pend_flush_by(struct srv_st *st, enum oom_phase ph, const char *by);
int srv_pend_flush(struct srv_st *st, enum oom_phase ph);
int srv_put_event(struct srv_st *st, struct ol_event *e);
int srv_pend_hold(struct srv_st *st, struct ol_event *e, int tb);
int srv_traceback_below(struct srv_st *st, uint64_t line, const char *tb);
int srv_phase_printed_before(struct srv_st *st, const struct srv_line *l,
		uint64_t lineno, unsigned marks);
int srv_stage_failed_below(struct srv_st *st, const struct srv_line *l, uint64_t lineno,
		unsigned marks);
int srv_raised_again_below(struct srv_st *st, const struct srv_line *l, uint64_t lineno,
		unsigned marks);
int srv_request_failed_below(struct srv_st *st, const char *raw, size_t n);

#endif
