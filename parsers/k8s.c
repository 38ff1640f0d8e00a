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
#include "parsers/k8s.h"
#include "parsers/seriesutil.h"
#include "parsers/textclean.h"
#include "lib/strbuf.h"
#include "lib/timeutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_CAP 8192
#define MSG_CAP 4096
#define MAX_CONT 16
#define MAX_EVICT_CONT 8

/* A container of the pod being read. */
struct kcont {
	char name[128];
	int64_t limit, request;     /* memory, bytes; OL_NULL unknown */
	int64_t restarts;
	int oom;                    /* a Terminated state with reason OOMKilled */
	int last_state;             /* ... read from Last State (not the current State) */
	char reason[48];
	int64_t exit_code;
	struct ol_time started, finished;
	uint64_t line;
};

/* The state of one file. */
struct k8s_st {
	struct sink *s;
	struct input *in;
	int n;                      /* records stored */
	char line[LINE_CAP];
	/* the object (pod, event) being read */
	char pod[128], ns[128], node[128];
	char phase[32], qos[32];    /* status.phase / Status:, qosClass / QoS Class: */
	struct kcont cont[MAX_CONT];
	int ncont, cur;             /* cur: index into cont, -1 = none yet */
	int cont_indent, child_indent;  /* "Containers:" section (describe), -1 = none */
	int in_state, state_term, state_last, state_indent;
	int res_mode, res_indent;   /* 1 Limits, 2 Requests */
	char reason[48];            /* the pod's or event's own reason */
	int evicted;                /* reason Evicted */
	uint64_t obj_line;
	struct ol_time obj_t;       /* firstTimestamp / lastTimestamp */
	/* a message being gathered over lines */
	struct strbuf msg;
	int in_msg, msg_indent;
	uint64_t msg_line;
	int msg_done;               /* the object's message was read */
	char gathered[MSG_CAP];     /* the last message read whole */
	int have_gathered;
};

/* ---------------------------------------------------------------------
 * Values.
 */

/* A Kubernetes quantity ("300Mi", "1Gi", "512M", "1.5G", "128974848",
 * "0") as bytes, or OL_NULL. */
static int64_t quantity(const char *p, size_t n)
{
	static const struct { const char *suf; double mult; } sfx[] = {
		{ "Ki", 1024.0 }, { "Mi", 1048576.0 }, { "Gi", 1073741824.0 },
		{ "Ti", 1099511627776.0 }, { "Pi", 1125899906842624.0 },
		{ "k", 1e3 }, { "K", 1e3 }, { "M", 1e6 }, { "G", 1e9 }, { "T", 1e12 },
		{ "P", 1e15 }, { "m", 1e-3 },
	};
	double v;
	size_t u, i, l;

	if (parse_num(p, n, &v, &u) < 0 || v < 0)
		return OL_NULL;
	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		l = strlen(sfx[i].suf);
		if (u + l <= n && !memcmp(p + u, sfx[i].suf, l)) {
			v *= sfx[i].mult;
			u += l;
			break;
		}
	}
	if (u < n && p[u] != '.' && p[u] != ',' && p[u] != ' ' && p[u] != ')')
		return OL_NULL;
	return v < 9e18 ? (int64_t)(v + 0.5) : OL_NULL;
}

/* "Mon, 13 Dec 2021 18:02:42 -0800" (describe's times) or ISO 8601
 * (YAML, JSON): a UTC time, or none. */
static struct ol_time k8s_time(const char *p)
{
	struct ol_time t = ol_time_none();
	int d, y, h, mi, se, mon, off = 0, k;
	char mname[8], zone[8] = "";
	int64_t ns;

	if (parse_iso8601(p, strlen(p), &ns, &off) > 0) {
		t.clock = OL_CLOCK_UTC;
		t.utc_ns = ns;
		return t;
	}
	if ((k = sscanf(p, "%*3s, %d %3s %d %d:%d:%d %7s", &d, mname, &y, &h, &mi, &se, zone)) < 6 ||
	    !(mon = month_from_name(mname, 3)))
		return t;
	if (k == 7 && parse_tz_offset(zone, strlen(zone), &off) < 0)
		return t;
	if ((ns = utc_ns(y, mon, d, h, mi, se, 0)) < 0)
		return t;
	t.clock = OL_CLOCK_UTC;
	t.utc_ns = ns - (int64_t)off * NS_PER_S;
	return t;
}

