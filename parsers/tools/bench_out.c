/*
 * bench_out.c -- a load generator's output and command lines into meta
 * bench.run.<i>, one a run; see bench_out.h for the formats and the
 * sources that taught them.
 *
 * A run is gathered from the lines in file order: a command line opens
 * one; the pre-run lines ("Maximum request concurrency: N" before the
 * block) and the result block fill the open run, or open one when the
 * open run already has its result. A run is stored when the next one
 * opens and at the end of the file. Each line is read by its label
 * (the text before the first ':'), never by its position, since pastes
 * lose the block's alignment.
 */
#include "parsers/tools/bench_out.h"
#include "parsers/common/textclean.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_READ 1024

/* One run as the lines state it; NAN where they do not. */
struct run {
	const char *tool;
	double conc, rate, prompts, ok, failed;
	int done;       /* the result block (or ab's report) was printed */
	int any;        /* a line filled it */
	int in_block;   /* between the block's title and its closing '=' rule */
};

struct bo_st {
	struct sink *s;
	struct run r;
	int stored;
};

static void run_init(struct run *r)
{
	r->tool = "-";
	r->conc = r->rate = r->prompts = r->ok = r->failed = NAN;
	r->done = r->any = r->in_block = 0;
}

/* The number after label's ':' in line (len bytes), or NAN; "inf" is
 * INFINITY (an unbounded request rate). */
static double after_colon(const char *line, size_t len)
{
	const char *c = memchr(line, ':', len);
	char buf[48];
	size_t n;
	char *end;
	double v;

	if (!c)
		return NAN;
	for (c++; c < line + len && (*c == ' ' || *c == '\t'); c++)
		;
	n = (size_t)(line + len - c);
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, c, n);
	buf[n] = 0;
	if (!strncmp(buf, "inf", 3))
		return INFINITY;
	v = strtod(buf, &end);
	return end == buf || !isfinite(v) || v < 0 ? NAN : v;
}

/* 1 when line (len bytes, leading blanks skipped) starts with label. */
static int starts(const char *line, size_t len, const char *label)
{
	size_t n = strlen(label);

	return len >= n && !memcmp(line, label, n);
}

/* The value of option opt ("--max-concurrency", "-c") in a command line,
 * as "--opt N" or "--opt=N"; NAN when absent. */
static double option(const char *line, size_t len, const char *opt)
{
	size_t n = strlen(opt), i;

	for (i = 0; i + n < len; i++) {
		const char *p = line + i;
		char buf[32], *end;
		size_t k = 0;
		double v;

		if (memcmp(p, opt, n) || (i && line[i - 1] != ' ' && line[i - 1] != '\t'))
			continue;
		p += n;
		/* "-c 10", "--max-concurrency=64", and a short option glued to
		 * its value ("wrk -c400") */
		if (*p != ' ' && *p != '=' && !(n == 2 && *p >= '0' && *p <= '9'))
			continue;
		while (p < line + len && (*p == ' ' || *p == '='))
			p++;
		while (p < line + len && k + 1 < sizeof(buf) && *p != ' ' && *p != '\\')
			buf[k++] = *p++;
		buf[k] = 0;
		if (!strcmp(buf, "inf"))
			return INFINITY;
		v = strtod(buf, &end);
		if (end != buf && isfinite(v) && v >= 0)
			return v;
	}
	return NAN;
}

/* The tool a command line runs, or NULL when line is none of them. */
static const char *command_tool(const char *line, size_t len)
{
	static const struct { const char *word; const char *tool; } cmds[] = {
		{ "vllm bench serve", "vllm" }, { "benchmark_serving.py", "vllm" },
		/* only the tools whose report this file reads: a command whose
		 * report follows unread would stand as a run cut short */
		{ "sglang.bench_serving", "sglang" }, { "ab ", "ab" }, { "wrk ", "wrk" },
	};
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *w = cmds[i].word;
		size_t n = strlen(w);

		/* the load tools of one word must open the line (after "$ ") */
		if (w[n - 1] == ' ') {
			const char *p = line;

			if (len >= 2 && p[0] == '$' && p[1] == ' ')
				p += 2;
			if ((size_t)(line + len - p) > n && !memcmp(p, w, n) &&
			    memmem(p, (size_t)(line + len - p), " -c", 3))
				return cmds[i].tool;
		} else if (memmem(line, len, w, n)) {
			return cmds[i].tool;
		}
	}
	return NULL;
}

