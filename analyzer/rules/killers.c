/*
 * killers.c -- what the killers other than the kernel's report says:
 * Kubernetes (OOMKilled, SystemOOM, evictions), Slurm's oom-kill count,
 * earlyoom and systemd-oomd, and systemd's notice on a unit.
 *
 * Each names where memory ran out, which is the cause it supports:
 *
 *  - cgroup_limit: a container OOMKilled (or CgroupOOM) at its memory
 *    limit, a Slurm step whose cgroup killed a task (its --mem): the
 *    limit is what failed, most likely too small for the workload;
 *  - host_capacity: the node or host ran out -- SystemOOM, an eviction
 *    under MemoryPressure, earlyoom or systemd-oomd acting on the host's
 *    memory or pressure, a unit's process killed by the kernel with no
 *    report of the kernel's own in the timeline.
 *
 * From one message these are the likeliest reading, not proof (scores
 * 0.45-0.6): a memory series that grew or surged before the kill makes
 * them leak's or spike's (0.35), one holding steady confirms (0.75). The
 * kernel's own report, when present, is the kernel rule's to read: a
 * unit notice then adds nothing.
 */
#include "analyzer/rules/rulelib.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MS_SCORE_LIMIT 0.55       /* a limit said, and what it was */
#define MS_SCORE_HOST 0.5
#define MS_SCORE_NOTICE 0.4       /* a killer's act, without its figures */

/* The first killer event: its row and the fields the causes read. */
struct kill_msg {
	int64_t id, pid;
	char kind[24], comm[64], reason[24], killer[24], where[160], node[64];
	double bytes, limit, request, usage, avail_pct, total;
	int64_t events;             /* Slurm: oom-kill events */
	char unit[8];               /* Slurm's kill line: the unit its form counts in */
	int64_t limit_printed;      /* ... and the limit as the line prints it */
	char source[24];            /* Kubernetes parser: what told it (data.source) */
};

static void col_text(sqlite3_stmt *st, int i, char *buf, size_t n)
{
	snprintf(buf, n, "%s", sqlite3_column_type(st, i) == SQLITE_TEXT ? q_text(st, i) : "");
}

static double col_num(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_double(st, i);
}

/* The first killer event, 1; 0 none; -1 failed. */
static int kill_read(struct rule_ctx *c, struct kill_msg *m)
{
	sqlite3_stmt *st = rl_prepare(c,
		"SELECT id, kind, pid, comm, bytes, json_extract(data, '$.reason'),"
		" json_extract(data, '$.killer'),"
		" coalesce(json_extract(data, '$.pod'), json_extract(data, '$.cgroup'),"
		"  json_extract(data, '$.unit'), json_extract(data, '$.step'),"
		"  json_extract(data, '$.job_id')),"
		" coalesce(json_extract(data, '$.node'), ''),"
		" json_extract(data, '$.limit_bytes'),"
		" coalesce(json_extract(data, '$.containers[0].usage_bytes'),"
		"  json_extract(data, '$.max_bytes')),"
		" coalesce(json_extract(data, '$.request_bytes'),"
		"  json_extract(data, '$.containers[0].request_bytes')),"
		" json_extract(data, '$.mem_available_percent'), json_extract(data, '$.mem_total_bytes'),"
		" json_extract(data, '$.oom_kill_events'), json_extract(data, '$.printed_unit'),"
		" json_extract(data, '$.limit_printed'), json_extract(data, '$.source')"
		" FROM event WHERE id = (SELECT o.event_id FROM oom o WHERE o.kind IN"
		"  ('k8s_oom_kill', 'k8s_eviction', 'slurm_oom', 'lsf_memlimit', 'userspace_kill',"
		"   'systemd_unit_oom')"
		"  AND NOT (o.kind = 'systemd_unit_oom' AND EXISTS (SELECT 1 FROM oom"
		"   WHERE kind IN ('kernel_oom', 'memcg_oom')))"
		"  ORDER BY o.kind = 'systemd_unit_oom', o.id LIMIT 1)");
	int r;

	memset(m, 0, sizeof(*m));
	if (!st)
		return -1;
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		m->id = sqlite3_column_int64(st, 0);
		col_text(st, 1, m->kind, sizeof(m->kind));
		m->pid = sqlite3_column_type(st, 2) == SQLITE_NULL ? OL_NULL : sqlite3_column_int64(st, 2);
		col_text(st, 3, m->comm, sizeof(m->comm));
		m->bytes = col_num(st, 4);
		col_text(st, 5, m->reason, sizeof(m->reason));
		col_text(st, 6, m->killer, sizeof(m->killer));
		col_text(st, 7, m->where, sizeof(m->where));
		col_text(st, 8, m->node, sizeof(m->node));
		m->limit = col_num(st, 9);
		m->usage = col_num(st, 10);
		m->request = col_num(st, 11);
		m->avail_pct = col_num(st, 12);
		m->total = col_num(st, 13);
		m->events = sqlite3_column_type(st, 14) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 14);
		col_text(st, 15, m->unit, sizeof(m->unit));
		m->limit_printed = sqlite3_column_type(st, 16) == SQLITE_NULL ? -1
				   : sqlite3_column_int64(st, 16);
		col_text(st, 17, m->source, sizeof(m->source));
	}
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return rl_sql_failed(c);
	return r == SQLITE_ROW;
}

