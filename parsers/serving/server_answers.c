/*
 * server_answers.c -- a server log's answers to requests as runs of one
 * outcome (served, failed, a new engine process), for the derive stage's
 * "did the server survive this failure" (server_answers.h has the
 * formats and their sources).
 */
#include "parsers/serving/server_answers.h"
#include "lib/strbuf.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <string.h>

static int starts(const char *m, size_t n, const char *p, size_t len)
{
	return n >= len && m[0] == p[0] && !memcmp(m, p, len);
}

/* An HTTP status's class from the three digits at p (p[0..3) within the
 * line, the caller checked): SERVED for 2xx, FAILED for 5xx, else NONE. */
static enum srv_answer status_class(const char *p)
{
	if (p[1] < '0' || p[1] > '9' || p[2] < '0' || p[2] > '9')
		return SRV_ANS_NONE;
	return p[0] == '2' ? SRV_ANS_SERVED : p[0] == '5' ? SRV_ANS_FAILED : SRV_ANS_NONE;
}

/* Ollama's routes that answer no inference (server/routes.go). */
static int ollama_admin(const char *path, size_t n)
{
	static const char *const admin[] = {
		"\"/api/show\"", "\"/api/pull\"", "\"/api/push\"", "\"/api/create\"",
		"\"/api/copy\"", "\"/api/delete\"", "\"/api/me\"", "\"/api/blobs/",
		"\"/api/signin\"", "\"/api/signout\"",
	};
	size_t i, k;

	for (i = 0; i < sizeof(admin) / sizeof(admin[0]); i++) {
		k = strlen(admin[i]);
		if (n >= k && !memcmp(path, admin[i], k))
			return 1;
	}
	return 0;
}

int srv_answer_admin_route(const char *path, size_t n)
{
	while (n && *path == ' ')
		path++, n--;
	return ollama_admin(path, n);
}

/* p past spaces and terminal colour codes ("\033[97;42m"), to end. */
static const char *skip_blank(const char *p, const char *end)
{
	while (p < end) {
		if (*p == ' ') {
			p++;
		} else if (*p == '\033' && end - p > 1 && p[1] == '[') {
			for (p += 2; p < end && ((*p >= '0' && *p <= '9') || *p == ';'); p++)
				;
			p += p < end && *p == 'm';
		} else {
			break;
		}
	}
	return p;
}

/* '[GIN] 2025/04/29 - 12:31:50 | 500 |  2.27s |  127.0.0.1 | POST     "/api/generate"'
 * (m past "[GIN] "): the status after the first '|', the method after
 * the fourth, colour codes around both when the writer was a terminal. */
static enum srv_answer gin_line(const char *m, size_t n)
{
	const char *end = m + n, *p = memchr(m, '|', n), *q;
	enum srv_answer a;
	int bars = 1;

	if (!p)
		return SRV_ANS_NONE;
	q = skip_blank(p + 1, end);
	if (end - q < 4 || (a = status_class(q)) == SRV_ANS_NONE || (q[3] != ' ' && q[3] != '\033'))
		return SRV_ANS_NONE;
	for (p = q; p < end && bars < 4; p++)
		bars += *p == '|';
	p = skip_blank(p, end);
	if (bars < 4 || end - p < 5 || memcmp(p, "POST", 4))
		return SRV_ANS_NONE;
	for (p += 4; p < end && *p != '"'; p++)
		;
	return ollama_admin(p, (size_t)(end - p)) ? SRV_ANS_NONE : a;
}

/* 'INFO:     10.0.0.7:51234 - "POST /v1/completions HTTP/1.1" 200 OK' */
static enum srv_answer uvicorn_line(const char *m, size_t n)
{
	const char *q = memchr(m, '"', n), *e;

	if (!q || q - m < 3 || (size_t)(m + n - q) < 6 || memcmp(q - 3, " - \"POST ", 9))
		return SRV_ANS_NONE;
	e = memchr(q + 6, '"', n - (size_t)(q + 6 - m));
	if (!e || (size_t)(e - m) + 5 > n || e[1] != ' ')
		return SRV_ANS_NONE;
	return status_class(e + 2);
}

/* 'request: POST /v1/embeddings 127.0.0.1 200' (and, in 2026 builds,
 * 'done request: POST ...') after llama-server's "log_server_r: " (the
 * function's name cut to 12 characters). */
static enum srv_answer llama_server_line(const char *m, size_t n)
{
	if (n > 5 && !memcmp(m, "done ", 5))
		m += 5, n -= 5;
	if (n < 22 || m[n - 4] != ' ' || memcmp(m, "request: POST ", 14))
		return SRV_ANS_NONE;
	return status_class(m + n - 3);
}

/* m[0..n) starts "INFO:  " (n > 7: below 9 bytes no answer fits, as
 * srv_answer_of() has it). */
enum srv_answer srv_answer_of_info(const char *m, size_t n)
{
	/* uvicorn/server.py@0.30 _serve: 'logger.info("Started server
	 * process [%d]", os.getpid())' at each server process's start:
	 * after a failure, a new process answers, not the failed one */
	if (n > 34 && m[10] == 'S' && !memcmp(m, "INFO:     Started server process [", 34))
		return SRV_ANS_RESTART;
	return uvicorn_line(m, n);
}

