/*
 * k8s.c -- Kubernetes' account of OOM kills and evictions into events and
 * meta; see k8s.h.
 *
 * describe output, YAML and JSON are all "key: value" lines with an
 * indentation, so one reader serves them: a key is normalised (case,
 * blanks and quotes dropped: "Last State" = "lastState", "Exit Code" =
 * "exitCode") and a small state machine follows where it is:
 *
 *   containers   "Containers:" then "  <name>:" (describe), or "- name: X"
 *                under containers / containerStatuses (YAML); without
 *                either, one unnamed container.
 *   state        "State:" / "Last State:" with "Terminated" (describe), or
 *                "state:" / "lastState:" then "terminated:" (YAML); its
 *                reason, exitCode, startedAt/Started, finishedAt/Finished.
 *   resources    "Limits:" / "Requests:" then "memory: 300Mi".
 *   pod / event  reason (Evicted, OOMKilling, SystemOOM, CgroupOOM),
 *                message (one line, a YAML block or quoted scalar over
 *                several lines, or one wrapped by a terminal), the
 *                event's firstTimestamp / lastTimestamp.
 *
 * Event table rows ("4m11s Warning Evicted pod/x The node was low ...",
 * "Warning SystemOOM 17m kubelet, node1 System OOM encountered") are one
 * event each. What an object said is sent when it ends: at a new pod
 * ("Name:" at the left margin, "kind: Pod") and at the end of the file.
 * Quantities are Kubernetes': 300Mi, 1Gi, 512M (10^6), 1.5G, 128974848.
 */
#include "parsers/k8s/k8s.h"
#include "parsers/k8s/k8s_parts.h"
#include "parsers/host/environ.h"
#include "parsers/common/seriesutil.h"
#include "parsers/common/textclean.h"
#include "lib/strbuf.h"
#include "lib/timeutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------
 * Lines.
 */

/* A key line "  Key Words:  value" / "- key: value" / "\"key\": value,".
 * Fills key (normalised: lower case, no blanks, quotes or '_') and val
 * (trimmed, outer quotes and a JSON ',' removed), orig (the key as
 * written) and sets *item for a "- " list item. 0 when t is not one. */
static int key_line(const char *t, char *key, size_t kn, char *orig, size_t on, char *val,
		    size_t vn, int *item)
{
	const char *p = t, *k, *c, *v, *ve;
	size_t o = 0;
	int quoted = 0;

	*item = 0;
	if (p[0] == '-' && p[1] == ' ') {
		*item = 1;
		p += 2;
		while (*p == ' ')
			p++;
	}
	if (*p == '"') {
		quoted = 1;
		p++;
	}
	k = p;
	if (!((*k >= 'A' && *k <= 'Z') || (*k >= 'a' && *k <= 'z')))
		return 0;
	for (c = k; *c && *c != ':' && *c != '"'; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
		      *c == ' ' || *c == '_' || *c == '-' || *c == '.' || *c == '(' || *c == ')'))
			return 0;
	if (quoted && *c == '"')
		c++;
	if (*c != ':' || (c[1] && c[1] != ' ' && c[1] != '\t') || c - k > 40)
		return 0;
	copy_str(orig, on, k, (size_t)(c - k - quoted));
	for (p = k; p < c && o + 1 < kn; p++)
		if (*p != ' ' && *p != '"' && *p != '_')
			key[o++] = (char)(*p >= 'A' && *p <= 'Z' ? *p | 0x20 : *p);
	key[o] = 0;
	v = c + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	ve = v + strlen(v);
	while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
		ve--;
	if (quoted && ve > v && ve[-1] == ',')
		ve--;
	if (ve - v >= 2 && (*v == '"' || *v == '\'') && ve[-1] == *v) {
		v++;
		ve--;
	}
	copy_str(val, vn, v, (size_t)(ve - v));
	return 1;
}

/* The container named name (created; "" = the unnamed one), as current. */
static struct kcont *container(struct k8s_st *st, const char *name)
{
	int i;

