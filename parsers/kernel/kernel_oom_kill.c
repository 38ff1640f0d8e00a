/*
 * kernel_oom_kill.c -- the victims of kernel OOM reports (see
 * kernel_oom_report.h for the files around it).
 *
 * A victim is told in up to four lines: the selection ("Out of memory:
 * Kill process N (c) score S or sacrifice child", before 5.1), the
 * one-line summary "oom-kill:constraint=...,task=c,pid=N,uid=N" (4.19+),
 * "Killed process N (c) total-vm:..kB, anon-rss:..kB, ..." (every
 * kernel, in a dozen variants, spec 1.6) and the oom_reaper's line after
 * it. The Killed line is the oom_kill event; it emits the report's
 * oom_invoked first, and it decides which report it belongs to: an
 * oom.group kill lists several victims under one header, a repeat of the
 * same victim is not a new kill, and a kill long after its header starts
 * a report of its own. (The userspace killers: kernel_userspace.c.)
 */
#include "parsers/kernel/kernel_oom_report.h"

#include <stdio.h>
#include <string.h>

#include "parsers/kernel/kernel_scan.h"
#include "lib/vocab.h"

/* "...Kill process N (c) score S or sacrifice child" (pre-5.1 selection). */
int m_kill_select(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	struct oomev *ev = &kp->ev;
	const char *k = find(p, e, "Kill process "), *c, *o, *cl;
	int64_t pid;

	if (!k || find(k, e, "sharing same memory"))
		return k ? 1 : 0;
	if (!(c = parse_int(k + 13, e, &pid)))
		return 0;
	/* a selection after a kill, or a second one, is the next report's */
	if (!ev->open || ev->nkills || ev->sel_pid != OL_NULL) {
		if (report_close(kp) < 0)
			return -1;
		report_open(kp, r);
	}
	ev = &kp->ev;
	ev->sel_pid = pid;
	ev->sel_score = key_int(c, e, ") score ");
	/* ") score" may end the line: a mail client wrapped the score over */
	if ((o = memchr(c, '(', (size_t)(e - c))) &&
	    ((cl = find(o, e, ") score ")) || (e - o > 7 && !memcmp(e - 7, ") score", 7) &&
					      (cl = e - 7))))
		copy_str(ev->sel_comm, sizeof(ev->sel_comm), o + 1, cl);
	if (find(p, k, "Memory cgroup out of memory"))
		ev->memcg_hint = 1;
	if (find(p, k, "MPOL_BIND"))
		ev->mpol_hint = 1;
	return 1;
}

/* The value of ",key=" in [p, e) up to the next ',' into dst; NULL when
 * key is absent, else the start of the value. */
static const char *summary_field(const char *p, const char *e, const char *key, char *dst,
				 size_t n)
{
	const char *c = find(p, e, key), *t;

	if (!c)
		return NULL;
	c += strlen(key);
	t = c;
	while (t < e && *t != ',')
		t++;
	copy_str(dst, n, c, t);
	return c;
}

/* The fields at the right end of the summary, ",oom_memcg=/a,task_memcg=/b,
 * task=c,pid=N,uid=N": read from the right, as memcg paths may hold ','. */
static void summary_tail(struct oomev *ev, const char *p, const char *e)
{
	const char *c, *t, *f = e;
	int64_t v;

	if ((c = rfind(p, f, ",uid=")) && parse_int(c + 5, e, &v)) {
		ev->ck_uid = v;
		f = c;
	}
	if ((c = rfind(p, f, ",pid=")) && parse_int(c + 5, e, &v)) {
		ev->ck_pid = v;
		f = c;
	}
	if ((c = rfind(p, f, ",task="))) {
		copy_str(ev->ck_task, sizeof(ev->ck_task), c + 6, f);
		f = c;
	}
	if ((c = find(p, f, ",task_memcg="))) {
		copy_str(ev->task_memcg, sizeof(ev->task_memcg), c + 12, f);
		f = c;
	}
	if ((c = find(p, f, ",oom_memcg="))) {
		t = find(c + 11, f, ",task_memcg=");
		copy_str(ev->oom_memcg, sizeof(ev->oom_memcg), c + 11, t ? t : f);
	}
}

/* "oom-kill:constraint=CONSTRAINT_X,nodemask=..,...,task=c,pid=N,uid=N";
 * with no report open, or after the open one's kill, it is the first line
 * of a report whose header is not in the log. */