static int kill_write(struct rule_ctx *c, struct rl_finding *f, const struct kill_msg *m,
		      const struct rl_history *h)
{
	int64_t fid = rl_finding_write(c, f);

	if (fid < 0 || rl_evidence(c, fid, "event", m->id, m->kind) < 0 ||
	    (h->have && rl_evidence(c, fid, "series", h->series_id, "memory before the kill") < 0))
		return -1;
	return 1;
}

/* IBM LSF's TERM_MEMLIMIT (lsf_job.h): the job's processes together
 * passed the limit LSF enforces (bsub -M, the queue's MEMLIMIT, or a
 * site's limit from the rusage[mem=] request). The peak LSF saw and the
 * request are its summary's; the value asked is a quarter above the
 * larger, as for a container's limit: the kill shows the limit reached,
 * not by how much the job fell short. */
static void lsf_say(struct rl_finding *f, const struct kill_msg *m)
{
	char b1[32], b2[32], b3[32], peak[96] = "";
	double base = m->usage > m->request ? m->usage : m->request;
	double want = base > 0 ? rl_round_up_size(base * 1.25) : -1;

	if (m->usage >= 0)
		rl_fig(f, "max_bytes", m->usage);
	if (m->usage >= 0 && m->request >= 0)
		snprintf(peak, sizeof(peak), ", peak %s of the %s requested",
			 rl_bytes(m->usage, b1, sizeof(b1)), rl_bytes(m->request, b2, sizeof(b2)));
	else if (m->usage >= 0)
		snprintf(peak, sizeof(peak), ", peak %s", rl_bytes(m->usage, b1, sizeof(b1)));
	snprintf(f->title, sizeof(f->title), "LSF: job %s was killed at its memory limit"
		 " (TERM_MEMLIMIT)%s: the job's memory request was too small",
		 m->where[0] ? m->where : "?", peak);
	if (want > 0) {
		rl_fig(f, "suggested_limit_bytes", want);
		rl_knob(f, "memory_limit", "the job's memory limit", want,
			"Ask LSF for at least %s (bsub -M and -R \"rusage[mem=]\"; a quarter above"
			" the %s it reached: the kill shows the limit was reached, not by how much"
			" it fell short); `bjobs -l` or `bacct -l JOB` shows MAX MEM against it.",
			rl_bytes(want, b3, sizeof(b3)), rl_bytes(base, b1, sizeof(b1)));
	} else {
		rl_advice(f, "Ask LSF for more memory (bsub -M, -R \"rusage[mem=]\"); `bacct -l JOB`"
			  " shows MAX MEM against the request.");
	}
}

/* Did Kubernetes run the container killed? What told the kill says
 * (parsers/k8s records it as data.source): a container runtime's own
 * account (docker inspect's State, docker events' "container oom")
 * does not, unless the kubelet's labels named its pod; every other
 * source is Kubernetes' (describe, the pod object, get pods, events,
 * KServe, FrameworkController) when it names a pod. A database written
 * before the source was recorded: moby's API names a container "/name"
 * (docker inspect's "Name"), so a name with no '/' is a pod's. */
static int kubernetes_said(const struct kill_msg *m)
{
	if (!m->where[0])
		return 0;
	if (!strcmp(m->source, "docker_inspect"))
		return 0;
	if (m->source[0])
		return 1;   /* docker_events names a pod only from the kubelet's labels */
	return m->where[0] != '/';
}