	for (i = 0; i < st->ncont; i++)
		if (!strcmp(st->cont[i].name, name))
			return &st->cont[st->cur = i];
	if (st->ncont >= MAX_CONT)
		return &st->cont[st->cur = st->ncont - 1];
	memset(&st->cont[st->ncont], 0, sizeof(st->cont[0]));
	snprintf(st->cont[st->ncont].name, sizeof(st->cont[0].name), "%s", name);
	st->cont[st->ncont].limit = st->cont[st->ncont].request = OL_NULL;
	st->cont[st->ncont].restarts = st->cont[st->ncont].exit_code = OL_NULL;
	st->cont[st->ncont].started = st->cont[st->ncont].finished = ol_time_none();
	return &st->cont[st->cur = st->ncont++];
}

static struct kcont *cur_container(struct k8s_st *st)
{
	return st->cur >= 0 ? &st->cont[st->cur] : container(st, "");
}

/* ---------------------------------------------------------------------
 * Event table rows.
 */

/* Is s a container name (a DNS label: lower case, digits, '-', '.'), not
 * one of describe's capitalised sub-keys (Limits:, Mounts:, ...)? */
int k8s_dns_label(const char *s)
{
	if (!*s || !((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '.'))
			return 0;
	return 1;
}

/* A shell line that asked for a pod ("$ kubectl describe pod -n ns x",
 * "oc get pod x -o yaml"): its name and namespace, when the object has
 * none yet. */
static void command_line(struct k8s_st *st, const char *t)
{
	const char *c = strstr(t, "kubectl "), *p;
	char tok[128];
	int after_pod = 0, want_ns = 0;
	size_t n;

	if (!c)
		c = strstr(t, "oc ");
	if (!c || !(strstr(c, " pod ") || strstr(c, " pods ") || strstr(c, " po ")))
		return;
	for (p = c; *p;) {
		while (*p == ' ')
			p++;
		for (n = 0; p[n] && p[n] != ' ' && p[n] != '|'; n++)
			;
		if (!n)
			break;
		copy_str(tok, sizeof(tok), p, n);
		p += n;
		if (want_ns) {
			if (!st->ns[0])
				snprintf(st->ns, sizeof(st->ns), "%s", tok);
			want_ns = 0;
		} else if (!strcmp(tok, "-n") || !strcmp(tok, "--namespace")) {
			want_ns = 1;
		} else if (!strncmp(tok, "--namespace=", 12)) {
			if (!st->ns[0])
				snprintf(st->ns, sizeof(st->ns), "%s", tok + 12);
		} else if (!strcmp(tok, "pod") || !strcmp(tok, "pods") || !strcmp(tok, "po")) {
			after_pod = 1;
		} else if (after_pod && tok[0] != '-' && k8s_dns_label(tok) && !st->pod[0]) {
			snprintf(st->pod, sizeof(st->pod), "%s", tok);
			after_pod = 0;
		} else if (tok[0] == '-' && (!strcmp(tok, "-o") || !strcmp(tok, "-l") ||
					     !strcmp(tok, "--context"))) {
			p += strspn(p, " ");
			p += strcspn(p, " ");      /* the option's argument */
		}
		if (*p == '|')
			break;
	}
}

/* The start of a row's message: the first sentence oomlens knows in it,
 * else the row less its leading blanks. */
static const char *row_message(const char *t)
{
	static const char *const starts_[] = { "The node ", "System OOM", "Cgroup OOM",
					       "Memory cgroup", "Out of memory", "Killed process",
					       "Container " };
	const char *c, *best = NULL;
	size_t i;

	for (i = 0; i < sizeof(starts_) / sizeof(starts_[0]); i++)
		if ((c = strstr(t, starts_[i])) && (!best || c < best))
			best = c;
	if (best)
		return best;
	while (*t == ' ')
		t++;
	return t;
}

/* A row of `kubectl get events` or of describe's Events table: "[age]
 * Warning|Normal Reason ... message". 1 when t is a row (taken, read or
 * not), 0 when it is not, -1 when the sink failed. */
static int event_row(struct k8s_st *st, const char *t)
{
	const char *p = t, *w, *we, *c;
	char reason[48], pod[128] = "", node[128] = "";
	struct ol_time none = ol_time_none();
	int i;

	for (i = 0; i < 4 && *p; i++) {
		while (*p == ' ')
			p++;
		w = p;
		while (*p && *p != ' ')
			p++;
		if ((p - w == 7 && !memcmp(w, "Warning", 7)) || (p - w == 6 && !memcmp(w, "Normal", 6)))
			break;
	}
	if (i == 4 || !*p)
		return 0;
	while (*p == ' ')
		p++;
	for (we = p; *we && *we != ' '; we++)
		;
	if (we == p || !(*p >= 'A' && *p <= 'Z') || we - p >= (int)sizeof(reason))
		return 0;
	copy_str(reason, sizeof(reason), p, (size_t)(we - p));
	if (!k8s_memory_reason(reason))
		return 1;
	if ((c = strstr(we, " pod/"))) {
		for (w = c + 5; *w && *w != ' '; w++)
			;
		copy_str(pod, sizeof(pod), c + 5, (size_t)(w - c - 5));
	}
	if ((c = strstr(we, "kubelet, "))) {
		for (w = c + 9; *w && *w != ' '; w++)
			;
		copy_str(node, sizeof(node), c + 9, (size_t)(w - c - 9));
	}
	if (pod[0])
		snprintf(st->pod, sizeof(st->pod), "%s", pod);
	if (node[0])
		snprintf(st->node, sizeof(st->node), "%s", node);
	st->src = "kubectl_events";
	if (!strcmp(reason, "Evicted"))
		i = k8s_emit_eviction(st, row_message(we), &none, st->in->lineno);
	else
		i = k8s_emit_kill(st, NULL, reason, row_message(we), &none, st->in->lineno);
	st->src = NULL;
	return i < 0 ? -1 : 1;
}

/* ---------------------------------------------------------------------
 * Messages over several lines.
 */

/* Start gathering a message whose first text is v (may be empty: a YAML
 * block scalar, its text on the lines below) at indentation indent. */
static void msg_start(struct k8s_st *st, const char *v, int indent)
{
	strbuf_reset(&st->msg);
	if (strcmp(v, ">-") && strcmp(v, ">") && strcmp(v, "|") && strcmp(v, "|-"))
		strbuf_addstr(&st->msg, v);
	st->in_msg = 1;
	st->msg_indent = indent;
	st->msg_line = st->in->lineno;
	if (!st->obj_line)
		st->obj_line = st->in->lineno;
}

/* Add line t (indentation indent, raw: its text started at the margin)
 * to the message: a line a terminal wrapped mid-word joins without a
 * blank, any other with one. */
static void msg_add(struct k8s_st *st, const char *t, int indent)
{
	struct strbuf *m = &st->msg;
	char last = m->len ? m->buf[m->len - 1] : ' ';

	if (m->len >= MSG_CAP)
		return;
	if (m->len && !(indent == 0 && last != ' ' && last != '.' && last != ',' &&
			((*t >= 'a' && *t <= 'z') || (*t >= '0' && *t <= '9'))))
		strbuf_addch(m, ' ');
	strbuf_addstr(m, t);
}

/* The message is whole: keep it (quotes of a YAML scalar taken off) for
 * the object's end. */
static void msg_end(struct k8s_st *st)
{
	char *b = st->msg.buf;
	size_t n = st->msg.len;

	st->in_msg = 0;
	if (strbuf_failed(&st->msg))
		return;
	while (n && (b[n - 1] == ' ' || b[n - 1] == '\'' || b[n - 1] == '"'))
		n--;
	while (n && (*b == '\'' || *b == '"' || *b == ' ')) {
		b++;
		n--;
	}
	copy_str(st->gathered, sizeof(st->gathered), b, n);
	st->have_gathered = 1;
}

/* ---------------------------------------------------------------------
 * Keys.
 */

/* Keys of a container state (describe and YAML). */
static int state_key(const char *k)
{
	static const char *const keys[] = { "reason", "exitcode", "started", "startedat",
					     "finished", "finishedat", "signal", "message",
					     "containerid", "terminated", "waiting", "running" };
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(k, keys[i]))
			return 1;
	return 0;
}

