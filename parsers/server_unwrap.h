/*
 * server_unwrap.h -- one server-log line without its wrappers.
 *
 * Before an inference server's line says anything it is wrapped: ANSI
 * colours, a leading ISO 8601 time (kubectl --timestamps, TGI: UTC), a
 * "(VllmWorkerProcess pid=N) " tag, vLLM's "LEVEL MM-DD HH:MM:SS
 * [file.py:N] " prefix (local time without a year: --year, else the year
 * that puts the line no later than the file's mtime) or TGI's "LEVEL target: ". srv_unwrap() takes them off and
 * keeps what they said (the time, the pid, the prefix text itself); what
 * is left is the message the rest of the server-log parser reads.
 */
#ifndef OOMLENS_SERVER_UNWRAP_H
#define OOMLENS_SERVER_UNWRAP_H

#include <stddef.h>
#include <stdint.h>
#include "parsers/sink.h"

#define SRV_MSG_MAX (64 * 1024)
#define SRV_PREFIX_MAX 160

/* The current line, and what is kept from line to line to place it. */
struct srv_line {
	char msg[SRV_MSG_MAX];       /* the message, NUL-terminated */
	size_t n;
	struct ol_time t;            /* its own time, else the last time seen */
	int64_t pid;                 /* from "(... pid=N)", else OL_NULL */
	char prefix[SRV_PREFIX_MAX]; /* the wrappers taken off (cut to fit) */
	size_t prefix_n;
	/* from line to line */
	struct ol_time last_t;       /* the last time a line carried */
	int year;                    /* --year for vLLM's year-less stamps, or 0 */
	int64_t mtime_ns;            /* else the file's mtime bounds them; 0: unknown */
	int warned_year, noted_local, noted_year;
};

/* Start reading an artifact whose year-less stamps are in year (--year,
 * or 0), else in the year that puts them no later than the file's mtime
 * (mtime_ns; 0 if unknown). */
void srv_line_init(struct srv_line *l, int year, int64_t mtime_ns);

/* Take raw line raw[0..n) (no newline) into l: colours and carriage
 * returns dropped, wrappers taken off, l->t and l->pid set. A year-less
 * stamp with no year known is warned about once (line lineno), and the
 * first local-time stamp is noted on the sink. Returns 0, or -1 when the
 * sink failed. */
int srv_unwrap(struct srv_line *l, const char *raw, size_t n, struct sink *s, uint64_t lineno);

#endif