/* A container, a Slurm step or an LSF job killed at its memory limit. */
static int limit_hit(struct rule_ctx *c, const struct kill_msg *m)
{
	struct rl_finding f;
	struct rl_history h;
	char b1[32], b2[32];
	int slurm = !strcmp(m->kind, "slurm_oom");
	int lsf = !strcmp(m->kind, "lsf_memlimit");
	double want = m->limit > 0 ? rl_round_up_size(m->limit * 1.25) : -1;

	if (rl_history(c, RL_SCOPE_HOST, m->limit > 0 ? m->limit : -1, &h) < 0)
		return -1;
	rl_finding_init(&f, "killers", "misconfig", "cgroup_limit");
	f.score = m->limit > 0 ? MS_SCORE_LIMIT + 0.05 : MS_SCORE_LIMIT;
	if (m->limit > 0)
		rl_fig(&f, "limit_bytes", m->limit);
	if (m->request >= 0)
		rl_fig(&f, "request_bytes", m->request);
	if (lsf) {
		lsf_say(&f, m);
	} else if (slurm) {
		if (m->events >= 0)
			rl_fig(&f, "oom_kill_events", (double)m->events);
		if (m->events >= 0)
			snprintf(f.title, sizeof(f.title), "Slurm: the cgroup of step %s killed a task"
				 " for memory (%lld oom-kill event%s): the job's memory allocation was"
				 " too small", m->where[0] ? m->where : "?", (long long)m->events,
				 m->events == 1 ? "" : "s");
		else if (m->limit > 0 && !strcmp(m->unit, "KiB") && m->limit_printed >= 0)
			/* jobacct_gather's own kill, "Job J exceeded memory limit (U > L)":
			 * the line prints no unit; this form counts in KiB (Slurm's
			 * source, kernel_slurm.c), so the bytes are inferred */
			snprintf(f.title, sizeof(f.title), "Slurm: job %.40s exceeded its memory limit"
				 " of %s (the line's %lld, read as KiB: no unit printed) and was"
				 " killed: the job's memory allocation was too small",
				 m->where[0] ? m->where : "?",
				 rl_bytes(m->limit, b1, sizeof(b1)), (long long)m->limit_printed);
		else
			snprintf(f.title, sizeof(f.title), "Slurm: job %s exceeded its memory limit%s%s"
				 " and was killed: the job's memory allocation was too small",
				 m->where[0] ? m->where : "?", m->limit > 0 ? " of " : "",
				 m->limit > 0 ? rl_bytes(m->limit, b1, sizeof(b1)) : "");
		rl_advice(&f, "Request more memory for the job (--mem, --mem-per-cpu); `sacct -j"
			  " JOB --format=JobID,MaxRSS,ReqMem` shows what the step reached against"
			  " what it asked for.");
	} else {
		if (kubernetes_said(m))
			snprintf(f.title, sizeof(f.title), "Kubernetes: %s of pod %s was %s at its"
				 " memory limit%s%s", m->comm[0] ? m->comm : "the container",
				 m->where, m->reason[0] ? m->reason : "OOMKilled",
				 m->limit > 0 ? " of " : "",
				 m->limit > 0 ? rl_bytes(m->limit, b1, sizeof(b1)) : "");
		else
			snprintf(f.title, sizeof(f.title), "Container %s was %s at its memory limit%s%s",
				 m->where[0] == '/' ? m->where + 1 : m->where[0] ? m->where
				 : m->comm[0] ? m->comm : "(unnamed)",
				 m->reason[0] ? m->reason : "OOMKilled",
				 m->limit > 0 ? " of " : "",
				 m->limit > 0 ? rl_bytes(m->limit, b1, sizeof(b1)) : "");
		if (want > 0) {
			rl_fig(&f, "suggested_limit_bytes", want);
			rl_knob(&f, "memory_limit", "the memory limit", want,
				"Raise resources.limits.memory to at least %s (a quarter above the"
				" %s it hit: the kill shows the limit was reached, not by how much"
				" it fell short), or make the service hold less.",
				rl_bytes(want, b1, sizeof(b1)), rl_bytes(m->limit, b2, sizeof(b2)));
		} else {
			rl_advice(&f, "Raise the container's memory limit (resources.limits.memory"
				  " under Kubernetes; docker run --memory, compose's mem_limit)"
				  " above its working set, or make the service hold less.");
		}
		if (m->request >= 0 && m->limit > 0 && m->request < m->limit)
			rl_advice(&f, "Its request (%s) is below the limit: the scheduler placed it"
				  " for less than it may use.", rl_bytes(m->request, b1, sizeof(b1)));
	}
	f.score = rl_history_say(&f, f.score, &h, 0.75, "this message", "a limit that never fitted");
	return kill_write(c, &f, m, &h);
}

