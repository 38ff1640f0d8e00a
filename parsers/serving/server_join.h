/*
 * server_join.h -- what a server log says over several lines, joined.
 *
 * Two things run over lines:
 *   - a Python traceback, kept whole from "Traceback (most recent call
 *     last):" to its exception line, chained parts ("During handling of
 *     the above exception ...", "The above exception was the direct
 *     cause ...") included, 64 KiB at most;
 *   - PyTorch's CUDA OOM message when it was printed or pasted over
 *     several lines (the "Currently allocated : ..." lines of the
 *     allowed-memory form, "torch.OutOfMemoryError: CUDA out of memory."
 *     then "Tried to allocate ...", a terminal's or a user's wrapping),
 *     inside a traceback as its exception line or alone.
 * A message line is joined to the one before with a space while the
 * message lacks its end (torch_oom_complete()) and the line continues it:
 * it is not blank, starts nothing else (a traceback, a chained part,
 * another OOM message), carries no wrappers of its own or the same as the
 * line the message began on, and may be a piece of the message
 * (torch_oom_piece()); at most SRV_JOIN_LINES lines and SRV_JOIN_TEXT
 * bytes.
 *
 * The caller feeds every unwrapped line: first srv_join_ends_before()
 * (the open piece is finished: take it, then srv_join_clear()), then
 * srv_join_feed() (the line went into a piece, or it is the caller's).
 */
#ifndef OOMLENS_SERVER_JOIN_H
#define OOMLENS_SERVER_JOIN_H

#include <stddef.h>
#include <stdint.h>
#include "parsers/common/sink.h"
#include "parsers/serving/server_unwrap.h"
#include "lib/strbuf.h"

#define SRV_JOIN_TEXT 4096          /* the exception line or OOM message */
#define SRV_JOIN_LINES 12           /* lines joined into it at most */
#define SRV_TRACEBACK_MAX (64 * 1024)

enum srv_piece { SRV_NONE, SRV_FRAMES, SRV_AFTER, SRV_LONE };

struct srv_join {
	enum srv_piece state;   /* NONE; a traceback's FRAMES, or AFTER its
				 * exception line; a LONE OOM message */
	struct strbuf tb;       /* the traceback as printed */
	int tb_cut;             /* lines were left out past SRV_TRACEBACK_MAX */
	int chained;            /* a chained part's line came last */
	int flat_frame;         /* the last line was a frame line printed
				 * without its indent (its source line may
				 * follow, unindented too) */
	char text[SRV_JOIN_TEXT]; /* the exception line that decides the kind
				 * (the first CUDA OOM of a chain, else its
				 * first memory failure, else the last), or
				 * the lone message; joined */
	size_t text_n;
	int text_oom;           /* text names a CUDA OOM */
	int text_mem;           /* text reports a memory failure of any
				 * stack (memfail_line), kept through a chain
				 * unless a CUDA OOM follows */
	int text_open;          /* text is an OOM message missing its end */
	int text_lines;
	char prefix[SRV_PREFIX_MAX]; /* the wrappers of text's first line */
	struct ol_time t;       /* where the piece began */
	int64_t pid;
	uint64_t line;
};

void srv_join_init(struct srv_join *j);
void srv_join_release(struct srv_join *j);
/* Forget the piece taken; ready for the next. */
void srv_join_clear(struct srv_join *j);

/* 1 when a piece is open and line l does not continue it: the caller
 * takes the piece before feeding l. */
int srv_join_ends_before(const struct srv_join *j, const struct srv_line *l);
/* Feed line l (number lineno). 1 if it went into a piece, 0 if the
 * caller reads it. */
int srv_join_feed(struct srv_join *j, const struct srv_line *l, uint64_t lineno);

/* The open piece: SRV_NONE when there is none (at end of input: take it
 * if there is). */
static inline enum srv_piece srv_join_open(const struct srv_join *j) { return j->state; }
/* The traceback's text with a note where it was cut, or NULL for a lone
 * message; NULL also when memory ran out (*oom set). Owned by j. */
const char *srv_join_traceback(struct srv_join *j, int *oom);

#endif
