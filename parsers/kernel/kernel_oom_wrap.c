/*
 * kernel_oom_wrap.c -- joining a kernel report line that a paste wrapped
 * over several text lines (see kernel_oom_wrap.h for where such pieces
 * come from and who holds them).
 *
 * The lines and their last fields are the kernel's own (mm/oom_kill.c
 * @v6.6): __oom_kill_process() prints "Killed process %d (%s)
 * total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB, shmem-rss:%lukB,
 * UID:%u pgtables:%lukB oom_score_adj:%hd"; dump_oom_summary()
 * "oom-kill:constraint=%s,nodemask=%*pbl,cpuset=..,mems_allowed=..,
 * global_oom|oom_memcg=..,task_memcg=..,task=%s,pid=%d,uid=%d";
 * dump_header() "%s invoked oom-killer: gfp_mask=%#x(%pGg), order=%d,
 * oom_score_adj=%hd". lib/dump_stack.c@v6.6 dump_stack_print_info()
 * prints "CPU: %d UID: %u PID: %d Comm: %.20s %s%s %s %.*s" (taint,
 * release, then utsname's version "#1 SMP ..."; "Pid: %d, comm: %.20s"
 * before 3.x): the version's '#' is its last field. Older kernels stop earlier (shmem-rss from 4.6,
 * UID/pgtables/oom_score_adj from 5.1; the summary line from 4.19).
 *
 * The taint word of the CPU line is kernel/panic.c's print_tainted()
 * (@v6.6: "Not tainted" or "Tainted: " and its flags): a collector that
 * cuts the line after "Comm: %s" leaves it starting the next piece, the
 * one piece that may hold ": ".
 *
 * Join only where the continuation is unambiguous (kwrap_joins): a
 * piece is never taken when it has a log prefix of its own, is blank,
 * starts a stamp or a task row, or reads as a message of its own.
 */
#include "parsers/kernel/kernel_oom_wrap.h"

#include <string.h>

#include "parsers/kernel/kernel_scan.h"

/* The fields of each kind (the format strings above): a piece holding
 * one is that line's continuation. */
static const char *const victim_keys[] = { "total-vm:", "anon-rss:", "file-rss:", "shmem-rss:",
					 "UID:", "UID ", "pgtables:", "oom_score_adj:", NULL };
static const char *const summary_keys[] = { "constraint=", "nodemask=", "cpuset=",
					    "mems_allowed=", "global_oom", "oom_memcg=",
					    "task_memcg=", "task=", "pid=", "uid=", NULL };
static const char *const header_keys[] = { "gfp_mask=", "nodemask=", "order=",
					   "oom_score_adj=", NULL };

/* [p, e) without its trailing blanks. */
static const char *rtrim(const char *p, const char *e)
{
	while (e > p && (is_space((unsigned char)e[-1]) || e[-1] == '\r'))
		e--;
	return e;
}

/* Does [p, e) end with key followed by a (signed) decimal number? */
static int ends_with_number(const char *p, const char *e, const char *key)
{
	const char *d = e;
	size_t k = strlen(key);

	while (d > p && is_digit((unsigned char)d[-1]))
		d--;
	if (d == e)
		return 0;
	if (d > p && d[-1] == '-')
		d--;
	return (size_t)(d - p) >= k && !memcmp(d - k, key, k);
}

/* The token [t, te) is a figure of a task row: "-"? digits. */
static int is_figure(const char *t, const char *te)
{
	if (t < te && *t == '-')
		t++;
	if (t >= te)
		return 0;
	for (; t < te; t++)
		if (!is_digit((unsigned char)*t))
			return 0;
	return 1;
}

/* The last blank-separated token of [p, e) (e trimmed): its start. */
static const char *last_token(const char *p, const char *e)
{
	while (e > p && !is_space((unsigned char)e[-1]))
		e--;
	return e;
}

/* [p, e) (trimmed, starting '[') opens the OOM task table
 * (mm/oom_kill.c dump_task(s)@v6.6: "[  pid  ]   uid  tgid total_vm
 * rss ... oom_score_adj name", each row "[%7d] %5d %5d %8lu ... %5hd
 * %s"; "[ pid ]" and "[%5d]" before 4.x): 1 for a header that does not
 * end in "name" and for a row that ends in a figure (the task's name,
 * its last field, cut off), else 0. */