/* Docker's own account (docker inspect, moby api/types ContainerState:
 * "State": {"Status": "exited", "OOMKilled": true, "ExitCode": 137,
 * "FinishedAt": ...}): a State block whose status is "exited" is a
 * termination, OOMKilled true its reason. 1 when k was one of them. */
static int docker_state_key(struct k8s_st *st, const char *k, const char *v, int indent)
{
	struct kcont *c;

	static const char *const others[] = { "paused", "restarting", "dead", "pid", "error",
					      "health" };
	size_t i;

	if (!st->in_state || indent <= st->state_indent)
		return 0;
	/* its other fields stay in the block ("Running": a boolean there,
	 * a sub-state with its own keys in Kubernetes') */
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		if (!strcmp(k, others[i]))
			return 1;
	if (!strcmp(k, "running") && (!strcmp(v, "true") || !strcmp(v, "false")))
		return 1;
	if (strcmp(k, "status") && strcmp(k, "oomkilled"))
		return 0;
	if (!strcmp(k, "status")) {
		st->state_term = !strcmp(v, "exited") || !strcmp(v, "dead");
		return 1;
	}
	c = cur_container(st);
	st->obj_src = "docker_inspect";
	if (!strcmp(v, "true") && !c->reason[0]) {
		snprintf(c->reason, sizeof(c->reason), "OOMKilled");
		c->oom = 1;
		c->last_state = st->state_last;
		c->line = st->in->lineno;
	}
	return 1;
}

