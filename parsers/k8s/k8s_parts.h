/*
 * k8s_parts.h -- what the two files of the Kubernetes parser share: the
 * state of one file and the object (pod, event) being read, and the
 * functions k8s_report.c offers k8s.c. Internal to parsers/k8s*.c; the
 * public interface is parsers/k8s/k8s.h.
 *
 *   k8s.c         the line reader: keys, containers, states, resources,
 *                 messages over several lines, event table rows; detection.
 *   k8s_report.c  Kubernetes values (quantities, times) and what an object
 *                 said becoming events and meta when it ends.
 */
#ifndef OOMLENS_K8S_PARTS_H
#define OOMLENS_K8S_PARTS_H

#include <stdint.h>
#include "parsers/common/sink.h"
#include "lib/input.h"
#include "lib/strbuf.h"

#define LINE_CAP 8192
#define MSG_CAP 4096
#define MAX_CONT 16
#define MAX_EVICT_CONT 8

#define FMT_MAX 8

/* `docker inspect --format T NAMES` (k8s_docker_format.c): the
 * template's text around its fields (lit[0] before the first, lit[n]
 * after the last), its fields, the containers named, the output lines
 * read so far. */
struct kfmt {
	char lit[FMT_MAX + 1][48];
	int field[FMT_MAX];
	int n;
	char ref[MAX_CONT][128];
	int nref, row;
	int on;                     /* the command was read, its output goes on */
};

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
	/* a container's environment: describe's "Environment:", YAML's "env:" */
	int env_mode, env_indent;   /* 1 describe, 2 YAML; 0 none */
	char env_name[64];          /* YAML: the "- name:" waiting for its value */
	int sink_failed;
	int kills;                  /* k8s_emit_kill calls */
	/* `kubectl get pods`: its STATUS column + 1 (0 none), the NAME's */
	int pods_status, pods_name;
	struct kcont pods_oom[MAX_CONT];   /* its OOMKilled rows, name = the pod */
	char pods_ns[MAX_CONT][128];       /* a headerless row's namespace, "" none */
	int npods_oom;
	int pods_bare;              /* the columns came from a headerless row */
	/* What told the record (its event's data.source; analyzer/rules/
	 * killers.c titles by it): src, a one-line reader's while it emits
	 * (docker_events, kubectl_get, kubectl_events, frameworkcontroller);
	 * else obj_src, the object's own (docker_inspect, kserve); else
	 * kubectl_describe when the object's keys were describe's
	 * (capitalised), pod_object (YAML, JSON) when not. */
	const char *src, *obj_src;
	int describe;
	struct kfmt fmt;            /* the last `docker inspect --format` command */
};

/* A Kubernetes quantity ("300Mi", "1Gi", "512M", "1.5G", "128974848",
 * "0") as bytes, or OL_NULL. */
int64_t k8s_quantity(const char *p, size_t n);
/* "Mon, 13 Dec 2021 18:02:42 -0800" (describe's times) or ISO 8601
 * (YAML, JSON): a UTC time, or none. */
struct ol_time k8s_time(const char *p);
/* The integer at the start of text v, or OL_NULL. */
int64_t k8s_int(const char *v);
/* Is r a reason that tells of memory (Evicted, OOMKilling, ...)? */
int k8s_memory_reason(const char *r);
/* An eviction told by message m (NULL: the pod says Evicted and no more)
 * at t, line. -1 when the sink failed. */
int k8s_emit_eviction(struct k8s_st *st, const char *m, const struct ol_time *t, uint64_t line);
/* A container (c, or NULL) or pod killed for memory, reason as printed,
 * its message msg (may be NULL). -1 when the sink failed. */
/* A container ended by SIGKILL (exit code 137) whose reason is not
 * OOMKilled: a process_crash event, not an OOM. -1 when the sink failed. */
int k8s_emit_sigkill(struct k8s_st *st, const struct kcont *c, const struct ol_time *t);
int k8s_emit_kill(struct k8s_st *st, const struct kcont *c, const char *reason, const char *msg,
		  const struct ol_time *t, uint64_t line);
/* Is s a DNS label (lower case, digits, '-', '.'): a container, pod or
 * namespace name, not one of describe's capitalised sub-keys? */
int k8s_dns_label(const char *s);
/* k8s_pods.c: a `kubectl get pods` header or OOMKilled row (1; 0 when the
 * line is for the other readers); at the end, the OOMKilled rows as
 * kills when nothing else told one (-1 when the sink failed); and the
 * sniff's test for a headerless OOMKilled row in h[0..n). */
int k8s_pods_row(struct k8s_st *st, const char *t);
int k8s_pods_flush(struct k8s_st *st);
int k8s_bare_pods_in(const char *h, size_t n);
/* k8s_pods.c: FrameworkController's "PodPattern matched: ..." line with an
 * OOMKilled container: one kill. 1 read, 0 not one, -1 sink failed. */
int k8s_podpattern_line(struct k8s_st *st, const char *t);
/* k8s_docker_events.c: a `docker events` "container oom <id> (...)" line:
 * one kill, the pod and container from the kubelet's labels. 1 read, 0
 * not one, -1 sink failed; and the sniff's test for such a line. */
int k8s_docker_event_line(struct k8s_st *st, const char *t);
int k8s_docker_events_in(const char *h, size_t n);
/* k8s_docker_format.c: a `docker inspect --format T NAMES` command or a
 * line of its output (a kill when State.OOMKilled is true, a SIGKILL when
 * false with exit code 137). 1 read, 0 not one, -1 sink failed; and the
 * sniff's test for a command followed by such a line in h[0..n). */
int k8s_docker_format_line(struct k8s_st *st, const char *t);
int k8s_docker_format_in(const char *h, size_t n);
/* k8s.c: each line of a sniffed head h[0..n), copied NUL-terminated into
 * line (cap bytes, a longer line cut), handed to fn; the first nonzero
 * value fn returns, else 0 (the sniffs of docker events and of docker
 * inspect --format's output). */
int k8s_each_head_line(const char *h, size_t n, char *line, size_t cap,
		       int (*fn)(const char *line, void *arg), void *arg);
/* Count a record the sink stored (id >= 0): 0, or -1 when it failed. */
int k8s_counted(struct k8s_st *st, int64_t id);
/* The end of an object: what it said becomes events and meta, and the
 * state is emptied for the next one. -1 when the sink failed. */
int k8s_flush(struct k8s_st *st);

#endif