int m_oomkill_summary(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	struct oomev *ev = &kp->ev;
	const char *c, *t;
	size_t i;

	if (!starts(p, e, "oom-kill:"))
		return 0;
	if ((!ev->open || ev->nkills) && report_open_partial(kp, r) < 0)
		return -1;
	ev->oom_evidence = 1;
	if ((c = find(p, e, "constraint="))) {
		c += 11;
		if (starts(c, e, "CONSTRAINT_"))
			c += 11;
		t = c;
		while (t < e && *t != ',')
			t++;
		copy_str(ev->constraint, sizeof(ev->constraint), c, t);
		for (i = 0; ev->constraint[i]; i++)
			if (ev->constraint[i] >= 'A' && ev->constraint[i] <= 'Z')
				ev->constraint[i] = (char)(ev->constraint[i] | 0x20);
	}
	if (!ev->have_nodemask &&
	    summary_field(p, e, ",nodemask=", ev->nodemask, sizeof(ev->nodemask)))
		ev->have_nodemask = 1;
	if ((c = find(p, e, ",cpuset=")) && !ev->have_cpuset) {
		c += 8;
		t = find(c, e, ",mems_allowed=");
		copy_str(ev->cpuset, sizeof(ev->cpuset), c, t ? t : e);
		ev->have_cpuset = 1;
		if (t) {   /* a node list: digits, '-' and ',' before a digit */
			const char *m = t + 14, *me = m;
			while (me < e && (is_digit((unsigned char)*me) || *me == '-' ||
					  (*me == ',' && me + 1 < e && is_digit((unsigned char)me[1]))))
				me++;
			copy_str(ev->mems, sizeof(ev->mems), m, me);
		}
	}
	if (find(p, e, ",global_oom"))
		ev->global_oom = 1;
	summary_tail(ev, p, e);
	return 1;
}

/* What a "Killed process" line says. */
struct victim {
	int64_t pid, uid, score_adj;
	int64_t vm, anon, file, shmem, pgt;    /* kB */
	char comm[64];
	int memcg_wording;                     /* "Memory cgroup out of memory: Killed..." */
};

/* The kB figure after key, as key_int, but with digit groups a paste
 * may carry ("total-vm:26,184,840kB"): commas between digits are skipped
 * when the figure ends in "kB". */
static int64_t key_kb(const char *p, const char *e, const char *key)
{
	const char *k = find(p, e, key), *q;
	int64_t x = 0;
	int digits = 0;

	if (!k)
		return OL_NULL;
	for (q = k + strlen(key); q < e; q++) {
		if (is_digit((unsigned char)*q)) {
			if (x > (INT64_MAX - 9) / 10)
				return OL_NULL;
			x = x * 10 + (*q - '0');
			digits++;
		} else if (!(*q == ',' && digits && q + 1 < e && is_digit((unsigned char)q[1]))) {
			break;
		}
	}
	if (!digits)
		return OL_NULL;
	if (!starts(q, e, "kB"))
		return key_int(p, e, key);
	return x;
}

/* Read the victim line [p, e) (spec 1.6: RHEL 6 ", UID N (c)", RHEL 7
 * "(c), UID N,", upstream "(c) total-vm:.. UID:N pgtables:.. oom_score_adj:N")
 * into v. 0 when it is not one. */
static int read_victim(const char *p, const char *e, struct victim *v)
{
	const char *k = find(p, e, "Killed process "), *c, *o, *cl, *fields;

	memset(v, 0, sizeof(*v));
	v->uid = OL_NULL;
	if (!k)
		return 0;
	/* the pid left out of a quote, "Memory cgroup out of memory: Killed
	 * process (bun)" (leyabierta/leyabierta #101): the kernel's own
	 * prefix before it (__oom_kill_process's message, mm/oom_kill.c@v6.6)
	 * and the comm in parentheses make it the kernel's; the pid unknown */
	if (k + 15 < e && k[15] == '(' && find(p, k, "ut of memory: ")) {
		v->pid = OL_NULL;
		c = k + 15;
	} else if (!(c = parse_int(k + 15, e, &v->pid))) {
		return 0;
	}
	v->memcg_wording = find(p, k, "Memory cgroup out of memory") != NULL;
	fields = c;
	if (starts(c, e, ", UID ")) {            /* RHEL 6 */
		const char *d = parse_int(c + 6, e, &v->uid);
		c = d ? d : c + 6;
	}
	if ((o = memchr(c, '(', (size_t)(e - c)))) {
		cl = find(o, e, ") total-vm:");
		if (!cl)
			cl = find(o, e, "), UID ");
		if (!cl)
			cl = rfind(o, e, ")");
		if (cl && cl > o) {
			copy_str(v->comm, sizeof(v->comm), o + 1, cl);
			fields = cl;
		}
	}
	if (starts(fields, e, "), UID "))           /* RHEL 7 */
		parse_int(fields + 7, e, &v->uid);
	v->vm = key_kb(fields, e, "total-vm:");
	v->anon = key_kb(fields, e, "anon-rss:");
	v->file = key_kb(fields, e, "file-rss:");
	v->shmem = key_kb(fields, e, "shmem-rss:");
	if (v->uid == OL_NULL)
		v->uid = key_int(fields, e, "UID:");
	v->pgt = key_int(fields, e, "pgtables:");
	v->score_adj = key_int(fields, e, "oom_score_adj:");
	return 1;
}

