/*
 * kernel_slurm.c -- the Slurm batch scheduler's kills of a job or step at
 * its memory limit, as slurmstepd and srun print them into a job's output
 * or the node's syslog (split from kernel_userspace.c, which dispatches
 * to slurm_line and owns the held-event machinery it uses).
 *
 *   slurmstepd "error: Detected N oom-kill event(s) in step J.S cgroup."
 *              (< 21.08), "Detected N oom_kill event[s] in StepId=J.S. ...",
 *              "Job J exceeded memory limit (U > L), being killed" (KiB),
 *              "StepId=J.S exceeded memory limit (U > L), being killed" (bytes)
 *   srun       "srun: error: NODE: task[s] T: Out Of Memory",
 *   slurmstepd "error: *** STEP J.S ON NODE CANCELLED AT <time> ***"
 *
 * Event: slurm_oom (docs/json.md), held (up_hold) until the srun or
 * CANCELLED line that names its node, tasks and time is read, or
 * UP_LINES later lines (kernel_userspace.c).
 */
#include "parsers/kernel/kernel_oom_report.h"

#include <string.h>

#include "parsers/kernel/kernel_scan.h"
#include "lib/vocab.h"

/* Does p start with slurmstepd's log prefix, "slurmstepd: " or, where
 * slurmd runs as several daemons per host (MULTIPLE_SLURMD), the node's
 * "slurmstepd-NODE: " (slurm src/slurmd/slurmstepd/mgr.c@slurm-22-05-0-1
 * sets argv0 to "slurmstepd-%s" with the node name)? */
static int slurmstepd_prefix(const char *p, const char *e)
{
	const char *q;

	if (starts(p, e, "slurmstepd: "))
		return 1;
	if (!starts(p, e, "slurmstepd-"))
		return 0;
	for (q = p + 11; q < e && *q != ' ' && *q != ':'; q++)
		;
	return q > p + 11 && q + 1 < e && q[0] == ':' && q[1] == ' ';
}

/* "Detected N oom-kill event(s) in step J.S cgroup." / "... in StepId=J.S.". */
static int slurm_detected(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	const char *c = find(p, e, "Detected "), *s = NULL, *se;
	char step[96] = "", job[64] = "", summary[200];
	int64_t n = OL_NULL;
	json_t *d;

	if (!c || !parse_int(c + 9, e, &n) || !(find(c, e, "oom-kill event") ||
						 find(c, e, "oom_kill event")))
		return 0;
	if ((s = find(c, e, " in step ")))
		s += 9;
	else if ((s = find(c, e, "StepId=")))
		s += 7;
	if (s) {
		for (se = s; se < e && *se != ' '; se++)
			;
		if (se > s && se[-1] == '.')
			se--;
		copy_str(step, sizeof(step), s, se);
		c = memchr(step, '.', strlen(step));
		copy_str(job, sizeof(job), step, c ? c : step + strlen(step));
	}
	d = json_object();
	jset_str(d, "step", step);
	jset_str(d, "job_id", job);
	jset_int(d, "oom_kill_events", n);
	jset_str(d, "node", NULL);
	jset_str(d, "tasks", NULL);
	snprintf(summary, sizeof(summary), "Slurm: %lld oom-kill event(s) in step %s",
		 (long long)n, step[0] ? step : "?");
	return up_hold(kp, r, UP_SLURM, "slurm_oom", OL_NULL, "", OL_NULL, summary, d) < 0 ? -1
												     : 1;
}

/* jobacct_gather's own kill at the job's memory limit, polled from the
 * tasks' RSS, as older Slurm prints it and clusters without the cgroup
 * task plugin still do (src/plugins/jobacct_gather/common/common_jag.c).
 * Older releases: error("Job %u exceeded memory limit (%"PRIu64" >
 * %"PRIu64"), being killed"), "Step %u.%u exceeded ..." for a step, the
 * figures in KiB (jobacct_gather_set_mem_limit: mem_limit * 1024 "MB to
 * KB", its debug line "limit:... KB"); later ones: "%ps exceeded memory
 * limit (...)", %ps "StepId=J.S" or "JobId=J", the figures in bytes
 * (mem_limit * 1048576 "MB to B"). The form tells the unit: used and
 * limit are stored in bytes, the printed figures kept beside them. */
