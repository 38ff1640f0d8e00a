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
	double sent;    /* requests sent, where the tool counts those and the
			 * failed ones (k6, locust): ok is their difference */
	int done;       /* the result block (or ab's report) was printed */
	int any;        /* a line filled it */
	int in_block;   /* between the block's title and its closing '=' rule */
	int section;    /* the report's part being read (enum section) */
	int cont;       /* the command line goes on (it ended in '\\') */
};

/* The part of a multi-line report being read. */
enum section { SEC_NONE, SEC_HEY_CODES, SEC_HEY_ERRORS, SEC_LOCUST_TABLE };

struct bo_st {
	struct sink *s;
	struct run r;
	const struct cmd *cmd;   /* the command that opened the run, or NULL */
	int guidellm;            /* in guidellm's Benchmarks Info table */
	int stored;
};

static void run_init(struct run *r)
{
	r->tool = "-";
	r->conc = r->rate = r->prompts = r->ok = r->failed = r->sent = NAN;
	r->done = r->any = r->in_block = r->section = r->cont = 0;
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

/* The load tools whose command lines open a run: the words that name
 * the command, the tool, 1 when the words must open the line (after a
 * shell prompt), 1 when the line must give a concurrency option too (a
 * bare "ab " may be prose), and the options giving the concurrency, the
 * request rate and the requests to send, each as the tool's own --help
 * spells it. Only the tools whose report this file reads: a command
 * whose report follows unread would stand as a run cut short. */
static const struct cmd {
	const char *word, *tool;
	int opens, need_conc;
	const char *conc[3], *rate, *count[2];
} cmds[] = {
	{ "vllm bench serve", "vllm", 0, 0, { "--max-concurrency" }, "--request-rate",
	  { "--num-prompts", "--num-prompt" } },
	{ "benchmark_serving.py", "vllm", 0, 0, { "--max-concurrency" }, "--request-rate",
	  { "--num-prompts", "--num-prompt" } },
	{ "sglang.bench_serving", "sglang", 0, 0, { "--max-concurrency" }, "--request-rate",
	  { "--num-prompts", "--num-prompt" } },
	{ "ab ", "ab", 1, 1, { "-c" }, NULL, { "-n" } },
	{ "wrk ", "wrk", 1, 1, { "-c" }, NULL, { "-n" } },
	/* rakyll/hey hey.go@v0.1.4: -c workers, -n requests */
	{ "hey ", "hey", 1, 1, { "-c" }, NULL, { "-n" } },
	/* locust/argument_parser.py@2.17: -u/--users (0.x: -c/--clients) */
	{ "locust ", "locust", 1, 1, { "-u", "--users", "-c" }, NULL, { NULL } },
	/* grafana/k6 cmd/options.go@v0.47: --vus/-u, --iterations/-i */
	{ "k6 run ", "k6", 1, 0, { "--vus", "-u" }, NULL, { "--iterations", "-i" } },
	/* genai-perf parser.py (perf_analyzer@r24.06): --concurrency,
	 * --request-rate, --request-count */
	{ "genai-perf profile", "genai-perf", 1, 0, { "--concurrency" }, "--request-rate",
	  { "--request-count" } },
	/* ray-project/llmperf token_benchmark_ray.py@f1d6bed */
	{ "token_benchmark_ray.py", "llmperf", 0, 0, { "--num-concurrent-requests" }, NULL,
	  { "--max-num-completed-requests" } },
};

/* line after a shell prompt ("$ ", "[root@host dir]# "), or line. */
static const char *after_prompt(const char *line, size_t len)
{
	const char *e;

	if (len >= 2 && line[0] == '$' && line[1] == ' ')
		return line + 2;
	if (line[0] == '[' && (e = memchr(line, ']', len < 100 ? len : 100)) &&
	    (size_t)(e - line) + 2 < len && (e[1] == '#' || e[1] == '$') && e[2] == ' ')
		return e + 3;
	return line;
}

/* The command a line runs, or NULL when line is none of them. */
static const struct cmd *command_of(const char *line, size_t len)
{
	size_t i, k;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const struct cmd *c = &cmds[i];
		size_t n = strlen(c->word);

		if (c->opens) {
			const char *p = after_prompt(line, len);
			size_t m = (size_t)(line + len - p);

			if (m <= n || memcmp(p, c->word, n))
				continue;
			if (!c->need_conc)
				return c;
			for (k = 0; k < 3 && c->conc[k]; k++) {
				char opt[24];
				int w = snprintf(opt, sizeof(opt), " %s", c->conc[k]);

				if (w > 0 && memmem(p, m, opt, (size_t)w))
					return c;
			}
		} else if (memmem(line, len, c->word, n)) {
			return c;
		}
	}
	return NULL;
}