/* The sum of the counts after ':' in wrk's "Socket errors: connect 0,
 * read 3, write 0, timeout 12" or "Non-2xx or 3xx responses: 5". */
static double errors_sum(const char *line, size_t len)
{
	const char *p = memchr(line, ':', len), *e = line + len;
	double sum = 0;

	for (p = p ? p + 1 : e; p < e; p++) {
		if (*p >= '0' && *p <= '9') {
			char *end;

			sum += strtod(p, &end);
			p = end - 1;
		}
	}
	return sum;
}

static int put(char *buf, size_t n, size_t *o, double v, int last)
{
	int w;

	if (isnan(v))
		w = snprintf(buf + *o, n - *o, "-%s", last ? "" : "|");
	else if (isinf(v))
		w = snprintf(buf + *o, n - *o, "inf%s", last ? "" : "|");
	else
		w = snprintf(buf + *o, n - *o, "%g%s", v, last ? "" : "|");
	if (w < 0 || (size_t)w >= n - *o)
		return -1;
	*o += (size_t)w;
	return 0;
}

/* Store the open run (when a line filled it) and open a new one:
 * 0, or -1 when the sink failed. */
static int flush(struct bo_st *b)
{
	char key[48], val[192];
	size_t o;

	if (b->r.any && b->stored < BENCH_OUT_MAX_RUNS) {
		o = (size_t)snprintf(val, sizeof(val), "%s|", b->r.tool);
		if (put(val, sizeof(val), &o, b->r.conc, 0) < 0 ||
		    put(val, sizeof(val), &o, b->r.rate, 0) < 0 ||
		    put(val, sizeof(val), &o, b->r.prompts, 0) < 0 ||
		    put(val, sizeof(val), &o, b->r.ok, 0) < 0 ||
		    put(val, sizeof(val), &o, b->r.failed, 0) < 0 ||
		    o + 6 >= sizeof(val))
			return 0;
		snprintf(val + o, sizeof(val) - o, "%s", b->r.done ? "done" : "cmd");
		snprintf(key, sizeof(key), "bench.run.%d", b->stored);
		if (sink_meta(b->s, key, val) < 0)
			return -1;
		b->stored++;
	}
	run_init(&b->r);
	return 0;
}

/* Read one cleaned line into the open run: 0, or -1 when the sink
 * failed. */
