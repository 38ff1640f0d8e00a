/*
 * kernel_oom_header.c -- the header of a kernel OOM report and the lines
 * of its body that say who asked and where (see kernel_oom_report.h for
 * the files around it).
 *
 * The header "<comm> invoked oom-killer: gfp_mask=..., order=N,
 * oom_score_adj=N" opens a report. Until its first victim, every line is
 * offered to m_context: the CPU line (the invoker's pid and the kernel
 * release), the cpuset line, the memcg wording (which makes the report a
 * memcg OOM), the memory block and the task dump (their own files), the
 * oom.group line and the lines that explain why no task was killed. A
 * "page allocation failure" is a header of its own: one event, no report.
 */
#include "parsers/kernel/kernel_oom_report.h"

#include <stdio.h>
#include <string.h>

#include "parsers/kernel/kernel_scan.h"
#include "lib/vocab.h"

/* The end of the token at s: the first of the bytes of stop in [s, e),
 * or e. */
static const char *token_end(const char *s, const char *e, const char *stop)
{
	size_t n = strlen(stop);

	while (s < e && !memchr(stop, *s, n))
		s++;
	return s;
}

/* "<comm> invoked oom-killer: gfp_mask=0x..(..), [nodemask=..,] order=N, ..." */
int m_header(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	struct oomev *ev;
	const char *k = find(p, e, " invoked oom-killer: "), *q, *c, *t = e;
	int64_t v;

	/* the header quoted without its figures ("bun invoked oom-killer",
	 * leyabierta/leyabierta #101): dump_header's words up to the colon
	 * (mm/oom_kill.c@v6.6), ending the line */
	while (!k && t > p && is_space((unsigned char)t[-1]))
		t--;
	if (!k && t - p > 19 && !memcmp(t - 19, " invoked oom-killer", 19))
		k = t - 19;
	if (!k)
		return 0;
	if (report_close(kp) < 0)
		return -1;
	report_open(kp, r);
	ev = &kp->ev;
	ev->have_header = 1;
	copy_str(ev->comm, sizeof(ev->comm), p, k);
	q = k + 21 <= e ? k + 21 : e;
	if ((c = find(q, e, "gfp_mask="))) {
		const char *s = c + 9, *t = token_end(s, e, "(, ");
		copy_str(ev->gfp, sizeof(ev->gfp), s, t);
		if (t < e && *t == '(') {
			const char *cl = memchr(t, ')', (size_t)(e - t));
			copy_str(ev->gfp_flags, sizeof(ev->gfp_flags), t + 1, cl ? cl : e);
		}
	}
	if ((c = find(q, e, "nodemask="))) {
		copy_str(ev->nodemask, sizeof(ev->nodemask), c + 9, token_end(c + 9, e, ", "));
		ev->have_nodemask = 1;
	}
	ev->order = key_int(q, e, "order=");
	if ((c = find(q, e, "oom_score_adj=")) && parse_int(c + 14, e, &v))
		ev->score_adj = v;
	else if ((c = find(q, e, "oomkilladj=")) && parse_int(c + 11, e, &v))
		ev->oom_adj = v;
	if ((c = find(q, e, "oom_adj=")) && (c == q || c[-1] != '_') && parse_int(c + 8, e, &v))
		ev->oom_adj = v;
	/* order=-1 is the sysrq/memcg "manual" OOM */
	if (ev->order == -1 || kp->sysrq_pending)
		ev->operator_triggered = 1;
	kp->sysrq_pending = 0;
	return 1;
}

/* The kernel release in the CPU line after its taint word t: the first
 * token that starts "<digits>.<digit>"; noted once per parse. */
static void release_after(struct kparse *kp, const char *t, const char *e)
{
	struct oomev *ev = &kp->ev;
	const char *c = t + 1;

	while (c < e) {
		const char *w = skip_ws(c, e), *we = token_end(w, e, " ");
		if (we - w >= 3 && is_digit((unsigned char)w[0])) {
			const char *d = w;
			while (d < we && is_digit((unsigned char)*d))
				d++;
			if (d + 1 < we && *d == '.' && is_digit((unsigned char)d[1])) {
				copy_str(ev->release, sizeof(ev->release), w, we);
				kp_note_release(kp, ev->release);
				return;
			}
		}
		if (we == w)
			return;
		c = we;
	}
}

