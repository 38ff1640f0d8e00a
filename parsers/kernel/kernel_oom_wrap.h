/*
 * kernel_oom_wrap.h -- one kernel report line wrapped over several text
 * lines, joined back.
 *
 * A long kernel line reaches a paste cut in pieces: a terminal or an
 * editor folds it at 80 columns (the rest starts in column 0 with no
 * log prefix, often inside a number: "anon-rss:75293" / "32kB, ..."), or
 * the reporter re-indents its tail under the prefixed head ("Killed
 * process 21394 (cicc)" / "    total-vm:..., anon-rss:..."). The three
 * report lines whose figures the kill is read from are joined here: the
 * victim line ("Killed process"), the oom-kill: summary and the header
 * ("invoked oom-killer:"), and the CPU line the kernel release is read
 * from ("CPU: N PID: N Comm: x Not tainted <release> #<version>"). kernel_oom.c holds such a line while it is
 * cut before its last field and offers it the next line; the rules that
 * decide are in kernel_oom_wrap.c (kwrap_joins).
 *
 * Ownership: the held record's text is a copy in the struct; the krec
 * kwrap_record returns points into it, valid until the next kwrap call.
 */
#ifndef OOMLENS_KERNEL_OOM_WRAP_H
#define OOMLENS_KERNEL_OOM_WRAP_H

#include <stddef.h>
#include <stdint.h>

#include "parsers/kernel/kernel_prefix.h"

#define KWRAP_MAX 2048      /* a joined line longer than this is read as it is */

/* The report lines that are joined. */
enum kwrap_kind { KW_NONE, KW_KILL, KW_SUMMARY, KW_HEADER, KW_CPU, KW_TASK };

/* A report line held while it may go on in the next text line. */
struct kwrap {
	int held;                 /* a kind (enum kwrap_kind) while a line is held */
	struct krec r;            /* its record; r.msg/end are set by kwrap_record */
	uint64_t line;            /* the input line it started on */
	size_t n;                 /* bytes of text in buf */
	char buf[KWRAP_MAX];
};

/* The kind of report line [p, e) (a record's message, its wrapper
 * stripped) when it is one of the joined kinds and is cut before its
 * last field -- the kernel ends the victim line with
 * "oom_score_adj:N" (5.x and later), the summary with ",uid=N", the
 * header with "oom_score_adj=N", the CPU line with the version after
 * the release ("#1 SMP ...", always printed, lib/dump_stack.c@v6.6
 * dump_stack_print_info); a line of an older kernel without that
 * field is held for one line too, which costs nothing when the next line
 * is not its continuation. A task-table row "[  pid]  uid  tgid ..." that
 * ends in a figure (its name cut off) and the table's header "[ pid ]
 * uid ..." that does not end in "name" are KW_TASK (a fold at 80 or 120
 * columns cuts nearly every row of a 3.x-6.x table). KW_NONE otherwise. */
int kwrap_open_ended(const char *p, const char *e);

/* Hold the record r of kind at input line 'line': its text is copied.
 * 0, or -1 (nothing held) when the text does not fit. */
int kwrap_take(struct kwrap *w, const struct krec *r, int kind, uint64_t line);

/* Is r the continuation of the held line? When it is, its text is
 * appended to the held line and 1 returned; 0 leaves w as it was. */
int kwrap_joins(struct kwrap *w, const struct krec *r);

/* Is the held line still cut before its last field? */
int kwrap_still_open(const struct kwrap *w);

/* The held record, its message pointing at the joined text; the hold is
 * released (w->held = 0), the text stays until the next kwrap_take. */
const struct krec *kwrap_record(struct kwrap *w);

#endif