/* A key inside a State / Last State block. 1 when it was the block's. */
static int in_state_key(struct k8s_st *st, const char *k, const char *v, int indent)
{
	struct kcont *c;

	if (docker_state_key(st, k, v, indent))
		return 1;
	if (!state_key(k) || (indent <= st->state_indent && st->state_indent >= 0 &&
			      strcmp(k, "reason") && strcmp(k, "exitcode")))
		return 0;
	if (!strcmp(k, "terminated")) {
		st->state_term = 1;
		return 1;
	}
	if (!strcmp(k, "waiting") || !strcmp(k, "running")) {
		st->state_term = 0;
		return 1;
	}
	if (!st->state_term)
		return 1;
	c = cur_container(st);
	if (!strcmp(k, "reason")) {
		copy_str(c->reason, sizeof(c->reason), v, strlen(v));
		if (!strcmp(v, "OOMKilled")) {
			c->oom = 1;
			c->last_state = st->state_last;
			c->line = st->in->lineno;
		} else if (!c->line) {   /* a SIGKILL's line, when no OOM names one */
			c->line = st->in->lineno;
		}
	} else if (!strcmp(k, "exitcode")) {
		c->exit_code = k8s_int(v);
		if (!c->line && c->exit_code == 137)
			c->line = st->in->lineno;
	} else if (!strcmp(k, "started") || !strcmp(k, "startedat")) {
		c->started = k8s_time(v);
	} else if (!strcmp(k, "finished") || !strcmp(k, "finishedat")) {
		c->finished = k8s_time(v);
	}
	return 1;
}

/* A variable of a container's environment, kept when it shapes memory
 * (environ_keep: never a secret) as meta env.<NAME>. */
static void env_store(struct k8s_st *st, const char *name, const char *v)
{
	char key[80];

	if (!environ_keep(name, strlen(name)) || !strcmp(v, "<none>"))
		return;
	snprintf(key, sizeof(key), "env.%s", name);
	if (k8s_counted(st, sink_meta(st->s, key, v)) < 0)
		st->sink_failed = 1;
}

/* The keys of a container's environment: describe's "Environment:" then
 * "NAME:  value" lines below it, YAML's "env:" then "- name:" / "value:"
 * items. 1 when k was one of them. */