/* "CPU: 2 PID: 1842 Comm: x Not tainted 5.15.0 #1" / "Pid: 1234, comm: x Not tainted 3.2.0" */
static int m_cpu(struct kparse *kp, const char *p, const char *e)
{
	struct oomev *ev = &kp->ev;
	const char *c, *t, *s, *x;
	int64_t v;

	if (starts(p, e, "CPU: ")) {
		if (!(c = find(p, e, " PID: ")) || !(s = find(c, e, " Comm: ")))
			return 0;
		if (parse_int(c + 6, e, &v))
			ev->pid = v;
		ev->invoker_uid = key_int(p, c + 1, " UID: ");   /* 6.x */
		s += 7;
	} else if (starts(p, e, "Pid: ")) {
		if (!parse_int(p + 5, e, &v) || !(s = find(p, e, ", comm: ")))
			return 0;
		ev->pid = v;
		s += 8;
	} else {
		return 0;
	}
	ev->cpu_seen = 1;
	t = find(s, e, " Not tainted");
	x = find(s, e, " Tainted: ");
	if (!t || (x && x < t))
		t = x;
	if (t)
		release_after(kp, t, e);
	return 1;
}

/* "Tasks in /x are going to be killed due to memory.oom.group set": an
 * oom.group kill (before the Killed lines, or between them). */
int m_group(struct kparse *kp, const char *p, const char *e)
{
	const char *c;

	if (!starts(p, e, "Tasks in ") || !find(p, e, "memory.oom.group"))
		return 0;
	c = find(p, e, " are going to be killed");
	copy_str(kp->ev.group_path, sizeof(kp->ev.group_path), p + 9, c ? c : e);
	kp->ev.group = 1;
	return 1;
}

/* The lines that say why a report killed nothing (or panicked). */
static int m_no_kill(struct oomev *ev, const char *p, const char *e)
{
	if (find(p, e, "Out of memory and no killable processes")) {
		ev->nokill_reason = "no_killable_processes";
		if (find(p, e, "Kernel panic"))
			ev->panic = 1;
		return 1;
	}
	if (find(p, e, "Kernel panic - not syncing")) {
		ev->panic = 1;
		if (find(p, e, "panic_on_oom"))
			ev->nokill_reason = "panic_on_oom";
		return 1;
	}
	if (find(p, e, "is already exiting. Skip killing")) {
		ev->nokill_reason = "victim_exiting";
		return 1;
	}
	if (find(p, e, "OOM request ignored")) {
		ev->nokill_reason = "no_eligible_task";
		return 1;
	}
	return 0;
}

/* The memcg wording of a body line: the report is a memcg OOM. */
static int m_memcg_lines(struct oomev *ev, const char *p, const char *e)
{
	const char *c;

	if (find(p, e, "mem_cgroup_out_of_memory") || find(p, e, "try_charge")) {
		ev->memcg_hint = 1;
		return 1;
	}
	/* v1 before 4.19: "Task in /a killed as a result of limit of /b" */
	if (starts(p, e, "Task in ") && (c = find(p, e, " killed as a result of limit of "))) {
		copy_str(ev->task_memcg, sizeof(ev->task_memcg), p + 8, c);
		copy_str(ev->oom_memcg, sizeof(ev->oom_memcg), c + 32, e);
		ev->memcg_hint = 1;
		return 1;
	}
	return 0;
}

/* "Memory cgroup stats for /x:" (v2: one "key value" line per stat
 * after it, in bytes; v1: "key:NKB" tokens on the same line): the stats
 * as bytes into ev->memcg_stats. */
static int m_memcg_stats(struct oomev *ev, const char *p, const char *e)
{
	const char *c, *k, *v;
	int64_t x;

	if (starts(p, e, "Memory cgroup stats for ")) {
		const char *path = p + 24, *pe = find(path, e, ": ");
		if (!pe)
			pe = e > path && e[-1] == ':' ? e - 1 : e;
		copy_str(ev->memcg_stats_path, sizeof(ev->memcg_stats_path), path, pe);
		ev->memcg_hint = ev->oom_evidence = ev->in_memcg_stats = 1;
		ev->in_meminfo = 0;
		if (!ev->memcg_stats)
			ev->memcg_stats = json_object();
		for (c = pe < e ? pe + 1 : e; c < e;) {     /* v1 tokens */
			k = skip_ws(c, e);
			for (v = k; v < e && *v != ':' && *v != ' '; v++)
				;
			if (v >= e || *v != ':' || !(c = parse_int(v + 1, e, &x))) {
				c = v < e ? v + 1 : e;
				continue;
			}
			if (starts(c, e, "KB") && x < INT64_MAX / 1024) {
				char key[48];
				copy_str(key, sizeof(key), k, v);
				if (json_object_size(ev->memcg_stats) < 128)
					json_object_set_new(ev->memcg_stats, key, json_integer(x * 1024));
			}
		}
		return 1;
	}
	if (!ev->in_memcg_stats)
		return 0;
	for (c = p; c < e && ((*c >= 'a' && *c <= 'z') || *c == '_' || is_digit((unsigned char)*c));
	     c++)
		;
	if (c == p || c >= e || *c != ' ' || !(v = parse_int(c + 1, e, &x)) || v != e) {
		ev->in_memcg_stats = 0;
		return 0;
	}
	if (json_object_size(ev->memcg_stats) < 128) {
		char key[48];
		copy_str(key, sizeof(key), p, c);
		json_object_set_new(ev->memcg_stats, key, json_integer(x));
	}
	return 1;
}