/* The options of cmd on line (a command line or its continuation) into
 * r, where r has no figure yet; r->cont set when the line goes on. */
static void read_options(struct run *r, const struct cmd *c, const char *l, size_t len)
{
	size_t k;

	for (k = 0; k < 3 && c->conc[k] && isnan(r->conc); k++)
		r->conc = option(l, len, c->conc[k]);
	if (c->rate && isnan(r->rate))
		r->rate = option(l, len, c->rate);
	for (k = 0; k < 2 && c->count[k] && isnan(r->prompts); k++)
		r->prompts = option(l, len, c->count[k]);
	r->cont = len && l[len - 1] == '\\';
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

	if (isnan(b->r.ok) && !isnan(b->r.sent) &&
	    b->r.sent >= (isnan(b->r.failed) ? 0 : b->r.failed))
		b->r.ok = b->r.sent - (isnan(b->r.failed) ? 0 : b->r.failed);
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
	b->cmd = NULL;
	return 0;
}

/* Open a run of tool for a report's line: the open run when it is that
 * tool's and its report is not done yet (a command line or the report's
 * first lines opened it), else a new one. 0, or -1 when the sink failed. */
static int open_tool(struct bo_st *b, const char *tool)
{
	struct run *r = &b->r;

	if (r->any && (strcmp(r->tool, tool) || r->done) && flush(b) < 0)
		return -1;
	if (!r->any || strcmp(r->tool, tool))
		r->section = SEC_NONE;
	r->tool = tool;
	r->any = 1;
	return 0;
}

/* The number at p (thousands separated by ',' as rich tables print
 * them: "1,024.00"), or NAN. */
static double num_at(const char *p, const char *e)
{
	char buf[40];
	size_t k = 0;

	for (; p < e && k + 1 < sizeof(buf); p++) {
		if (*p == ',' && k && p + 1 < e && p[1] >= '0' && p[1] <= '9')
			continue;
		if (!((*p >= '0' && *p <= '9') || *p == '.'))
			break;
		buf[k++] = *p;
	}
	buf[k] = 0;
	return k ? strtod(buf, NULL) : NAN;
}

/* The first number at or after p in [p, e), or NAN. */
static double next_num(const char *p, const char *e)
{
	while (p < e && !(*p >= '0' && *p <= '9'))
		p++;
	return num_at(p, e);
}

/* 1 when line (len bytes) starts with label and the label ends there
 * (k6 pads it with dots before its ':'). */
static int k6_label(const char *l, size_t len, const char *label)
{
	size_t n = strlen(label);

	return len > n && !memcmp(l, label, n) && (l[n] == '.' || l[n] == ':');
}

/* hey's report (rakyll/hey requester/print.go@v0.1.4): "Summary:" opens
 * it, "Status code distribution:" lists "[200] N responses" (non-2xx
 * codes failed), "Error distribution:" lists "[N] error text" (printed
 * only when a request failed). 1 when the line was hey's, 0 when not,
 * -1 when the sink failed. */
static int hey_line(struct bo_st *b, const char *l, size_t len)
{
	struct run *r = &b->r;
	double code, n;
	const char *q;

	if (len == 8 && !memcmp(l, "Summary:", 8)) {
		if (open_tool(b, "hey") < 0)
			return -1;
		r->done = 1;
		r->failed = 0;   /* hey prints errors only when there are some */
		r->section = SEC_NONE;
		return 1;
	}
	if (strcmp(r->tool, "hey") || !r->done)
		return 0;
	if (starts(l, len, "Status code distribution:")) {
		r->section = SEC_HEY_CODES;
		return 1;
	}
	if (starts(l, len, "Error distribution:")) {
		r->section = SEC_HEY_ERRORS;
		return 1;
	}
	if (l[0] != '[' || !(q = memchr(l, ']', len))) {
		if (memchr(l, ':', len) && l[len - 1] == ':')
			r->section = SEC_NONE;   /* another part's title */
		return 0;
	}
	code = next_num(l + 1, q);
	if (r->section == SEC_HEY_CODES && !isnan(n = next_num(q + 1, l + len))) {
		if (code >= 200 && code < 300)
			r->ok = (isnan(r->ok) ? 0 : r->ok) + n;
		else
			r->failed += n;
	} else if (r->section == SEC_HEY_ERRORS && !isnan(code)) {
		r->failed += code;
	}
	return 1;
}

