/*
 * kernel_userspace.c -- the OOM killers that run in userspace, and the
 * witnesses of kills, as they show in a syslog or journal next to the
 * kernel's lines (see kernel_oom_report.h for the files around it).
 *
 *   earlyoom   "sending SIGTERM to process N uid U "c": badness B, VmRSS R MiB"
 *              (1.2+; "oom_score S" for badness from 1.8; ", cmdline "..."" later),
 *              "killing process N "c" with signal 15: badness B, VmRSS R MiB" (< 1.2),
 *              "escalating to SIGKILL after ...", "process [N ]exited after S seconds",
 *              and its status lines "mem avail: A of T MiB (P%), swap free: F of S MiB (Q%)",
 *              "mem total: T MiB, swap total: S MiB"
 *   systemd-oomd
 *              "Memory pressure for /x is P% > L% for > Ds with reclaim activity",
 *              "Considered N cgroups for killing, top candidates were:" with
 *              "Path: /y", "Current Memory Usage: 55.5M", "Swap Usage: 477.8M",
 *              "oomd attempting to kill N with KILL",
 *              "Killed /y due to memory pressure for /x being P% > L% for > Ds ..."
 *              (systemd 248-255), "Marked /y for killing due to ..." (256+),
 *              "Killed /y due to memory used (...) / total (...) and swap used ..."
 *   systemd    "unit: systemd-oomd killed N process(es) in this unit.",
 *              "unit: A process of this unit has been killed by the OOM killer."
 *   Slurm      the batch scheduler's job kills: kernel_slurm.c (held and
 *              sent through up_hold/up_flush below)
 *
 * Events: userspace_kill (earlyoom, systemd-oomd), systemd_unit_oom,
 * oomd_candidates (a candidate list no kill followed); series
 * host.mem_available_bytes and host.swap_free_bytes from earlyoom's
 * status lines, with meta host.mem_total_bytes and host.swap_total_bytes
 * (docs/json.md, docs/schema.md). An earlyoom or Slurm event is held
 * until the lines that complete it (or UP_LINES later lines) are read.
 */
#include "parsers/kernel/kernel_oom_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/kernel/kernel_scan.h"
#include "lib/vocab.h"

#define UP_LINES 40     /* a held event is sent this many lines after its own */

/* ---------------------------------------------------------------------
 * Small readers.
 */

/* A decimal number with an optional fraction at p: the value into *v,
 * the byte after it returned; NULL when there is none. */
static const char *num_at(const char *p, const char *e, double *v)
{
	char buf[40];
	size_t k = 0;
	char *end;

	while (p + k < e && k < sizeof(buf) - 1 &&
	       (is_digit((unsigned char)p[k]) || (p[k] == '.' && k)))
		k++;
	if (!k)
		return NULL;
	memcpy(buf, p, k);
	buf[k] = 0;
	*v = strtod(buf, &end);
	return p + (end - buf);
}

/* systemd's sizes "55.5M", "477.8M", "1.2G", "512B" (powers of 1024). */
static int64_t sysd_size(const char *p, const char *e)
{
	static const char units[] = "BKMGTP";
	const char *q, *u;
	double v;

	if (!(q = num_at(skip_ws(p, e), e, &v)))
		return OL_NULL;
	if (q >= e || !(u = memchr(units, *q, sizeof(units) - 1)))
		return OL_NULL;
	for (; u > units; u--)
		v *= 1024.0;
	return v < 9e18 ? (int64_t)(v + 0.5) : OL_NULL;
}

/* "N MiB" / "N KiB" / "N GiB" at p as bytes, or OL_NULL. */
static int64_t mib_at(const char *p, const char *e)
{
	double v;
	const char *q = num_at(skip_ws(p, e), e, &v);

	if (!q)
		return OL_NULL;
	q = skip_ws(q, e);
	if (starts(q, e, "MiB"))
		v *= 1048576.0;
	else if (starts(q, e, "KiB"))
		v *= 1024.0;
	else if (starts(q, e, "GiB"))
		v *= 1073741824.0;
	else
		return OL_NULL;
	return v < 9e18 ? (int64_t)(v + 0.5) : OL_NULL;
}

/* The number at p in the unit of the size at q ("165 of 31880 MiB":
 * 165 MiB), as bytes, or OL_NULL. */