/* The integer at the start of text v, or OL_NULL. */
static int64_t int_of(const char *v)
{
	int64_t x;
	size_t u;

	return parse_uint_commas(v, strlen(v), &x, &u) == 0 ? x : OL_NULL;
}

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

/* ---------------------------------------------------------------------
 * Events.
 */

/* Count a record the sink returned id for; -1 when it failed. */
static int counted(struct k8s_st *st, int64_t id)
{
	if (id < 0)
		return -1;
	st->n++;
	return 0;
}

/* The victim a message names: "Killed process N (c) total-vm:..kB,
 * anon-rss:..kB, ..." (the kernel's, forwarded by node-problem-detector)
 * or "victim process: c, pid: N" (kubelet's SystemOOM / CgroupOOM), into
 * *pid, comm and d. */
static void victim_of(const char *m, int64_t *pid, char *comm, size_t cn, json_t *d)
{
	static const char *const kb[] = { "total-vm:", "anon-rss:", "file-rss:", "shmem-rss:" };
	static const char *const keys[] = { "total_vm_kb", "anon_rss_kb", "file_rss_kb",
					    "shmem_rss_kb" };
	const char *c, *o, *q;
	size_t i;

	*pid = OL_NULL;
	comm[0] = 0;
	if ((c = strstr(m, "Killed process "))) {
		*pid = int_of(c + 15);
		if ((o = strchr(c, '(')) && (q = strchr(o, ')')))
			copy_str(comm, cn, o + 1, (size_t)(q - o - 1));
		for (i = 0; i < 4; i++)
			json_object_set_new(d, keys[i], ol_json_int((q = strstr(c, kb[i]))
								   ? int_of(q + strlen(kb[i]))
								   : OL_NULL));
		json_object_set_new(d, "oom_score_adj", ol_json_int(
			(q = strstr(c, "oom_score_adj:")) ? (int64_t)atoll(q + 14) : OL_NULL));
	} else if ((c = strstr(m, "victim process: "))) {
		c += 16;
		for (q = c; *q && *q != ','; q++)
			;
		copy_str(comm, cn, c, (size_t)(q - c));
		if ((c = strstr(q, "pid: ")))
			*pid = int_of(c + 5);
	}
}

/* The figures of an eviction message into d: the resource, the node's
 * condition, the threshold and what was available, each container's use
 * and request ("Container X was using Y, which exceeds its request of Z."
 * or "..., request is Z, has larger consumption of memory."). Returns the
 * containers' total use, or OL_NULL. */
static int64_t eviction_figures(const char *m, json_t *d)
{
	json_t *cs = json_array();
	const char *c, *q;
	char buf[128];
	int64_t total = OL_NULL, u, r;
	int k = 0;

	if ((c = strstr(m, "low on resource: "))) {
		for (q = c + 17; *q && *q != '.' && *q != ' '; q++)
			;
		copy_str(buf, sizeof(buf), c + 17, (size_t)(q - c - 17));
		json_object_set_new(d, "resource", json_string(buf));
	}
	if ((c = strstr(m, "had condition: ["))) {
		q = strchr(c + 16, ']');
		copy_str(buf, sizeof(buf), c + 16, q ? (size_t)(q - c - 16) : strlen(c + 16));
		json_object_set_new(d, "condition", json_string(buf));
	}
	json_object_set_new(d, "threshold_bytes", ol_json_int(
		(c = strstr(m, "Threshold quantity: ")) ? quantity(c + 20, strlen(c + 20)) : OL_NULL));
	json_object_set_new(d, "available_bytes", ol_json_int(
		(c = strstr(m, "available: ")) ? quantity(c + 11, strlen(c + 11)) : OL_NULL));
	for (c = m; (c = strstr(c, "Container ")) && k < MAX_EVICT_CONT; k++) {
		json_t *o = json_object();
		c += 10;
		for (q = c; *q && *q != ' '; q++)
			;
		json_object_set_new(o, "name", ol_json_strn(c, (size_t)(q - c)));
		u = (q = strstr(q, "was using ")) ? quantity(q + 10, strlen(q + 10)) : OL_NULL;
		r = OL_NULL;
		if (q && (c = strstr(q, "request of ")) && (!strstr(q, "Container ") ||
							    c < strstr(q, "Container ")))
			r = quantity(c + 11, strlen(c + 11));
		else if (q && (c = strstr(q, "request is ")))
			r = quantity(c + 11, strlen(c + 11));
		json_object_set_new(o, "usage_bytes", ol_json_int(u));
		json_object_set_new(o, "request_bytes", ol_json_int(r));
		json_array_append_new(cs, o);
		if (u != OL_NULL)
			total = total == OL_NULL ? u : total + u;
		c = q ? q : c;
	}
	json_object_set_new(d, "containers", cs);
	return total;
}