static int env_key(struct k8s_st *st, const char *k, const char *orig, const char *v,
		   int indent, int item)
{
	if (st->env_mode && indent > st->env_indent) {
		if (st->env_mode == 1 && !item)
			env_store(st, orig, v);
		else if (st->env_mode == 2 && !strcmp(k, "name"))
			copy_str(st->env_name, sizeof(st->env_name), v, strlen(v));
		else if (st->env_mode == 2 && !strcmp(k, "value") && st->env_name[0])
			env_store(st, st->env_name, v), st->env_name[0] = 0;
		return 1;
	}
	st->env_mode = 0;
	if (!item && ((!strcmp(k, "environment") && (!v[0] || !strcmp(v, "<none>"))) ||
		      (!strcmp(k, "env") && !v[0]))) {
		st->env_mode = !strcmp(k, "env") ? 2 : 1;
		st->env_indent = indent;
		st->env_name[0] = 0;
		return 1;
	}
	return 0;
}

/* The keys of containers: the section keys, a YAML "- name:" item, a
 * describe "  <container>:" header, State / Last State, Limits /
 * Requests and their memory, Restart Count. 1 when k was one of them. */
static int container_key(struct k8s_st *st, const char *k, const char *orig, const char *v,
			 int indent, int item)
{
	if (st->res_mode && indent > st->res_indent && !strcmp(k, "memory")) {
		struct kcont *c = cur_container(st);
		*(st->res_mode == 1 ? &c->limit : &c->request) = k8s_quantity(v, strlen(v));
		return 1;
	}
	if (st->res_mode && indent <= st->res_indent)
		st->res_mode = 0;
	if (!strcmp(k, "containers") || !strcmp(k, "initcontainers") ||
	    !strcmp(k, "containerstatuses") || !strcmp(k, "initcontainerstatuses")) {
		st->cont_indent = indent;
		st->child_indent = -1;
		return 1;
	}
	if (st->cont_indent >= 0 && indent <= st->cont_indent && !item)
		st->cont_indent = -1;
	if (!strcmp(k, "name") && item) {
		container(st, v);
		st->child_indent = -2;          /* YAML: containers are list items */
		return 1;
	}
	if (st->cont_indent >= 0 && !v[0] && !item && indent > st->cont_indent &&
	    (st->child_indent == -1 || indent == st->child_indent) && k8s_dns_label(orig)) {
		st->child_indent = indent;     /* describe: "  <container>:" */
		container(st, orig);
		return 1;
	}
	if (!strcmp(k, "state") || !strcmp(k, "laststate")) {
		st->in_state = 1;
		st->state_last = !strcmp(k, "laststate");
		st->state_term = !strncmp(v, "Terminated", 10);
		st->state_indent = indent;
		return 1;
	}
	/* KServe's model status: a predictor's last failed load, {reason,
	 * message, time, exitCode} (kserve pkg/apis/serving/v1beta1/
	 * inference_service_status.go@v0.9.0, FailureInfo): read as a
	 * terminated last state, so exit code 137 is a SIGKILL (no OOM) */
	if (!strcmp(k, "lastfailureinfo")) {
		st->obj_src = "kserve";
		st->in_state = st->state_last = st->state_term = 1;
		st->state_indent = indent;
		return 1;
	}
	if (!strcmp(k, "limits") || !strcmp(k, "requests")) {
		st->res_mode = !strcmp(k, "limits") ? 1 : 2;
		st->res_indent = indent;
		return 1;
	}
	if (!strcmp(k, "restartcount")) {
		cur_container(st)->restarts = k8s_int(v);
		return 1;
	}
	return 0;
}

