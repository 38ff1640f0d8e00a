/*
 * k8s_report.c -- Kubernetes' values, and what a pod or event said
 * becoming k8s_oom_kill / k8s_eviction events and limit meta (see
 * k8s_parts.h for the files around it, k8s.h for the interface).
 */
#include "parsers/k8s/k8s_parts.h"
#include "parsers/common/seriesutil.h"
#include "lib/timeutil.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------
 * Values.
 */

/* A Kubernetes quantity ("300Mi", "1Gi", "512M", "1.5G", "128974848",
 * "0") as bytes, or OL_NULL. */
int64_t k8s_quantity(const char *p, size_t n)
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
struct ol_time k8s_time(const char *p)
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
int64_t k8s_int(const char *v)
{
	int64_t x;
	size_t u;

	return parse_uint_commas(v, strlen(v), &x, &u) == 0 ? x : OL_NULL;
}

/* Is reason one that tells of memory (the rows read)? */
int k8s_memory_reason(const char *r)
{
	return !strcmp(r, "Evicted") || !strcmp(r, "OOMKilling") || !strcmp(r, "SystemOOM") ||
	       !strcmp(r, "CgroupOOM") || !strcmp(r, "OOMKilled");
}

/* ---------------------------------------------------------------------
 * Events.
 */

/* Count a record the sink returned id for; -1 when it failed. */
int k8s_counted(struct k8s_st *st, int64_t id)
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
		*pid = k8s_int(c + 15);
		if ((o = strchr(c, '(')) && (q = strchr(o, ')')))
			copy_str(comm, cn, o + 1, (size_t)(q - o - 1));
		for (i = 0; i < 4; i++)
			json_object_set_new(d, keys[i], ol_json_int((q = strstr(c, kb[i]))
								   ? k8s_int(q + strlen(kb[i]))
								   : OL_NULL));
		json_object_set_new(d, "oom_score_adj", ol_json_int(
			(q = strstr(c, "oom_score_adj:")) ? (int64_t)atoll(q + 14) : OL_NULL));
	} else if ((c = strstr(m, "victim process: "))) {
		c += 16;
		for (q = c; *q && *q != ','; q++)
			;
		copy_str(comm, cn, c, (size_t)(q - c));
		if ((c = strstr(q, "pid: ")))
			*pid = k8s_int(c + 5);
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
		(c = strstr(m, "Threshold quantity: ")) ? k8s_quantity(c + 20, strlen(c + 20)) : OL_NULL));
	json_object_set_new(d, "available_bytes", ol_json_int(
		(c = strstr(m, "available: ")) ? k8s_quantity(c + 11, strlen(c + 11)) : OL_NULL));
	for (c = m; (c = strstr(c, "Container ")) && k < MAX_EVICT_CONT; k++) {
		json_t *o = json_object();
		c += 10;
		for (q = c; *q && *q != ' '; q++)
			;
		json_object_set_new(o, "name", ol_json_strn(c, (size_t)(q - c)));
		u = (q = strstr(q, "was using ")) ? k8s_quantity(q + 10, strlen(q + 10)) : OL_NULL;
		r = OL_NULL;
		if (q && (c = strstr(q, "request of ")) && (!strstr(q, "Container ") ||
							    c < strstr(q, "Container ")))
			r = k8s_quantity(c + 11, strlen(c + 11));
		else if (q && (c = strstr(q, "request is ")))
			r = k8s_quantity(c + 11, strlen(c + 11));
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
	return k8s_counted(st, id);
}

/* The common fields of the object being read into d. */
static void object_json(struct k8s_st *st, json_t *d)
{
	json_object_set_new(d, "pod", ol_json_str(st->pod[0] ? st->pod : NULL));
	json_object_set_new(d, "namespace", ol_json_str(st->ns[0] ? st->ns : NULL));
	json_object_set_new(d, "node", ol_json_str(st->node[0] ? st->node : NULL));
	json_object_set_new(d, "phase", ol_json_str(st->phase[0] ? st->phase : NULL));
	json_object_set_new(d, "qos_class", ol_json_str(st->qos[0] ? st->qos : NULL));
	json_object_set_new(d, "source", json_string(st->src ? st->src : st->obj_src ? st->obj_src
						     : st->describe ? "kubectl_describe" : "pod_object"));
}

/* An eviction told by message m (may be NULL: the pod says Evicted and no
 * more) at t, line. */
int k8s_emit_eviction(struct k8s_st *st, const char *m, const struct ol_time *t,
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
	return emit(st, vocab_event_kind(VE_K8S_EVICTION), t, line, OL_NULL, NULL, used,
			summary, d);
}