/* Send one event at t and line; d is released here. -1 when the sink failed. */
static int emit(struct k8s_st *st, const char *kind, const struct ol_time *t, uint64_t line,
		int64_t pid, const char *comm, int64_t bytes, const char *summary, json_t *d)
{
	struct ol_event e = { .kind = kind, .t = *t, .pid = pid, .comm = comm && comm[0] ? comm : NULL,
			      .bytes = bytes, .line = line, .summary = summary, .data = d };
	int64_t id = sink_event(st->s, &e);

	json_decref(d);
	return counted(st, id);
}

/* The common fields of the object being read into d. */
static void object_json(struct k8s_st *st, json_t *d)
{
	json_object_set_new(d, "pod", ol_json_str(st->pod[0] ? st->pod : NULL));
	json_object_set_new(d, "namespace", ol_json_str(st->ns[0] ? st->ns : NULL));
	json_object_set_new(d, "node", ol_json_str(st->node[0] ? st->node : NULL));
	json_object_set_new(d, "phase", ol_json_str(st->phase[0] ? st->phase : NULL));
	json_object_set_new(d, "qos_class", ol_json_str(st->qos[0] ? st->qos : NULL));
}

/* An eviction told by message m (may be NULL: the pod says Evicted and no
 * more) at t, line. */
static int emit_eviction(struct k8s_st *st, const char *m, const struct ol_time *t,
			 uint64_t line)
{
	json_t *d = json_object();
	char summary[300];
	int64_t used = OL_NULL;

	json_object_set_new(d, "reason", json_string("Evicted"));
	object_json(st, d);
	json_object_set_new(d, "message", ol_json_str(m));
	if (m)
		used = eviction_figures(m, d);
	snprintf(summary, sizeof(summary), "pod %s evicted%s", st->pod[0] ? st->pod : "?",
		 m && strstr(m, "low on resource: memory") ? ": the node was low on memory" : "");
	return emit(st, "k8s_eviction", t, line, OL_NULL, NULL, used, summary, d);
}

/* A container (c, or none) or pod killed for memory, reason as printed. */
static int emit_kill(struct k8s_st *st, const struct kcont *c, const char *reason,
		     const char *msg, const struct ol_time *t, uint64_t line)
{
	json_t *d = json_object();
	char summary[320], comm[64] = "";
	int64_t pid = OL_NULL;

	json_object_set_new(d, "reason", json_string(reason));
	json_object_set_new(d, "container", ol_json_str(c && c->name[0] ? c->name : NULL));
	object_json(st, d);
	json_object_set_new(d, "exit_code", ol_json_int(c ? c->exit_code : OL_NULL));
	json_object_set_new(d, "restart_count", ol_json_int(c ? c->restarts : OL_NULL));
	json_object_set_new(d, "last_state", c ? json_boolean(c->last_state) : json_null());
	json_object_set_new(d, "limit_bytes", ol_json_int(c ? c->limit : OL_NULL));
	json_object_set_new(d, "request_bytes", ol_json_int(c ? c->request : OL_NULL));
	json_object_set_new(d, "message", ol_json_str(msg));
	if (msg)
		victim_of(msg, &pid, comm, sizeof(comm), d);
	snprintf(summary, sizeof(summary), "%s: container %s of pod %s", reason,
		 c && c->name[0] ? c->name : comm[0] ? comm : "?", st->pod[0] ? st->pod : "?");
	return emit(st, "k8s_oom_kill", t, line, pid, comm, c ? c->limit : OL_NULL, summary, d);
}