/* The node or the host out of memory: what each killer says of it. */
static void host_title(struct rl_finding *f, const struct kill_msg *m)
{
	char b1[32], b2[32], use[96] = "", ram[48] = "";

	if (m->usage >= 0 && m->request >= 0)
		snprintf(use, sizeof(use), " (the container used %s, its request %s)",
			 rl_bytes(m->usage, b1, sizeof(b1)), rl_bytes(m->request, b2, sizeof(b2)));
	else if (m->usage >= 0)
		snprintf(use, sizeof(use), " (the container used %s)",
			 rl_bytes(m->usage, b1, sizeof(b1)));
	if (m->total > 0)
		snprintf(ram, sizeof(ram), " (RAM %s)", rl_bytes(m->total, b1, sizeof(b1)));
	if (!strcmp(m->kind, "k8s_eviction"))
		snprintf(f->title, sizeof(f->title), "Kubernetes evicted pod %s: the node was low on"
			 " memory%s", m->where[0] ? m->where : "?", use);
	else if (!strcmp(m->kind, "k8s_oom_kill"))
		snprintf(f->title, sizeof(f->title), "Kubernetes: System OOM on node %s: the node ran"
			 " out of memory, not a container's limit", m->node[0] ? m->node : "?");
	else if (!strcmp(m->kind, "userspace_kill") && !strcmp(m->killer, "earlyoom"))
		snprintf(f->title, sizeof(f->title), "earlyoom killed %s (pid %lld, %s): the host's"
			 " available memory ran low%s", m->comm[0] ? m->comm : "?",
			 (long long)(m->pid == OL_NULL ? 0 : m->pid),
			 m->bytes >= 0 ? rl_bytes(m->bytes, b2, sizeof(b2)) : "size unknown", ram);
	else if (!strcmp(m->kind, "userspace_kill"))
		snprintf(f->title, sizeof(f->title), "%s killed %s for memory pressure: the host or"
			 " its slice was short of memory", m->killer[0] ? m->killer : "systemd-oomd",
			 m->where[0] ? m->where : "a unit");
	else
		snprintf(f->title, sizeof(f->title), "systemd: the kernel OOM killer killed a process"
			 " of %s (the kernel's report is not in the timeline)",
			 m->where[0] ? m->where : "a unit");
}

static int host_short(struct rule_ctx *c, const struct kill_msg *m)
{
	struct rl_finding f;
	struct rl_history h;
	char b1[32];
	int notice = !strcmp(m->kind, "systemd_unit_oom");

	if (rl_history(c, RL_SCOPE_HOST, m->total > 0 ? m->total : -1, &h) < 0)
		return -1;
	rl_finding_init(&f, "killers", "misconfig", "host_capacity");
	f.score = notice ? MS_SCORE_NOTICE : MS_SCORE_HOST;
	host_title(&f, m);
	if (m->usage >= 0)
		rl_fig(&f, "usage_bytes", m->usage);
	if (m->request >= 0)
		rl_fig(&f, "request_bytes", m->request);
	if (m->bytes >= 0 && !strcmp(m->kind, "userspace_kill"))
		rl_fig(&f, "victim_rss_bytes", m->bytes);
	if (!strcmp(m->kind, "k8s_eviction")) {
		if (m->usage >= 0 && m->request >= 0 && m->usage > m->request) {
			double want = rl_round_up_size(m->usage * 1.2);
			rl_fig(&f, "suggested_request_bytes", want);
			rl_advice(&f, "The container used more than it requested, so it was first in"
				  " line when the node ran short: request what it uses (resources."
				  "requests.memory of at least %s, a fifth above its use) so the"
				  " scheduler keeps room for it, with a limit to match.",
				  rl_bytes(want, b1, sizeof(b1)));
		} else {
			rl_advice(&f, "Set memory requests to what the pods use (requests = limits"
				  " for the memory-heavy service) so that the node is not"
				  " overcommitted, or give the node more memory.");
		}
	} else if (!strcmp(m->kind, "userspace_kill")) {
		rl_advice(&f, "The host ran short before the kernel's OOM killer had to act: give"
			  " the service a memory limit (MemoryMax=, a container limit) so that it"
			  " fails alone, make it hold less, or add RAM; %s's thresholds say when it"
			  " acts, not how much was needed.", m->killer[0] ? m->killer : "the killer");
	} else {
		rl_advice(&f, "Nothing capped the workload below the machine's memory: give it a"
			  " limit (a container limit, MemoryMax=) so that it fails alone, make it"
			  " hold less, or give the node more memory. The kernel's OOM report"
			  " (dmesg, journalctl -k) says how much there was.");
	}
	f.score = rl_history_say(&f, f.score, &h, 0.75, "this message",
				 "a host too small for the workload");
	return kill_write(c, &f, m, &h);
}

int rule_killers(struct rule_ctx *c)
{
	struct kill_msg m;
	int r = kill_read(c, &m);

	if (r <= 0)
		return r;
	if (!strcmp(m.kind, "slurm_oom") || !strcmp(m.kind, "lsf_memlimit") ||
	    (!strcmp(m.kind, "k8s_oom_kill") && strcmp(m.reason, "SystemOOM")))
		return limit_hit(c, &m);
	return host_short(c, &m);
}
