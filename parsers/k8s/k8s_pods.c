/*
 * k8s_pods.c -- `kubectl get pods` tables inside a Kubernetes paste: the
 * rows whose STATUS is OOMKilled, with their header or (set 10 spent,
 * w-spent10b) a row pasted without it; and FrameworkController's
 * "PodPattern matched: ..." diagnostics (OpenPAI, AzureML on
 * Kubernetes), the pod's terminated containers as the controller saw
 * them. Split from k8s.c, which calls k8s_pods_row() and
 * k8s_podpattern_line() on every line, k8s_pods_flush() at the end and
 * k8s_bare_pods_in() from its sniff (k8s_parts.h).
 */
#include "parsers/k8s/k8s_parts.h"
#include "parsers/common/seriesutil.h"

#include <stdio.h>
#include <string.h>

/* Set 10 spent (w-spent10b): a `kubectl get pods` row pasted without
 * its header ("kubeflow  training-operator-8569f97489-zkxbt  0/1
 * OOMKilled", the columns printPod writes: [NAMESPACE] NAME READY STATUS
 * [RESTARTS AGE], cut after STATUS). It is one only when its READY is
 * "N/M" (printPod: "%d/%d", ready containers of all), the word after it
 * is OOMKilled, and the one or two words before it are a pod name and
 * its namespace (DNS labels). The index of READY in w (1 or 2), else 0. */
static int bare_pods_row(char **w, int k)
{
	int i, j;

	for (i = 1; i <= 2 && i + 1 < k; i++) {
		const char *r = w[i];
		if (strcmp(w[i + 1], "OOMKilled"))
			continue;
		for (j = 0; r[j] >= '0' && r[j] <= '9'; j++)
			;
		if (!j || r[j] != '/' || !(r[j + 1] >= '0' && r[j + 1] <= '9'))
			continue;
		for (j++; r[j] >= '0' && r[j] <= '9'; j++)
			;
		if (r[j] || !k8s_dns_label(w[i - 1]) || (i == 2 && !k8s_dns_label(w[0])))
			continue;
		return k <= i + 4 ? i : 0;   /* no more than RESTARTS and AGE after */
	}
	return 0;
}

/* `kubectl get pods` (kubernetes pkg/printers/internalversion/printers.go
 * @v1.28.0 printPod): NAME READY STATUS RESTARTS AGE, NAMESPACE first
 * under -A, NAME "pod/..." under `get all`; STATUS is a container's
 * waiting or terminated reason when it has one. OOMKilled there is the
 * kubelet's word for the container's cgroup OOM; CrashLoopBackOff and
 * the RESTARTS count say the container restarts, not why: no OOM. The
 * header sets the columns; an OOMKilled row is kept (its pod, restarts)
 * and told at the end only when nothing else in the file told the kill
 * (describe's Last State of the same pod). 1 when t was the header or
 * an OOMKilled row, 0 when the line is for the other readers. */