int m_fragment(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	const char *c;

	if (!starts(p, e, "memory: usage ") && !starts(p, e, "Mem-Info:") &&
	    !starts(p, e, "Mem-info:") &&
	    !(*p == '[' && (c = memchr(p, ']', (size_t)(e - p))) && find(p, c, "pid") &&
	      find(c, e, " name")) && !(kp->table_only && task_row_shape(p, e)))
		return 0;
	if (report_open_partial(kp, r) < 0)
		return -1;
	return m_context(kp, p, e);
}

/* A line of an open report's body, between its header and its first
 * victim. The order of the tests is the order that keeps a line from
 * being taken by a looser matcher further down. */
int m_context(struct kparse *kp, const char *p, const char *e)
{
	struct oomev *ev = &kp->ev;
	const char *c, *m;
	int r;

	if ((r = m_memcg_stats(ev, p, e)))
		return r;

	if (!ev->cpu_seen && (r = m_cpu(kp, p, e)))
		return r;
	if ((c = find(p, e, " cpuset=")) && (m = find(c, e, " mems_allowed=")) &&
	    !ev->have_cpuset) {
		copy_str(ev->cpuset, sizeof(ev->cpuset), c + 8, m);
		copy_str(ev->mems, sizeof(ev->mems), m + 14, e);
		ev->have_cpuset = 1;
		return 1;
	}
	if (starts(p, e, "Workqueue:") && find(p, e, "moom_callback")) {
		ev->operator_triggered = 1;   /* sysrq-f */
		return 1;
	}
	if ((r = m_memcg_lines(ev, p, e)))
		return r;
	if ((r = m_memcg_counter(kp, p, e)))
		return r;
	if ((r = m_task_header(kp, p, e)))
		return r;
	if ((r = m_task_row(kp, p, e)))
		return r;
	if ((r = m_group(kp, p, e)))
		return r;
	if ((r = m_no_kill(ev, p, e)))
		return r;
	return m_meminfo(kp, p, e);
}

/* A call trace's warn_alloc frame (x86 " warn_alloc+0x..", the arm
 * unwinder's "dump_stack_lvl from warn_alloc+0x.." and "warn_alloc from
 * __alloc_pages+0x..") when no page allocation failure header was read
 * in the WARN_ALLOC_GAP lines before: mm/page_alloc.c's warn_alloc()
 * prints that header just before the stack it dumps, so a paste that
 * cut the header still tells one failure. One event per trace. */
#define WARN_ALLOC_GAP 64
static int warn_alloc_frame(struct kparse *kp, const struct krec *r, const char *p,
			    const char *e)
{
	const char *w = find(p, e, "warn_alloc");
	json_t *d;

	if (!w || w + 10 >= e || (w[10] != '+' && w[10] != ' ') ||
	    (w > p && w[-1] != ' ' && w[-1] != '\t'))
		return 0;
	if (kp->alloc_fail_line && kp->in->lineno - kp->alloc_fail_line <= WARN_ALLOC_GAP) {
		kp->alloc_fail_line = kp->in->lineno;   /* the same trace goes on */
		return 1;
	}
	kp->alloc_fail_line = kp->in->lineno;
	d = json_object();
	jset_str(d, "inferred_from", "warn_alloc frame");
	if (kp_record_event(kp, r, vocab_event_kind(VE_ALLOC_FAILURE), OL_NULL, "", OL_NULL,
			"page allocation failure (a warn_alloc call trace; its header is not "
			"in the log)", d) < 0)
		return -1;
	return 1;
}

/* "<comm>: page allocation failure: order:N, mode:0x..(..), nodemask=..." */
int m_alloc_failure(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	const char *k = find(p, e, ": page allocation failure: "), *c;
	char comm[64], mode[32] = "", summary[200];
	json_t *d;
	int64_t order;

	if (!k)
		return warn_alloc_frame(kp, r, p, e);
	if (kp->ev.open && kp->ev.nkills && report_close(kp) < 0)
		return -1;
	copy_str(comm, sizeof(comm), p, k);
	kp->alloc_fail_line = kp->in->lineno;
	order = key_int(k, e, "order:");
	if ((c = find(k, e, "mode:")))
		copy_str(mode, sizeof(mode), c + 5, token_end(c + 5, e, "(, "));
	d = json_object();
	jset_int(d, "order", order);
	jset_str(d, "gfp_mask", mode);
	snprintf(summary, sizeof(summary), "%s: page allocation failure (order %lld)", comm,
		 (long long)(order == OL_NULL ? 0 : order));
	if (kp_record_event(kp, r, vocab_event_kind(VE_ALLOC_FAILURE), OL_NULL, comm, OL_NULL,
			summary, d) < 0)
		return -1;
	return 1;
}
