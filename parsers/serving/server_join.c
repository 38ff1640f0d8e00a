/*
 * server_join.c -- join what a server log says over several lines: a
 * Python traceback and PyTorch's OOM message (see server_join.h). A small
 * state machine: NONE, a traceback's FRAMES, AFTER its exception line (a
 * chained part may follow), or a LONE OOM message outside any traceback.
 */
#include "parsers/serving/server_join.h"
#include "parsers/serving/memfail.h"
#include "parsers/torch/torch_oom_text.h"
#include "parsers/common/seriesutil.h"

#include <string.h>

void srv_join_init(struct srv_join *j)
{
	memset(j, 0, sizeof(*j));
	strbuf_init(&j->tb);
	srv_join_clear(j);
}

void srv_join_release(struct srv_join *j)
{
	strbuf_release(&j->tb);
}

void srv_join_clear(struct srv_join *j)
{
	strbuf_reset(&j->tb);
	j->state = SRV_NONE;
	j->tb_cut = 0;
	j->chained = 0;
	j->flat_frame = 0;
	j->text[0] = 0;
	j->text_n = 0;
	j->text_oom = 0;
	j->text_mem = 0;
	j->text_open = 0;
	j->text_lines = 0;
	j->prefix[0] = 0;
	j->t = ol_time_none();
	j->pid = OL_NULL;
	j->line = 0;
}

static int starts(const char *m, size_t n, const char *p)
{
	size_t len = strlen(p);
	return n >= len && m[0] == p[0] && !memcmp(m, p, len);
}

static int traceback_start(const char *m, size_t n)
{
	return starts(m, n, "Traceback (most recent call last)");
}

/* 1 when m[0..n) reads as a traceback's exception line: a dotted name
 * (RuntimeError, torch.OutOfMemoryError) alone or before ':' -- a source
 * line calls, assigns or indexes something first. */
static int exception_line(const char *m, size_t n)
{
	size_t i = 0;

	while (i < n && ((m[i] >= 'a' && m[i] <= 'z') || (m[i] >= 'A' && m[i] <= 'Z') ||
			 (m[i] >= '0' && m[i] <= '9') || m[i] == '_' || m[i] == '.'))
		i++;
	return i > 0 && (i == n || m[i] == ':' || m[i] == '\r');
}

static int chain_start(const char *m, size_t n)
{
	return starts(m, n, "During handling of the above exception") ||
	       starts(m, n, "The above exception was the direct cause");
}

/* One line of the traceback as printed; past SRV_TRACEBACK_MAX the rest
 * is left out and noted. */
static void tb_add(struct srv_join *j, const char *m, size_t n)
{
	if (j->tb.len + n + 1 > SRV_TRACEBACK_MAX) {
		j->tb_cut = 1;
		return;
	}
	strbuf_add(&j->tb, m, n);
	strbuf_addch(&j->tb, '\n');
}

/* The message is open while it is PyTorch's OOM message without its end
 * and there is room to join more. */
static void text_reopen(struct srv_join *j)
{
	j->text_open = j->text_oom && torch_oom_start(j->text, j->text_n) &&
		       !torch_oom_complete(j->text, j->text_n) && j->text_lines < SRV_JOIN_LINES;
}

/* l's message becomes the piece's text (an exception line, a lone OOM). */
static void text_set(struct srv_join *j, const struct srv_line *l)
{
	struct memfail mf;

	copy_str(j->text, sizeof(j->text), l->msg, l->n);
	j->text_n = strlen(j->text);
	j->text_oom = torch_oom_text(j->text, j->text_n);
	j->text_mem = j->text_oom || memfail_line(j->text, j->text_n, &mf);
	j->text_lines = 1;
	copy_str(j->prefix, sizeof(j->prefix), l->prefix, l->prefix_n);
	text_reopen(j);
}

/* 1 if l carries on the open message. */
static int continues(const struct srv_join *j, const struct srv_line *l)
{
	const char *m = l->msg;
	size_t n = l->n;

	if (!j->text_open || !n || j->text_n + 1 + n >= sizeof(j->text))
		return 0;
	if (l->prefix_n && strcmp(l->prefix, j->prefix))
		return 0;   /* a record of its own */
	return !traceback_start(m, n) && !chain_start(m, n) && !torch_oom_start(m, n) &&
	       torch_oom_piece(m, n);
}