/* Make the open report the one victim pid at record r belongs to: a
 * repeat of the last victim, or of any victim of an oom.group kill, is
 * the same victim (spec 1.9.3); another victim after a kill, or one
 * GAP_NS after its header, is a new report. Returns 1 for a repeat (the
 * line is taken, nothing to emit), 0 to go on, -1 when the sink failed. */
static int victim_report(struct kparse *kp, const struct krec *r, int64_t pid)
{
	struct oomev *ev = &kp->ev;
	int i;

	if (ev->open && ev->nkills) {
		if (pid == ev->last_kill_pid && !ev->group)
			return 1;
		if (!ev->group || ns_between(&ev->t, &r->t) > GAP_NS) {
			if (report_close(kp) < 0)
				return -1;
		} else {
			for (i = 0; i < ev->nkills && i < GROUP_KILLS; i++)
				if (ev->killed[i] == pid)
					return 1;
		}
	}
	if (report_in_body(ev) && ns_between(&ev->t, &r->t) > GAP_NS)
		if (report_close(kp) < 0)
			return -1;
	if (!ev->open)
		report_open(kp, r);
	return 0;
}

/* Remember the kill of pid (event id) for the oom_reaper line after it. */
static void recent_add(struct kparse *kp, int64_t pid, int64_t id, const struct ol_time *t)
{
	struct recent_kill *rk = &kp->recent[kp->nrecent++ % RECENT_KILLS];
	rk->pid = pid;
	rk->event_id = id;
	rk->boot_ns = t->boot_ns;
	rk->utc_ns = t->utc_ns;
}

/* The data of the oom_kill event of v in the open report (docs/json.md);
 * the caller owns it. */
static json_t *kill_json(struct oomev *ev, const struct victim *v)
{
	json_t *d = json_object();

	jset_int(d, "uid", v->uid);
	jset_int(d, "total_vm_kb", v->vm);
	jset_int(d, "anon_rss_kb", v->anon);
	jset_int(d, "file_rss_kb", v->file);
	jset_int(d, "shmem_rss_kb", v->shmem);
	jset_int(d, "pgtables_kb", v->pgt);
	jset_int(d, "oom_score_adj", v->score_adj);
	jset_str(d, "constraint", report_constraint(ev));
	jset_str(d, "task_memcg", ev->task_memcg);
	jset_str(d, "oom_memcg", ev->oom_memcg);
	json_object_set_new(d, "invoker", report_invoker_json(ev));
	jset_int(d, "invoker_event", ev->invoked_id);
	jset_int(d, "score", ev->sel_pid == v->pid || ev->sel_pid == OL_NULL ? ev->sel_score
									  : OL_NULL);
	jset_int(d, "selected_pid", ev->sel_pid);
	/* the kill decision as the kernel words it (pre-5.1): the process it
	 * chose and its score; a child of it may be the one killed */
	jset_str(d, "selected_comm", ev->sel_pid != OL_NULL && ev->sel_comm[0] ? ev->sel_comm : NULL);
	jset_int(d, "selected_score", ev->sel_pid != OL_NULL ? ev->sel_score : OL_NULL);
	json_object_set_new(d, "oom_group", json_boolean(ev->group));
	json_object_set_new(d, "operator_triggered", json_boolean(ev->operator_triggered));
	jset_str(d, "kernel_release", ev->release[0] ? ev->release : NULL);
	return d;
}