enum srv_answer srv_answer_of(const char *m, size_t n)
{
	if (n < 9)
		return SRV_ANS_NONE;
	switch (m[0]) {
	case '[':
		return starts(m, n, "[GIN] ", 6) ? gin_line(m + 6, n - 6) : SRV_ANS_NONE;
	case 'I':
		return starts(m, n, "INFO:  ", 7) ? srv_answer_of_info(m, n) : SRV_ANS_NONE;
	case 's':
		if (starts(m, n, "srv  log_server_r: ", 19))
			return llama_server_line(m + 19, n - 19);
		return SRV_ANS_NONE;
	case 'l':
		if (starts(m, n, "log_server_r: ", 14))
			return llama_server_line(m + 14, n - 14);
		return SRV_ANS_NONE;
	case 'r':
		return llama_server_line(m, n);
	case 'F':
		return starts(m, n, "Finished request ", 17) ? SRV_ANS_SERVED : SRV_ANS_NONE;
	case '-':   /* ComfyUI's log view: "<ISO time> - <message>", the time
		     * taken by server_unwrap.c (strip_iso), its " - " left */
		return m[1] == ' ' ? srv_answer_of(m + 2, n - 2) : SRV_ANS_NONE;
	case 'P':   /* ComfyUI (server_answers.h) */
		if (starts(m, n, "Prompt executed in ", 19))
			return SRV_ANS_PROMPT_DONE;
		return starts(m, n, "Processing interrupted", 22) ? SRV_ANS_PROMPT_FAILED
								     : SRV_ANS_NONE;
	case 'g':
		return starts(m, n, "got prompt", 10) ? SRV_ANS_PROMPT_START : SRV_ANS_NONE;
	case '!':
		return starts(m, n, "!!! Exception during processing", 31) ? SRV_ANS_PROMPT_FAILED
									  : SRV_ANS_NONE;
	case 'G':
		return starts(m, n, "Got an OOM, unloading", 21) ? SRV_ANS_PROMPT_FAILED
								   : SRV_ANS_NONE;
	case 'T':
		return starts(m, n, "Traceback (most recent call last)", 33) ? SRV_ANS_PROMPT_FAILED
									    : SRV_ANS_NONE;
	default:
		break;
	}
	/* TGI's router: the span's fields, then ": Success" */
	if (m[n - 1] == 's' && !memcmp(m + n - 9, ": Success", 9))
		return SRV_ANS_SERVED;
	return SRV_ANS_NONE;
}

void srv_answers_note(struct srv_answers *a, enum srv_answer what, uint64_t lineno)
{
	switch (what) {
	case SRV_ANS_NONE:
		return;
	case SRV_ANS_PROMPT_START:
		a->prompt_failed = 0;
		return;
	case SRV_ANS_PROMPT_FAILED:
		a->prompt_failed = 1;
		return;
	case SRV_ANS_PROMPT_DONE:   /* the prompt's end: a served one only */
		if (a->prompt_failed) {
			a->prompt_failed = 0;
			a->unserved_line = lineno;
			return;
		}
		what = SRV_ANS_SERVED;
		break;
	default:
		break;
	}
	if (a->n && a->run[a->n - 1].what == what) {
		a->run[a->n - 1].last = lineno;
		a->run[a->n - 1].count++;
		return;
	}
	if (a->n == SRV_ANSWER_RUNS) {
		a->truncated = 1;
		return;
	}
	a->run[a->n].first = a->run[a->n].last = lineno;
	a->run[a->n].count = 1;
	a->run[a->n].what = what;
	a->n++;
}

void srv_answers_new_run(struct srv_answers *a, uint64_t lineno)
{
	if (a->n_run_lines == SRV_ENGINE_RUNS)
		return;   /* the rows of later runs join the last one kept */
	a->run_line[a->n_run_lines++] = lineno;
}

int srv_answers_finish(const struct srv_answers *a, struct sink *s)
{
	static const char *const word[] = { "none", "served", "failed", "restart" };
	struct strbuf b = STRBUF_INIT;
	int i, r;

	if (!a->n && !a->n_run_lines)
		return 0;
	strbuf_addstr(&b, "{\"runs\":[");
	for (i = 0; i < a->n; i++)
		strbuf_addf(&b, "%s{\"first\":%llu,\"last\":%llu,\"what\":\"%s\",\"count\":%lld}",
			    i ? "," : "", (unsigned long long)a->run[i].first,
			    (unsigned long long)a->run[i].last, word[a->run[i].what],
			    (long long)a->run[i].count);
	if (a->n_run_lines) {
		strbuf_addstr(&b, "],\"engine_runs\":[");
		for (i = 0; i < a->n_run_lines; i++)
			strbuf_addf(&b, "%s%llu", i ? "," : "", (unsigned long long)a->run_line[i]);
	}
	strbuf_addf(&b, "],\"truncated\":%s}", a->truncated ? "true" : "false");
	r = sink_meta(s, vocab_meta_key(VM_SERVER_ANSWERS), b.buf) < 0 ? -1 : 0;
	strbuf_release(&b);
	return r;
}