/* The keys of the pod or event itself. */
static void object_key(struct k8s_st *st, const char *k, const char *v, int indent)
{
	if (!strcmp(k, "name") && !st->pod[0]) {
		copy_str(st->pod, sizeof(st->pod), v, strlen(v));
	} else if (!strcmp(k, "namespace") && !st->ns[0]) {
		copy_str(st->ns, sizeof(st->ns), v, strlen(v));
	} else if ((!strcmp(k, "node") || !strcmp(k, "nodename")) && !st->node[0]) {
		const char *sl = strchr(v, '/');
		copy_str(st->node, sizeof(st->node), v, sl ? (size_t)(sl - v) : strlen(v));
	} else if ((!strcmp(k, "phase") || (!strcmp(k, "status") && v[0])) && !st->phase[0]) {
		copy_str(st->phase, sizeof(st->phase), v, strlen(v));
	} else if (!strcmp(k, "qosclass") && !st->qos[0]) {
		copy_str(st->qos, sizeof(st->qos), v, strlen(v));
	} else if (!strcmp(k, "reason")) {
		if (!strcmp(v, "Evicted"))
			st->evicted = 1;
		else if (k8s_memory_reason(v))
			copy_str(st->reason, sizeof(st->reason), v, strlen(v));
		if (!st->obj_line)
			st->obj_line = st->in->lineno;
	} else if (!strcmp(k, "message")) {
		msg_start(st, v, indent);
	} else if (!strcmp(k, "firsttimestamp") || !strcmp(k, "lasttimestamp") ||
		   !strcmp(k, "eventtime")) {
		struct ol_time t = k8s_time(v);
		if (t.clock != OL_CLOCK_NONE && (st->obj_t.clock == OL_CLOCK_NONE ||
						 !strcmp(k, "firsttimestamp")))
			st->obj_t = t;
	}
}

/* One key line (key normalised, orig as written) at indentation indent;
 * item: a "- " list item. -1 when the sink failed. */
static int on_key(struct k8s_st *st, const char *k, const char *orig, const char *v, int indent,
		  int item)
{
	if (orig[0] >= 'A' && orig[0] <= 'Z')
		st->describe = 1;
	if (st->in_state && in_state_key(st, k, v, indent))
		return 0;
	st->in_state = 0;
	/* a new pod: describe's "Name:" at the margin, a YAML "kind: Pod" */
	if ((!strcmp(k, "name") && indent == 0 && !item && orig[0] == 'N' && st->pod[0]) ||
	    (!strcmp(k, "kind") && !strcmp(v, "Pod") && (st->ncont || st->pod[0]))) {
		if (k8s_flush(st) < 0)
			return -1;
	}
	if (!env_key(st, k, orig, v, indent, item) && !container_key(st, k, orig, v, indent, item))
		object_key(st, k, v, indent);
	return st->sink_failed ? -1 : 0;
}

/* One line l[0..n), cleaned (in the parser's own buffer: it is trimmed
 * in place). -1 when the sink failed. */
static int k8s_line(struct k8s_st *st, char *l, size_t n)
{
	char key[48], orig[64], val[LINE_CAP];
	const char *t = l;
	int indent = 0, item, r;

	while (n && (l[n - 1] == ' ' || l[n - 1] == '\r'))
		n--;
	l[n] = 0;
	while (*t == ' ' || *t == '\t') {
		t++;
		indent++;
	}
	if (!*t) {                   /* a blank line ends a message */
		if (st->in_msg)
			msg_end(st);
		return 0;
	}
	item = t[0] == '-' && t[1] == ' ';
	if ((r = k8s_docker_format_line(st, t)))   /* readers18 */
		return r < 0 ? -1 : 0;
	if (k8s_pods_row(st, t))
		return 0;
	if ((r = k8s_podpattern_line(st, t)))   /* set 10 spent (w-spent10b) */
		return r < 0 ? -1 : 0;
	if ((r = k8s_docker_event_line(st, t)))
		return r < 0 ? -1 : 0;
	if ((r = event_row(st, t))) {
		if (st->in_msg)
			msg_end(st);
		return r < 0 ? -1 : 0;
	}
	if (*t == '$' || *t == '#' || strstr(t, "kubectl ") || strstr(t, "oc get "))
		command_line(st, t);
	if (!strncmp(t, "The node ", 9)) {      /* a message printed raw (yq, jq -r) */
		if (st->in_msg)
			msg_add(st, t, indent);
		else
			msg_start(st, t, -1);
		return 0;
	}
	if (key_line(t, key, sizeof(key), orig, sizeof(orig), val, sizeof(val), &item)) {
		if (st->in_msg)
			msg_end(st);
		return on_key(st, key, orig, val, indent + (item ? 2 : 0), item);
	}
	if (st->in_msg && (indent > st->msg_indent || indent == 0))
		msg_add(st, t, indent);
	else if (st->in_msg)
		msg_end(st);
	return 0;
}

