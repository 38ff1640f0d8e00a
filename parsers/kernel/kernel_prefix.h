/*
 * kernel_prefix.h -- the wrappers log sources put around kernel messages.
 *
 * The same kernel line reaches oomlens in many wrappers: dmesg raw
 * ("<4>[ 12.3] "), -T, -r, -x, PRINTK_CALLER; RFC 3164, RFC 3339 and
 * RFC 5424 syslog; every journalctl short form; journalctl -o json;
 * /dev/kmsg records. This module recognises the wrapper of one line by its
 * shape alone, strips it and hands back the message text with the time,
 * identifier and boot id the wrapper carried. It knows nothing of OOM
 * reports: parsers/kernel/kernel_oom.c reads the messages it hands back.
 *
 * Times: a stamp with a zone is UTC; one without is local time, or UTC
 * shifted by --tz when given (sink opts). Year-less stamps (RFC 3164,
 * journal short) take --year, advancing at a Dec -> Jan wrap, else the
 * input file's mtime (a month after it is last year), else 1970 with one
 * warning.
 *
 * Ownership: a record points into the line it was stripped from, or, for
 * journal JSON, into the decoder's own buffer; either stays valid only
 * until the next call on the same struct kprefix.
 */
#ifndef OOMLENS_KERNEL_PREFIX_H
#define OOMLENS_KERNEL_PREFIX_H

#include <stddef.h>
#include <stdint.h>

#include "parsers/common/sink.h"
#include "lib/input.h"
#include "lib/strbuf.h"

/* One log record, its wrapper stripped. */
struct krec {
	const char *msg, *end;    /* the kernel (or daemon) message [msg, end) */
	struct ol_time t;         /* its time: clock NONE when the wrapper had none;
				     boot_ns from a dmesg/kmsg/monotonic stamp;
				     t.boot_id is always NULL (see boot_id) */
	char ident[48];           /* syslog tag without [pid], "" when none */
	int64_t ident_pid;        /* the tag's [pid] or RFC 5424 PROCID, OL_NULL */
	int has_ident;            /* a tag was there (journal: SYSLOG_IDENTIFIER,
				     or "kernel" for _TRANSPORT=kernel) */
	int continuation;         /* an indented line: it carries the time of
				     the last stamped record */
	int bare;                 /* no wrapper: a plain line, or an indented
				     continuation (kernel_oom_wrap.c may join
				     it to the line before) */
	int from_json;            /* journal JSON: no reboot guessing needed */
	int has_boot_id;          /* journal JSON: the record had _BOOT_ID, */
	char boot_id[64];         /* ... this one ("" otherwise) */
};

/* The state of the prefix layer over one input. */
struct kprefix {
	struct sink *s;           /* diagnostics and options (--tz, --year) */
	struct input *in;         /* line numbers for diagnostics */
	struct ol_time last_t;    /* time of the last record that had one */
	int year, last_mon;       /* --year, advanced at Dec -> Jan wraps */
	int64_t mtime_ns;         /* the input's mtime, 0 when unknown */
	int year_noted;           /* the year's basis was recorded (meta) */
	int year_warned;
	unsigned bad_dates;       /* stamps whose date does not exist (flagged) */
	struct strbuf msg;        /* a decoded journal MESSAGE */
};

/* Prepare px to strip the lines of in; diagnostics go to s. Cannot fail. */
void kprefix_init(struct kprefix *px, struct input *in, struct sink *s);
/* Free what px holds. */
void kprefix_release(struct kprefix *px);

/* kernel_date.c. A wall-clock stamp's ns into t: UTC with --tz, else
 * the local clock. */
void kprefix_set_local(struct kprefix *px, struct ol_time *t, int64_t ns);
/* The year of a year-less stamp of month mon, day d: --year (advancing at
 * a Dec->Jan wrap), else the one that puts it no later than the input's
 * mtime (year_not_after: a year where the date exists is preferred), said
 * once in meta time.year_basis since it is inferred. */
int kprefix_year_for(struct kprefix *px, int mon, int d);
/* 1 when day d of month mon exists in year y; else 0, with a warning at
 * the current line (inferred: the year was inferred, not read or given). */
int kprefix_date_ok(struct kprefix *px, int y, int mon, int d, int inferred);
/* The month (1..12) of a European locale's abbreviated name m[0..n) as
 * dmesg -T prints it under that locale ("Mär", "janv.", "dic", "окт"):
 * de, fr, es, it, pt, nl, ru; 0 when it is none of them. */
int kprefix_named_month(const char *m, size_t n);

/* Strip the wrapper of the text line [l, e) into r. A line whose wrapper
 * is not recognised is plain text: r->msg is the whole line (less pasted
 * "> " quote marks) with no time. Returns 2 for an indented continuation
 * line (r->continuation set, r->t = the last record's time), else 1. */
int kprefix_strip(struct kprefix *px, const char *l, const char *e, struct krec *r);

/* kernel_journal.c. Decode one journalctl -o json line [l, l + n) into
 * r: MESSAGE (a string or a byte array), __REALTIME_TIMESTAMP (UTC),
 * _SOURCE_MONOTONIC_TIMESTAMP (boot), _BOOT_ID, SYSLOG_IDENTIFIER,
 * _TRANSPORT. Returns 1 when r holds
 * a message, 0 when there is none (not a JSON object: a warning; or an
 * empty MESSAGE). r->has_boot_id and r->boot_id are set whenever the
 * object had _BOOT_ID, even without a message. */
int kprefix_journal_json(struct kprefix *px, const char *l, size_t n, struct krec *r);

/* Is [p, e) a journal JSON line whose MESSAGE is a byte array (whose text
 * a keyword search over the raw line cannot see)? */
int kprefix_json_message_is_array(const char *p, const char *e);

#endif