/* 1 when the victim line v, read from [p, e), is the kernel's. The kernel
 * names the victim's comm in parentheses after its pid in every version
 * (mm/oom_kill.c: "Killed process %d (%s)" from v2.6.12's
 * oom_kill_task through __oom_kill_process@v6.6, RHEL's ", UID %d, (%s)"
 * too), after its own prefix ("Out of memory: ", "Memory cgroup out of
 * memory: "). A line that names no comm is the kernel's only when one of
 * those prefixes stands before it or a report is open (its header, a
 * selection or the oom-kill: summary read above, which may name the
 * victim the cut line lost): a bare "Killed process 2277299" is a user's
 * own script printing what it kill(2)ed (set 13, c-leanagent's
 * ppl_gpus.py beside nvidia-smi tables), no OOM. */
static int victim_is_kernels(const struct oomev *ev, const struct victim *v, const char *p,
			     const char *e)
{
	return v->comm[0] || ev->open || v->memcg_wording || find(p, e, "ut of memory") ||
	       find(p, e, "ut of Memory");
}

/* Victim line in every variant (spec 1.6): the oom_kill event. */
int m_killed(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	struct oomev *ev = &kp->ev;
	struct victim v;
	const struct ol_task *t;
	char summary[256];
	int64_t id, kb;
	int rc;

	if (!read_victim(p, e, &v))
		return 0;
	if (!victim_is_kernels(ev, &v, p, e))
		return 0;   /* not the kernel's: the other matchers may read it */
	if ((rc = victim_report(kp, r, v.pid)))
		return rc;
	if (v.memcg_wording)
		ev->memcg_hint = 1;
	if (v.score_adj == OL_NULL && (t = report_task(ev, v.pid)))
		v.score_adj = t->oom_score_adj;
	if (report_emit_invoked(kp, v.pid, v.vm) < 0)
		return -1;
	/* the oom-kill: summary names the victim when the Killed line did not */
	if (!v.comm[0] && ev->ck_pid == v.pid)
		snprintf(v.comm, sizeof(v.comm), "%s", ev->ck_task);
	if (v.uid == OL_NULL && ev->ck_pid == v.pid)
		v.uid = ev->ck_uid;
	snprintf(summary, sizeof(summary), "%s killed %s (pid %lld)",
		 v.memcg_wording ? "memcg OOM" : "OOM killer", v.comm[0] ? v.comm : "?",
		 (long long)v.pid);
	/* the memory the kill frees: anon + file + shmem rss */
	kb = kb_sum(kb_sum(v.anon, v.file == OL_NULL ? 0 : v.file),
		    v.shmem == OL_NULL ? 0 : v.shmem);
	id = kp_record_event(kp, r, vocab_event_kind(VE_OOM_KILL), v.pid, v.comm,
			     kb == OL_NULL || kb > INT64_MAX / 1024 ? OL_NULL : kb * 1024, summary,
			     kill_json(ev, &v));
	if (id < 0)
		return -1;
	recent_add(kp, v.pid, id, &r->t);
	kp->reports++;
	if (ev->nkills < GROUP_KILLS)
		ev->killed[ev->nkills] = v.pid;
	ev->nkills++;
	ev->last_kill_pid = v.pid;
	return 1;
}

/* The pid and the quoted command after key in [p, e) ("PID 636163
 * (\"mysql\")"): *pid and comm filled, the byte after the closing quote
 * returned; NULL when key is not there or the figures are not. */
static const char *pid_comm_after(const char *p, const char *e, const char *key, int64_t *pid,
				  char *comm, size_t n)
{
	const char *k = find(p, e, key), *c, *q;

	if (!k || !(c = parse_int(k + strlen(key), e, pid)))
		return NULL;
	if (!starts(c, e, " (\"") || !(q = find(c + 3, e, "\")")))
		return NULL;
	copy_str(comm, n, c + 3, q);
	return q + 2;
}

/* The line of the eBPF OOM-kill tracers (bcc tools/oomkill.py and
 * libbpf-tools/oomkill.c, bpftrace tools/oomkill.bt: a probe on the
 * kernel's oom_kill_process): "HH:MM:SS Triggered by PID N (\"c\"), [CGROUP
 * I (\"path\"), ]OOM kill of PID M (\"v\"), P pages, loadavg: ...". The
 * kernel's kill, witnessed: an oom_kill event whose victim is M, whose
 * invoker is N; P is the OOM context's total pages (oc->totalpages, the
 * memory the kill was decided over, not the victim's RSS) and the path
 * bpftrace's memcg variant prints is the memcg that hit its limit. */
