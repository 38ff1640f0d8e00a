/*
 * server_log.c -- inference server logs into events, series and meta.
 *
 * The parser is a loop over lines in four steps, one file each:
 *   - server_unwrap.c takes the line's wrappers off (ANSI colours, ISO
 *     time, "(Worker pid=N) " tag, vLLM's or TGI's log prefix), keeping
 *     the time and pid they gave;
 *   - server_join.c joins what runs over lines: a Python traceback up to
 *     its exception line, and PyTorch's OOM message printed or pasted
 *     over several lines; each finished piece becomes one event here: a
 *     CUDA OOM (parsers/torch_oom_text.c reads its fields) gives
 *     torch_oom, any other traceback server_error;
 *   - server_stats.c reads the engine's statistics and the requests served
 *     into server.* series;
 *   - server_meta.c reads what is stated once at start-up into server.*
 *     meta.
 */
#include "parsers/server_log.h"
#include "parsers/server_join.h"
#include "parsers/server_meta.h"
#include "parsers/server_stats.h"
#include "parsers/server_unwrap.h"
#include "parsers/seriesutil.h"
#include "parsers/torch_oom_text.h"
#include "lib/timeutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct srv_st {
	struct sink *s;
	struct input *in;
	int records;                /* events written */
	struct srv_line line;
	struct srv_join join;
	struct srv_stats stats;
	struct srv_meta meta;
	/* the last torch_oom, to know its echo */
	int last_oom_set;
	json_int_t last_oom_dev, last_oom_req;
	struct ol_time last_oom_t;
};

/* The same OOM is often logged twice: the worker's traceback, then the
 * router or engine client repeating the message. A traceback-less OOM
 * with the device and size of the previous one within 5 s is that echo. */
static int dup_oom(struct srv_st *st, json_t *d, const struct ol_time *t)
{
	json_int_t dev = json_integer_value(json_object_get(d, "device"));
	json_int_t req = json_integer_value(json_object_get(d, "requested_bytes"));

	if (!st->last_oom_set || dev != st->last_oom_dev || req != st->last_oom_req)
		return 0;
	if (t->clock == OL_CLOCK_NONE || st->last_oom_t.clock == OL_CLOCK_NONE)
		return 1;
	return llabs(t->utc_ns - st->last_oom_t.utc_ns) <= 5 * NS_PER_S;
}

static void remember_oom(struct srv_st *st, json_t *d, const struct ol_time *t)
{
	st->last_oom_set = 1;
	st->last_oom_dev = json_integer_value(json_object_get(d, "device"));
	st->last_oom_req = json_integer_value(json_object_get(d, "requested_bytes"));
	st->last_oom_t = *t;
}

/* server_error's data: the exception's type (text before its first ':'). */
static json_t *error_data(const char *exc, size_t en, char *summary, size_t scap)
{
	const char *c = memchr(exc, ':', en);
	json_t *d = json_object();

	json_object_set_new(d, "exception_type", ol_json_strn(exc, c ? (size_t)(c - exc) : en));
	snprintf(summary, scap, "%.*s", (int)(en > 200 ? 200 : en), exc);
	return d;
}

/* One event from the piece's text exc[0..en) and traceback tb (NULL for
 * a lone message): torch_oom when exc is a CUDA OOM, else server_error.
 * 0, or -1 when the sink failed. */
static int emit(struct srv_st *st, const char *exc, size_t en, const char *tb)
{
	const struct srv_join *j = &st->join;
	char summary[256];
	struct ol_event e = { .t = j->t, .pid = j->pid, .bytes = OL_NULL, .line = j->line,
			      .summary = summary };
	int64_t id;

	if (torch_oom_text(exc, en)) {
		e.kind = "torch_oom";
		e.data = torch_oom_fields(exc, en, &e.bytes, summary, sizeof(summary));
		if (!tb && dup_oom(st, e.data, &e.t)) {
			json_decref(e.data);
			return 0;
		}
		remember_oom(st, e.data, &e.t);
	} else {
		e.kind = "server_error";
		e.data = error_data(exc, en, summary, sizeof(summary));
	}
	json_object_set_new(e.data, "exception", ol_json_strn(exc, en > 2000 ? 2000 : en));
	json_object_set_new(e.data, "traceback", tb ? ol_json_strn(tb, strlen(tb)) : json_null());
	id = sink_event(st->s, &e);
	json_decref(e.data);
	if (id < 0)
		return -1;
	st->records++;
	return 0;
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
	return r;
}

/* One unwrapped line, in order: TGI's Args block, the pieces over lines,
 * statistics and requests, start-up figures. 0 or -1. */
static int read_line(struct srv_st *st)
{
	const struct srv_line *l = &st->line;
	uint64_t lineno = st->in->lineno;
	int r;

	if ((r = srv_meta_args(&st->meta, st->s, l->msg, l->n)) != 0)
		return r < 0 ? -1 : 0;
	if (srv_join_ends_before(&st->join, l) && take_piece(st) < 0)
		return -1;
	if (srv_join_feed(&st->join, l, lineno))
		return 0;
	if ((r = srv_stats_line(&st->stats, st->s, l->msg, l->n, &l->t, lineno)) != 0)
		return r < 0 ? -1 : 0;
	return srv_meta_line(&st->meta, st->s, l->msg, l->n);
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
	}
	return st;
}

int server_log_parse(struct input *in, struct sink *s)
{
	struct srv_st *st = srv_new(in, s);
	const char *raw;
	size_t n;
	int rc = -1;

	if (!st)
		return -1;
	while (input_getline(in, &raw, &n) == 1)
		if (srv_unwrap(&st->line, raw, n, s, in->lineno) < 0 || read_line(st) < 0)
			goto out;
	if (take_piece(st) < 0 || srv_stats_finish(&st->stats, s) < 0)
		goto out;
	rc = st->records + st->stats.records + st->meta.records;
out:
	srv_join_release(&st->join);
	free(st);
	return rc;
}

int server_log_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;

	if (mem_find(h, n, "Avg prompt throughput: ") || mem_find(h, n, "text_generation_launcher") ||
	    mem_find(h, n, "text_generation_router") || mem_find(h, n, "vLLM API server version") ||
	    mem_find(h, n, "LLM engine (v"))
		return 80;
	if (mem_find(h, n, "CUDA out of memory. Tried to allocate") ||
	    mem_find(h, n, "OutOfMemoryError: CUDA out of memory.") ||
	    mem_find(h, n, "would exceed allowed memory. (out of memory)"))
		return 75;
	if (mem_find(h, n, "Traceback (most recent call last):"))
		return 60;
	return 0;
}