static int task_open(const char *p, const char *e)
{
	const char *q = skip_ws(p + 1, e), *c;

	if (starts(q, e, "pid")) {
		c = skip_ws(q + 3, e);
		return c < e && *c == ']' && !(e - p > 5 && !memcmp(e - 4, "name", 4));
	}
	if (q >= e || !is_digit((unsigned char)*q))
		return 0;
	while (q < e && is_digit((unsigned char)*q))
		q++;
	q = skip_ws(q, e);
	if (q >= e || *q != ']' || skip_ws(q + 1, e) >= e)
		return 0;
	q = last_token(q + 1, e);
	return is_figure(q, e) || (e - q == 1 && *q == '-');   /* "-" / "900" */
}

int kwrap_open_ended(const char *p, const char *e)
{
	const char *c;

	e = rtrim(p, e);
	p = skip_ws(p, e);
	if (e - p < 12 || memchr(p, '\n', (size_t)(e - p)) || find(p, e, "#012"))
		return KW_NONE;
	if (*p == '[' && task_open(p, e))
		return KW_TASK;
	if (find(p, e, "Killed process "))
		return ends_with_number(p, e, "oom_score_adj:") ? KW_NONE : KW_KILL;
	if (starts(p, e, "oom-kill:"))
		return ends_with_number(p, e, ",uid=") ? KW_NONE : KW_SUMMARY;
	if (find(p, e, " invoked oom-killer:"))
		return ends_with_number(p, e, "oom_score_adj=") ? KW_NONE : KW_HEADER;
	if ((starts(p, e, "CPU: ") && (c = find(p, e, " Comm: "))) ||
	    (starts(p, e, "Pid: ") && (c = find(p, e, ", comm: "))))
		return find(c + 7, e, " #") ? KW_NONE : KW_CPU;
	return KW_NONE;
}

int kwrap_take(struct kwrap *w, const struct krec *r, int kind, uint64_t line)
{
	size_t n = (size_t)(r->end - r->msg);

	w->held = KW_NONE;
	if (n >= sizeof(w->buf))
		return -1;
	w->r = *r;
	memcpy(w->buf, r->msg, n);
	w->n = n;
	w->line = line;
	w->held = kind;
	return 0;
}

/* Does [p, e) hold one of the fields of kind? */
static int has_key(int kind, const char *p, const char *e)
{
	const char *const *k = kind == KW_KILL ? victim_keys :
			       kind == KW_SUMMARY ? summary_keys : header_keys;

	if (kind == KW_CPU)   /* the taint word, or the version's '#' */
		return find(p, e, "tainted") || find(p, e, " #") || *p == '#';
	for (; *k; k++)
		if (find(p, e, *k))
			return 1;
	return 0;
}

/* The rule. r continues the held line when all of these hold:
 *  - r has no log prefix (kernel_prefix.c found none: a bare line, or an
 *    indented one without a stamp after its blanks) and is not blank;
 *  - it does not start a stamp "[" or a task row "[ pid]", a "<N>"
 *    priority, and holds no ": " (every kernel message that can follow in
 *    a report -- "oom_reaper: ", "Out of memory: ", "CPU: " -- has one;
 *    the fields of these three lines never do; the CPU line's "Tainted: "
 *    starting the piece is the one exception) nor the start of another
 *    joined line;
 *  - either it holds a field of the held line's kind (a fold at a blank,
 *    or a re-indented tail: one blank, none for the comma-separated
 *    summary, stands for the blanks cut off), or it is one token (no
 *    blank) in column 0 and the held line ends inside a field -- not at
 *    a blank, a ',', a ')' or a "kB" -- (a fold at a fixed width keeps
 *    every byte, so the two are concatenated as they are: "anon-rss:75"
 *    and "29332kB", "uid=" and "0").
 */