static int64_t scaled_like(const char *p, const char *q, const char *e)
{
	double v, t;
	int64_t tb = mib_at(q, e);
	const char *qe = num_at(skip_ws(q, e), e, &t);

	if (!num_at(skip_ws(p, e), e, &v) || tb == OL_NULL || !qe)
		return OL_NULL;
	if (t <= 0)     /* "0 of 0 MiB": the unit is the line's, MiB */
		v *= 1048576.0;
	else
		v *= (double)tb / t;
	return v < 9e18 ? (int64_t)(v + 0.5) : OL_NULL;
}

static void jset_num(json_t *o, const char *k, double v, int have)
{
	json_object_set_new(o, k, have ? json_real(v) : json_null());
}

/* A daemon's tag inside text no wrapper reader took (a journal line with
 * a localized month, a host-less line): "... systemd-oomd[666]: msg".
 * Sets ident and moves *pp past the tag; 0 when there is none. */
static int embedded_tag(const char **pp, const char *e, char *ident, size_t n)
{
	static const char *const tags[] = { "systemd-oomd[", "earlyoom[", "systemd[", "slurmstepd[" };
	const char *p = *pp, *lim = e - p > 96 ? p + 96 : e, *t, *c;
	size_t i;

	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if ((t = find(p, lim, tags[i])) && (t == p || t[-1] == ' ') &&
		    (c = find(t, lim, "]: "))) {
			copy_str(ident, n, t, t + strlen(tags[i]) - 1);
			*pp = c + 3;
			return 1;
		}
	return 0;
}

/* ---------------------------------------------------------------------
 * Held events.
 */

/* Send the held event, if any (contract in kernel_oom_report.h). */
int up_flush(struct kparse *kp)
{
	struct upending *u = &kp->up;
	json_t *d = u->d;

	if (!d)
		return 0;
	u->d = NULL;
	return kp_event_at(kp, &u->t, u->line, u->kind, u->pid, u->comm, u->bytes, u->summary,
			   d) < 0 ? -1 : 0;
}

/* Hold an event until its lines are read (contract in kernel_oom_report.h). */
int up_hold(struct kparse *kp, const struct krec *r, int what, const char *kind,
	    int64_t pid, const char *comm, int64_t bytes, const char *summary, json_t *d)
{
	struct upending *u = &kp->up;

	if (up_flush(kp) < 0) {
		json_decref(d);
		return -1;
	}
	u->d = d;
	u->what = what;
	u->kind = kind;
	u->t = r->t;
	u->line = kp->in->lineno;
	u->pid = pid;
	u->bytes = bytes;
	snprintf(u->comm, sizeof(u->comm), "%s", comm);
	snprintf(u->summary, sizeof(u->summary), "%s", summary);
	return 0;
}

int userspace_finish(struct kparse *kp)
{
	struct oomd_ctx *o = &kp->oomd;

	if (up_flush(kp) < 0)
		return -1;
	if (o->have_list) {     /* a candidate list no kill followed */
		json_t *d = json_object(), *a = json_array();
		char summary[320];
		int i;

		jset_int(d, "considered", o->considered);
		for (i = 0; i < o->ncand; i++) {
			json_t *c = json_object();
			jset_str(c, "path", o->cand[i].path);
			jset_int(c, "memory_bytes", o->cand[i].mem);
			jset_int(c, "swap_bytes", o->cand[i].swap);
			json_array_append_new(a, c);
		}
		json_object_set_new(d, "candidates", a);
		snprintf(summary, sizeof(summary), "systemd-oomd considered %lld cgroups for killing",
			 (long long)(o->considered == OL_NULL ? 0 : o->considered));
		o->have_list = 0;
		if (kp_event_at(kp, &o->list_t, o->list_line, "oomd_candidates", OL_NULL, "",
				OL_NULL, summary, d) < 0)
			return -1;
	}
	return 0;
}

void userspace_init(struct kparse *kp)
{
	kp->eo.avail = kp->eo.total = kp->eo.swap_free = kp->eo.swap_total = OL_NULL;
	kp->eo.avail_pct = -1;
}

void userspace_release(struct kparse *kp)
{
	json_decref(kp->up.d);
	kp->up.d = NULL;
}

/* ---------------------------------------------------------------------
 * earlyoom.
 */

/* "mem avail: A of T MiB (P%), swap free: F of S MiB (Q%)": a sample of
 * host.mem_available_bytes and host.swap_free_bytes, the totals as meta
 * when they change. -1 when the sink failed. */
