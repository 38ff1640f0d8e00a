/*
 * shell_kill.c -- a shell's "Killed" job report read as a process ended
 * by SIGKILL (a process_crash event, the killer not shown); see
 * shell_kill.h for the forms and their sources.
 *
 * Each line is looked at once: the part after its last carriage return
 * (a progress bar redrawn in place leaves its last frame there, and the
 * shell's report glued to it), cleaned of colour escapes. Of the
 * program's own output above a report only the stage its lines name is
 * kept (the phase table's stage lines, memfail_phase_line(): "Loading
 * checkpoint shards", llama.cpp's "load_tensors: loading model
 * tensors"), as the event's "phase": the stage the program was in when
 * the SIGKILL came, where that line is at most SK_STAGE_NEAR lines above
 * the report. The table is the serving parsers' (a layer above this
 * one), so the caller passes its lookup in (shell_kill_parse_staged). The
 * rest of that output is the other line logs'.
 */
#include "parsers/host/shell_kill.h"
#include "parsers/common/textclean.h"
#include "lib/engine_vocab.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SK_LINE 2048

/* A stage line counts for a kill only within this many lines above it:
 * the program's last words before the kill were that stage's (a load's
 * own lines, its progress bar, a launcher's "Killing subprocess" line per
 * worker). A stage named long before, with a run's output since (an
 * evaluation's progress after "Loading checkpoint shards": LAVIS in
 * tests/data/incoming), says nothing of when the kill came. */
#define SK_STAGE_NEAR 16

/* What one report says: the form, the pid (OL_NULL when not printed) and
 * the command the shell ran ("" when not printed). */