static int line_in(struct bo_st *b, const char *l, size_t len)
{
	struct run *r = &b->r;
	const char *tool;
	double v;

	while (len && (*l == ' ' || *l == '\t' || *l == '#'))
		l++, len--;
	if (!len)
		return 0;
	if ((tool = command_tool(l, len))) {
		if (flush(b) < 0)
			return -1;
		r->tool = tool;
		r->any = 1;
		if (!strcmp(tool, "vllm") || !strcmp(tool, "sglang")) {
			r->conc = option(l, len, "--max-concurrency");
			r->rate = option(l, len, "--request-rate");
			r->prompts = option(l, len, "--num-prompts");
			if (isnan(r->prompts))
				r->prompts = option(l, len, "--num-prompt");
		} else {
			r->conc = option(l, len, "-c");
			r->prompts = option(l, len, "-n");
		}
		return 0;
	}
	if (starts(l, len, "Running ") && memmem(l, len, " test @ ", 8)) {
		/* wrk's first line (src/wrk.c@4.2.0); its report follows, the
		 * run its command line (just before) opened */
		if (!(r->any && !strcmp(r->tool, "wrk") && !r->done) && flush(b) < 0)
			return -1;
		r->tool = "wrk";
		r->any = 1;
		return 0;
	}
	if (r->any && !strcmp(r->tool, "wrk") && !r->done) {
		const char *q;

		if ((q = memmem(l, len, " threads and ", 13)) && memmem(l, len, " connections", 12)) {
			r->conc = strtod(q + 13, NULL);
		} else if ((q = memmem(l, len, " requests in ", 13))) {
			r->ok = strtod(l, NULL);
		} else if (starts(l, len, "Socket errors:") || starts(l, len, "Non-2xx or 3xx responses:")) {
			r->failed = (isnan(r->failed) ? 0 : r->failed) + errors_sum(l, len);
		} else if (starts(l, len, "Requests/sec:")) {
			/* the report's end: error lines are printed only when non-zero */
			r->done = 1;
			if (isnan(r->failed))
				r->failed = 0;
		}
		return 0;
	}
	if (memmem(l, len, "Serving Benchmark Result", 24)) {
		if (r->done && flush(b) < 0)
			return -1;
		r->done = r->any = r->in_block = 1;
		if (!strcmp(r->tool, "-"))
			r->tool = "serving_benchmark";
		return 0;
	}
	if (starts(l, len, "Maximum request concurrency:") ||
	    starts(l, len, "Max request concurrency:") || starts(l, len, "Concurrency Level:")) {
		/* before the block (vLLM prints it as the run starts: after a
		 * finished run, a new run's), or in it */
		if (r->done && !r->in_block && flush(b) < 0)
			return -1;
		if (!isnan(v = after_colon(l, len)))
			r->conc = v;
		r->any = 1;
		if (starts(l, len, "Concurrency Level:")) {
			r->tool = "ab";
			r->done = 1;
		}
		return 0;
	}
	if (starts(l, len, "Traffic request rate:") ||
	    starts(l, len, "Request rate configured (RPS):")) {
		/* vLLM prints the rate first of a run's opening lines */
		if (r->done && !r->in_block && flush(b) < 0)
			return -1;
		r->any = 1;
		if (!isnan(v = after_colon(l, len)))
			r->rate = v;
		return 0;
	}
	if (!r->any)
		return 0;   /* the labels below mean a run only after one began */
	if (l[0] == '=' && len >= 20 && strspn(l, "=") >= len - 1) {
		r->in_block = 0;   /* the block's closing rule */
		return 0;
	}
	if (starts(l, len, "Successful requests:") || starts(l, len, "Complete requests:")) {
		r->ok = after_colon(l, len);
	} else if (starts(l, len, "Failed requests:")) {
		r->failed = after_colon(l, len);
	}
	return 0;
}

int bench_out_sniff(const unsigned char *head, size_t n)
{
	if (memmem(head, n, "Serving Benchmark Result", 24) ||
	    (memmem(head, n, "Concurrency Level:", 18) && memmem(head, n, "Complete requests:", 18)) ||
	    memmem(head, n, "vllm bench serve", 16) || memmem(head, n, "benchmark_serving.py", 20) ||
	    memmem(head, n, "sglang.bench_serving", 20) ||
	    (memmem(head, n, " test @ ", 8) && memmem(head, n, " threads and ", 13)))
		return 25;
	return 0;
}

int bench_out_parse(struct input *in, struct sink *s)
{
	struct bo_st b = { s, { 0 }, 0 };
	char clean[LINE_MAX_READ];
	const char *l;
	size_t len;
	int rc;

	run_init(&b.r);
	while ((rc = input_getline(in, &l, &len)) == 1) {
		len = text_clean(l, len, clean, sizeof(clean), TC_ANSI | TC_QUOTE);
		while (len && (clean[len - 1] == ' ' || clean[len - 1] == '\r'))
			clean[--len] = 0;
		if (line_in(&b, clean, len) < 0)
			return -1;
	}
	if (flush(&b) < 0)
		return -1;
	return b.stored;
}