static int eo_status_line(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	struct eo_status *s = &kp->eo;
	const char *c = p + 10, *o, *sw;
	char v[32];
	double pct;

	o = find(c, e, " of ");
	s->total = o ? mib_at(o + 4, e) : OL_NULL;
	s->avail = o ? scaled_like(c, o + 4, e) : mib_at(c, e);
	s->have = s->avail != OL_NULL;
	s->avail_pct = -1;
	if (o && (c = find(o, e, "(")) && num_at(skip_ws(c + 1, e), e, &pct))
		s->avail_pct = pct;
	s->swap_free = s->swap_total = OL_NULL;
	if ((sw = find(p, e, "swap free:"))) {
		o = find(sw, e, " of ");
		s->swap_total = o ? mib_at(o + 4, e) : OL_NULL;
		s->swap_free = o ? scaled_like(sw + 10, o + 4, e) : mib_at(sw + 10, e);
	}
	if (s->avail != OL_NULL) {
		int64_t id = sink_series(kp->s, vocab_series_name(VS_HOST_MEM_AVAILABLE_BYTES),
				"bytes", "");
		if (kp_emit(kp, id) < 0 || kp_emit(kp, sink_sample(kp->s, id, &r->t,
								  (double)s->avail)) < 0)
			return -1;
	}
	if (s->swap_free != OL_NULL && s->swap_total > 0) {
		int64_t id = sink_series(kp->s, vocab_series_name(VS_HOST_SWAP_FREE_BYTES),
				"bytes", "");
		if (kp_emit(kp, id) < 0 || kp_emit(kp, sink_sample(kp->s, id, &r->t,
								  (double)s->swap_free)) < 0)
			return -1;
	}
	snprintf(v, sizeof(v), "%lld", (long long)s->total);
	if (s->total != OL_NULL && strcmp(v, s->total_meta)) {
		snprintf(s->total_meta, sizeof(s->total_meta), "%s", v);
		if (kp_emit(kp, sink_meta(kp->s, vocab_meta_key(VM_HOST_MEM_TOTAL_BYTES), v)) < 0)
			return -1;
	}
	snprintf(v, sizeof(v), "%lld", (long long)s->swap_total);
	if (s->swap_total != OL_NULL && strcmp(v, s->swap_meta)) {
		snprintf(s->swap_meta, sizeof(s->swap_meta), "%s", v);
		if (kp_emit(kp, sink_meta(kp->s, vocab_meta_key(VM_HOST_SWAP_TOTAL_BYTES), v)) < 0)
			return -1;
	}
	return 1;
}

/* earlyoom's start-up "mem total: T MiB, swap total: S MiB". */
static int eo_total_line(struct kparse *kp, const char *p, const char *e)
{
	const char *sw = find(p, e, "swap total:");

	kp->eo.total = mib_at(p + 10, e);
	kp->eo.swap_total = sw ? mib_at(sw + 11, e) : OL_NULL;
	if (kp->eo.total != OL_NULL) {
		char v[32];
		snprintf(v, sizeof(v), "%lld", (long long)kp->eo.total);
		snprintf(kp->eo.total_meta, sizeof(kp->eo.total_meta), "%s", v);
		if (kp_emit(kp, sink_meta(kp->s, vocab_meta_key(VM_HOST_MEM_TOTAL_BYTES), v)) < 0)
			return -1;
	}
	return 1;
}

/* The data of an earlyoom kill: the figures after the name, and the
 * last status line's memory. */
static json_t *eo_kill_json(struct kparse *kp, const char *sig, int64_t uid, const char *p,
			    const char *e, int64_t rss)
{
	const struct eo_status *s = &kp->eo;
	json_t *d = json_object();
	const char *c, *q;
	char reason[256] = "", cmd[512] = "";

	json_object_set_new(d, "killer", json_string("earlyoom"));
	jset_str(d, "cgroup", NULL);
	if ((c = find(p, e, ": badness ")) || (c = find(p, e, ": oom_score ")))
		copy_str(reason, sizeof(reason), c + 2, e);
	jset_str(d, "reason", reason);
	jset_str(d, "signal", sig);
	jset_int(d, "uid", uid);
	jset_int(d, "badness", key_int(p, e, "badness "));
	jset_int(d, "oom_score", key_int(p, e, "oom_score "));
	jset_int(d, "rss_bytes", rss);
	if ((c = find(p, e, "cmdline \"")) && (q = rfind(c + 9, e, "\"")))
		copy_str(cmd, sizeof(cmd), c + 9, q);
	jset_str(d, "cmdline", cmd);
	jset_int(d, "mem_available_bytes", s->have ? s->avail : OL_NULL);
	jset_int(d, "mem_total_bytes", s->total);
	jset_num(d, "mem_available_percent", s->avail_pct, s->have && s->avail_pct >= 0);
	jset_int(d, "swap_free_bytes", s->have ? s->swap_free : OL_NULL);
	jset_int(d, "swap_total_bytes", s->swap_total);
	json_object_set_new(d, "escalated", json_false());
	json_object_set_new(d, "exited_after_s", json_null());
	return d;
}