/* Store meta key = bytes v. -1 when the sink failed. */
static int meta_bytes(struct k8s_st *st, const char *key, int64_t v)
{
	char val[32];

	snprintf(val, sizeof(val), "%lld", (long long)v);
	return counted(st, sink_meta(st->s, key, val));
}

/* The limits as meta: every container's, and the OOM-killed one's (else
 * the only one's) as the cgroup limit. -1 when the sink failed. */
static int limits_meta(struct k8s_st *st)
{
	const struct kcont *lim = NULL;
	char key[192];
	int i, nlim = 0;

	for (i = 0; i < st->ncont; i++) {
		const struct kcont *c = &st->cont[i];
		if (c->limit == OL_NULL)
			continue;
		nlim++;
		if (!lim || (c->oom && !lim->oom))
			lim = c;
		snprintf(key, sizeof(key), "k8s.memory_limit_bytes.%s", c->name[0] ? c->name : "-");
		if (meta_bytes(st, key, c->limit) < 0)
			return -1;
	}
	if (!lim || (nlim > 1 && !lim->oom))
		return 0;
	if (meta_bytes(st, "cgroup.max_bytes", lim->limit) < 0 ||
	    (lim->request != OL_NULL && meta_bytes(st, "k8s.memory_request_bytes", lim->request) < 0))
		return -1;
	return 0;
}

/* The end of an object: what it said becomes events and meta, and the
 * state is emptied for the next one. -1 when the sink failed. */