struct sk_hit {
	const char *form;
	int64_t pid;
	char cmd[256];
};

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* After the signal's word at [p, e): nothing, or blanks then the command.
 * ": 9" (macOS's strsignal) may follow "Killed". 1 and the command into
 * h->cmd when the rest of the line fits, else 0. */
static int rest_is_command(const char *p, const char *e, int colon9, struct sk_hit *h)
{
	size_t n;

	if (colon9 && e - p >= 3 && !memcmp(p, ": 9", 3))
		p += 3;
	if (p < e && !is_blank(*p))
		return 0;
	while (p < e && is_blank(*p))
		p++;
	n = (size_t)(e - p) < sizeof(h->cmd) - 1 ? (size_t)(e - p) : sizeof(h->cmd) - 1;
	memcpy(h->cmd, p, n);
	h->cmd[n] = 0;
	return 1;
}

/* The number whose digits start at p, read no further than e (the line
 * is not NUL-terminated: strtoll would run past its end); at most 18
 * digits, so it cannot overflow. */
static long long digits_to(const char *p, const char *e)
{
	long long v = 0;
	int n = 0;

	for (; p < e && is_digit(*p) && n < 18; p++, n++)
		v = v * 10 + (*p - '0');
	return v;
}

/* bash running a script: "NAME: line N: <blanks>PID Killed[: 9] CMD",
 * anywhere in [b, e). 1 when found. */
static int bash_script(const char *b, const char *e, struct sk_hit *h)
{
	const char *k, *q, *d;

	for (k = b; e - k >= 6; k++) {
		if (memcmp(k, "Killed", 6) || k - b < 10 || k[-1] != ' ')
			continue;
		for (q = k - 1; q > b && is_digit(q[-1]); q--)
			;
		if (q == k - 1)
			continue;
		d = q;                      /* the pid's first digit */
		while (q > b && is_blank(q[-1]))
			q--;
		if (q == d || q - b < 8 || q[-1] != ':')
			continue;
		q--;
		if (!is_digit(q[-1]))
			continue;
		while (q > b && is_digit(q[-1]))
			q--;
		if (q - b < 5 || memcmp(q - 5, "line ", 5))
			continue;
		if (!rest_is_command(k + 6, e, 1, h))
			continue;
		h->form = "bash_script";
		h->pid = digits_to(d, k);
		return 1;
	}
	return 0;
}

/* The line [b, e), blanks trimmed, in one of the forms a line holds
 * alone: "[N]+  Killed  CMD", "zsh: killed  CMD", "Killed", "Killed: 9",
 * "已杀死". 1 when it is one. */
static int alone_forms(const char *b, const char *e, struct sk_hit *h)
{
	const char *p;
	static const char zh[] = "\xe5\xb7\xb2\xe6\x9d\x80\xe6\xad\xbb";   /* 已杀死 */

	while (b < e && is_blank(*b))
		b++;
	while (e > b && is_blank(e[-1]))
		e--;
	/* "killed" in lower case: the same report retyped into an issue
	 * (tloen/alpaca-lora #546: "Loading checkpoint shards: 52%" then
	 * "killed"); a line holding only that word is no prose */
	if ((e - b == 6 && (!memcmp(b, "Killed", 6) || !memcmp(b, "killed", 6))) ||
	    (e - b == 9 && !memcmp(b, "Killed: 9", 9)) ||
	    ((size_t)(e - b) == sizeof(zh) - 1 && !memcmp(b, zh, sizeof(zh) - 1))) {
		h->form = "alone";
		return 1;
	}
	if (e - b > 10 && !memcmp(b, "zsh: killed", 11) && rest_is_command(b + 11, e, 0, h)) {
		h->form = "zsh";
		return 1;
	}
	if (b >= e || *b != '[' || !(b + 1 < e && is_digit(b[1])))
		return 0;
	for (p = b + 1; p < e && is_digit(*p); p++)
		;
	if (p >= e || *p != ']')
		return 0;
	p++;
	if (p < e && (*p == '+' || *p == '-'))
		p++;
	if (p >= e || !is_blank(*p))
		return 0;
	while (p < e && is_blank(*p))
		p++;
	if (e - p < 6 || memcmp(p, "Killed", 6) || !rest_is_command(p + 6, e, 1, h))
		return 0;
	h->form = "bash_job";
	return 1;
}

/* Is [n, n + nl) at [b, e)? */
static const char *find_in(const char *b, const char *e, const char *n)
{
	size_t nl = strlen(n);

	for (; (size_t)(e - b) >= nl; b++)
		if (*b == *n && !memcmp(b, n, nl))
			return b;
	return NULL;
}

/* A launcher's report that a worker it started died of signal 9, the
 * line's end or middle (a launcher names the worker by its pid or its
 * command, and prints this after the worker's last output):
 *   DeepSpeed  "<cmd> exits with return code = -9" at the line's end
 *              (deepspeed/launcher/launch.py@v0.12.3, sigkill_handler:
 *              logger.error(f"{cmd} exits with return code =
 *              {last_return_code}"); a Popen returncode of -N is signal N)
 *   torchrun   "Signal 9 (SIGKILL) received by PID <pid>" (torch/
 *              distributed/elastic/multiprocessing/errors/__init__.py
 *              @v2.1.0, ProcessFailure: the "traceback :" field of a
 *              ChildFailedError for a worker whose exitcode is -9)
 * Another return code or signal is no SIGKILL and is not read. 1 when
 * [b, e) is one, h filled. */
/* A Go program's report of a child it ran (os/exec's ExitError, its
 * text os.ProcessState.String(), src/os/exec_posix.go@go1.21.0: "signal:
 * " + the signal's name, which for 9 is "killed" in syscall's table,
 * zerrors_linux_amd64.go; "exit status 137" when the child was a shell
 * whose own child SIGKILL ended: 128 + 9), wrapped in the program's error
 * ("llama runner process has terminated: signal: killed", ollama
 * llm/server.go@v0.3.0; "... exit status 137" of a k8s operator's exec):
 * the words follow ": " and end the line or the quoted error. The
 * runner's name before " process has terminated" when printed. 1 when
 * [b, e) holds one, h filled. */
static int go_exec_form(const char *b, const char *e, struct sk_hit *h)
{
	static const char *const words[] = { "signal: killed", "exit status 137" };
	static const char term[] = " process has terminated: ";
	const char *k = NULL, *after, *t, *w;
	size_t i, n = 0, which = 0;

	for (i = 0; i < sizeof(words) / sizeof(words[0]) && !k; i++) {
		which = i;
		n = strlen(words[i]);
		for (k = find_in(b, e, words[i]); k; k = find_in(k + 1, e, words[i])) {
			after = k + n;
			if (k - b >= 2 && k[-2] == ':' && k[-1] == ' ' &&
			    (after == e || *after == '"' || *after == '\\' || *after == ')' ||
			     *after == '\r'))
				break;
		}
	}
	if (!k)
		return 0;
	h->form = which == 0 ? "go_exec" : "go_exec_137";
	if ((t = find_in(b, k, term)) && t + sizeof(term) - 1 == k) {
		for (w = t; w > b && w[-1] != ' ' && w[-1] != '"' && w[-1] != ':'; w--)
			;
		if (t - w == 6 && !memcmp(w, "runner", 6))
			w = w - 6 >= b && !memcmp(w - 6, "llama ", 6) ? w - 6 : w;
		n = (size_t)(t - w) < sizeof(h->cmd) - 1 ? (size_t)(t - w) : sizeof(h->cmd) - 1;
		memcpy(h->cmd, w, n);
		h->cmd[n] = 0;
	}
	return 1;
}

/* PyTorch's DataLoader on a worker the kernel ended with SIGKILL: "DataLoader
 * worker (pid N) is killed by signal: Killed." (torch/csrc/DataLoader.cpp@
 * v1.7.1, _set_worker_signal_handlers' check: "DataLoader worker (pid " pid
 * ") is killed by signal: " strsignal(si_status) "."; raised as a
 * RuntimeError in the main process). Only strsignal(SIGKILL): a worker's
 * Bus error (short /dev/shm), Aborted or Segmentation fault is no kill. */
static int dataloader_form(const char *b, const char *e, struct sk_hit *h)
{
	static const char dl[] = "DataLoader worker (pid ";
	static const char ks[] = ") is killed by signal: Killed";
	const char *k, *t;

	if (!(k = find_in(b, e, dl)))
		return 0;
	for (t = k + sizeof(dl) - 1; t < e && *t != ')' && *t != ' ' && t - k < 48; t++)
		;
	if (t == k + sizeof(dl) - 1 || (size_t)(e - t) < sizeof(ks) - 1 ||
	    memcmp(t, ks, sizeof(ks) - 1))
		return 0;
	h->form = "dataloader_worker";
	if (is_digit(k[sizeof(dl) - 1]))   /* else a paste's placeholder: "<worker_pid>", "XXX" */
		h->pid = digits_to(k + sizeof(dl) - 1, e);
	snprintf(h->cmd, sizeof(h->cmd), "DataLoader worker");
	return 1;
}

static int launcher_forms(const char *b, const char *e, struct sk_hit *h)
{
	static const char ds[] = "exits with return code = -9";
	static const char el[] = "Signal 9 (SIGKILL) received by PID ";
	const char *k;

	while (e > b && is_blank(e[-1]))
		e--;
	if ((size_t)(e - b) >= sizeof(ds) - 1 && !memcmp(e - (sizeof(ds) - 1), ds, sizeof(ds) - 1)) {
		h->form = "deepspeed_launcher";
		return 1;
	}
	if ((k = find_in(b, e, el)) && k + sizeof(el) - 1 < e && is_digit(k[sizeof(el) - 1])) {
		h->form = "torchrun_worker";
		h->pid = digits_to(k + sizeof(el) - 1, e);
		return 1;
	}
	return go_exec_form(b, e, h) || dataloader_form(b, e, h);
}

/* Is [b, e) (one line, no newline) a shell's or a launcher's SIGKILL
 * report? 1 and h filled when it is. */
static int shell_kill_line(const char *b, const char *e, struct sk_hit *h)
{
	const char *r;

	while (e > b && (e[-1] == '\r' || e[-1] == '\n'))
		e--;
	for (r = e; r > b && r[-1] != '\r'; r--)
		;
	memset(h, 0, sizeof(*h));
	h->pid = OL_NULL;
	return bash_script(r, e, h) || alone_forms(r, e, h) || launcher_forms(r, e, h);
}

int shell_kill_sniff(const unsigned char *head, size_t n)
{
	const char *p = (const char *)head, *e = p + n, *nl;
	struct sk_hit h;

	for (; p < e; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(e - p))))
			nl = e;
		if (memchr(p, 'K', (size_t)(nl - p)) || memchr(p, 'k', (size_t)(nl - p)) ||
		    memchr(p, '\xe5', (size_t)(nl - p)) || memchr(p, '9', (size_t)(nl - p)) ||
		    memchr(p, '7', (size_t)(nl - p)))
			if (shell_kill_line(p, nl, &h))
				return 30;
		if (nl == e)
			break;
	}
	return 0;
}