static int slurm_exceeded(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	const char *c = find(p, e, " exceeded memory limit ("), *w, *we;
	char job[64] = "", step[96] = "", summary[200];
	int64_t used = OL_NULL, limit = OL_NULL, unit;
	const char *q;
	json_t *d;

	if (!c || !(q = parse_int(c + 24, e, &used)) || !(q = find(q, e, " > ")) ||
	    !parse_int(q + 3, e, &limit))
		return 0;
	for (w = c; w > p && w[-1] != ' '; w--)   /* the word before: J, J.S, StepId=J.S */
		;
	we = c;
	unit = 1024;   /* "Job J", "Step J.S": KiB */
	if ((q = memchr(w, '=', (size_t)(we - w)))) {
		w = q + 1;
		unit = 1;   /* "StepId=J.S", "JobId=J": bytes */
	}
	copy_str(step, sizeof(step), w, we);
	q = memchr(step, '.', strlen(step));
	copy_str(job, sizeof(job), step, q ? q : step + strlen(step));
	d = json_object();
	jset_str(d, "step", q ? step : NULL);
	jset_str(d, "job_id", job);
	jset_int(d, "limit_bytes", limit * unit);
	jset_int(d, "max_bytes", used * unit);
	jset_int(d, "limit_printed", limit);
	jset_int(d, "used_printed", used);
	jset_str(d, "printed_unit", unit == 1 ? "B" : "KiB");
	jset_str(d, "node", NULL);
	jset_str(d, "tasks", NULL);
	snprintf(summary, sizeof(summary), "Slurm: job %s exceeded its memory limit (%lld > %lld"
		 " %s), killed", job[0] ? job : "?", (long long)used, (long long)limit,
		 unit == 1 ? "B" : "KiB");
	return up_hold(kp, r, UP_SLURM, "slurm_oom", OL_NULL, "", OL_NULL, summary, d) < 0 ? -1
												     : 1;
}

/* "srun: error: NODE: task[s] T: Out Of Memory" and "*** STEP J.S ON NODE
 * CANCELLED AT 2021-10-27T19:35:36 ***": the node, tasks and time of the
 * held slurm_oom. */
static int slurm_after(struct kparse *kp, const char *p, const char *e)
{
	struct upending *u = &kp->up;
	const char *c, *n, *t;
	char node[128] = "", tasks[64] = "";

	if (!u->d || u->what != UP_SLURM)
		return 0;
	if ((c = find(p, e, "srun: error: ")) && find(c, e, ": Out Of Memory")) {
		n = c + 13;
		if (!(t = memchr(n, ':', (size_t)(e - n))))
			return 0;
		copy_str(node, sizeof(node), n, t);
		t = skip_ws(t + 1, e);
		if (starts(t, e, "tasks "))
			t += 6;
		else if (starts(t, e, "task "))
			t += 5;
		if ((c = memchr(t, ':', (size_t)(e - t))))
			copy_str(tasks, sizeof(tasks), t, c);
		jset_str(u->d, "node", node);
		jset_str(u->d, "tasks", tasks);
		return 1;
	}
	if ((c = find(p, e, " CANCELLED AT ")) && find(p, c, "*** ")) {
		int64_t ns;
		int off;
		const char *on = find(p, c, " ON ");
		if (on && json_is_null(json_object_get(u->d, "node"))) {
			copy_str(node, sizeof(node), on + 4, c);
			jset_str(u->d, "node", node);
		}
		if (u->t.clock == OL_CLOCK_NONE &&
		    parse_iso8601(c + 14, (size_t)(e - c - 14), &ns, &off) > 0) {
			const struct ingest_opts *o = kp->s->opts;
			u->t = ol_time_none();
			u->t.clock = o && o->tz_known ? OL_CLOCK_UTC : OL_CLOCK_LOCAL;
			u->t.utc_ns = o && o->tz_known ? ns - (int64_t)o->tz_offset_s * NS_PER_S : ns;
		}
		return up_flush(kp) < 0 ? -1 : 1;
	}
	return 0;
}

/* A line of slurmstepd or srun (ident, or "" for a bare line): 1 when it
 * was Slurm's, 0 when not, -1 when the sink failed. */
int slurm_line(struct kparse *kp, const struct krec *r, const char *ident, const char *p,
	       const char *e)
{
	int rc;

	if ((rc = slurm_after(kp, p, e)))
		return rc;
	if (slurmstepd_prefix(p, e) && (rc = slurm_detected(kp, r, p, e)))
		return rc;
	if (slurmstepd_prefix(p, e) && (rc = slurm_exceeded(kp, r, p, e)))
		return rc;
	if (!strcmp(ident, "slurmstepd") && (rc = slurm_detected(kp, r, p, e)))
		return rc;
	if (!strcmp(ident, "slurmstepd") && (rc = slurm_exceeded(kp, r, p, e)))
		return rc;
	return 0;
}