/* "sending SIGTERM to process N [uid U] "c": ..." or "killing process N
 * "c" with signal S: ...": the kill, held for its escalation and exit. */
static int eo_kill(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	char comm[64] = "", sig[16] = "", summary[200];
	const char *c, *t = NULL, *q;
	int64_t pid = OL_NULL, uid = OL_NULL, rss, s;

	if (starts(p, e, "sending SIG") && (c = find(p, e, " to process "))) {
		copy_str(sig, sizeof(sig), p + 8, c);
		t = parse_int(c + 12, e, &pid);
		uid = key_int(c, e, " uid ");
	} else if (starts(p, e, "killing process ")) {
		t = parse_int(p + 16, e, &pid);
		if ((c = find(p, e, " with signal ")) && parse_int(c + 13, e, &s))
			snprintf(sig, sizeof(sig), "%s", s == 15 ? "SIGTERM" : s == 9 ? "SIGKILL" : "");
		if (!sig[0] && c) {
			const char *se = c + 13;
			while (se < e && *se != ':')
				se++;
			copy_str(sig, sizeof(sig), c + 13, se);
		}
	} else {
		return 0;
	}
	if (!t)
		return 0;
	if ((c = memchr(t, '"', (size_t)(e - t))) && (q = memchr(c + 1, '"', (size_t)(e - c - 1))))
		copy_str(comm, sizeof(comm), c + 1, q);
	rss = (c = find(p, e, "VmRSS ")) ? mib_at(c + 6, e) : OL_NULL;
	snprintf(summary, sizeof(summary), "earlyoom killed %s (pid %lld)", comm[0] ? comm : "?",
		 (long long)pid);
	return up_hold(kp, r, UP_EARLYOOM, "userspace_kill", pid, comm, rss, summary,
		       eo_kill_json(kp, sig, uid, p, e, rss)) < 0 ? -1 : 1;
}

/* One earlyoom message. */
static int earlyoom_line(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	struct upending *u = &kp->up;
	const char *c;
	double v;

	if (starts(p, e, "mem avail: "))
		return eo_status_line(kp, r, p, e);
	if (starts(p, e, "mem total: "))
		return eo_total_line(kp, p, e);
	if (starts(p, e, "escalating to SIGKILL")) {
		if (u->d && u->what == UP_EARLYOOM)
			json_object_set_new(u->d, "escalated", json_true());
		return 1;
	}
	if (starts(p, e, "process ") && (c = find(p, e, "exited after "))) {
		if (u->d && u->what == UP_EARLYOOM) {
			if (num_at(c + 13, e, &v))
				json_object_set_new(u->d, "exited_after_s", json_real(v));
			return up_flush(kp) < 0 ? -1 : 1;
		}
		return 1;
	}
	return eo_kill(kp, r, p, e);
}

/* ---------------------------------------------------------------------
 * systemd-oomd and systemd.
 */

/* "P% > L% for > Ds" at p: the pressure, its limit and the duration. */
static int pressure_at(const char *p, const char *e, double *pr, double *lim, int64_t *dur)
{
	const char *q = num_at(skip_ws(p, e), e, pr), *c;

	if (!q || !(c = find(q, e, "> ")) || !(q = num_at(c + 2, e, lim)))
		return 0;
	*dur = OL_NULL;
	if ((c = find(q, e, "for > ")))
		parse_int(c + 6, e, dur);
	return 1;
}

/* Add to the kill's data d what oomd said before it: the pressure (when
 * the kill line had none), the pids it tried, the candidate list and the
 * killed cgroup's usage in it. The context is then spent. */
