/*
 * server_unwrap.h -- one server-log line without its wrappers.
 *
 * Before an inference server's line says anything it is wrapped, by the
 * engine and by whatever carried the log to the user:
 *   - the engine's record header: vLLM's "LEVEL MM-DD HH:MM:SS
 *     [file.py:N] " (local time without a year: --year, else the
 *     year that puts the line no later than the file's mtime), a
 *     "(VllmWorkerProcess pid=N) " tag, TGI's "LEVEL target: " after its
 *     UTC time, SGLang's "[2025-03-07 21:49:33 TP13] ",
 *     Triton's glog "I0120 08:28:08.584464 2049 file.cc:107] ", TGI's
 *     JSON lines ({"timestamp":...,"message":...});
 *   - the carrier's: ANSI colours (raw, "^[[" caret and syslog "#033["
 *     forms), a leading ISO 8601 time (kubectl --timestamps, CI, UTC),
 *     a CRI node log's "<RFC3339Nano> stdout F " (its "P" partial lines
 *     joined to the line that ends them), kubectl logs --prefix's
 *     "[pod/NAME/CONTAINER] " (kept as the service: the engine instance),
 *     docker-compose "service  | ", CI "  | " gutters, journald/syslog
 *     "Mon DD HH:MM:SS host ident[pid]: ", markdown "> " quotes and "▎"
 *     bars, inline-code backticks, an indented paste, torch's "[rank0]:".
 * srv_unwrap() takes them off and keeps what they said (the time, the
 * pid, the tag, the service, the rank, the engine they belong to, the
 * record header itself); what is left is the message the rest of the
 * server-log parser reads.
 */
#ifndef OOMLENS_SERVER_UNWRAP_H
#define OOMLENS_SERVER_UNWRAP_H

#include <stddef.h>
#include <stdint.h>
#include "parsers/serving/engine_lines.h"
#include "parsers/common/sink.h"

#define SRV_MSG_MAX (64 * 1024)
#define SRV_PREFIX_MAX 160
#define SRV_NAME_MAX 96   /* "pod/NAME/CONTAINER" names fit */

/* The current line, and what is kept from line to line to place it. */
struct srv_line {
	char *msg;                   /* the message, NUL-terminated: in buf, which
				      * the wrappers taken off came before */
	size_t n;
	char buf[SRV_MSG_MAX];       /* the line without colours and CRs */
	struct ol_time t;            /* its own time, else the last time seen */
	int64_t pid;                 /* from "(... pid=N)", else OL_NULL */
	int64_t rank;                /* "rank=N" inside that tag, else OL_NULL */
	int carrier_rank;            /* torch's "[rankN]:" carrier, N; else -1 */
	int tp;                      /* SGLang's "[... TPn]", else -1 */
	char tag[SRV_NAME_MAX];      /* the last "(Name pid=N)" tag's name, or "" */
	char service[SRV_NAME_MAX];  /* docker-compose service, vllm-omni stage,
				      * kubectl --prefix "NAME/CONTAINER", or "" */
	enum engine_kind hint;       /* the engine whose header the line has, or NONE */
	char prefix[SRV_PREFIX_MAX]; /* the record header taken off (cut to fit):
				      * lines of one record share it; the
				      * carrier's wrappers are not in it */
	size_t prefix_n;
	/* from line to line */
	struct ol_time last_t;       /* the last time a line carried */
	int year;                    /* --year for vLLM's year-less stamps, or 0 */
	int64_t mtime_ns;            /* else the file's mtime bounds them; 0: unknown */
	int warned_year, noted_local, noted_year;
	int64_t sec_key, sec_ns;     /* the last year-less stamp's second, its time */
	/* a CRI line cut into "P" pieces, held until its "F" piece comes */
	char part[SRV_MSG_MAX];
	size_t part_n;
	int64_t part_ns;             /* the first piece's time (UTC) */
};

/* Start reading an artifact whose year-less stamps are in year (--year,
 * or 0), else in the year that puts them no later than the file's mtime
 * (mtime_ns; 0 if unknown). */
void srv_line_init(struct srv_line *l, int year, int64_t mtime_ns);

/* The prefix of a line that was an HTTP API's JSON error body
 * ({"error":{"message":"..."}}): a request reached the server. */
#define SRV_ERROR_BODY "{json error body} "

/* The bytes a colour code or a carriage return starts with: a line
 * without any of them is taken as it is. */
#define SRV_SPECIAL_BYTES "\x1b\r^#"

/* Take raw line raw[0..n) (no newline) into l: colours and carriage
 * returns dropped, wrappers taken off, l->t, pid, tag, service, rank, tp
 * and hint set. marked: 0 when the caller found none of SRV_SPECIAL_BYTES
 * in raw (input_getline does, told of them), else 1: raw is looked at.
 * A year-less stamp with no year known is warned about once (line
 * lineno), and the first local-time stamp is noted on the sink.
 * A CRI "P" (partial) line is held in l->part, not read: the next line of
 * the same file that ends it ("F") is read as the whole (pieces the file
 * ends on, with no "F" after them, are not read).
 * Returns 0 (l holds a line to read), 1 (a partial line was held: nothing
 * to read yet), or -1 when the sink failed. */
int srv_unwrap(struct srv_line *l, const char *raw, size_t n, int marked, struct sink *s,
	       uint64_t lineno);

#endif
