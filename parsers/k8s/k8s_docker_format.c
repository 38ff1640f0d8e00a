/*
 * k8s_docker_format.c -- `docker inspect --format TEMPLATE NAME...` (and
 * podman's) as a paste shows it: the command, then one line per
 * container, the template's text with each {{.Field}} replaced by the
 * container's value. docker/cli cli/command/inspect/inspector.go
 * @28064c20 (TemplateInspector.Inspect: the template executed on each
 * container named, in the order named, then '\n'); the fields are moby's
 * api/types ContainerJSON (State.OOMKilled, State.ExitCode,
 * State.FinishedAt, Name, HostConfig.Memory, RestartCount), the same
 * ones the JSON form prints (k8s.c docker_state_key). Runbooks ask for
 * the flag this way ("docker inspect NAME --format='{{.State.OOMKilled}}'",
 * "'exit={{.State.ExitCode}} oom={{.State.OOMKilled}}'"), so the output
 * is only a bare "true" or "oom=true exit=137" under the command.
 *
 * The template is read from the command (its literal text and its
 * fields, at most FMT_MAX; a template with actions other than fields --
 * if, range, with -- is not read), and each line after it is matched
 * against it: the literal text must be there, each field's value is what
 * lies between. OOMKilled true is a kill told by Docker (source
 * docker_inspect, as the JSON form); false with exit code 137 a SIGKILL
 * and no OOM. A line that does not match ends the output.
 */
#include "parsers/k8s/k8s_parts.h"
#include "parsers/common/seriesutil.h"

#include <stdio.h>
#include <string.h>

enum { F_OTHER, F_OOM, F_EXIT, F_NAME, F_FINISHED, F_MEMORY, F_RESTARTS };

static const struct {
	const char *path;
	int field;
} fields[] = {
	{ ".State.OOMKilled", F_OOM }, { ".State.ExitCode", F_EXIT }, { ".Name", F_NAME },
	{ ".State.FinishedAt", F_FINISHED }, { ".HostConfig.Memory", F_MEMORY },
	{ ".RestartCount", F_RESTARTS },
};

/* Is c a blank? */
static int blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The field a template action a[0..n) prints ("json " dropped), F_OTHER
 * for another field; -1 when it is no plain field (if, range, end, a
 * pipeline). */
static int field_of(const char *a, size_t n)
{
	size_t i;

	while (n && blank(*a))
		a++, n--;
	while (n && blank(a[n - 1]))
		n--;
	if (n > 5 && !memcmp(a, "json ", 5))
		a += 5, n -= 5;
	if (!n || a[0] != '.' || memchr(a, ' ', n) || memchr(a, '|', n))
		return -1;
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (strlen(fields[i].path) == n && !memcmp(a, fields[i].path, n))
			return fields[i].field;
	return F_OTHER;
}

/* Parse template t[0..n) into f: 1 when it prints State.OOMKilled. */
static int template_parse(struct kfmt *f, const char *t, size_t n)
{
	size_t i = 0, lit = 0;
	int oom = 0;

	f->n = 0;
	while (i <= n) {
		const char *o = i < n ? strstr(t + i, "{{") : NULL;
		size_t ls = o && (size_t)(o - t) < n ? (size_t)(o - t) - i : n - i;
		const char *c;
		int fd;

		if (ls >= sizeof(f->lit[0]))
			return 0;
		memcpy(f->lit[lit], t + i, ls);
		f->lit[lit][ls] = 0;
		if (!o || (size_t)(o - t) >= n)
			break;
		if (f->n >= FMT_MAX || !(c = strstr(o + 2, "}}")) || (size_t)(c - t) > n ||
		    (fd = field_of(o + 2, (size_t)(c - o - 2))) < 0)
			return 0;
		oom |= fd == F_OOM;
		f->field[f->n++] = fd;
		lit = (size_t)f->n;
		i = (size_t)(c + 2 - t);
	}
	return oom && f->n > 0;
}

/* The next word of a command line at *p (quotes kept out), into w; 0 at
 * the end. */
static int next_word(const char **p, char *w, size_t wn)
{
	const char *s = *p, *e;
	char q = 0;

	while (blank(*s))
		s++;
	if (!*s)
		return 0;
	if (*s == '\'' || *s == '"')
		q = *s++;
	for (e = s; *e && (q ? *e != q : !blank(*e)); e++)
		if (!q && (*e == '\'' || *e == '"')) {   /* --format='...' */
			const char *z = strchr(e + 1, *e);
			e = z ? z : e + strlen(e) - 1;
		}
	copy_str(w, wn, s, (size_t)(e - s));
	*p = *e ? e + 1 : e;
	return 1;
}

/* Strip one pair of quotes around w (in place). */
static void unquote(char *w)
{
	size_t n = strlen(w);

	if (n >= 2 && (w[0] == '\'' || w[0] == '"') && w[n - 1] == w[0]) {
		memmove(w, w + 1, n - 2);
		w[n - 2] = 0;
	}
}

/* A `docker|podman [container] inspect ... --format|-f T ... NAMES` line:
 * f filled (template, the names in order), 1; 0 when it is not one. */