static void oomd_context(struct oomd_ctx *o, json_t *d, const char *target, int have_pressure)
{
	json_t *pids = json_array();
	int i;

	if (!have_pressure && o->have_pressure) {
		jset_str(d, "monitored_cgroup", o->monitored);
		jset_num(d, "pressure_percent", o->pressure, 1);
		jset_num(d, "pressure_limit_percent", o->limit, 1);
		jset_int(d, "pressure_duration_s", o->duration_s);
	}
	for (i = 0; i < o->npids; i++)
		json_array_append_new(pids, json_integer(o->pids[i]));
	json_object_set_new(d, "pids", pids);
	jset_int(d, "candidates_considered", o->have_list ? o->considered : OL_NULL);
	jset_int(d, "memory_bytes", OL_NULL);
	jset_int(d, "swap_bytes", OL_NULL);
	for (i = 0; o->have_list && i < o->ncand; i++)
		if (!strcmp(o->cand[i].path, target)) {
			jset_int(d, "memory_bytes", o->cand[i].mem);
			jset_int(d, "swap_bytes", o->cand[i].swap);
		}
	o->have_pressure = o->npids = o->have_list = o->ncand = 0;
}

/* "Killed /y due to ..." / "Marked /y for killing due to ...": the kill. */
static int oomd_kill(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	char target[256] = "", reason[256] = "", mon[256] = "", summary[320];
	const char *c, *t, *why;
	double pr = 0, lim = 0;
	int64_t dur = OL_NULL, pid;
	int have_p = 0;
	json_t *d;

	c = p + 7;
	if (!(t = find(c, e, " due to ")))
		t = e;
	why = t < e ? t + 8 : e;
	if (starts(p, e, "Marked ") && t - c > 12 && !memcmp(t - 12, " for killing", 12))
		t -= 12;
	copy_str(target, sizeof(target), c, t);
	if (starts(why, e, "memory pressure for ")) {
		const char *m = why + 20, *me = m;
		while (me < e && *me != ' ')
			me++;
		copy_str(mon, sizeof(mon), m, me);
		snprintf(reason, sizeof(reason), "memory pressure");
		if ((c = find(me, e, " being ")))
			have_p = pressure_at(c + 7, e, &pr, &lim, &dur);
	} else if (starts(why, e, "memory used")) {
		snprintf(reason, sizeof(reason), "swap");
	} else {
		copy_str(reason, sizeof(reason), why, e);
	}
	d = json_object();
	json_object_set_new(d, "killer", json_string("systemd-oomd"));
	jset_str(d, "cgroup", target);
	jset_str(d, "reason", reason);
	jset_str(d, "signal", "SIGKILL");
	jset_int(d, "uid", OL_NULL);
	jset_str(d, "monitored_cgroup", mon);
	jset_num(d, "pressure_percent", pr, have_p);
	jset_num(d, "pressure_limit_percent", lim, have_p);
	jset_int(d, "pressure_duration_s", dur);
	json_object_set_new(d, "marked", json_boolean(starts(p, e, "Marked ")));
	pid = kp->oomd.npids == 1 ? kp->oomd.pids[0] : OL_NULL;
	oomd_context(&kp->oomd, d, target, have_p);
	snprintf(summary, sizeof(summary), "systemd-oomd killed %s", target[0] ? target : "?");
	return kp_record_event(kp, r, vocab_event_kind(VE_USERSPACE_KILL), pid, "", OL_NULL,
			summary, d) < 0 ? -1 : 1;
}

/* The candidate list: "Path: /y" then its "Current Memory Usage: 55.5M"
 * and "Swap Usage: 477.8M" lines. */
static int oomd_candidate(struct oomd_ctx *o, const char *p, const char *e)
{
	if (starts(p, e, "Path: ")) {
		if (o->ncand < OOMD_CANDIDATES) {
			copy_str(o->cand[o->ncand].path, sizeof(o->cand[0].path), p + 6, e);
			o->cand[o->ncand].mem = o->cand[o->ncand].swap = OL_NULL;
			o->ncand++;
		}
		return 1;
	}
	if (!o->ncand || o->ncand > OOMD_CANDIDATES)
		return 0;
	if (starts(p, e, "Current Memory Usage: "))
		o->cand[o->ncand - 1].mem = sysd_size(p + 22, e);
	else if (starts(p, e, "Swap Usage: "))
		o->cand[o->ncand - 1].swap = sysd_size(p + 12, e);
	else
		return 0;
	return 1;
}