/* A container (c, or none) or pod killed for memory, reason as printed. */
int k8s_emit_kill(struct k8s_st *st, const struct kcont *c, const char *reason,
		     const char *msg, const struct ol_time *t, uint64_t line)
{
	json_t *d = json_object();
	char summary[320], comm[64] = "";
	int64_t pid = OL_NULL;

	st->kills++;
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
	snprintf(summary, sizeof(summary), "%s: %s%s%s%s", reason,
		 c && c->name[0] ? "container " : comm[0] ? "process " : "a container (its name"
		 " not in the excerpt)", c && c->name[0] ? c->name : comm, st->pod[0] ? " of pod " : "",
		 st->pod);
	return emit(st, vocab_event_kind(VE_K8S_OOM_KILL), t, line, pid, comm,
			c ? c->limit : OL_NULL, summary, d);
}

/* A container c that ended with exit code 137 (128 + SIGKILL) under a
 * reason other than OOMKilled: the kubelet says OOMKilled only for its
 * cgroup's OOM; the node's own OOM killer, an eviction's hard kill or a
 * probe's kill leave "Error" and 137 (kubernetes #53669). A process ended
 * by a signal, not an OOM: what killed it is for the node's kernel log to
 * say. -1 when the sink failed. */
int k8s_emit_sigkill(struct k8s_st *st, const struct kcont *c, const struct ol_time *t)
{
	json_t *d = json_object();
	char summary[640];

	json_object_set_new(d, "signal", json_string("SIGKILL"));
	json_object_set_new(d, "reason", ol_json_str(c->reason[0] ? c->reason : NULL));
	json_object_set_new(d, "container", ol_json_str(c->name[0] ? c->name : NULL));
	object_json(st, d);
	json_object_set_new(d, "exit_code", ol_json_int(c->exit_code));
	json_object_set_new(d, "last_state", json_boolean(c->last_state));
	snprintf(summary, sizeof(summary), "%s%s%s%s ended by SIGKILL (exit code 137%s%s): not"
		 " OOMKilled, so not its cgroup's OOM; the node's OOM killer is one cause, its"
		 " kernel log says", c->name[0] ? "container " : "a container (its name not in"
		 " the excerpt)", c->name, st->pod[0] ? " of pod " : "", st->pod,
		 c->reason[0] ? ", reason " : "", c->reason);
	return emit(st, vocab_event_kind(VE_PROCESS_CRASH), t, c->line, OL_NULL, NULL, OL_NULL,
		    summary, d);
}

/* Store meta key = bytes v. -1 when the sink failed. */
static int meta_bytes(struct k8s_st *st, const char *key, int64_t v)
{
	char val[32];

	snprintf(val, sizeof(val), "%lld", (long long)v);
	return k8s_counted(st, sink_meta(st->s, key, val));
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
	if (meta_bytes(st, vocab_meta_key(VM_CGROUP_MAX_BYTES), lim->limit) < 0 ||
	    (lim->request != OL_NULL && meta_bytes(st,
			vocab_meta_key(VM_K8S_MEMORY_REQUEST_BYTES), lim->request) < 0))
		return -1;
	return 0;
}

/* The end of an object: what it said becomes events and meta, and the
 * state is emptied for the next one. -1 when the sink failed. */
int k8s_flush(struct k8s_st *st)
{
	const char *m = st->have_gathered ? st->gathered : NULL;
	int i, evict_msg = m && (strstr(m, "The node was low on resource") ||
				 strstr(m, "The node had condition"));
	struct ol_time none = ol_time_none();

	for (i = 0; i < st->ncont; i++) {
		struct kcont *c = &st->cont[i];
		const struct ol_time *t = c->finished.clock != OL_CLOCK_NONE ? &c->finished
					: c->started.clock != OL_CLOCK_NONE ? &c->started : &st->obj_t;
		if (c->oom && k8s_emit_kill(st, c, "OOMKilled", NULL, t, c->line) < 0)
			return -1;
		if (!c->oom && c->exit_code == 137 && k8s_emit_sigkill(st, c, t) < 0)
			return -1;
	}
	if (evict_msg || st->evicted) {
		if (k8s_emit_eviction(st, evict_msg ? m : NULL, &st->obj_t, st->obj_line) < 0)
			return -1;
	} else if (st->reason[0]) {
		if (k8s_emit_kill(st, NULL, st->reason, m, &st->obj_t, st->obj_line) < 0)
			return -1;
	}
	if (limits_meta(st) < 0)
		return -1;
	st->pod[0] = st->ns[0] = st->node[0] = st->reason[0] = st->phase[0] = st->qos[0] = 0;
	st->ncont = st->evicted = st->in_state = st->res_mode = st->have_gathered = 0;
	st->obj_src = NULL;
	st->describe = 0;
	st->cur = st->cont_indent = st->child_indent = -1;
	st->obj_t = none;
	st->obj_line = 0;
	return 0;
}