/* locust's stats table (locust/stats.py@2.17 print_stats; 0.9 the
 * same columns without Type): a header with "# reqs" and "# fails", the
 * "Aggregated" (0.x: "Total") row's requests and "N(x%)" failures. It
 * is printed again and again while the run goes on: the last one holds.
 * "Response time percentiles" (0.x: "Percentage of the requests
 * completed") follows only the final table. The users: the command's
 * -u, or "Hatching and swarming N clients" (0.x) / "Ramping to N users"
 * (2.x) in its log. */
static int locust_line(struct bo_st *b, const char *l, size_t len)
{
	struct run *r = &b->r;
	const char *q, *e = l + len;
	double v;

	if (memmem(l, len, "# reqs", 6) && memmem(l, len, "# fails", 7)) {
		if (strcmp(r->tool, "locust") && open_tool(b, "locust") < 0)
			return -1;
		r->section = SEC_LOCUST_TABLE;
		return 1;
	}
	if (((q = memmem(l, len, "Hatching and swarming ", 22)) && (q += 22)) ||
	    ((q = memmem(l, len, "Ramping to ", 11)) && (q += 11))) {
		if (!isnan(v = num_at(q, e)) && (memmem(q, (size_t)(e - q), " clients", 8) ||
						 memmem(q, (size_t)(e - q), " users", 6))) {
			if (strcmp(r->tool, "locust") && open_tool(b, "locust") < 0)
				return -1;
			r->conc = v;
			return 1;
		}
		return 0;
	}
	if (strcmp(r->tool, "locust"))
		return 0;
	if (starts(l, len, "Response time percentiles") ||
	    starts(l, len, "Percentage of the requests completed")) {
		r->done = 1;
		r->section = SEC_NONE;
		return 1;
	}
	if (r->section != SEC_LOCUST_TABLE ||
	    !(starts(l, len, "Aggregated ") || starts(l, len, "Total ")))
		return 0;
	q = l + (l[0] == 'A' ? 11 : 6);
	v = next_num(q, e);
	while (q < e && *q == ' ')
		q++;
	while (q < e && *q >= '0' && *q <= '9')
		q++;
	if (isnan(v) || !memchr(q, '(', (size_t)(e - q)))
		return 1;
	r->sent = v;
	r->failed = next_num(q, e);
	return 1;
}

/* k6's end-of-test summary (grafana/k6 cmd/ui summary, legacy mode
 * @v0.47 and compact mode @v1.0): "http_reqs....: 180 4.3/s" the
 * requests sent, "http_req_failed....: 0.00% ✓ 0 ✗ 180" (legacy: the ✓
 * count is the failed requests) or "0.00%  0 out of 45" (compact),
 * "vus_max....: 10 min=10 max=10" the virtual users, the concurrency. */
static int k6_line(struct bo_st *b, const char *l, size_t len)
{
	struct run *r = &b->r;
	const char *c, *q, *e = l + len;
	int reqs = k6_label(l, len, "http_reqs"), failed = k6_label(l, len, "http_req_failed");

	if (!reqs && !failed && !k6_label(l, len, "vus_max"))
		return 0;
	if (!(c = memchr(l, ':', len)))
		return 0;
	if ((strcmp(r->tool, "k6") || (r->done && !isnan(r->sent) && reqs)) &&
	    open_tool(b, "k6") < 0)
		return -1;
	if (reqs) {
		r->sent = next_num(c + 1, e);
		r->done = 1;
	} else if (failed) {
		if ((q = memmem(c, (size_t)(e - c), "\xe2\x9c\x93", 3)))   /* ✓ */
			r->failed = next_num(q + 3, e);
		else if ((q = memmem(c, (size_t)(e - c), " out of ", 8))) {
			const char *s = q;

			while (s > c && s[-1] >= '0' && s[-1] <= '9')
				s--;
			r->failed = num_at(s, q);
			if (isnan(r->sent))
				r->sent = next_num(q + 8, e);
		}
		r->done = 1;
	} else {
		r->conc = next_num(c + 1, e);
	}
	return 1;
}