/* One systemd-oomd message. */
static int oomd_line(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	struct oomd_ctx *o = &kp->oomd;
	const char *c;
	int64_t v;

	if (starts(p, e, "Killed ") || starts(p, e, "Marked "))
		return oomd_kill(kp, r, p, e);
	if (starts(p, e, "Memory pressure for ") && (c = find(p, e, " is "))) {
		copy_str(o->monitored, sizeof(o->monitored), p + 20, c);
		o->have_pressure = pressure_at(c + 4, e, &o->pressure, &o->limit, &o->duration_s);
		return 1;
	}
	if (starts(p, e, "oomd attempting to kill ") && parse_int(p + 24, e, &v)) {
		if (o->npids < OOMD_PIDS)
			o->pids[o->npids++] = v;
		return 1;
	}
	if (starts(p, e, "Considered ") && find(p, e, " for killing")) {
		if (userspace_finish(kp) < 0)    /* an earlier list no kill took */
			return -1;
		o->considered = OL_NULL;
		parse_int(p + 11, e, &o->considered);
		o->have_list = 1;
		o->ncand = 0;
		o->list_t = r->t;
		o->list_line = kp->in->lineno;
		return 1;
	}
	return o->have_list ? oomd_candidate(o, p, e) : 0;
}

/* systemd's notices on a unit: "u: systemd-oomd killed N process(es) in
 * this unit." and "u: A process of this unit has been killed by the OOM
 * killer." (a kernel OOM kill in that unit). */
static int unit_line(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	const char *c, *killer;
	char unit[256], summary[320];
	int64_t n = OL_NULL;
	json_t *d;

	if ((c = find(p, e, ": systemd-oomd killed "))) {
		killer = "systemd-oomd";
		parse_int(c + 22, e, &n);
	} else if ((c = find(p, e, ": A process of this unit has been killed by the OOM killer"))) {
		killer = "kernel";
	} else if (starts(p, e, "A process of this unit has been killed by the OOM killer")) {
		/* the notice pasted from `systemctl status` or `journalctl -u`
		 * with its prefix and unit name cut: the unit is not known
		 * (systemd src/core/unit.c@v255 unit_check_oom: the message
		 * is "A process of this unit has been killed by the OOM killer.") */
		killer = "kernel";
		c = p;
	} else {
		return 0;
	}
	copy_str(unit, sizeof(unit), p, c);
	d = json_object();
	jset_str(d, "unit", unit);
	jset_str(d, "killer", killer);
	jset_int(d, "processes", n);
	snprintf(summary, sizeof(summary), "%s: %s killed a process in this unit", unit,
		 !strcmp(killer, "kernel") ? "the kernel OOM killer" : killer);
	return kp_record_event(kp, r, vocab_event_kind(VE_SYSTEMD_UNIT_OOM), OL_NULL, "",
			OL_NULL, summary, d) < 0
	       ? -1 : 1;
}

/* ---------------------------------------------------------------------
 * Entry points.
 */

int userspace_bare_start(const char *l, size_t n)
{
	static const char *const starts_[] = {
		"mem avail:", "mem total:", "sending SIG", "killing process ", "escalating to SIG",
		"process exited", "srun: ", "slurmstepd: ", "slurmstepd-",
	};
	size_t i, k;

	if (n < 6 || !strchr("mskeps", l[0]))
		return 0;
	for (i = 0; i < sizeof(starts_) / sizeof(starts_[0]); i++) {
		k = strlen(starts_[i]);
		if (n >= k && !memcmp(l, starts_[i], k))
			return 1;
	}
	return 0;
}

int m_userspace(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	char tag[48];
	const char *ident = r->has_ident ? r->ident : "";
	int rc;

	if (kp->up.d && kp->in->lineno - kp->up.line > UP_LINES && up_flush(kp) < 0)
		return -1;
	if (!r->has_ident && embedded_tag(&p, e, tag, sizeof(tag))) {
		ident = tag;
		p = skip_ws(p, e);
	}
	if (!strcmp(ident, "systemd-oomd"))
		return oomd_line(kp, r, p, e);
	if (!strcmp(ident, "systemd"))
		return unit_line(kp, r, p, e);
	if (!strcmp(ident, "earlyoom"))
		return earlyoom_line(kp, r, p, e);
	if ((!strcmp(ident, "slurmstepd") || !strcmp(ident, "srun") || !ident[0]) &&
	    (rc = slurm_line(kp, r, ident, p, e)))
		return rc;
	if (!ident[0]) {
		if ((rc = unit_line(kp, r, p, e)))
			return rc;
		return earlyoom_line(kp, r, p, e);
	}
	return 0;
}