int k8s_parse(struct input *in, struct sink *s)
{
	struct k8s_st *st = calloc(1, sizeof(*st));
	const char *l;
	size_t n;
	int rc = -1;

	if (!st)
		return -1;
	st->s = s;
	st->in = in;
	st->cur = st->cont_indent = st->child_indent = st->state_indent = -1;
	st->obj_t = ol_time_none();
	strbuf_init(&st->msg);
	while (input_getline(in, &l, &n) == 1) {
		n = text_clean(l, n, st->line, sizeof(st->line), TC_ANSI | TC_QUOTE);
		if (k8s_line(st, st->line, n) < 0)
			goto out;
	}
	if (st->in_msg)
		msg_end(st);
	if (k8s_flush(st) < 0 || k8s_pods_flush(st) < 0)
		goto out;
	rc = st->n;
out:
	strbuf_release(&st->msg);
	free(st);
	return rc;
}


int k8s_each_head_line(const char *h, size_t n, char *line, size_t cap,
		       int (*fn)(const char *line, void *arg), void *arg)
{
	const char *p = h, *e = h + n, *nl;
	size_t k;
	int r;

	for (; p < e; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(e - p))))
			nl = e;
		k = (size_t)(nl - p) < cap - 1 ? (size_t)(nl - p) : cap - 1;
		memcpy(line, p, k);
		line[k] = 0;
		if ((r = fn(line, arg)))
			return r;
		if (nl == e)
			break;
	}
	return 0;
}
/* Does needle occur in [h, h + n) within 40 bytes after a "eason" (a
 * Reason: / reason: key)? */
static int after_reason(const char *h, size_t n, const char *needle)
{
	const char *p = h, *e = h + n, *c;

	while ((c = mem_find(p, (size_t)(e - p), needle))) {
		const char *b = c - 40 < h ? h : c - 40;
		if (mem_find(b, (size_t)(c - b), "eason"))
			return 1;
		p = c + 1;
	}
	return 0;
}

int k8s_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;

	if (mem_find(h, n, "The node was low on resource: ") || mem_find(h, n, "SystemOOM") ||
	    mem_find(h, n, "CgroupOOM") || mem_find(h, n, "\"OOMKilling\"") ||
	    mem_find(h, n, " OOMKilling ") || after_reason(h, n, "OOMKilled") ||
	    after_reason(h, n, "Evicted"))
		return 70;
	/* `kubectl get pods` with a container OOMKilled in STATUS */
	if (mem_find(h, n, " STATUS ") && mem_find(h, n, " RESTARTS ") &&
	    mem_find(h, n, " OOMKilled "))
		return 70;
	/* set 10 spent (w-spent10b): such a row without its header */
	if (k8s_bare_pods_in(h, n))
		return 70;
	/* a container's last termination: describe's "Last State:" / "Exit
	 * Code:", or the pod status's "lastState" / "exitCode" (JSON, YAML) */
	if ((mem_find(h, n, "Last State:") || mem_find(h, n, "lastState") ||
	     mem_find(h, n, "lastFailureInfo:")) &&
	    (mem_find(h, n, "Exit Code:") || mem_find(h, n, "exitCode")))
		return 40;
	/* docker events: "container oom <id>" */
	if (mem_find(h, n, "container oom ") && k8s_docker_events_in(h, n))
		return 70;
	/* docker inspect --format's output under its command */
	if (mem_find(h, n, ".State.OOMKilled") && k8s_docker_format_in(h, n))
		return 70;
	/* docker inspect's State block */
	if (mem_find(h, n, "\"OOMKilled\": ") && mem_find(h, n, "\"ExitCode\": "))
		return mem_find(h, n, "\"OOMKilled\": true") ? 70 : 40;
	return 0;
}
