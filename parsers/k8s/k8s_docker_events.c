/*
 * k8s_docker_events.c -- `docker events` lines that say a container's
 * cgroup ran out of memory ("container oom"), read by the Kubernetes
 * parser beside its other container-kill reports: a node's dockerd runs
 * the kubelet's containers, and their labels name the pod.
 *
 * The form (docker/cli cli/command/system/events.go@v19.03.0,
 * prettyPrintEvent: the time as RFC 3339 with nanoseconds when known, then
 * "<Type> <Action> <Actor.ID>", then " (k=v, k=v ...)" with the actor's
 * attributes sorted by key):
 *   2019-05-04T18:05:45.011072877-05:00 container oom 29d72966e0be... (
 *   ..., io.kubernetes.container.name=notebook, ..., io.kubernetes.pod.name=
 *   jupyter-x, io.kubernetes.pod.namespace=jhub-prod, ..., name=k8s_...)
 * The "oom" action is what the daemon logs when containerd reports the
 * container's cgroup OOM event (moby daemon/monitor.go@v20.10.0,
 * ProcessEvent: case libcontainerdtypes.EventOOM sets c.OOMKilled, the
 * "OOMKilled" of docker inspect, then daemon.LogContainerEvent(c, "oom")):
 * the kernel's memory cgroup ran out at the container's limit. So it is
 * told as the kill docker inspect would show, reason OOMKilled. Real paste: docker/for-linux #670
 * (tests/data/real/any_stack). The "die" action with exitCode=137 is a
 * SIGKILL of unknown sender and is left to the other readers.
 */
#include "parsers/k8s/k8s_parts.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <string.h>

/* Is c a lower-case hex digit (a container id's)? */
static int hexd(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

/* Where "container oom <id>" starts in t (the line, its time before it),
 * with the id 12 or more hex digits followed by a blank, "(" or the end;
 * NULL when t holds none. */
static const char *oom_action(const char *t)
{
	static const char a[] = "container oom ";
	const char *p = strstr(t, a), *q;

	if (!p || (p != t && p[-1] != ' '))
		return NULL;
	for (q = p + sizeof(a) - 1; hexd(*q); q++)
		;
	if (q - (p + sizeof(a) - 1) < 12 || (*q && *q != ' ' && *q != '\r'))
		return NULL;
	return p;
}

/* The value of attribute key ("key=value" ended by ", " or ")") in t from
 * p, into out; 0 when absent. */
static int attr(const char *p, const char *key, char *out, size_t on)
{
	char k[64];
	const char *c, *v;
	size_t n = 0;

	snprintf(k, sizeof(k), " %s=", key);
	if (!(c = strstr(p, k)))
		return 0;
	v = c + strlen(k);
	while (v[n] && v[n] != ',' && v[n] != ')' && n + 1 < on)
		n++;
	memcpy(out, v, n);
	out[n] = 0;
	return n > 0;
}

static int oom_line(const char *line, void *arg)
{
	(void)arg;
	return oom_action(line) != NULL;
}

int k8s_docker_events_in(const char *h, size_t n)
{
	char line[512];

	return k8s_each_head_line(h, n, line, sizeof(line), oom_line, NULL);
}

int k8s_docker_event_line(struct k8s_st *st, const char *t)
{
	const char *p = oom_action(t);
	struct ol_time when = ol_time_none();
	struct kcont c;
	int r;

	if (!p)
		return 0;
	if (p != t)
		when = k8s_time(t);
	memset(&c, 0, sizeof(c));
	c.limit = c.request = c.restarts = c.exit_code = OL_NULL;
	c.oom = 1;
	c.line = st->in->lineno;
	if (!attr(p, "io.kubernetes.container.name", c.name, sizeof(c.name)))
		attr(p, "name", c.name, sizeof(c.name));
	if (!attr(p, "io.kubernetes.pod.name", st->pod, sizeof(st->pod)))
		st->pod[0] = 0;
	if (!attr(p, "io.kubernetes.pod.namespace", st->ns, sizeof(st->ns)))
		st->ns[0] = 0;
	st->src = "docker_events";
	r = k8s_emit_kill(st, &c, "OOMKilled", NULL, &when, c.line) < 0 ? -1 : 1;
	st->src = NULL;
	return r;
}