static int flush_object(struct k8s_st *st)
{
	const char *m = st->have_gathered ? st->gathered : NULL;
	int i, evict_msg = m && (strstr(m, "The node was low on resource") ||
				 strstr(m, "The node had condition"));
	struct ol_time none = ol_time_none();

	for (i = 0; i < st->ncont; i++) {
		struct kcont *c = &st->cont[i];
		const struct ol_time *t = c->finished.clock != OL_CLOCK_NONE ? &c->finished
					: c->started.clock != OL_CLOCK_NONE ? &c->started : &st->obj_t;
		if (c->oom && emit_kill(st, c, "OOMKilled", NULL, t, c->line) < 0)
			return -1;
	}
	if (evict_msg || st->evicted) {
		if (emit_eviction(st, evict_msg ? m : NULL, &st->obj_t, st->obj_line) < 0)
			return -1;
	} else if (st->reason[0]) {
		if (emit_kill(st, NULL, st->reason, m, &st->obj_t, st->obj_line) < 0)
			return -1;
	}
	if (limits_meta(st) < 0)
		return -1;
	st->pod[0] = st->ns[0] = st->node[0] = st->reason[0] = st->phase[0] = st->qos[0] = 0;
	st->ncont = st->evicted = st->in_state = st->res_mode = st->have_gathered = 0;
	st->cur = st->cont_indent = st->child_indent = -1;
	st->obj_t = none;
	st->obj_line = 0;
	return 0;
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
static int dns_label(const char *s)
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
		} else if (after_pod && tok[0] != '-' && dns_label(tok) && !st->pod[0]) {
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

/* Is reason one that tells of memory (the rows read)? */
static int memory_reason(const char *r)
{
	return !strcmp(r, "Evicted") || !strcmp(r, "OOMKilling") || !strcmp(r, "SystemOOM") ||
	       !strcmp(r, "CgroupOOM") || !strcmp(r, "OOMKilled");
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
	if (!memory_reason(reason))
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
	if (!strcmp(reason, "Evicted"))
		i = emit_eviction(st, row_message(we), &none, st->in->lineno);
	else
		i = emit_kill(st, NULL, reason, row_message(we), &none, st->in->lineno);
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

/* A key inside a State / Last State block. 1 when it was the block's. */
static int in_state_key(struct k8s_st *st, const char *k, const char *v, int indent)
{
	struct kcont *c;

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
		snprintf(c->reason, sizeof(c->reason), "%s", v);
		if (!strcmp(v, "OOMKilled")) {
			c->oom = 1;
			c->last_state = st->state_last;
			c->line = st->in->lineno;
		}
	} else if (!strcmp(k, "exitcode")) {
		c->exit_code = int_of(v);
	} else if (!strcmp(k, "started") || !strcmp(k, "startedat")) {
		c->started = k8s_time(v);
	} else if (!strcmp(k, "finished") || !strcmp(k, "finishedat")) {
		c->finished = k8s_time(v);
	}
	return 1;
}

/* One key line (key normalised, orig as written) at indentation indent;
 * item: a "- " list item. -1 when the sink failed. */
static int on_key(struct k8s_st *st, const char *k, const char *orig, const char *v, int indent,
		  int item)
{
	if (st->in_state && in_state_key(st, k, v, indent))
		return 0;
	st->in_state = 0;
	if (st->res_mode && indent > st->res_indent && !strcmp(k, "memory")) {
		struct kcont *c = cur_container(st);
		*(st->res_mode == 1 ? &c->limit : &c->request) = quantity(v, strlen(v));
		return 0;
	}
	if (st->res_mode && indent <= st->res_indent)
		st->res_mode = 0;
	/* a new pod: describe's "Name:" at the margin, a YAML "kind: Pod" */
	if ((!strcmp(k, "name") && indent == 0 && !item && orig[0] == 'N' && st->pod[0]) ||
	    (!strcmp(k, "kind") && !strcmp(v, "Pod") && (st->ncont || st->pod[0]))) {
		if (flush_object(st) < 0)
			return -1;
	}
	if (!strcmp(k, "containers") || !strcmp(k, "initcontainers") ||
	    !strcmp(k, "containerstatuses") || !strcmp(k, "initcontainerstatuses")) {
		st->cont_indent = indent;
		st->child_indent = -1;
		return 0;
	}
	if (st->cont_indent >= 0 && indent <= st->cont_indent && !item)
		st->cont_indent = -1;
	if (!strcmp(k, "name") && item) {
		container(st, v);
		st->child_indent = -2;          /* YAML: containers are list items */
		return 0;
	}
	if (st->cont_indent >= 0 && !v[0] && !item && indent > st->cont_indent &&
	    (st->child_indent == -1 || indent == st->child_indent) && dns_label(orig)) {
		st->child_indent = indent;     /* describe: "  <container>:" */
		container(st, orig);
		return 0;
	}
	if (!strcmp(k, "state") || !strcmp(k, "laststate")) {
		st->in_state = 1;
		st->state_last = !strcmp(k, "laststate");
		st->state_term = !strncmp(v, "Terminated", 10);
		st->state_indent = indent;
		return 0;
	}
	if (!strcmp(k, "limits") || !strcmp(k, "requests")) {
		st->res_mode = !strcmp(k, "limits") ? 1 : 2;
		st->res_indent = indent;
		return 0;
	}
	if (!strcmp(k, "restartcount")) {
		cur_container(st)->restarts = int_of(v);
		return 0;
	}
	if (!strcmp(k, "name") && !st->pod[0]) {
		snprintf(st->pod, sizeof(st->pod), "%s", v);
	} else if (!strcmp(k, "namespace") && !st->ns[0]) {
		snprintf(st->ns, sizeof(st->ns), "%s", v);
	} else if ((!strcmp(k, "node") || !strcmp(k, "nodename")) && !st->node[0]) {
		const char *sl = strchr(v, '/');
		copy_str(st->node, sizeof(st->node), v, sl ? (size_t)(sl - v) : strlen(v));
	} else if ((!strcmp(k, "phase") || (!strcmp(k, "status") && v[0])) && !st->phase[0]) {
		snprintf(st->phase, sizeof(st->phase), "%s", v);
	} else if (!strcmp(k, "qosclass") && !st->qos[0]) {
		snprintf(st->qos, sizeof(st->qos), "%s", v);
	} else if (!strcmp(k, "reason")) {
		if (!strcmp(v, "Evicted"))
			st->evicted = 1;
		else if (memory_reason(v))
			snprintf(st->reason, sizeof(st->reason), "%s", v);
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
	return 0;
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
	if (flush_object(st) < 0)
		goto out;
	rc = st->n;
out:
	strbuf_release(&st->msg);
	free(st);
	return rc;
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
	if (mem_find(h, n, "Last State:") && mem_find(h, n, "Exit Code:"))
		return 40;
	return 0;
}