/* A piece [p, e) (trimmed at its end) that may go on a task table's
 * held line: the header's last words (lower-case words, "_", ending in
 * "name"), or a row's last figures then the task's name ("-"? digits
 * tokens, then a name with no ": "; figures alone keep it open). A
 * fold keeps every byte, so the
 * piece is appended as it is: "-1" and "000 systemd-udevd" are
 * "-1000 systemd-udevd", "61   " and "  0 chronyd" keep their blanks. */
static int task_joins(struct kwrap *w, const char *p, const char *e)
{
	const char *q = skip_ws(p, e), *t;
	int figures = 0;

	if (q >= e || *q == '[' || *q == '<' || find(q, e, ": ") || find(q, e, "Killed process") ||
	    find(q, e, "invoked oom-killer") || find(q, e, "oom-kill:"))
		return 0;
	if (!is_digit((unsigned char)w->buf[1]) && !is_digit((unsigned char)skip_ws(w->buf + 1,
			w->buf + w->n)[0])) {
		/* the header: its last column names */
		if (e - q < 4 || memcmp(e - 4, "name", 4))
			return 0;
		for (t = q; t < e; t++)
			if (!(*t == '_' || *t == ' ' || (*t >= 'a' && *t <= 'z')))
				return 0;
	} else {
		for (t = q; t < e; t = skip_ws(t, e)) {
			const char *te = t;
			while (te < e && !is_space((unsigned char)*te))
				te++;
			if (!is_figure(t, te) && !(t == q && is_digit((unsigned char)*t) &&
						   w->buf[w->n - 1] == '-'))
				break;
			if (++figures > 12)
				return 0;
			t = te;
		}
	}
	while (w->n && (w->buf[w->n - 1] == '\r' || w->buf[w->n - 1] == '\n'))
		w->n--;
	if (w->n + (size_t)(e - p) >= sizeof(w->buf))
		return 0;
	memcpy(w->buf + w->n, p, (size_t)(e - p));
	w->n += (size_t)(e - p);
	return 1;
}

int kwrap_joins(struct kwrap *w, const struct krec *r)
{
	const char *p = r->msg, *e, *q;
	const char *sep = "";
	int indent, keyed, cut, taint;
	char tail;
	size_t n, sn;

	if (!w->held || !r->bare || !w->n)
		return 0;
	e = rtrim(p, r->end);
	if (w->held == KW_TASK)
		return task_joins(w, p, e);
	q = skip_ws(p, e);
	/* the CPU line's taint word starting the piece: its own word */
	taint = w->held == KW_CPU && (starts(q, e, "Tainted: ") || starts(q, e, "Not tainted"));
	if (q >= e || *q == '[' || *q == '<' || (find(q, e, ": ") && !taint) ||
	    find(q, e, "Killed process") || find(q, e, "invoked oom-killer") ||
	    find(q, e, "oom-kill:"))
		return 0;
	indent = q > p || r->continuation;
	keyed = taint || has_key(w->held, q, e);
	tail = w->buf[w->n - 1];
	cut = !is_space((unsigned char)tail);
	if (!keyed && (indent || !cut || tail == ',' || tail == ')' ||
		       (w->n >= 2 && !memcmp(w->buf + w->n - 2, "kB", 2)) ||
		       memchr(q, ' ', (size_t)(e - q)) || memchr(q, '\t', (size_t)(e - q))))
		return 0;
	if ((indent && cut && w->held != KW_SUMMARY) || (taint && cut))
		sep = " ";
	if (!indent)
		q = p;
	n = (size_t)(e - q);
	sn = strlen(sep);
	if (w->n + sn + n >= sizeof(w->buf))
		return 0;
	memcpy(w->buf + w->n, sep, sn);
	memcpy(w->buf + w->n + sn, q, n);
	w->n += sn + n;
	return 1;
}

int kwrap_still_open(const struct kwrap *w)
{
	return w->held && kwrap_open_ended(w->buf, w->buf + w->n) != KW_NONE;
}

const struct krec *kwrap_record(struct kwrap *w)
{
	w->r.msg = w->buf;
	w->r.end = w->buf + w->n;
	w->held = KW_NONE;
	return &w->r;
}