static void text_add(struct srv_join *j, const struct srv_line *l)
{
	j->text[j->text_n++] = ' ';
	memcpy(j->text + j->text_n, l->msg, l->n);
	j->text_n += l->n;
	j->text[j->text_n] = 0;
	j->text_lines++;
	text_reopen(j);
}

int srv_join_ends_before(const struct srv_join *j, const struct srv_line *l)
{
	switch (j->state) {
	case SRV_AFTER:
		return !(!l->n || chain_start(l->msg, l->n) ||
			 (j->chained && traceback_start(l->msg, l->n)) || continues(j, l));
	case SRV_LONE:
		return !continues(j, l);
	default:
		return 0;
	}
}

/* A piece begins at line l: a traceback or a lone OOM message. */
static void begin(struct srv_join *j, const struct srv_line *l, uint64_t lineno,
		  enum srv_piece state)
{
	srv_join_clear(j);
	j->state = state;
	j->t = l->t;
	j->pid = l->pid;
	j->line = lineno;
}

/* After the exception line: blank lines, a chained part, the message
 * running on. */
static int feed_after(struct srv_join *j, const struct srv_line *l)
{
	const char *m = l->msg;
	size_t n = l->n;

	if (!n) {
		j->text_open = 0;
		return 1;
	}
	if (chain_start(m, n)) {
		tb_add(j, "", 0);
		tb_add(j, m, n);
		j->chained = 1;
		j->text_open = 0;
		return 1;
	}
	if (j->chained && traceback_start(m, n)) {
		j->chained = 0;
		tb_add(j, "", 0);
		tb_add(j, m, n);
		j->state = SRV_FRAMES;
		return 1;
	}
	if (!continues(j, l))
		return 0;   /* srv_join_ends_before() said so */
	tb_add(j, m, n);
	text_add(j, l);
	return 1;
}

int srv_join_feed(struct srv_join *j, const struct srv_line *l, uint64_t lineno)
{
	const char *m = l->msg;
	size_t n = l->n;

	switch (j->state) {
	case SRV_AFTER:
		return feed_after(j, l);
	case SRV_LONE:
		if (!continues(j, l))
			return 0;
		text_add(j, l);
		return 1;
	case SRV_FRAMES:
		tb_add(j, m, n);
		if (!n || m[0] == ' ' || m[0] == '\t')
			return (j->flat_frame = 0), 1;
		/* a traceback pasted where its indent was lost (an issue's
		 * text outside a code block: Markdown drops the leading
		 * blanks) still has its frames: a line that opens with
		 * 'File "' is one, and the line under it its source, unless
		 * that line is the exception's ("RuntimeError: ...") */
		if (starts(m, n, "File \"")) {
			j->flat_frame = 1;
			return 1;
		}
		if (j->flat_frame && !exception_line(m, n)) {
			j->flat_frame = 0;
			return 1;
		}
		j->flat_frame = 0;
		/* the exception line; a chained OOM keeps deciding the kind,
		 * and so does any stack's memory failure unless a CUDA OOM
		 * follows it: Python prints the failure first and an error
		 * raised while handling it after ("During handling of the
		 * above exception": a frozen app's AttributeError writing to
		 * a closed stderr after CTranslate2's "CUDA failed with error
		 * out of memory", set 13 d-ctranslate2-buzz) */
		if (!j->text_oom && (!j->text_mem || torch_oom_text(m, n)))
			text_set(j, l);
		j->state = SRV_AFTER;
		return 1;
	case SRV_NONE:
		break;
	}
	if (traceback_start(m, n)) {
		begin(j, l, lineno, SRV_FRAMES);
		tb_add(j, m, n);
		return 1;
	}
	if (memchr(m, 'y', n) && torch_oom_start(m, n)) {   /* it names "memory" */
		begin(j, l, lineno, SRV_LONE);
		text_set(j, l);
		return 1;
	}
	return 0;
}

const char *srv_join_traceback(struct srv_join *j, int *oom)
{
	*oom = 0;
	if (j->state == SRV_LONE || j->state == SRV_NONE)
		return NULL;
	if (j->tb_cut) {
		strbuf_addf(&j->tb, "... (traceback cut at %d KiB)\n", SRV_TRACEBACK_MAX / 1024);
		j->tb_cut = 0;
	}
	if (strbuf_failed(&j->tb)) {
		*oom = 1;
		return NULL;
	}
	return j->tb.buf;
}