/* The command's program: the first word that is no VAR=value, its base
 * name, into out (on bytes); "" when none. */
static void program_of(const char *cmd, char *out, size_t on)
{
	const char *p = cmd, *w, *s;
	size_t n;

	out[0] = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return;
		for (w = p; *p && *p != ' ' && *p != '\t'; p++)
			;
		if (!memchr(w, '=', (size_t)(p - w)))
			break;
	}
	for (s = p; s > w && s[-1] != '/'; s--)
		;
	n = (size_t)(p - s) < on - 1 ? (size_t)(p - s) : on - 1;
	memcpy(out, s, n);
	out[n] = 0;
}

/* The stage the program's own lines last named before a report: its
 * phase (OOM_PHASE_UNKNOWN none) and line number. */
struct sk_stage {
	enum oom_phase phase;
	uint64_t line;
};

/* The process_crash event of one report at line no, with st the stage
 * named above it. -1 when the sink failed. */
static int sk_send(struct sink *s, const struct sk_hit *h, uint64_t no, const struct sk_stage *st)
{
	json_t *d = json_object();
	char summary[512], prog[64];
	int python = !strcmp(h->form, "deepspeed_launcher") || !strcmp(h->form, "torchrun_worker");
	int launcher = python || !strncmp(h->form, "go_exec", 7);
	struct ol_event ev;
	int64_t id;

	program_of(h->cmd, prog, sizeof(prog));
	json_object_set_new(d, "signal", json_string("SIGKILL"));
	json_object_set_new(d, "killer", json_null());
	json_object_set_new(d, "source", json_string(launcher ? "launcher" : "shell"));
	json_object_set_new(d, "form", json_string(h->form));
	json_object_set_new(d, "command", ol_json_str(h->cmd[0] ? h->cmd : NULL));
	json_object_set_new(d, "exit_code", ol_json_int(137));
	json_object_set_new(d, "exit_code_inferred", json_boolean(strcmp(h->form, "go_exec_137")));
	if (python)
		json_object_set_new(d, "return_code", ol_json_int(-9));
	if (st->phase != OOM_PHASE_UNKNOWN && no - st->line <= SK_STAGE_NEAR) {
		/* what the log shows the program doing, not why it was killed */
		json_object_set_new(d, "phase", json_string(oom_phase_name(st->phase)));
		json_object_set_new(d, "phase_line", ol_json_int((int64_t)st->line));
	}
	snprintf(summary, sizeof(summary), "the %s reported %s killed by SIGKILL: what sent"
		 " it is not in the excerpt (inferred: the kernel's OOM killer, a cgroup limit or"
		 " macOS jetsam are the usual senders; kill -9 and schedulers send it too)",
		 launcher ? "launcher" : "shell", prog[0] ? prog : launcher ? "a worker" : "its job");
	memset(&ev, 0, sizeof(ev));
	ev.kind = vocab_event_kind(VE_PROCESS_CRASH);
	ev.t = ol_time_none();
	ev.pid = h->pid;
	ev.comm = prog[0] ? prog : NULL;
	ev.bytes = OL_NULL;
	ev.line = no;
	ev.summary = summary;
	ev.data = d;
	id = sink_event(s, &ev);
	json_decref(d);
	return id < 0 ? -1 : 1;
}

int shell_kill_parse(struct input *in, struct sink *s)
{
	return shell_kill_parse_staged(in, s, NULL);
}

int shell_kill_parse_staged(struct input *in, struct sink *s, shell_kill_stage_fn stage)
{
	char clean[SK_LINE];
	const char *l, *r;
	size_t len;
	struct sk_hit h;
	struct sk_stage st = { OOM_PHASE_UNKNOWN, 0 };
	enum oom_phase ph;
	int rc, sent = 0;

	while ((rc = input_getline(in, &l, &len)) == 1) {
		while (len && (l[len - 1] == '\r' || l[len - 1] == '\n'))
			len--;
		for (r = l + len; r > l && r[-1] != '\r'; r--)
			;
		len = text_clean(r, (size_t)(l + len - r), clean, sizeof(clean), TC_ANSI);
		if (!shell_kill_line(clean, clean + len, &h)) {
			if (stage && (ph = stage(clean, len)) != OOM_PHASE_UNKNOWN) {
				st.phase = ph;
				st.line = in->lineno;
			}
			continue;
		}
		if (sk_send(s, &h, in->lineno, &st) < 0)
			return -1;
		sent++;
	}
	return rc < 0 ? -1 : sent;
}