/* The label of a genai-perf row: the line after the rich table's left
 * border ("│", "┃") and its padding. */
static const char *gp_label(const char *l, size_t len, size_t *n)
{
	const char *e = l + len;

	while (l < e && (*l == ' ' || ((unsigned char)*l == 0xe2 && l + 2 < e &&
				       (unsigned char)l[1] == 0x94 &&
				       ((unsigned char)l[2] == 0x82 || (unsigned char)l[2] == 0x83))))
		l += *l == ' ' ? 1 : 3;
	*n = (size_t)(e - l);
	return l;
}

/* genai-perf's console (perf_analyzer genai-perf console_exporter.py
 * @r24.06, its CSV exporter the same rows): the "LLM Metrics" table
 * ("NVIDIA GenAI-Perf | LLM Metrics" later), the "Request Count
 * (count)" row (2025-: the requests completed), "Request throughput
 * (per sec)" (a row, or a line under the table in 24.06). The table is
 * printed once the profile completed. */
static int genai_line(struct bo_st *b, const char *l, size_t len)
{
	struct run *r = &b->r;
	const char *q;
	size_t n;

	if (len >= 11 && !memcmp(l + len - 11, "LLM Metrics", 11)) {
		if (open_tool(b, "genai-perf") < 0)
			return -1;
		r->done = 1;
		return 1;
	}
	q = gp_label(l, len, &n);
	if (starts(q, n, "Request throughput (per sec)") ||
	    starts(q, n, "Request Throughput (per sec)")) {
		if ((strcmp(r->tool, "genai-perf") || !r->done) && open_tool(b, "genai-perf") < 0)
			return -1;
		r->done = 1;
		return 1;
	}
	if (starts(q, n, "Request Count (count)") && !strcmp(r->tool, "genai-perf")) {
		r->ok = next_num(q + 21, q + n);
		return 1;
	}
	return 0;
}

/* llmperf's token_benchmark_ray.py@f1d6bed: its closing lines "Number
 * Of Errored Requests: N", "Number Of Completed Requests: M", and its
 * *_summary.json ("num_concurrent_requests", "results_number_errors",
 * "results_num_requests_started", "results_num_completed_requests"),
 * one key a line as json.dump(indent=4) writes them. */
static int llmperf_line(struct bo_st *b, const char *l, size_t len)
{
	struct run *r = &b->r;
	double v = after_colon(l, len);

	if (starts(l, len, "\"num_concurrent_requests\"")) {
		if (open_tool(b, "llmperf") < 0)
			return -1;
		r->conc = v;
	} else if (starts(l, len, "Number Of Errored Requests:") ||
		   starts(l, len, "\"results_number_errors\"")) {
		if (strcmp(r->tool, "llmperf") && open_tool(b, "llmperf") < 0)
			return -1;
		r->failed = v;
	} else if (starts(l, len, "\"results_num_requests_started\"")) {
		if (strcmp(r->tool, "llmperf"))
			return 0;
		r->prompts = v;
	} else if (starts(l, len, "Number Of Completed Requests:") ||
		   starts(l, len, "\"results_num_completed_requests\"")) {
		if (strcmp(r->tool, "llmperf") && open_tool(b, "llmperf") < 0)
			return -1;
		r->ok = v;
		r->done = 1;
	} else {
		return 0;
	}
	return 1;
}

/* guidellm's "Benchmarks Info" table (vllm-project/guidellm
 * src/guidellm/benchmark/output.py, 0.2-0.3 consoles: "Benchmarks
 * Metadata", "Benchmarks Info", "Benchmarks Stats"): a row a benchmark,
 * "strategy| start| end| duration| Comp| Inc| Err| ..." where the
 * strategy is "synchronous" (one request at a time), "concurrent@N",
 * "throughput" (all at once), "constant@R" or "poisson@R" (R requests a
 * second), and Comp/Inc/Err the requests completed, cut by the time
 * limit and errored. A row's first seven fields sit on its first line
 * even when a terminal wrapped it. Each row is a run, done. */