int m_oomkill_tool(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	struct victim v;
	char by[64] = "", cg[256] = "", summary[256];
	const char *c, *q;
	int64_t by_pid = OL_NULL, pages = OL_NULL, cg_id;
	json_t *d, *inv;

	if (!find(p, e, ", OOM kill of PID ") || !pid_comm_after(p, e, "Triggered by PID ", &by_pid,
								 by, sizeof(by)))
		return 0;
	memset(&v, 0, sizeof(v));
	v.uid = v.score_adj = v.vm = v.anon = v.file = v.shmem = v.pgt = OL_NULL;
	if (!(c = pid_comm_after(p, e, "OOM kill of PID ", &v.pid, v.comm, sizeof(v.comm))))
		return 0;
	if (starts(c, e, ", ") && (q = parse_int(c + 2, e, &pages)) && !starts(q, e, " pages"))
		pages = OL_NULL;
	if (pid_comm_after(p, e, "CGROUP ", &cg_id, cg, sizeof(cg)) == NULL)
		cg[0] = 0;
	d = kill_json(&kp->ev, &v);
	if (cg[0])
		json_object_set_new(d, "oom_memcg", json_string(cg));
	inv = json_object();
	json_object_set_new(inv, "comm", json_string(by));
	jset_int(inv, "pid", by_pid);
	jset_int(inv, "uid", OL_NULL);
	jset_str(inv, "gfp_mask", NULL);
	jset_int(inv, "order", OL_NULL);
	jset_int(inv, "oom_score_adj", OL_NULL);
	json_object_set_new(d, "invoker", inv);
	jset_str(d, "witness", "oomkill (eBPF)");
	jset_int(d, "oom_total_pages", pages);
	snprintf(summary, sizeof(summary), "OOM killer killed %s (pid %lld), traced by oomkill",
		 v.comm[0] ? v.comm : "?", (long long)v.pid);
	if (kp_record_event(kp, r, vocab_event_kind(VE_OOM_KILL), v.pid, v.comm, OL_NULL, summary,
			    d) < 0)
		return -1;
	kp->reports++;
	return 1;
}

/* The oom_kill event id of the latest kill of pid, or OL_NULL. */
static int64_t recent_kill_of(const struct kparse *kp, int64_t pid)
{
	unsigned i;

	for (i = 0; i < RECENT_KILLS && i < kp->nrecent; i++) {
		const struct recent_kill *rk = &kp->recent[(kp->nrecent - 1 - i) % RECENT_KILLS];
		if (rk->pid == pid)
			return rk->event_id;
	}
	return OL_NULL;
}

/* "oom_reaper: reaped process N (c), now anon-rss:0kB, ..." / "unable to reap pid:N (c)" */
int m_reaper(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	const char *c, *o, *cl;
	int64_t pid = OL_NULL;
	char comm[64] = "", summary[200];
	int reaped;
	json_t *d;

	if (!starts(p, e, "oom_reaper: "))
		return 0;
	if ((c = find(p, e, "reaped process ")))
		reaped = 1, c = parse_int(c + 15, e, &pid);
	else if ((c = find(p, e, "unable to reap pid:")))
		reaped = 0, c = parse_int(c + 19, e, &pid);
	else
		return 1;
	if (c && (o = memchr(c, '(', (size_t)(e - c)))) {
		cl = find(o, e, "), now");
		if (!cl)
			cl = rfind(o, e, ")");
		if (cl)
			copy_str(comm, sizeof(comm), o + 1, cl);
	}
	d = json_object();
	json_object_set_new(d, "reaped", json_boolean(reaped));
	jset_int(d, "anon_rss_kb", key_int(p, e, "anon-rss:"));
	jset_int(d, "file_rss_kb", key_int(p, e, "file-rss:"));
	jset_int(d, "shmem_rss_kb", key_int(p, e, "shmem-rss:"));
	jset_int(d, "kill_event", recent_kill_of(kp, pid));
	snprintf(summary, sizeof(summary), "oom_reaper %s %s (pid %lld)",
		 reaped ? "reaped" : "could not reap", comm[0] ? comm : "?", (long long)pid);
	if (kp_record_event(kp, r, vocab_event_kind(VE_OOM_REAPER), pid, comm, OL_NULL, summary,
			d) < 0)
		return -1;
	return 1;
}