static int command_parse(struct kfmt *f, const char *t)
{
	const char *p = strstr(t, "docker "), *q = strstr(t, "podman ");
	char w[LINE_CAP / 4];
	int have = 0;

	if (!p || (q && q < p))
		p = q;
	if (!p || !(p = strstr(p, " inspect ")))
		return 0;
	p += 9;
	f->nref = f->row = 0;
	while (next_word(&p, w, sizeof(w))) {
		char *v = NULL;
		if (!strncmp(w, "--format=", 9) || !strncmp(w, "-f=", 3))
			v = strchr(w, '=') + 1;
		else if (!strcmp(w, "--format") || !strcmp(w, "-f")) {
			if (!next_word(&p, w, sizeof(w)))
				return 0;
			v = w;
		} else if (!strcmp(w, "--type")) {
			next_word(&p, w, sizeof(w));
			continue;
		} else if (w[0] == '-' || w[0] == '|' || w[0] == '>' || w[0] == ';') {
			if (w[0] != '-')
				break;   /* a pipe or redirect ends the names */
			continue;
		}
		if (v) {
			unquote(v);
			if (!template_parse(f, v, strlen(v)))
				return 0;
			have = 1;
		} else if (f->nref < MAX_CONT) {
			copy_str(f->ref[f->nref++], sizeof(f->ref[0]), w, strlen(w));
		}
	}
	return have;
}

/* Does line l match f's template? The values into val[]. A blank in the
 * template's text stands for any run of blanks. */
static int output_match(const struct kfmt *f, const char *l, char val[][64])
{
	const char *p = l, *e = l + strlen(l);
	int i;

	while (e > p && (blank(e[-1]) || e[-1] == '\r'))
		e--;
	while (p < e && blank(*p))
		p++;
	for (i = 0; i <= f->n; i++) {
		const char *lit = f->lit[i], *end;
		size_t k;
		while (i == 0 && blank(*lit))   /* the line was trimmed */
			lit++;
		for (; *lit; lit++) {
			if (blank(*lit)) {
				if (p >= e && i == f->n)
					break;   /* trailing blanks, trimmed */
				if (p >= e || !blank(*p))
					return 0;
				while (p < e && blank(*p))
					p++;
				while (blank(lit[1]))
					lit++;
			} else if (p >= e || *p++ != *lit) {
				return 0;
			}
		}
		if (i == f->n)
			return p == e;
		/* the value: up to the next text's first character (a blank:
		 * the next blank), or the line's end */
		lit = f->lit[i + 1];
		if (!lit[0])
			end = i + 1 == f->n ? e : NULL;
		else if (blank(lit[0]))
			for (end = p; end < e && !blank(*end); end++)
				;
		else
			end = memchr(p, lit[0], (size_t)(e - p));
		if (!end || end == p)
			return 0;
		k = (size_t)(end - p) < 63 ? (size_t)(end - p) : 63;
		memcpy(val[i], p, k);
		val[i][k] = 0;
		unquote(val[i]);
		p = end;
	}
	return 0;
}

/* The kill or SIGKILL one output line tells; 1 read, 0 not one of f's,
 * -1 when the sink failed. */
static int output_line(struct k8s_st *st, struct kfmt *f, const char *t)
{
	char val[FMT_MAX][64], name[128] = "", pod[128];
	struct ol_time when = ol_time_none();
	struct kcont c;
	int i, oom = -1, r = 0;

	if (!output_match(f, t, val))
		return 0;
	memset(&c, 0, sizeof(c));
	c.limit = c.request = c.restarts = c.exit_code = OL_NULL;
	for (i = 0; i < f->n; i++) {
		switch (f->field[i]) {
		case F_OOM:
			oom = !strcmp(val[i], "true") ? 1 : !strcmp(val[i], "false") ? 0 : -1;
			break;
		case F_EXIT:
			c.exit_code = k8s_int(val[i]);
			break;
		case F_NAME:
			copy_str(name, sizeof(name), val[i], strlen(val[i]));
			break;
		case F_FINISHED:
			when = k8s_time(val[i]);
			break;
		case F_MEMORY:
			c.limit = k8s_int(val[i]);
			if (c.limit == 0)
				c.limit = OL_NULL;   /* no limit set */
			break;
		case F_RESTARTS:
			c.restarts = k8s_int(val[i]);
			break;
		default:
			break;
		}
	}
	if (oom < 0)
		return 0;
	if (!name[0] && f->row < f->nref)
		snprintf(name, sizeof(name), "%s", f->ref[f->row]);
	f->row++;
	c.line = st->in->lineno;
	memcpy(pod, st->pod, sizeof(pod));
	snprintf(st->pod, sizeof(st->pod), "%s", name);
	st->src = "docker_inspect";
	if (oom) {
		c.oom = 1;
		snprintf(c.reason, sizeof(c.reason), "OOMKilled");
		r = k8s_emit_kill(st, &c, "OOMKilled", NULL, &when, c.line);
	} else if (c.exit_code == 137) {
		r = k8s_emit_sigkill(st, &c, &when);
	}
	st->src = NULL;
	memcpy(st->pod, pod, sizeof(pod));
	return r < 0 ? -1 : 1;
}

int k8s_docker_format_line(struct k8s_st *st, const char *t)
{
	struct kfmt *f = &st->fmt;
	int r;

	if (command_parse(f, t)) {
		f->on = 1;
		return 1;
	}
	if (!f->on)
		return 0;
	if ((r = output_line(st, f, t)))
		return r;
	f->on = 0;   /* the output ended */
	return 0;
}

/* The sniff's state: the last command read, whether the line before was
 * it or one of its outputs. */
struct fmt_scan {
	struct kfmt f;
	char val[FMT_MAX][64];
	int armed;
};

static int scan_line(const char *line, void *arg)
{
	struct fmt_scan *sc = arg;

	if (command_parse(&sc->f, line))
		sc->armed = 1;
	else if (sc->armed && output_match(&sc->f, line, sc->val))
		return 1;
	else
		sc->armed = 0;
	return 0;
}

int k8s_docker_format_in(const char *h, size_t n)
{
	struct fmt_scan sc;
	char line[1024];

	sc.armed = 0;
	return k8s_each_head_line(h, n, line, sizeof(line), scan_line, &sc);
}