int k8s_pods_row(struct k8s_st *st, const char *t)
{
	char buf[512], *w[12], *p;
	const char *ns = "";
	int k = 0, i;

	snprintf(buf, sizeof(buf), "%s", t);
	for (p = buf; *p && k < 12;) {
		while (*p == ' ' || *p == '\t')
			*p++ = 0;
		if (!*p)
			break;
		w[k++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	if (k >= 5 && !strcmp(w[k > 5 && !strcmp(w[0], "NAMESPACE") ? 1 : 0], "NAME")) {
		i = !strcmp(w[0], "NAMESPACE") ? 1 : 0;
		if (strcmp(w[i + 1], "READY") || strcmp(w[i + 2], "STATUS") ||
		    strcmp(w[i + 3], "RESTARTS"))
			return 0;
		st->pods_name = i;
		st->pods_status = i + 3;
		return 1;
	}
	if ((!st->pods_status || st->pods_bare) && (i = bare_pods_row(w, k)) > 0) {
		/* set 10 spent (w-spent10b): a row pasted without its header;
		 * its namespace, when it has one, is kept with the row */
		st->pods_bare = 1;
		st->pods_name = i - 1;
		st->pods_status = i + 2;
		ns = i == 2 ? w[0] : "";
		if (k == i + 2)        /* RESTARTS cut off: unknown */
			w[k++] = (char *)"";
	}
	if (!st->pods_status || k <= st->pods_status || !strchr(w[st->pods_name + 1], '/'))
		return 0;
	if (strcmp(w[st->pods_status - 1], "OOMKilled") || st->npods_oom >= MAX_CONT ||
	    strchr(w[st->pods_name], ':'))
		return 0;   /* not an OOMKilled row: the line is read as any other */
	{
		struct kcont *c = &st->pods_oom[st->npods_oom++];
		const char *name = w[st->pods_name];
		memset(c, 0, sizeof(*c));
		if (!strncmp(name, "pod/", 4))
			name += 4;
		snprintf(c->name, sizeof(c->name), "%s", name);
		c->restarts = k8s_int(w[st->pods_status]);
		c->limit = c->request = c->exit_code = OL_NULL;
		c->line = st->in->lineno;
		snprintf(st->pods_ns[st->npods_oom - 1], sizeof(st->pods_ns[0]), "%s", ns);
	}
	return 1;
}

/* The OOMKilled rows of `kubectl get pods`, when the file told no kill
 * otherwise: one k8s_oom_kill a pod, untimed. -1 when the sink failed. */
int k8s_pods_flush(struct k8s_st *st)
{
	struct ol_time none = ol_time_none();
	int i;

	if (st->kills)
		return 0;
	for (i = 0; i < st->npods_oom; i++) {
		struct kcont c = st->pods_oom[i];
		snprintf(st->pod, sizeof(st->pod), "%s", c.name);
		if (st->pods_ns[i][0])
			snprintf(st->ns, sizeof(st->ns), "%s", st->pods_ns[i]);
		c.name[0] = 0;   /* the container is not in the row */
		st->src = "kubectl_get";
		i = k8s_emit_kill(st, &c, "OOMKilled", NULL, &none, c.line) < 0 ? -1 : i;
		st->src = NULL;
		if (i < 0)
			return -1;
	}
	return 0;
}

/* Does h[0..n) hold a headerless `kubectl get pods` row whose STATUS is
 * OOMKilled (bare_pods_row)? Looks only at the lines holding the word. */
int k8s_bare_pods_in(const char *h, size_t n)
{
	const char *p = h, *e = h + n, *c;

	while ((c = mem_find(p, (size_t)(e - p), " OOMKilled"))) {
		const char *b = c, *le = c;
		char buf[256], *w[12], *q;
		int k = 0;

		while (b > h && b[-1] != '\n')
			b--;
		while (le < e && *le != '\n')
			le++;
		p = c + 1;
		if (le - b >= (long)sizeof(buf))
			continue;
		memcpy(buf, b, (size_t)(le - b));
		buf[le - b] = 0;
		for (q = buf; *q && k < 12;) {
			while (*q == ' ' || *q == '\t' || *q == '\r')
				*q++ = 0;
			if (!*q)
				break;
			w[k++] = q;
			while (*q && *q != ' ' && *q != '\t' && *q != '\r')
				q++;
		}
		if (bare_pods_row(w, k))
			return 1;
	}
	return 0;
}

/* The value of key in a PodPattern diagnostic's text from p: JSON
 * ("reason":"OOMKilled", "code":137) or the YAML a platform re-printed it
 * as (reason: OOMKilled, code: 137), into out; 0 when absent. */
static int pattern_value(const char *p, const char *key, char *out, size_t on)
{
	char jk[32], yk[32];
	const char *c, *v;
	size_t k = 0;

	snprintf(jk, sizeof(jk), "\"%s\":", key);
	snprintf(yk, sizeof(yk), " %s: ", key);
	if ((c = strstr(p, jk)))
		v = c + strlen(jk);
	else if ((c = strstr(p, yk)))
		v = c + strlen(yk);
	else
		return 0;
	if (*v == '"')
		v++;
	while (v[k] && v[k] != '"' && v[k] != ',' && v[k] != ' ' && v[k] != '}' && k + 1 < on)
		k++;
	memcpy(out, v, k);
	out[k] = 0;
	return k > 0;
}

/* FrameworkController's completion diagnostics (microsoft/frameworkcontroller
 * pkg/apis/frameworkcontroller/v1/completion.go matchPodPattern: "PodPattern
 * matched: " + ToJson(MatchedPod), each container a ContainerCompletionStatus
 * {name, reason, message, signal, code}), shown by OpenPAI's job exit
 * summary ("Pod failed: PodPattern matched: containers: - name: app
 * reason: OOMKilled message: ... code: 137") and AzureML's "Kubernetes
 * job failed. 137:PodPattern matched: {...}". A container whose reason is
 * the kubelet's OOMKilled is one kill (its name, its code); 137 with
 * another reason is a SIGKILL, no OOM. 1 when t was such a line, -1 when
 * the sink failed, 0 otherwise. */
int k8s_podpattern_line(struct k8s_st *st, const char *t)
{
	const char *p = strstr(t, "PodPattern matched: ");
	struct ol_time none = ol_time_none();
	char reason[48], code[16], name[128];
	struct kcont c;
	int r;

	if (!p || !pattern_value(p, "reason", reason, sizeof(reason)) ||
	    strcmp(reason, "OOMKilled"))
		return 0;
	memset(&c, 0, sizeof(c));
	c.limit = c.request = c.restarts = c.exit_code = OL_NULL;
	if (pattern_value(p, "name", name, sizeof(name)) && k8s_dns_label(name))
		snprintf(c.name, sizeof(c.name), "%s", name);
	if (pattern_value(p, "code", code, sizeof(code)))
		c.exit_code = k8s_int(code);
	c.oom = 1;
	c.line = st->in->lineno;
	st->src = "frameworkcontroller";
	r = k8s_emit_kill(st, &c, "OOMKilled", NULL, &none, c.line) < 0 ? -1 : 1;
	st->src = NULL;
	return r;
}