static int guidellm_line(struct bo_st *b, const char *l, size_t len)
{
	struct run *r = &b->r;
	const char *f[8], *e = l + len, *p = l;
	double at = NAN;
	int n = 0;

	if (starts(l, len, "Benchmarks Info:")) {
		b->guidellm = 1;
		return 1;
	}
	if (!b->guidellm)
		return 0;
	if (starts(l, len, "Benchmarks Stats:") || starts(l, len, "Benchmarks Metadata:")) {
		b->guidellm = 0;
		return 1;
	}
	for (f[n++] = p; n < 8 && (p = memchr(p, '|', (size_t)(e - p))); )
		f[n++] = ++p;
	if (n < 8)
		return 0;
	if (starts(l, len, "concurrent@") || starts(l, len, "constant@") ||
	    starts(l, len, "poisson@") || starts(l, len, "async@"))
		at = num_at(memchr(l, '@', len) + 1, f[1]);
	else if (!starts(l, len, "synchronous|") && !starts(l, len, "throughput|"))
		return 0;
	if (isnan(next_num(f[4], f[5])) || isnan(next_num(f[6], f[7])))
		return 0;
	if (open_tool(b, "guidellm") < 0)
		return -1;
	r->done = 1;
	if (l[0] == 's')
		r->conc = 1;
	else if (l[0] == 't')
		r->rate = INFINITY;
	else if (l[1] == 'o' && l[2] == 'n' && l[3] == 'c')
		r->conc = at;
	else
		r->rate = at;
	r->ok = next_num(f[4], f[5]);
	r->failed = next_num(f[6], f[7]);
	return 1;
}

/* The reports of hey, locust, k6, genai-perf, llmperf and guidellm: 1
 * when the line was one of theirs, 0 when not, -1 when the sink failed. */
static int more_tools(struct bo_st *b, const char *l, size_t len)
{
	int rc;

	if ((rc = hey_line(b, l, len)) || (rc = locust_line(b, l, len)) ||
	    (rc = k6_line(b, l, len)) || (rc = genai_line(b, l, len)) ||
	    (rc = guidellm_line(b, l, len)))
		return rc;
	return llmperf_line(b, l, len);
}

/* Read one cleaned line into the open run: 0, or -1 when the sink
 * failed. */
static int line_in(struct bo_st *b, const char *l, size_t len)
{
	struct run *r = &b->r;
	const struct cmd *c;
	double v;
	int rc;

	while (len && (*l == ' ' || *l == '\t' || *l == '#'))
		l++, len--;
	if (!len)
		return 0;
	if (r->cont && b->cmd && !r->done) {
		read_options(r, b->cmd, l, len);   /* a continuation line */
		return 0;
	}
	r->cont = 0;
	if ((c = command_of(l, len))) {
		if (flush(b) < 0)
			return -1;
		b->cmd = c;
		r->tool = c->tool;
		r->any = 1;
		read_options(r, c, l, len);
		return 0;
	}
	if ((rc = more_tools(b, l, len)) != 0)
		return rc < 0 ? -1 : 0;
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
	    (memmem(head, n, " test @ ", 8) && memmem(head, n, " threads and ", 13)) ||
	    (memmem(head, n, "Summary:", 8) && memmem(head, n, "Requests/sec:", 13)) ||
	    (memmem(head, n, "# reqs", 6) && memmem(head, n, "# fails", 7)) ||
	    (memmem(head, n, "http_req_failed", 15) && memmem(head, n, "http_req_duration", 17)) ||
	    memmem(head, n, "LLM Metrics", 11) || memmem(head, n, "genai-perf profile", 18) ||
	    memmem(head, n, "token_benchmark_ray", 19) ||
	    memmem(head, n, "\"results_num_completed_requests\"", 32) ||
	    memmem(head, n, "Number Of Completed Requests:", 29) ||
	    memmem(head, n, "Benchmarks Info:", 16))
		return 25;
	return 0;
}

int bench_out_parse(struct input *in, struct sink *s)
{
	struct bo_st b = { s, { 0 }, NULL, 0, 0 };
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
